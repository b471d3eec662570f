/* sse_convert.c: SSE/SSE2 conversions between floats, doubles and integers. */
#include "ops_sse.h"
#include "sse_fp.h"
#include "sse_fp_host.h"
#include "mmx.h"
#include "ops_mmx.h"
#include "sse_operand.h"

/* ---- XMM to XMM ---- */

#define FP_CVT(name, cvt, load)                                                       \
  SSE_RM(name, load) {                                                                \
    Xmm r = *d;                                                                       \
    uint32_t raised = HOST_OR_SOFT(c, host_##name(&r, s, c->mxcsr),                      \
                                   soft_cvt(cvt, &r, s, c->mxcsr));                   \
    fp_commit(c, raised);                                                             \
    *d = r;                                                                           \
  }
/* Double to float, which can overflow or be tiny in the result's lanes (shape). */
#define FP_NARROW(name, cvt, shape, load)                                             \
  SSE_RM(name, load) {                                                                \
    Xmm r;                                                                            \
    uint32_t raised;                                                                  \
    HOST_OR_SOFT_RANGED(c, raised, r, *d, shape, host_##name(&r, s, c->mxcsr),        \
                        soft_cvt(cvt, &r, s, c->mxcsr));                              \
    fp_commit(c, raised);                                                             \
    *d = r;                                                                           \
  }

/* F3 0F 5A */
FP_CVT(cvtss2sd, CVT_SS2SD, load_m32)
/* F2 0F 5A */
FP_NARROW(cvtsd2ss, CVT_SD2SS, FP_SS, load_m64)
/* 0F 5A: the memory operand is 64 bits, no alignment */
FP_CVT(cvtps2pd, CVT_PS2PD, load_m64)
/* 66 0F 5A */
FP_NARROW(cvtpd2ps, CVT_PD2PS, FP_PS, load_m128a)
/* 0F 5B */
FP_CVT(cvtdq2ps, CVT_DQ2PS, load_m128a)
/* 66 0F 5B */
FP_CVT(cvtps2dq, CVT_PS2DQ, load_m128a)
/* F3 0F 5B */
FP_CVT(cvttps2dq, CVT_TPS2DQ, load_m128a)
/* F3 0F E6: the memory operand is 64 bits, no alignment */
FP_CVT(cvtdq2pd, CVT_DQ2PD, load_m64)
/* F2 0F E6 */
FP_CVT(cvtpd2dq, CVT_PD2DQ, load_m128a)
/* 66 0F E6 */
FP_CVT(cvttpd2dq, CVT_TPD2DQ, load_m128a)

/* ---- integer to float: the source is r/m32 or r/m64 (in->osz) ---- */

/* vex: VCVTSI2SS/SD, whose other lanes come from VEX.vvvv instead of ModRM.reg, and
 * whose result clears the upper half. */
static inline void cvtsi2ss_body(Cpu *c, const Insn *in, uint64_t v, bool vex) {
  Xmm r = c->xmm[vex ? in->vreg : in->reg];
  uint32_t raised =
      in->osz == 8 ? HOST_OR_SOFT(c, host_cvtsi2ssq(&r, (int64_t)v, c->mxcsr),
                                  soft_cvt_from_int(false, (int64_t)v, &r, c->mxcsr))
                   : HOST_OR_SOFT(c, host_cvtsi2ssl(&r, (int32_t)v, c->mxcsr),
                                  soft_cvt_from_int(false, (int32_t)v, &r, c->mxcsr));
  fp_commit(c, raised);
  if (vex) vex128_put(c, in->reg, &r);
  else c->xmm[in->reg] = r;
}

static inline void cvtsi2sd_body(Cpu *c, const Insn *in, uint64_t v, bool vex) {
  Xmm r = c->xmm[vex ? in->vreg : in->reg];
  uint32_t raised =
      in->osz == 8 ? HOST_OR_SOFT(c, host_cvtsi2sdq(&r, (int64_t)v, c->mxcsr),
                                  soft_cvt_from_int(true, (int64_t)v, &r, c->mxcsr))
                   : HOST_OR_SOFT(c, host_cvtsi2sdl(&r, (int32_t)v, c->mxcsr),
                                  soft_cvt_from_int(true, (int32_t)v, &r, c->mxcsr));
  fp_commit(c, raised);
  if (vex) vex128_put(c, in->reg, &r);
  else c->xmm[in->reg] = r;
}

