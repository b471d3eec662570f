/* sys_futex.c: futex, which glibc uses for its locks even in a single-threaded process. */
#define _GNU_SOURCE /* gettid */
#include <linux/futex.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "determinism.h"
#include "sys_common.h"
#include "threads.h"
#include "turns.h"
#include "virtual_time.h"

/* What an operation reaches besides its futex word: the timeout (a timespec, read), or,
 * in the same argument, a count; and a second futex word. */
enum { TIMEOUT = 1, WORD2 = 2, WORD2_WRITTEN = 4 };
static unsigned reaches(int cmd) {
  switch (cmd) {
  case FUTEX_WAIT: case FUTEX_WAIT_BITSET: case FUTEX_LOCK_PI: case 13 /* FUTEX_LOCK_PI2 */:
    return TIMEOUT;
  case FUTEX_WAIT_REQUEUE_PI: return TIMEOUT | WORD2 | WORD2_WRITTEN;
  case FUTEX_REQUEUE: case FUTEX_CMP_REQUEUE: return WORD2;
  case FUTEX_WAKE_OP: case FUTEX_CMP_REQUEUE_PI: return WORD2 | WORD2_WRITTEN;
  default: return 0;
  }
}

/* The host's monotonic time ns from now, as a futex's absolute timeout. */
static struct timespec host_deadline(uint64_t ns) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return vt_timespec(vt_ns(&now) + ns);
}

/* A wait's timeout as ns from now on the virtual clock: FUTEX_WAIT's is relative,
 * FUTEX_WAIT_BITSET's absolute, on the monotonic clock or, with FUTEX_CLOCK_REALTIME, the
 * real-time one. False for a timespec the kernel refuses. */
static bool timeout_ns(Cpu *c, int op, const struct timespec *timeout, uint64_t *ns) {
  const bool absolute = (op & ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME)) == FUTEX_WAIT_BITSET;
  if (!vt_valid_timespec(timeout)) return false;
  *ns = vt_ns(timeout);
  if (absolute) {
    uint64_t now = vt_now(c, op & FUTEX_CLOCK_REALTIME ? CLOCK_REALTIME : CLOCK_MONOTONIC);
    *ns = *ns > now ? *ns - now : 0;
  }
  return true;
}

/* FUTEX_WAIT and FUTEX_WAIT_BITSET with a timeout under --deterministic, in a process of
 * one thread (with more, the turns keep futexes): nobody else can wake the waiter, so a
 * look that does not wait (the host's wait with a timeout already over: EAGAIN if the
 * word differs, ETIMEDOUT if not), the time let pass on the virtual clock at once
 * (-EINTR if a timer's handler cuts it short), a second look. -ENOSYS for the host to do
 * it all (a timeout the host refuses). */
static int64_t wait_virtually(Cpu *c, uint32_t *word, const uint64_t *a, const struct timespec *timeout) {
  const int op = (int)a[1];
  uint64_t ns;
  if (!timeout_ns(c, op, timeout, &ns)) return -ENOSYS;
  const struct timespec over = {0, 0};
  int64_t r = host_result(syscall(SYS_futex, word, op, (uint32_t)a[2], &over, NULL, (uint32_t)a[5]));
  if (r != -ETIMEDOUT || ns == 0) return r;
  if ((r = vt_wait_out(c, ns)) != 0) return r;
  return host_result(syscall(SYS_futex, word, op, (uint32_t)a[2], &over, NULL, (uint32_t)a[5]));
}

/* FUTEX_WAKE_OP under the turns: the operation on the second word, a wake on the first,
 * and, if the second word's old value met the comparison, a wake on it (the kernel's
 * futex_atomic_op_inuser and futex_wake_op). */
