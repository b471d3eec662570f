/* alu.c: two-operand arithmetic and logic, INC/DEC/NOT/NEG, multiply and divide. */
#include <signal.h>

#include "access.h"
#include "flags.h"
#include "ops_int.h"
#include "run.h"

/* One ALU operation at `size` bytes; records flags; returns the (unmasked) result. */
static inline uint64_t alu(Cpu *c, unsigned op, uint64_t a, uint64_t b, unsigned size) {
  uint64_t r;
  switch (op) {
  case ALU_ADD: r = a + b; lazy_set(c, LF_ADD, size, r, a, b); break;
  case ALU_OR: r = a | b; lazy_set(c, LF_LOGIC, size, r, a, b); break;
  case ALU_ADC: {
    uint8_t cin = flag_cf(c);
    r = a + b + cin;
    lazy_set(c, LF_ADC, size, r, a, b);
    c->lf.cin = cin;
    break;
  }
  case ALU_SBB: {
    uint8_t cin = flag_cf(c);
    r = a - b - cin;
    lazy_set(c, LF_SBB, size, r, a, b);
    c->lf.cin = cin;
    break;
  }
  case ALU_AND: r = a & b; lazy_set(c, LF_LOGIC, size, r, a, b); break;
  case ALU_XOR: r = a ^ b; lazy_set(c, LF_LOGIC, size, r, a, b); break;
  default: r = a - b; lazy_set(c, LF_SUB, size, r, a, b); break; /* SUB, CMP */
  }
  return r;
}

/* 00 01 08 09 ... 38 39 */
void op_alu_rm_r(Cpu *c, const Insn *in) {
  unsigned s = in->osz;
  uint64_t b = reg_get(c, in->reg, s);
  if (in->mem) {
    uint64_t a = ea(c, in);
    uint64_t r = alu(c, in->op, ld(a, s), b, s);
    if (in->op != ALU_CMP) st(a, r, s);
  } else {
    uint64_t r = alu(c, in->op, reg_get(c, in->rm, s), b, s);
    if (in->op != ALU_CMP) reg_set(c, in->rm, r, s);
  }
  DISPATCH_NEXT(c, in);
}

/* 02 03 0A 0B ... 3A 3B */
void op_alu_r_rm(Cpu *c, const Insn *in) {
  unsigned s = in->osz;
  uint64_t r = alu(c, in->op, reg_get(c, in->reg, s), rm_get(c, in, s), s);
  if (in->op != ALU_CMP) reg_set(c, in->reg, r, s);
  DISPATCH_NEXT(c, in);
}

/* 04 05 0C 0D ... 80 81 83 */
void op_alu_rm_imm(Cpu *c, const Insn *in) {
  unsigned s = in->osz;
  if (in->mem) {
    uint64_t a = ea(c, in);
    uint64_t r = alu(c, in->op, ld(a, s), in->imm, s);
    if (in->op != ALU_CMP) st(a, r, s);
  } else {
    uint64_t r = alu(c, in->op, reg_get(c, in->rm, s), in->imm, s);
    if (in->op != ALU_CMP) reg_set(c, in->rm, r, s);
  }
  DISPATCH_NEXT(c, in);
}

/* 84 85 */
void op_test_rm_r(Cpu *c, const Insn *in) {
  unsigned s = in->osz;
  uint64_t a = rm_get(c, in, s), b = reg_get(c, in->reg, s);
  lazy_set(c, LF_LOGIC, s, a & b, a, b);
  DISPATCH_NEXT(c, in);
}

/* A8 A9 F6/0 F7/0 */
void op_test_rm_imm(Cpu *c, const Insn *in) {
  unsigned s = in->osz;
  uint64_t a = rm_get(c, in, s);
  lazy_set(c, LF_LOGIC, s, a & in->imm, a, in->imm);
  DISPATCH_NEXT(c, in);
}

/* FE/0 FF/0 */
void op_inc(Cpu *c, const Insn *in) {
  unsigned s = in->osz;
  uint8_t cf = (in->flags_live & FL_CF) && flag_cf(c); /* kept only if read later */
  uint64_t a = rm_get(c, in, s);
  rm_set(c, in, a + 1, s);
  lazy_set(c, LF_INC, s, a + 1, a, 1);
  c->lf.cin = cf;
  DISPATCH_NEXT(c, in);
}

