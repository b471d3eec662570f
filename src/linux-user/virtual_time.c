/* virtual_time.c: --deterministic's clocks, sleeps and timers (virtual_time.h). */
#define _GNU_SOURCE
#include "virtual_time.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "determinism.h"
#include "own_fds.h"
#include "process.h"
#include "sigframe.h"
#include "signals.h"
#include "sys_common.h"
#include "threads.h"

#define NS 1000000000ull
enum { REALTIME_EPOCH = 1700000000 };

static bool is_cpu_clock(clockid_t id) {
  /* Static ids, and the dynamic ones of clock_getcpuclockid (negative) */
  return id == CLOCK_PROCESS_CPUTIME_ID || id == CLOCK_THREAD_CPUTIME_ID || id < 0;
}

static bool is_realtime(clockid_t id) {
  return id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE || id == CLOCK_TAI ||
         id == CLOCK_REALTIME_ALARM;
}

/* The two time lines: instructions run, and those plus the time slept. */
static uint64_t cpu_now(const Cpu *c) { return c->icount; }
static uint64_t wall_now(const Cpu *c) { return c->icount + c->m->virtual_idle; }

uint64_t vt_now(const Cpu *c, clockid_t id) {
  if (is_cpu_clock(id)) return cpu_now(c);
  return wall_now(c) + (is_realtime(id) ? REALTIME_EPOCH * NS : 0);
}

struct timespec vt_timespec(uint64_t ns) {
  return (struct timespec){(time_t)(ns / NS), (long)(ns % NS)};
}

static VirtualTime *vtime(const Cpu *c) { return &proc_of(c)->vtime; }

static uint64_t timer_now(const Cpu *c, const VirtualTimer *t) {
  return is_cpu_clock(t->clock) ? cpu_now(c) : wall_now(c);
}

/* Every timer there is: itimers, POSIX timers, timerfds. */
#define FOR_EACH_TIMER(vt, t) \
  for (VirtualTimer *t = (vt)->itimer; t < (vt)->itimer + 3 + VT_POSIX_TIMERS + VT_TIMERFDS; t++)
_Static_assert(offsetof(VirtualTime, posix) == 3 * sizeof(VirtualTimer), "itimer, then posix");
_Static_assert(offsetof(VirtualTime, timerfd) == (3 + VT_POSIX_TIMERS) * sizeof(VirtualTimer),
               "then timerfd");

uint64_t vt_next_due(const Cpu *c) {
  uint64_t next = UINT64_MAX;
  FOR_EACH_TIMER(vtime(c), t) {
    if (!t->due) continue;
    /* A wall-clock deadline in instructions: the time slept stays what it is until the
     * next system call. */
    uint64_t at = is_cpu_clock(t->clock) ? t->due : t->due > c->m->virtual_idle ? t->due - c->m->virtual_idle : 0;
    if (at < next) next = at;
  }
  return next;
}

/* The thread a timer's signal goes to: its SIGEV_THREAD_ID thread, else, as the signal is
 * the process's, the one that ran into it unless that one blocks it, then the first
 * thread that does not (the kernel's choice among them is its scheduler's). */
static int32_t receiver(Cpu *c, const VirtualTimer *t) {
  if (t->thread) return t->thread;
  int32_t self = thread_of(c)->host_tid;
  if (!(signals_mask(c) & X64_SIGBIT(t->signo))) return self;
  int32_t other = threads_not_blocking(c, t->signo);
  return other > 0 ? other : self;
}

