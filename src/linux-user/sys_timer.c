/* sys_timer.c: alarm, interval timers and POSIX timers: the host's own, whose signals
 * reach the guest through signals.c, or with --deterministic virtual_time.c's. */
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "determinism.h"
#include "sys_common.h"

/* struct itimerval, struct itimerspec and struct sigevent have one layout on 64-bit
 * hosts, and a SIGEV_THREAD_ID target is a host thread id, which the guest's are. The
 * timers measure the emulator's time: ITIMER_VIRTUAL and ITIMER_PROF count its CPU time,
 * which is the guest's as run here. */

/* struct itimerval, itimerspec and sigevent, as the host's call reads or writes them. */
enum { ITIMERVAL_SIZE = 32, ITIMERSPEC_SIZE = 32, SIGEVENT_SIZE = 64 };

int64_t sys_alarm(Cpu *c, const uint64_t *a) {
  if (det_on(c)) return vt_alarm(c, (unsigned)a[0]);
  return alarm((unsigned)a[0]);
}

int64_t sys_getitimer(Cpu *c, const uint64_t *a) {
  if (det_on(c)) return vt_getitimer(c, (int)a[0], a[1]);
  void *cur;
  guest_area(c, a[1], ITIMERVAL_SIZE, GUEST_PROT_WRITE, &cur); /* refused after EINVAL */
  return host_result(syscall(SYS_getitimer, (int)a[0], cur));
}

int64_t sys_setitimer(Cpu *c, const uint64_t *a) {
  if (det_on(c)) return vt_setitimer(c, (int)a[0], a[1], a[2]);
  void *new, *old;
  guest_area(c, a[1], ITIMERVAL_SIZE, GUEST_PROT_READ, &new);
  guest_area(c, a[2], ITIMERVAL_SIZE, GUEST_PROT_WRITE, &old);
  return host_result(syscall(SYS_setitimer, (int)a[0], new, old));
}

int64_t sys_timer_create(Cpu *c, const uint64_t *a) {
  if (det_on(c)) return vt_timer_create(c, (clockid_t)a[0], a[1], a[2]);
  void *event, *id;
  guest_area(c, a[1], SIGEVENT_SIZE, GUEST_PROT_READ, &event);
  guest_area(c, a[2], 4, GUEST_PROT_WRITE, &id);
  return host_result(syscall(SYS_timer_create, (clockid_t)a[0], event, id));
}

/* The host's settime (nr: timer_settime or timerfd_settime) of timer or descriptor id,
 * with the guest's struct itimerspec at new_at (required) and old_at (may be NULL). */
static int64_t host_settime(Cpu *c, long nr, int id, int flags, uint64_t new_at,
                            uint64_t old_at) {
  void *new, *old;
  guest_area(c, new_at, ITIMERSPEC_SIZE, GUEST_PROT_READ, &new);
  guest_area(c, old_at, ITIMERSPEC_SIZE, GUEST_PROT_WRITE, &old);
  return host_result(syscall(nr, id, flags, new, old));
}

/* The host's gettime (nr: timer_gettime or timerfd_gettime) into the guest's cur_at. */
static int64_t host_gettime(Cpu *c, long nr, int id, uint64_t cur_at) {
  void *cur;
  guest_area(c, cur_at, ITIMERSPEC_SIZE, GUEST_PROT_WRITE, &cur);
  return host_result(syscall(nr, id, cur));
}

int64_t sys_timer_settime(Cpu *c, const uint64_t *a) {
  if (det_on(c)) return vt_timer_settime(c, (int)a[0], (int)a[1], a[2], a[3]);
  return host_settime(c, SYS_timer_settime, (int)a[0], (int)a[1], a[2], a[3]);
}

int64_t sys_timer_gettime(Cpu *c, const uint64_t *a) {
  if (det_on(c)) return vt_timer_gettime(c, (int)a[0], a[1]);
  return host_gettime(c, SYS_timer_gettime, (int)a[0], a[1]);
}

int64_t sys_timer_getoverrun(Cpu *c, const uint64_t *a) {
  if (det_on(c)) return vt_timer_getoverrun(c, (int)a[0]);
  return host_result(syscall(SYS_timer_getoverrun, (int)a[0]));
}

int64_t sys_timer_delete(Cpu *c, const uint64_t *a) {
  if (det_on(c)) return vt_timer_delete(c, (int)a[0]);
  return host_result(syscall(SYS_timer_delete, (int)a[0]));
}

/* timerfd: the host's timer behind a descriptor (TFD_* flags equal O_NONBLOCK and
 * O_CLOEXEC, which the hosts share; struct itimerspec as above); under --deterministic
 * one on the virtual clocks (virtual_time.h), whose descriptor the guest reads and polls
 * as it would the kernel's. */
int64_t sys_timerfd_create(Cpu *c, const uint64_t *a) {
  /* The kernel's first check, made here as qemu-user drops the unknown flags. */
  if ((int)a[1] & ~(TFD_CLOEXEC | TFD_NONBLOCK)) return -EINVAL;
  if (det_on(c)) return vt_timerfd_create(c, (clockid_t)a[0], (int)a[1]);
  return host_result(syscall(SYS_timerfd_create, (clockid_t)a[0], (int)a[1]));
}

int64_t sys_timerfd_settime(Cpu *c, const uint64_t *a) {
  if (det_on(c) && vt_timerfd(c, arg_fd(a[0])))
    return vt_timerfd_settime(c, arg_fd(a[0]), (int)a[1], a[2], a[3]);
  return host_settime(c, SYS_timerfd_settime, arg_fd(a[0]), (int)a[1], a[2], a[3]);
}

int64_t sys_timerfd_gettime(Cpu *c, const uint64_t *a) {
  if (det_on(c) && vt_timerfd(c, arg_fd(a[0]))) return vt_timerfd_gettime(c, arg_fd(a[0]), a[1]);
  return host_gettime(c, SYS_timerfd_gettime, arg_fd(a[0]), a[1]);
}
