/* test_sse_state.c: group 15 against the host CPU (LDMXCSR/STMXCSR, FXSAVE/FXRSTOR with
 * x87 and XMM state, fences, CLFLUSH, INCSSP), and the SSE encodings that are not
 * implemented becoming SIGILL. */
#define _GNU_SOURCE /* ucontext register names for the native side */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

/* The host CPU is the oracle: on other hosts there is nothing to compare with. */
#ifdef __x86_64__
#include "sse_harness.h"

#include "interp/ops_int.h"

#pragma GCC diagnostic ignored "-Woverride-init"
#define G15(n, p, e, m, ...) {.name = n, .pfx = p, .opc = {0xAE}, .nopc = 1, .modrm = m, \
                              .ext = e, .vals = VAL_MXCSR, ##__VA_ARGS__}

static const Form group15_forms[] = {
  G15("ldmxcsr", 0, 2, MR_MEM), G15("stmxcsr", 0, 3, MR_MEM),
  G15("lfence", 0, 5, MR_REG, .rm_zero = 1), G15("mfence", 0, 6, MR_REG, .rm_zero = 1),
  G15("sfence", 0, 7, MR_REG, .rm_zero = 1), G15("clflush", 0, 7, MR_MEM),
  /* #UD with shadow stacks off, on the host as here */
  G15("incssp", 0xF3, 5, MR_REG), G15("incssp r64", 0xF3, 5, MR_REG, .rexw = 1),
};

/* ---- the CPU model's MXCSR_MASK (docs/cpu-model.md) ----
 *
 * The model's MXCSR_MASK is 0xFFFF (Intel's): loading an MXCSR with bit 17 set is #GP,
 * where AMD's mask (0x2FFFF, bit 17 its misaligned-SSE mode) lets it load. */
enum { MODEL_MXCSR_MASK = 0xFFFF, AMD_MM_BIT = 1u << 17 };

static bool mxcsr_mm_rule(const Form *f, const uint8_t *insn, unsigned len,
                          const MachineState *before, MachineState *expect, Outcome *o) {
  uint32_t v;
  if (f->ext != 2 || !case_mem) return false; /* LDMXCSR m32 */
  memcpy(&v, case_mem, 4);
  if (!(v & AMD_MM_BIT)) return false;
  *expect = *before;
  *o = (Outcome){SIGSEGV, SI_KERNEL, 0};
  return true;
}

static void test_group15_forms_match_host(void **state) {
  (void)state;
  size_t n = sizeof group15_forms / sizeof *group15_forms;
  model_rule = mxcsr_mm_rule;
  unsigned bad = run_forms(group15_forms, n, 0, NULL);
  model_rule = NULL;
  assert_int_equal(bad, 0);
}

/* ---- FXSAVE/FXRSTOR ---- */

enum { FX_SIZE = 512 };
typedef struct FxImage {
  uint8_t b[FX_SIZE];
} __attribute__((aligned(16))) FxImage;

/* A random but loadable image: valid MXCSR, canonical pointers, any x87 contents. */
static void random_fx_image(FxImage *img) {
  for (unsigned i = 0; i < FX_SIZE; i += 8) {
    uint64_t v = rnd();
    memcpy(img->b + i, &v, 8);
  }
  uint64_t ip = rnd() & 0x00007FFFFFFFFFFFull, dp = rnd() & 0x00007FFFFFFFFFFFull;
  memcpy(img->b + 8, &ip, 8);
  memcpy(img->b + 16, &dp, 8);
  uint32_t mxcsr = (uint32_t)rnd() & 0xFFFF;
  memcpy(img->b + 24, &mxcsr, 4);
  for (unsigned i = 0; i < 8; i++) { /* mostly ordinary numbers, some special encodings */
    uint8_t *st = img->b + 32 + 16 * i;
    if (rnd_below(4)) {
      uint16_t se = (uint16_t)((rnd() & 0x8000) | (0x3FFF - 64 + rnd_below(128)));
      st[7] |= 0x80;
      memcpy(st + 8, &se, 2);
    }
  }
}

/* Native: FXRSTOR the image, FXSAVE into out (prefilled like the emulated one). */
static void native_fx_roundtrip(const FxImage *img, FxImage *out, bool rex_w) {
  static FxImage saved;
  if (rex_w)
    __asm__ volatile("fxsave64 %0\n\tfxrstor64 %2\n\tfxsave64 %1\n\tfxrstor64 %0"
                     : "+m"(saved), "+m"(*out) : "m"(*img));
  else
    __asm__ volatile("fxsave64 %0\n\tfxrstor %2\n\tfxsave %1\n\tfxrstor64 %0"
                     : "+m"(saved), "+m"(*out) : "m"(*img));
}