static void fire(Cpu *c, VirtualTimer *t, int id) {
  if (!t->signo) return;
  X64Siginfo info = {.si_signo = t->signo, .si_code = t->code};
  if (t->code == SI_TIMER) { /* _timer: tid, overrun, sigval */
    int32_t tid = id, overrun = 0;
    memcpy(info.u.bytes, &tid, 4);
    memcpy(info.u.bytes + 4, &overrun, 4);
    memcpy(info.u.bytes + 8, &t->value, 8);
  }
  /* An instance still pending (in this thread, or in another that lives) does not
   * queue another: the expiry is an overrun. */
  bool queued;
  int32_t to = receiver(c, t);
  if (t->sent_to && threads_nth(c, t->sent_to) >= 0) {
    queued = false;
  } else if (to == thread_of(c)->host_tid) {
    t->sent_to = 0;
    queued = signals_raise(c, &info);
  } else {
    bool sent = signals_raise_in(c, to, &info);
    t->sent_to = sent && t->code == SI_TIMER ? to : 0;
    queued = true;
  }
  if (!queued && t->overrun < INT32_MAX) t->overrun++;
}

void vt_timer_signal_taken(Cpu *c, int signo, int32_t timer) {
  if (timer >= 0 && timer < VT_POSIX_TIMERS && vtime(c)->posix[timer].signo == signo)
    vtime(c)->posix[timer].sent_to = 0;
}

/* A timerfd's expiries: counted, and its socket made readable. */
static void fire_timerfd(VirtualTime *vt, VirtualTimer *t, uint64_t expiries) {
  t->expirations += expiries;
  (void)!send(t->wake_fd, "", 1, MSG_DONTWAIT | MSG_NOSIGNAL); /* full: readable already */
  vt->fd_woken = true;
}

void vt_expire(Cpu *c) {
  VirtualTime *vt = vtime(c);
  FOR_EACH_TIMER(vt, t) {
    uint64_t now = timer_now(c, t);
    if (!t->due || t->due > now) continue;
    /* Periods that passed whole (a long sleep): overruns of a signal, as the kernel
     * counts them; a timerfd's expirations. */
    uint64_t missed = t->interval ? (now - t->due) / t->interval : 0;
    if (t->wake_fd) fire_timerfd(vt, t, missed + 1);
    else fire(c, t, t >= vt->posix && t < vt->posix + VT_POSIX_TIMERS ? (int)(t - vt->posix) : -1);
    if (!t->interval) {
      t->due = 0;
      continue;
    }
    t->due += (missed + 1) * t->interval;
    if (!t->wake_fd)
      t->overrun = (int)((uint64_t)t->overrun + missed > INT32_MAX ? INT32_MAX : t->overrun + missed);
  }
}

/* The wall time at which the next wall-clock timer falls due, UINT64_MAX if none: the
 * only timers that time spent idle brings nearer (CPU-time ones wait for instructions). */
static uint64_t next_wall_due(const Cpu *c) {
  uint64_t at = UINT64_MAX;
  FOR_EACH_TIMER(vtime(c), t)
    if (t->due && !is_cpu_clock(t->clock) && t->due < at) at = t->due;
  return at;
}

void vt_idle_until(Cpu *c, uint64_t to) {
  if (to > wall_now(c)) c->m->virtual_idle += to - wall_now(c);
}

/* Time passing on the wall clocks to wall time wake_wall (UINT64_MAX: to no end), the
 * timers due on the way fired: 0 at the end (or when no timer is left to pass time to),
 * -EINTR as soon as a handler is due, 1 as soon as a signal of `wanted` (blocked ones,
 * taken by rt_sigtimedwait) is pending, 2 as soon as a timerfd expired if `fds`; *left
 * the time still to pass then. */
static int64_t pass_time(Cpu *c, uint64_t wake_wall, uint64_t wanted, bool fds, uint64_t *left) {
  vtime(c)->fd_woken = false;
  for (unsigned expiries = 0;; expiries++) {
    uint64_t next = next_wall_due(c);
    if (next > wake_wall || next == UINT64_MAX ||
        (wake_wall == UINT64_MAX && expiries == VT_FOREVER_EXPIRIES)) {
      if (wake_wall != UINT64_MAX) vt_idle_until(c, wake_wall);
      return 0;
    }
    vt_idle_until(c, next);
    vt_expire(c);
    if (cpu_events(c) & EV_EXIT) return 0;
    *left = wake_wall - wall_now(c);
    if (signals_handler_due(c)) return -EINTR;
    if (signals_pending(c) & wanted) return 1;
    if (fds && vtime(c)->fd_woken) return 2;
  }
}

