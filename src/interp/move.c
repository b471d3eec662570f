/* move.c: data movement: MOV forms, extensions, LEA, XCHG, CMOVcc/SETcc, CMPXCHG, XADD. */
#include <signal.h>

#include "access.h"
#include "flags.h"
#include "ops_int.h"
#include "run.h"

/* 88 89 */
void op_mov_rm_r(Cpu *c, const Insn *in) {
  rm_set(c, in, reg_get(c, in->reg, in->osz), in->osz);
  DISPATCH_NEXT(c, in);
}
/* 8A 8B */
void op_mov_r_rm(Cpu *c, const Insn *in) {
  reg_set(c, in->reg, rm_get(c, in, in->osz), in->osz);
  DISPATCH_NEXT(c, in);
}
/* C6/0 C7/0 */
void op_mov_rm_imm(Cpu *c, const Insn *in) {
  rm_set(c, in, in->imm, in->osz);
  DISPATCH_NEXT(c, in);
}
/* B0+r B8+r */
void op_mov_r_imm(Cpu *c, const Insn *in) {
  reg_set(c, in->reg, in->imm, in->osz);
  DISPATCH_NEXT(c, in);
}

/* 0F B6 0F B7 */
void op_movzx(Cpu *c, const Insn *in) {
  reg_set(c, in->reg, rm_get(c, in, in->aux), in->osz);
  DISPATCH_NEXT(c, in);
}
/* 0F BE 0F BF 63 */
void op_movsx(Cpu *c, const Insn *in) {
  reg_set(c, in->reg, sign_extend(rm_get(c, in, in->aux), in->aux), in->osz);
  DISPATCH_NEXT(c, in);
}

/* 8D */
void op_lea(Cpu *c, const Insn *in) {
  uint64_t a = (uint64_t)in->disp + c->r[in->base] + (c->r[in->index] << in->scale);
  if (in->addr32) a = (uint32_t)a;
  reg_set(c, in->reg, a, in->osz);
  DISPATCH_NEXT(c, in);
}

/* 86 87 90+r */
void op_xchg(Cpu *c, const Insn *in) {
  unsigned s = in->osz;
  uint64_t a = rm_get(c, in, s), b = reg_get(c, in->reg, s);
  rm_set(c, in, b, s);
  reg_set(c, in->reg, a, s);
  DISPATCH_NEXT(c, in);
}

/* 0F 40+cc: the 32-bit form zero-extends the destination even when the condition fails. */
void op_cmov(Cpu *c, const Insn *in) {
  uint64_t v = rm_get(c, in, in->osz);
  if (cond(c, in->op)) reg_set(c, in->reg, v, in->osz);
  else if (in->osz == 4) c->r[in->reg] = (uint32_t)c->r[in->reg];
  DISPATCH_NEXT(c, in);
}

/* 0F 90+cc */
void op_setcc(Cpu *c, const Insn *in) {
  rm_set(c, in, cond(c, in->op), 1);
  DISPATCH_NEXT(c, in);
}

/* D7 */
void op_xlat(Cpu *c, const Insn *in) {
  uint64_t a = c->r[RBX] + (uint8_t)c->r[RAX];
  if (in->addr32) a = (uint32_t)a;
  if (in->seg == SEG_FS) a += c->fs_base;
  else if (in->seg == SEG_GS) a += c->gs_base;
  reg_set(c, RAX, ld8(a), 1);
  DISPATCH_NEXT(c, in);
}

/* 98 */
void op_cbw(Cpu *c, const Insn *in) {
  unsigned half = in->osz / 2;
  reg_set(c, RAX, sign_extend(reg_get(c, RAX, half), half), in->osz);
  DISPATCH_NEXT(c, in);
}

/* 99 */
void op_cwd(Cpu *c, const Insn *in) {
  unsigned s = in->osz;
  uint64_t sign = (reg_get(c, RAX, s) >> (s * 8 - 1)) & 1;
  reg_set(c, RDX, sign ? ~0ull : 0, s);
  DISPATCH_NEXT(c, in);
}

/* The CPU writes CMPXCHG's memory operand back when the comparison fails, and faults
 * there as for a store: a store of what was just loaded, which the compiler would drop
 * as redundant unless it forgets what memory holds. */
static inline void forget_memory(void) { __asm__ volatile("" ::: "memory"); }

/* 0F B0 0F B1: compare the accumulator with the destination; flags as CMP. */
void op_cmpxchg(Cpu *c, const Insn *in) {
  unsigned s = in->osz;
  uint64_t dst = rm_get(c, in, s), acc = reg_get(c, RAX, s);
  lazy_set(c, LF_SUB, s, acc - dst, acc, dst);
  if ((acc & size_mask(s)) == dst) {
    rm_set(c, in, reg_get(c, in->reg, s), s);
  } else {
    forget_memory();
    if (in->mem) rm_set(c, in, dst, s); /* the CPU always writes the memory operand */
    reg_set(c, RAX, dst, s);
  }
  DISPATCH_NEXT(c, in);
}

