/* test_sse4_int.c: the SSE3 moves and the SSSE3, SSE4.1 and SSE4.2 integer instructions
 * (CRC32 and MOVBE's shared opcodes included) against the host CPU: every form with
 * random and structured operands, every imm8 of the immediate forms, misaligned
 * memory, and narrow memory operands placed against an unmapped page. */
#define _GNU_SOURCE /* ucontext register names for the native side */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

/* The host CPU is the oracle: on other hosts there is nothing to compare with. */
#ifdef __x86_64__
#include <unistd.h>

#include "interp/cpuid.h"
#include "sse_harness.h"

/* Form builders: xmm, xmm/m128 (aligned) unless stated; later designators in a form
 * override the builder's defaults. */
#pragma GCC diagnostic ignored "-Woverride-init"
#define OP1(o) .opc = {o}, .nopc = 1
#define OP38(o) .opc = {0x38, o}, .nopc = 2
#define OP3A(o) .opc = {0x3A, o}, .nopc = 2, .imm8 = 1
#define X0F(n, p, o, ...) {.name = n, .pfx = p, OP1(o), .modrm = MR_BOTH, .ext = -1, \
                           .align16 = 1, .vals = VAL_INT, ##__VA_ARGS__}
#define X38(n, o, ...) {.name = n, .pfx = 0x66, OP38(o), .modrm = MR_BOTH, .ext = -1, \
                        .align16 = 1, .vals = VAL_INT, ##__VA_ARGS__}
#define X3A(n, o, ...) {.name = n, .pfx = 0x66, OP3A(o), .modrm = MR_BOTH, .ext = -1, \
                        .align16 = 1, .vals = VAL_INT, ##__VA_ARGS__}
#define COUNT(a) (sizeof(a) / sizeof *(a))

static const Form sse3_moves[] = {
  X0F("movddup", 0xF2, 0x12, .align16 = 0), X0F("movsldup", 0xF3, 0x12),
  X0F("movshdup", 0xF3, 0x16), X0F("lddqu", 0xF2, 0xF0, .modrm = MR_MEM, .align16 = 0),
};

static const Form ssse3_forms[] = {
  X38("pshufb", 0x00), X38("phaddw", 0x01), X38("phaddd", 0x02), X38("phaddsw", 0x03),
  X38("pmaddubsw", 0x04), X38("phsubw", 0x05), X38("phsubd", 0x06), X38("phsubsw", 0x07),
  X38("psignb", 0x08), X38("psignw", 0x09), X38("psignd", 0x0A), X38("pmulhrsw", 0x0B),
  X38("pabsb", 0x1C), X38("pabsw", 0x1D), X38("pabsd", 0x1E), X3A("palignr", 0x0F),
};

