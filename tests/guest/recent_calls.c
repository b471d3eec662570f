/* recent_calls.c: system calls of recent kernels, printed so that a native run and one
 * under x64emu can be compared: futex_waitv (Linux 5.16, Wine's wait on many objects) and
 * cachestat (6.5). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef FUTEX2_SIZE_U32
#define FUTEX2_SIZE_U32 0x02
#endif
#define NR_cachestat 451

struct waitv {
  uint64_t val, uaddr;
  uint32_t flags, reserved;
};

static void show(const char *what, long r) {
  if (r < 0) printf("%-44s -1 %s\n", what, strerrorname_np(errno));
  else printf("%-44s %ld\n", what, r);
}

static uint32_t words[4] __attribute__((aligned(16)));

static long waitv(struct waitv *w, unsigned n, long ms, int clock) {
  struct timespec at;
  clock_gettime(clock, &at);
  at.tv_nsec += ms * 1000000;
  at.tv_sec += at.tv_nsec / 1000000000;
  at.tv_nsec %= 1000000000;
  return syscall(SYS_futex_waitv, w, n, 0, &at, clock);
}

static void *wake_second(void *unused) {
  (void)unused;
  usleep(50000);
  __atomic_store_n(&words[1], 1, __ATOMIC_SEQ_CST);
  syscall(SYS_futex, &words[1], FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
  return NULL;
}

static void futex_waits(void) {
  struct waitv w[2] = {{0, (uintptr_t)&words[0], FUTEX2_SIZE_U32 | FUTEX_PRIVATE_FLAG, 0},
                       {0, (uintptr_t)&words[1], FUTEX2_SIZE_U32 | FUTEX_PRIVATE_FLAG, 0}};
  pthread_t waker;
  pthread_create(&waker, NULL, wake_second, NULL);
  show("futex_waitv, the second word woken", waitv(w, 2, 5000, CLOCK_MONOTONIC));
  pthread_join(waker, NULL);
  show("futex_waitv, a value that differs", waitv(w, 2, 50, CLOCK_MONOTONIC));
  words[1] = 0;
  show("futex_waitv, timed out (CLOCK_REALTIME)", waitv(w, 2, 50, CLOCK_REALTIME));
  show("futex_waitv, CLOCK_TAI", waitv(w, 2, 50, CLOCK_TAI));
  show("futex_waitv, no waiters", syscall(SYS_futex_waitv, NULL, 1, 0, NULL, 0));
  show("futex_waitv, 129 waiters", syscall(SYS_futex_waitv, w, 129, 0, NULL, 0));
  show("futex_waitv, flags", syscall(SYS_futex_waitv, w, 2, 1, NULL, 0));
  w[0].uaddr += 1;
  show("futex_waitv, an unaligned word", waitv(w, 2, 50, CLOCK_MONOTONIC));
  w[0].uaddr = 8;
  show("futex_waitv, a word not the caller's", waitv(w, 2, 50, CLOCK_MONOTONIC));
  w[0].uaddr = 0;
  show("futex_waitv, a null word", waitv(w, 2, 50, CLOCK_MONOTONIC));
  show("futex_waitv, waiters not the caller's", waitv((void *)8, 2, 50, CLOCK_MONOTONIC));
}

static void cache_state(void) {
  char path[] = "/tmp/x64emu-cachestat-XXXXXX";
  int fd = mkstemp(path);
  unlink(path);
  static char page[4096];
  for (int i = 0; i < 4; i++) (void)!write(fd, page, sizeof page);
  uint64_t range[2] = {0, 0}, stat[5];
  show("cachestat", syscall(NR_cachestat, fd, range, stat, 0));
  printf("  cached and evicted pages, at most the file's 4: %d\n", stat[0] + stat[3] <= 4);
  show("cachestat, bad flags", syscall(NR_cachestat, fd, range, stat, 1));
  show("cachestat, bad fd, bad range", syscall(NR_cachestat, -1, (void *)8, stat, 0));
  show("cachestat, bad range", syscall(NR_cachestat, fd, (void *)8, stat, 0));
  show("cachestat, bad result", syscall(NR_cachestat, fd, range, (void *)8, 0));
  close(fd);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  futex_waits();
  cache_state();
  return 0;
}
