/* decode_x87.c: the x87 escape opcodes D8..DF. The operation and the memory operand's
 * width come from the opcode and ModRM.reg (Capstone's x87 operand sizes and access
 * flags are not to be trusted); REX bits do not apply to ST(i). */
#include "../interp/ops_int.h"
#include "../interp/ops_x87.h"
#include "../interp/x87_host.h"
#include "decode.h"

static void set(Insn *in, Handler fn, unsigned op, unsigned aux) {
  in->fn = fn;
  in->op = (uint8_t)op;
  in->aux = (uint8_t)aux;
}

static bool decode_mem(const DecodeCtx *d, Insn *in) {
  unsigned reg = d->modrm_reg;
  /* 66 selects the 16-bit layouts of the environment instructions, not implemented. */
  bool env16 = d->p66;
  switch (d->opcode) {
  case 0xD8: set(in, op_x87_arith_m32fp, reg, 0); in->osz = 4; return true;
  case 0xDA: set(in, op_x87_arith_m32int, reg, 0); in->osz = 4; return true;
  case 0xDC: set(in, op_x87_arith_m64fp, reg, 0); in->osz = 8; return true;
  case 0xDE: set(in, op_x87_arith_m16int, reg, 0); in->osz = 2; return true;
  case 0xD9:
    switch (reg) {
    case 0: set(in, op_x87_fld_m32, 0, 0); in->osz = 4; return true;
    case 2: set(in, op_x87_fst_m32, 0, 0); in->osz = 4; return true;
    case 3: set(in, op_x87_fst_m32, 0, 1); in->osz = 4; return true;
    case 4: set(in, op_x87_fldenv, 0, 0); return !env16;
    case 5: set(in, op_x87_fldcw, 0, 0); in->osz = 2; return true;
    case 6: set(in, op_x87_fnstenv, 0, 0); return !env16;
    case 7: set(in, op_x87_fnstcw, 0, 0); in->osz = 2; return true;
    default: return false;
    }
  case 0xDB:
    in->osz = 4;
    switch (reg) {
    case 0: set(in, op_x87_fild_m32, 0, 0); return true;
    case 1: set(in, op_x87_fist_m32, 1, 1); return true; /* FISTTP */
    case 2: set(in, op_x87_fist_m32, 0, 0); return true;
    case 3: set(in, op_x87_fist_m32, 0, 1); return true;
    case 5: set(in, op_x87_fld_m80, 0, 0); in->osz = 10; return true;
    case 7: set(in, op_x87_fstp_m80, 0, 1); in->osz = 10; return true;
    default: return false;
    }
  case 0xDD:
    switch (reg) {
    case 0: set(in, op_x87_fld_m64, 0, 0); in->osz = 8; return true;
    case 1: set(in, op_x87_fist_m64, 1, 1); in->osz = 8; return true; /* FISTTP */
    case 2: set(in, op_x87_fst_m64, 0, 0); in->osz = 8; return true;
    case 3: set(in, op_x87_fst_m64, 0, 1); in->osz = 8; return true;
    case 4: set(in, op_x87_frstor, 0, 0); return !env16;
    case 6: set(in, op_x87_fnsave, 0, 0); return !env16;
    case 7: set(in, op_x87_fnstsw_m16, 0, 0); in->osz = 2; return true;
    default: return false;
    }
  default: /* DF */
    in->osz = 2;
    switch (reg) {
    case 0: set(in, op_x87_fild_m16, 0, 0); return true;
    case 1: set(in, op_x87_fist_m16, 1, 1); return true; /* FISTTP */
    case 2: set(in, op_x87_fist_m16, 0, 0); return true;
    case 3: set(in, op_x87_fist_m16, 0, 1); return true;
    case 4: set(in, op_x87_fbld, 0, 0); in->osz = 10; return true;
    case 5: set(in, op_x87_fild_m64, 0, 0); in->osz = 8; return true;
    case 6: set(in, op_x87_fbstp, 0, 1); in->osz = 10; return true;
    default: set(in, op_x87_fist_m64, 0, 1); in->osz = 8; return true;
    }
  }
}

/* D9 E0..FF: the operation is the second byte. */
static bool decode_d9_ops(uint8_t b, Insn *in) {
  switch (b) {
  case 0xE0: set(in, op_x87_fchs, 0, 0); return true;
  case 0xE1: set(in, op_x87_fabs, 0, 0); return true;
  case 0xE4: set(in, op_x87_ftst, 0, 0); return true;
  case 0xE5: set(in, op_x87_fxam, 0, 0); return true;
  case X87_FLD1: case X87_FLDL2T: case X87_FLDL2E: case X87_FLDPI:
  case X87_FLDLG2: case X87_FLDLN2: case X87_FLDZ:
    set(in, op_x87_fldconst, b, 0);
    return true;
  case X87_F2XM1: case X87_FSQRT: case X87_FRNDINT: case X87_FSIN: case X87_FCOS:
    set(in, op_x87_unary, b, 0);
    return true;
  case X87_FPREM: case X87_FPREM1: case X87_FSCALE:
    set(in, op_x87_binary, b, 0);
    return true;
  case X87_FYL2X: case X87_FYL2XP1: case X87_FPATAN:
    set(in, op_x87_binary_pop, b, 0);
    return true;
  case X87_FPTAN: case X87_FSINCOS: case X87_FXTRACT:
    set(in, op_x87_split, b, 0);
    return true;
  case 0xF6: set(in, op_x87_fdecstp, 0, 0); return true;
  case 0xF7: set(in, op_x87_fincstp, 0, 0); return true;
  default: return false;
  }
}