int64_t vt_sleep(Cpu *c, clockid_t id, uint64_t until, uint64_t *left) {
  if (id == CLOCK_THREAD_CPUTIME_ID) return -EOPNOTSUPP; /* the kernel's: no nsleep for it */
  if (is_cpu_clock(id)) return -EINVAL; /* the sleeper's own CPU time would never advance */
  uint64_t now = vt_now(c, id);
  return pass_time(c, wall_now(c) + (until > now ? until - now : 0), 0, false, left);
}

int64_t vt_wait_out(Cpu *c, uint64_t ns) {
  uint64_t left;
  return pass_time(c, wall_now(c) + ns, 0, false, &left);
}

int64_t vt_timed_call(Cpu *c, uint64_t ns, int64_t timed_out, int64_t (*look)(void *), void *arg) {
  int64_t n = look(arg);
  uint64_t wake = ns == VT_FOREVER ? UINT64_MAX : wall_now(c) + ns, left;
  /* Each timerfd expiry is a look; one that the call does not watch, periodic, would
   * bring a wait without an end back here for ever. */
  unsigned looks = 0;
  for (int64_t passed = 2; n == timed_out && ns != 0 && passed == 2; n = look(arg)) {
    if (ns == VT_FOREVER && ++looks > VT_FOREVER_EXPIRIES) break;
    passed = pass_time(c, wake, 0, true, &left);
    if (passed < 0) return passed;
  }
  return n;
}

bool vt_wait_signal(Cpu *c, uint64_t ns, uint64_t wanted) {
  uint64_t left;
  return pass_time(c, ns == VT_FOREVER ? UINT64_MAX : wall_now(c) + ns, wanted, false, &left) == 1;
}

bool vt_idle_to_next_timer(Cpu *c) {
  uint64_t at = next_wall_due(c);
  if (at == UINT64_MAX) return false;
  vt_idle_until(c, at);
  vt_expire(c);
  return true;
}

/* ---- the system calls ---- */

bool vt_valid_timespec(const struct timespec *ts) {
  return ts->tv_sec >= 0 && ts->tv_nsec >= 0 && ts->tv_nsec < (long)NS;
}

uint64_t vt_ns(const struct timespec *ts) {
  uint64_t s = (uint64_t)ts->tv_sec;
  return s >= UINT64_MAX / NS - 1 ? UINT64_MAX / 2 : s * NS + (uint64_t)ts->tv_nsec;
}

/* The time left to a timer's next expiry, and its interval. */
static struct itimerspec timer_left(const Cpu *c, const VirtualTimer *t) {
  struct itimerspec s = {vt_timespec(t->interval), {0, 0}};
  if (t->due) {
    uint64_t now = timer_now(c, t);
    s.it_value = vt_timespec(t->due > now ? t->due - now : 1); /* due now: not yet fired */
  }
  return s;
}

static void timer_arm(const Cpu *c, VirtualTimer *t, uint64_t value, uint64_t interval) {
  t->due = value ? timer_now(c, t) + value : 0;
  t->interval = t->due ? interval : 0;
  t->overrun = 0;
}

static const int itimer_signal[3] = {SIGALRM, SIGVTALRM, SIGPROF};

static VirtualTimer *itimer(Cpu *c, int which) {
  VirtualTimer *t = &vtime(c)->itimer[which];
  t->clock = which == ITIMER_REAL ? CLOCK_MONOTONIC : CLOCK_PROCESS_CPUTIME_ID;
  t->signo = itimer_signal[which];
  t->code = SI_KERNEL; /* the kernel sends them as itself */
  return t;
}

