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
  if (det_on(c)) ts = vt_timespec(vt_now(c, (clockid_t)a[0]));
  return guest_copy_out(c, a[1], &ts, sizeof ts);
}

int64_t sys_clock_getres(Cpu *c, const uint64_t *a) {
  struct timespec ts;
  if (clock_getres((clockid_t)a[0], &ts) < 0) return -errno;
  return a[1] ? guest_copy_out(c, a[1], &ts, sizeof ts) : 0;
}

/* Setting the host's clock, where the kernel lets the process (CAP_SYS_TIME). Under
 * --deterministic the clocks are the instruction count's, which nothing sets: after the
 * kernel's checks of the arguments, EPERM, as for a process without the capability. */
int64_t sys_clock_settime(Cpu *c, const uint64_t *a) {
  struct timespec ts;
  int r = guest_copy_in(c, &ts, a[1], sizeof ts);
  if (r < 0) return r;
  if (!det_on(c)) return host_result(clock_settime((clockid_t)a[0], &ts));
  bool valid = (clockid_t)a[0] == CLOCK_REALTIME && ts.tv_sec >= 0 && ts.tv_nsec >= 0 &&
               ts.tv_nsec < 1000000000;
  return valid ? -EPERM : -EINVAL;
}

int64_t sys_settimeofday(Cpu *c, const uint64_t *a) {
  struct timeval tv;
  struct timezone tz;
  int r = a[0] ? guest_copy_in(c, &tv, a[0], sizeof tv) : 0;
  if (r == 0 && a[1]) r = guest_copy_in(c, &tz, a[1], sizeof tz);
  if (r < 0) return r;
  if (!det_on(c))
    return host_result(syscall(SYS_settimeofday, a[0] ? &tv : NULL, a[1] ? &tz : NULL));
  if (a[0] && (tv.tv_sec < 0 || tv.tv_usec < 0 || tv.tv_usec >= 1000000)) return -EINVAL;
  return a[0] || a[1] ? -EPERM : 0;
}

/* clock_adjtime(clock, timex) and adjtimex(timex): struct timex (208 bytes) is the same on
 * every 64-bit host, read and written back whole. Under --deterministic ENOSYS: what it
 * reads is the host clock's discipline, which no instruction count gives. */
enum { TIMEX_SIZE = 208 };

int64_t sys_clock_adjtime(Cpu *c, const uint64_t *a) {
  if (det_on(c)) return -ENOSYS;
  uint8_t tx[TIMEX_SIZE] __attribute__((aligned(8)));
  if (guest_copy_in(c, tx, a[1], sizeof tx) < 0) return -EFAULT;
  int64_t r = host_result(syscall(SYS_clock_adjtime, (clockid_t)a[0], tx));
  if (r >= 0 && guest_copy_out(c, a[1], tx, sizeof tx) < 0) return -EFAULT;
  return r;
}

int64_t sys_adjtimex(Cpu *c, const uint64_t *a) {
  uint64_t args[2] = {CLOCK_REALTIME, a[0]};
  return sys_clock_adjtime(c, args);
}

int64_t sys_gettimeofday(Cpu *c, const uint64_t *a) {
  struct timeval tv;
  struct timezone tz;
  if (syscall(SYS_gettimeofday, &tv, &tz) < 0) return -errno;
  if (det_on(c)) {
    struct timespec ts = vt_timespec(vt_now(c, CLOCK_REALTIME));
    tv = (struct timeval){ts.tv_sec, ts.tv_nsec / 1000};
    tz = (struct timezone){0, 0};
  }
  int r = a[0] ? guest_copy_out(c, a[0], &tv, sizeof tv) : 0;
  if (r == 0 && a[1]) r = guest_copy_out(c, a[1], &tz, sizeof tz);
  return r;
}

