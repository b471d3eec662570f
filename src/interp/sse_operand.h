/* sse_operand.h: how SSE handlers reach their operands: memory loads of each width, the
 * 16-byte alignment check, and the macro that makes a register and a memory handler. */
#ifndef X64EMU_SSE_OPERAND_H
#define X64EMU_SSE_OPERAND_H

#include <signal.h>
#ifdef __SSE2__
#include <emmintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

#include "access.h"
#include "mxcsr.h"
#include "run.h"

/* A misaligned operand of an aligned SSE form is #GP(0): the kernel sends SIGSEGV with
 * SI_KERNEL and no address, before the address is checked (measured: MOVAPS through RSP
 * at a non-canonical address is #GP, not #SS; run.h's guest_misaligned has the others). */
static inline uint64_t sse_ea_aligned(Cpu *c, const Insn *in) {
  uint64_t a = ea(c, in);
  if (__builtin_expect(a & 15, 0)) guest_gp(c, 0);
  return a;
}

/* Loads for the memory forms: the operand lands in a temporary XMM value, zero above
 * its width, and the register form runs on it. */
static inline void load_m128a(Cpu *c, const Insn *in, Xmm *t) { ld128(sse_ea_aligned(c, in), t); }
static inline void load_m128u(Cpu *c, const Insn *in, Xmm *t) { ld128(ea(c, in), t); }
static inline void load_m64(Cpu *c, const Insn *in, Xmm *t) {
  t->q[0] = ld64(ea(c, in));
  t->q[1] = 0;
}
static inline void load_m32(Cpu *c, const Insn *in, Xmm *t) {
  t->q[0] = ld32(ea(c, in));
  t->q[1] = 0;
}

/* The 32-byte memory operand of a VEX.256 form, as its low and high halves (no alignment
 * needed). A fault in the second half comes before any register is written. */
static inline void load_m256(Cpu *c, const Insn *in, Xmm hv[2]) {
  uint64_t a = ea(c, in);
  ld128(a, &hv[0]);
  ld128(a + 16, &hv[1]);
}
/* Stores 32 bytes, none of them when the second page faults (as one access of the CPU). */
static inline void store_m256(uint64_t a, const Xmm *lo, const Xmm *hi) {
  if ((a ^ (a + 31)) >> 12) probe_write_span(a, 32);
  st128(a, lo);
  st128(a + 16, hi);
}

/* The top bits of the 16 bytes of x, byte i's in bit i (PMOVMSKB). Without SSE2: each
 * byte's bit lands in the top byte of the product at its own position (the partial
 * products cannot carry). */
static inline uint32_t xmm_byte_signs(const Xmm *x) {
#ifdef __SSE2__
  return (uint32_t)_mm_movemask_epi8(_mm_load_si128((const __m128i *)x));
#else
  uint64_t m = 0x8080808080808080ull, spread = 0x0102040810204080ull;
  return (uint32_t)(((x->q[0] & m) >> 7) * spread >> 56 | (((x->q[1] & m) >> 7) * spread >> 56) << 8);
#endif
}

/* d = {lo, hi} in one 16-byte store: after two 8-byte ones (or one into half of it) the
 * next read of the whole register waits until they reach the cache (a load is forwarded
 * from one store, not from two). */
static inline void xmm_put_pair(Xmm *d, uint64_t lo, uint64_t hi) {
#if defined(__SSE2__)
  _mm_store_si128((__m128i *)d, _mm_set_epi64x((long long)hi, (long long)lo));
#elif defined(__aarch64__)
  vst1q_u64(d->q, vcombine_u64(vcreate_u64(lo), vcreate_u64(hi)));
#else
  *d = (Xmm){.q = {lo, hi}};
#endif
}
static inline void xmm_put_low64(Xmm *d, uint64_t v) { xmm_put_pair(d, v, 0); }
/* *d = *v, as one 16-byte store for the same reason: a plain copy of a result computed in
 * general registers compiles to two 8-byte stores. */
