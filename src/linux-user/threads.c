/* threads.c: guest threads and the run lock (threads.h). */
#define _GNU_SOURCE
#include "threads.h"

#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../interp/machine.h"
#include "../interp/run.h"
#include "determinism.h"
#include "linux_run.h"
#include "process.h"
#include "signals.h"
#include "sys_common.h"
#include "turns.h"

/* How long a thread waits for the run lock before it asks the holder to give it up: a
 * time slice, as a kernel's scheduler would give. */
enum { SLICE_NS = 1000000, SPIN_NS = 100000 };

static Threads *threads_of(const Cpu *c) { return &proc_of(c)->threads; }

static bool add(Threads *ts, Thread *t) {
  if (ts->n == ts->room) {
    unsigned room = ts->room ? 2 * ts->room : 8;
    Thread **more = realloc(ts->all, room * sizeof *more);
    if (!more) return false;
    ts->all = more;
    ts->room = room;
  }
  ts->all[ts->n++] = t;
  return true;
}

static void forget(Threads *ts, Thread *t) {
  for (unsigned i = 0; i < ts->n; i++)
    if (ts->all[i] == t) {
      ts->all[i] = ts->all[--ts->n];
      return;
    }
}

/* The lock's state as one thread holding it: at start-up, and in a forked child (whose
 * threads, if they ran in parallel, go on so). */
static void reset(Threads *ts, Cpu *holder) {
  pthread_mutex_init(&ts->mutex, NULL);
  if (ts->parallel) {
    pthread_mutex_init(&holder->m->lock, NULL);
    pthread_mutex_lock(&holder->m->lock);
  }
  ts->holder = holder;
  ts->first = ts->last = NULL;
  ts->n = 0;
  ts->retired = 0;
  ts->made = 0;
  ts->turns = false;
  ts->clock = ts->waits = 0;
  thread_of(holder)->sched = (struct ThreadSched){0};
  thread_of(holder)->host_tid = gettid();
  thread_of(holder)->nth = 0;
  sem_init(&thread_of(holder)->turn, 0, 0);
  add(ts, thread_of(holder)); /* the array has room: 8 at first, the old one after fork */
  __atomic_store_n(&holder->m->pause_events, 0, __ATOMIC_RELAXED);
}

void threads_init(Cpu *main) { reset(threads_of(main), main); }

void threads_destroy(Threads *ts) {
  free(ts->all);
  ts->all = NULL;
  ts->n = ts->room = 0;
}

void threads_forked_child(Cpu *c) {
  reset(threads_of(c), c);
  ranges_forked(&c->m->mem); /* a thread of the parent may have been reading it */
}

int32_t threads_host_tid(const Cpu *c, unsigned nth) {
  Threads *ts = threads_of(c);
  int32_t tid = -1;
  pthread_mutex_lock(&ts->mutex);
  for (unsigned i = 0; i < ts->n; i++)
    if (ts->all[i]->nth == nth) tid = ts->all[i]->host_tid;
  pthread_mutex_unlock(&ts->mutex);
  return tid;
}

unsigned threads_made(const Cpu *c) {
  Threads *ts = threads_of(c);
  pthread_mutex_lock(&ts->mutex);
  unsigned made = ts->made;
  pthread_mutex_unlock(&ts->mutex);
  return made;
}

int64_t threads_nth(const Cpu *c, int32_t tid) {
  Threads *ts = threads_of(c);
  int64_t nth = -1;
  pthread_mutex_lock(&ts->mutex);
  for (unsigned i = 0; i < ts->n; i++)
    if (ts->all[i]->host_tid == tid) nth = ts->all[i]->nth;
  pthread_mutex_unlock(&ts->mutex);
  return nth;
}

int32_t threads_not_blocking(const Cpu *c, int sig) {
  Threads *ts = threads_of(c);
  int32_t found = -1;
  unsigned first = UINT32_MAX;
  pthread_mutex_lock(&ts->mutex);
  for (unsigned i = 0; i < ts->n; i++) {
    const Thread *t = ts->all[i];
    if (!(t->sig.mask & X64_SIGBIT(sig)) && t->nth < first) {
      first = t->nth;
      found = t->host_tid;
    }
  }
  pthread_mutex_unlock(&ts->mutex);
  return found;
}