/* F3 [REX.W] 0F 2A, and VEX.F3.0F 2A */
#define CVT_FROM_INT(name)                                                         \
  void op_##name(Cpu *c, const Insn *in) {                                              \
    name##_body(c, in, reg_get(c, in->rm, in->osz), false);                             \
    DISPATCH_NEXT(c, in);                                                               \
  }                                                                                     \
  void op_##name##_m(Cpu *c, const Insn *in) {                                          \
    name##_body(c, in, ld(ea(c, in), in->osz), false);                                  \
    DISPATCH_NEXT(c, in);                                                               \
  }                                                                                     \
  void op_v##name(Cpu *c, const Insn *in) {                                             \
    name##_body(c, in, reg_get(c, in->rm, in->osz), true);                              \
    DISPATCH_NEXT(c, in);                                                               \
  }                                                                                     \
  void op_v##name##_m(Cpu *c, const Insn *in) {                                         \
    name##_body(c, in, ld(ea(c, in), in->osz), true);                                   \
    DISPATCH_NEXT(c, in);                                                               \
  }
CVT_FROM_INT(cvtsi2ss)
/* F2 [REX.W] 0F 2A, and VEX.F2.0F 2A */
CVT_FROM_INT(cvtsi2sd)

/* ---- float to integer: into r32 or r64 (in->osz), out of range gives 1 << (bits-1) ---- */

#define FP_TO_INT(name, f64, truncate, load)                                          \
  SSE_RM(name, load) {                                                                \
    uint64_t v;                                                                       \
    uint32_t raised =                                                                 \
        in->osz == 8                                                                  \
            ? HOST_OR_SOFT(c, host_##name##_64(s, c->mxcsr, &v),                         \
                           soft_cvt_to_int(f64, truncate, 8, s, c->mxcsr, &v))        \
            : HOST_OR_SOFT(c, host_##name##_32(s, c->mxcsr, &v),                         \
                           soft_cvt_to_int(f64, truncate, 4, s, c->mxcsr, &v));       \
    fp_commit(c, raised);                                                             \
    reg_set(c, in->reg, v, in->osz);                                                  \
  }

/* F3 [REX.W] 0F 2D */
FP_TO_INT(cvtss2si, false, false, load_m32)
/* F3 [REX.W] 0F 2C */
FP_TO_INT(cvttss2si, false, true, load_m32)
/* F2 [REX.W] 0F 2D */
FP_TO_INT(cvtsd2si, true, false, load_m64)
/* F2 [REX.W] 0F 2C */
FP_TO_INT(cvttsd2si, true, true, load_m64)

/* ---- between MMX and XMM registers: the packed conversions on two lanes ---- */

/* Integers from mm (which takes the x87 unit to the MMX state) or m64 (which does not):
 * 0F 2A CVTPI2PS sets the low two floats and keeps the upper half; 66 0F 2A CVTPI2PD sets
 * both doubles. The upper source lanes of the SSE body are zeros, exact. */
static void cvtpi2ps_of(Cpu *c, const Insn *in, uint64_t v) {
  Xmm d = c->xmm[in->reg], s = {.q = {v, 0}};
  cvtdq2ps_body(c, in, &d, &s);
  c->xmm[in->reg].q[0] = d.q[0];
}
static void cvtpi2pd_of(Cpu *c, const Insn *in, uint64_t v) {
  Xmm d = c->xmm[in->reg], s = {.q = {v, 0}};
  cvtdq2pd_body(c, in, &d, &s);
  c->xmm[in->reg] = d;
}
#define FROM_MMX(name)                                                                   \
  void op_mmx_##name(Cpu *c, const Insn *in) {                                          \
    mmx_begin(c);                                                                       \
    name##_of(c, in, mmx_get(c, in->rm));                                               \
    DISPATCH_NEXT(c, in);                                                               \
  }                                                                                     \
  void op_mmx_##name##_m(Cpu *c, const Insn *in) {                                      \
    name##_of(c, in, ld64(ea(c, in)));                                                  \
    DISPATCH_NEXT(c, in);                                                               \
  }
FROM_MMX(cvtpi2ps)
FROM_MMX(cvtpi2pd)

/* Integers into mm: 0F 2D CVTPS2PI and 0F 2C CVTTPS2PI from the low two floats of xmm or
 * m64 (the upper lanes given to the SSE body are zeros, which raise nothing); 66 0F 2D
 * CVTPD2PI and 66 0F 2C CVTTPD2PI from the two doubles of xmm or an aligned m128. */
