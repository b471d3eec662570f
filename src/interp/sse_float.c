/* sse_float.c: SSE/SSE2 floating-point arithmetic, compares and reciprocal estimates,
 * each computed by the chosen tier (sse_fp.h) and committed through MXCSR. */
#include "flags.h"
#include "ops_sse.h"
#include "sse_fp.h"
#include "sse_fp_host.h"
#include "sse_operand.h"

/* ---- arithmetic ---- */

#define FP_ARITH(name, op, shape, load)                                               \
  SSE_RM(name, load) {                                                                \
    Xmm r;                                                                            \
    uint32_t raised;                                                                  \
    HOST_OR_SOFT_RANGED(c, raised, r, *d, shape, host_##name(&r, s, c->mxcsr),        \
                        soft_arith(op, shape, &r, s, c->mxcsr));                      \
    fp_commit(c, raised);                                                             \
    *d = r;                                                                           \
  }

/* 0F 58, 66 0F 58, F3 0F 58, F2 0F 58 */
FP_ARITH(addps, FP_ADD, FP_PS, load_m128a)
FP_ARITH(addpd, FP_ADD, FP_PD, load_m128a)
FP_ARITH(addss, FP_ADD, FP_SS, load_m32)
FP_ARITH(addsd, FP_ADD, FP_SD, load_m64)
/* 0F 5C, 66 0F 5C, F3 0F 5C, F2 0F 5C */
FP_ARITH(subps, FP_SUB, FP_PS, load_m128a)
FP_ARITH(subpd, FP_SUB, FP_PD, load_m128a)
FP_ARITH(subss, FP_SUB, FP_SS, load_m32)
FP_ARITH(subsd, FP_SUB, FP_SD, load_m64)
/* 0F 59, 66 0F 59, F3 0F 59, F2 0F 59 */
FP_ARITH(mulps, FP_MUL, FP_PS, load_m128a)
FP_ARITH(mulpd, FP_MUL, FP_PD, load_m128a)
FP_ARITH(mulss, FP_MUL, FP_SS, load_m32)
FP_ARITH(mulsd, FP_MUL, FP_SD, load_m64)
/* 0F 5E, 66 0F 5E, F3 0F 5E, F2 0F 5E */
FP_ARITH(divps, FP_DIV, FP_PS, load_m128a)
FP_ARITH(divpd, FP_DIV, FP_PD, load_m128a)
FP_ARITH(divss, FP_DIV, FP_SS, load_m32)
FP_ARITH(divsd, FP_DIV, FP_SD, load_m64)
/* 0F 5D, 66 0F 5D, F3 0F 5D, F2 0F 5D */
FP_ARITH(minps, FP_MIN, FP_PS, load_m128a)
FP_ARITH(minpd, FP_MIN, FP_PD, load_m128a)
FP_ARITH(minss, FP_MIN, FP_SS, load_m32)
FP_ARITH(minsd, FP_MIN, FP_SD, load_m64)
/* 0F 5F, 66 0F 5F, F3 0F 5F, F2 0F 5F */
FP_ARITH(maxps, FP_MAX, FP_PS, load_m128a)
FP_ARITH(maxpd, FP_MAX, FP_PD, load_m128a)
FP_ARITH(maxss, FP_MAX, FP_SS, load_m32)
FP_ARITH(maxsd, FP_MAX, FP_SD, load_m64)
/* 0F 51, 66 0F 51, F3 0F 51, F2 0F 51 */
FP_ARITH(sqrtps, FP_SQRT, FP_PS, load_m128a)
FP_ARITH(sqrtpd, FP_SQRT, FP_PD, load_m128a)
FP_ARITH(sqrtss, FP_SQRT, FP_SS, load_m32)
FP_ARITH(sqrtsd, FP_SQRT, FP_SD, load_m64)

/* ---- compares into lane masks: predicate in->imm (only its low three bits count) ---- */