static const Form sse41_forms[] = {
  X38("pblendvb", 0x10), X38("blendvps", 0x14), X38("blendvpd", 0x15), X38("ptest", 0x17),
  X38("pmovsxbw", 0x20, .align16 = 0), X38("pmovsxbd", 0x21, .align16 = 0),
  X38("pmovsxbq", 0x22, .align16 = 0), X38("pmovsxwd", 0x23, .align16 = 0),
  X38("pmovsxwq", 0x24, .align16 = 0), X38("pmovsxdq", 0x25, .align16 = 0),
  X38("pmovzxbw", 0x30, .align16 = 0), X38("pmovzxbd", 0x31, .align16 = 0),
  X38("pmovzxbq", 0x32, .align16 = 0), X38("pmovzxwd", 0x33, .align16 = 0),
  X38("pmovzxwq", 0x34, .align16 = 0), X38("pmovzxdq", 0x35, .align16 = 0),
  X38("pmuldq", 0x28), X38("pcmpeqq", 0x29), X38("movntdqa", 0x2A, .modrm = MR_MEM),
  X38("packusdw", 0x2B), X38("pminsb", 0x38), X38("pminsd", 0x39), X38("pminuw", 0x3A),
  X38("pminud", 0x3B), X38("pmaxsb", 0x3C), X38("pmaxsd", 0x3D), X38("pmaxuw", 0x3E),
  X38("pmaxud", 0x3F), X38("pmulld", 0x40), X38("phminposuw", 0x41),
  X3A("blendps", 0x0C), X3A("blendpd", 0x0D), X3A("pblendw", 0x0E), X3A("mpsadbw", 0x42),
  X3A("pextrb", 0x14, .rm_gpr = 1, .align16 = 0),
  X3A("pextrb rex.w", 0x14, .rm_gpr = 1, .rexw = 1, .align16 = 0),
  X3A("pextrw r/m16", 0x15, .rm_gpr = 1, .align16 = 0),
  X3A("pextrd", 0x16, .rm_gpr = 1, .align16 = 0),
  X3A("pextrq", 0x16, .rm_gpr = 1, .rexw = 1, .align16 = 0),
  X3A("extractps", 0x17, .rm_gpr = 1, .align16 = 0),
  X3A("extractps rex.w", 0x17, .rm_gpr = 1, .rexw = 1, .align16 = 0),
  X3A("pinsrb", 0x20, .rm_gpr = 1, .align16 = 0),
  X3A("insertps", 0x21, .align16 = 0),
  X3A("pinsrd", 0x22, .rm_gpr = 1, .align16 = 0),
  X3A("pinsrq", 0x22, .rm_gpr = 1, .rexw = 1, .align16 = 0),
};

/* CRC32 (F2 0F 38 F0/F1) with every source size, and MOVBE (0F 38 F0/F1 without F2). */
#define GPR38(n, p, o, ...) {.name = n, .pfx = p, OP38(o), .modrm = MR_BOTH, .ext = -1, \
                             .reg_gpr = 1, .rm_gpr = 1, .vals = VAL_INT, ##__VA_ARGS__}
static const Form sse42_forms[] = {
  X38("pcmpgtq", 0x37),
  GPR38("crc32 r32, r/m8", 0xF2, 0xF0), GPR38("crc32 r64, r/m8", 0xF2, 0xF0, .rexw = 1),
  /* 66 F2, as assemblers write it: Capstone 4.0.2 rejects F2 66 0F 38 F1 (a guest
   * SIGILL, though the CPU takes it). */
  GPR38("crc32 r32, r/m16", 0x66, 0xF1, .pfx2 = 0xF2),
  GPR38("crc32 r32, r/m32", 0xF2, 0xF1), GPR38("crc32 r64, r/m64", 0xF2, 0xF1, .rexw = 1),
  GPR38("movbe r32, m32", 0, 0xF0, .modrm = MR_MEM),
  GPR38("movbe r64, m64", 0, 0xF0, .modrm = MR_MEM, .rexw = 1),
  GPR38("movbe r16, m16", 0x66, 0xF0, .modrm = MR_MEM),
  GPR38("movbe m32, r32", 0, 0xF1, .modrm = MR_MEM),
  GPR38("movbe m64, r64", 0, 0xF1, .modrm = MR_MEM, .rexw = 1),
};

/* ---- structured operands: equal lanes, few distinct values, complements ---- */

static void fill_structured(uint8_t *b) {
  static const uint8_t few[] = {0x00, 0x01, 0x7F, 0x80, 0xFF};
  for (unsigned i = 0; i < 16; i++) b[i] = few[rnd_below(sizeof few)];
}

/* In a third of the cases the XMM operands get values random bytes rarely produce:
 * elements from a handful of values, a source equal to the destination lane by lane,
 * or its complement (PTEST's ZF and CF, equal compares, ties, saturation). */
static void structured_hook(const Form *f, MachineState *s) {
  if (f->reg_gpr || rnd_below(3)) return;
  uint8_t *dst = s->xmm[case_reg].b;
  uint8_t *src = case_mem ? case_mem : f->rm_gpr ? NULL : s->xmm[case_rm].b;
  if (rnd_below(2)) fill_structured(dst);
  if (!src || (!case_mem && case_rm == case_reg)) return;
  switch (rnd_below(4)) {
  case 0: fill_structured(src); break;
  case 1: /* equal quadwords, some of them */
    for (unsigned i = 0; i < 16; i += 8)
      if (rnd_below(2)) memcpy(src + i, dst + i, 8);
    break;
  case 2:
    for (unsigned i = 0; i < 16; i++) src[i] = (uint8_t)~dst[i];
    break;
  default: /* a subset of the destination's bits */
    for (unsigned i = 0; i < 16; i++) src[i] = dst[i] & (uint8_t)rnd();
    break;
  }
}

