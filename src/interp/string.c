/* string.c: MOVS, CMPS, STOS, LODS, SCAS with REP/REPE/REPNE. */
#include <string.h>

#include "access.h"
#include "flags.h"
#include "ops_int.h"

enum { MOVS, CMPS, STOS, LODS, SCAS };

/* One element; returns false when a REPE/REPNE condition ends the repetition. With a 67
 * prefix the addresses are ESI and EDI (the registers are zero-extended afterwards, so a
 * fault leaves them as they were). */
static inline bool string_step(Cpu *c, const Insn *in, int64_t step) {
  unsigned s = in->osz;
  uint64_t si = in->addr32 ? (uint32_t)c->r[RSI] : c->r[RSI];
  uint64_t di = in->addr32 ? (uint32_t)c->r[RDI] : c->r[RDI];
  uint64_t src = si + (in->seg == SEG_FS ? c->fs_base : in->seg == SEG_GS ? c->gs_base : 0);
  switch (in->op) {
  case MOVS:
    st(di, ld(src, s), s);
    c->r[RSI] += step;
    c->r[RDI] += step;
    return true;
  case STOS:
    st(di, c->r[RAX], s);
    c->r[RDI] += step;
    return true;
  case LODS:
    reg_set(c, RAX, ld(src, s), s);
    c->r[RSI] += step;
    return true;
  case CMPS: { /* ES:[RDI] is read first, as on the CPU (it decides which fault comes) */
    uint64_t b = ld(di, s), a = ld(src, s);
    lazy_set(c, LF_SUB, s, a - b, a, b);
    c->r[RSI] += step;
    c->r[RDI] += step;
    return (in->rep == REP_E) == (a == b);
  }
  default: { /* SCAS */
    uint64_t a = reg_get(c, RAX, s), b = ld(di, s);
    lazy_set(c, LF_SUB, s, a - b, a, b);
    c->r[RDI] += step;
    return (in->rep == REP_E) == (a == b);
  }
  }
}

/* Forward REP MOVSB/STOSB over non-overlapping memory in one host call; not in the copy
 * of the handlers that reports accesses, whose hooks see every iteration's. */
static bool string_bulk(Cpu *c, const Insn *in, uint64_t n) {
#ifdef X64EMU_WATCH_MEMORY
  return false;
#endif
  if (in->osz != 1 || in->seg != SEG_NONE || (c->rflags & F_DF)) return false;
  uint64_t d = c->r[RDI];
  /* A run into non-canonical addresses goes an iteration at a time, to fault as the CPU
   * does (an aarch64 host would not: access.h). */
  if (!canonical(d) || !canonical(d + n - 1)) return false;
  before_store(); /* the string in order with what comes before and after it */
  if (in->op == STOS) {
    memset((void *)(uintptr_t)d, (int)(uint8_t)c->r[RAX], n);
  } else if (in->op == MOVS) {
    uint64_t s = c->r[RSI];
    if (d > s && d < s + n) return false; /* overlap replicates a pattern, byte by byte */
    if (!canonical(s) || !canonical(s + n - 1)) return false;
    memmove((void *)(uintptr_t)d, (const void *)(uintptr_t)s, n);
    c->r[RSI] += n;
  } else {
    return false;
  }
  after_load();
  c->r[RDI] += n;
  c->r[RCX] = 0;
  return true;
}

/* With a 67 prefix the CPU advances ESI/EDI and zero-extends them, but only the registers
 * the instruction uses. */
static void truncate_index_regs(Cpu *c, const Insn *in) {
  if (in->op == MOVS || in->op == CMPS || in->op == LODS) c->r[RSI] = (uint32_t)c->r[RSI];
  if (in->op != LODS) c->r[RDI] = (uint32_t)c->r[RDI];
}

/* A4..AF */
void op_string(Cpu *c, const Insn *in) {
  int64_t step = (c->rflags & F_DF) ? -(int64_t)in->osz : (int64_t)in->osz;
  uint64_t n = 1;
  if (in->rep != REP_NONE) {
    /* A 32-bit count is written back as ECX (zero-extended) even when it is 0. A zero
     * count leaves RSI/RDI alone, except that REP MOVS/STOS (the fast-string microcode)
     * still zero-extends them: what the host CPU does. With a count, those two also
     * zero-extend them before the first iteration, even one that faults (REP LODS, CMPS
     * and SCAS, and the instructions without REP, leave them to the iterations). */
    if (in->addr32) c->r[RCX] = (uint32_t)c->r[RCX];
    n = c->r[RCX];
    if (n == 0) {
      if (in->addr32 && (in->op == MOVS || in->op == STOS)) truncate_index_regs(c, in);
      return;
    }
    if (in->addr32 && (in->op == MOVS || in->op == STOS)) truncate_index_regs(c, in);
  }
  /* 32-bit addressing wraps RSI/RDI/RCX at 4 GiB; rare enough to go element-wise. */
  if (in->rep == REP_NONE) {
    string_step(c, in, step);
  } else if (!in->addr32 && !in->rep_once && string_bulk(c, in, n)) {
    c->icount += n - 1; /* each iteration is an instruction; the block counts one */
    return;
  } else {
    /* Each iteration retires as an instruction, counted as it completes (a fault in the
     * next one leaves the count right). Run one at a time (rep_once), the instruction
     * runs again until its count is done. */
    bool repeats = in->op == CMPS || in->op == SCAS, ended = false;
    uint64_t allowed = in->rep_once ? 1 : UINT64_MAX, done = 0;
    while (n && done < allowed) {
      bool go_on = string_step(c, in, step);
      n--;
      c->r[RCX] = n;
      if (in->addr32) truncate_index_regs(c, in); /* as each iteration leaves them */
      c->icount++;
      done++;
      if (repeats && !go_on) {
        ended = true;
        break;
      }
    }
    c->icount--; /* the block counts the instruction once */
    if (n && !ended) c->rip = in->rip;
  }
  if (in->addr32) truncate_index_regs(c, in);
  DISPATCH_NEXT(c, in);
}
