/* test_sse_int.c: SSE/SSE2 moves, integer, logic and shuffle instructions against the
 * host CPU, every form with random registers, memory operands and immediates. */
#define _GNU_SOURCE /* ucontext register names for the native side */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

/* The host CPU is the oracle: on other hosts there is nothing to compare with. */
#ifdef __x86_64__
#include "sse_harness.h"

/* Form builders: xmm, xmm/m128 (aligned) unless stated; later designators in a form
 * override the builder's defaults. */
#pragma GCC diagnostic ignored "-Woverride-init"
#define OP1(o) .opc = {o}, .nopc = 1
#define XM(n, p, o, ...) {.name = n, .pfx = p, OP1(o), .modrm = MR_BOTH, .ext = -1, \
                          .align16 = 1, .vals = VAL_INT, ##__VA_ARGS__}
#define XMI(n, p, o, ...) XM(n, p, o, .imm8 = 1, ##__VA_ARGS__)
#define SHIFT_IMM(n, o, e) {.name = n, .pfx = 0x66, OP1(o), .modrm = MR_REG, .ext = e, \
                            .imm8 = 1, .vals = VAL_INT}

static const Form int_forms[] = {
  /* logic, including the PS/PD spellings */
  XM("pand", 0x66, 0xDB), XM("pandn", 0x66, 0xDF), XM("por", 0x66, 0xEB),
  XM("pxor", 0x66, 0xEF), XM("andps", 0, 0x54), XM("andpd", 0x66, 0x54),
  XM("andnps", 0, 0x55), XM("andnpd", 0x66, 0x55), XM("orps", 0, 0x56),
  XM("orpd", 0x66, 0x56), XM("xorps", 0, 0x57), XM("xorpd", 0x66, 0x57),
  /* compares */
  XM("pcmpeqb", 0x66, 0x74), XM("pcmpeqw", 0x66, 0x75), XM("pcmpeqd", 0x66, 0x76),
  XM("pcmpgtb", 0x66, 0x64), XM("pcmpgtw", 0x66, 0x65), XM("pcmpgtd", 0x66, 0x66),
  /* add, subtract */
  XM("paddb", 0x66, 0xFC), XM("paddw", 0x66, 0xFD), XM("paddd", 0x66, 0xFE),
  XM("paddq", 0x66, 0xD4), XM("psubb", 0x66, 0xF8), XM("psubw", 0x66, 0xF9),
  XM("psubd", 0x66, 0xFA), XM("psubq", 0x66, 0xFB),
  XM("paddusb", 0x66, 0xDC), XM("paddusw", 0x66, 0xDD), XM("psubusb", 0x66, 0xD8),
  XM("psubusw", 0x66, 0xD9), XM("paddsb", 0x66, 0xEC), XM("paddsw", 0x66, 0xED),
  XM("psubsb", 0x66, 0xE8), XM("psubsw", 0x66, 0xE9),
  /* min, max, average, sum of differences, multiplies */
  XM("pminub", 0x66, 0xDA), XM("pmaxub", 0x66, 0xDE), XM("pminsw", 0x66, 0xEA),
  XM("pmaxsw", 0x66, 0xEE), XM("pavgb", 0x66, 0xE0), XM("pavgw", 0x66, 0xE3),
  XM("psadbw", 0x66, 0xF6), XM("pmullw", 0x66, 0xD5), XM("pmulhw", 0x66, 0xE5),
  XM("pmulhuw", 0x66, 0xE4), XM("pmuludq", 0x66, 0xF4), XM("pmaddwd", 0x66, 0xF5),
  /* shifts by a register or memory count, and by an immediate */
  XM("psllw", 0x66, 0xF1, .vals = VAL_SHIFT), XM("pslld", 0x66, 0xF2, .vals = VAL_SHIFT),
  XM("psllq", 0x66, 0xF3, .vals = VAL_SHIFT), XM("psrlw", 0x66, 0xD1, .vals = VAL_SHIFT),
  XM("psrld", 0x66, 0xD2, .vals = VAL_SHIFT), XM("psrlq", 0x66, 0xD3, .vals = VAL_SHIFT),
  XM("psraw", 0x66, 0xE1, .vals = VAL_SHIFT), XM("psrad", 0x66, 0xE2, .vals = VAL_SHIFT),
  SHIFT_IMM("psrlw imm", 0x71, 2), SHIFT_IMM("psraw imm", 0x71, 4),
  SHIFT_IMM("psllw imm", 0x71, 6), SHIFT_IMM("psrld imm", 0x72, 2),
  SHIFT_IMM("psrad imm", 0x72, 4), SHIFT_IMM("pslld imm", 0x72, 6),
  SHIFT_IMM("psrlq imm", 0x73, 2), SHIFT_IMM("psrldq", 0x73, 3),
  SHIFT_IMM("psllq imm", 0x73, 6), SHIFT_IMM("pslldq", 0x73, 7),
  /* unpacks, packs, shuffles */
  XM("punpcklbw", 0x66, 0x60), XM("punpcklwd", 0x66, 0x61),
  XM("punpckldq", 0x66, 0x62), XM("punpcklqdq", 0x66, 0x6C),
  XM("punpckhbw", 0x66, 0x68), XM("punpckhwd", 0x66, 0x69),
  XM("punpckhdq", 0x66, 0x6A), XM("punpckhqdq", 0x66, 0x6D),
  XM("unpcklps", 0, 0x14), XM("unpckhps", 0, 0x15), XM("unpcklpd", 0x66, 0x14),
  XM("unpckhpd", 0x66, 0x15),
  XM("packsswb", 0x66, 0x63), XM("packuswb", 0x66, 0x67), XM("packssdw", 0x66, 0x6B),
  XMI("pshufd", 0x66, 0x70), XMI("pshufhw", 0xF3, 0x70), XMI("pshuflw", 0xF2, 0x70),
  XMI("shufps", 0, 0xC6), XMI("shufpd", 0x66, 0xC6),
};

