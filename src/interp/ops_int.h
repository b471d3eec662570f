/* ops_int.h: handlers for the general-purpose (integer and system) instructions. */
#ifndef X64EMU_OPS_INT_H
#define X64EMU_OPS_INT_H

#include "insn.h"

/* ALU: in->op is the x86 ALU number (0 add, 1 or, 2 adc, 3 sbb, 4 and, 5 sub, 6 xor,
 * 7 cmp). */
enum { ALU_ADD, ALU_OR, ALU_ADC, ALU_SBB, ALU_AND, ALU_SUB, ALU_XOR, ALU_CMP };
void op_alu_rm_r(Cpu *c, const Insn *in);   /* E op= G */
void op_alu_r_rm(Cpu *c, const Insn *in);   /* G op= E */
void op_alu_rm_imm(Cpu *c, const Insn *in); /* E op= imm */
void op_test_rm_r(Cpu *c, const Insn *in);
void op_test_rm_imm(Cpu *c, const Insn *in);
void op_inc(Cpu *c, const Insn *in);
void op_dec(Cpu *c, const Insn *in);
void op_not(Cpu *c, const Insn *in);
void op_neg(Cpu *c, const Insn *in);
void op_mul(Cpu *c, const Insn *in);       /* F6/F7 /4 */
void op_imul1(Cpu *c, const Insn *in);     /* F6/F7 /5 */
void op_div(Cpu *c, const Insn *in);       /* F6/F7 /6 */
void op_idiv(Cpu *c, const Insn *in);      /* F6/F7 /7 */
void op_imul_r_rm(Cpu *c, const Insn *in); /* 0F AF */
void op_imul_r_rm_imm(Cpu *c, const Insn *in); /* 69, 6B */

/* Shifts and rotates: in->op is ModRM.reg (0 rol .. 7 sar); count from imm, 1 or CL. */
void op_shift_imm(Cpu *c, const Insn *in);
void op_shift_cl(Cpu *c, const Insn *in);
void op_shld(Cpu *c, const Insn *in);      /* in->aux: 1 count in CL, 0 in imm */
void op_shrd(Cpu *c, const Insn *in);

/* Bits. in->op: 0 bt, 1 bts, 2 btr, 3 btc. */
void op_bt_rm_r(Cpu *c, const Insn *in);
void op_bt_rm_imm(Cpu *c, const Insn *in);
void op_bsf(Cpu *c, const Insn *in);
void op_bsr(Cpu *c, const Insn *in);
void op_lzcnt(Cpu *c, const Insn *in);
void op_popcnt(Cpu *c, const Insn *in);
/* bmi.c: BMI1, BMI2, ADX */
void op_andn(Cpu *c, const Insn *in);
void op_bextr(Cpu *c, const Insn *in);
void op_bls(Cpu *c, const Insn *in);
void op_tzcnt(Cpu *c, const Insn *in);
void op_bzhi(Cpu *c, const Insn *in);
void op_mulx(Cpu *c, const Insn *in);
void op_pdep(Cpu *c, const Insn *in);
void op_pext(Cpu *c, const Insn *in);
void op_rorx(Cpu *c, const Insn *in);
void op_shiftx(Cpu *c, const Insn *in);
void op_adx(Cpu *c, const Insn *in);
void op_bswap(Cpu *c, const Insn *in);

/* Moves. */
void op_mov_rm_r(Cpu *c, const Insn *in);
void op_mov_r_rm(Cpu *c, const Insn *in);
void op_mov_rm_imm(Cpu *c, const Insn *in);
void op_mov_r_imm(Cpu *c, const Insn *in);  /* in->reg = imm */
void op_movzx(Cpu *c, const Insn *in);      /* in->aux: source size */
void op_movsx(Cpu *c, const Insn *in);      /* in->aux: source size */
void op_lea(Cpu *c, const Insn *in);
void op_xchg(Cpu *c, const Insn *in);       /* reg <-> rm */
void op_cmov(Cpu *c, const Insn *in);       /* in->op: condition code */
void op_setcc(Cpu *c, const Insn *in);
void op_xlat(Cpu *c, const Insn *in);        /* D7: AL = [RBX + AL] */
void op_cbw(Cpu *c, const Insn *in);        /* 98: cbw/cwde/cdqe */
void op_cwd(Cpu *c, const Insn *in);        /* 99: cwd/cdq/cqo */
void op_cmpxchg(Cpu *c, const Insn *in);
void op_cmpxchg16b(Cpu *c, const Insn *in); /* also 8B with osz 4 */
void op_xadd(Cpu *c, const Insn *in);
void op_movbe(Cpu *c, const Insn *in);      /* in->aux: 0 load, 1 store */

