/* turns.h: --deterministic's schedule of a process's threads. The threads take turns at
 * running guest code (threads.h), and with --deterministic which thread runs when is
 * decided by instruction counts and by what the threads do, never by the host's timing:
 *
 * - A turn lasts TURN_INSNS instructions. It ends sooner when the thread waits on a futex,
 *   yields (sched_yield, a PAUSE while another thread is ready, a sleep) or ends. The next
 *   turn is the next ready thread's in the order the threads were made, round and round.
 * - Futexes are kept here, not by the host kernel: a wait takes the thread out of the
 *   round, a wake puts waiters back (in the order they began waiting), so that a mutex,
 *   a condition variable or pthread_join hands over at the same instruction every run.
 *   A wait's timeout is on the process's clock, the instructions all its threads ran:
 *   when every thread waits, that clock moves on to the first timeout at once.
 * - A system call that may block (a read, a write, a poll...) keeps the turn, so that
 *   output does not change the schedule; only one that has gone on for GRACE_MS of the
 *   host's time and sleeps in the host's kernel hands it on, and where its thread then
 *   comes back in depends on the host (input, a pipe another thread of the process
 *   writes, a child's exit), as does a signal from outside the process. One that a
 *   thread sends another (tgkill, a timer's) does not: a futex wait it interrupts ends
 *   at once, and a host call it ends (pause, sigsuspend, a sigtimedwait for it) is
 *   waited for until its thread is ready again (turns_signal_sent).
 *
 * Futex words shared with another process (MAP_SHARED) are not seen by that process's
 * wakes while this one has several threads. Without --deterministic none of this runs. */
#ifndef X64EMU_TURNS_H
#define X64EMU_TURNS_H

#include <stdbool.h>
#include <stdint.h>

#include "../interp/cpu.h"

enum { TURN_INSNS = 1000000, GRACE_MS = 20 };

/* Whether c's process schedules its threads so: --deterministic, and more than one. */
bool turns_on(const Cpu *c);

/* At c's process's first clone under --deterministic: from now on its threads take
 * turns so, beginning with c's. */
void turns_begin(Cpu *c);

/* The instruction count at which c's turn ends (UINT64_MAX when turns are off). */
uint64_t turns_end_at(const Cpu *c);

/* threads_enter and threads_leave with turns on: before a system call that may block,
 * and after it, or when a new thread starts. */
void turns_enter(Cpu *c);
void turns_leave(Cpu *c);

/* The turn goes to the next ready thread, if there is one (its turn ran out, a yield). */
void turns_yield(Cpu *c);

/* c's thread ends (already out of the process's list of threads): the next turn. */
void turns_exit(Cpu *c);

/* Futex operations on the word at addr (the guest's, checked). A wait (FUTEX_WAIT's: the
 * word still val; bitset for FUTEX_WAIT_BITSET, else all ones; timeout_ns NULL for none)
 * returns 0 when woken, -EAGAIN, -ETIMEDOUT, or, when interruptible, -EINTR for a signal
 * whose handler is due. A wake wakes up to n of the threads waiting on addr whose bitset
 * meets bitset, the first to wait first, and returns how many; a requeue wakes up to n
 * and moves up to n2 more to addr2 (*moved). */
int64_t turns_futex_wait(Cpu *c, uint64_t addr, uint32_t val, uint32_t bitset,
                         const uint64_t *timeout_ns, bool interruptible);
int64_t turns_futex_wake(Cpu *c, uint64_t addr, uint32_t n, uint32_t bitset);
int64_t turns_futex_requeue(Cpu *c, uint64_t addr, uint32_t n, uint64_t addr2, uint32_t n2,
                            uint32_t *moved);

/* tgkill and the like sent sig to the thread whose host id is tid: if that thread waits
 * on a futex and the signal's handler is to run, the wait ends now (-EINTR); if it is
 * away in a host call that the signal ends, the sender waits for it to come back (a
 * second at most); so that it is ready at the same point of the sender's run every time. */
void turns_signal_sent(Cpu *c, int32_t tid, int sig);

#endif
