/* fault_order.c: calls given an address that is not the caller's fail in the kernel's
 * order: the descriptor's and the object's own errors first, EFAULT only where the kernel
 * copies; and a struct the kernel only reads may be read-only. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/futex.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* In .rodata: F_SETLK only reads it. */
static const struct flock whole_file = {.l_type = F_WRLCK, .l_whence = SEEK_SET};

/* Volatile, so the compiler does not see through it to warn of every call. */
static void *volatile bad_address = (void *)3;

int main(void) {
  void *bad = bad_address;
  socklen_t len = sizeof(struct sockaddr_in), zero = 0;
  int s = socket(AF_INET, SOCK_STREAM, 0), sv[2];
  socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
  char byte;
  struct { const char *what; long r; int err; } calls[80];
  int n = 0;
#define CALL(name, call) \
  (errno = 0, calls[n].r = (call), calls[n].err = errno, calls[n++].what = (name))
  /* A socket call's address faults only where the kernel writes it: after the socket's own
   * errors, and after accept has taken the connection, which is then gone. */
  CALL("accept, not listening, bad address", accept(s, bad, &len));
  CALL("accept, bad length word", accept(s, NULL, bad));
  CALL("getsockname, bad fd, bad address", getsockname(-1, bad, &len));
  CALL("getsockname, bad address", getsockname(s, bad, &len));
  CALL("getsockname, NULL address of no room", getsockname(s, NULL, &zero));
  CALL("getpeername, not connected, bad address", getpeername(s, bad, &len));
  CALL("getsockopt, unknown option, bad value", getsockopt(s, SOL_SOCKET, 12345, bad, &len));
  CALL("recvfrom, nothing queued, bad address", recvfrom(sv[0], &byte, 1, MSG_DONTWAIT, bad, &len));
  struct sockaddr_in at = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t at_len = sizeof at;
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  int client = socket(AF_INET, SOCK_STREAM, 0);
  bind(listener, (struct sockaddr *)&at, sizeof at);
  listen(listener, 1);
  getsockname(listener, (struct sockaddr *)&at, &at_len);
  connect(client, (struct sockaddr *)&at, sizeof at);
  CALL("accept, a connection queued, bad address", accept(listener, bad, &len));
  CALL("accept again", accept(listener, NULL, NULL));
  close(client);
  close(listener);
  char tmpl[] = "/tmp/x64emu-fault-order-XXXXXX";
  int file = mkstemp(tmpl);
  unlink(tmpl);
  CALL("fcntl F_SETLK, read-only struct", fcntl(file, F_SETLK, &whole_file));
  CALL("fcntl F_GETLK, bad fd, bad struct", fcntl(-1, F_GETLK, bad));
  CALL("fcntl F_SETLK, bad struct", fcntl(file, F_SETLK, bad));
  CALL("fcntl F_GETOWN_EX, bad fd, bad struct", fcntl(-1, F_GETOWN_EX, bad));
  CALL("getcwd, no buffer of 1 byte", (long)syscall(SYS_getcwd, NULL, 1));
  CALL("getcwd, bad buffer, room enough", (long)syscall(SYS_getcwd, bad, 4096));
  /* Data buffers, socket addresses, message headers and iovec arrays not the caller's:
   * the descriptor's errors, a pipe's ESPIPE, a socket's EAGAIN come first. */
  int nb[2];
  socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0, nb);
  struct iovec bad_data = {bad, 16}, none = {NULL, 0};
  struct iovec empty_then_bad[2] = {{&byte, 0}, {bad, 16}};
  struct msghdr m = {.msg_iov = &bad_data, .msg_iovlen = 1};
  CALL("read, bad fd, bad buffer", read(-1, bad, 16));
  CALL("read, nothing queued, bad buffer", read(nb[0], bad, 16));
  CALL("write, bad fd, bad buffer", write(-1, bad, 16));
  CALL("pread, a socket, bad buffer", pread(nb[0], bad, 16, 0));
  CALL("readv, bad fd, bad array", readv(-1, bad, 1));
  CALL("readv, bad fd, 2000 segments", readv(-1, bad, 2000));
  CALL("readv, nothing queued, bad segment", readv(nb[0], &bad_data, 1));
  CALL("readv, nothing queued, empty then bad", readv(nb[0], empty_then_bad, 2));
  CALL("writev, empty then bad", writev(nb[1], empty_then_bad, 2));
  CALL("getdents64, bad fd, bad buffer", (long)syscall(SYS_getdents64, -1, bad, 4096));
  CALL("readlinkat, bad fd, bad buffer", (long)syscall(SYS_readlinkat, -1, "x", bad, 16));
  CALL("getrandom, bad flags, bad buffer", (long)syscall(SYS_getrandom, bad, 16, 0x100));
  CALL("connect, bad fd, bad address", connect(-1, bad, 16));
  CALL("connect, not a socket, bad address", connect(file, bad, 16));
  CALL("bind, bad fd, bad address", bind(-1, bad, 16));
  CALL("sendto, bad fd, bad address", sendto(-1, "x", 1, 0, bad, 16));
  CALL("setsockopt, unknown option, bad value", setsockopt(s, SOL_SOCKET, 12345, bad, 4));
  CALL("sendmsg, bad fd, bad header", sendmsg(-1, bad, 0));
  CALL("recvmsg, not a socket, bad header", recvmsg(file, bad, 0));
  CALL("recvmsg, nothing queued, bad segment", recvmsg(nb[0], &m, 0));
  m.msg_iov = &none;
  m.msg_name = bad;
  m.msg_namelen = 16;
  CALL("recvmsg, nothing queued, bad name", recvmsg(nb[0], &m, 0));
  m.msg_name = NULL;
  m.msg_namelen = 0;
  m.msg_control = bad;
  m.msg_controllen = 64;
  CALL("recvmsg, nothing queued, bad control", recvmsg(nb[0], &m, 0));
  CALL("fgetxattr, bad fd, bad buffer", (long)syscall(SYS_fgetxattr, -1, "user.x", bad, 16));
  CALL("fsetxattr, bad fd, bad value", (long)syscall(SYS_fsetxattr, -1, "user.x", bad, 16, 0));
  /* Structures the kernel fills or reads after its own checks. */
  CALL("rt_sigaction, bad signal, bad action", (long)syscall(SYS_rt_sigaction, 99, bad, NULL, 8));
  CALL("rt_sigaction, bad signal, bad old action", (long)syscall(SYS_rt_sigaction, 99, NULL, bad, 8));
  CALL("wait4, no such child, bad status", (long)syscall(SYS_wait4, -99999, bad, 0, bad));
  CALL("waitid, no such child, bad info", (long)syscall(SYS_waitid, P_PID, 99999, bad, WEXITED, bad));
  CALL("ioctl, bad fd, bad struct", (long)syscall(SYS_ioctl, -1, 0x5401 /* TCGETS */, bad));
  CALL("ioctl, not a terminal, bad struct", (long)syscall(SYS_ioctl, file, 0x5401, bad));
  CALL("statx, bad dirfd, bad buffer", (long)syscall(SYS_statx, -1, "x", 0, 0x7ff, bad));
  CALL("futex, unknown operation, bad word", (long)syscall(SYS_futex, bad, 99, 0, NULL, NULL, 0));
  CALL("futex, zero bitset, bad word", (long)syscall(SYS_futex, bad, FUTEX_WAIT_BITSET, 0, NULL, NULL, 0));
  CALL("sched_getaffinity, size 3, bad mask", (long)syscall(SYS_sched_getaffinity, 0, 3, bad));
  CALL("sched_getparam, pid -1, bad param", (long)syscall(SYS_sched_getparam, -1, bad));
  CALL("getitimer, bad timer, bad value", (long)syscall(SYS_getitimer, 99, bad));
  CALL("timer_settime, bad id, no new value", (long)syscall(SYS_timer_settime, 0, 0, NULL, NULL));
  CALL("splice, bad fd, bad offsets", (long)syscall(SYS_splice, -1, bad, -1, bad, 16, 0));
  CALL("copy_file_range, bad fd, bad offsets", (long)syscall(SYS_copy_file_range, -1, bad, -1, bad, 16, 0));
  CALL("sendfile, bad fd, bad offset", (long)syscall(SYS_sendfile, -1, -1, bad, 16));
  CALL("mincore, unmapped range, bad vector", (long)syscall(SYS_mincore, 0x10000, 4096, bad));
  CALL("pselect6, bad count, bad signal argument",
       (long)syscall(SYS_pselect6, -1, NULL, NULL, NULL, NULL, bad));
  CALL("pselect6, bad count, bad timeout", (long)syscall(SYS_pselect6, -1, NULL, NULL, NULL, bad, NULL));
  CALL("select, bad count, bad timeout", (long)syscall(SYS_select, -1, NULL, NULL, NULL, bad));
  CALL("nanosleep, bad remainder, not interrupted",
       (long)syscall(SYS_nanosleep, &(struct timespec){0, 1000}, bad));
  /* Memory calls: mmap's file before its length; msync past the break, where x64emu
   * keeps the break's reservation but the process has nothing. */
  CALL("mmap, bad fd, length 0", (long)mmap(NULL, 0, PROT_READ, MAP_SHARED, -1, 0));
  CALL("mmap, bad fd, offset not a page's", (long)mmap(NULL, 4096, PROT_READ, MAP_SHARED, -1, 1));
  CALL("msync, past the break", msync((char *)(((uintptr_t)sbrk(0) + 4 * 4096) & ~4095ul), 4096, MS_SYNC));
  CALL("msync, past the break, bad flags", msync((char *)(((uintptr_t)sbrk(0) + 4 * 4096) & ~4095ul), 4096, 7));
  close(nb[0]);
  close(nb[1]);
  close(file);
#undef CALL
  for (int i = 0; i < n; i++)
    printf("%s: %ld %s\n", calls[i].what, calls[i].r,
           calls[i].err ? strerrorname_np(calls[i].err) : "");
  close(sv[0]);
  close(sv[1]);
  close(s);
  return 0;
}
