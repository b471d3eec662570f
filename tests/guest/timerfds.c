/* timerfds.c: timerfd_create, settime and gettime, reads that wait for an expiry and
 * count the ones missed, a non-blocking read, the descriptor in poll, select and epoll
 * (with timeouts and without), an absolute time, a disarm, the kernel's errors, and a
 * wait for something else while a periodic timerfd runs unwatched. Under
 * --deterministic the timers run on the virtual clock (guest.timerfds.deterministic). */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void arm(int fd, long first_ms, long every_ms) {
  struct itimerspec its = {{every_ms / 1000, every_ms % 1000 * 1000000}, {first_ms / 1000, first_ms % 1000 * 1000000}};
  if (timerfd_settime(fd, 0, &its, NULL) != 0) perror("timerfd_settime");
}

static uint64_t now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static void show(const char *what, int r) {
  printf("%s: %d (%s)\n", what, r, r < 0 ? strerror(errno) : "ok");
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
  printf("timerfd_create: %s\n", fd >= 0 ? "a descriptor" : strerror(errno));

  uint64_t n = 0, start = now_ms();
  arm(fd, 30, 0);
  struct itimerspec left;
  timerfd_gettime(fd, &left);
  printf("gettime: armed, due within 30 ms %d\n", left.it_value.tv_sec == 0 &&
         left.it_value.tv_nsec > 0 && left.it_value.tv_nsec <= 30000000);
  ssize_t r = read(fd, &n, sizeof n);
  printf("read: %zd bytes, %llu expiry, after 30 ms or more %d\n", r, (unsigned long long)n,
         now_ms() - start >= 30);

  arm(fd, 10, 10);
  usleep(55000);
  r = read(fd, &n, sizeof n);
  printf("every 10 ms, read after 55 ms: %zd bytes, at least 4 expiries %d\n", r, n >= 4);
  arm(fd, 0, 0);
  timerfd_gettime(fd, &left);
  printf("disarmed: %ld.%09ld, interval %ld.%09ld\n", (long)left.it_value.tv_sec, left.it_value.tv_nsec,
         (long)left.it_interval.tv_sec, left.it_interval.tv_nsec);

  int quick = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
  r = read(quick, &n, sizeof n);
  printf("non-blocking read of an unarmed one: %zd (%s)\n", r, r < 0 ? strerror(errno) : "");
  r = read(quick, &n, 4);
  printf("a read of 4 bytes: %zd (%s)\n", r, r < 0 ? strerror(errno) : "");

  arm(quick, 20, 0);
  struct pollfd p = {.fd = quick, .events = POLLIN};
  int ready = poll(&p, 1, 5);
  printf("poll for 5 ms, due in 20: %d\n", ready);
  ready = poll(&p, 1, 1000);
  printf("poll for a second: %d, revents POLLIN %d\n", ready, (p.revents & POLLIN) != 0);
  r = read(quick, &n, sizeof n);
  printf("  read: %zd, %llu expiry\n", r, (unsigned long long)n);

  arm(quick, 15, 0);
  ready = poll(&p, 1, -1);
  printf("poll without a timeout: %d\n", ready);
  read(quick, &n, sizeof n);

  arm(quick, 15, 0);
  fd_set set;
  FD_ZERO(&set);
  FD_SET(quick, &set);
  ready = select(quick + 1, &set, NULL, NULL, NULL);
  printf("select without a timeout: %d, set %d\n", ready, FD_ISSET(quick, &set));
  read(quick, &n, sizeof n);

  int ep = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 77};
  epoll_ctl(ep, EPOLL_CTL_ADD, quick, &ev);
  arm(quick, 25, 0);
  struct epoll_event got;
  ready = epoll_wait(ep, &got, 1, 10);
  printf("epoll_wait for 10 ms, due in 25: %d\n", ready);
  ready = epoll_wait(ep, &got, 1, -1);
  printf("epoll_wait without a timeout: %d, data %llu\n", ready, (unsigned long long)got.data.u64);
  read(quick, &n, sizeof n);

  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  t.tv_nsec += 20000000;
  if (t.tv_nsec >= 1000000000) t.tv_sec++, t.tv_nsec -= 1000000000;
  int abs_fd = timerfd_create(CLOCK_REALTIME, 0);
  struct itimerspec at = {{0, 0}, t};
  printf("settime, absolute: %d\n", timerfd_settime(abs_fd, TFD_TIMER_ABSTIME, &at, NULL));
  r = read(abs_fd, &n, sizeof n);
  struct timespec after;
  clock_gettime(CLOCK_REALTIME, &after);
  printf("  read: %zd, woke at or after the time %d\n", r,
         after.tv_sec > t.tv_sec || (after.tv_sec == t.tv_sec && after.tv_nsec >= t.tv_nsec));

  show("timerfd_create(CLOCK_PROCESS_CPUTIME_ID)", timerfd_create(CLOCK_PROCESS_CPUTIME_ID, 0));
  show("timerfd_create(bad flags)", timerfd_create(CLOCK_MONOTONIC, 0x4));
  show("timerfd_settime(bad flags)", timerfd_settime(fd, 0x8, &at, NULL));
  show("timerfd_settime(not a timerfd)", timerfd_settime(ep, 0, &at, NULL));
  show("timerfd_gettime(closed)", timerfd_gettime(999, &left));
  show("timerfd_settime(bad address)", timerfd_settime(fd, 0, (void *)8, NULL));
  /* A wait without a timeout for a pipe that a child writes, while a periodic timerfd
   * that it does not watch runs. */
  arm(quick, 1, 1);
  int pipe_ends[2];
  pipe(pipe_ends);
  pid_t child = fork();
  if (child == 0) {
    usleep(100000);
    write(pipe_ends[1], "x", 1);
    _exit(0);
  }
  struct pollfd from_child = {.fd = pipe_ends[0], .events = POLLIN};
  printf("poll without a timeout for a child's write, a timerfd every ms: %d\n",
         poll(&from_child, 1, -1));
  waitpid(child, NULL, 0);
  arm(quick, 0, 0);

  int made = 0;
  for (int i = 0; i < 200; i++) {
    int one = timerfd_create(CLOCK_MONOTONIC, 0);
    if (one < 0) break;
    made++;
    close(one);
  }
  printf("200 timerfds made and closed one after another: %d made\n", made);
  close(fd);
  close(quick);
  close(abs_fd);
  close(ep);
  return 0;
}