#define FP_CMP(name, shape, load)                                                     \
  SSE_RM(name, load) {                                                                \
    Xmm r = *d;                                                                       \
    unsigned pred = (unsigned)in->imm & 7;                                            \
    uint32_t raised = HOST_OR_SOFT(c, host_##name(&r, s, c->mxcsr, pred),                \
                                   soft_cmp(shape, pred, &r, s, c->mxcsr));           \
    fp_commit(c, raised);                                                             \
    *d = r;                                                                           \
  }

/* 0F C2, 66 0F C2, F3 0F C2, F2 0F C2 */
FP_CMP(cmpps, FP_PS, load_m128a)
FP_CMP(cmppd, FP_PD, load_m128a)
FP_CMP(cmpss, FP_SS, load_m32)
FP_CMP(cmpsd, FP_SD, load_m64)

/* ---- compares into RFLAGS: ZF, PF, CF from the relation; OF, SF, AF cleared ---- */

#define FP_COMI(name, f64, quiet, load)                                               \
  SSE_RM(name, load) {                                                                \
    uint64_t zpc;                                                                     \
    uint32_t raised = HOST_OR_SOFT(c, host_##name(d, s, c->mxcsr, &zpc),                 \
                                   soft_comi(f64, quiet, d, s, c->mxcsr, &zpc));      \
    fp_commit(c, raised);                                                             \
    flags_update(c, F_ARITH, zpc);                                                    \
  }

/* 0F 2F, 66 0F 2F */
FP_COMI(comiss, false, false, load_m32)
FP_COMI(comisd, true, false, load_m64)
/* 0F 2E, 66 0F 2E */
FP_COMI(ucomiss, false, true, load_m32)
FP_COMI(ucomisd, true, true, load_m64)

/* ---- reciprocal estimates: no exceptions, no MXCSR flags ---- */

