/* own_fds.c: the descriptor table as the guest sees it, whatever x64emu keeps there for
 * itself (a --trace-file, a --deterministic timerfd's other end, gdb's connection): the
 * guest's first open gets the lowest free number, numbers it never opened are closed
 * everywhere (EBADF, ENOENT under /proc/self/fd), it may dup2 onto any of them, and
 * close_range, a close of every number and an exec'd program leave it only what it
 * opened. Printed the same natively and under x64emu (with or without those options). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

enum { LOW = 400, HIGH = 700 }; /* around the numbers x64emu keeps its own at */

/* The open descriptors /proc/self/fd lists, without the listing's own. */
static void list(const char *when) {
  DIR *d = opendir("/proc/self/fd");
  if (!d) {
    printf("%s: opendir: %s\n", when, strerror(errno));
    return;
  }
  printf("%s:", when);
  for (struct dirent *e; (e = readdir(d));)
    if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d) && atoi(e->d_name) >= 3) printf(" %s", e->d_name);
  printf("\n");
  closedir(d);
}

static int pair[2] = {-1, -1}; /* a socket pair to send descriptors over */

/* sendmsg of fd in SCM_RIGHTS: 0 or -1 with errno. */
static int send_descriptor(int fd) {
  if (pair[0] < 0 && socketpair(AF_UNIX, SOCK_STREAM, 0, pair) < 0) return -1;
  union {
    char buf[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } control;
  char byte = 'x';
  struct iovec iov = {&byte, 1};
  struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf, .msg_controllen = sizeof control.buf};
  struct cmsghdr *h = CMSG_FIRSTHDR(&m);
  h->cmsg_level = SOL_SOCKET;
  h->cmsg_type = SCM_RIGHTS;
  h->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(h), &fd, sizeof fd);
  return sendmsg(pair[0], &m, 0) < 0 ? -1 : 0;
}

/* Every number from LOW to HIGH the guest has not opened is closed to each way of
 * naming it: calls on it, its /proc/self/fd entry (by any spelling, or relative to the
 * directory), poll and SCM_RIGHTS. (Not select, whose kernel ignores numbers past the
 * table's size, which x64emu's own make larger.) */
static void unopened_are_closed(const char *when) {
  int odd = 0;
  int fd_dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  for (int fd = LOW; fd < HIGH; fd++) {
    struct stat st;
    char path[64], link[256];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    errno = 0;
    if (fstat(fd, &st) == 0 || errno != EBADF) odd++, printf("  fstat(%d): %s\n", fd, strerror(errno));
    errno = 0;
    if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF) odd++, printf("  F_GETFD(%d): %s\n", fd, strerror(errno));
    errno = 0;
    if (write(fd, "x", 1) >= 0 || errno != EBADF) odd++, printf("  write(%d): %s\n", fd, strerror(errno));
    errno = 0;
    if (readlink(path, link, sizeof link) >= 0 || errno != ENOENT) odd++, printf("  readlink(%s): %s\n", path, strerror(errno));
    snprintf(path, sizeof path, "/proc//self/./fd/%d", fd); /* the same, spelt otherwise */
    errno = 0;
    if (readlink(path, link, sizeof link) >= 0 || errno != ENOENT) odd++, printf("  readlink(%s): %s\n", path, strerror(errno));
    snprintf(path, sizeof path, "%d", fd); /* relative to the fd directory */
    errno = 0;
    if (readlinkat(fd_dir, path, link, sizeof link) >= 0 || errno != ENOENT) odd++, printf("  readlinkat(fd/, %s): %s\n", path, strerror(errno));
    errno = 0;
    if (openat(fd, "x", O_RDONLY) >= 0 || errno != EBADF) odd++, printf("  openat(%d, x): %s\n", fd, strerror(errno));
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int n = poll(&p, 1, 0);
    if (n != 1 || p.revents != POLLNVAL) odd++, printf("  poll(%d): %d, revents %#x\n", fd, n, p.revents);
    errno = 0;
    if (send_descriptor(fd) >= 0 || errno != EBADF) odd++, printf("  SCM_RIGHTS(%d): %s\n", fd, strerror(errno));
    errno = 0;
    if (close(fd) == 0 || errno != EBADF) odd++, printf("  close(%d): %s\n", fd, strerror(errno));
  }
  close(fd_dir);
  printf("%s: %d to %d closed%s\n", when, LOW, HIGH - 1, odd ? " but for the above" : "");
}

static int timer_fires(int tfd) {
  uint64_t n = 0;
  return read(tfd, &n, sizeof n) == sizeof n && n >= 1;
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "exec")) {
    list("after exec");
    unopened_are_closed("after exec");
    return 0;
  }
  int first = open("/dev/null", O_RDONLY);
  printf("first open: %d\n", first);
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) < 0) return 1;
  int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
  struct itimerspec every_ms = {{0, 1000000}, {0, 1000000}};
  int set = timerfd_settime(tfd, 0, &every_ms, NULL);
  printf("timerfd: %d, set %d, fires %d\n", tfd, set, timer_fires(tfd));
  list("at start");
  unopened_are_closed("at start");

  /* dup2 onto every number: each becomes the guest's, and the timer still fires. */
  int bad = 0;
  for (int fd = LOW; fd < HIGH; fd++) bad += dup2(first, fd) != fd;
  printf("dup2 onto %d to %d: %d failed, timer fires %d\n", LOW, HIGH - 1, bad, timer_fires(tfd));
  struct stat a, b;
  bad = 0;
  for (int fd = LOW; fd < HIGH; fd++) bad += fstat(fd, &b) != 0 || fstat(first, &a) != 0 || a.st_ino != b.st_ino;
  printf("each is /dev/null: %s\n", bad ? "no" : "yes");

  /* close_range over all but the first three and the timerfd. */
  printf("close_range: %ld\n", (long)syscall(SYS_close_range, (unsigned)tfd + 1, ~0U, 0));
  list("after close_range");
  unopened_are_closed("after close_range");
  printf("timer fires %d\n", timer_fires(tfd));

  /* A child that closes every number it might have, then execs this program. */
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    for (int fd = 3; fd < 1024; fd++) close(fd);
    execl("/proc/self/exe", argv[0], "exec", (char *)NULL);
    _exit(127);
  }
  int status;
  waitpid(pid, &status, 0);
  printf("child: exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  printf("timer fires %d\n", timer_fires(tfd));
  return 0;
}