/* Emulated: the same two instructions, decoded and run with rax = the image. */
static void emu_fx_roundtrip(const FxImage *img, FxImage *out, bool rex_w) {
  static const uint8_t fxrstor64[] = {0x48, 0x0F, 0xAE, 0x08};
  static const uint8_t fxsave64[] = {0x48, 0x0F, 0xAE, 0x00};
  const uint8_t *rstor = rex_w ? fxrstor64 : fxrstor64 + 1, *save = rex_w ? fxsave64 : fxsave64 + 1;
  unsigned len = rex_w ? 4 : 3;
  Cpu *c = &emu_cpu;
  memset(c, 0, sizeof *c);
  c->mxcsr = MXCSR_DEFAULT;
  Insn in;
  uint64_t fault_at;
  assert_int_equal(decode_insn(&test_machine()->dec, (uint64_t)(uintptr_t)rstor, &in, &fault_at), (int)len);
  c->r[RAX] = (uint64_t)(uintptr_t)img;
  in.fn(c, &in);
  assert_int_equal(decode_insn(&test_machine()->dec, (uint64_t)(uintptr_t)save, &in, &fault_at), (int)len);
  c->r[RAX] = (uint64_t)(uintptr_t)out;
  in.fn(c, &in);
}

/* The model's FXSAVE after FXRSTOR of img, in the fields where AMD differs: FOP, FIP and
 * FDP are stored whether or not an x87 exception is pending (AMD stores them only when
 * one is), the 32-bit form with FCS and FDS as 0 (Intel's deprecated selectors); and
 * MXCSR_MASK is 0xFFFF. */
enum { FX_FOP = 6, FX_MXCSR_MASK = 28 };

static void model_fx_fields(const FxImage *img, FxImage *out, bool rex_w) {
  uint16_t fop;
  memcpy(&fop, img->b + FX_FOP, 2);
  fop &= 0x7FF;
  memcpy(out->b + FX_FOP, &fop, 2);
  memcpy(out->b + 8, img->b + 8, 16);
  if (!rex_w) {
    memset(out->b + 12, 0, 4);
    memset(out->b + 20, 0, 4);
  }
  uint32_t mask = MODEL_MXCSR_MASK;
  memcpy(out->b + FX_MXCSR_MASK, &mask, 4);
}

/* On a host taken for another vendor, the model's fields replace the host's; where the
 * CPU is the model's vendor they must agree. False on a disagreement. */
static bool fx_judge_by_model(const FxImage *img, FxImage *nat, bool rex_w) {
  if (host_follows_model()) return true;
  static FxImage model;
  model = *nat;
  model_fx_fields(img, &model, rex_w);
  model_judged++;
  bool agree = !cpu_model_rules_checkable() || !memcmp(model.b, nat->b, FX_SIZE);
  if (!agree) {
    fprintf(stderr, "  fxsave%s: MODEL RULE DISAGREES with this %s CPU:\n", rex_w ? "64" : "",
            cpu_model_real_vendor());
    for (unsigned i = 0; i < FX_SIZE; i++)
      if (model.b[i] != nat->b[i])
        fprintf(stderr, "    byte %u: CPU %02x rule %02x\n", i, nat->b[i], model.b[i]);
  }
  *nat = model;
  return agree;
}

static unsigned fx_roundtrips(bool rex_w) {
  harness_begin();
  unsigned iterations = diff_iterations(), bad = 0;
  for (unsigned it = 0; it < iterations && bad < 3; it++) {
    static FxImage img, nat, emu;
    random_fx_image(&img);
    for (unsigned i = 0; i < FX_SIZE; i++) nat.b[i] = emu.b[i] = (uint8_t)rnd();
    native_fx_roundtrip(&img, &nat, rex_w);
    if (!fx_judge_by_model(&img, &nat, rex_w)) bad++;
    emu_fx_roundtrip(&img, &emu, rex_w);
    if (memcmp(nat.b, emu.b, FX_SIZE)) {
      fprintf(stderr, "  fxsave%s image %u differs:\n", rex_w ? "64" : "", it);
      for (unsigned i = 0; i < FX_SIZE; i++)
        if (nat.b[i] != emu.b[i])
          fprintf(stderr, "    byte %u: loaded %02x native %02x emulated %02x\n", i, img.b[i],
                  nat.b[i], emu.b[i]);
      test_print_reproduce(stderr, rng_seed_used);
      bad++;
    }
  }
  model_report(rex_w ? "  fxsave64 images (FOP, FIP, FDP, MXCSR_MASK)"
                     : "  fxsave images (FOP, FIP, FDP, MXCSR_MASK)");
  return bad;
}

static void test_fxsave64_fxrstor64_match_host(void **state) {
  (void)state;
  assert_int_equal(fx_roundtrips(true), 0);
}

static void test_fxsave_fxrstor_32bit_pointers_match_host(void **state) {
  (void)state;
  assert_int_equal(fx_roundtrips(false), 0);
}