int64_t sys_time(Cpu *c, const uint64_t *a) {
  int64_t t = det_on(c) ? (int64_t)(vt_now(c, CLOCK_REALTIME) / 1000000000u) : (int64_t)time(NULL);
  if (a[0] && guest_copy_out(c, a[0], &t, sizeof t) < 0) return -EFAULT;
  return t;
}

/* A deterministic sleep on clock id: the request at req (absolute or not), the time
 * left to *rem when a handler interrupts a relative one. */
static int64_t sleep_virtual(Cpu *c, clockid_t id, bool absolute, uint64_t req, uint64_t rem) {
  struct timespec ts;
  if (guest_copy_in(c, &ts, req, sizeof ts) < 0) return -EFAULT;
  if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000) return -EINVAL;
  uint64_t ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
  uint64_t left = 0;
  int64_t r = vt_sleep(c, id, absolute ? ns : vt_now(c, id) + ns, &left);
  if (r == -EINTR && !absolute && rem) {
    struct timespec l = vt_timespec(left);
    if (guest_copy_out(c, rem, &l, sizeof l) < 0) return -EFAULT;
  }
  return r;
}

/* Otherwise the kernel reads the request and writes the remainder itself. */
int64_t sys_nanosleep(Cpu *c, const uint64_t *a) {
  if (det_on(c)) return sleep_virtual(c, CLOCK_MONOTONIC, false, a[0], a[1]);
  void *req, *rem;
  guest_area(c, a[0], 16, GUEST_PROT_READ, &req);
  guest_area(c, a[1], 16, GUEST_PROT_WRITE, &rem); /* written only when interrupted */
  return host_result(syscall(SYS_nanosleep, req, rem));
}

int64_t sys_clock_nanosleep(Cpu *c, const uint64_t *a) {
  if (det_on(c)) {
    struct timespec probe;
    if (clock_getres((clockid_t)a[0], &probe) < 0) return -EINVAL; /* an unknown clock */
    return sleep_virtual(c, (clockid_t)a[0], a[1] & TIMER_ABSTIME, a[2], a[3]);
  }
  void *req, *rem;
  guest_area(c, a[2], 16, GUEST_PROT_READ, &req);
  guest_area(c, a[3], 16, GUEST_PROT_WRITE, &rem);
  return host_result(syscall(SYS_clock_nanosleep, (clockid_t)a[0], (int)a[1], req, rem));
}

/* struct tms and struct rusage: longs and timevals, one layout on 64-bit hosts. A
 * deterministic process has used its instructions' time in user mode, and nothing else. */
int64_t sys_times(Cpu *c, const uint64_t *a) {
  void *buf;
  if (!guest_area(c, a[0], sizeof(struct tms), GUEST_PROT_WRITE, &buf)) return -EFAULT;
  if (!det_on(c)) return host_result(syscall(SYS_times, buf));
  uint64_t tick = 1000000000u / (uint64_t)sysconf(_SC_CLK_TCK);
  struct tms t = {.tms_utime = (clock_t)(vt_now(c, CLOCK_PROCESS_CPUTIME_ID) / tick)};
  if (a[0] && guest_copy_out(c, a[0], &t, sizeof t) < 0) return -EFAULT;
  return (int64_t)(vt_now(c, CLOCK_MONOTONIC) / tick);
}

int64_t sys_getrusage(Cpu *c, const uint64_t *a) {
  int who = (int)a[0];
  void *buf;
  bool ours = guest_area(c, a[1], sizeof(struct rusage), GUEST_PROT_WRITE, &buf);
  if (!det_on(c) || who == RUSAGE_CHILDREN) return host_result(syscall(SYS_getrusage, who, buf));
  if (!ours) return -EFAULT;
  if (who != RUSAGE_SELF && who != RUSAGE_THREAD) return -EINVAL;
  struct timespec cpu = vt_timespec(vt_now(c, CLOCK_PROCESS_CPUTIME_ID));
  struct rusage ru = {.ru_utime = {cpu.tv_sec, cpu.tv_nsec / 1000}};
  return guest_copy_out(c, a[1], &ru, sizeof ru);
}