unsigned threads_count(Cpu *c) {
  Threads *ts = threads_of(c);
  pthread_mutex_lock(&ts->mutex);
  unsigned n = ts->n;
  pthread_mutex_unlock(&ts->mutex);
  return n;
}

uint64_t threads_instructions(Cpu *c) {
  Threads *ts = threads_of(c);
  pthread_mutex_lock(&ts->mutex);
  uint64_t n = ts->retired;
  for (unsigned i = 0; i < ts->n; i++) n += ts->all[i]->cpu.icount;
  pthread_mutex_unlock(&ts->mutex);
  return n;
}

/* Taking turns, the lock goes from holder to holder directly: the one that gives it up
 * names the next and wakes that one alone. In parallel, it is the machine's lock. */
void threads_enter(Cpu *c) {
  Threads *ts = threads_of(c);
  Thread *t = thread_of(c);
  if (ts->parallel) {
    pthread_mutex_lock(&c->m->lock);
    return;
  }
  if (turns_on(c)) {
    turns_enter(c);
    return;
  }
  pthread_mutex_lock(&ts->mutex);
  if (!ts->holder) {
    ts->holder = c;
    pthread_mutex_unlock(&ts->mutex);
    return;
  }
  t->queued = NULL;
  if (ts->last) ts->last->queued = t;
  else ts->first = t;
  ts->last = t;
  __atomic_store_n(&c->m->pause_events, EV_YIELD, __ATOMIC_RELAXED); /* a spinning holder gives way */
  pthread_mutex_unlock(&ts->mutex);
  /* A spinning holder hands the lock on within microseconds; waking a thread that sleeps
   * on another CPU takes far longer (measured: 140 us a hand-over without this, on a 2-CPU
   * virtual machine), so a waiter polls a while before it sleeps. (Yielding the CPU at
   * each look made it far slower on a busy machine: the yielder waits out the others'
   * time slices.) */
  struct timespec t0, now;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  do {
    if (sem_trywait(&t->turn) == 0) return;
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while ((now.tv_sec - t0.tv_sec) * 1000000000L + (now.tv_nsec - t0.tv_nsec) < SPIN_NS);
  for (;;) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += SLICE_NS;
    if (until.tv_nsec >= 1000000000) until.tv_sec++, until.tv_nsec -= 1000000000;
    if (sem_timedwait(&t->turn, &until) == 0) return; /* the holder made c the holder */
    if (errno != ETIMEDOUT) continue;
    pthread_mutex_lock(&ts->mutex);
    if (ts->holder && ts->holder != c) cpu_raise_events(ts->holder, EV_YIELD); /* at its next block */
    pthread_mutex_unlock(&ts->mutex);
  }
}

void threads_leave(Cpu *c) {
  Threads *ts = threads_of(c);
  if (ts->parallel) {
    pthread_mutex_unlock(&c->m->lock);
    return;
  }
  if (turns_on(c)) {
    turns_leave(c);
    return;
  }
  pthread_mutex_lock(&ts->mutex);
  Thread *next = ts->first;
  ts->holder = next ? &next->cpu : NULL;
  if (next) {
    ts->first = next->queued;
    if (!ts->first) {
      ts->last = NULL;
      __atomic_store_n(&c->m->pause_events, 0, __ATOMIC_RELAXED); /* nobody else waits */
    }
    sem_post(&next->turn);
  }
  pthread_mutex_unlock(&ts->mutex);
}

void threads_yield(Cpu *c) {
  Threads *ts = threads_of(c);
  cpu_clear_events(c, EV_YIELD);
  if (ts->parallel) return;
  if (turns_on(c)) {
    turns_yield(c);
    return;
  }
  pthread_mutex_lock(&ts->mutex);
  bool waiting = ts->first != NULL;
  pthread_mutex_unlock(&ts->mutex);
  if (!waiting) return;
  threads_leave(c);
  threads_enter(c); /* behind the ones that waited */
}

/* ---- running in parallel ---- */

/* Before the code cache is flushed (block.h's before_flush), by the thread that flushes
 * it, holding the machine's lock: every other thread leaves the blocks it runs (EV_SYNC
 * makes cpu_run return at the next block) and waits for the lock; those in a system call
 * or waiting for the lock already run none. The threads do not change meanwhile: clone
 * and exit take the lock. */
