/* ops_fast.h: specialised handlers for the hottest instruction forms. */
#ifndef X64EMU_OPS_FAST_H
#define X64EMU_OPS_FAST_H

#include "insn.h"

/* The pickers the instruction table's rows name (their fast column): each returns the
 * specialised copy of the row's generic handler for this decoded instance, or NULL. The
 * copy behaves exactly like the generic handler on this Insn; the differential tests
 * reach the copies through the decoder, which always installs them. A picker may set
 * in->aux for its copy (fast_shift_imm: the count modulo the width). */
Handler fast_alu_rm_r(Insn *in);   /* 00 01 38 39: register or memory destination */
Handler fast_alu_r_rm(Insn *in);   /* 03: register or memory source */
Handler fast_alu_rm_imm(Insn *in); /* 05 80 81 83 */
Handler fast_test_rm_r(Insn *in);  /* 85: register or memory */
Handler fast_mov_rm_r(Insn *in);   /* 89 A3 */
Handler fast_mov_r_rm(Insn *in);   /* 8B A1 63: loads and register copies */
Handler fast_mov8_r_rm(Insn *in);  /* 8A: byte loads */
Handler fast_mov8_rm_r(Insn *in);  /* 88: byte stores */
Handler fast_mov_r_imm(Insn *in);  /* B8+r */
Handler fast_mov_rm_imm(Insn *in); /* C6, C7 */
Handler fast_inc(Insn *in);        /* FF /0: a 32- or 64-bit register */
Handler fast_dec(Insn *in);        /* FF /1: a 32- or 64-bit register */
Handler fast_lea(Insn *in);        /* 8D: 32- and 64-bit addresses and results */
Handler fast_movzx(Insn *in);      /* 0F B6 0F B7 */
Handler fast_movsx(Insn *in);      /* 0F BE 0F BF 63 */
Handler fast_cmov(Insn *in);       /* 0F 4x but CMOVO, CMOVNO, CMOVP and CMOVNP */
Handler fast_shift_imm(Insn *in);  /* C1 D1: a register by a non-zero count */
Handler fast_jcc(Insn *in);        /* 7x, 0F 8x but JO, JNO, JP and JNP */

/* What pairs or fuses records of one copy of the handlers into faster ones (fuse.c,
 * block.c): a copy's functions know only their own handlers (each copy's globals are
 * renamed, CMakeLists.txt), and the records of a block come from one copy. */
typedef struct FastPairing {
  /* The side-exit form of a conditional jump's record (Insn.side_exit), or NULL. */
  Handler (*side_exit)(const Insn *in);
  /* The handler that does both a specialised flag setter and the fast Jcc after it, when
   * those are the last two records of a block or the Jcc is a side exit (its _x form), or
   * NULL: SUB, AND and TEST with JB, JAE, JZ or JNZ; CMP with any fast Jcc but JS and
   * JNS; INC and DEC with JZ or JNZ. */
  Handler (*fused_jcc)(Handler setter, Handler jcc);
  /* The handler that does a register copy (89, register form) and then the specialised
   * register operation after it, when fast.c has one for the pair, or NULL. */
  Handler (*after_move)(Handler move, Handler op);
  /* The form of fn that records no flags, for an instruction whose flags nothing reads;
   * NULL if fn has none. */
  Handler (*without_flags)(Handler fn);
  /* AES code (ops_crypto.h): the fused run of n register-form AESENCs with handler fn,
   * and the fused round loop that the n records of a block are; NULL where none is. */
  Handler (*aesenc_run)(Handler fn, unsigned n);
  Handler (*round_loop)(const Insn *records, unsigned n);
} FastPairing;
/* The plain copy's; the ordered copy's is ordered_fast_pairing (X64EMU_HAS_ORDERED_COPY).
 * The watched copy has none: while memory is watched, a stop check stands between every
 * two records of a block (block.c), and every flag is read. */
extern const FastPairing fast_pairing;
#ifdef X64EMU_HAS_ORDERED_COPY
extern const FastPairing ordered_fast_pairing;
#endif

/* Whether fn is the specialised DEC of a 32-bit register, LEA r64, [base + disp], or JNZ:
 * the bookkeeping of the counted loops fused (aes.c). */
bool fast_is_dec32(Handler fn);
bool fast_is_lea64_base_disp(Handler fn);
bool fast_is_jnz(Handler fn);

#endif
