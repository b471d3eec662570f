/* test_mmx.c: every MMX instruction and every MMX form of SSE, SSE2 and SSSE3 against the
 * host CPU, with random registers (REX bits included, which MMX register numbers ignore),
 * memory operands and immediates; the x87 image after each case (tags, TOP, the exponent
 * bits an MMX write sets) is compared too. Then EMMS, and x87 instructions on the
 * registers MMX code left. */
#define _GNU_SOURCE /* ucontext register names for the native side */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

/* The host CPU is the oracle: on other hosts there is nothing to compare with. */
#ifdef __x86_64__
#include "sse_harness.h"

#pragma GCC diagnostic ignored "-Woverride-init"
#define OP1(o) .opc = {o}, .nopc = 1
/* mm, mm/m64 */
#define MM(n, o, ...) {.name = n, OP1(o), .modrm = MR_BOTH, .ext = -1, .reg_mm = 1, .rm_mm = 1, \
                       .vals = VAL_INT, ##__VA_ARGS__}
#define MMI(n, o, ...) MM(n, o, .imm8 = 1, ##__VA_ARGS__)
#define MM_SHIFT_IMM(n, o, e) MM(n, o, .modrm = MR_REG, .ext = e, .reg_mm = 0, .imm8 = 1)
/* 0F 38 and 0F 3A forms */
#define MM38(n, o) MM(n, 0, .opc = {0x38, o}, .nopc = 2)

static const Form lane_forms[] = {
  MM("pand", 0xDB), MM("pandn", 0xDF), MM("por", 0xEB), MM("pxor", 0xEF),
  MM("pcmpeqb", 0x74), MM("pcmpeqw", 0x75), MM("pcmpeqd", 0x76),
  MM("pcmpgtb", 0x64), MM("pcmpgtw", 0x65), MM("pcmpgtd", 0x66),
  MM("paddb", 0xFC), MM("paddw", 0xFD), MM("paddd", 0xFE), MM("paddq", 0xD4),
  MM("psubb", 0xF8), MM("psubw", 0xF9), MM("psubd", 0xFA), MM("psubq", 0xFB),
  MM("paddusb", 0xDC), MM("paddusw", 0xDD), MM("psubusb", 0xD8), MM("psubusw", 0xD9),
  MM("paddsb", 0xEC), MM("paddsw", 0xED), MM("psubsb", 0xE8), MM("psubsw", 0xE9),
  MM("pminub", 0xDA), MM("pmaxub", 0xDE), MM("pminsw", 0xEA), MM("pmaxsw", 0xEE),
  MM("pavgb", 0xE0), MM("pavgw", 0xE3), MM("psadbw", 0xF6), MM("pmullw", 0xD5),
  MM("pmulhw", 0xE5), MM("pmulhuw", 0xE4), MM("pmuludq", 0xF4), MM("pmaddwd", 0xF5),
  MM("psllw", 0xF1, .vals = VAL_SHIFT), MM("pslld", 0xF2, .vals = VAL_SHIFT),
  MM("psllq", 0xF3, .vals = VAL_SHIFT), MM("psrlw", 0xD1, .vals = VAL_SHIFT),
  MM("psrld", 0xD2, .vals = VAL_SHIFT), MM("psrlq", 0xD3, .vals = VAL_SHIFT),
  MM("psraw", 0xE1, .vals = VAL_SHIFT), MM("psrad", 0xE2, .vals = VAL_SHIFT),
  MM_SHIFT_IMM("psrlw imm", 0x71, 2), MM_SHIFT_IMM("psraw imm", 0x71, 4),
  MM_SHIFT_IMM("psllw imm", 0x71, 6), MM_SHIFT_IMM("psrld imm", 0x72, 2),
  MM_SHIFT_IMM("psrad imm", 0x72, 4), MM_SHIFT_IMM("pslld imm", 0x72, 6),
  MM_SHIFT_IMM("psrlq imm", 0x73, 2), MM_SHIFT_IMM("psllq imm", 0x73, 6),
  MM("punpcklbw", 0x60), MM("punpcklwd", 0x61), MM("punpckldq", 0x62),
  MM("punpckhbw", 0x68), MM("punpckhwd", 0x69), MM("punpckhdq", 0x6A),
  MM("packsswb", 0x63), MM("packuswb", 0x67), MM("packssdw", 0x6B),
  MMI("pshufw", 0x70),
};

