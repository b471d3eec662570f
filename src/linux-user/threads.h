/* threads.h: guest threads. Each guest thread is a Thread of its process with a host
 * thread of its own. A thread holds the process's run lock while it performs a system call
 * or handles a signal, and gives it up while the call may block (a read, a futex wait, a
 * sleep...). Guest code runs one of two ways:
 *
 * - In parallel (the default, from the first clone): the run lock is the machine's lock
 *   (machine.h), which cpu_run gives up while guest code runs, so the threads run guest
 *   code at once, as on the CPU. The guest's atomic instructions are host atomics
 *   (atomic.c); the decoded-code cache is read without the lock and changed under it,
 *   and a thread that flushes it first brings the others out of it (EV_SYNC).
 * - Taking turns (Options.serial_threads: --serial-threads, --deterministic and the tools
 *   that see or stop one thread at a time): the run lock, handed on in the order it was
 *   asked for, is also held while a thread runs guest code, and given up every few
 *   milliseconds when another thread is waiting (EV_YIELD) or at a PAUSE. Under
 *   --deterministic, once a second thread is made, turns.h decides instead, by
 *   instruction counts. */
#ifndef X64EMU_THREADS_H
#define X64EMU_THREADS_H

#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdint.h>

#include "../interp/cpu.h"

struct Thread;

typedef struct Threads {
  pthread_mutex_t mutex; /* guards what follows */
  Cpu *holder;           /* the run lock's, or NULL */
  struct Thread *first, *last; /* the threads waiting for it, in order (Thread.queued) */
  struct Thread **all; /* the live threads, the process's first among them */
  unsigned n, room;
  uint64_t retired;    /* the instructions of the threads that ended */
  unsigned made;       /* the threads made (Thread.nth) */
  bool parallel;       /* the threads run guest code in parallel (threads.c) */
  /* --deterministic's turns (turns.h): on once a second thread is made; the process's
   * clock (the instructions its threads ran in turns, and the time it let pass with all
   * of them waiting); the futex waits begun, to wake waiters in order. */
  bool turns;
  uint64_t clock, waits;
} Threads;

/* The process's threads: the one it starts with, holding the run lock. */
void threads_init(Cpu *main);

/* Takes the run lock for c, waiting for the threads that asked before; asks the holder to
 * give it up when it keeps it long. */
void threads_enter(Cpu *c);

/* Gives the run lock up. */
void threads_leave(Cpu *c);

/* Gives the run lock to the threads waiting for it, and takes it again after them
 * (another thread asked: EV_YIELD; sched_yield). */
void threads_yield(Cpu *c);

/* clone with CLONE_THREAD: a new thread of c's process starting as a copy of c with RAX
 * 0, on stack (when not 0) and with FS base tls (CLONE_SETTLS); its id, or -errno. */
int64_t threads_clone(Cpu *c, uint64_t flags, uint64_t stack, uint64_t parent_tid,
                      uint64_t child_tid, uint64_t tls);

/* exit: ends c's thread as the kernel does (CLONE_CHILD_CLEARTID's store and futex
 * wake). False when it is the last one: the process then ends with its status. */
bool threads_exit(Cpu *c);

/* How many threads the process has, and the instructions all of them ran. */
unsigned threads_count(Cpu *c);
uint64_t threads_instructions(Cpu *c);

/* The live threads' ids: the host's id of the nth thread made (-1 if it has ended), and
 * which one the host's id `tid` is (-1 if none); how many threads have been made. */
int32_t threads_host_tid(const Cpu *c, unsigned nth);
unsigned threads_made(const Cpu *c);
int64_t threads_nth(const Cpu *c, int32_t tid);

/* The host's id of the first live thread, in the order they were made, whose guest mask
 * does not block sig; -1 if all block it. */
int32_t threads_not_blocking(const Cpu *c, int sig);

/* Frees the list of the process's threads, once the process is ended (process_destroy). */
void threads_destroy(Threads *ts);

/* fork: the child has one thread, the one that forked, holding the run lock. */
void threads_forked_child(Cpu *c);

#endif
