/* dp_model.h: the CPU model's rule for DPPS and DPPD (and their VEX forms) with NaN
 * operands, for the differential tests that meet them (test_sse4_float.c, test_avx.c).
 * Included after sse_harness.h. */
#ifndef X64EMU_TEST_DP_MODEL_H
#define X64EMU_TEST_DP_MODEL_H

#include <immintrin.h>

/* ---- the CPU model's DPPS/DPPD with NaN operands (docs/cpu-model.md) ----
 *
 * Which NaN a dot product returns depends on the order of its additions, and Intel and
 * AMD add in different orders. The model's (Intel's, measured): DPPS lane i is
 * (P[i^1] + P[i]) + (P[i^3] + P[i^2]), left operand first, DPPD lane i is P[i] + P[i^1];
 * P[j] is the product of lane j, or +0.0 where imm8 bit 4+j is clear. Built here from
 * the host's own MULSS/ADDSS (on which the vendors agree), exceptions masked; a case in
 * which the model would fault is left to the host. */

/* One scalar operation on the host under the case's MXCSR (exceptions masked); its flags
 * are added to *flags. */
static uint64_t host_scalar(bool f64, bool add, uint64_t a, uint64_t b, uint32_t mxcsr,
                            uint32_t *flags) {
  uint32_t in = (mxcsr | MXCSR_MASKS) & ~(uint32_t)MXCSR_FLAGS, out, saved;
  Xmm x = {.q = {a, 0}}, y = {.q = {b, 0}};
  __m128i vx, vy;
  memcpy(&vx, &x, 16);
  memcpy(&vy, &y, 16);
#define SCALAR(insn) __asm__ volatile("stmxcsr %[saved]\n\tldmxcsr %[in]\n\t" insn " %[y], %[x]\n\t" \
                                      "stmxcsr %[out]\n\tldmxcsr %[saved]"                        \
                                      : [x] "+x"(vx), [saved] "=m"(saved), [out] "=m"(out)          \
                                      : [y] "x"(vy), [in] "m"(in))
  if (f64 && add) SCALAR("addsd");
  else if (f64) SCALAR("mulsd");
  else if (add) SCALAR("addss");
  else SCALAR("mulss");
#undef SCALAR
  *flags |= out & MXCSR_FLAGS;
  memcpy(&x, &vx, 16);
  uint64_t r = f64 ? x.q[0] : x.d[0];
  /* With underflow unmasked an exact tiny result underflows too: the model would fault. */
  bool denormal = f64 ? (r & 0x7FF0000000000000ull) == 0 && (r << 1) != 0
                      : (r & 0x7F800000u) == 0 && (r << 33) != 0;
  if (denormal && !(mxcsr & MXCSR_UE << 7)) *flags |= MXCSR_UE;
  return r;
}

static bool is_nan(bool f64, uint64_t v) {
  return f64 ? (v & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull : (v & 0x7FFFFFFFu) > 0x7F800000u;
}

static uint64_t lane(bool f64, const uint8_t *x, unsigned i) {
  uint64_t v = 0;
  memcpy(&v, x + (f64 ? 8 : 4) * i, f64 ? 8 : 4);
  return v;
}

static bool dot_product_nan_rule(const Form *f, const uint8_t *insn, unsigned len,
                                 const MachineState *before, MachineState *expect, Outcome *o) {
  if (f->opc[0] != 0x3A || (f->opc[1] != 0x40 && f->opc[1] != 0x41)) return false;
  if (case_mem && ((uintptr_t)case_mem & 15) && !f->vex) return false; /* #GP either way */
  bool f64 = f->opc[1] == 0x41;
  unsigned imm = insn[len - 1], lanes = f64 ? 2 : 4, halves = f->vex_l ? 2 : 1;
  /* The first operand: the destination, or VEX.vvvv (VDPPS, VDPPD); VDPPS on YMM works on
   * each 128-bit half with the same imm8 */
  const uint8_t *d[2] = {before->xmm[f->vex ? case_vreg : case_reg].b, before->ymmh[case_vreg].b};
  const uint8_t *s[2] = {case_mem ? case_mem : before->xmm[case_rm].b,
                         case_mem ? case_mem + 16 : before->ymmh[case_rm].b};
  bool nan = false;
  for (unsigned h = 0; h < halves; h++)
    for (unsigned i = 0; i < lanes; i++)
      if (imm >> (4 + i) & 1) nan |= is_nan(f64, lane(f64, d[h], i)) || is_nan(f64, lane(f64, s[h], i));
  if (!nan) return false;
  uint32_t mx = before->mxcsr, flags = 0;
  *expect = *before;
  for (unsigned h = 0; h < halves; h++) {
    uint64_t p[4], t[4], r[4];
    for (unsigned i = 0; i < lanes; i++)
      p[i] = imm >> (4 + i) & 1 ? host_scalar(f64, false, lane(f64, d[h], i), lane(f64, s[h], i), mx, &flags) : 0;
    if (f64) {
      for (unsigned i = 0; i < 2; i++) r[i] = host_scalar(true, true, p[i], p[i ^ 1], mx, &flags);
    } else {
      for (unsigned i = 0; i < 4; i++) t[i] = host_scalar(false, true, p[i ^ 1], p[i], mx, &flags);
      for (unsigned i = 0; i < 4; i++) r[i] = host_scalar(false, true, t[i], t[i ^ 2], mx, &flags);
    }
    Xmm *out = h ? &expect->ymmh[case_reg] : &expect->xmm[case_reg];
    memcpy(out, d[h], 16);
    for (unsigned i = 0; i < lanes; i++) {
      uint64_t v = imm >> i & 1 ? r[i] : 0;
      memcpy(out->b + (f64 ? 8 : 4) * i, &v, f64 ? 8 : 4);
    }
  }
  if (flags & ~(mx >> 7) & MXCSR_FLAGS) return false; /* an unmasked exception */
  if (f->vex && !f->vex_l) expect->ymmh[case_reg] = (Xmm){.q = {0, 0}};
  expect->mxcsr = mx | flags;
  *o = (Outcome){0, 0, 0};
  return true;
}

#endif
