/* bits.c: bit test/set/reset/complement, bit scans and counts, byte swap. */
#include "access.h"
#include "flags.h"
#include "ops_int.h"

enum { BT, BTS, BTR, BTC };

/* BT* change only CF (the others are undefined; we keep them). */
static uint64_t bit_op(Cpu *c, const Insn *in, uint64_t v, unsigned bit) {
  uint64_t mask = 1ull << bit;
  if (in->flags_live & FL_CF) flags_update(c, F_CF, (v & mask) ? F_CF : 0);
  switch (in->op) {
  case BTS: return v | mask;
  case BTR: return v & ~mask;
  case BTC: return v ^ mask;
  default: return v;
  }
}

/* 0F A3 0F AB 0F B3 0F BB: with a memory operand the bit offset is a signed index
 * that may reach outside the addressed operand. */
void op_bt_rm_r(Cpu *c, const Insn *in) {
  unsigned s = in->osz, bits = s * 8;
  uint64_t off = reg_get(c, in->reg, s);
  if (!in->mem) {
    uint64_t v = reg_get(c, in->rm, s);
    uint64_t r = bit_op(c, in, v, (unsigned)(off & (bits - 1)));
    if (in->op != BT) reg_set(c, in->rm, r, s);
    return;
  }
  int64_t soff = bit_string_offset(c, in);
  uint64_t a = ea_plus(c, in, bit_string_word(soff, s));
  uint64_t v = ld(a, s);
  uint64_t r = bit_op(c, in, v, (unsigned)(soff & (bits - 1)));
  if (in->op != BT) st(a, r, s);
  DISPATCH_NEXT(c, in);
}

/* 0F BA /4../7 */
void op_bt_rm_imm(Cpu *c, const Insn *in) {
  unsigned s = in->osz;
  uint64_t v = rm_get(c, in, s);
  uint64_t r = bit_op(c, in, v, (unsigned)(in->imm & (s * 8 - 1)));
  if (in->op != BT) rm_set(c, in, r, s);
  DISPATCH_NEXT(c, in);
}

/* BSF/BSR: ZF says whether the source was zero; then the destination is unchanged. */
static void scan_flags(Cpu *c, const Insn *in, bool zero) {
  if (in->flags_live & FL_ZF) flags_update(c, F_ZF, zero ? F_ZF : 0);
}

/* 0F BC */
void op_bsf(Cpu *c, const Insn *in) {
  uint64_t v = rm_get(c, in, in->osz);
  scan_flags(c, in, v == 0);
  if (v) reg_set(c, in->reg, (uint64_t)__builtin_ctzll(v), in->osz);
  DISPATCH_NEXT(c, in);
}

/* 0F BD */
void op_bsr(Cpu *c, const Insn *in) {
  uint64_t v = rm_get(c, in, in->osz);
  scan_flags(c, in, v == 0);
  if (v) reg_set(c, in->reg, 63u - (unsigned)__builtin_clzll(v), in->osz);
  DISPATCH_NEXT(c, in);
}

/* F3 0F BD: CF = source was zero, ZF = result is zero. */
void op_lzcnt(Cpu *c, const Insn *in) {
  unsigned s = in->osz;
  uint64_t v = rm_get(c, in, s);
  uint64_t r = v ? (unsigned)__builtin_clzll(v) - (64 - s * 8) : s * 8;
  reg_set(c, in->reg, r, s);
  flags_update(c, F_CF | F_ZF, (v == 0 ? F_CF : 0) | (r == 0 ? F_ZF : 0));
  DISPATCH_NEXT(c, in);
}

/* F3 0F B8: ZF = source was zero, the other arithmetic flags cleared. */
void op_popcnt(Cpu *c, const Insn *in) {
  uint64_t v = rm_get(c, in, in->osz);
  reg_set(c, in->reg, (uint64_t)__builtin_popcountll(v), in->osz);
  flags_set(c, (flags_get(c) & ~(uint64_t)F_ARITH) | (v == 0 ? F_ZF : 0));
  DISPATCH_NEXT(c, in);
}

/* 0F C8+r; with a 16-bit operand the result is undefined (the CPU gives zero). */
void op_bswap(Cpu *c, const Insn *in) {
  if (in->osz == 8) c->r[in->reg] = __builtin_bswap64(c->r[in->reg]);
  else if (in->osz == 4) c->r[in->reg] = __builtin_bswap32((uint32_t)c->r[in->reg]);
  else reg_set(c, in->reg, 0, 2);
  DISPATCH_NEXT(c, in);
}