/* FCMOVcc: DA C0/C8/D0/D8 are B, E, BE, U; DB the negations. */
static const uint8_t fcmov_cond[4] = {0x2, 0x4, 0x6, 0xA};

static bool decode_reg(const DecodeCtx *d, Insn *in) {
  unsigned reg = d->modrm_reg, i = d->modrm_rm;
  uint8_t second = (uint8_t)(0xC0 | reg << 3 | i);
  in->rm = (uint8_t)i;
  switch (d->opcode) {
  case 0xD8: set(in, op_x87_arith_st0_sti, reg, 0); return true;
  case 0xD9:
    switch (reg) {
    case 0: set(in, op_x87_fld_sti, 0, 0); return true;
    case 1: set(in, op_x87_fxch, 0, 0); return true;
    case 2: set(in, op_x87_fnop, 0, 0); return i == 0;
    case 3: set(in, op_x87_fstpnce, 0, 1); return true;
    default: return decode_d9_ops(second, in);
    }
  case 0xDA:
    if (reg < 4) {
      set(in, op_x87_fcmov, fcmov_cond[reg], 0);
      return true;
    }
    set(in, op_x87_fcompp, 1, 2); /* FUCOMPP */
    return second == 0xE9;
  case 0xDB:
    if (reg < 4) {
      set(in, op_x87_fcmov, fcmov_cond[reg] ^ 1, 0);
      return true;
    }
    switch (second) {
    case 0xE0: case 0xE1: case 0xE4: /* FENI, FDISI, FSETPM: no-ops since the 80387 */
      set(in, op_nop, 0, 0);
      return true;
    case 0xE2: set(in, op_x87_fnclex, 0, 0); return true;
    case 0xE3: set(in, op_x87_fninit, 0, 0); return true;
    default: break;
    }
    if (reg == 5) { set(in, op_x87_fcomi, 1, 0); return true; } /* FUCOMI */
    if (reg == 6) { set(in, op_x87_fcomi, 0, 0); return true; }
    return false;
  case 0xDC:
  case 0xDE: {
    unsigned pops = d->opcode == 0xDE;
    if (reg == 2 || reg == 3) { /* FCOM/FCOMP aliases; DE D8+i other than D9 is FCOMPP's */
      if (d->opcode == 0xDE && reg == 3) {
        set(in, op_x87_fcompp, 0, 2);
        return i == 1;
      }
      set(in, op_x87_arith_st0_sti, d->opcode == 0xDE ? X87_COMP : reg, 0);
      return true;
    }
    /* The destination is ST(i): SUB/SUBR and DIV/DIVR swap their ModRM.reg numbers. */
    set(in, op_x87_arith_sti_st0, reg >= 4 ? reg ^ 1 : reg, pops);
    return true;
  }
  case 0xDD:
    switch (reg) {
    case 0: set(in, op_x87_ffree, 0, 0); return true;
    case 1: set(in, op_x87_fxch, 0, 0); return true;
    case 2: set(in, op_x87_fst_sti, 0, 0); return true;
    case 3: set(in, op_x87_fst_sti, 0, 1); return true;
    case 4: set(in, op_x87_fucom, 0, 0); return true;
    case 5: set(in, op_x87_fucom, 0, 1); return true;
    default: return false;
    }
  default: /* DF */
    switch (reg) {
    case 0: set(in, op_x87_ffree, 0, 1); return true; /* FFREEP */
    case 1: set(in, op_x87_fxch, 0, 0); return true;
    case 2: case 3: set(in, op_x87_fst_sti, 0, 1); return true;
    case 4: set(in, op_x87_fnstsw_ax, 0, 0); return i == 0;
    case 5: set(in, op_x87_fcomi, 1, 1); return true; /* FUCOMIP */
    case 6: set(in, op_x87_fcomi, 0, 1); return true; /* FCOMIP */
    default: return false;
    }
  }
}

bool decode_x87(DecodeCtx *d, Insn *in) {
  if (d->lock) return false; /* #UD */
  decode_modrm(d, in, false);
  return d->mod == 3 ? decode_reg(d, in) : decode_mem(d, in);
}
