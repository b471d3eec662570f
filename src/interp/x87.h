/* x87.h: the x87 state as other parts see it (FXSAVE, signal frames): the 80-bit
 * format, the status and tag words, the initial state. */
#ifndef X64EMU_X87_H
#define X64EMU_X87_H

#include <float.h>
#include <stdint.h>
#include <string.h>

#include "cpu.h"

/* Status word bits. */
enum {
  X87_IE = 1u << 0,  /* invalid operation */
  X87_DE = 1u << 1,  /* denormal operand */
  X87_ZE = 1u << 2,  /* divide by zero */
  X87_OE = 1u << 3,  /* overflow */
  X87_UE = 1u << 4,  /* underflow */
  X87_PE = 1u << 5,  /* precision (inexact) */
  X87_EXC = 0x3Fu,
  X87_SF = 1u << 6,  /* stack fault (with IE) */
  X87_ES = 1u << 7,  /* an unmasked exception is pending */
  X87_C0 = 1u << 8,
  X87_C1 = 1u << 9,
  X87_C2 = 1u << 10,
  X87_TOP_SHIFT = 11,
  X87_C3 = 1u << 14,
  X87_B = 1u << 15,  /* busy: mirrors ES */
  X87_CC = X87_C0 | X87_C1 | X87_C2 | X87_C3,
};

/* Control word: exception masks (low six bits, same order as the flags), precision
 * control (bits 8-9: 0 single, 2 double, 3 extended) and rounding control (bits 10-11:
 * 0 nearest, 1 down, 2 up, 3 toward zero). */
enum { X87_CW_DEFAULT = 0x037F, X87_PC_SHIFT = 8, X87_RC_SHIFT = 10 };

/* The x87 80-bit extended format as 10 little-endian bytes in memory, to and from the
 * host's long double. On x86-64 long double is that format and these are copies; the
 * portable versions work for any long double and are what other hosts use. */
long double x87_from_ext80_portable(const void *p);
void x87_to_ext80_portable(long double v, void *p);

#if LDBL_MANT_DIG == 64 && LDBL_MAX_EXP == 16384
static inline long double x87_from_ext80(const void *p) {
  long double v = 0;
  memcpy(&v, p, 10);
  return v;
}
static inline void x87_to_ext80(long double v, void *p) { memcpy(p, &v, 10); }
#else
static inline long double x87_from_ext80(const void *p) { return x87_from_ext80_portable(p); }
static inline void x87_to_ext80(long double v, void *p) { x87_to_ext80_portable(v, p); }
#endif

/* The 80 bits of physical register p, and setting them (exactly: the register becomes
 * raw until an x87 instruction settles it). */
void x87_image(const X87 *f, unsigned p, uint8_t out[10]);
void x87_set_image(X87 *f, unsigned p, const uint8_t in[10]);
/* Converts the raw registers back to st[] before an x87 instruction uses them. */
void x87_settle_raw(X87 *f);
static inline void x87_settle(X87 *f) {
  if (__builtin_expect(f->raw != 0, 0)) x87_settle_raw(f);
}
/* Makes every register raw, for an MMX instruction. */
void x87_make_raw(X87 *f);

/* FNINIT's state: control word 0x37F, everything else clear, all registers empty (their
 * contents stay, as the CPU's do). */
void x87_init(X87 *f);

/* The status word as FNSTSW shows it (TOP merged in), and setting it from such a word. */
static inline uint16_t x87_status_word(const X87 *f) {
  return (uint16_t)((f->sw & ~(7u << X87_TOP_SHIFT)) | (unsigned)(f->top & 7) << X87_TOP_SHIFT);
}
static inline void x87_set_status_word(X87 *f, uint16_t sw) {
  f->top = (sw >> X87_TOP_SHIFT) & 7;
  f->sw = sw & (uint16_t)~(7u << X87_TOP_SHIFT);
}

/* The full tag word of FNSTENV/FNSAVE: per physical register 0 valid, 1 zero,
 * 2 special (NaN, infinity, denormal, unsupported), 3 empty, classified from the
 * contents as the CPU does. Loading one (FLDENV/FRSTOR) keeps only empty/non-empty. */
uint16_t x87_tag_word(const X87 *f);
void x87_set_tag_word(X87 *f, uint16_t tw);

/* FXSAVE's abridged tag byte: bit i set when physical register i is not empty. */
uint8_t x87_abridged_tag(const X87 *f);
void x87_set_abridged_tag(X87 *f, uint8_t t);

#endif
