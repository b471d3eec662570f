/* sys_timer.c: alarm, interval timers and POSIX timers: the host's own, whose signals
 * reach the guest through signals.c, or with --deterministic virtual_time.c's. */
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "determinism.h"
#include "sys_common.h"

/* struct itimerval, struct itimerspec and struct sigevent have one layout on 64-bit
 * hosts, and a SIGEV_THREAD_ID target is a host thread id, which the guest's are. The
 * timers measure the emulator's time: ITIMER_VIRTUAL and ITIMER_PROF count its CPU time,
 * which is the guest's as run here. */

int64_t sys_alarm(Cpu *c, const uint64_t *a) {
  if (det_on(c)) return vt_alarm(c, (unsigned)a[0]);
  return alarm((unsigned)a[0]);
}

int64_t sys_getitimer(Cpu *c, const uint64_t *a) {
  if (det_on(c)) return vt_getitimer(c, (int)a[0], a[1]);
  return host_result(syscall(SYS_getitimer, (int)a[0], GUEST_PTR(a[1])));
}

int64_t sys_setitimer(Cpu *c, const uint64_t *a) {
  if (det_on(c)) return vt_setitimer(c, (int)a[0], a[1], a[2]);
  return host_result(syscall(SYS_setitimer, (int)a[0], GUEST_PTR(a[1]), GUEST_PTR(a[2])));
}

int64_t sys_timer_create(Cpu *c, const uint64_t *a) {
  if (det_on(c)) return vt_timer_create(c, (clockid_t)a[0], a[1], a[2]);
  return host_result(syscall(SYS_timer_create, (clockid_t)a[0], GUEST_PTR(a[1]), GUEST_PTR(a[2])));
}

int64_t sys_timer_settime(Cpu *c, const uint64_t *a) {
  if (det_on(c)) return vt_timer_settime(c, (int)a[0], (int)a[1], a[2], a[3]);
  return host_result(
      syscall(SYS_timer_settime, (int)a[0], (int)a[1], GUEST_PTR(a[2]), GUEST_PTR(a[3])));
}

int64_t sys_timer_gettime(Cpu *c, const uint64_t *a) {
  if (det_on(c)) return vt_timer_gettime(c, (int)a[0], a[1]);
  return host_result(syscall(SYS_timer_gettime, (int)a[0], GUEST_PTR(a[1])));
}

int64_t sys_timer_getoverrun(Cpu *c, const uint64_t *a) {
  if (det_on(c)) return vt_timer_getoverrun(c, (int)a[0]);
  return host_result(syscall(SYS_timer_getoverrun, (int)a[0]));
}

int64_t sys_timer_delete(Cpu *c, const uint64_t *a) {
  if (det_on(c)) return vt_timer_delete(c, (int)a[0]);
  return host_result(syscall(SYS_timer_delete, (int)a[0]));
}