int64_t vt_alarm(Cpu *c, unsigned seconds) {
  VirtualTimer *t = itimer(c, ITIMER_REAL);
  struct itimerspec was = timer_left(c, t);
  timer_arm(c, t, seconds * NS, 0);
  /* alarm_setitimer(): the old alarm's whole seconds, rounded to nearest, and never 0
   * for one that was pending. */
  uint64_t left = (uint64_t)was.it_value.tv_sec + (was.it_value.tv_nsec >= 500000000);
  return (int64_t)(left || !was.it_value.tv_nsec ? left : 1);
}

static void to_itimerval(struct itimerval *v, const struct itimerspec *s) {
  v->it_interval = (struct timeval){s->it_interval.tv_sec, s->it_interval.tv_nsec / 1000};
  /* A remainder below a microsecond reads as one, so that the timer shows as armed. */
  v->it_value = (struct timeval){s->it_value.tv_sec, (s->it_value.tv_nsec + 999) / 1000};
  if (v->it_value.tv_usec == 1000000) v->it_value = (struct timeval){s->it_value.tv_sec + 1, 0};
}

int64_t vt_getitimer(Cpu *c, int which, uint64_t curr) {
  if (which < 0 || which > 2) return -EINVAL;
  struct itimerspec s = timer_left(c, itimer(c, which));
  struct itimerval v;
  to_itimerval(&v, &s);
  return guest_copy_out(c, curr, &v, sizeof v);
}

int64_t vt_setitimer(Cpu *c, int which, uint64_t value, uint64_t old) {
  if (which < 0 || which > 2) return -EINVAL;
  struct itimerval v;
  if (guest_copy_in(c, &v, value, sizeof v) < 0) return -EFAULT;
  if (v.it_value.tv_sec < 0 || v.it_value.tv_usec < 0 || v.it_value.tv_usec >= 1000000 ||
      v.it_interval.tv_sec < 0 || v.it_interval.tv_usec < 0 || v.it_interval.tv_usec >= 1000000)
    return -EINVAL;
  VirtualTimer *t = itimer(c, which);
  struct itimerspec was = timer_left(c, t);
  struct itimerval w;
  to_itimerval(&w, &was);
  if (old && guest_copy_out(c, old, &w, sizeof w) < 0) return -EFAULT;
  struct timespec value_ts = {v.it_value.tv_sec, v.it_value.tv_usec * 1000L};
  struct timespec interval_ts = {v.it_interval.tv_sec, v.it_interval.tv_usec * 1000L};
  timer_arm(c, t, vt_ns(&value_ts), vt_ns(&interval_ts));
  return 0;
}

/* struct sigevent as the x86-64 kernel reads it. */
typedef struct X64Sigevent {
  uint64_t value;
  int32_t signo, notify;
  int32_t tid;
} X64Sigevent;
enum { X64_SIGEV_SIGNAL = 0, X64_SIGEV_NONE = 1, X64_SIGEV_THREAD_ID = 4 };

int64_t vt_timer_create(Cpu *c, clockid_t id, uint64_t sevp, uint64_t timerid) {
  struct timespec probe;
  if (clock_getres(id, &probe) < 0) return -EINVAL; /* an unknown clock */
  VirtualTime *vt = vtime(c);
  int n = 0;
  while (n < VT_POSIX_TIMERS && vt->posix[n].used) n++;
  if (n == VT_POSIX_TIMERS) return -EAGAIN;
  X64Sigevent ev = {.value = (uint64_t)n, .signo = SIGALRM, .notify = X64_SIGEV_SIGNAL};
  if (sevp && guest_copy_in(c, &ev, sevp, sizeof ev) < 0) return -EFAULT;
  int how = ev.notify & ~X64_SIGEV_THREAD_ID;
  int32_t thread = 0;
  if (ev.notify & X64_SIGEV_THREAD_ID) { /* a thread of this process (glibc's SIGEV_THREAD) */
    thread = (int32_t)det_pid_in(c, ev.tid);
    if (threads_nth(c, thread) < 0) return -EINVAL;
  }
  if ((how != X64_SIGEV_SIGNAL && how != X64_SIGEV_NONE) || (how == X64_SIGEV_NONE && ev.notify != how))
    return -EINVAL;
  if (how == X64_SIGEV_SIGNAL && (ev.signo <= 0 || ev.signo > X64_NSIG)) return -EINVAL;
  int32_t out = n;
  if (guest_copy_out(c, timerid, &out, sizeof out) < 0) return -EFAULT;
  vt->posix[n] = (VirtualTimer){.used = true, .clock = id,
                                .signo = how == X64_SIGEV_NONE ? 0 : ev.signo, .code = SI_TIMER,
                                .value = ev.value, .thread = thread};
  return 0;
}

