/* sys_net.c: sockets, passed through: their structures and constants are the same on 64-bit hosts. */
#define _GNU_SOURCE
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "own_fds.h"
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

/* An address the call reads, len bytes at at: the guest's, NULL, or refused_by_kernel(),
 * so that the kernel's EBADF, ENOTSOCK and EINVAL come before its EFAULT as for the guest.
 * The calls that take one are raw system calls, as are those below: a sanitizer's wrapper
 * of the C library's would read a refused address itself. */
static void *addr_in(Cpu *c, uint64_t at, uint64_t len) {
  void *host;
  guest_area(c, at, len, GUEST_PROT_READ, &host);
  return host;
}

/* An address the call writes and its length word, as the host call takes them. */
typedef struct {
  void *addr;     /* the guest's room, NULL, or refused_by_kernel() */
  socklen_t *len; /* &room, NULL, or refused_by_kernel() */
  socklen_t room; /* the length word, held here: no guest thread can raise it mid-call */
  uint64_t len_at; /* the guest's length word, where the call's length goes back */
} AddrOut;

/* NULL for NULL; a part that is not the guest's (the room as the guest says) becomes
 * refused_by_kernel(), so that the kernel answers EBADF, ENOTSOCK, EINVAL or EAGAIN first
 * and EFAULT only when it writes, as it does for the guest. The calls that take them are
 * raw system calls: a sanitizer's wrapper of the C library's would read them itself. */
static void addr_out(Cpu *c, uint64_t at, uint64_t len_at, AddrOut *o) {
  void *word;
  *o = (AddrOut){NULL, NULL, 0, len_at};
  if (!at && !len_at) return;
  o->len = guest_area(c, len_at, sizeof o->room, GUEST_PROT_READ | GUEST_PROT_WRITE, &word) &&
                   guest_copy_in(c, &o->room, len_at, sizeof o->room) == 0
               ? &o->room
               : refused_by_kernel(len_at);
  if (at && ((int)o->room < 0 || !guest_area(c, at, o->room, GUEST_PROT_WRITE, &o->addr)))
    o->addr = refused_by_kernel(at); /* a negative room: the kernel's EINVAL comes first */
}

/* The call's result r, once the length it gave is in the guest's word. */
static int64_t addr_out_done(Cpu *c, const AddrOut *o, int64_t r) {
  if (r >= 0 && o->len == &o->room) guest_copy_out(c, o->len_at, &o->room, sizeof o->room);
  return r;
}

int64_t sys_connect(Cpu *c, const uint64_t *a) {
  return host_result(
      syscall(SYS_connect, arg_fd(a[0]), addr_in(c, a[1], (socklen_t)a[2]), (socklen_t)a[2]));
}

int64_t sys_bind(Cpu *c, const uint64_t *a) {
  return host_result(
      syscall(SYS_bind, arg_fd(a[0]), addr_in(c, a[1], (socklen_t)a[2]), (socklen_t)a[2]));
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
  return host_result(syscall(SYS_setsockopt, arg_fd(a[0]), (int)a[1], (int)a[2],
                             addr_in(c, a[3], (socklen_t)a[4]), (socklen_t)a[4]));
}

int64_t sys_getsockopt(Cpu *c, const uint64_t *a) {
  AddrOut o;
  addr_out(c, a[3], a[4], &o);
  int64_t r =
      host_result(syscall(SYS_getsockopt, arg_fd(a[0]), (int)a[1], (int)a[2], o.addr, o.len));
  return addr_out_done(c, &o, r);
}

int64_t sys_sendto(Cpu *c, const uint64_t *a) {
  size_t room;
  void *buf = guest_transfer(c, a[1], a[2], GUEST_PROT_READ, &room);
  return host_result(syscall(SYS_sendto, arg_fd(a[0]), buf, room, (int)a[3],
                             addr_in(c, a[4], (socklen_t)a[5]), (socklen_t)a[5]));
}

int64_t sys_recvfrom(Cpu *c, const uint64_t *a) {
  AddrOut o;
  size_t room;
  void *buf = guest_transfer(c, a[1], a[2], GUEST_PROT_WRITE, &room);
  addr_out(c, a[4], a[5], &o);
  int64_t r = host_result(syscall(SYS_recvfrom, arg_fd(a[0]), buf, room, (int)a[3], o.addr, o.len));
  return addr_out_done(c, &o, r);
}

/* A guest's struct msghdr: its name, data and control buffers found the guest's for the
 * call's direction, into *host (its iovecs in iov, room for IOV_MAX of them). What is not
 * the guest's goes to the kernel refused (refused_by_kernel, guest_iovec), which reports
 * it where it would the guest's: the name and the data after the socket's own errors
 * (and, for a receive, after waiting for a message). A send's SCM_RIGHTS may name
 * x64emu's own descriptors, which the kernel is to find closed: then the control data is
 * a copy (own_fds_sent), returned for the caller to free after the call; else NULL. */
