/* turns.c: --deterministic's schedule of a process's threads (turns.h). Everything here
 * is under Threads.mutex; the thread whose turn it is (Threads.holder) runs guest code
 * without it, and the others wait on their semaphores (Thread.turn). */
#define _GNU_SOURCE
#include "turns.h"

#include <errno.h>
#include <fcntl.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../interp/machine.h"
#include "process.h"
#include "signals.h"
#include "threads.h"
#include "virtual_time.h"

enum { TURN_READY, TURN_WAITING, TURN_AWAY };
enum { POLL_NS = 1000000 }; /* how often a waiting thread looks at the turn's holder */

static Threads *threads_of(const Cpu *c) { return &proc_of(c)->threads; }

static uint64_t host_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

bool turns_on(const Cpu *c) { return __atomic_load_n(&threads_of(c)->turns, __ATOMIC_ACQUIRE); }

uint64_t turns_end_at(const Cpu *c) {
  return turns_on(c) ? thread_of(c)->sched.end_at : UINT64_MAX;
}

/* The turn's holder's instructions go on the process's clock. */
static void close_turn(Threads *ts) {
  if (!ts->holder) return;
  struct ThreadSched *s = &thread_of(ts->holder)->sched;
  ts->clock += ts->holder->icount - s->began_at;
  s->began_at = ts->holder->icount;
}

/* After a change of who is ready: a PAUSE gives the turn away when another thread is
 * (system.c). */
static void note_ready(const Threads *ts, Machine *m) {
  bool other = false;
  for (unsigned i = 0; i < ts->n && !other; i++)
    other = ts->all[i]->sched.state == TURN_READY && &ts->all[i]->cpu != ts->holder;
  __atomic_store_n(&m->pause_events, other ? EV_YIELD : 0, __ATOMIC_RELAXED);
}

static void grant(Threads *ts, Thread *t, const Thread *self) {
  ts->holder = &t->cpu;
  t->sched.began_at = t->cpu.icount;
  t->sched.end_at = t->cpu.icount + TURN_INSNS;
  if (t != self) sem_post(&t->turn);
}

/* A waiting thread ready again; a timeout's moves its wall clocks on to the timeout. */
static void wake(Thread *t, int64_t result) {
  t->sched.state = TURN_READY;
  t->sched.result = result;
  if (result == -ETIMEDOUT) vt_idle_until(&t->cpu, t->sched.wall_deadline);
}

/* The ready thread made next after the nth, round and round (the nth itself last). */
static Thread *next_ready(const Threads *ts, unsigned nth) {
  Thread *after = NULL, *first = NULL;
  for (unsigned i = 0; i < ts->n; i++) {
    Thread *t = ts->all[i];
    if (t->sched.state != TURN_READY) continue;
    if (t->nth > nth && (!after || t->nth < after->nth)) after = t;
    if (!first || t->nth < first->nth) first = t;
  }
  return after ? after : first;
}

/* The waiting thread whose timeout comes first (the first to wait among equals). */
static Thread *first_timeout(const Threads *ts) {
  Thread *w = NULL;
  for (unsigned i = 0; i < ts->n; i++) {
    Thread *t = ts->all[i];
    if (t->sched.state == TURN_WAITING && t->sched.deadline != UINT64_MAX &&
        (!w || t->sched.deadline < w->sched.deadline ||
         (t->sched.deadline == w->sched.deadline && t->sched.seq < w->sched.seq)))
      w = t;
  }
  return w;
}

static void expire(Threads *ts) {
  for (unsigned i = 0; i < ts->n; i++) {
    Thread *t = ts->all[i];
    if (t->sched.state == TURN_WAITING && t->sched.deadline <= ts->clock) wake(t, -ETIMEDOUT);
  }
}

/* The turn after the nth thread's, whose instructions are on the clock: the next ready
 * thread's; with none ready, the clock moves on to the first timeout. self: the caller's
 * thread, which is not woken. */
static void pass_on(Threads *ts, unsigned nth, const Thread *self) {
  ts->holder = NULL;
  expire(ts);
  Thread *next = next_ready(ts, nth);
  if (!next) {
    Thread *w = first_timeout(ts);
    if (w) {
      ts->clock = w->sched.deadline;
      expire(ts);
      next = next_ready(ts, nth);
    }
  }
  if (next) grant(ts, next, self);
  note_ready(ts, self->cpu.m);
}

/* Whether the host thread tid sleeps in the kernel (state S: waiting for an event), as
 * /proc/self/task/TID/stat says; not when it is runnable, or waits for the disk (D). */
