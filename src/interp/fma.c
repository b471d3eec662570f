/* fma.c: FMA3, the fused multiply-adds VFMADD/VFMSUB/VFNMADD/VFNMSUB (packed and scalar)
 * and VFMADDSUB/VFMSUBADD in their 132, 213 and 231 orders: one rounding, through the
 * host's own instruction where the host tier has FMA (unless it missed a trap:
 * fp_host_missed_trap), else the portable kernel (soft_fma, C's fma under <fenv.h> with
 * the x86 rules). in->op is the order << 4 | the kind, in->aux the shape (sse_fp.h). */
#include "fma_host.h"
#include "ops_avx.h"
#include "sse_fp.h"
#include "sse_operand.h"

/* One 128-bit lane: a (the first operand, the result) op b (VEX.vvvv), s (ModRM.rm). */
static uint32_t fma_lane(Cpu *c, const Insn *in, Xmm *a, const Xmm *b, const Xmm *s) {
  enum FmaKind kind = (enum FmaKind)(in->op & 15);
  enum FmaOrder order = (enum FmaOrder)(in->op >> 4);
  enum FpShape sh = (enum FpShape)in->aux;
#ifdef __x86_64__
  if (c->m->fp_tier == FP_TIER_HOST && host_has_fma()) {
    Xmm a0 = *a;
    uint32_t raised = host_fma_fns[kind][order][sh](a, b, s, c->mxcsr);
    if (!fp_host_missed_trap(c, raised, a, sh)) return raised;
    *a = a0;
  }
#endif
  return soft_fma(sh, kind, order, a, b, s, c->mxcsr);
}

static void fma128(Cpu *c, const Insn *in, const Xmm *s) {
  Xmm a = c->xmm[in->reg], b = c->xmm[in->vreg];
  fp_commit(c, fma_lane(c, in, &a, &b, s));
  vex128_put(c, in->reg, &a);
}
void op_vfma(Cpu *c, const Insn *in) {
  Xmm s = c->xmm[in->rm];
  fma128(c, in, &s);
  DISPATCH_NEXT(c, in);
}
void op_vfma_m(Cpu *c, const Insn *in) {
  Xmm s;
  if (in->aux == FP_SS) load_m32(c, in, &s);
  else if (in->aux == FP_SD) load_m64(c, in, &s);
  else load_m128u(c, in, &s);
  fma128(c, in, &s);
  DISPATCH_NEXT(c, in);
}

/* VEX.256: both lanes, their exceptions committed once (sse_operand.h's AVX_256). */
static void fma256(Cpu *c, const Insn *in, const Xmm s[2]) {
  Xmm a[2] = {c->xmm[in->reg], c->ymmh[in->reg]}, b[2] = {c->xmm[in->vreg], c->ymmh[in->vreg]};
  uint32_t guest = vex256_begin(c);
  c->mxcsr |= fma_lane(c, in, &a[0], &b[0], &s[0]) | fma_lane(c, in, &a[1], &b[1], &s[1]);
  vex256_put(c, in->reg, guest, a);
}
YMM_SOURCE_PAIR(vfma_256, fma256)
