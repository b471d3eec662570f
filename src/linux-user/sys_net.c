/* sys_net.c: sockets, passed through: their structures and constants are the same on 64-bit hosts. */
#define _GNU_SOURCE
#include <sys/socket.h>
#include <unistd.h>

#include "sys_common.h"

/* struct sockaddr*, msghdr, mmsghdr, iovec and the SOL_SOCKET/SO_* numbers are identical on
 * x86-64 and aarch64 (they differ only on mips, sparc, parisc and alpha); SOCK_NONBLOCK and
 * SOCK_CLOEXEC equal O_NONBLOCK and O_CLOEXEC, which the two share. */

int64_t sys_socket(Cpu *c, const uint64_t *a) {
  return host_result(socket((int)a[0], (int)a[1], (int)a[2]));
}

int64_t sys_socketpair(Cpu *c, const uint64_t *a) {
  int sv[2];
  if (socketpair((int)a[0], (int)a[1], (int)a[2], sv) < 0) return -errno;
  int r = guest_copy_out(a[3], sv, sizeof sv);
  if (r < 0) {
    close(sv[0]);
    close(sv[1]);
  }
  return r;
}

int64_t sys_connect(Cpu *c, const uint64_t *a) {
  return host_result(connect(arg_fd(a[0]), GUEST_PTR(a[1]), (socklen_t)a[2]));
}

int64_t sys_bind(Cpu *c, const uint64_t *a) {
  return host_result(bind(arg_fd(a[0]), GUEST_PTR(a[1]), (socklen_t)a[2]));
}

int64_t sys_listen(Cpu *c, const uint64_t *a) {
  return host_result(listen(arg_fd(a[0]), (int)a[1]));
}

int64_t sys_accept(Cpu *c, const uint64_t *a) {
  return host_result(accept(arg_fd(a[0]), GUEST_PTR(a[1]), GUEST_PTR(a[2])));
}

int64_t sys_accept4(Cpu *c, const uint64_t *a) {
  return host_result(accept4(arg_fd(a[0]), GUEST_PTR(a[1]), GUEST_PTR(a[2]), (int)a[3]));
}

int64_t sys_shutdown(Cpu *c, const uint64_t *a) {
  return host_result(shutdown(arg_fd(a[0]), (int)a[1]));
}

int64_t sys_getsockname(Cpu *c, const uint64_t *a) {
  return host_result(getsockname(arg_fd(a[0]), GUEST_PTR(a[1]), GUEST_PTR(a[2])));
}

int64_t sys_getpeername(Cpu *c, const uint64_t *a) {
  return host_result(getpeername(arg_fd(a[0]), GUEST_PTR(a[1]), GUEST_PTR(a[2])));
}

int64_t sys_setsockopt(Cpu *c, const uint64_t *a) {
  return host_result(
      setsockopt(arg_fd(a[0]), (int)a[1], (int)a[2], GUEST_PTR(a[3]), (socklen_t)a[4]));
}

int64_t sys_getsockopt(Cpu *c, const uint64_t *a) {
  return host_result(
      getsockopt(arg_fd(a[0]), (int)a[1], (int)a[2], GUEST_PTR(a[3]), GUEST_PTR(a[4])));
}

int64_t sys_sendto(Cpu *c, const uint64_t *a) {
  return host_result(sendto(arg_fd(a[0]), GUEST_PTR(a[1]), a[2], (int)a[3], GUEST_PTR(a[4]),
                            (socklen_t)a[5]));
}

int64_t sys_recvfrom(Cpu *c, const uint64_t *a) {
  return host_result(recvfrom(arg_fd(a[0]), GUEST_PTR(a[1]), a[2], (int)a[3], GUEST_PTR(a[4]),
                              GUEST_PTR(a[5])));
}

int64_t sys_sendmsg(Cpu *c, const uint64_t *a) {
  return host_result(sendmsg(arg_fd(a[0]), GUEST_PTR(a[1]), (int)a[2]));
}

int64_t sys_recvmsg(Cpu *c, const uint64_t *a) {
  return host_result(recvmsg(arg_fd(a[0]), GUEST_PTR(a[1]), (int)a[2]));
}