/* Flags. */
void op_lahf(Cpu *c, const Insn *in);
void op_sahf(Cpu *c, const Insn *in);
void op_pushf(Cpu *c, const Insn *in);
void op_popf(Cpu *c, const Insn *in);
void op_flagop(Cpu *c, const Insn *in);     /* in->op: 0 clc 1 stc 2 cmc 3 cld 4 std */

/* Stack and control transfer. */
void op_push_r(Cpu *c, const Insn *in);
void op_pop_r(Cpu *c, const Insn *in);
void op_push_rm(Cpu *c, const Insn *in);
void op_pop_rm(Cpu *c, const Insn *in);
void op_push_imm(Cpu *c, const Insn *in);
void op_enter(Cpu *c, const Insn *in);
void op_leave(Cpu *c, const Insn *in);
void op_jmp(Cpu *c, const Insn *in);        /* target in imm */
void op_jmp_rm(Cpu *c, const Insn *in);
void op_jcc(Cpu *c, const Insn *in);        /* in->op: condition code, target in imm */
void op_call(Cpu *c, const Insn *in);
void op_call_rm(Cpu *c, const Insn *in);
void op_ret(Cpu *c, const Insn *in);        /* imm: bytes to pop after the return address */
void op_loop(Cpu *c, const Insn *in);       /* in->op: 0 loopne, 1 loope, 2 loop, 3 jrcxz */

/* Strings: in->op: 0 movs, 1 cmps, 2 stos, 3 lods, 4 scas; in->rep, in->osz. */
void op_string(Cpu *c, const Insn *in);

/* Segments and descriptor tables (segments.c): in->op is the segment register (0 ES ...
 * 5 GS), or which of a pair (LAR 0 / LSL 1, VERR 0 / VERW 1, SLDT 0 / STR 1, SGDT 0 /
 * SIDT 1). */
void op_mov_from_sreg(Cpu *c, const Insn *in);
void op_mov_to_sreg(Cpu *c, const Insn *in);
void op_pop_sreg(Cpu *c, const Insn *in);
void op_load_far(Cpu *c, const Insn *in);
void op_lar_lsl(Cpu *c, const Insn *in);
void op_verr_verw(Cpu *c, const Insn *in);
void op_sldt_str(Cpu *c, const Insn *in);
void op_smsw(Cpu *c, const Insn *in);
void op_sgdt_sidt(Cpu *c, const Insn *in);

/* System. */
void op_nop(Cpu *c, const Insn *in);
void op_pause(Cpu *c, const Insn *in);
void op_syscall(Cpu *c, const Insn *in);
void op_cpuid(Cpu *c, const Insn *in);
void op_rdtsc(Cpu *c, const Insn *in);
void op_rdtscp(Cpu *c, const Insn *in);
void op_int3(Cpu *c, const Insn *in);
void op_int(Cpu *c, const Insn *in);
void op_icebp(Cpu *c, const Insn *in);
void op_push_sreg(Cpu *c, const Insn *in);    /* in->op: 4 FS, 5 GS */
void op_retf(Cpu *c, const Insn *in);
void op_iret(Cpu *c, const Insn *in);
void op_jmp_far(Cpu *c, const Insn *in);
void op_call_far(Cpu *c, const Insn *in);
void op_privileged(Cpu *c, const Insn *in);  /* hlt, cli, sti, in/out, ins/outs, lgdt...: #GP -> SIGSEGV */
void op_ud(Cpu *c, const Insn *in);          /* UD2, and encodings the CPU refuses: SIGILL */
void op_too_long(Cpu *c, const Insn *in);    /* more than 15 bytes: #GP -> SIGSEGV */
void op_undefined(Cpu *c, const Insn *in);   /* not implemented: SIGILL with a message */
void op_fetch_fault(Cpu *c, const Insn *in); /* bytes unreadable: SIGSEGV at in->disp */

/* The record before an instruction x86 makes atomic (atomic.c): aux is the size of its
 * memory operand, op how the host makes it atomic: a compare-and-swap of the result
 * (ATOMIC_CAS; ATOMIC_BIT_OFFSET when a register's bit offset moves the operand, BTS...),
 * or the host's own atomic operation with the instruction's source, the register `reg`
 * when rm is 1, else imm. */
void op_atomic(Cpu *c, const Insn *in);
void watched_op_atomic(Cpu *c, const Insn *in); /* the copy that reports accesses */
enum {
  ATOMIC_CAS, ATOMIC_BIT_OFFSET,
  ATOMIC_FETCH_ADD, ATOMIC_FETCH_SUB, ATOMIC_FETCH_AND, ATOMIC_FETCH_OR, ATOMIC_FETCH_XOR,
  ATOMIC_EXCHANGE, ATOMIC_COMPARE, /* CMPXCHG: source reg, compared with the accumulator */
};

#endif
