/* sys_time.c: clocks and sleeps; the guest has no vDSO, so every clock read comes here. */
#define _GNU_SOURCE
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/times.h>
#include <time.h>
#include <unistd.h>

#include "determinism.h"
#include "sys_common.h"

/* Clock ids and struct timespec/timeval are the same on 64-bit hosts. The host's libc
 * reads clocks through its vDSO, writing from user space: results go through a local
 * copy so that a bad guest pointer gives EFAULT as the kernel would. */

int64_t sys_clock_gettime(Cpu *c, const uint64_t *a) {
  struct timespec ts;
  if (clock_gettime((clockid_t)a[0], &ts) < 0) return -errno; /* also checks the clock id */
  if (det_on(c)) ts = det_clock(c, (clockid_t)a[0]);
  return guest_copy_out(a[1], &ts, sizeof ts);
}

int64_t sys_clock_getres(Cpu *c, const uint64_t *a) {
  struct timespec ts;
  if (clock_getres((clockid_t)a[0], &ts) < 0) return -errno;
  return a[1] ? guest_copy_out(a[1], &ts, sizeof ts) : 0;
}

int64_t sys_gettimeofday(Cpu *c, const uint64_t *a) {
  struct timeval tv;
  struct timezone tz;
  if (syscall(SYS_gettimeofday, &tv, &tz) < 0) return -errno;
  if (det_on(c)) {
    struct timespec ts = det_clock(c, CLOCK_REALTIME);
    tv = (struct timeval){ts.tv_sec, ts.tv_nsec / 1000};
    tz = (struct timezone){0, 0};
  }
  int r = a[0] ? guest_copy_out(a[0], &tv, sizeof tv) : 0;
  if (r == 0 && a[1]) r = guest_copy_out(a[1], &tz, sizeof tz);
  return r;
}

int64_t sys_time(Cpu *c, const uint64_t *a) {
  int64_t t = det_on(c) ? (int64_t)det_clock(c, CLOCK_REALTIME).tv_sec : (int64_t)time(NULL);
  if (a[0] && guest_copy_out(a[0], &t, sizeof t) < 0) return -EFAULT;
  return t;
}

/* The kernel reads the request and writes the remainder itself. */
int64_t sys_nanosleep(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_nanosleep, GUEST_PTR(a[0]), GUEST_PTR(a[1])));
}

int64_t sys_clock_nanosleep(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_clock_nanosleep, (clockid_t)a[0], (int)a[1], GUEST_PTR(a[2]),
                             GUEST_PTR(a[3])));
}

/* struct tms and struct rusage: longs and timevals, one layout on 64-bit hosts. */
int64_t sys_times(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_times, GUEST_PTR(a[0])));
}

int64_t sys_getrusage(Cpu *c, const uint64_t *a) {
  return host_result(getrusage((int)a[0], GUEST_PTR(a[1])));
}
