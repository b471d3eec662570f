/* ops_x87.h: handlers for the x87 floating-point instructions (escape opcodes D8..DF).
 *
 * Conventions: in->rm is i of an ST(i) operand; in->op is the arithmetic operation
 * (X87_ADD..X87_DIVR of x87_host.h, already swapped for the DC/DE "reversed" register
 * forms) or the D9 second byte of the operation; in->aux is how many registers the
 * instruction pops. */
#ifndef X64EMU_OPS_X87_H
#define X64EMU_OPS_X87_H

#include "insn.h"

/* Arithmetic and compares. in->op: X87_ADD..X87_DIVR including X87_COM/X87_COMP. */
void op_x87_arith_m32fp(Cpu *c, const Insn *in);   /* D8 /r */
void op_x87_arith_m64fp(Cpu *c, const Insn *in);   /* DC /r */
void op_x87_arith_m32int(Cpu *c, const Insn *in);  /* DA /r */
void op_x87_arith_m16int(Cpu *c, const Insn *in);  /* DE /r */
void op_x87_arith_st0_sti(Cpu *c, const Insn *in); /* D8 C0+ (and DC/DE D0/D8 compares) */
void op_x87_arith_sti_st0(Cpu *c, const Insn *in); /* DC C0+, DE C0+ with aux 1 */
void op_x87_fucom(Cpu *c, const Insn *in);         /* DD E0+, DD E8+ (aux 1) */
void op_x87_fcompp(Cpu *c, const Insn *in);        /* DE D9; in->op 1: DA E9 FUCOMPP */
void op_x87_fcomi(Cpu *c, const Insn *in);         /* DB F0+, DF F0+; in->op 1: DB/DF E8+ */
void op_x87_ftst(Cpu *c, const Insn *in);          /* D9 E4 */
void op_x87_fxam(Cpu *c, const Insn *in);          /* D9 E5 */

/* Loads, stores and moves on the stack. */
void op_x87_fld_m32(Cpu *c, const Insn *in);       /* D9 /0 */
void op_x87_fld_m64(Cpu *c, const Insn *in);       /* DD /0 */
void op_x87_fld_m80(Cpu *c, const Insn *in);       /* DB /5 */
void op_x87_fld_sti(Cpu *c, const Insn *in);       /* D9 C0+ */
void op_x87_fst_m32(Cpu *c, const Insn *in);       /* D9 /2, /3 (aux 1) */
void op_x87_fst_m64(Cpu *c, const Insn *in);       /* DD /2, /3 (aux 1) */
void op_x87_fstp_m80(Cpu *c, const Insn *in);      /* DB /7 */
void op_x87_fst_sti(Cpu *c, const Insn *in);       /* DD D0+, DD D8+ (aux 1), DF D0+, DF D8+ */
void op_x87_fstpnce(Cpu *c, const Insn *in);       /* D9 D8+ */
void op_x87_fild_m16(Cpu *c, const Insn *in);      /* DF /0 */
void op_x87_fild_m32(Cpu *c, const Insn *in);      /* DB /0 */
void op_x87_fild_m64(Cpu *c, const Insn *in);      /* DF /5 */
/* FIST/FISTP (in->op 0) and FISTTP (in->op 1). */
void op_x87_fist_m16(Cpu *c, const Insn *in);      /* DF /2, /3, /1 */
void op_x87_fist_m32(Cpu *c, const Insn *in);      /* DB /2, /3, /1 */
void op_x87_fist_m64(Cpu *c, const Insn *in);      /* DF /7, DD /1 */
void op_x87_fbld(Cpu *c, const Insn *in);          /* DF /4 */
void op_x87_fbstp(Cpu *c, const Insn *in);         /* DF /6 */
void op_x87_fldconst(Cpu *c, const Insn *in);      /* D9 E8..EE; in->op: second byte */
void op_x87_fxch(Cpu *c, const Insn *in);          /* D9 C8+ and aliases */
void op_x87_fcmov(Cpu *c, const Insn *in);         /* DA/DB C0..DF; in->op: condition code */

/* Sign, rounding and transcendental operations. in->op: the D9 second byte. */
void op_x87_fchs(Cpu *c, const Insn *in);          /* D9 E0 */
void op_x87_fabs(Cpu *c, const Insn *in);          /* D9 E1 */
void op_x87_unary(Cpu *c, const Insn *in);         /* F2XM1 FSQRT FRNDINT FSIN FCOS */
void op_x87_binary(Cpu *c, const Insn *in);        /* FPREM FPREM1 FSCALE */
void op_x87_binary_pop(Cpu *c, const Insn *in);    /* FYL2X FYL2XP1 FPATAN */
void op_x87_split(Cpu *c, const Insn *in);         /* FPTAN FSINCOS FXTRACT */

/* Control. */
void op_x87_fnstsw_ax(Cpu *c, const Insn *in);     /* DF E0 */
void op_x87_fnstsw_m16(Cpu *c, const Insn *in);    /* DD /7 */
void op_x87_fnstcw(Cpu *c, const Insn *in);        /* D9 /7 */
void op_x87_fldcw(Cpu *c, const Insn *in);         /* D9 /5 */
void op_x87_fninit(Cpu *c, const Insn *in);        /* DB E3 */
void op_x87_fnclex(Cpu *c, const Insn *in);        /* DB E2 */
void op_x87_ffree(Cpu *c, const Insn *in);         /* DD C0+; DF C0+ (FFREEP) with aux 1 */
void op_x87_fincstp(Cpu *c, const Insn *in);       /* D9 F7 */
void op_x87_fdecstp(Cpu *c, const Insn *in);       /* D9 F6 */
void op_x87_fnop(Cpu *c, const Insn *in);          /* D9 D0 */
void op_x87_fnstenv(Cpu *c, const Insn *in);       /* D9 /6 */
void op_x87_fldenv(Cpu *c, const Insn *in);        /* D9 /4 */
void op_x87_fnsave(Cpu *c, const Insn *in);        /* DD /6 */
void op_x87_frstor(Cpu *c, const Insn *in);        /* DD /4 */
void op_x87_fwait(Cpu *c, const Insn *in);         /* 9B: faults if an exception is pending */

#endif