static VirtualTimer *posix_timer(Cpu *c, int timer) {
  if (timer < 0 || timer >= VT_POSIX_TIMERS || !vtime(c)->posix[timer].used) return NULL;
  return &vtime(c)->posix[timer];
}

/* settime of a POSIX timer or a timerfd: the guest's struct itimerspec at value, the
 * old one written to old (if not 0); absolute when abstime. */
static int64_t timer_set(Cpu *c, VirtualTimer *t, bool abstime, uint64_t value, uint64_t old) {
  struct itimerspec s;
  if (guest_copy_in(c, &s, value, sizeof s) < 0) return -EFAULT;
  if (!vt_valid_timespec(&s.it_value) || !vt_valid_timespec(&s.it_interval)) return -EINVAL;
  struct itimerspec was = timer_left(c, t);
  if (old && guest_copy_out(c, old, &was, sizeof was) < 0) return -EFAULT;
  uint64_t v = vt_ns(&s.it_value);
  if (abstime && v) { /* a time already past is due at once */
    uint64_t now = vt_now(c, t->clock);
    v = v > now ? v - now : 0;
    t->due = timer_now(c, t) + v;
    t->interval = vt_ns(&s.it_interval);
    t->overrun = 0;
    return 0;
  }
  timer_arm(c, t, v, vt_ns(&s.it_interval));
  return 0;
}

int64_t vt_timer_settime(Cpu *c, int timer, int flags, uint64_t value, uint64_t old) {
  VirtualTimer *t = posix_timer(c, timer);
  return t ? timer_set(c, t, flags & TIMER_ABSTIME, value, old) : -EINVAL;
}

static int64_t timer_get(Cpu *c, const VirtualTimer *t, uint64_t curr) {
  struct itimerspec s = timer_left(c, t);
  return guest_copy_out(c, curr, &s, sizeof s);
}

int64_t vt_timer_gettime(Cpu *c, int timer, uint64_t curr) {
  VirtualTimer *t = posix_timer(c, timer);
  return t ? timer_get(c, t, curr) : -EINVAL;
}

int64_t vt_timer_getoverrun(Cpu *c, int timer) {
  VirtualTimer *t = posix_timer(c, timer);
  return t ? t->overrun : -EINVAL;
}

int64_t vt_timer_delete(Cpu *c, int timer) {
  VirtualTimer *t = posix_timer(c, timer);
  if (!t) return -EINVAL;
  *t = (VirtualTimer){0};
  return 0;
}

/* ---- timerfd ---- */

/* The timerfd that fd stands for, NULL if none. */
static VirtualTimer *timerfd_at(Cpu *c, int fd) {
  VirtualTime *vt = vtime(c);
  struct stat st;
  if (!vt->timerfds || fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) return NULL;
  for (int i = 0; i < VT_TIMERFDS; i++)
    if (vt->timerfd[i].wake_fd && vt->timerfd[i].ino == (uint64_t)st.st_ino) return &vt->timerfd[i];
  return NULL;
}

bool vt_timerfd(Cpu *c, int fd) { return timerfd_at(c, fd) != NULL; }

/* Ends the timerfds whose descriptors the guest has all closed (the socket's other end
 * hangs up). */
