/* f16c.c: F16C, VCVTPH2PS and VCVTPS2PH: the host's own instructions where the host tier
 * has F16C, else the portable kernels (sse_fp.h). A VEX.256 form converts both halves
 * with one commit of their exceptions. */
#include "ops_avx.h"
#include "sse_fp.h"
#include "sse_fp_host.h"
#include "sse_operand.h"

#ifdef __x86_64__
#include <cpuid.h>

/* F16C is CPUID.1:ECX bit 29 (not every compiler's __builtin_cpu_supports knows it), and
 * usable where the OS keeps AVX state. */
static bool host_has_f16c(void) {
  static int has = -1;
  if (has < 0) {
    unsigned a, b, c, d;
    has = __builtin_cpu_supports("avx") && __get_cpuid(1, &a, &b, &c, &d) && (c >> 29 & 1);
  }
  return has;
}

static uint32_t host_cvtph2ps(Xmm *d, const Xmm *s, uint32_t mx) {
  HostVec a, b = host_vec(s);
  uint32_t in = mxcsr_for_host(mx), saved, out;
  __asm__ volatile(HOST_MXCSR_ASM("vcvtph2ps %[b], %[a]")
                   : [a] "=x"(a), [saved] "=m"(saved), [out] "=m"(out)
                   : [b] "x"(b), [in] "m"(in));
  memcpy(d, &a, 16);
  return out & MXCSR_FLAGS;
}

/* The rounding control must be an immediate of the host instruction. */
#define HOST_PS2PH_CASE(n)                                                               \
  case n:                                                                                \
    __asm__ volatile(HOST_MXCSR_ASM("vcvtps2ph %[p], %[b], %[a]")                        \
                     : [a] "=x"(a), [saved] "=m"(saved), [out] "=m"(out)                 \
                     : [b] "x"(b), [in] "m"(in), [p] "i"(n));                            \
    break;
static uint32_t host_cvtps2ph(Xmm *d, const Xmm *s, unsigned imm, uint32_t mx) {
  HostVec a, b = host_vec(s);
  uint32_t in = mxcsr_for_host(mx), saved, out;
  switch (imm & 7) {
    HOST_PS2PH_CASE(0) HOST_PS2PH_CASE(1) HOST_PS2PH_CASE(2) HOST_PS2PH_CASE(3)
    HOST_PS2PH_CASE(4) HOST_PS2PH_CASE(5) HOST_PS2PH_CASE(6) default: HOST_PS2PH_CASE(7)
  }
  memcpy(d, &a, 16);
  return out & MXCSR_FLAGS;
}
#define HOST_F16C(c) ((c)->m->fp_tier == FP_TIER_HOST && host_has_f16c())
#else
#define HOST_F16C(c) false
#define host_cvtph2ps(d, s, mx) 0
#define host_cvtps2ph(d, s, imm, mx) 0
#endif

static uint32_t ph2ps(Cpu *c, Xmm *d, const Xmm *s) {
  return HOST_F16C(c) ? host_cvtph2ps(d, s, c->mxcsr) : soft_cvtph2ps(d, s, c->mxcsr);
}
static uint32_t ps2ph(Cpu *c, const Insn *in, Xmm *d, const Xmm *s) {
  unsigned imm = (unsigned)in->imm;
  if (HOST_F16C(c) && !mxcsr_traps_range(c->mxcsr)) return host_cvtps2ph(d, s, imm, c->mxcsr);
  return soft_cvtps2ph(d, s, imm, c->mxcsr);
}

/* ---- VCVTPH2PS (VEX.66.0F38.W0 13): halves in xmm/m64 (m128) into floats ---- */

static void cvtph2ps128(Cpu *c, const Insn *in, const Xmm *s) {
  Xmm r;
  fp_commit(c, ph2ps(c, &r, s));
  vex128_put(c, in->reg, &r);
}
static void cvtph2ps256(Cpu *c, const Insn *in, const Xmm *s) {
  Xmm lo = {.q = {s->q[0], 0}}, hi = {.q = {s->q[1], 0}}, r[2];
  uint32_t guest = vex256_begin(c);
  c->mxcsr |= ph2ps(c, &r[0], &lo) | ph2ps(c, &r[1], &hi);
  vex256_put(c, in->reg, guest, r);
}
void op_vcvtph2ps(Cpu *c, const Insn *in) {
  Xmm s = c->xmm[in->rm];
  cvtph2ps128(c, in, &s);
  DISPATCH_NEXT(c, in);
}
void op_vcvtph2ps_m(Cpu *c, const Insn *in) {
  Xmm s;
  load_m64(c, in, &s);
  cvtph2ps128(c, in, &s);
  DISPATCH_NEXT(c, in);
}
void op_vcvtph2ps_256(Cpu *c, const Insn *in) {
  Xmm s = c->xmm[in->rm];
  cvtph2ps256(c, in, &s);
  DISPATCH_NEXT(c, in);
}
void op_vcvtph2ps_256_m(Cpu *c, const Insn *in) {
  Xmm s;
  load_m128u(c, in, &s);
  cvtph2ps256(c, in, &s);
  DISPATCH_NEXT(c, in);
}

/* ---- VCVTPS2PH (VEX.66.0F3A.W0 1D ib): the floats of ModRM.reg into halves in
 * xmm/m64 (m128), a register destination's upper bits cleared ---- */

/* The halves in r and the exception flags raised, which an unmasked one has made #XM
 * already (fp_check); the caller records them. A memory destination is written after
 * that: an #XM comes before its page fault, and the page fault finds the flags in MXCSR
 * (measured on an Intel Xeon; docs/cpu-model.md has AMD's order). */
static uint32_t cvtps2ph_of(Cpu *c, const Insn *in, bool wide, Xmm *r) {
  Xmm hi = {.q = {0, 0}};
  uint32_t raised;
  if (!wide) {
    raised = ps2ph(c, in, r, &c->xmm[in->reg]);
  } else {
    raised = ps2ph(c, in, r, &c->xmm[in->reg]) | ps2ph(c, in, &hi, &c->ymmh[in->reg]);
    r->q[1] = hi.q[0];
  }
  fp_check(c, raised);
  return raised;
}
void op_vcvtps2ph(Cpu *c, const Insn *in) {
  Xmm r;
  fp_record(c, cvtps2ph_of(c, in, false, &r));
  vex128_put(c, in->rm, &r);
  DISPATCH_NEXT(c, in);
}
void op_vcvtps2ph_m(Cpu *c, const Insn *in) {
  uint64_t a = ea(c, in);
  Xmm r;
  fp_record(c, cvtps2ph_of(c, in, false, &r));
  probe_write_span(a, 8);
  st64(a, r.q[0]);
  DISPATCH_NEXT(c, in);
}
void op_vcvtps2ph_256(Cpu *c, const Insn *in) {
  Xmm r;
  fp_record(c, cvtps2ph_of(c, in, true, &r));
  vex128_put(c, in->rm, &r);
  DISPATCH_NEXT(c, in);
}
void op_vcvtps2ph_256_m(Cpu *c, const Insn *in) {
  uint64_t a = ea(c, in);
  Xmm r;
  fp_record(c, cvtps2ph_of(c, in, true, &r));
  probe_write_span(a, 16);
  st128(a, &r);
  DISPATCH_NEXT(c, in);
}
