/* mmx.h: how MMX handlers reach their registers, and the MMX forms made from SSE bodies.
 *
 * MM0..MM7 are the significands of the physical x87 registers (cpu.h's X87). Every MMX
 * instruction but EMMS first takes the x87 unit into the MMX state: a pending unmasked
 * x87 exception faults (#MF), TOP becomes 0 and every register is tagged valid. A write
 * to MMi also sets the sign and exponent of physical register i to all ones. REX.R and
 * REX.B do not extend MMX register numbers. */
#ifndef X64EMU_MMX_H
#define X64EMU_MMX_H

#include "access.h"
#include "x87_state.h"

/* #MF alone: EMMS, and loads, which take the unit to the MMX state only once their
 * memory operand is read (a fault leaves it as it was, as on the CPU). */
static inline void mmx_check(Cpu *c) {
  if (__builtin_expect(c->fpu.sw & X87_ES, 0)) x87_fault(c);
}
/* The check, then the transition to the MMX state, after the memory access of loads and
 * stores (a store that faults has set TOP to 0 but not yet the tags: mmx_store_begin, as
 * on the CPU). */
static inline void mmx_begin(Cpu *c) {
  X87 *f = &c->fpu;
  mmx_check(c);
  if (__builtin_expect(f->raw != 0xFF, 0)) x87_make_raw(f);
  f->top = 0;
  f->tag = 0;
}
/* Before the access of a store. */
static inline void mmx_store_begin(Cpu *c) {
  mmx_check(c);
  c->fpu.top = 0;
}
static inline uint64_t mmx_get(const Cpu *c, unsigned r) { return c->fpu.mm[r & 7]; }
static inline void mmx_set(Cpu *c, unsigned r, uint64_t v) {
  c->fpu.mm[r & 7] = v;
  c->fpu.mm_se[r & 7] = 0xFFFF;
}

/* ---- MMX forms of SSE instructions: the MMX operands md (destination) and ms (source)
 * are placed in XMM values so that the low 64 bits of the SSE body's result are the MMX
 * result. ---- */

/* Lane by lane: each in the low half. */
static inline void mmx_lanes(Xmm *d, Xmm *s, uint64_t md, uint64_t ms) {
  *d = (Xmm){.q = {md, 0}};
  *s = (Xmm){.q = {ms, 0}};
}
/* Both operands in the destination (packs and horizontal operations take the destination's
 * lanes, then the source's). */
static inline void mmx_paired(Xmm *d, Xmm *s, uint64_t md, uint64_t ms) {
  *d = (Xmm){.q = {md, ms}};
  *s = (Xmm){.q = {0, 0}};
}
/* The high halves of each, for PUNPCKH* through the PUNPCKL* body. */
static inline void mmx_high(Xmm *d, Xmm *s, uint64_t md, uint64_t ms) {
  *d = (Xmm){.q = {md >> 32, 0}};
  *s = (Xmm){.q = {ms >> 32, 0}};
}
/* The destination twice, so that PSHUFB's 4-bit indexes act as the MMX form's 3-bit ones. */
static inline void mmx_doubled(Xmm *d, Xmm *s, uint64_t md, uint64_t ms) {
  *d = (Xmm){.q = {md, md}};
  *s = (Xmm){.q = {ms, 0}};
}
/* PALIGNR: md:ms as the SSE form's low 16 bytes, above them zeros. */
static inline void mmx_aligned(Xmm *d, Xmm *s, uint64_t md, uint64_t ms) {
  *d = (Xmm){.q = {0, 0}};
  *s = (Xmm){.q = {ms, md}};
}

/* Defines op_mmx_<name> (source MM[rm]) and op_mmx_<name>_m (source m64) from the body of
 * SSE_RM(<body>, ...) in the same file. */
#define MMX_FROM_SSE(name, body, arrange) MMX_FROM_SSE_LOAD(name, body, arrange, ld64)

/* The same with the memory source read by load: ld32 for the PUNPCKL* forms, whose
 * operand is m32 (the bytes after it may be unmapped). */
#define MMX_FROM_SSE_LOAD(name, body, arrange, load)                                    \
  void op_mmx_##name(Cpu *c, const Insn *in) {                                          \
    mmx_begin(c);                                                                       \
    Xmm d, s;                                                                           \
    arrange(&d, &s, mmx_get(c, in->reg), mmx_get(c, in->rm));                           \
    body##_body(c, in, &d, &s);                                                         \
    mmx_set(c, in->reg, d.q[0]);                                                        \
    DISPATCH_NEXT(c, in);                                                               \
  }                                                                                     \
  void op_mmx_##name##_m(Cpu *c, const Insn *in) {                                      \
    mmx_check(c);                                                                       \
    uint64_t ms = load(ea(c, in));                                                      \
    mmx_begin(c);                                                                       \
    Xmm d, s;                                                                           \
    arrange(&d, &s, mmx_get(c, in->reg), ms);                                           \
    body##_body(c, in, &d, &s);                                                         \
    mmx_set(c, in->reg, d.q[0]);                                                        \
    DISPATCH_NEXT(c, in);                                                               \
  }

#endif