static const Form move_forms[] = {
  /* whole registers */
  XM("movups load", 0, 0x10, .align16 = 0), XM("movupd load", 0x66, 0x10, .align16 = 0),
  XM("movdqu load", 0xF3, 0x6F, .align16 = 0), XM("movaps load", 0, 0x28),
  XM("movapd load", 0x66, 0x28), XM("movdqa load", 0x66, 0x6F),
  XM("movups store", 0, 0x11, .align16 = 0), XM("movupd store", 0x66, 0x11, .align16 = 0),
  XM("movdqu store", 0xF3, 0x7F, .align16 = 0), XM("movaps store", 0, 0x29),
  XM("movapd store", 0x66, 0x29), XM("movdqa store", 0x66, 0x7F),
  XM("movntps", 0, 0x2B, .modrm = MR_MEM), XM("movntpd", 0x66, 0x2B, .modrm = MR_MEM),
  XM("movntdq", 0x66, 0xE7, .modrm = MR_MEM),
  /* scalars and halves */
  XM("movss load", 0xF3, 0x10, .align16 = 0), XM("movsd load", 0xF2, 0x10, .align16 = 0),
  XM("movss store", 0xF3, 0x11, .align16 = 0), XM("movsd store", 0xF2, 0x11, .align16 = 0),
  XM("movlps/movhlps", 0, 0x12, .align16 = 0),
  XM("movlpd load", 0x66, 0x12, .modrm = MR_MEM, .align16 = 0),
  XM("movlps store", 0, 0x13, .modrm = MR_MEM, .align16 = 0),
  XM("movlpd store", 0x66, 0x13, .modrm = MR_MEM, .align16 = 0),
  XM("movhps/movlhps", 0, 0x16, .align16 = 0),
  XM("movhpd load", 0x66, 0x16, .modrm = MR_MEM, .align16 = 0),
  XM("movhps store", 0, 0x17, .modrm = MR_MEM, .align16 = 0),
  XM("movhpd store", 0x66, 0x17, .modrm = MR_MEM, .align16 = 0),
  /* MOVD/MOVQ */
  XM("movd xmm, r/m32", 0x66, 0x6E, .rm_gpr = 1, .align16 = 0),
  XM("movq xmm, r/m64", 0x66, 0x6E, .rm_gpr = 1, .rexw = 1, .align16 = 0),
  XM("movd r/m32, xmm", 0x66, 0x7E, .rm_gpr = 1, .align16 = 0),
  XM("movq r/m64, xmm", 0x66, 0x7E, .rm_gpr = 1, .rexw = 1, .align16 = 0),
  XM("movq xmm, xmm/m64", 0xF3, 0x7E, .align16 = 0),
  XM("movq xmm/m64, xmm", 0x66, 0xD6, .align16 = 0),
  /* masks, words, non-temporal and masked stores */
  XM("movmskps", 0, 0x50, .modrm = MR_REG, .reg_gpr = 1),
  XM("movmskps r64", 0, 0x50, .modrm = MR_REG, .reg_gpr = 1, .rexw = 1),
  XM("movmskpd", 0x66, 0x50, .modrm = MR_REG, .reg_gpr = 1),
  XM("pmovmskb", 0x66, 0xD7, .modrm = MR_REG, .reg_gpr = 1),
  XMI("pinsrw", 0x66, 0xC4, .rm_gpr = 1, .align16 = 0),
  XMI("pextrw", 0x66, 0xC5, .modrm = MR_REG, .reg_gpr = 1),
  XMI("pextrw r64", 0x66, 0xC5, .modrm = MR_REG, .reg_gpr = 1, .rexw = 1),
  XM("movnti m32", 0, 0xC3, .modrm = MR_MEM, .reg_gpr = 1, .align16 = 0),
  XM("movnti m64", 0, 0xC3, .modrm = MR_MEM, .reg_gpr = 1, .rexw = 1, .align16 = 0),
  XM("maskmovdqu", 0x66, 0xF7, .modrm = MR_REG, .rdi_mem = 1),
};

static void test_sse_integer_forms_match_host(void **state) {
  (void)state;
  assert_int_equal(run_forms(int_forms, sizeof int_forms / sizeof *int_forms, 0, NULL), 0);
}

static void test_sse_move_forms_match_host(void **state) {
  (void)state;
  assert_int_equal(run_forms(move_forms, sizeof move_forms / sizeof *move_forms, 0, NULL), 0);
}

static void test_sse_misaligned_operands_fault_like_host(void **state) {
  (void)state;
  unsigned bad = run_forms_misaligned(int_forms, sizeof int_forms / sizeof *int_forms, NULL) +
                 run_forms_misaligned(move_forms, sizeof move_forms / sizeof *move_forms, NULL);
  assert_int_equal(bad, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_sse_integer_forms_match_host),
    cmocka_unit_test(test_sse_move_forms_match_host),
    cmocka_unit_test(test_sse_misaligned_operands_fault_like_host),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

#else
#include "needs_x86_64.h"
#endif