/* Runs every form: those with an imm8 once for each of the 256 values, sharing the
 * cases of one form among them. */
static unsigned run_table(const Form *forms, size_t n) {
  harness_begin();
  unsigned bad = 0, iterations = diff_iterations();
  case_hook = structured_hook;
  for (size_t i = 0; i < n; i++) {
    const Form *f = &forms[i];
    unsigned failures = 0;
    if (f->imm8) {
      unsigned per_imm = (iterations + 255) / 256;
      for (int imm = 0; imm < 256 && !failures; imm++) {
        forced_imm = imm;
        failures += run_form(f, per_imm, 0, NULL);
      }
      forced_imm = -1;
    } else {
      failures = run_form(f, iterations, 0, NULL);
    }
    if (failures) {
      fprintf(stderr, "FAIL %s\n", f->name);
      bad++;
    }
  }
  case_hook = NULL;
  fprintf(stderr, "%zu forms x %u cases (imm8 forms: 256 x %u): %u forms differ from the "
          "host CPU\n", n, iterations, (iterations + 255) / 256, bad);
  return bad;
}

static void test_sse3_moves_match_host(void **state) {
  (void)state;
  assert_int_equal(run_table(sse3_moves, COUNT(sse3_moves)), 0);
}

static void test_ssse3_forms_match_host(void **state) {
  (void)state;
  assert_int_equal(run_table(ssse3_forms, COUNT(ssse3_forms)), 0);
}

static void test_sse41_integer_forms_match_host(void **state) {
  (void)state;
  assert_int_equal(run_table(sse41_forms, COUNT(sse41_forms)), 0);
}

static void test_sse42_crc32_pcmpgtq_and_movbe_match_host(void **state) {
  (void)state;
  assert_int_equal(run_table(sse42_forms, COUNT(sse42_forms)), 0);
}

static void test_sse4_misaligned_operands_fault_like_host(void **state) {
  (void)state;
  unsigned bad = run_forms_misaligned(sse3_moves, COUNT(sse3_moves), NULL) +
                 run_forms_misaligned(ssse3_forms, COUNT(ssse3_forms), NULL) +
                 run_forms_misaligned(sse41_forms, COUNT(sse41_forms), NULL) +
                 run_forms_misaligned(sse42_forms, COUNT(sse42_forms), NULL);
  assert_int_equal(bad, 0);
}

/* ---- narrow memory operands end where an unmapped page begins ---- */

/* The form of table `forms` called `name`. */
static const Form *find_form(const Form *forms, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(forms[i].name, name)) return &forms[i];
  fail_msg("no form %s", name);
  return NULL;
}

static unsigned run_at_page_end(const Form *form, unsigned width, uint8_t *page_end,
                                unsigned iterations) {
  Form f = *form;
  f.modrm = MR_MEM;
  uint8_t *at = page_end - width;
  mem_operand_at = at;
  unsigned failures = 0;
  for (unsigned it = 0; it < iterations && failures < 3; it++) {
    uint8_t before_bytes[8], native_bytes[8];
    MachineState before, nat, emu;
    uint8_t insn[16];
    for (unsigned i = 0; i < width; i++) at[i] = (uint8_t)rnd();
    memcpy(before_bytes, at, width);
    unsigned len = make_case(&f, &before, 0, insn);
    nat = before;
    Outcome on = native_run(&nat, insn, len);
    memcpy(native_bytes, at, width);
    memcpy(at, before_bytes, width);
    emu = before;
    Outcome oe = emu_run(&emu, insn, len);
    if (!states_match(&nat, &on, &emu, &oe, native_bytes, at, width, F_ARITH | F_DF)) {
      fprintf(stderr, "  %s at a page end: case %u differs\n", f.name, it);
      print_bytes("bytes", insn, len);
      failures++;
    }
  }
  mem_operand_at = NULL;
  return failures;
}

