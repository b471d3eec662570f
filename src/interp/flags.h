/* flags.h: lazy RFLAGS: record the last flag-setting operation, compute on demand. */
#ifndef X64EMU_FLAGS_H
#define X64EMU_FLAGS_H

#include <stdbool.h>
#include <stdint.h>

#include "cpu.h"

/* Records res = a op b. Only shifts keep a: an addition's or a subtraction's follows from
 * the result and b (lazy_a), and a logical operation's flags need neither, so most flag
 * setters store two or three fields, not four. */
static inline void lazy_set(Cpu *c, enum LazyOp op, unsigned size, uint64_t res, uint64_t a,
                            uint64_t b) {
  c->lf.op = (uint8_t)op;
  c->lf.size = (uint8_t)size;
  c->lf.res = res;
  if (op == LF_SHL || op == LF_SHR || op == LF_SAR) c->lf.a = a;
  if (op != LF_LOGIC) c->lf.b = b;
}

/* The recorded operation's first operand, in its low `size` bytes (the bits above may
 * differ from those it had). */
static inline uint64_t lazy_a(const LazyFlags *f) {
  switch (f->op) {
  case LF_ADD: case LF_INC: return f->res - f->b;
  case LF_ADC: return f->res - f->b - f->cin;
  case LF_SUB: case LF_DEC: return f->res + f->b;
  case LF_SBB: return f->res + f->b + f->cin;
  default: return f->a;
  }
}

bool flag_cf(const Cpu *c);
bool flag_zf(const Cpu *c);
bool flag_sf(const Cpu *c);
bool flag_of(const Cpu *c);
bool flag_pf(const Cpu *c);
bool flag_af(const Cpu *c);

/* INC and DEC leave CF as it was, kept in the lazy flags' cin: the CF before one, read at
 * once when the last flag setter was an INC or DEC too. */
static inline bool flag_cf_kept(const Cpu *c) {
  const LazyFlags *f = &c->lf;
  if (f->op == LF_INC || f->op == LF_DEC) return f->cin;
  if (f->op == LF_SUB) { /* a compare before a loop's DEC: at once, as cond() does */
    unsigned shift = 64 - 8u * f->size;
    return (lazy_a(f) << shift) < (f->b << shift);
  }
  return flag_cf(c);
}

/* The whole RFLAGS value, arithmetic flags included. */
uint64_t flags_get(const Cpu *c);
/* Replace RFLAGS; the arithmetic flags become concrete (LF_NONE). */
void flags_set(Cpu *c, uint64_t rflags);
/* Set only the bits in mask, keeping the others (materializes lazy flags first). */
void flags_update(Cpu *c, uint64_t mask, uint64_t bits);

/* The bits of the recorded operation's size (1, 2, 4 or 8 bytes). */
static inline uint64_t lazy_mask(const LazyFlags *f) {
  static const uint64_t masks[9] = {0, 0xff, 0xffff, 0, 0xffffffffull, 0, 0, 0, ~0ull};
  return masks[f->size];
}

/* Condition code cc (the low nibble of Jcc/SETcc/CMOVcc), for any recorded operation. */
bool cond_slow(const Cpu *c, unsigned cc);

/* The same, with the commonest cases inline: JE/JNE (and SETE, CMOVE...), where ZF is just
 * a zero result, and the unsigned and signed orders after CMP or SUB, and the tests of a
 * logical operation's result (CF = OF = 0). Shifted left by 64 - the operation's width,
 * the operands keep both their orders and a result its sign. With a constant cc, after a
 * handler's own lazy_set, this folds to one comparison (fast.c's fused jumps). */
static inline bool cond(const Cpu *c, unsigned cc) {
  const LazyFlags *f = &c->lf;
  unsigned kind = cc & ~1u, shift = 64 - 8u * f->size;
  if (kind == 4) {
    bool zf = f->op != LF_NONE ? (f->res & lazy_mask(f)) == 0 : (c->rflags & F_ZF) != 0;
    return zf ^ (cc & 1);
  }
  if (f->op == LF_SUB && (kind == 2 || kind == 6 || kind >= 12)) {
    uint64_t a = lazy_a(f) << shift, b = f->b << shift;
    bool r = kind == 2 ? a < b : kind == 6 ? a <= b : kind == 12 ? (int64_t)a < (int64_t)b
                                                                  : (int64_t)a <= (int64_t)b;
    return r ^ (cc & 1);
  }
  if (f->op == LF_LOGIC && kind >= 2 && kind != 10) {
    int64_t r = (int64_t)(f->res << shift);
    bool t = kind == 2 ? false : kind == 6 ? r == 0 : kind == 14 ? r <= 0 : r < 0; /* 8, 12: SF */
    return t ^ (cc & 1);
  }
  return cond_slow(c, cc);
}

#endif