static void timerfds_collect(VirtualTime *vt) {
  for (int i = 0; i < VT_TIMERFDS; i++) {
    VirtualTimer *t = &vt->timerfd[i];
    struct pollfd p = {.fd = t->wake_fd, .events = POLLOUT};
    if (!t->wake_fd || poll(&p, 1, 0) != 1 || !(p.revents & (POLLHUP | POLLERR))) continue;
    own_fd_close(&t->wake_fd);
    *t = (VirtualTimer){0};
    vt->timerfds--;
  }
}

int64_t vt_timerfd_create(Cpu *c, clockid_t id, int flags) {
  /* The kernel's own checks of the clock and flags, and of the descriptors left. */
  int probe = (int)syscall(SYS_timerfd_create, id, flags);
  if (probe < 0) return -errno;
  close(probe);
  VirtualTime *vt = vtime(c);
  timerfds_collect(vt);
  VirtualTimer *t = vt->timerfd;
  while (t < vt->timerfd + VT_TIMERFDS && t->wake_fd) t++;
  if (t == vt->timerfd + VT_TIMERFDS) return -EMFILE;
  int ends[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) < 0) return -errno;
  struct stat st;
  shutdown(ends[0], SHUT_WR); /* the guest's end only reads, ours only writes */
  shutdown(ends[1], SHUT_RD);
  if (!(flags & TFD_CLOEXEC)) fcntl(ends[0], F_SETFD, 0);
  if (flags & TFD_NONBLOCK) fcntl(ends[0], F_SETFL, O_NONBLOCK);
  fstat(ends[0], &st);
  *t = (VirtualTimer){.used = true, .clock = id, .wake_fd = ends[1], .ino = (uint64_t)st.st_ino};
  own_fd_keep(&t->wake_fd);
  vt->timerfds++;
  return ends[0];
}

/* Drains the bytes of the expiries that a read or a settime has taken. */
static void timerfd_drain(int fd) {
  char bytes[256];
  while (recv(fd, bytes, sizeof bytes, MSG_DONTWAIT) > 0) continue;
}

int64_t vt_timerfd_settime(Cpu *c, int fd, int flags, uint64_t value, uint64_t old) {
  if (flags & ~(TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET)) return -EINVAL;
  VirtualTimer *t = timerfd_at(c, fd);
  if (!t) return -EINVAL;
  int64_t r = timer_set(c, t, flags & TFD_TIMER_ABSTIME, value, old);
  if (r == 0) { /* what had expired is forgotten, as the kernel's ticks */
    t->expirations = 0;
    timerfd_drain(fd);
  }
  return r;
}

int64_t vt_timerfd_gettime(Cpu *c, int fd, uint64_t curr) {
  VirtualTimer *t = timerfd_at(c, fd);
  return t ? timer_get(c, t, curr) : -EINVAL;
}

/* A read waits for an expiry: time passes to the timer's; an unarmed one waits in the
 * host (for a signal, or another thread's settime). */
int64_t vt_timerfd_read(Cpu *c, int fd, uint64_t buf, uint64_t count) {
  if (count < sizeof(uint64_t)) return -EINVAL;
  VirtualTimer *t;
  while ((t = timerfd_at(c, fd)) && !t->expirations) {
    if (fcntl(fd, F_GETFL) & O_NONBLOCK) return -EAGAIN;
    uint64_t left;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int64_t r = t->due ? pass_time(c, t->due, 0, false, &left) : host_result(poll(&p, 1, -1));
    if (r < 0) return r;
  }
  if (!t) return -EBADF; /* closed by another thread meanwhile */
  uint64_t n = t->expirations;
  t->expirations = 0;
  timerfd_drain(fd);
  return guest_copy_out(c, buf, &n, sizeof n) < 0 ? -EFAULT : (int64_t)sizeof n;
}

/* The child has none of the timers; its copies of the timerfds' descriptors are sockets
 * that no timer writes to. */
void vt_forked_child(Cpu *c) {
  VirtualTime *vt = vtime(c);
  for (int i = 0; i < VT_TIMERFDS; i++)
    if (vt->timerfd[i].wake_fd) own_fd_close(&vt->timerfd[i].wake_fd);
  memset(vt, 0, sizeof *vt);
}
