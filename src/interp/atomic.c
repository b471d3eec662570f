/* atomic.c: the instructions x86 makes atomic (LOCK-prefixed read-modify-writes, and
 * XCHG with memory), atomic with respect to the guest's other threads on host threads.
 *
 * The decoder puts an op_atomic record before such an instruction (block.c), with the
 * operand's size in aux (CMPXCHG8B/16B: twice osz). It reads the
 * memory operand once, runs the instruction's own handler on a private copy of it, and
 * stores the result with a host compare-and-swap against the value it read. If another
 * thread changed the memory in between, the registers and flags go back to what they
 * were and the instruction runs again on the new value: every lockable form (ALU ops,
 * INC/DEC/NOT/NEG, BTS/BTR/BTC, XADD, XCHG, CMPXCHG, CMPXCHG8B/16B) is atomic with one
 * mechanism, and its handler stays the one the single-threaded run uses. A failed
 * CMPXCHG writes the value it read back, as the locked CPU does.
 *
 * A misaligned operand (which x86 still locks, as a "split lock") takes one process-wide
 * mutex instead: atomic with respect to the other misaligned atomics, as a host without
 * misaligned compare-and-swap (aarch64) allows. */
#include <pthread.h>
#include <string.h>

#include "access.h"
#include "ops_int.h"
#include "run.h"

/* Where the operand is: BTS/BTR/BTC with a register bit offset (in->op, ATOMIC_BIT_OFFSET)
 * address the word the offset falls in (bits.c), which may lie outside the addressed one. */
static int64_t bit_offset_bytes(const Cpu *c, const Insn *in, const Insn *op) {
  if (in->op != ATOMIC_BIT_OFFSET) return 0;
  unsigned s = op->osz;
  int64_t soff = (int64_t)sign_extend(reg_get(c, op->reg, s), s);
  return (soff >> (s == 8 ? 6 : s == 4 ? 5 : 4)) * (int64_t)s;
}

static bool swap_in(uint64_t a, const void *expected, const void *desired, unsigned size) {
  switch (size) {
  case 1: {
    uint8_t e = *(const uint8_t *)expected;
    return __atomic_compare_exchange_n((uint8_t *)(uintptr_t)a, &e, *(const uint8_t *)desired,
                                       false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  }
  case 2: {
    uint16_t e, d;
    memcpy(&e, expected, 2);
    memcpy(&d, desired, 2);
    return __atomic_compare_exchange_n((uint16_t *)(uintptr_t)a, &e, d, false, __ATOMIC_SEQ_CST,
                                       __ATOMIC_SEQ_CST);
  }
  case 4: {
    uint32_t e, d;
    memcpy(&e, expected, 4);
    memcpy(&d, desired, 4);
    return __atomic_compare_exchange_n((uint32_t *)(uintptr_t)a, &e, d, false, __ATOMIC_SEQ_CST,
                                       __ATOMIC_SEQ_CST);
  }
  case 8: {
    uint64_t e, d;
    memcpy(&e, expected, 8);
    memcpy(&d, desired, 8);
    return __atomic_compare_exchange_n((uint64_t *)(uintptr_t)a, &e, d, false, __ATOMIC_SEQ_CST,
                                       __ATOMIC_SEQ_CST);
  }
  default: {
    unsigned __int128 e, d;
    memcpy(&e, expected, 16);
    memcpy(&d, desired, 16);
    return __sync_bool_compare_and_swap((unsigned __int128 *)(uintptr_t)a, e, d);
  }
  }
}

/* What the instruction may change besides memory, kept to run it again. */
typedef struct Undo {
  uint64_t r[16], rflags;
  LazyFlags lf;
} Undo;

static pthread_mutex_t split_lock = PTHREAD_MUTEX_INITIALIZER;

void op_atomic(Cpu *c, const Insn *in) {
  const Insn *op = in + 1;
  unsigned size = in->aux;
  int64_t offset = bit_offset_bytes(c, in, op);
  uint64_t a = ea(c, op) + (uint64_t)offset;
  if (size == 16 && (a & 15)) guest_gp(c, 0); /* CMPXCHG16B's alignment */
  ALIGNED(a, size);
  _Alignas(16) uint8_t now[16], copy[16];
  /* The handler, on the copy: its operand is the copy, less the bit offset it adds. */
  Insn run = *op;
  run.chain = 0;
  run.disp = (int64_t)(uintptr_t)copy - offset;
  run.base = run.index = REG_NONE;
  run.seg = SEG_NONE;
  run.addr32 = 0;
  bool misaligned = (a & (size - 1)) != 0;
  if (misaligned) { /* fault, if it must, before the mutex is taken */
    probe_write8(a);
    probe_write8(a + size - 1);
    pthread_mutex_lock(&split_lock);
  }
  Undo undo;
  memcpy(undo.r, c->r, sizeof undo.r);
  undo.rflags = c->rflags;
  undo.lf = c->lf;
  for (;;) {
    memcpy(now, (const void *)(uintptr_t)a, size);
    WATCHED(a, size, now, false);
    memcpy(copy, now, size);
    run.fn(c, &run); /* c->cur stays this record: same address, same place in the block */
    if (misaligned) {
      memcpy((void *)(uintptr_t)a, copy, size);
      pthread_mutex_unlock(&split_lock);
      break;
    }
    if (swap_in(a, now, copy, size)) break;
    memcpy(c->r, undo.r, sizeof undo.r);
    c->rflags = undo.rflags;
    c->lf = undo.lf;
  }
  WATCHED(a, size, copy, true);
  c->cur = op;
  DISPATCH_NEXT(c, op);
}