static void *msghdr_found(Cpu *c, const struct msghdr *guest, int access, struct msghdr *host,
                          struct iovec *iov) {
  *host = *guest;
  uint64_t n;
  host->msg_iov = (struct iovec *)guest_iovec(c, (uint64_t)(uintptr_t)guest->msg_iov,
                                              (uint64_t)guest->msg_iovlen, access, iov, &n);
  host->msg_iovlen = (size_t)n;
  uint64_t name = (uint64_t)(uintptr_t)guest->msg_name;
  uint64_t control = (uint64_t)(uintptr_t)guest->msg_control;
  guest_area(c, name, guest->msg_namelen, access, &host->msg_name);
  void *copy = NULL;
  if (guest_area(c, control, guest->msg_controllen, access, &host->msg_control) && access == GUEST_PROT_READ &&
      (copy = own_fds_sent(host->msg_control, host->msg_controllen)))
    host->msg_control = copy;
  return copy;
}

/* sendmsg and recvmsg: the guest's msghdr at a[1] found as above, or refused whole when it
 * is not the guest's (the kernel's EBADF and ENOTSOCK come first). The lengths and flags
 * a receive gives back go into the guest's msghdr. */
static int64_t msg_call(Cpu *c, const uint64_t *a, bool recv) {
  struct msghdr guest, host;
  struct iovec iov[IOV_MAX];
  int access = recv ? GUEST_PROT_WRITE : GUEST_PROT_READ;
  const struct msghdr *given = &host;
  void *copy = NULL;
  if (guest_copy_in(c, &guest, a[1], sizeof guest) < 0) given = refused_by_kernel(a[1]);
  else copy = msghdr_found(c, &guest, access, &host, iov);
  int64_t r = host_result(syscall(recv ? SYS_recvmsg : SYS_sendmsg, arg_fd(a[0]), given, (int)a[2]));
  free(copy);
  if (r < 0 || !recv) return r;
  guest.msg_namelen = host.msg_namelen;
  guest.msg_controllen = host.msg_controllen;
  guest.msg_flags = host.msg_flags;
  int w = guest_copy_out(c, a[1], &guest, sizeof guest);
  return w < 0 ? w : r;
}

int64_t sys_sendmsg(Cpu *c, const uint64_t *a) { return msg_call(c, a, false); }
int64_t sys_recvmsg(Cpu *c, const uint64_t *a) { return msg_call(c, a, true); }

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
  void **copies = calloc(vlen ? vlen : 1, sizeof *copies); /* msghdr_found's */
  struct iovec *iov = NULL;
  int64_t r = guest && host && copies ? 0 : -ENOMEM;
  if (r == 0 && vlen) r = guest_copy_in(c, guest, a[1], vlen * sizeof *guest);
  size_t segments = 0; /* each message's, IOV_MAX at most (more is guest_iovec's error) */
  for (unsigned i = 0; r == 0 && i < vlen; i++)
    segments += guest[i].msg_hdr.msg_iovlen < IOV_MAX ? guest[i].msg_hdr.msg_iovlen : IOV_MAX;
  if (r == 0 && !(iov = malloc((segments ? segments : 1) * sizeof *iov))) r = -ENOMEM;
  for (size_t i = 0, at = 0; r == 0 && i < vlen; i++) {
    copies[i] = msghdr_found(c, &guest[i].msg_hdr, access, &host[i].msg_hdr, iov + at);
    if (host[i].msg_hdr.msg_iov == iov + at) at += host[i].msg_hdr.msg_iovlen;
  }
  struct timespec timeout;
  if (r == 0 && recv && a[4]) r = guest_copy_in(c, &timeout, a[4], sizeof timeout);
  if (r == 0) {
    r = recv ? host_result(syscall(SYS_recvmmsg, arg_fd(a[0]), host, vlen, (int)a[3],
                                   a[4] ? &timeout : NULL))
             : host_result(syscall(SYS_sendmmsg, arg_fd(a[0]), host, vlen, (int)a[3]));
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
  for (size_t i = 0; copies && i < vlen; i++) free(copies[i]);
  free(copies);
  free(guest);
  free(host);
  free(iov);
  return r;
}

int64_t sys_sendmmsg(Cpu *c, const uint64_t *a) { return mmsg(c, a, false); }
int64_t sys_recvmmsg(Cpu *c, const uint64_t *a) { return mmsg(c, a, true); }
