/* x87_state.h: what the x87 handlers share: the register stack and its tags, exception
 * recording with the masked responses, and the start of every waiting instruction. */
#ifndef X64EMU_X87_STATE_H
#define X64EMU_X87_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "access.h"
#include "insn.h"
#include "x87.h"
#include "x87_host.h"

/* ST(i) lives in physical register (TOP + i) mod 8. */
static inline unsigned x87_phys(const X87 *f, unsigned i) { return (f->top + i) & 7; }
static inline bool x87_empty(const X87 *f, unsigned i) {
  return ((f->tag >> (2 * x87_phys(f, i))) & 3) == 3;
}
static inline long double *x87_st(X87 *f, unsigned i) { return &f->st[x87_phys(f, i)]; }
static inline void x87_set_st(X87 *f, unsigned i, long double v) {
  unsigned p = x87_phys(f, i);
  f->st[p] = v;
  f->tag &= (uint16_t)~(3u << (2 * p));
}
static inline void x87_pop(X87 *f) {
  f->tag |= (uint16_t)(3u << (2 * f->top));
  f->top = (f->top + 1) & 7;
}
/* The caller has checked that ST(7) is empty (x87_push_overflows). */
static inline void x87_push(X87 *f, long double v) {
  f->top = (f->top - 1) & 7;
  f->st[f->top] = v;
  f->tag &= (uint16_t)~(3u << (2 * f->top));
}

/* The QNaN "real indefinite" that masked invalid operations produce. */
static inline long double x87_indefinite(void) {
  static const uint8_t bytes[10] = {0, 0, 0, 0, 0, 0, 0, 0xC0, 0xFF, 0xFF};
  return x87_from_ext80(bytes);
}

/* What the host tier needs of the guest's state: x87_host.h. */
static inline uint32_t x87_ctl_of(const X87 *f) { return x87_ctl(f->cw, f->sw); }

/* ES and B summarize "an unmasked exception flag is set": the next waiting instruction
 * then faults (#MF, the guest's SIGFPE). */
static inline void x87_update_es(X87 *f) {
  if (f->sw & ~f->cw & X87_EXC) f->sw |= X87_ES | X87_B;
  else f->sw &= (uint16_t)~(X87_ES | X87_B);
}
static inline void x87_raise(X87 *f, unsigned exc) {
  f->sw |= (uint16_t)exc;
  if (exc & ~f->cw & X87_EXC) f->sw |= X87_ES | X87_B;
}

/* Records what a host operation reported: its exceptions, and the condition codes in
 * cc_mask. Returns whether the instruction completes (writes its result, pops): not
 * after an unmasked exception in `stops`, which the CPU reports alone, with C1 = 0.
 * (The host tier already ran with the guest's masks; for the portable tier this turns
 * its masked response into the unmasked one.) */
static inline bool x87_commit_stops(X87 *f, uint16_t hsw, uint16_t cc_mask, uint16_t stops) {
  uint16_t stop = hsw & ~f->cw & stops;
  if (stop) hsw = (uint16_t)(hsw & ~(X87_OE | X87_UE | X87_PE | X87_C1));
  f->sw = (uint16_t)((f->sw & ~cc_mask) | (hsw & cc_mask));
  x87_raise(f, hsw & X87_EXC);
  return !stop;
}
/* Arithmetic stops on an unmasked invalid-operation, denormal or divide-by-zero
 * exception. */
static inline bool x87_commit(X87 *f, uint16_t hsw, uint16_t cc_mask) {
  return x87_commit_stops(f, hsw, cc_mask, X87_IE | X87_DE | X87_ZE);
}
/* A store to memory is also stopped by an unmasked overflow or underflow: whether
 * the memory may be written, decided before x87_commit records the flags. */
static inline bool x87_store_allowed(const X87 *f, uint16_t hsw) {
  return !(hsw & ~f->cw & (X87_IE | X87_DE | X87_ZE | X87_OE | X87_UE));
}

/* Stack faults: invalid operation with SF; C1 tells overflow (1) from underflow (0).
 * They return whether the masked response (write the indefinite value) applies. */
static inline bool x87_underflow(X87 *f) {
  f->sw &= (uint16_t)~X87_C1;
  x87_raise(f, X87_IE | X87_SF);
  return f->cw & X87_IE;
}
static inline bool x87_overflow(X87 *f) {
  f->sw |= X87_C1;
  x87_raise(f, X87_IE | X87_SF);
  return f->cw & X87_IE;
}

/* A push needs ST(7) empty. */
static inline bool x87_push_overflows(const X87 *f) { return !x87_empty(f, 7); }

/* Pushes v, or handles the overflow (masked: the indefinite value is pushed).
 * C1 ends 0 after a push that fits. */
static inline void x87_push_checked(X87 *f, long double v) {
  if (x87_push_overflows(f)) {
    if (x87_overflow(f)) x87_push(f, x87_indefinite());
    return;
  }
  f->sw &= (uint16_t)~X87_C1;
  x87_push(f, v);
}

_Noreturn void x87_fault(Cpu *c);

/* The start of every waiting, non-control x87 instruction: a pending unmasked exception
 * faults here, then the instruction becomes the "last x87 instruction" whose address
 * FNSTENV reports. Like the CPUs that deprecate them (FDP_EXCPTN_ONLY, FCS/FDS
 * deprecated), the last opcode and data pointer are left zero. */
static inline void x87_begin(Cpu *c, const Insn *in) {
  if (__builtin_expect(c->fpu.sw & X87_ES, 0)) x87_fault(c);
  x87_settle(&c->fpu);
  c->fpu.last_ip = in->rip;
}
/* The waiting control instructions (FLDCW, FWAIT) only check. */
static inline void x87_wait(Cpu *c) {
  if (__builtin_expect(c->fpu.sw & X87_ES, 0)) x87_fault(c);
  x87_settle(&c->fpu);
}

static inline float x87_f32(uint32_t bits) {
  float v;
  memcpy(&v, &bits, 4);
  return v;
}
static inline double x87_f64(uint64_t bits) {
  double v;
  memcpy(&v, &bits, 8);
  return v;
}

#endif