static bool host_thread_sleeps(int32_t tid) {
  char path[64], text[512];
  snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0) return false;
  text[n] = 0;
  const char *end = strrchr(text, ')'); /* the name before it may hold anything */
  return end && end[1] == ' ' && end[2] == 'S';
}

/* Hands the turn on for a thread that has been in a system call for GRACE_MS and sleeps
 * in the host's kernel, waiting for something: it comes back in when the call returns
 * (turns_enter). One that the host merely has not run for a while (a busy machine) keeps
 * its turn, so that the schedule stays the same. */
static void take_from_blocked_holder(Threads *ts, const Thread *self) {
  Thread *h = ts->holder ? thread_of(ts->holder) : NULL;
  if (!h || !h->sched.in_call || host_ns() - h->sched.call_began < GRACE_MS * 1000000ull ||
      !host_thread_sleeps(h->host_tid))
    return;
  h->sched.in_call = false;
  h->sched.state = TURN_AWAY;
  close_turn(ts);
  pass_on(ts, h->nth, self);
}

/* Until it is t's turn (the mutex is given up while waiting). A waiting thread that a
 * signal's handler is due for stops waiting (-EINTR) when interruptible. */
static void await_turn(Threads *ts, Thread *t, bool interruptible) {
  while (ts->holder != &t->cpu) {
    if (interruptible && t->sched.state == TURN_WAITING && signals_handler_due(&t->cpu)) {
      wake(t, -EINTR);
      note_ready(ts, t->cpu.m);
    }
    if (!ts->holder && t->sched.state == TURN_READY) {
      grant(ts, t, t);
      note_ready(ts, t->cpu.m);
      break;
    }
    take_from_blocked_holder(ts, t);
    if (ts->holder == &t->cpu) break;
    pthread_mutex_unlock(&ts->mutex);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += POLL_NS;
    if (until.tv_nsec >= 1000000000) until.tv_sec++, until.tv_nsec -= 1000000000;
    sem_timedwait(&t->turn, &until);
    pthread_mutex_lock(&ts->mutex);
  }
}

void turns_begin(Cpu *c) {
  Threads *ts = threads_of(c);
  if (!proc_of(c)->opt.deterministic || ts->turns) return;
  pthread_mutex_lock(&ts->mutex);
  grant(ts, thread_of(c), thread_of(c)); /* its turn starts now */
  __atomic_store_n(&ts->turns, true, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&ts->mutex);
}

void turns_enter(Cpu *c) {
  Threads *ts = threads_of(c);
  Thread *t = thread_of(c);
  pthread_mutex_lock(&ts->mutex);
  t->sched.in_call = false;
  if (ts->holder != c) {
    if (t->sched.state == TURN_AWAY) t->sched.state = TURN_READY;
    note_ready(ts, c->m);
    await_turn(ts, t, false);
  }
  pthread_mutex_unlock(&ts->mutex);
}

void turns_leave(Cpu *c) {
  Threads *ts = threads_of(c);
  pthread_mutex_lock(&ts->mutex);
  thread_of(c)->sched.in_call = true;
  thread_of(c)->sched.call_began = host_ns();
  pthread_mutex_unlock(&ts->mutex);
}

void turns_yield(Cpu *c) {
  Threads *ts = threads_of(c);
  Thread *t = thread_of(c);
  pthread_mutex_lock(&ts->mutex);
  close_turn(ts);
  pass_on(ts, t->nth, t);
  await_turn(ts, t, false);
  pthread_mutex_unlock(&ts->mutex);
}

void turns_exit(Cpu *c) {
  Threads *ts = threads_of(c);
  pthread_mutex_lock(&ts->mutex);
  if (ts->holder == c) {
    close_turn(ts);
    pass_on(ts, thread_of(c)->nth, thread_of(c));
  }
  pthread_mutex_unlock(&ts->mutex);
}

int64_t turns_futex_wait(Cpu *c, uint64_t addr, uint32_t val, uint32_t bitset,
                         const uint64_t *timeout_ns, bool interruptible) {
  Threads *ts = threads_of(c);
  Thread *t = thread_of(c);
  if (interruptible && signals_handler_due(c)) return -EINTR;
  pthread_mutex_lock(&ts->mutex);
  if (__atomic_load_n((uint32_t *)(uintptr_t)addr, __ATOMIC_SEQ_CST) != val) {
    pthread_mutex_unlock(&ts->mutex);
    return -EAGAIN;
  }
  close_turn(ts);
  uint64_t ns = timeout_ns ? *timeout_ns : UINT64_MAX;
  t->sched = (struct ThreadSched){
      .state = TURN_WAITING, .interruptible = interruptible, .futex = addr, .bitset = bitset,
      .seq = ts->waits++,
      .deadline = ns > UINT64_MAX - ts->clock ? UINT64_MAX : ts->clock + ns,
      .wall_deadline = timeout_ns ? vt_now(c, CLOCK_MONOTONIC) + ns : UINT64_MAX,
      .began_at = c->icount, .end_at = t->sched.end_at};
  pass_on(ts, t->nth, t);
  await_turn(ts, t, interruptible);
  int64_t r = t->sched.result;
  pthread_mutex_unlock(&ts->mutex);
  return r;
}

