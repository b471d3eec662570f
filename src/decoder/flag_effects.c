/* flag_effects.c: which arithmetic flags each decoded instruction reads and always
 * writes, for the block's flag liveness pass. Anything not listed here is assumed to
 * read every flag and write none, which is always safe. */
#include "../interp/ops_int.h"
#include "decode.h"

/* Flags read by condition code cc (Jcc, SETcc, CMOVcc), by cc >> 1. */
static const uint8_t cond_use[8] = {
    FL_OF, FL_CF, FL_ZF, FL_CF | FL_ZF, FL_SF, FL_PF, FL_SF | FL_OF, FL_ZF | FL_SF | FL_OF,
};

static bool touches_no_flags(Handler f) {
  static const Handler none[] = {
      op_mov_rm_r, op_mov_r_rm, op_mov_rm_imm, op_mov_r_imm, op_movzx, op_movsx, op_lea,
      op_xchg, op_xlat, op_cbw, op_cwd, op_movbe, op_bswap, op_not, op_div, op_idiv,
      op_push_r, op_pop_r, op_push_rm, op_pop_rm, op_push_imm, op_enter, op_leave,
      op_jmp, op_jmp_rm, op_call, op_call_rm, op_ret, op_nop, op_cpuid, op_rdtsc, op_rdtscp,
  };
  for (unsigned i = 0; i < sizeof none / sizeof none[0]; i++)
    if (none[i] == f) return true;
  return false;
}

enum { ROL, ROR, RCL, RCR };

void decode_flag_effects(Insn *in) {
  Handler f = in->fn;
  unsigned use = FL_ALL, def = 0;
  if (touches_no_flags(f)) {
    use = 0;
  } else if (f == op_alu_rm_r || f == op_alu_r_rm || f == op_alu_rm_imm) {
    use = (in->op == ALU_ADC || in->op == ALU_SBB) ? FL_CF : 0;
    def = FL_ALL;
  } else if (f == op_test_rm_r || f == op_test_rm_imm || f == op_neg || f == op_mul ||
             f == op_imul1 || f == op_imul_r_rm || f == op_imul_r_rm_imm || f == op_xadd ||
             f == op_cmpxchg || f == op_popcnt || f == op_popf) {
    use = 0;
    def = FL_ALL;
  } else if (f == op_inc || f == op_dec) {
    use = 0;
    def = FL_ALL & ~FL_CF; /* CF passes through */
  } else if (f == op_jcc || f == op_setcc || f == op_cmov) {
    use = cond_use[(in->op & 15) >> 1];
  } else if (f == op_loop) {
    use = in->op < 2 ? FL_ZF : 0; /* LOOPNE, LOOPE */
  } else if (f == op_shift_imm || f == op_shift_cl) {
    bool rotate_through_cf = in->op == RCL || in->op == RCR;
    use = rotate_through_cf ? FL_CF : 0;
    /* A count of zero (always possible with CL) leaves every flag alone. */
    bool counts = f == op_shift_imm && (in->imm & (in->osz == 8 ? 63 : 31)) != 0;
    if (counts) def = in->op <= RCR ? FL_CF | FL_OF : FL_ALL;
  } else if (f == op_shld || f == op_shrd) {
    use = 0;
    if (!in->aux && (in->imm & (in->osz == 8 ? 63 : 31)) != 0) def = FL_ALL;
  } else if (f == op_bt_rm_r || f == op_bt_rm_imm) {
    use = 0;
    def = FL_CF;
  } else if (f == op_bsf || f == op_bsr || f == op_cmpxchg16b) {
    use = 0;
    def = FL_ZF;
  } else if (f == op_lzcnt) {
    use = 0;
    def = FL_CF | FL_ZF;
  } else if (f == op_string) {
    use = 0;
    bool compares = in->op == 1 || in->op == 4; /* CMPS, SCAS */
    if (compares && in->rep == REP_NONE) def = FL_ALL; /* a REP count of 0 writes nothing */
  } else if (f == op_lahf) {
    use = FL_SF | FL_ZF | FL_AF | FL_PF | FL_CF;
  } else if (f == op_sahf) {
    use = 0;
    def = FL_SF | FL_ZF | FL_AF | FL_PF | FL_CF;
  } else if (f == op_flagop) {
    use = in->op == 2 ? FL_CF : 0; /* CMC */
    def = in->op <= 2 ? FL_CF : 0; /* CLC, STC, CMC; CLD/STD touch only DF */
  }
  in->flags_use = (uint8_t)use;
  in->flags_def = (uint8_t)def;
}
