/* flags.c: computing arithmetic flags from the lazily recorded operation. */
#include "flags.h"

#include "access.h"

/* The sign bit of a result of `size` bytes (size is 0 while no operation is recorded). */
static inline uint64_t sign_bit(unsigned size) { return size ? 1ull << (size * 8 - 1) : 0; }

bool flag_cf(const Cpu *c) {
  const LazyFlags *f = &c->lf;
  uint64_t m = size_mask(f->size);
  uint64_t a = lazy_a(f) & m, b = f->b & m, r = f->res & m;
  unsigned bits = f->size * 8;
  switch (f->op) {
  case LF_ADD: return r < a;
  case LF_ADC: return f->cin ? r <= a : r < a;
  case LF_SUB: return a < b;
  case LF_SBB: return f->cin ? a <= b : a < b;
  case LF_LOGIC: return false;
  case LF_INC: case LF_DEC: return f->cin;
  case LF_SHL: return f->b <= bits ? (a >> (bits - f->b)) & 1 : 0;
  case LF_SHR: return f->b <= bits ? (a >> (f->b - 1)) & 1 : 0;
  case LF_SAR: {
    uint64_t s = sign_extend(a, f->size);
    return ((int64_t)s >> (f->b > 63 ? 63 : f->b - 1)) & 1;
  }
  default: return c->rflags & F_CF;
  }
}

bool flag_zf(const Cpu *c) {
  if (c->lf.op == LF_NONE) return c->rflags & F_ZF;
  return (c->lf.res & size_mask(c->lf.size)) == 0;
}

bool flag_sf(const Cpu *c) {
  if (c->lf.op == LF_NONE) return c->rflags & F_SF;
  return (c->lf.res & sign_bit(c->lf.size)) != 0;
}

bool flag_pf(const Cpu *c) {
  if (c->lf.op == LF_NONE) return c->rflags & F_PF;
  return !__builtin_parity((unsigned)(c->lf.res & 0xff));
}

bool flag_of(const Cpu *c) {
  const LazyFlags *f = &c->lf;
  uint64_t s = sign_bit(f->size), a = lazy_a(f);
  switch (f->op) {
  case LF_ADD: case LF_ADC: case LF_INC:
    return ((a ^ f->res) & (f->b ^ f->res) & s) != 0;
  case LF_SUB: case LF_SBB: case LF_DEC:
    return ((a ^ f->b) & (a ^ f->res) & s) != 0;
  case LF_LOGIC: return false;
  /* Defined for a count of 1 only; other counts give what the CPU computes for 1. */
  case LF_SHL: return ((f->res & s) != 0) != flag_cf(c);
  case LF_SHR: return (a & s) != 0 && f->b == 1;
  case LF_SAR: return false;
  default: return c->rflags & F_OF;
  }
}

bool flag_af(const Cpu *c) {
  const LazyFlags *f = &c->lf;
  switch (f->op) {
  case LF_ADD: case LF_ADC: case LF_SUB: case LF_SBB: case LF_INC: case LF_DEC:
    return ((lazy_a(f) ^ f->b ^ f->res) & 0x10) != 0;
  case LF_NONE: return c->rflags & F_AF;
  default: return false;
  }
}

uint64_t flags_get(const Cpu *c) {
  if (c->lf.op == LF_NONE) return c->rflags;
  uint64_t r = c->rflags & ~(uint64_t)F_ARITH;
  if (flag_cf(c)) r |= F_CF;
  if (flag_pf(c)) r |= F_PF;
  if (flag_af(c)) r |= F_AF;
  if (flag_zf(c)) r |= F_ZF;
  if (flag_sf(c)) r |= F_SF;
  if (flag_of(c)) r |= F_OF;
  return r;
}

void flags_set(Cpu *c, uint64_t rflags) {
  c->rflags = rflags | 2; /* bit 1 always reads as 1 */
  c->lf.op = LF_NONE;
}

void flags_update(Cpu *c, uint64_t mask, uint64_t bits) {
  flags_set(c, (flags_get(c) & ~mask) | (bits & mask));
}

bool cond_slow(const Cpu *c, unsigned cc) {
  bool r; /* cond() has already answered the orders after SUB and logical results */
  switch (cc & ~1u) {
  case 0: r = flag_of(c); break;
  case 2: r = flag_cf(c); break;
  case 4: r = flag_zf(c); break;
  case 6: r = flag_cf(c) || flag_zf(c); break;
  case 8: r = flag_sf(c); break;
  case 10: r = flag_pf(c); break;
  case 12: r = flag_sf(c) != flag_of(c); break;
  default: r = flag_zf(c) || (flag_sf(c) != flag_of(c)); break;
  }
  return r ^ (cc & 1);
}