static inline void xmm_put(Xmm *d, const Xmm *v) {
#if defined(__SSE2__)
  _mm_store_si128((__m128i *)d, _mm_load_si128((const __m128i *)v));
#elif defined(__aarch64__)
  vst1q_u64(d->q, vld1q_u64(v->q));
#else
  *d = *v;
#endif
}

/* A VEX.128 result: the destination's upper half becomes zero. */
static inline void vex128_put(Cpu *c, unsigned reg, const Xmm *v) {
  xmm_put(&c->xmm[reg], v);
  c->ymmh[reg] = (Xmm){.q = {0, 0}};
}
/* ...of {v, 0}. */
static inline void vex128_put_low64(Cpu *c, unsigned reg, uint64_t v) {
  xmm_put_low64(&c->xmm[reg], v);
  c->ymmh[reg] = (Xmm){.q = {0, 0}};
}

/* Defines op_<name> (source is xmm[in->rm]) and op_<name>_m (source loaded by `load`),
 * both running the body that follows with d = the destination xmm[in->reg] and s = the
 * source. The body works on local copies, stored back when it returns: they cannot
 * alias, so its lane loops compile to vector code, and a body that faults (fp_commit)
 * leaves the destination as it was. */
#define SSE_RM(name, load) SSE_RM_AS(name, load, , DISPATCH_NEXT)
/* The same for an operation that raises no exception: its register form is lean (insn.h). */
#define SSE_RM_LEAN(name, load) SSE_RM_AS(name, load, LEAN, DISPATCH_LEAN)
#define SSE_RM_AS(name, load, QUAL, GO_ON)                                              \
  static inline void name##_body(Cpu *c, const Insn *in, Xmm *d, const Xmm *s);         \
  QUAL void op_##name(Cpu *c, const Insn *in) {                                         \
    Xmm dv = c->xmm[in->reg], sv = c->xmm[in->rm];                                      \
    name##_body(c, in, &dv, &sv);                                                       \
    xmm_put(&c->xmm[in->reg], &dv);                                                     \
    GO_ON(c, in);                                                                       \
  }                                                                                     \
  void op_##name##_m(Cpu *c, const Insn *in) {                                          \
    Xmm dv = c->xmm[in->reg], sv;                                                       \
    load(c, in, &sv);                                                                   \
    name##_body(c, in, &dv, &sv);                                                       \
    xmm_put(&c->xmm[in->reg], &dv);                                                     \
    DISPATCH_NEXT(c, in);                                                               \
  }                                                                                     \
  static inline void name##_body(Cpu *c, const Insn *in, Xmm *d, const Xmm *s)

/* The AVX forms of an SSE_RM body, defined after it, with a first source the SSE form
 * does not have: the register VEX.vvvv (in->vreg), ModRM.rm the second.
 *
 * AVX_128: op_v<name> and op_v<name>_m, the VEX.128 forms: the body runs on
 * xmm[in->vreg] and the source, the result goes to xmm[in->reg] and zeroes its upper
 * half; memory operands need no alignment (`load`: load_m128u, or the scalar width).
 *
 * AVX_256: op_v<name>_256 and op_v<name>_256_m, the VEX.256 forms, whose operation works
 * on each 128-bit lane as the SSE one does on its register: the body runs on the low
 * halves, then on the high ones. Its floating-point exceptions are those of both lanes
 * together (one #XM, or one MXCSR update), so they are collected with every exception
 * masked and committed once, before the destination is written.
 *
 * The _AS forms take the register forms' qualifier and way on (AVX_RM_LEAN: lean). */