#define FP_RCP(name, shape, rsqrt, load)                                              \
  SSE_RM(name, load) {                                                                \
    Xmm r = *d;                                                                       \
    (void)HOST_OR_SOFT(c, host_##name(&r, s, c->mxcsr), (soft_rcp(shape, rsqrt, &r, s), 0u)); \
    *d = r;                                                                           \
  }

/* 0F 53, F3 0F 53 */
FP_RCP(rcpps, FP_PS, false, load_m128a)
FP_RCP(rcpss, FP_SS, false, load_m32)
/* 0F 52, F3 0F 52 */
FP_RCP(rsqrtps, FP_PS, true, load_m128a)
FP_RCP(rsqrtss, FP_SS, true, load_m32)

/* ---- AVX forms: packed ones in both lengths, scalar ones (VEX.L ignored) merge into
 * the first source ---- */

AVX_RM(addps, load_m128u) AVX_RM(addpd, load_m128u) AVX_128(addss, load_m32) AVX_128(addsd, load_m64)
AVX_RM(subps, load_m128u) AVX_RM(subpd, load_m128u) AVX_128(subss, load_m32) AVX_128(subsd, load_m64)
AVX_RM(mulps, load_m128u) AVX_RM(mulpd, load_m128u) AVX_128(mulss, load_m32) AVX_128(mulsd, load_m64)
AVX_RM(divps, load_m128u) AVX_RM(divpd, load_m128u) AVX_128(divss, load_m32) AVX_128(divsd, load_m64)
AVX_RM(minps, load_m128u) AVX_RM(minpd, load_m128u) AVX_128(minss, load_m32) AVX_128(minsd, load_m64)
AVX_RM(maxps, load_m128u) AVX_RM(maxpd, load_m128u) AVX_128(maxss, load_m32) AVX_128(maxsd, load_m64)
AVX_RM(sqrtps, load_m128u) AVX_RM(sqrtpd, load_m128u) AVX_128(sqrtss, load_m32) AVX_128(sqrtsd, load_m64)

/* ---- AVX compares: VCMPPS/PD/SS/SD with the 32 predicates of imm8 bits 4:0 ----
 *
 * Each predicate is a relation (bits 3:0) and whether a QNaN operand raises invalid
 * (bit 4 flips the one of the first sixteen). The relations come from the eight SSE
 * predicates: GE, GT, NGE and NGT are LE, LT, NLE and NLT with the operands swapped;
 * EQ_UQ and NEQ_OQ combine two; FALSE and TRUE need none. The flags are those of an SSE
 * compare that signals as the predicate does (LT_OS) or not (EQ_OQ). */

/* SSE predicate pred (0..7) of shape sh on r and s, into r; the flags it raised. */
static uint32_t cmp_sse(Cpu *c, enum FpShape sh, unsigned pred, Xmm *r, const Xmm *s) {
  switch (sh) {
  case FP_PS: return HOST_OR_SOFT(c, host_cmpps(r, s, c->mxcsr, pred), soft_cmp(sh, pred, r, s, c->mxcsr));
  case FP_PD: return HOST_OR_SOFT(c, host_cmppd(r, s, c->mxcsr, pred), soft_cmp(sh, pred, r, s, c->mxcsr));
  case FP_SS: return HOST_OR_SOFT(c, host_cmpss(r, s, c->mxcsr, pred), soft_cmp(sh, pred, r, s, c->mxcsr));
  default: return HOST_OR_SOFT(c, host_cmpsd(r, s, c->mxcsr, pred), soft_cmp(sh, pred, r, s, c->mxcsr));
  }
}

static void cmp_vex(Cpu *c, const Insn *in, enum FpShape sh, Xmm *d, const Xmm *s) {
  unsigned pred = (unsigned)in->imm & 31, rel = pred & 15;
  bool signaling = (0x6666u >> rel & 1) != (pred >= 16); /* 1, 2, 5, 6, 9, 10, 13, 14 */
  Xmm m = *d, t = *d;
  switch (rel) {
  case 8: /* EQ_UQ: EQ or unordered */
    (void)cmp_sse(c, sh, 0, &m, s);
    (void)cmp_sse(c, sh, 3, &t, s);
    m.q[0] |= t.q[0], m.q[1] |= t.q[1];
    break;
  case 9: m = *s; (void)cmp_sse(c, sh, 6, &m, d); break;  /* NGE: NLE swapped */
  case 10: m = *s; (void)cmp_sse(c, sh, 5, &m, d); break; /* NGT: NLT swapped */
  case 11: m = (Xmm){.q = {0, 0}}; break;                 /* FALSE */
  case 12: /* NEQ_OQ: NEQ and ordered */
    (void)cmp_sse(c, sh, 4, &m, s);
    (void)cmp_sse(c, sh, 7, &t, s);
    m.q[0] &= t.q[0], m.q[1] &= t.q[1];
    break;
  case 13: m = *s; (void)cmp_sse(c, sh, 2, &m, d); break; /* GE: LE swapped */
  case 14: m = *s; (void)cmp_sse(c, sh, 1, &m, d); break; /* GT: LT swapped */
  case 15: m = (Xmm){.q = {~0ull, ~0ull}}; break;         /* TRUE */
  default: (void)cmp_sse(c, sh, rel, &m, s); break;
  }
  Xmm f = *d;
  fp_commit(c, cmp_sse(c, sh, signaling ? 1 : 0, &f, s));
  if (sh == FP_SS) d->d[0] = m.d[0];
  else if (sh == FP_SD) d->q[0] = m.q[0];
  else *d = m;
}

#define VCMP(name, shape)                                                                \
  static inline void name##_body(Cpu *c, const Insn *in, Xmm *d, const Xmm *s) {         \
    cmp_vex(c, in, shape, d, s);                                                         \
  }
VCMP(cmpps_vex, FP_PS) VCMP(cmppd_vex, FP_PD) VCMP(cmpss_vex, FP_SS) VCMP(cmpsd_vex, FP_SD)
AVX_RM(cmpps_vex, load_m128u) AVX_RM(cmppd_vex, load_m128u)
AVX_128(cmpss_vex, load_m32) AVX_128(cmpsd_vex, load_m64)
AVX_RM(rcpps, load_m128u) AVX_RM(rsqrtps, load_m128u) AVX_128(rcpss, load_m32) AVX_128(rsqrtss, load_m32)
