/* sys_xattr.c: extended attributes (ls -l asks for a file's ACL and security label, cp -a
 * and tar copy them): the host's calls on the guest's buffers, whose layout is the same
 * on every host. */
#include <sys/xattr.h>

#include "sys_common.h"

#define PATH(x) ((const char *)GUEST_PTR(x))

int64_t sys_getxattr(Cpu *c, const uint64_t *a) {
  return host_result(getxattr(PATH(a[0]), PATH(a[1]), GUEST_PTR(a[2]), a[3]));
}
int64_t sys_lgetxattr(Cpu *c, const uint64_t *a) {
  return host_result(lgetxattr(PATH(a[0]), PATH(a[1]), GUEST_PTR(a[2]), a[3]));
}
int64_t sys_fgetxattr(Cpu *c, const uint64_t *a) {
  return host_result(fgetxattr(arg_fd(a[0]), PATH(a[1]), GUEST_PTR(a[2]), a[3]));
}

int64_t sys_listxattr(Cpu *c, const uint64_t *a) {
  return host_result(listxattr(PATH(a[0]), GUEST_PTR(a[1]), a[2]));
}
int64_t sys_llistxattr(Cpu *c, const uint64_t *a) {
  return host_result(llistxattr(PATH(a[0]), GUEST_PTR(a[1]), a[2]));
}
int64_t sys_flistxattr(Cpu *c, const uint64_t *a) {
  return host_result(flistxattr(arg_fd(a[0]), GUEST_PTR(a[1]), a[2]));
}

int64_t sys_setxattr(Cpu *c, const uint64_t *a) {
  return host_result(setxattr(PATH(a[0]), PATH(a[1]), GUEST_PTR(a[2]), a[3], (int)a[4]));
}
int64_t sys_lsetxattr(Cpu *c, const uint64_t *a) {
  return host_result(lsetxattr(PATH(a[0]), PATH(a[1]), GUEST_PTR(a[2]), a[3], (int)a[4]));
}
int64_t sys_fsetxattr(Cpu *c, const uint64_t *a) {
  return host_result(fsetxattr(arg_fd(a[0]), PATH(a[1]), GUEST_PTR(a[2]), a[3], (int)a[4]));
}

int64_t sys_removexattr(Cpu *c, const uint64_t *a) {
  return host_result(removexattr(PATH(a[0]), PATH(a[1])));
}
int64_t sys_lremovexattr(Cpu *c, const uint64_t *a) {
  return host_result(lremovexattr(PATH(a[0]), PATH(a[1])));
}
int64_t sys_fremovexattr(Cpu *c, const uint64_t *a) {
  return host_result(fremovexattr(arg_fd(a[0]), PATH(a[1])));
}
