/* sys_xattr.c: extended attributes (ls -l asks for a file's ACL and security label, cp -a
 * and tar copy them): the host's calls on the guest's buffers, whose layout is the same
 * on every host. */
#include <sys/xattr.h>

#include "sys_common.h"

#define PATH(x) PATH_ARG(x)

/* The value buffers: get and list fill up to size bytes of theirs, as far as the guest's
 * memory goes (room); set reads all of its. */
static void *value_in(Cpu *c, uint64_t at, uint64_t size) {
  void *p;
  return guest_area(c, at, size, GUEST_PROT_READ, &p) ? p : NULL;
}

int64_t sys_getxattr(Cpu *c, const uint64_t *a) {
  int64_t room = guest_transfer(c, a[2], a[3], GUEST_PROT_WRITE);
  return room < 0 ? room : host_result(getxattr(PATH(a[0]), PATH(a[1]), GUEST_PTR(a[2]), (size_t)room));
}
int64_t sys_lgetxattr(Cpu *c, const uint64_t *a) {
  int64_t room = guest_transfer(c, a[2], a[3], GUEST_PROT_WRITE);
  return room < 0 ? room : host_result(lgetxattr(PATH(a[0]), PATH(a[1]), GUEST_PTR(a[2]), (size_t)room));
}
int64_t sys_fgetxattr(Cpu *c, const uint64_t *a) {
  int64_t room = guest_transfer(c, a[2], a[3], GUEST_PROT_WRITE);
  return room < 0 ? room : host_result(fgetxattr(arg_fd(a[0]), PATH(a[1]), GUEST_PTR(a[2]), (size_t)room));
}

int64_t sys_listxattr(Cpu *c, const uint64_t *a) {
  int64_t room = guest_transfer(c, a[1], a[2], GUEST_PROT_WRITE);
  return room < 0 ? room : host_result(listxattr(PATH(a[0]), GUEST_PTR(a[1]), (size_t)room));
}
int64_t sys_llistxattr(Cpu *c, const uint64_t *a) {
  int64_t room = guest_transfer(c, a[1], a[2], GUEST_PROT_WRITE);
  return room < 0 ? room : host_result(llistxattr(PATH(a[0]), GUEST_PTR(a[1]), (size_t)room));
}
int64_t sys_flistxattr(Cpu *c, const uint64_t *a) {
  int64_t room = guest_transfer(c, a[1], a[2], GUEST_PROT_WRITE);
  return room < 0 ? room : host_result(flistxattr(arg_fd(a[0]), GUEST_PTR(a[1]), (size_t)room));
}

int64_t sys_setxattr(Cpu *c, const uint64_t *a) {
  const void *v = value_in(c, a[2], a[3]);
  return a[3] && !v ? -EFAULT : host_result(setxattr(PATH(a[0]), PATH(a[1]), v, a[3], (int)a[4]));
}
int64_t sys_lsetxattr(Cpu *c, const uint64_t *a) {
  const void *v = value_in(c, a[2], a[3]);
  return a[3] && !v ? -EFAULT : host_result(lsetxattr(PATH(a[0]), PATH(a[1]), v, a[3], (int)a[4]));
}
int64_t sys_fsetxattr(Cpu *c, const uint64_t *a) {
  const void *v = value_in(c, a[2], a[3]);
  return a[3] && !v ? -EFAULT : host_result(fsetxattr(arg_fd(a[0]), PATH(a[1]), v, a[3], (int)a[4]));
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