static const Form ssse3_forms[] = {
  MM38("pshufb", 0x00), MM38("phaddw", 0x01), MM38("phaddd", 0x02), MM38("phaddsw", 0x03),
  MM38("pmaddubsw", 0x04), MM38("phsubw", 0x05), MM38("phsubd", 0x06), MM38("phsubsw", 0x07),
  MM38("psignb", 0x08), MM38("psignw", 0x09), MM38("psignd", 0x0A), MM38("pmulhrsw", 0x0B),
  MM38("pabsb", 0x1C), MM38("pabsw", 0x1D), MM38("pabsd", 0x1E),
  MM("palignr", 0, .opc = {0x3A, 0x0F}, .nopc = 2, .imm8 = 1),
};

static const Form move_forms[] = {
  MM("movq load", 0x6F), MM("movq store", 0x7F), MM("movntq", 0xE7, .modrm = MR_MEM),
  MM("movd mm, r/m32", 0x6E, .rm_mm = 0, .rm_gpr = 1),
  MM("movq mm, r/m64", 0x6E, .rm_mm = 0, .rm_gpr = 1, .rexw = 1),
  MM("movd r/m32, mm", 0x7E, .rm_mm = 0, .rm_gpr = 1),
  MM("movq r/m64, mm", 0x7E, .rm_mm = 0, .rm_gpr = 1, .rexw = 1),
  MMI("pinsrw", 0xC4, .rm_mm = 0, .rm_gpr = 1),
  MMI("pextrw", 0xC5, .modrm = MR_REG, .reg_mm = 0, .reg_gpr = 1),
  MM("pmovmskb", 0xD7, .modrm = MR_REG, .reg_mm = 0, .reg_gpr = 1),
  MM("maskmovq", 0xF7, .modrm = MR_REG, .rdi_mem = 1),
  MM("movq2dq", 0xD6, .pfx = 0xF3, .modrm = MR_REG, .reg_mm = 0),
  MM("movdq2q", 0xD6, .pfx = 0xF2, .modrm = MR_REG, .rm_mm = 0),
};

/* Between MMX and XMM registers; SIMD exceptions may be unmasked. */
static const Form convert_forms[] = {
  MM("cvtpi2ps", 0x2A, .reg_mm = 0),
  MM("cvtpi2pd", 0x2A, .pfx = 0x66, .reg_mm = 0),
  MM("cvtps2pi", 0x2D, .rm_mm = 0, .vals = VAL_F32),
  MM("cvttps2pi", 0x2C, .rm_mm = 0, .vals = VAL_F32),
  MM("cvtpd2pi", 0x2D, .pfx = 0x66, .rm_mm = 0, .vals = VAL_F64, .align16 = 1),
  MM("cvttpd2pi", 0x2C, .pfx = 0x66, .rm_mm = 0, .vals = VAL_F64, .align16 = 1),
};

#define COUNT(a) (sizeof(a) / sizeof(a)[0])

static void test_mmx_lane_forms_match_host(void **state) {
  (void)state;
  assert_int_equal(run_forms(lane_forms, COUNT(lane_forms), 0, NULL), 0);
}

static void test_ssse3_mmx_forms_match_host(void **state) {
  (void)state;
  assert_int_equal(run_forms(ssse3_forms, COUNT(ssse3_forms), 0, NULL), 0);
}

static void test_mmx_moves_match_host(void **state) {
  (void)state;
  assert_int_equal(run_forms(move_forms, COUNT(move_forms), 0, NULL), 0);
}

static void test_mmx_conversions_match_host(void **state) {
  (void)state;
  assert_int_equal(run_forms(convert_forms, COUNT(convert_forms), MXCSR_FLAGS, NULL), 0);
}

static void test_mmx_misaligned_operands_like_host(void **state) {
  (void)state;
  unsigned bad = run_forms_misaligned(lane_forms, COUNT(lane_forms), NULL) +
                 run_forms_misaligned(convert_forms, COUNT(convert_forms), NULL);
  assert_int_equal(bad, 0);
}