/* The thread waiting on addr, with a bitset meeting bitset, that began first, or NULL. */
static Thread *first_waiter(const Threads *ts, uint64_t addr, uint32_t bitset) {
  Thread *w = NULL;
  for (unsigned i = 0; i < ts->n; i++) {
    Thread *t = ts->all[i];
    if (t->sched.state == TURN_WAITING && t->sched.futex == addr && (t->sched.bitset & bitset) &&
        (!w || t->sched.seq < w->sched.seq))
      w = t;
  }
  return w;
}

/* Wakes up to n of the threads waiting on addr whose bitset meets bitset, the first to
 * wait first; how many. */
static uint32_t wake_waiters(Threads *ts, uint64_t addr, uint32_t n, uint32_t bitset) {
  uint32_t woken = 0;
  for (Thread *w; woken < n && (w = first_waiter(ts, addr, bitset)); woken++) wake(w, 0);
  return woken;
}

int64_t turns_futex_wake(Cpu *c, uint64_t addr, uint32_t n, uint32_t bitset) {
  Threads *ts = threads_of(c);
  pthread_mutex_lock(&ts->mutex);
  uint32_t woken = wake_waiters(ts, addr, n, bitset);
  note_ready(ts, c->m);
  pthread_mutex_unlock(&ts->mutex);
  return woken;
}

int64_t turns_futex_requeue(Cpu *c, uint64_t addr, uint32_t n, uint64_t addr2, uint32_t n2,
                            uint32_t *moved) {
  Threads *ts = threads_of(c);
  pthread_mutex_lock(&ts->mutex);
  uint32_t woken = wake_waiters(ts, addr, n, ~0u);
  *moved = 0;
  if (addr2 != addr)
    for (Thread *w; *moved < n2 && (w = first_waiter(ts, addr, ~0u)); ++*moved) w->sched.futex = addr2;
  note_ready(ts, c->m);
  pthread_mutex_unlock(&ts->mutex);
  return woken;
}

/* The thread whose host id is tid, if it is away in a host call (under the mutex). */
static bool away_in_call(const Threads *ts, int32_t tid) {
  for (unsigned i = 0; i < ts->n; i++)
    if (ts->all[i]->host_tid == tid) return ts->all[i]->sched.state == TURN_AWAY;
  return false;
}

void turns_signal_sent(Cpu *c, int32_t tid, int sig) {
  if (!turns_on(c) || sig < 1 || sig > X64_NSIG) return;
  Threads *ts = threads_of(c);
  const uint64_t handler = proc_of(c)->sig_action[sig].handler;
  const bool handled = handler != X64_SIG_DFL && handler != X64_SIG_IGN;
  bool back_soon = false;
  pthread_mutex_lock(&ts->mutex);
  for (unsigned i = 0; i < ts->n; i++) {
    Thread *t = ts->all[i];
    if (t->host_tid != tid) continue;
    bool runs_handler = handled && !(t->sig.mask & X64_SIGBIT(sig));
    if (t->sched.state == TURN_WAITING && t->sched.interruptible && runs_handler)
      wake(t, -EINTR);
    else if (t->sched.state == TURN_AWAY)
      back_soon = runs_handler || (__atomic_load_n(&t->sig.awaited, __ATOMIC_ACQUIRE) & X64_SIGBIT(sig));
  }
  /* Its host call (a sigsuspend, a sigtimedwait for it...) ends with the signal: the
   * sender waits until it is back among the ready threads, so that it rejoins at this
   * point of the sender's run every time. Not for ever: a call that goes on (one that
   * x64emu restarts itself) leaves the rest to the host. */
  for (uint64_t until = host_ns() + 1000000000ull; back_soon && host_ns() < until;) {
    pthread_mutex_unlock(&ts->mutex);
    struct timespec nap = {0, POLL_NS / 10};
    nanosleep(&nap, NULL);
    pthread_mutex_lock(&ts->mutex);
    back_soon = away_in_call(ts, tid);
  }
  note_ready(ts, c->m);
  pthread_mutex_unlock(&ts->mutex);
}
