/* socket_order.c: the errors of socket calls given an address that is not the caller's,
 * in the kernel's order. */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* A socket call's address that is not the caller's faults only where the kernel writes it:
 * the descriptor's and the socket's own errors come first, and an accepted connection is
 * not lost to an address checked too early. */
int main(void) {
  void *bad = (void *)3;
  socklen_t len = sizeof(struct sockaddr_in), zero = 0;
  int s = socket(AF_INET, SOCK_STREAM, 0), sv[2];
  socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
  char byte;
  struct { const char *what; long r; int err; } calls[8];
  int n = 0;
#define CALL(name, call) (errno = 0, calls[n].r = (call), calls[n].err = errno, calls[n++].what = (name))
  CALL("accept, not listening, bad address", accept(s, bad, &len));
  CALL("accept, bad length word", accept(s, NULL, bad));
  CALL("getsockname, bad fd, bad address", getsockname(-1, bad, &len));
  CALL("getsockname, bad address", getsockname(s, bad, &len));
  CALL("getsockname, NULL address of no room", getsockname(s, NULL, &zero));
  CALL("getpeername, not connected, bad address", getpeername(s, bad, &len));
  CALL("getsockopt, unknown option, bad value", getsockopt(s, SOL_SOCKET, 12345, bad, &len));
  CALL("recvfrom, nothing queued, bad address", recvfrom(sv[0], &byte, 1, MSG_DONTWAIT, bad, &len));
#undef CALL
  for (int i = 0; i < n; i++)
    printf("%s: %ld %s\n", calls[i].what, calls[i].r, calls[i].err ? strerrorname_np(calls[i].err) : "");
  close(sv[0]);
  close(sv[1]);
  close(s);
  return 0;
}