static void low_floats(Cpu *c, const Insn *in, Xmm *t) { *t = (Xmm){.q = {c->xmm[in->rm].q[0], 0}}; }
static void low_floats_m(Cpu *c, const Insn *in, Xmm *t) { load_m64(c, in, t); }
static void doubles(Cpu *c, const Insn *in, Xmm *t) { *t = c->xmm[in->rm]; }
static void doubles_m(Cpu *c, const Insn *in, Xmm *t) { load_m128a(c, in, t); }
#define TO_MMX(name, body, source)                                                      \
  void op_mmx_##name(Cpu *c, const Insn *in) {                                          \
    Xmm d = {.q = {0, 0}}, s;                                                           \
    mmx_begin(c);                                                                       \
    source(c, in, &s);                                                                  \
    body##_body(c, in, &d, &s);                                                         \
    mmx_set(c, in->reg, d.q[0]);                                                        \
    DISPATCH_NEXT(c, in);                                                               \
  }                                                                                     \
  void op_mmx_##name##_m(Cpu *c, const Insn *in) {                                      \
    Xmm d = {.q = {0, 0}}, s;                                                           \
    mmx_check(c);                                                                       \
    source##_m(c, in, &s);                                                              \
    mmx_begin(c);                                                                       \
    body##_body(c, in, &d, &s);                                                         \
    mmx_set(c, in->reg, d.q[0]);                                                        \
    DISPATCH_NEXT(c, in);                                                               \
  }
TO_MMX(cvtps2pi, cvtps2dq, low_floats)
TO_MMX(cvttps2pi, cvttps2dq, low_floats)
TO_MMX(cvtpd2pi, cvtpd2dq, doubles)
TO_MMX(cvttpd2pi, cvttpd2dq, doubles)

/* ---- AVX forms: scalar ones merge into VEX.vvvv; packed ones of one width in both
 * lengths, those that change the width VEX.128 only (their VEX.256 forms cross lanes) */

AVX_128(cvtss2sd, load_m32) AVX_128(cvtsd2ss, load_m64)
AVX_RM(cvtdq2ps, load_m128u) AVX_RM(cvtps2dq, load_m128u) AVX_RM(cvttps2dq, load_m128u)
AVX_128(cvtps2pd, load_m64) AVX_128(cvtpd2ps, load_m128u) AVX_128(cvtdq2pd, load_m64)
AVX_128(cvtpd2dq, load_m128u) AVX_128(cvttpd2dq, load_m128u)

/* The width-changing conversions on YMM, one 128-bit body per half of the wider side:
 * VCVTPS2PD and VCVTDQ2PD widen xmm/m128 into ymm; VCVTPD2PS, VCVTPD2DQ and VCVTTPD2DQ
 * narrow ymm/m256 into xmm (the upper half cleared). Their exceptions are the
 * instruction's, committed once (sse_operand.h's vex256_begin). */
#define AVX_WIDEN_256(name)                                                               \
  static void name##_wide(Cpu *c, const Insn *in, const Xmm *s) {                         \
    Xmm lo = {.q = {s->q[0], 0}}, hi = {.q = {s->q[1], 0}}, r[2] = {{.q = {0, 0}}, {.q = {0, 0}}}; \
    uint32_t guest = vex256_begin(c);                                                     \
    name##_body(c, in, &r[0], &lo);                                                       \
    name##_body(c, in, &r[1], &hi);                                                       \
    vex256_put(c, in->reg, guest, r);                                                     \
  }                                                                                       \
  void op_v##name##_256(Cpu *c, const Insn *in) {                                         \
    Xmm s = c->xmm[in->rm];                                                               \
    name##_wide(c, in, &s);                                                               \
    DISPATCH_NEXT(c, in);                                                                 \
  }                                                                                       \
  void op_v##name##_256_m(Cpu *c, const Insn *in) {                                       \
    Xmm s;                                                                                \
    load_m128u(c, in, &s);                                                                \
    name##_wide(c, in, &s);                                                               \
    DISPATCH_NEXT(c, in);                                                                 \
  }
#define AVX_NARROW_256(name)                                                              \
  static void name##_narrow(Cpu *c, const Insn *in, const Xmm s[2]) {                     \
    Xmm r[2] = {{.q = {0, 0}}, {.q = {0, 0}}}, lo = r[0], hi = r[0];                       \
    uint32_t guest = vex256_begin(c);                                                     \
    name##_body(c, in, &lo, &s[0]);                                                       \
    name##_body(c, in, &hi, &s[1]);                                                       \
    r[0].q[0] = lo.q[0];                                                                  \
    r[0].q[1] = hi.q[0];                                                                  \
    vex256_put(c, in->reg, guest, r);                                                     \
  }                                                                                       \
  YMM_SOURCE_PAIR(v##name##_256, name##_narrow)
AVX_WIDEN_256(cvtps2pd) AVX_WIDEN_256(cvtdq2pd)
AVX_NARROW_256(cvtpd2ps) AVX_NARROW_256(cvtpd2dq) AVX_NARROW_256(cvttpd2dq)
