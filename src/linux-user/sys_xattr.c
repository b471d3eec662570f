/* sys_xattr.c: extended attributes (ls -l asks for a file's ACL and security label, cp -a
 * and tar copy them): the host's calls on the guest's buffers, whose layout is the same
 * on every host. */
#include <sys/syscall.h>
#include <sys/xattr.h>

#include "sys_common.h"

#define PATH(x) PATH_ARG(x)

/* The value buffers: get and list fill up to size bytes of theirs, as far as the guest's
 * memory goes (room); set reads all of its. One that is not the guest's at all goes to the
 * kernel refused (refused_by_kernel), so that its errors come in its order; the calls are
 * raw, as a sanitizer's wrapper of the C library's would read the buffer itself. */
static const void *value_in(Cpu *c, uint64_t at, uint64_t size) {
  void *p;
  guest_area(c, at, size, GUEST_PROT_READ, &p);
  return p;
}

int64_t sys_getxattr(Cpu *c, const uint64_t *a) {
  size_t room;
  void *buf = guest_transfer(c, a[2], a[3], GUEST_PROT_WRITE, &room);
  return host_result(syscall(SYS_getxattr, PATH(a[0]), PATH(a[1]), buf, room));
}
int64_t sys_lgetxattr(Cpu *c, const uint64_t *a) {
  size_t room;
  void *buf = guest_transfer(c, a[2], a[3], GUEST_PROT_WRITE, &room);
  return host_result(syscall(SYS_lgetxattr, PATH(a[0]), PATH(a[1]), buf, room));
}
int64_t sys_fgetxattr(Cpu *c, const uint64_t *a) {
  size_t room;
  void *buf = guest_transfer(c, a[2], a[3], GUEST_PROT_WRITE, &room);
  return host_result(syscall(SYS_fgetxattr, arg_fd(a[0]), PATH(a[1]), buf, room));
}

int64_t sys_listxattr(Cpu *c, const uint64_t *a) {
  size_t room;
  void *buf = guest_transfer(c, a[1], a[2], GUEST_PROT_WRITE, &room);
  return host_result(syscall(SYS_listxattr, PATH(a[0]), buf, room));
}
int64_t sys_llistxattr(Cpu *c, const uint64_t *a) {
  size_t room;
  void *buf = guest_transfer(c, a[1], a[2], GUEST_PROT_WRITE, &room);
  return host_result(syscall(SYS_llistxattr, PATH(a[0]), buf, room));
}
int64_t sys_flistxattr(Cpu *c, const uint64_t *a) {
  size_t room;
  void *buf = guest_transfer(c, a[1], a[2], GUEST_PROT_WRITE, &room);
  return host_result(syscall(SYS_flistxattr, arg_fd(a[0]), buf, room));
}

int64_t sys_setxattr(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_setxattr, PATH(a[0]), PATH(a[1]), value_in(c, a[2], a[3]), a[3], (int)a[4]));
}
int64_t sys_lsetxattr(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_lsetxattr, PATH(a[0]), PATH(a[1]), value_in(c, a[2], a[3]), a[3], (int)a[4]));
}
int64_t sys_fsetxattr(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_fsetxattr, arg_fd(a[0]), PATH(a[1]), value_in(c, a[2], a[3]), a[3], (int)a[4]));
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