static void quiesce(void *arg) {
  Threads *ts = arg;
  pthread_mutex_lock(&ts->mutex);
  for (unsigned i = 0; i < ts->n; i++) cpu_raise_events(&ts->all[i]->cpu, EV_SYNC);
  pthread_mutex_unlock(&ts->mutex);
  for (unsigned i = 0; i < ts->n; i++) {
    const Cpu *other = &ts->all[i]->cpu;
    while (__atomic_load_n(&other->running, __ATOMIC_SEQ_CST)) sched_yield();
  }
}

/* At the first clone, unless the tools or --deterministic need one thread at a time:
 * from now on the threads run guest code in parallel, and the run lock is the machine's
 * (machine.h), which c takes, being in a system call. */
static void go_parallel(Cpu *c) {
  Threads *ts = threads_of(c);
  if (ts->parallel || proc_of(c)->opt.serial_threads) return;
  pthread_mutex_lock(&ts->mutex);
  ts->parallel = true;
  ts->holder = NULL;
  pthread_mutex_unlock(&ts->mutex);
  Machine *m = c->m;
  pthread_mutex_lock(&m->lock);
  /* c is the only thread yet: nothing to bring out of the code */
  if (!proc_of(c)->opt.host_memory_order) machine_order_memory(m);
  m->parallel = true;
  m->code.before_flush = quiesce;
  m->code.flush_arg = ts;
}

/* ---- thread start and end ---- */

typedef struct Start {
  Thread *t;
  sem_t started;
  pid_t tid;
} Start;

/* A new thread's host thread: it runs its guest thread until that ends. */
static void *thread_main(void *arg) {
  Start *s = arg;
  Thread *t = s->t;
  Cpu *c = &t->cpu;
  s->tid = gettid();
  sem_post(&s->started); /* s is the creator's, and gone after this */
  signals_thread_attach(c);
  threads_enter(c);
  linux_run(c, 0); /* returns when the thread ends the process (a thread's exit does not) */
  t->proc->opt.finish(c);
  return NULL;
}

int64_t threads_clone(Cpu *c, uint64_t flags, uint64_t stack, uint64_t parent_tid,
                      uint64_t child_tid, uint64_t tls) {
  Process *p = proc_of(c);
  if (!p->opt.finish) return -ENOSYS; /* an embedder's machine: it runs one CPU */
  Thread *t = calloc(1, sizeof *t);
  if (!t) return -ENOMEM;
  go_parallel(c);
  turns_begin(c);
  t->proc = p;
  Cpu *n = &t->cpu;
  cpu_init(n, c->m);
  n->owner = t;
  /* The architectural state, as the kernel copies it. */
  memcpy(n->r, c->r, sizeof n->r);
  n->rip = c->rip;
  n->rflags = c->rflags;
  n->lf = c->lf;
  n->fs_base = (flags & X64_CLONE_SETTLS) ? tls : c->fs_base;
  n->gs_base = c->gs_base;
  memcpy(n->sreg, c->sreg, sizeof n->sreg);
  memcpy(n->xmm, c->xmm, sizeof n->xmm);
  memcpy(n->ymmh, c->ymmh, sizeof n->ymmh);
  n->xstate_in_use = c->xstate_in_use;
  n->mxcsr = c->mxcsr;
  n->tsc_denied = c->tsc_denied; /* the kernel's TIF_NOTSC goes to the new thread */
  n->fpu = c->fpu;
  n->r[RAX] = 0;
  if (stack) n->r[RSP] = stack;
  if (flags & X64_CLONE_CHILD_CLEARTID) t->clear_child_tid = child_tid;
  signals_thread_init(n, c);
  t->seccomp = thread_of(c)->seccomp;
  sem_init(&t->turn, 0, 0);

  Threads *ts = threads_of(c);
  pthread_mutex_lock(&ts->mutex);
  t->host_tid = -1; /* until its host thread has started */
  t->nth = ++ts->made;
  bool added = add(ts, t);
  pthread_mutex_unlock(&ts->mutex);
  Start s = {.t = t};
  sem_init(&s.started, 0, 0);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t host;
  int e = added ? pthread_create(&host, &attr, thread_main, &s) : ENOMEM;
  pthread_attr_destroy(&attr);
  if (e) {
    pthread_mutex_lock(&ts->mutex);
    forget(ts, t);
    pthread_mutex_unlock(&ts->mutex);
    sem_destroy(&t->turn);
    free(t);
    sem_destroy(&s.started);
    return -EAGAIN;
  }
  while (sem_wait(&s.started) != 0) {
  }
  sem_destroy(&s.started);
  pthread_mutex_lock(&ts->mutex); /* known by its id before the guest can name it */
  t->host_tid = s.tid;
  pthread_mutex_unlock(&ts->mutex);
  int32_t tid = (int32_t)det_pid_out(c, s.tid);
  /* The kernel writes them before either thread runs on. */
  if (flags & X64_CLONE_PARENT_SETTID) guest_copy_out(c, parent_tid, &tid, sizeof tid);
  if (flags & X64_CLONE_CHILD_SETTID) guest_copy_out(c, child_tid, &tid, sizeof tid);
  return tid;
}