static void test_sse4_narrow_memory_operands_touch_only_their_bytes(void **state) {
  (void)state;
  harness_begin();
  long page = sysconf(_SC_PAGESIZE);
  uint8_t *m = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                    -1, 0);
  assert_true(m != MAP_FAILED);
  assert_int_equal(mprotect(m + page, (size_t)page, PROT_NONE), 0);
  const struct {
    const Form *table;
    size_t n;
    const char *name;
    unsigned width;
  } narrow[] = {
    {sse3_moves, COUNT(sse3_moves), "movddup", 8},
    {sse41_forms, COUNT(sse41_forms), "pmovsxbw", 8},
    {sse41_forms, COUNT(sse41_forms), "pmovsxbd", 4},
    {sse41_forms, COUNT(sse41_forms), "pmovsxbq", 2},
    {sse41_forms, COUNT(sse41_forms), "pmovsxwd", 8},
    {sse41_forms, COUNT(sse41_forms), "pmovsxwq", 4},
    {sse41_forms, COUNT(sse41_forms), "pmovsxdq", 8},
    {sse41_forms, COUNT(sse41_forms), "pmovzxbw", 8},
    {sse41_forms, COUNT(sse41_forms), "pmovzxbd", 4},
    {sse41_forms, COUNT(sse41_forms), "pmovzxbq", 2},
    {sse41_forms, COUNT(sse41_forms), "pmovzxwd", 8},
    {sse41_forms, COUNT(sse41_forms), "pmovzxwq", 4},
    {sse41_forms, COUNT(sse41_forms), "pmovzxdq", 8},
    {sse41_forms, COUNT(sse41_forms), "pextrb", 1},
    {sse41_forms, COUNT(sse41_forms), "pextrw r/m16", 2},
    {sse41_forms, COUNT(sse41_forms), "pextrd", 4},
    {sse41_forms, COUNT(sse41_forms), "pextrq", 8},
    {sse41_forms, COUNT(sse41_forms), "extractps", 4},
    {sse41_forms, COUNT(sse41_forms), "pinsrb", 1},
    {sse41_forms, COUNT(sse41_forms), "insertps", 4},
    {sse41_forms, COUNT(sse41_forms), "pinsrd", 4},
    {sse41_forms, COUNT(sse41_forms), "pinsrq", 8},
    {sse42_forms, COUNT(sse42_forms), "crc32 r32, r/m8", 1},
    {sse42_forms, COUNT(sse42_forms), "crc32 r64, r/m8", 1},
    {sse42_forms, COUNT(sse42_forms), "crc32 r32, r/m16", 2},
    {sse42_forms, COUNT(sse42_forms), "crc32 r32, r/m32", 4},
    {sse42_forms, COUNT(sse42_forms), "crc32 r64, r/m64", 8},
  };
  unsigned bad = 0;
  for (size_t i = 0; i < COUNT(narrow); i++) {
    const Form *f = find_form(narrow[i].table, narrow[i].n, narrow[i].name);
    if (run_at_page_end(f, narrow[i].width, m + page, 200)) {
      fprintf(stderr, "FAIL %s at a page end\n", f->name);
      bad++;
    }
  }
  munmap(m, (size_t)page * 2);
  assert_int_equal(bad, 0);
}

/* CRC32's opcodes with F3 are not instructions: guest SIGILLs. */
static void test_crc32_with_f3_is_undefined(void **state) {
  (void)state;
  harness_begin();
  static const struct {
    unsigned len;
    uint8_t bytes[8];
  } unimplemented[] = {
    {5, {0xF3, 0x0F, 0x38, 0xF0, 0xC1}}, /* F3 0F 38 F0 */
    {5, {0xF3, 0x0F, 0x38, 0xF1, 0xC1}}, /* F3 0F 38 F1 */
  };
  for (size_t i = 0; i < COUNT(unimplemented); i++) {
    uint8_t bytes[32];
    memset(bytes, 0x90, sizeof bytes);
    memcpy(bytes, unimplemented[i].bytes, unimplemented[i].len);
    Insn in;
    uint64_t fault_at = 0;
    assert_int_equal(decode_insn(&test_machine()->dec, (uint64_t)(uintptr_t)bytes, &in, &fault_at), -1);
  }
}