/* 0F C7 /1: CMPXCHG8B (osz 4) and CMPXCHG16B (osz 8, REX.W; 16-byte aligned). */
void op_cmpxchg16b(Cpu *c, const Insn *in) {
  uint64_t a = ea(c, in);
  if (in->osz == 8) {
    if (a & 15) guest_gp(c, 0); /* the alignment first, even at a non-canonical address */
    uint64_t lo = ld64(a), hi = ld64(a + 8);
    bool eq = lo == c->r[RAX] && hi == c->r[RDX];
    if (eq) {
      st64(a, c->r[RBX]);
      st64(a + 8, c->r[RCX]);
    } else {
      forget_memory();
      st64(a, lo);
      st64(a + 8, hi);
      c->r[RAX] = lo;
      c->r[RDX] = hi;
    }
    flags_update(c, F_ZF, eq ? F_ZF : 0);
  } else {
    uint64_t v = ld64(a);
    uint64_t want = (uint32_t)c->r[RAX] | c->r[RDX] << 32;
    bool eq = v == want;
    if (eq) st64(a, (uint32_t)c->r[RBX] | c->r[RCX] << 32);
    else {
      forget_memory();
      st64(a, v);
      reg_set(c, RAX, v, 4);
      reg_set(c, RDX, v >> 32, 4);
    }
    flags_update(c, F_ZF, eq ? F_ZF : 0);
  }
  DISPATCH_NEXT(c, in);
}

/* 0F C0 0F C1 */
void op_xadd(Cpu *c, const Insn *in) {
  unsigned s = in->osz;
  uint64_t a = in->mem ? ea(c, in) : 0; /* before the source register, maybe an address register, changes */
  uint64_t dst = in->mem ? ld(a, s) : reg_get(c, in->rm, s), src = reg_get(c, in->reg, s);
  uint64_t sum = dst + src;
  reg_set(c, in->reg, dst, s);
  if (in->mem) st(a, sum, s);
  else reg_set(c, in->rm, sum, s);
  lazy_set(c, LF_ADD, s, sum, dst, src);
  DISPATCH_NEXT(c, in);
}

static uint64_t bswap_size(uint64_t v, unsigned s) {
  return s == 8 ? __builtin_bswap64(v) : s == 4 ? __builtin_bswap32((uint32_t)v)
                                                : __builtin_bswap16((uint16_t)v);
}

/* 0F 38 F0 / F1 */
void op_movbe(Cpu *c, const Insn *in) {
  if (in->aux) rm_set(c, in, bswap_size(reg_get(c, in->reg, in->osz), in->osz), in->osz);
  else reg_set(c, in->reg, bswap_size(rm_get(c, in, in->osz), in->osz), in->osz);
  DISPATCH_NEXT(c, in);
}

/* 9F: AH = SF:ZF:0:AF:0:PF:1:CF */
void op_lahf(Cpu *c, const Insn *in) {
  reg_set(c, REG_AH, (flags_get(c) & 0xd5) | 2, 1);
  DISPATCH_NEXT(c, in);
}

/* 9E */
void op_sahf(Cpu *c, const Insn *in) {
  flags_update(c, F_SF | F_ZF | F_AF | F_PF | F_CF, reg_get(c, REG_AH, 1));
  DISPATCH_NEXT(c, in);
}

/* 9C: VM and RF read as 0 */
void op_pushf(Cpu *c, const Insn *in) {
  uint64_t f = flags_get(c) & ~0x30000ull;
  if (in->osz == 2) {
    st16(c->r[RSP] - 2, (uint16_t)f);
    c->r[RSP] -= 2;
  } else {
    push64(c, f);
  }
  DISPATCH_NEXT(c, in);
}

/* 9D: user mode may change the arithmetic flags, TF, DF, AC and ID; not IF/IOPL. */
void op_popf(Cpu *c, const Insn *in) {
  uint64_t v;
  if (in->osz == 2) {
    v = ld16(c->r[RSP]);
    c->r[RSP] += 2;
  } else {
    v = pop64(c);
  }
  uint64_t writable = F_ARITH | F_TF | F_DF | F_AC | F_ID;
  if (in->osz == 2) writable &= 0xffff;
  flags_update(c, writable, v);
  DISPATCH_NEXT(c, in);
}

/* F8 F9 F5 FC FD */
void op_flagop(Cpu *c, const Insn *in) {
  switch (in->op) {
  case 0: flags_update(c, F_CF, 0); break;
  case 1: flags_update(c, F_CF, F_CF); break;
  case 2: flags_update(c, F_CF, flag_cf(c) ? 0 : F_CF); break;
  case 3: c->rflags &= ~(uint64_t)F_DF; break;
  default: c->rflags |= F_DF; break;
  }
  DISPATCH_NEXT(c, in);
}
