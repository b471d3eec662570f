/* shift.c: SHL/SHR/SAR/ROL/ROR/RCL/RCR and SHLD/SHRD, with the SDM's flag rules. */
#include "access.h"
#include "flags.h"
#include "ops_int.h"

enum { ROL, ROR, RCL, RCR, SHL, SHR, SAL, SAR };

static void shift(Cpu *c, const Insn *in, unsigned count) {
  unsigned s = in->osz, bits = s * 8;
  count &= s == 8 ? 63 : 31;
  uint64_t m = size_mask(s), a = rm_get(c, in, s) & m, r;
  if (count == 0) {
    rm_set(c, in, a, s); /* flags untouched; a 32-bit register is still zero-extended */
    return;
  }
  uint64_t msb = 1ull << (bits - 1);
  switch (in->op) {
  case SHL: case SAL:
    r = count < 64 ? a << count : 0;
    lazy_set(c, LF_SHL, s, r, a, count);
    break;
  case SHR:
    r = count < 64 ? a >> count : 0;
    lazy_set(c, LF_SHR, s, r, a, count);
    break;
  case SAR:
    r = (uint64_t)((int64_t)sign_extend(a, s) >> (count > 63 ? 63 : count));
    lazy_set(c, LF_SAR, s, r, a, count);
    break;
  case ROL: case ROR: {
    unsigned n = count % bits;
    if (in->op == ROL) r = n ? (a << n | a >> (bits - n)) & m : a;
    else r = n ? (a >> n | a << (bits - n)) & m : a;
    bool cf, of;
    if (in->op == ROL) {
      cf = r & 1;
      of = ((r & msb) != 0) != cf;
    } else {
      cf = (r & msb) != 0;
      of = ((r ^ (r << 1)) & msb) != 0; /* the two most significant bits differ */
    }
    if (in->flags_live & (FL_CF | FL_OF))
      flags_update(c, F_CF | F_OF, (cf ? F_CF : 0) | (of ? F_OF : 0));
    break;
  }
  default: { /* RCL, RCR: a rotation through CF over bits + 1 positions */
    unsigned n = s == 1 ? count % 9 : s == 2 ? count % 17 : count;
    bool cf = flag_cf(c);
    r = a;
    for (unsigned i = 0; i < n; i++) {
      bool out;
      if (in->op == RCL) {
        out = (r & msb) != 0;
        r = ((r << 1) | cf) & m;
      } else {
        out = r & 1;
        r = (r >> 1) | (cf ? msb : 0);
      }
      cf = out;
    }
    bool of = in->op == RCL ? ((r & msb) != 0) != cf : ((r ^ (r << 1)) & msb) != 0;
    if (in->flags_live & (FL_CF | FL_OF))
      flags_update(c, F_CF | F_OF, (cf ? F_CF : 0) | (of ? F_OF : 0));
    break;
  }
  }
  rm_set(c, in, r, s);
}

/* C0 C1 D0 D1 */
void op_shift_imm(Cpu *c, const Insn *in) {
  shift(c, in, (unsigned)in->imm);
  DISPATCH_NEXT(c, in);
}
/* D2 D3 */
void op_shift_cl(Cpu *c, const Insn *in) {
  shift(c, in, (uint8_t)c->r[RCX]);
  DISPATCH_NEXT(c, in);
}

/* Flags of SHLD/SHRD: CF is the last bit out, OF (count 1) a sign change, AF undefined. */
static void set_double_shift_flags(Cpu *c, const Insn *in, uint64_t r, uint64_t a, bool cf,
                                   unsigned s) {
  if (!in->flags_live) return;
  uint64_t msb = 1ull << (s * 8 - 1);
  lazy_set(c, LF_LOGIC, s, r, 0, 0);
  bool of = ((r ^ a) & msb) != 0;
  flags_update(c, F_CF | F_OF, (cf ? F_CF : 0) | (of ? F_OF : 0));
}

/* SHLD (left) and SHRD: shift the destination, filling from the source register. */
static void double_shift(Cpu *c, const Insn *in, bool left) {
  unsigned s = in->osz, bits = s * 8;
  unsigned count = (in->aux ? (uint8_t)c->r[RCX] : (unsigned)in->imm) & (s == 8 ? 63 : 31);
  uint64_t m = size_mask(s), a = rm_get(c, in, s) & m, b = reg_get(c, in->reg, s);
  if (count == 0) {
    rm_set(c, in, a, s);
    return;
  }
  uint64_t r;
  bool cf;
  if (s == 2 && count > 16) {
    /* Undefined in the SDM; the CPU shifts through the 48-bit a:b:a concatenation. */
    uint64_t wide = (a << 32) | (b << 16) | a;
    r = (left ? wide << count >> 32 : wide >> count) & m;
    cf = (wide >> (left ? 48 - count : count - 1)) & 1;
  } else if (left) {
    r = ((a << count) | (count == bits ? b : b >> (bits - count))) & m;
    cf = (a >> (bits - count)) & 1;
  } else {
    r = ((a >> count) | (count == bits ? b : b << (bits - count))) & m;
    cf = (a >> (count - 1)) & 1;
  }
  rm_set(c, in, r, s);
  set_double_shift_flags(c, in, r, a, cf, s);
}

/* 0F A4 0F A5 */
void op_shld(Cpu *c, const Insn *in) {
  double_shift(c, in, true);
  DISPATCH_NEXT(c, in);
}

/* 0F AC 0F AD */
void op_shrd(Cpu *c, const Insn *in) {
  double_shift(c, in, false);
  DISPATCH_NEXT(c, in);
}
