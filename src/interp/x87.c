/* x87.c: x87 state shared with FXSAVE and signal frames (initial state, tag words) and
 * the #MF fault of a pending unmasked exception. */
#include "x87.h"

#include <signal.h>

#include "run.h"
#include "x87_state.h"

/* The registers keep their contents, only tagged empty. */
void x87_init(X87 *f) {
  f->cw = X87_CW_DEFAULT;
  f->sw = 0;
  f->tag = 0xFFFF;
  f->top = 0;
  f->last_ip = f->last_dp = 0;
  f->last_op = 0;
}

void x87_image(const X87 *f, unsigned p, uint8_t out[10]) {
  if (f->raw >> p & 1) {
    memcpy(out, &f->mm[p], 8);
    memcpy(out + 8, &f->mm_se[p], 2);
  } else {
    x87_to_ext80(f->st[p], out);
  }
}

void x87_set_image(X87 *f, unsigned p, const uint8_t in[10]) {
  memcpy(&f->mm[p], in, 8);
  memcpy(&f->mm_se[p], in + 8, 2);
  f->raw |= (uint8_t)(1u << p);
}

void x87_settle_raw(X87 *f) {
  for (unsigned p = 0; p < 8; p++) {
    if (!(f->raw >> p & 1)) continue;
    uint8_t b[10];
    x87_image(f, p, b);
    f->st[p] = x87_from_ext80(b);
  }
  f->raw = 0;
}

void x87_make_raw(X87 *f) {
  for (unsigned p = 0; p < 8; p++) {
    if (f->raw >> p & 1) continue;
    uint8_t b[10];
    x87_to_ext80(f->st[p], b);
    x87_set_image(f, p, b);
  }
}

/* The tag the CPU computes for a register's contents. */
static unsigned tag_of(const X87 *f, unsigned p) {
  uint8_t b[10];
  x87_image(f, p, b);
  unsigned exp = (b[8] | b[9] << 8) & 0x7FFF;
  uint64_t mant;
  memcpy(&mant, b, 8);
  if (exp == 0) return mant == 0 ? 1 : 2;
  if (exp == 0x7FFF || !(mant >> 63)) return 2;
  return 0;
}

uint16_t x87_tag_word(const X87 *f) {
  uint16_t tw = 0;
  for (unsigned p = 0; p < 8; p++) {
    unsigned t = ((f->tag >> (2 * p)) & 3) == 3 ? 3 : tag_of(f, p);
    tw |= (uint16_t)(t << (2 * p));
  }
  return tw;
}

void x87_set_tag_word(X87 *f, uint16_t tw) {
  uint16_t tag = 0;
  for (unsigned p = 0; p < 8; p++)
    if (((tw >> (2 * p)) & 3) == 3) tag |= (uint16_t)(3u << (2 * p));
  f->tag = tag;
}

uint8_t x87_abridged_tag(const X87 *f) {
  uint8_t t = 0;
  for (unsigned p = 0; p < 8; p++)
    if (((f->tag >> (2 * p)) & 3) != 3) t |= (uint8_t)(1u << p);
  return t;
}

void x87_set_abridged_tag(X87 *f, uint8_t t) {
  uint16_t tag = 0;
  for (unsigned p = 0; p < 8; p++)
    if (!(t & (1u << p))) tag |= (uint16_t)(3u << (2 * p));
  f->tag = tag;
}

/* The si_code of the kernel's fpu__exception_code() for #MF. */
static int fpe_code(uint16_t sw, uint16_t cw) {
  unsigned err = sw & ~cw & X87_EXC;
  if (err & X87_IE) return FPE_FLTINV;
  if (err & X87_ZE) return FPE_FLTDIV;
  if (err & X87_OE) return FPE_FLTOVF;
  if (err & (X87_DE | X87_UE)) return FPE_FLTUND;
  if (err & X87_PE) return FPE_FLTRES;
  return 0;
}

_Noreturn void x87_fault(Cpu *c) {
  const Insn *in = cpu_insn(c);
  uint64_t rip = in ? in->rip : c->rip;
  guest_trap(c, SIGFPE, fpe_code(c->fpu.sw, c->fpu.cw), rip);
}