/* FE/1 FF/1 */
void op_dec(Cpu *c, const Insn *in) {
  unsigned s = in->osz;
  uint8_t cf = (in->flags_live & FL_CF) && flag_cf(c);
  uint64_t a = rm_get(c, in, s);
  rm_set(c, in, a - 1, s);
  lazy_set(c, LF_DEC, s, a - 1, a, 1);
  c->lf.cin = cf;
  DISPATCH_NEXT(c, in);
}

/* F6/2 F7/2 */
void op_not(Cpu *c, const Insn *in) {
  rm_set(c, in, ~rm_get(c, in, in->osz), in->osz);
  DISPATCH_NEXT(c, in);
}

/* F6/3 F7/3: flags as for 0 - x */
void op_neg(Cpu *c, const Insn *in) {
  unsigned s = in->osz;
  uint64_t a = rm_get(c, in, s);
  rm_set(c, in, 0 - a, s);
  lazy_set(c, LF_SUB, s, 0 - a, 0, a);
  DISPATCH_NEXT(c, in);
}

/* MUL/IMUL define only CF and OF; the other arithmetic flags are left as the result's. */
static void set_mul_flags(Cpu *c, const Insn *in, bool overflow, uint64_t low, unsigned s) {
  if (!in->flags_live) return;
  lazy_set(c, LF_LOGIC, s, low, 0, 0);
  flags_update(c, F_CF | F_OF, overflow ? F_CF | F_OF : 0);
}

/* F6/4 F7/4 */
void op_mul(Cpu *c, const Insn *in) {
  unsigned s = in->osz;
  uint64_t b = rm_get(c, in, s);
  switch (s) {
  case 1: {
    uint16_t r = (uint16_t)((uint8_t)c->r[RAX] * b);
    reg_set(c, RAX, r, 2);
    set_mul_flags(c, in, r >> 8, r, 1);
    break;
  }
  case 2: {
    uint32_t r = (uint32_t)((uint16_t)c->r[RAX] * b);
    reg_set(c, RAX, r, 2);
    reg_set(c, RDX, r >> 16, 2);
    set_mul_flags(c, in, r >> 16, r, 2);
    break;
  }
  case 4: {
    uint64_t r = (uint64_t)(uint32_t)c->r[RAX] * b;
    reg_set(c, RAX, r, 4);
    reg_set(c, RDX, r >> 32, 4);
    set_mul_flags(c, in, r >> 32, r, 4);
    break;
  }
  default: {
    unsigned __int128 r = (unsigned __int128)c->r[RAX] * b;
    c->r[RAX] = (uint64_t)r;
    c->r[RDX] = (uint64_t)(r >> 64);
    set_mul_flags(c, in, c->r[RDX] != 0, c->r[RAX], 8);
    break;
  }
  }
  DISPATCH_NEXT(c, in);
}

/* F6/5 F7/5 */
void op_imul1(Cpu *c, const Insn *in) {
  unsigned s = in->osz;
  int64_t b = (int64_t)sign_extend(rm_get(c, in, s), s);
  switch (s) {
  case 1: {
    int16_t r = (int16_t)((int8_t)c->r[RAX] * b);
    reg_set(c, RAX, (uint16_t)r, 2);
    set_mul_flags(c, in, r != (int8_t)r, (uint64_t)r, 1);
    break;
  }
  case 2: {
    int32_t r = (int32_t)((int16_t)c->r[RAX] * b);
    reg_set(c, RAX, (uint32_t)r, 2);
    reg_set(c, RDX, (uint32_t)r >> 16, 2);
    set_mul_flags(c, in, r != (int16_t)r, (uint64_t)r, 2);
    break;
  }
  case 4: {
    int64_t r = (int64_t)(int32_t)c->r[RAX] * b;
    reg_set(c, RAX, (uint64_t)r, 4);
    reg_set(c, RDX, (uint64_t)r >> 32, 4);
    set_mul_flags(c, in, r != (int32_t)r, (uint64_t)r, 4);
    break;
  }
  default: {
    __int128 r = (__int128)(int64_t)c->r[RAX] * b;
    c->r[RAX] = (uint64_t)r;
    c->r[RDX] = (uint64_t)(r >> 64);
    set_mul_flags(c, in, r != (int64_t)r, c->r[RAX], 8);
    break;
  }
  }
  DISPATCH_NEXT(c, in);
}

