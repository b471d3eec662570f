/* bmi.c: BMI1, BMI2 and ADX: the scalar bit-manipulation instructions (VEX-encoded but
 * for TZCNT, on general registers: Insn.vreg is VEX.vvvv) and the two carry chains of
 * ADCX/ADOX. Operands are 32 bits, or 64 with VEX.W / REX.W; a 32-bit result zeroes the
 * register's upper half. Flags the SDM leaves undefined (AF and PF, SF for BEXTR) are
 * those of the result, as a logic operation leaves them. */
#include "access.h"
#include "flags.h"
#include "ops_int.h"

/* The arithmetic flags of a BMI1 result: SF and ZF of r, the given CF, OF clear. */
static void bmi_flags(Cpu *c, unsigned s, uint64_t r, bool cf) {
  lazy_set(c, LF_LOGIC, s, r, 0, 0);
  if (cf) flags_update(c, F_CF, F_CF);
}

/* VEX 0F38 F2: ANDN reg, vreg, rm = ~vreg & rm. */
void op_andn(Cpu *c, const Insn *in) {
  unsigned s = in->osz;
  uint64_t r = ~reg_get(c, in->vreg, s) & rm_get(c, in, s) & size_mask(s);
  reg_set(c, in->reg, r, s);
  bmi_flags(c, s, r, false);
  DISPATCH_NEXT(c, in);
}

/* VEX 0F38 F7 (no prefix): BEXTR reg, rm, vreg: the field of rm that starts at bit
 * vreg[7:0] and is vreg[15:8] bits long. ZF from the result, CF and OF clear. */
void op_bextr(Cpu *c, const Insn *in) {
  unsigned s = in->osz, bits = s * 8;
  uint64_t v = rm_get(c, in, s), ctl = reg_get(c, in->vreg, s);
  unsigned start = ctl & 0xff, len = (ctl >> 8) & 0xff;
  uint64_t r = 0;
  if (start < bits) {
    r = v >> start;
    if (len < 64) r &= (1ull << len) - 1;
  }
  reg_set(c, in->reg, r, s);
  bmi_flags(c, s, r, false);
  DISPATCH_NEXT(c, in);
}

/* VEX 0F38 F3 /1 /2 /3: BLSR, BLSMSK, BLSI vreg, rm. CF says whether the source was
 * zero (BLSR, BLSMSK) or not (BLSI); BLSMSK's ZF is always clear, as its result is. */
enum { BLSR = 1, BLSMSK = 2, BLSI = 3 };
void op_bls(Cpu *c, const Insn *in) {
  unsigned s = in->osz;
  uint64_t v = rm_get(c, in, s), r;
  bool cf;
  switch (in->op) {
  case BLSR: r = (v - 1) & v, cf = v == 0; break;
  case BLSMSK: r = (v - 1) ^ v, cf = v == 0; break;
  default: r = (0 - v) & v, cf = v != 0; break;
  }
  r &= size_mask(s);
  reg_set(c, in->vreg, r, s);
  bmi_flags(c, s, r, cf);
  DISPATCH_NEXT(c, in);
}

/* F3 0F BC: TZCNT. CF says the source was zero, ZF the result is. */
void op_tzcnt(Cpu *c, const Insn *in) {
  unsigned s = in->osz;
  uint64_t v = rm_get(c, in, s);
  uint64_t r = v ? (unsigned)__builtin_ctzll(v) : s * 8;
  reg_set(c, in->reg, r, s);
  flags_update(c, F_CF | F_ZF, (v == 0 ? F_CF : 0) | (r == 0 ? F_ZF : 0));
  DISPATCH_NEXT(c, in);
}

/* VEX 0F38 F5 (no prefix): BZHI reg, rm, vreg: rm with the bits from vreg[7:0] up
 * cleared; CF set when that index is past the operand's last bit. */
void op_bzhi(Cpu *c, const Insn *in) {
  unsigned s = in->osz, bits = s * 8;
  uint64_t v = rm_get(c, in, s);
  unsigned n = reg_get(c, in->vreg, s) & 0xff;
  uint64_t r = n < bits ? v & ((1ull << n) - 1) : v;
  reg_set(c, in->reg, r, s);
  bmi_flags(c, s, r, n > bits - 1);
  DISPATCH_NEXT(c, in);
}