/* The kernel's wake of one waiter on the futex word at addr, as it does at a thread's end;
 * under --deterministic's turns, theirs. */
static void wake_one(Cpu *c, uint64_t addr) {
  if (turns_on(c)) turns_futex_wake(c, addr, 1, FUTEX_BITSET_MATCH_ANY);
  else syscall(SYS_futex, GUEST_PTR(addr), FUTEX_WAKE, 1, NULL, NULL, 0);
}

/* The kernel's handle_futex_death(): a robust mutex's futex word still naming tid gets
 * FUTEX_OWNER_DIED, and one waiter is woken to take it (EOWNERDEAD). */
static void owner_died(Cpu *c, uint64_t word_at, uint32_t tid) {
  uint32_t word;
  /* Written as the kernel does, so only in the guest's writable memory. */
  if (word_at & 3 || guest_prefix(c, word_at, 4, GUEST_PROT_WRITE) != 4 ||
      guest_copy_in(c, &word, word_at, sizeof word) != 0)
    return;
  while ((word & FUTEX_TID_MASK) == tid) {
    uint32_t dead = (word & FUTEX_WAITERS) | FUTEX_OWNER_DIED;
    if (__atomic_compare_exchange_n((uint32_t *)GUEST_PTR(word_at), &word, dead, false,
                                    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
      if (word & FUTEX_WAITERS) wake_one(c, word_at);
      return;
    }
  }
}

/* The kernel's exit_robust_list(): the list set_robust_list registered (struct
 * robust_list_head: the first entry, the futex word's offset from an entry, the entry
 * being locked or unlocked), entries' low bit marking PI mutexes, at most ROBUST_LIST_LIMIT
 * of them, as the kernel walks it; tid: the thread's id as the guest knows it. */
static void release_robust_mutexes(Cpu *c, uint32_t tid) {
  uint64_t head = thread_of(c)->robust_list_head, h[3];
  if (!head || guest_copy_in(c, h, head, sizeof h) != 0) return;
  uint64_t entry = h[0], pending = h[2] & ~1ull;
  int64_t offset = (int64_t)h[1];
  for (unsigned n = 0; (entry & ~1ull) != head && n < 2048; n++) {
    uint64_t at = entry & ~1ull, next;
    if (guest_copy_in(c, &next, at, sizeof next) != 0) break;
    if (at != pending) owner_died(c, at + (uint64_t)offset, tid);
    entry = next;
  }
  if (pending) owner_died(c, pending + (uint64_t)offset, tid);
}

bool threads_exit(Cpu *c) {
  Thread *t = thread_of(c);
  Threads *ts = threads_of(c);
  const uint32_t tid = (uint32_t)det_pid_out(c, gettid()); /* while the thread is listed */
  pthread_mutex_lock(&ts->mutex);
  bool last = ts->n == 1;
  if (!last) {
    forget(ts, t);
    ts->retired += c->icount;
  }
  pthread_mutex_unlock(&ts->mutex);
  if (last) return false;
  release_robust_mutexes(c, tid);
  /* The kernel's mm_release(): a joiner waits on this word (pthread_join). */
  if (t->clear_child_tid) {
    uint32_t zero = 0;
    if (guest_copy_out(c, t->clear_child_tid, &zero, sizeof zero) == 0)
      wake_one(c, t->clear_child_tid);
  }
  signals_thread_detach(c);
  if (turns_on(c)) turns_exit(c);
  else threads_leave(c);
  if (t != &t->proc->main) {
    sem_destroy(&t->turn);
    free(t);
  }
  pthread_exit(NULL); /* the host's main thread too: the process lives on with the others */
}
