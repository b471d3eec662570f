/* atomic.c: the instructions x86 makes atomic (LOCK-prefixed read-modify-writes, and
 * XCHG with memory), atomic with respect to the guest's other threads on host threads.
 *
 * The decoder puts an op_atomic record before such an instruction (block.c), which says
 * how (ops_int.h). Either way the instruction's own handler, the one single-threaded runs
 * use, computes its result, flags and registers, on a private copy of its memory operand:
 * - ADD, SUB, AND, OR, XOR, INC, DEC, NOT, XADD, XCHG and CMPXCHG are the host's atomic
 *   operation on the guest's memory (fetch-and-add, exchange, compare-and-swap...); the
 *   handler then runs on the value it found, which gives the same result;
 * - the others (ADC, SBB, NEG, BTS/BTR/BTC, CMPXCHG8B/16B) read the operand, run the
 *   handler on the copy, and store the result with a host compare-and-swap against the
 *   value read; if another thread changed the memory in between, the registers and flags
 *   go back to what they were and the instruction runs again on the new value.
 * A failed CMPXCHG writes the value it read back, as the locked CPU does.
 *
 * A misaligned operand (which x86 still locks, as a "split lock") takes one process-wide
 * mutex instead (split_lock.h): atomic with respect to the other misaligned atomics, as
 * a host without misaligned atomics (aarch64) allows. */
#include <string.h>

#include "access.h"
#include "ops_int.h"
#include "run.h"
#include "split_lock.h"

/* Where the operand is: BTS/BTR/BTC with a register bit offset (in->op, ATOMIC_BIT_OFFSET)
 * address the word the offset falls in (bits.c), which may lie outside the addressed one. */
static int64_t bit_offset_bytes(const Cpu *c, const Insn *in, const Insn *op) {
  return in->op == ATOMIC_BIT_OFFSET ? bit_string_word(bit_string_offset(c, op), op->osz) : 0;
}

/* The host's compare-and-swap of the operand at p: the value it held (desired is there
 * now if that was expected). */
#define COMPARE(type)                                                                    \
  static type compare_##type(type *p, type expected, type desired) {                     \
    __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_SEQ_CST,          \
                                __ATOMIC_SEQ_CST);                                       \
    return expected;                                                                     \
  }
COMPARE(uint8_t)
COMPARE(uint16_t)
COMPARE(uint32_t)
COMPARE(uint64_t)
#undef COMPARE

/* Whether the operand at a held `expected` (size bytes), now replaced by `desired`. */
static bool swap_in(uint64_t a, const void *expected, const void *desired, unsigned size) {
  void *p = (void *)(uintptr_t)a;
  uint64_t e = 0, d = 0;
  if (size == 16) {
    unsigned __int128 e16, d16;
    memcpy(&e16, expected, 16);
    memcpy(&d16, desired, 16);
    return __sync_bool_compare_and_swap((unsigned __int128 *)p, e16, d16);
  }
  memcpy(&e, expected, size); /* little-endian, as the guest */
  memcpy(&d, desired, size);
  switch (size) {
  case 1: return compare_uint8_t(p, (uint8_t)e, (uint8_t)d) == (uint8_t)e;
  case 2: return compare_uint16_t(p, (uint16_t)e, (uint16_t)d) == (uint16_t)e;
  case 4: return compare_uint32_t(p, (uint32_t)e, (uint32_t)d) == (uint32_t)e;
  default: return compare_uint64_t(p, e, d) == e;
  }
}

/* Reads the aligned operand at a into `to`, once: the handler runs on a copy of what was
 * read, and the compare-and-swap checks that same value. (A plain memcpy is not one read:
 * a compiler may read the guest's memory again for the copy, and another thread may have
 * changed it in between; then the handler's result and flags come from a value the swap
 * does not check, and a lock taken by BTS is taken twice.) A 16-byte operand is read as two
 * halves: a pair torn by another thread's write only makes the swap fail. */
static void read_once(void *to, uint64_t a, unsigned size) {
  void *p = (void *)(uintptr_t)a;
  uint64_t v[2];
  switch (size) {
  case 1: v[0] = __atomic_load_n((uint8_t *)p, __ATOMIC_RELAXED); break;
  case 2: v[0] = __atomic_load_n((uint16_t *)p, __ATOMIC_RELAXED); break;
  case 4: v[0] = __atomic_load_n((uint32_t *)p, __ATOMIC_RELAXED); break;
  case 8: v[0] = __atomic_load_n((uint64_t *)p, __ATOMIC_RELAXED); break;
  default:
    v[0] = __atomic_load_n((uint64_t *)p, __ATOMIC_RELAXED);
    v[1] = __atomic_load_n((uint64_t *)p + 1, __ATOMIC_RELAXED);
  }
  memcpy(to, v, size); /* the host is little-endian, as the guest */
}