/* VEX F2 0F38 F6: MULX reg, vreg, rm: RDX (EDX) * rm unsigned, the high half to reg and
 * the low half to vreg (when both are one register it holds the high half). No flags. */
void op_mulx(Cpu *c, const Insn *in) {
  unsigned s = in->osz;
  uint64_t b = rm_get(c, in, s), a = reg_get(c, RDX, s);
  uint64_t lo, hi;
  if (s == 8) {
    unsigned __int128 p = (unsigned __int128)a * b;
    lo = (uint64_t)p, hi = (uint64_t)(p >> 64);
  } else {
    uint64_t p = a * b;
    lo = (uint32_t)p, hi = p >> 32;
  }
  reg_set(c, in->vreg, lo, s);
  reg_set(c, in->reg, hi, s);
  DISPATCH_NEXT(c, in);
}

/* VEX F2 0F38 F5: PDEP reg, vreg, rm: the low bits of vreg deposited, in order, at the
 * set bits of the mask rm. */
void op_pdep(Cpu *c, const Insn *in) {
  unsigned s = in->osz;
  uint64_t v = reg_get(c, in->vreg, s), mask = rm_get(c, in, s), r = 0;
  for (; mask; v >>= 1) {
    uint64_t low = mask & (0 - mask); /* the mask's lowest set bit */
    if (v & 1) r |= low;
    mask ^= low;
  }
  reg_set(c, in->reg, r, s);
  DISPATCH_NEXT(c, in);
}

/* VEX F3 0F38 F5: PEXT reg, vreg, rm: the bits of vreg at the set bits of the mask rm,
 * gathered, in order, at the low end. */
void op_pext(Cpu *c, const Insn *in) {
  unsigned s = in->osz;
  uint64_t v = reg_get(c, in->vreg, s), mask = rm_get(c, in, s), r = 0;
  for (unsigned out = 0; mask; out++) {
    uint64_t low = mask & (0 - mask);
    if (v & low) r |= 1ull << out;
    mask ^= low;
  }
  reg_set(c, in->reg, r, s);
  DISPATCH_NEXT(c, in);
}

/* VEX F2 0F3A F0: RORX reg, rm, imm8: rotate right by the imm8 (masked to the operand's
 * width). No flags. */
void op_rorx(Cpu *c, const Insn *in) {
  unsigned s = in->osz, bits = s * 8, n = (unsigned)in->imm & (bits - 1);
  uint64_t v = rm_get(c, in, s);
  uint64_t r = n ? (v >> n | v << (bits - n)) & size_mask(s) : v;
  reg_set(c, in->reg, r, s);
  DISPATCH_NEXT(c, in);
}

/* VEX 0F38 F7 with F3 (SARX), 66 (SHLX), F2 (SHRX): reg = rm shifted by vreg, masked to
 * the operand's width. No flags. */
enum { SARX, SHLX, SHRX };
void op_shiftx(Cpu *c, const Insn *in) {
  unsigned s = in->osz, bits = s * 8;
  uint64_t v = rm_get(c, in, s);
  unsigned n = reg_get(c, in->vreg, s) & (bits - 1);
  uint64_t r;
  switch (in->op) {
  case SARX: r = (uint64_t)((int64_t)sign_extend(v, s) >> n); break;
  case SHLX: r = v << n; break;
  default: r = v >> n; break;
  }
  reg_set(c, in->reg, r & size_mask(s), s);
  DISPATCH_NEXT(c, in);
}

/* 66 0F38 F6 (ADCX: the carry in CF) and F3 0F38 F6 (ADOX: in OF): reg += rm + carry,
 * the carry out to the same flag; no other flag changes, so two chains can interleave. */
enum { ADCX, ADOX };
void op_adx(Cpu *c, const Insn *in) {
  unsigned s = in->osz;
  uint64_t flag = in->op == ADCX ? F_CF : F_OF;
  bool carry = in->op == ADCX ? flag_cf(c) : flag_of(c);
  uint64_t a = reg_get(c, in->reg, s), b = rm_get(c, in, s), r = (a + b + carry) & size_mask(s);
  bool out = s == 8 ? r < a || (carry && r == a) : (a + b + carry) >> 32 != 0;
  reg_set(c, in->reg, r, s);
  flags_update(c, flag, out ? flag : 0);
  DISPATCH_NEXT(c, in);
}