static int64_t wake_op_in_turns(Cpu *c, const uint64_t *a, uint32_t *word2) {
  const uint32_t e = (uint32_t)a[5];
  int32_t oparg = (int32_t)(e << 8) >> 20, cmparg = (int32_t)(e << 20) >> 20;
  if (e & ((uint32_t)FUTEX_OP_OPARG_SHIFT << 28)) oparg = (int32_t)(1u << (oparg & 31));
  uint32_t old = __atomic_load_n(word2, __ATOMIC_SEQ_CST), new;
  switch ((e >> 28) & 7) {
  case FUTEX_OP_SET: new = (uint32_t)oparg; break;
  case FUTEX_OP_ADD: new = old + (uint32_t)oparg; break;
  case FUTEX_OP_OR: new = old | (uint32_t)oparg; break;
  case FUTEX_OP_ANDN: new = old & ~(uint32_t)oparg; break;
  case FUTEX_OP_XOR: new = old ^ (uint32_t)oparg; break;
  default: return -ENOSYS;
  }
  bool met;
  switch ((e >> 24) & 15) {
  case FUTEX_OP_CMP_EQ: met = (int32_t)old == cmparg; break;
  case FUTEX_OP_CMP_NE: met = (int32_t)old != cmparg; break;
  case FUTEX_OP_CMP_LT: met = (int32_t)old < cmparg; break;
  case FUTEX_OP_CMP_LE: met = (int32_t)old <= cmparg; break;
  case FUTEX_OP_CMP_GT: met = (int32_t)old > cmparg; break;
  case FUTEX_OP_CMP_GE: met = (int32_t)old >= cmparg; break;
  default: return -ENOSYS;
  }
  __atomic_store_n(word2, new, __ATOMIC_SEQ_CST);
  int64_t woken = turns_futex_wake(c, a[0], (uint32_t)a[2], FUTEX_BITSET_MATCH_ANY);
  if (met) woken += turns_futex_wake(c, a[4], (uint32_t)a[3], FUTEX_BITSET_MATCH_ANY);
  return woken;
}

/* The kernel's count of threads to wake: at least one (it checks after waking). */
static uint32_t wake_count(uint64_t val) { return (int32_t)val < 1 ? 1 : (uint32_t)val; }

/* The operations other than priority inheritance's under --deterministic's turns
 * (turns.h), which keep the futexes of a process with several threads. */
static int64_t futex_in_turns(Cpu *c, int cmd, const uint64_t *a, uint32_t *word,
                              const struct timespec *timeout, uint32_t *word2) {
  const bool bitset_op = cmd == FUTEX_WAIT_BITSET || cmd == FUTEX_WAKE_BITSET;
  const uint32_t bitset = bitset_op ? (uint32_t)a[5] : FUTEX_BITSET_MATCH_ANY;
  if (!bitset) return -EINVAL;
  switch (cmd) {
  case FUTEX_WAIT:
  case FUTEX_WAIT_BITSET: {
    uint64_t ns;
    if (timeout && !timeout_ns(c, (int)a[1], timeout, &ns)) return -EINVAL;
    return turns_futex_wait(c, a[0], (uint32_t)a[2], bitset, timeout ? &ns : NULL, true);
  }
  case FUTEX_WAKE:
  case FUTEX_WAKE_BITSET: return turns_futex_wake(c, a[0], wake_count(a[2]), bitset);
  case FUTEX_REQUEUE:
  case FUTEX_CMP_REQUEUE: {
    if ((int32_t)a[2] < 0 || (int32_t)a[3] < 0) return -EINVAL;
    if (cmd == FUTEX_CMP_REQUEUE && __atomic_load_n(word, __ATOMIC_SEQ_CST) != (uint32_t)a[5]) return -EAGAIN;
    uint32_t moved;
    int64_t woken = turns_futex_requeue(c, a[0], (uint32_t)a[2], a[4], (uint32_t)a[3], &moved);
    return cmd == FUTEX_CMP_REQUEUE ? woken + moved : woken;
  }
  case FUTEX_WAKE_OP: return wake_op_in_turns(c, a, word2);
  default: return -ENOSYS;
  }
}

/* The priority-inheritance futexes under --deterministic, where a futex word holds the
 * owner's thread id as the guest knows it (determinism.h), which the host kernel cannot
 * look up: kept here as plain futexes with the kernel's word protocol (the owner's id,
 * FUTEX_WAITERS, FUTEX_OWNER_DIED kept by a new owner), without priority inheritance,
 * which an emulator whose threads take turns has no use for. A new owner keeps
 * FUTEX_WAITERS set, since others may still wait: its unlock then comes here and wakes
 * one; with the turns on, their futexes. timeout_ns: how long a lock may wait, NULL for
 * ever. */
