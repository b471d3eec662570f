/* sys_net.c: sockets, passed through: their structures and constants are the same on 64-bit hosts. */
#define _GNU_SOURCE
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
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
  int r = guest_copy_out(c, a[3], sv, sizeof sv);
  if (r < 0) {
    close(sv[0]);
    close(sv[1]);
  }
  return r;
}

/* An address the call reads: len bytes at at. */
static bool addr_in(Cpu *c, uint64_t at, uint64_t len, void **out) {
  return guest_area(c, at, len, GUEST_PROT_READ, out);
}

/* An address the call writes and its length word, as the host call takes them. */
typedef struct {
  void *addr;     /* the guest's room, NULL, or REFUSED_BY_KERNEL */
  socklen_t *len; /* &room, NULL, or REFUSED_BY_KERNEL */
  socklen_t room; /* the length word, held here: no guest thread can raise it mid-call */
  uint64_t len_at; /* the guest's length word, where the call's length goes back */
} AddrOut;

/* NULL for NULL; a part that is not the guest's (the room as the guest says) becomes
 * REFUSED_BY_KERNEL, so that the kernel answers EBADF, ENOTSOCK, EINVAL or EAGAIN first
 * and EFAULT only when it writes, as it does for the guest. The calls that take them are
 * raw system calls: a sanitizer's wrapper of the C library's would read them itself. */
static void addr_out(Cpu *c, uint64_t at, uint64_t len_at, AddrOut *o) {
  void *word;
  *o = (AddrOut){NULL, NULL, 0, len_at};
  if (!at && !len_at) return;
  o->len = guest_area(c, len_at, sizeof o->room, GUEST_PROT_READ | GUEST_PROT_WRITE, &word) &&
                   guest_copy_in(c, &o->room, len_at, sizeof o->room) == 0
               ? &o->room
               : REFUSED_BY_KERNEL;
  if (at && ((int)o->room < 0 || !guest_area(c, at, o->room, GUEST_PROT_WRITE, &o->addr)))
    o->addr = REFUSED_BY_KERNEL; /* a negative room: the kernel's EINVAL comes first */
}

/* The call's result r, once the length it gave is in the guest's word. */
static int64_t addr_out_done(Cpu *c, const AddrOut *o, int64_t r) {
  if (r >= 0 && o->len == &o->room) guest_copy_out(c, o->len_at, &o->room, sizeof o->room);
  return r;
}

int64_t sys_connect(Cpu *c, const uint64_t *a) {
  void *addr;
  if (!addr_in(c, a[1], (socklen_t)a[2], &addr)) return -EFAULT;
  return host_result(connect(arg_fd(a[0]), addr, (socklen_t)a[2]));
}

int64_t sys_bind(Cpu *c, const uint64_t *a) {
  void *addr;
  if (!addr_in(c, a[1], (socklen_t)a[2], &addr)) return -EFAULT;
  return host_result(bind(arg_fd(a[0]), addr, (socklen_t)a[2]));
}

int64_t sys_listen(Cpu *c, const uint64_t *a) {
  return host_result(listen(arg_fd(a[0]), (int)a[1]));
}

int64_t sys_accept4(Cpu *c, const uint64_t *a) {
  AddrOut o;
  addr_out(c, a[1], a[2], &o);
  int64_t r = host_result(syscall(SYS_accept4, arg_fd(a[0]), o.addr, o.len, (int)a[3]));
  return addr_out_done(c, &o, r);
}

int64_t sys_accept(Cpu *c, const uint64_t *a) {
  const uint64_t args[4] = {a[0], a[1], a[2], 0};
  return sys_accept4(c, args);
}

int64_t sys_shutdown(Cpu *c, const uint64_t *a) {
  return host_result(shutdown(arg_fd(a[0]), (int)a[1]));
}

