/* virtual_time.h: --deterministic's time. The guest's CPU time is its instruction count,
 * one instruction a nanosecond (a 1 GHz machine); its wall clocks are that plus the time
 * it slept, which passes at once. Timers (alarm, setitimer, timer_*) fall due at exact
 * instruction counts: the run loop stops there (an instruction budget) and raises their
 * signals, so a program that a SIGALRM stops runs the same number of instructions every
 * time. The timers' state is the process's; a forked child starts with none, as the
 * kernel's does. */
#ifndef X64EMU_VIRTUAL_TIME_H
#define X64EMU_VIRTUAL_TIME_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "../interp/cpu.h"

enum { VT_POSIX_TIMERS = 32 }; /* timer_create's ids 0..31 */
enum { VT_TIMERFDS = 64 };     /* timerfd_create's at once */

typedef struct VirtualTimer {
  bool used;     /* POSIX timers: created and not deleted */
  clockid_t clock; /* what it measures: a CPU-time clock counts instructions */
  uint64_t due;  /* ns on its time line (instructions, or those and the time slept); 0: disarmed */
  uint64_t interval;
  int signo;     /* 0: no signal (SIGEV_NONE) */
  int code;      /* the siginfo's si_code: SI_KERNEL for itimers, SI_TIMER */
  uint64_t value; /* sigev_value */
  int overrun;   /* expirations while its signal was still pending */
  int32_t thread; /* SIGEV_THREAD_ID: the host's id of the thread its signal goes to */
  int32_t sent_to; /* the other thread its signal is pending in, 0 if none */
  /* A timerfd: a socket pair's end stands for it, which the guest reads and polls (the
   * socket's inode names it); x64emu writes a byte to the other end, wake_fd, for each
   * expiry, and a read returns the expirations counted and drains the bytes. */
  int wake_fd;   /* > 0 for a timerfd */
  uint64_t ino;
  uint64_t expirations;
} VirtualTimer;

typedef struct VirtualTime {
  VirtualTimer itimer[3]; /* ITIMER_REAL, ITIMER_VIRTUAL, ITIMER_PROF */
  VirtualTimer posix[VT_POSIX_TIMERS];
  VirtualTimer timerfd[VT_TIMERFDS];
  unsigned timerfds;      /* how many: a read looks for one only if there are */
  bool fd_woken;          /* a timerfd expired while time passed */
} VirtualTime;

/* The time on clock id in ns: CPU-time clocks from the instruction count, the others
 * from it and the time slept (CLOCK_REALTIME and its kin from 1,700,000,000 s,
 * 2023-11-14 22:13:20 UTC). */
uint64_t vt_now(const Cpu *c, clockid_t id);
struct timespec vt_timespec(uint64_t ns);
/* Lets the wall clocks run on until c's reads wall time `to` (CLOCK_MONOTONIC's ns), if
 * it is ahead: time that passed with no instruction run. */
void vt_idle_until(Cpu *c, uint64_t to);
/* Whether a timespec is one the kernel takes (seconds and nanoseconds in range), and its
 * ns (saturated far beyond any timeout's need). */
bool vt_valid_timespec(const struct timespec *ts);
uint64_t vt_ns(const struct timespec *ts);

/* The instruction count at which the next timer falls due, UINT64_MAX if none is armed;
 * and the signals of the timers due by now, raised (intervals re-armed). */
uint64_t vt_next_due(const Cpu *c);
void vt_expire(Cpu *c);

/* Sleeps on clock id until its time `until` (ns): the wall clocks move on at once, and a
 * timer due on the way fires then. 0 at the end, or -EINTR as soon as a signal handler
 * is due, with *left the time that was still to sleep. */
int64_t vt_sleep(Cpu *c, clockid_t id, uint64_t until, uint64_t *left);

/* A futex wait's timeout of ns (> 0): the time passes on the virtual clock as a sleep
 * does; -EINTR if a timer's handler cut it short, else 0. */
int64_t vt_wait_out(Cpu *c, uint64_t ns);

/* A blocking call with a timeout of ns under --deterministic (poll, epoll_wait, select,
 * semtimedop, a timed mq_receive...; VT_FOREVER for none): `look` makes the call without
 * waiting and returns `timed_out` where it would have waited; then the time passes on the
 * virtual clock, and it looks again at the end, and each time a timerfd expires on the
 * way; -EINTR as soon as a timer's handler is due. Without a timeout, `timed_out` when no
 * timer is left to pass time to: the host waits then. */
int64_t vt_timed_call(Cpu *c, uint64_t ns, int64_t timed_out, int64_t (*look)(void *), void *arg);

/* rt_sigtimedwait's wait of ns (> 0) for a signal of `wanted`, none pending: the time
 * passes as in a sleep until a timer raises one of them (true), a handler is due, or
 * the time is out (the caller looks once more). VT_FOREVER: until no wall-clock timer is
 * armed. */
#define VT_FOREVER UINT64_MAX
/* A wait without an end passes time through this many expiries at most, then leaves the
 * rest to the host: periodic timers that never end it (signals ignored, blocked, sent to
 * another thread; a timerfd it does not watch) would otherwise run the clock on for ever. */
enum { VT_FOREVER_EXPIRIES = 1000 };
bool vt_wait_signal(Cpu *c, uint64_t ns, uint64_t wanted);

/* pause and sigsuspend with nothing deliverable: lets the wall clocks run to the next
 * wall-clock timer and fires it; false if none is armed (the wait is then the host's). */
bool vt_idle_to_next_timer(Cpu *c);

/* The timer system calls' deterministic forms (sys_timer.c calls them). */
int64_t vt_alarm(Cpu *c, unsigned seconds);
int64_t vt_getitimer(Cpu *c, int which, uint64_t curr);
int64_t vt_setitimer(Cpu *c, int which, uint64_t value, uint64_t old);
int64_t vt_timer_create(Cpu *c, clockid_t id, uint64_t sevp, uint64_t timerid);
int64_t vt_timer_settime(Cpu *c, int timer, int flags, uint64_t value, uint64_t old);
int64_t vt_timer_gettime(Cpu *c, int timer, uint64_t curr);
int64_t vt_timer_getoverrun(Cpu *c, int timer);
int64_t vt_timer_delete(Cpu *c, int timer);
/* timerfd_create, settime and gettime on the virtual clocks (-EINVAL for a descriptor
 * that is not a timerfd); whether fd is one, and a read of one into the guest's buf. */
int64_t vt_timerfd_create(Cpu *c, clockid_t id, int flags);
int64_t vt_timerfd_settime(Cpu *c, int fd, int flags, uint64_t value, uint64_t old);
int64_t vt_timerfd_gettime(Cpu *c, int fd, uint64_t curr);
bool vt_timerfd(Cpu *c, int fd);
int64_t vt_timerfd_read(Cpu *c, int fd, uint64_t buf, uint64_t count);

/* A thread took the signal signo of POSIX timer `timer` (si_code SI_TIMER): the timer
 * may send it again. */
void vt_timer_signal_taken(Cpu *c, int signo, int32_t timer);

/* fork: the child has no timers (nor timerfds: the descriptors it keeps stay quiet). */
void vt_forked_child(Cpu *c);

#endif