static int64_t lock_pi(Cpu *c, uint32_t *word, int op, bool try, const uint64_t *timeout_ns) {
  const uint32_t tid = (uint32_t)det_pid_out(c, gettid());
  const int wait_op = FUTEX_WAIT_BITSET | (op & FUTEX_PRIVATE_FLAG);
  const bool turns = turns_on(c);
  struct timespec deadline;
  if (timeout_ns && !turns) deadline = host_deadline(*timeout_ns);
  for (;;) {
    uint32_t v = __atomic_load_n(word, __ATOMIC_SEQ_CST);
    if (!(v & FUTEX_TID_MASK)) {
      uint32_t mine = tid | (v & FUTEX_OWNER_DIED) | FUTEX_WAITERS;
      if (__atomic_compare_exchange_n(word, &v, mine, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        return 0;
      continue;
    }
    if ((v & FUTEX_TID_MASK) == tid) return -EDEADLK;
    if (try) return -EWOULDBLOCK;
    if (!(v & FUTEX_WAITERS) &&
        !__atomic_compare_exchange_n(word, &v, v | FUTEX_WAITERS, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
      continue;
    /* Under the turns, each wait has the whole timeout: it is cut short only by the
     * wakes of unlocks another thread took over first. */
    int64_t r = turns ? turns_futex_wait(c, (uint64_t)(uintptr_t)word, v | FUTEX_WAITERS,
                                         FUTEX_BITSET_MATCH_ANY, timeout_ns, false)
                      : host_result(syscall(SYS_futex, word, wait_op, v | FUTEX_WAITERS,
                                            timeout_ns ? &deadline : NULL, NULL, FUTEX_BITSET_MATCH_ANY));
    if (r == -ETIMEDOUT) return r; /* a signal's EINTR restarts the lock, as the kernel's does */
  }
}

static int64_t unlock_pi(Cpu *c, uint32_t *word, int op) {
  const uint32_t tid = (uint32_t)det_pid_out(c, gettid());
  uint32_t v = __atomic_load_n(word, __ATOMIC_SEQ_CST);
  do
    if ((v & FUTEX_TID_MASK) != tid) return -EPERM;
  while (!__atomic_compare_exchange_n(word, &v, 0, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
  if (!(v & FUTEX_WAITERS)) return 0;
  if (turns_on(c)) turns_futex_wake(c, (uint64_t)(uintptr_t)word, 1, FUTEX_BITSET_MATCH_ANY);
  else syscall(SYS_futex, word, FUTEX_WAKE | (op & FUTEX_PRIVATE_FLAG), 1, NULL, NULL, 0);
  return 0;
}

static int64_t pi_virtually(Cpu *c, int cmd, uint32_t *word, const uint64_t *a, const struct timespec *timeout) {
  const int op = (int)a[1];
  if (cmd == FUTEX_UNLOCK_PI) return unlock_pi(c, word, op);
  if (cmd == FUTEX_WAIT_REQUEUE_PI || cmd == FUTEX_CMP_REQUEUE_PI) return -ENOSYS; /* unused by C libraries */
  uint64_t ns = 0;
  if (timeout) { /* LOCK_PI's is on the real-time clock, LOCK_PI2's on the one op names */
    if (!vt_valid_timespec(timeout)) return -EINVAL;
    bool realtime = cmd == FUTEX_LOCK_PI || (op & FUTEX_CLOCK_REALTIME);
    uint64_t at = vt_ns(timeout), now = vt_now(c, realtime ? CLOCK_REALTIME : CLOCK_MONOTONIC);
    ns = at > now ? at - now : 0;
  }
  return lock_pi(c, word, op, cmd == FUTEX_TRYLOCK_PI, timeout ? &ns : NULL);
}

/* Futex words are guest memory, which is host memory, and the operations, flags and the
 * timespec layout are the same on every 64-bit Linux: the host kernel does the work, on
 * words found in the guest's memory (a wake reads none: the kernel only hashes its
 * address) and a timeout found there. */
int64_t sys_futex(Cpu *c, const uint64_t *a) {
  const int cmd = (int)a[1] & ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME);
  const unsigned what = reaches(cmd);
  const int rw = GUEST_PROT_READ | GUEST_PROT_WRITE;
  const bool word_written = cmd == FUTEX_LOCK_PI || cmd == 13 || cmd == FUTEX_UNLOCK_PI ||
                            cmd == FUTEX_TRYLOCK_PI || cmd == FUTEX_CMP_REQUEUE_PI;
  void *word = GUEST_PTR(a[0]), *timeout = GUEST_PTR(a[3]), *word2 = GUEST_PTR(a[4]);
  /* What is not the guest's goes to the host kernel refused, which faults on it after its
   * own checks (an unknown operation's ENOSYS, a zero bitset's EINVAL); x64emu's own
   * futex work (--deterministic, the turns) needs it all. */
  bool ours = true;
  if (cmd != FUTEX_WAKE && cmd != FUTEX_WAKE_BITSET)
    ours &= guest_area(c, a[0], 4, word_written ? rw : GUEST_PROT_READ, &word) && a[0];
  if (what & TIMEOUT) ours &= guest_area(c, a[3], 16, GUEST_PROT_READ, &timeout);
  if (what & WORD2)
    ours &= guest_area(c, a[4], 4, what & WORD2_WRITTEN ? rw : GUEST_PROT_READ, &word2) && a[4];
  if (!ours && (det_on(c) || turns_on(c))) return -EFAULT;
  if (det_on(c) && (cmd == FUTEX_LOCK_PI || cmd == 13 || cmd == FUTEX_TRYLOCK_PI || cmd == FUTEX_UNLOCK_PI ||
                    cmd == FUTEX_WAIT_REQUEUE_PI || cmd == FUTEX_CMP_REQUEUE_PI))
    return pi_virtually(c, cmd, word, a, (what & TIMEOUT) ? timeout : NULL);
  if (turns_on(c)) return futex_in_turns(c, cmd, a, word, timeout, word2);
  if ((cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET) && timeout && det_on(c)) {
    int64_t r = wait_virtually(c, word, a, timeout);
    if (r != -ENOSYS) return r;
  }
  return host_result(syscall(SYS_futex, word, (int)a[1], (uint32_t)a[2], timeout, word2,
                             (uint32_t)a[5]));
}

/* futex_waitv(waiters, n, flags, timeout, clockid): a wait on up to 128 futexes at once
 * (Wine's). Each struct futex_waitv (val, uaddr, flags, reserved) names a word, which
 * must be the guest's: the array is copied and a word that is not the guest's is given
 * the kernel refused (EFAULT where it reads it), so that no guest thread can change an
 * address after the check. --deterministic's futexes are the turns', which do not wait
 * on several: there it is ENOSYS, as a kernel without it answers. */
enum { WAITV_MAX = 128 };
typedef struct FutexWaitv {
  uint64_t val, uaddr;
  uint32_t flags, reserved;
} FutexWaitv;

int64_t sys_futex_waitv(Cpu *c, const uint64_t *a) {
  if (det_on(c) || turns_on(c)) return -ENOSYS;
  FutexWaitv w[WAITV_MAX];
  void *timeout, *given = w;
  guest_area(c, a[3], 16, GUEST_PROT_READ, &timeout);
  if (!a[0] || a[1] == 0 || a[1] > WAITV_MAX || guest_copy_in(c, w, a[0], a[1] * sizeof *w) < 0)
    given = a[0] ? refused_by_kernel(a[0]) : NULL; /* the kernel's EINVAL, or EFAULT */
  else
    for (uint64_t i = 0; i < a[1]; i++) {
      void *word;
      guest_area(c, w[i].uaddr, 4, GUEST_PROT_READ, &word);
      w[i].uaddr = (uint64_t)(uintptr_t)word;
    }
  return host_result(syscall(SYS_futex_waitv, given, (unsigned)a[1], (unsigned)a[2], timeout,
                             (int)a[4]));
}

/* membarrier(cmd, flags, cpu_id): the guest's threads are host threads, and a barrier the
 * host runs on each orders the guest memory accesses it emulates as well. The commands
 * that restart rseq critical sections are those of a kernel without rseq, as the guest's
 * rseq is ENOSYS: not offered by QUERY, EINVAL if given (tcmalloc trusts QUERY and then
 * complains that rseq failed). */
enum { MEMBARRIER_RSEQ_CMDS = 1 << 7 | 1 << 8 }; /* PRIVATE_EXPEDITED_RSEQ and its REGISTER */

int64_t sys_membarrier(Cpu *c, const uint64_t *a) {
  int cmd = (int)a[0];
  if (cmd & MEMBARRIER_RSEQ_CMDS) return -EINVAL;
  int64_t r = host_result(syscall(SYS_membarrier, cmd, (unsigned)a[1], (int)a[2]));
  return cmd == 0 && r > 0 ? r & ~MEMBARRIER_RSEQ_CMDS : r;
}