/* Fixed instructions from the MMX state the harness starts in (TOP 0, every register
 * valid with exponent all ones): EMMS, and x87 instructions that read, move, push onto
 * and store the registers MMX code left. */
static void test_emms_and_x87_after_mmx_match_host(void **state) {
  (void)state;
  harness_begin();
  static const struct {
    const char *name;
    uint8_t bytes[4];
    unsigned len;
  } cases[] = {
      {"emms", {0x0F, 0x77}, 2},
      {"fxch st(3)", {0xD9, 0xCB}, 2},
      {"fchs", {0xD9, 0xE0}, 2},
      {"fstp st(2)", {0xDD, 0xDA}, 2},
      {"fldz (stack full)", {0xD9, 0xEE}, 2},
      {"ffree st(5)", {0xDD, 0xC5}, 2},
      {"fincstp", {0xD9, 0xF7}, 2},
      {"fxam", {0xD9, 0xE5}, 2},
      {"fnstsw ax", {0xDF, 0xE0}, 2},
  };
  unsigned bad = 0;
  for (size_t k = 0; k < COUNT(cases); k++) {
    for (unsigned it = 0; it < 200; it++) {
      MachineState before = {0}, nat, emu;
      for (unsigned i = 0; i < 16; i++) {
        before.xmm[i].q[0] = rnd();
        before.xmm[i].q[1] = rnd();
        before.r[i] = rand_gpr();
      }
      for (unsigned i = 0; i < 8; i++) before.mm[i] = rnd();
      x87_image_untouched(&before);
      before.rflags = 0x202;
      before.mxcsr = MXCSR_DEFAULT;
      nat = emu = before;
      Outcome on = native_run(&nat, cases[k].bytes, cases[k].len);
      Outcome oe = emu_run(&emu, cases[k].bytes, cases[k].len);
      if (!states_match(&nat, &on, &emu, &oe, NULL, NULL, 0, F_ARITH)) {
        fprintf(stderr, "  %s: case %u differs\n", cases[k].name, it);
        bad++;
        break;
      }
    }
  }
  assert_int_equal(bad, 0);
}

/* --cpu=-mmx takes every MMX form away, SSSE3's included; the XMM forms stay. */
static void test_mmx_removed_by_cpu_option_is_undefined(void **state) {
  (void)state;
  Machine *m = test_machine();
  assert_null(cpuid_apply_option(&m->model, "-mmx"));
  static const uint8_t paddb_mm[] = {0x0F, 0xFC, 0xC1, 0x90}, emms[] = {0x0F, 0x77, 0x90},
                       pshufb_mm[] = {0x0F, 0x38, 0x00, 0xC1}, paddb_xmm[] = {0x66, 0x0F, 0xFC, 0xC1};
  const uint8_t *gone[] = {paddb_mm, emms, pshufb_mm};
  Insn in;
  uint64_t fault_at;
  for (size_t i = 0; i < COUNT(gone); i++)
    assert_int_equal(decode_insn(&m->dec, (uint64_t)(uintptr_t)gone[i], &in, &fault_at), -1);
  assert_int_equal(decode_insn(&m->dec, (uint64_t)(uintptr_t)paddb_xmm, &in, &fault_at), 4);
  assert_int_equal(cpuid_query(&m->model, 1, 0).edx >> 23 & 1, 0);
  assert_null(cpuid_apply_option(&m->model, "+mmx"));
  assert_int_equal(decode_insn(&m->dec, (uint64_t)(uintptr_t)paddb_mm, &in, &fault_at), 3);
  assert_int_equal(cpuid_query(&m->model, 1, 0).edx >> 23 & 1, 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_mmx_lane_forms_match_host),
    cmocka_unit_test(test_ssse3_mmx_forms_match_host),
    cmocka_unit_test(test_mmx_moves_match_host),
    cmocka_unit_test(test_mmx_conversions_match_host),
    cmocka_unit_test(test_mmx_misaligned_operands_like_host),
    cmocka_unit_test(test_emms_and_x87_after_mmx_match_host),
    cmocka_unit_test(test_mmx_removed_by_cpu_option_is_undefined),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

#else
#include "needs_x86_64.h"
#endif