static int64_t imul_trunc(Cpu *c, const Insn *in, int64_t a, int64_t b, unsigned s) {
  __int128 full = (__int128)a * b;
  int64_t r = (int64_t)sign_extend((uint64_t)full, s);
  set_mul_flags(c, in, full != r, (uint64_t)r, s);
  return r;
}

/* 0F AF */
void op_imul_r_rm(Cpu *c, const Insn *in) {
  unsigned s = in->osz;
  int64_t a = (int64_t)sign_extend(reg_get(c, in->reg, s), s);
  int64_t b = (int64_t)sign_extend(rm_get(c, in, s), s);
  reg_set(c, in->reg, (uint64_t)imul_trunc(c, in, a, b, s), s);
  DISPATCH_NEXT(c, in);
}

/* 69 6B */
void op_imul_r_rm_imm(Cpu *c, const Insn *in) {
  unsigned s = in->osz;
  int64_t a = (int64_t)sign_extend(rm_get(c, in, s), s);
  reg_set(c, in->reg, (uint64_t)imul_trunc(c, in, a, (int64_t)in->imm, s), s);
  DISPATCH_NEXT(c, in);
}

#define DIVIDE_ERROR() guest_trap(c, SIGFPE, FPE_INTDIV, in->rip)

/* F6/6 F7/6 */
void op_div(Cpu *c, const Insn *in) {
  unsigned s = in->osz;
  uint64_t d = rm_get(c, in, s);
  if (d == 0) DIVIDE_ERROR();
  if (s == 1) {
    uint16_t n = (uint16_t)c->r[RAX];
    if (n / d > 0xff) DIVIDE_ERROR();
    reg_set(c, RAX, (uint16_t)((n % d) << 8 | (n / d)), 2);
    return;
  }
  unsigned __int128 n = s == 8 ? ((unsigned __int128)c->r[RDX] << 64 | c->r[RAX])
                               : (reg_get(c, RDX, s) << (8 * s)) | reg_get(c, RAX, s);
  unsigned __int128 q = n / d;
  if (q > size_mask(s)) DIVIDE_ERROR();
  reg_set(c, RAX, (uint64_t)q, s);
  reg_set(c, RDX, (uint64_t)(n % d), s);
  DISPATCH_NEXT(c, in);
}

/* F6/7 F7/7 */
void op_idiv(Cpu *c, const Insn *in) {
  unsigned s = in->osz;
  int64_t d = (int64_t)sign_extend(rm_get(c, in, s), s);
  if (d == 0) DIVIDE_ERROR();
  __int128 n;
  if (s == 1) n = (int16_t)c->r[RAX];
  else if (s == 8) n = (__int128)((unsigned __int128)c->r[RDX] << 64 | c->r[RAX]);
  else n = (int64_t)sign_extend((reg_get(c, RDX, s) << (8 * s)) | reg_get(c, RAX, s), s * 2);
  /* The one overflow a 128-bit quotient cannot express: INT128_MIN / -1. */
  if (s == 8 && d == -1 && n == (__int128)((unsigned __int128)1 << 127)) DIVIDE_ERROR();
  __int128 q = n / d, r = n % d;
  int64_t lim = (int64_t)(size_mask(s) >> 1);
  if (q > lim || q < -lim - 1) DIVIDE_ERROR();
  if (s == 1) {
    reg_set(c, RAX, (uint16_t)(((uint8_t)r) << 8 | (uint8_t)q), 2);
    return;
  }
  reg_set(c, RAX, (uint64_t)q, s);
  reg_set(c, RDX, (uint64_t)r, s);
  DISPATCH_NEXT(c, in);
}