#define AVX_128(name, load) AVX_128_AS(name, load, , DISPATCH_NEXT)
#define AVX_128_AS(name, load, QUAL, GO_ON)                                             \
  QUAL void op_v##name(Cpu *c, const Insn *in) {                                        \
    Xmm dv = c->xmm[in->vreg], sv = c->xmm[in->rm];                                     \
    name##_body(c, in, &dv, &sv);                                                       \
    vex128_put(c, in->reg, &dv);                                                        \
    GO_ON(c, in);                                                                       \
  }                                                                                     \
  void op_v##name##_m(Cpu *c, const Insn *in) {                                         \
    Xmm dv = c->xmm[in->vreg], sv;                                                      \
    load(c, in, &sv);                                                                   \
    name##_body(c, in, &dv, &sv);                                                       \
    vex128_put(c, in->reg, &dv);                                                        \
    DISPATCH_NEXT(c, in);                                                               \
  }
#define AVX_256(name) AVX_256_AS(name, , DISPATCH_NEXT)
#define AVX_256_AS(name, QUAL, GO_ON)                                                   \
  QUAL void op_v##name##_256(Cpu *c, const Insn *in) {                                  \
    Xmm dv[2] = {c->xmm[in->vreg], c->ymmh[in->vreg]}, sv[2] = {c->xmm[in->rm], c->ymmh[in->rm]}; \
    uint32_t guest = vex256_begin(c);                                                   \
    name##_body(c, in, &dv[0], &sv[0]);                                                 \
    name##_body(c, in, &dv[1], &sv[1]);                                                 \
    vex256_put(c, in->reg, guest, dv);                                                  \
    GO_ON(c, in);                                                                       \
  }                                                                                     \
  void op_v##name##_256_m(Cpu *c, const Insn *in) {                                     \
    Xmm dv[2] = {c->xmm[in->vreg], c->ymmh[in->vreg]}, sv[2];                           \
    load_m256(c, in, sv);                                                               \
    uint32_t guest = vex256_begin(c);                                                   \
    name##_body(c, in, &dv[0], &sv[0]);                                                 \
    name##_body(c, in, &dv[1], &sv[1]);                                                 \
    vex256_put(c, in->reg, guest, dv);                                                  \
    DISPATCH_NEXT(c, in);                                                               \
  }
#define AVX_RM(name, load) AVX_128(name, load) AVX_256(name)
#define AVX_RM_LEAN(name, load) \
  AVX_128_AS(name, load, LEAN, DISPATCH_LEAN) AVX_256_AS(name, LEAN, DISPATCH_LEAN)

/* op_<name> and op_<name>_m, VEX.256 handlers of an operation fn(c, in, s) that is not
 * one SSE body per lane: s is the 32-byte source, YMM[in->rm] or memory. */
#define YMM_SOURCE_PAIR(name, fn)                                                       \
  void op_##name(Cpu *c, const Insn *in) {                                              \
    Xmm s[2] = {c->xmm[in->rm], c->ymmh[in->rm]};                                       \
    fn(c, in, s);                                                                       \
    DISPATCH_NEXT(c, in);                                                               \
  }                                                                                     \
  void op_##name##_m(Cpu *c, const Insn *in) {                                          \
    Xmm s[2];                                                                           \
    load_m256(c, in, s);                                                                \
    fn(c, in, s);                                                                       \
    DISPATCH_NEXT(c, in);                                                               \
  }

/* Around the two lanes of AVX_256: MXCSR with no flag set, in which the lanes collect
 * theirs without faulting (fp_unmasked), then the guest's back with what they raised
 * committed (fp_commit may fault). */
static inline uint32_t vex256_begin(Cpu *c) {
  uint32_t guest = c->mxcsr;
  c->mxcsr = guest & ~MXCSR_FLAGS;
  c->fp_halves = true;
  return guest;
}
static inline void vex256_put(Cpu *c, unsigned reg, uint32_t guest, const Xmm v[2]) {
  uint32_t raised = c->mxcsr & MXCSR_FLAGS;
  c->mxcsr = guest;
  c->fp_halves = false;
  if (raised) fp_commit(c, raised);
  c->xmm[reg] = v[0];
  c->ymmh[reg] = v[1];
}

#endif