/* FXSAVE and FXRSTOR need a 16-byte aligned image, and FXRSTOR of reserved MXCSR bits
 * is #GP too; the fault leaves every register alone. (Every FXRSTOR here faults, so the
 * host's own x87 state is never replaced.) */
static void test_fx_faults_match_host(void **state) {
  (void)state;
  harness_begin();
  static FxImage image, mem_before, mem_nat;
  static const uint8_t fxsave_rax[] = {0x48, 0x0F, 0xAE, 0x00};
  static const uint8_t fxrstor_rax[] = {0x48, 0x0F, 0xAE, 0x08};
  for (unsigned it = 0; it < 400; it++) {
    bool rstor = it & 1, misalign = it & 2;
    bool reserved = rstor && (!misalign || (it & 4));
    random_fx_image(&image);
    if (reserved) image.b[26 + rnd_below(2)] = (uint8_t)(1 + rnd_below(255));
    MachineState before = {0}, nat, emu;
    for (unsigned i = 0; i < 16; i++) {
      before.r[i] = rand_gpr();
      before.xmm[i].q[0] = rnd();
      before.xmm[i].q[1] = rnd();
    }
    for (unsigned i = 0; i < 8; i++) before.mm[i] = rnd();
    x87_image_untouched(&before);
    before.rflags = 0x202;
    before.mxcsr = MXCSR_DEFAULT;
    before.r[RAX] = (uint64_t)(uintptr_t)image.b + (misalign ? 1 + rnd_below(15) : 0);
    const uint8_t *insn = rstor ? fxrstor_rax : fxsave_rax;
    mem_before = image;
    nat = before;
    /* An image whose MXCSR has bit 17 set is the model's #GP, where a host of another
     * vendor may load it (so it runs there only where the CPU is the model's). */
    uint32_t mxcsr;
    memcpy(&mxcsr, image.b + 24, 4);
    bool by_model = rstor && !misalign && (mxcsr & AMD_MM_BIT) && !host_follows_model();
    Outcome on = {SIGSEGV, SI_KERNEL, 0};
    if (!by_model || cpu_model_rules_checkable()) on = native_run(&nat, insn, 4);
    if (by_model) {
      model_judged++;
      if (on.sig != SIGSEGV || on.code != SI_KERNEL) {
        fprintf(stderr, "  fxrstor of mxcsr %#x: MODEL RULE DISAGREES with this CPU\n", mxcsr);
        fail();
      }
      nat = before;
    }
    mem_nat = image;
    image = mem_before;
    emu = before;
    Outcome oe = emu_run(&emu, insn, 4);
    if (!rstor && !misalign) { /* a plain FXSAVE: the round trips above check its image */
      assert_int_equal(on.sig, 0);
      assert_int_equal(oe.sig, 0);
      continue;
    }
    assert_int_equal(on.sig, SIGSEGV);
    assert_true(states_match(&nat, &on, &emu, &oe, mem_nat.b, image.b, FX_SIZE, F_ARITH));
  }
  model_report("  fxrstor of MXCSR bit 17");
}

/* ---- encodings outside the CPU model, which must be SIGILL ---- */

static void test_unimplemented_sse_encodings_are_sigill(void **state) {
  (void)state;
  harness_begin();
  static const struct {
    const char *what;
    uint8_t bytes[8];
    unsigned len;
  } cases[] = {
    {"xsave", {0x0F, 0xAE, 0x20}, 3},
    {"xrstor", {0x0F, 0xAE, 0x28}, 3},
    {"rdfsbase", {0xF3, 0x48, 0x0F, 0xAE, 0xC0}, 5},
    {"wrgsbase", {0xF3, 0x48, 0x0F, 0xAE, 0xD8}, 5},
    {"clflushopt", {0x66, 0x0F, 0xAE, 0x38}, 4},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    uint8_t buf[16];
    memset(buf, 0x90, sizeof buf);
    memcpy(buf, cases[i].bytes, cases[i].len);
    Insn in;
    uint64_t fault_at;
    int n = decode_insn(&test_machine()->dec, (uint64_t)(uintptr_t)buf, &in, &fault_at);
    if (n != -1 || in.fn != op_undefined) fprintf(stderr, "  %s decoded (%d)\n", cases[i].what, n);
    assert_int_equal(n, -1);
    assert_ptr_equal(in.fn, op_undefined);
  }
}

int main(void) {
  cpu_model_print_path(stderr, "test_sse_state");
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_group15_forms_match_host),
    cmocka_unit_test(test_fxsave64_fxrstor64_match_host),
    cmocka_unit_test(test_fxsave_fxrstor_32bit_pointers_match_host),
    cmocka_unit_test(test_fx_faults_match_host),
    cmocka_unit_test(test_unimplemented_sse_encodings_are_sigill),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

#else
#include "needs_x86_64.h"
#include "test_machine.h"
#endif
