/* sys_futex.c: futex, which glibc uses for its locks even in a single-threaded process. */
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sys_common.h"

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
  if (cmd != FUTEX_WAKE && cmd != FUTEX_WAKE_BITSET &&
      (!a[0] || !guest_area(c, a[0], 4, word_written ? rw : GUEST_PROT_READ, &word)))
    return -EFAULT;
  if ((what & TIMEOUT) && !guest_area(c, a[3], 16, GUEST_PROT_READ, &timeout)) return -EFAULT;
  if ((what & WORD2) &&
      (!a[4] || !guest_area(c, a[4], 4, what & WORD2_WRITTEN ? rw : GUEST_PROT_READ, &word2)))
    return -EFAULT;
  return host_result(syscall(SYS_futex, word, (int)a[1], (uint32_t)a[2], timeout, word2,
                             (uint32_t)a[5]));
}