int64_t sys_getsockname(Cpu *c, const uint64_t *a) {
  AddrOut o;
  addr_out(c, a[1], a[2], &o);
  int64_t r = host_result(syscall(SYS_getsockname, arg_fd(a[0]), o.addr, o.len));
  return addr_out_done(c, &o, r);
}

int64_t sys_getpeername(Cpu *c, const uint64_t *a) {
  AddrOut o;
  addr_out(c, a[1], a[2], &o);
  int64_t r = host_result(syscall(SYS_getpeername, arg_fd(a[0]), o.addr, o.len));
  return addr_out_done(c, &o, r);
}

int64_t sys_setsockopt(Cpu *c, const uint64_t *a) {
  void *val;
  if (!addr_in(c, a[3], (socklen_t)a[4], &val)) return -EFAULT;
  return host_result(setsockopt(arg_fd(a[0]), (int)a[1], (int)a[2], val, (socklen_t)a[4]));
}

int64_t sys_getsockopt(Cpu *c, const uint64_t *a) {
  AddrOut o;
  addr_out(c, a[3], a[4], &o);
  int64_t r =
      host_result(syscall(SYS_getsockopt, arg_fd(a[0]), (int)a[1], (int)a[2], o.addr, o.len));
  return addr_out_done(c, &o, r);
}

int64_t sys_sendto(Cpu *c, const uint64_t *a) {
  void *to;
  int64_t room = guest_transfer(c, a[1], a[2], GUEST_PROT_READ);
  if (room < 0) return room;
  if (!addr_in(c, a[4], (socklen_t)a[5], &to)) return -EFAULT;
  return host_result(sendto(arg_fd(a[0]), GUEST_PTR(a[1]), (size_t)room, (int)a[3], to,
                            (socklen_t)a[5]));
}

int64_t sys_recvfrom(Cpu *c, const uint64_t *a) {
  AddrOut o;
  int64_t room = guest_transfer(c, a[1], a[2], GUEST_PROT_WRITE);
  if (room < 0) return room;
  addr_out(c, a[4], a[5], &o);
  int64_t r = host_result(syscall(SYS_recvfrom, arg_fd(a[0]), GUEST_PTR(a[1]), (size_t)room,
                                  (int)a[3], o.addr, o.len));
  return addr_out_done(c, &o, r);
}

/* A guest's struct msghdr: its name, data and control buffers found the guest's for the
 * call's direction, into *host (its iovecs in iov, room for IOV_MAX of them). */
static int64_t msghdr_found(Cpu *c, const struct msghdr *guest, int access, struct msghdr *host,
                            struct iovec *iov) {
  *host = *guest;
  int n = guest_iovec(c, (uint64_t)(uintptr_t)guest->msg_iov, (int64_t)guest->msg_iovlen, access, iov);
  if (n < 0) return n;
  host->msg_iov = iov;
  host->msg_iovlen = (size_t)n;
  if (!guest_area(c, (uint64_t)(uintptr_t)guest->msg_name, guest->msg_namelen, access, &host->msg_name) ||
      !guest_area(c, (uint64_t)(uintptr_t)guest->msg_control, guest->msg_controllen, access,
                  &host->msg_control))
    return -EFAULT;
  return 0;
}

/* The same for the guest's struct msghdr at `at`, copied into *guest first. */
static int64_t msghdr_in(Cpu *c, uint64_t at, int access, struct msghdr *guest,
                         struct msghdr *host, struct iovec *iov) {
  int r = guest_copy_in(c, guest, at, sizeof *guest);
  return r < 0 ? r : msghdr_found(c, guest, access, host, iov);
}

int64_t sys_sendmsg(Cpu *c, const uint64_t *a) {
  struct msghdr guest, host;
  struct iovec iov[IOV_MAX];
  int64_t r = msghdr_in(c, a[1], GUEST_PROT_READ, &guest, &host, iov);
  return r < 0 ? r : host_result(sendmsg(arg_fd(a[0]), &host, (int)a[2]));
}