#ifndef X64EMU_WATCH_MEMORY
/* The host's atomic operation `kind` of the operand at a with v: the value it held. */
#define FETCH_OP(type)                                                                   \
  static uint64_t fetch_op_##type(type *p, int kind, type v) {                           \
    switch (kind) {                                                                      \
    case ATOMIC_FETCH_ADD: return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);            \
    case ATOMIC_FETCH_SUB: return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST);            \
    case ATOMIC_FETCH_AND: return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST);            \
    case ATOMIC_FETCH_OR: return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);              \
    case ATOMIC_FETCH_XOR: return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST);            \
    default: return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);                         \
    }                                                                                    \
  }
FETCH_OP(uint8_t)
FETCH_OP(uint16_t)
FETCH_OP(uint32_t)
FETCH_OP(uint64_t)
#undef FETCH_OP

static uint64_t host_atomic(const Cpu *c, const Insn *in, const Insn *op, uint64_t a) {
  unsigned size = in->aux;
  uint64_t v = in->rm ? reg_get(c, op->reg, size) : in->imm;
  uint64_t acc = reg_get(c, RAX, size);
  void *p = (void *)(uintptr_t)a;
  bool compare = in->op == ATOMIC_COMPARE;
  switch (size) {
  case 1: return compare ? compare_uint8_t(p, (uint8_t)acc, (uint8_t)v) : fetch_op_uint8_t(p, in->op, (uint8_t)v);
  case 2: return compare ? compare_uint16_t(p, (uint16_t)acc, (uint16_t)v) : fetch_op_uint16_t(p, in->op, (uint16_t)v);
  case 4: return compare ? compare_uint32_t(p, (uint32_t)acc, (uint32_t)v) : fetch_op_uint32_t(p, in->op, (uint32_t)v);
  default: return compare ? compare_uint64_t(p, acc, v) : fetch_op_uint64_t(p, in->op, v);
  }
}
#endif

/* What the instruction may change besides memory, kept to run it again. */
typedef struct Undo {
  uint64_t r[16], rflags;
  LazyFlags lf;
} Undo;

/* Runs the instruction's record on the copy (run, its end record after it); c->cur stays
 * the atomic record: same address, same place in the block. */
static void run_copy(Cpu *c, const Insn *run) {
  const Insn *cur = c->cur;
  run->fn(c, run);
  c->cur = cur;
}

void op_atomic(Cpu *c, const Insn *in) {
  const Insn *op = in + 1;
  unsigned size = in->aux;
  int64_t offset = bit_offset_bytes(c, in, op);
  uint64_t a = ea_plus(c, op, offset);
  if (size == 16 && (a & 15)) guest_gp(c, 0); /* CMPXCHG16B's alignment, before the address */
  HOST_ADDR_CHECK(a); /* the host atomics below take the address as it is */
  ALIGNED(a, size);
  _Alignas(16) uint8_t now[16], copy[16];
  /* The handler, on the copy: its operand is the copy, less the bit offset it adds. */
  Insn run[2] = {*op, insn_end(insn_next(op), op->nth + 1u)};
  run[0].disp = (int64_t)(uintptr_t)copy - offset;
  run[0].base = run[0].index = REG_NONE;
  run[0].seg = SEG_NONE;
  run[0].addr32 = 0;
  bool misaligned = (a & (size - 1)) != 0;
#ifndef X64EMU_WATCH_MEMORY /* a memory hook sees the read before the write: the CAS way */
  if (in->op >= ATOMIC_FETCH_ADD && !misaligned) {
    uint64_t old = host_atomic(c, in, op, a);
    memcpy(copy, &old, size); /* the host is little-endian too */
    run_copy(c, run); /* what the operation stored, and the flags and registers from it */
    c->cur = op;
    DISPATCH_NEXT(c, op);
    return;
  }
#endif
  if (misaligned) { /* fault, if it must, before the mutex is taken, where the CPU's
                       store does */
    probe_write_span(a, size);
    split_lock_take(c);
  }
  Undo undo;
  memcpy(undo.r, c->r, sizeof undo.r);
  undo.rflags = c->rflags;
  undo.lf = c->lf;
  for (;;) {
    if (misaligned) memcpy(now, (const void *)(uintptr_t)a, size); /* under the mutex */
    else read_once(now, a, size);
    WATCHED(a, size, now, false);
    memcpy(copy, now, size);
    run_copy(c, run);
    if (misaligned) {
      memcpy((void *)(uintptr_t)a, copy, size);
      split_lock_give(c);
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
