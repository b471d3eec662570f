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

/* Forward REP MOVS and STOS by parts, each within one page of the destination (and of
 * the source) and done in one host call (memset, memmove, or a fill of wider elements).
 * A part's first element is touched first as the CPU touches it (the source read, then
 * the destination written), so that a fault, which can only come there, is the CPU's;
 * the registers and the count are brought up to date after each part, so that it finds
 * them as the CPU leaves them. Returns the elements done, 0 when the next one must go
 * alone: it straddles a page, or the copy overlaps ahead of itself (a pattern replicated
 * element by element), or the addresses are not canonical. Not in the copy of the
 * handlers that reports accesses, whose hooks see every iteration's. */
static uint64_t string_part(Cpu *c, const Insn *in, uint64_t n) {
#ifdef X64EMU_WATCH_MEMORY
  return 0;
#endif
  enum { PAGE = 4096 };
  unsigned size = in->osz;
  uint64_t d = c->r[RDI], src = c->r[RSI], k = n;
  if (k > (PAGE - (d & (PAGE - 1))) / size) k = (PAGE - (d & (PAGE - 1))) / size;
  if (in->op == MOVS && k > (PAGE - (src & (PAGE - 1))) / size)
    k = (PAGE - (src & (PAGE - 1))) / size;
  uint64_t bytes = k * size;
  /* Within a page, an address is canonical where the page's first one is. */
  if (!k || !canonical(d)) return 0;
  if (in->op == MOVS && (!canonical(src) || (d > src && d < src + bytes))) return 0;
  if (in->op == MOVS) (void)probe8(src);
  probe_write8(d);
  before_store(); /* the string in order with what comes before and after it */
  if (in->op == MOVS) {
    memmove((void *)(uintptr_t)d, (const void *)(uintptr_t)src, bytes);
    c->r[RSI] += bytes;
  } else {
    uint64_t ones = 0x0101010101010101ull >> (64 - 8 * size); /* 01 in each byte */
    uint64_t v = c->r[RAX] & ones * 0xFF;
    if (v == (uint8_t)v * ones) {
      memset((void *)(uintptr_t)d, (int)(uint8_t)v, bytes);
    } else {
      for (uint64_t i = 0; i < k; i++) memcpy((void *)(uintptr_t)(d + i * size), &v, size);
    }
  }
  after_load();
  c->r[RDI] += bytes;
  c->r[RCX] = n - k;
  c->icount += k;
  return k;
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
  } else {
    /* Each iteration retires as an instruction, counted as it completes (a fault in the
     * next one leaves the count right). Run one at a time (rep_once), the instruction
     * runs again until its count is done. Forward MOVS and STOS go by parts. */
    bool repeats = in->op == CMPS || in->op == SCAS, ended = false;
    bool parts = (in->op == MOVS || in->op == STOS) && !in->addr32 && !in->rep_once &&
                 in->seg == SEG_NONE && step > 0;
    uint64_t allowed = in->rep_once ? 1 : UINT64_MAX, done = 0;
    while (n && done < allowed) {
      uint64_t k = parts ? string_part(c, in, n) : 0;
      if (k) {
        n -= k;
        continue;
      }
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