/* The lengths and flags the call gives back go into the guest's msghdr. */
int64_t sys_recvmsg(Cpu *c, const uint64_t *a) {
  struct msghdr guest, host;
  struct iovec iov[IOV_MAX];
  int64_t r = msghdr_in(c, a[1], GUEST_PROT_WRITE, &guest, &host, iov);
  if (r < 0) return r;
  r = host_result(recvmsg(arg_fd(a[0]), &host, (int)a[2]));
  if (r < 0) return r;
  guest.msg_namelen = host.msg_namelen;
  guest.msg_controllen = host.msg_controllen;
  guest.msg_flags = host.msg_flags;
  int w = guest_copy_out(c, a[1], &guest, sizeof guest);
  return w < 0 ? w : r;
}

/* sendmmsg/recvmmsg(fd, vec, vlen, flags[, timeout]): the guest's array of struct mmsghdr
 * (a msghdr and the length the call gives back), at most UIO_MAXIOV of them as the kernel
 * takes, each found the guest's as for sendmsg/recvmsg; then one host call on them all,
 * and the lengths (recvmmsg: also the msghdr fields it sets) of the messages it passed
 * written back. */
static int64_t mmsg(Cpu *c, const uint64_t *a, bool recv) {
  unsigned vlen = (unsigned)a[2] > UIO_MAXIOV ? UIO_MAXIOV : (unsigned)a[2];
  int access = recv ? GUEST_PROT_WRITE : GUEST_PROT_READ;
  struct mmsghdr *guest = calloc(vlen ? vlen : 1, sizeof *guest);
  struct mmsghdr *host = calloc(vlen ? vlen : 1, sizeof *host);
  struct iovec *iov = NULL;
  int64_t r = guest && host ? 0 : -ENOMEM;
  if (r == 0 && vlen) r = guest_copy_in(c, guest, a[1], vlen * sizeof *guest);
  size_t segments = 0; /* each message's, IOV_MAX at most (more is guest_iovec's error) */
  for (unsigned i = 0; r == 0 && i < vlen; i++)
    segments += guest[i].msg_hdr.msg_iovlen < IOV_MAX ? guest[i].msg_hdr.msg_iovlen : IOV_MAX;
  if (r == 0 && !(iov = malloc((segments ? segments : 1) * sizeof *iov))) r = -ENOMEM;
  for (size_t i = 0, at = 0; r == 0 && i < vlen; i++) {
    r = msghdr_found(c, &guest[i].msg_hdr, access, &host[i].msg_hdr, iov + at);
    at += host[i].msg_hdr.msg_iovlen;
  }
  struct timespec timeout;
  if (r == 0 && recv && a[4]) r = guest_copy_in(c, &timeout, a[4], sizeof timeout);
  if (r == 0) {
    r = recv ? host_result(recvmmsg(arg_fd(a[0]), host, vlen, (int)a[3], a[4] ? &timeout : NULL))
             : host_result(sendmmsg(arg_fd(a[0]), host, vlen, (int)a[3]));
  }
  for (int64_t i = 0; i < r; i++) {
    guest[i].msg_len = host[i].msg_len;
    if (recv) {
      guest[i].msg_hdr.msg_namelen = host[i].msg_hdr.msg_namelen;
      guest[i].msg_hdr.msg_controllen = host[i].msg_hdr.msg_controllen;
      guest[i].msg_hdr.msg_flags = host[i].msg_hdr.msg_flags;
    }
  }
  if (r > 0) {
    int w = guest_copy_out(c, a[1], guest, (size_t)r * sizeof *guest);
    if (w < 0) r = w;
  }
  free(guest);
  free(host);
  free(iov);
  return r;
}

int64_t sys_sendmmsg(Cpu *c, const uint64_t *a) { return mmsg(c, a, false); }
int64_t sys_recvmmsg(Cpu *c, const uint64_t *a) { return mmsg(c, a, true); }