/* --cpu=-sse3,...,-movbe makes each feature's instructions #UD, as on a CPU without it, and
 * CPUID stops advertising it; giving the features back restores both. */
static void test_sse4_features_removed_by_cpu_option_are_undefined(void **state) {
  (void)state;
  harness_begin();
  static const struct {
    const char *feature;
    uint32_t ecx_bit;
    unsigned len;
    uint8_t bytes[8];
  } samples[] = {
    {"sse3", 1u << 0, 4, {0xF2, 0x0F, 0x7C, 0xC1}},               /* haddps */
    {"sse3", 1u << 0, 4, {0xF2, 0x0F, 0x12, 0xC1}},               /* movddup */
    {"ssse3", 1u << 9, 5, {0x66, 0x0F, 0x38, 0x00, 0xC1}},        /* pshufb */
    {"ssse3", 1u << 9, 6, {0x66, 0x0F, 0x3A, 0x0F, 0xC1, 0x04}},  /* palignr */
    {"sse4.1", 1u << 19, 5, {0x66, 0x0F, 0x38, 0x17, 0xC1}},      /* ptest */
    {"sse4.1", 1u << 19, 6, {0x66, 0x0F, 0x3A, 0x40, 0xC1, 0xFF}}, /* dpps */
    {"sse4.2", 1u << 20, 6, {0x66, 0x0F, 0x3A, 0x63, 0xC1, 0x0C}}, /* pcmpistri */
    {"sse4.2", 1u << 20, 5, {0xF2, 0x0F, 0x38, 0xF1, 0xC1}},      /* crc32 eax, ecx */
    {"movbe", 1u << 22, 4, {0x0F, 0x38, 0xF0, 0x01}},             /* movbe eax, [rcx] */
    {"movbe", 1u << 22, 5, {0x48, 0x0F, 0x38, 0xF1, 0x01}},       /* movbe [rcx], rax */
  };
  for (size_t i = 0; i < COUNT(samples); i++) {
    uint8_t bytes[32];
    memset(bytes, 0x90, sizeof bytes);
    memcpy(bytes, samples[i].bytes, samples[i].len);
    Insn in;
    uint64_t fault_at = 0;
    char option[32];
    snprintf(option, sizeof option, "-%s", samples[i].feature);
    assert_int_equal(decode_insn(&test_machine()->dec, (uint64_t)(uintptr_t)bytes, &in, &fault_at), (int)samples[i].len);
    assert_true(cpuid_query(&test_machine()->model, 1, 0).ecx & samples[i].ecx_bit);
    assert_null(cpuid_apply_option(&test_machine()->model, option));
    assert_int_equal(decode_insn(&test_machine()->dec, (uint64_t)(uintptr_t)bytes, &in, &fault_at), -1);
    assert_false(cpuid_query(&test_machine()->model, 1, 0).ecx & samples[i].ecx_bit);
    cpuid_reset_features(&test_machine()->model);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_sse3_moves_match_host),
    cmocka_unit_test(test_ssse3_forms_match_host),
    cmocka_unit_test(test_sse41_integer_forms_match_host),
    cmocka_unit_test(test_sse42_crc32_pcmpgtq_and_movbe_match_host),
    cmocka_unit_test(test_sse4_misaligned_operands_fault_like_host),
    cmocka_unit_test(test_sse4_narrow_memory_operands_touch_only_their_bytes),
    cmocka_unit_test(test_crc32_with_f3_is_undefined),
    cmocka_unit_test(test_sse4_features_removed_by_cpu_option_are_undefined),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

#else
#include "needs_x86_64.h"
#include "test_machine.h"
#endif
