/* sse_move.c: SSE/SSE2 data movement: whole-register, scalar and half moves, MOVD/MOVQ,
 * sign masks, word insert/extract and the non-temporal stores. */

#include "ops_sse.h"
#include "sse_operand.h"

/* ---- 128-bit moves ---- */

/* 0F 10, 66 0F 10, F3 0F 6F: MOVUPS/MOVUPD/MOVDQU loads */
SSE_RM_LEAN(movu_load, load_m128u) { *d = *s; }
/* 0F 28, 66 0F 28, 66 0F 6F: MOVAPS/MOVAPD/MOVDQA loads */
SSE_RM_LEAN(mova_load, load_m128a) { *d = *s; }

/* 0F 11, 0F 29, 66 0F 7F, F3 0F 7F... with a register destination (ModRM.rm) */
LEAN void op_mov128_to_rm(Cpu *c, const Insn *in) {
  c->xmm[in->rm] = c->xmm[in->reg];
  DISPATCH_LEAN(c, in);
}
/* 0F 11, 66 0F 11, F3 0F 7F: unaligned stores */
void op_movu_store_m(Cpu *c, const Insn *in) {
  st128(ea(c, in), &c->xmm[in->reg]);
  DISPATCH_NEXT(c, in);
}
/* 0F 29, 66 0F 29, 66 0F 7F, and MOVNTPS/MOVNTPD/MOVNTDQ (0F 2B, 66 0F 2B, 66 0F E7) */
void op_mova_store_m(Cpu *c, const Insn *in) {
  st128(sse_ea_aligned(c, in), &c->xmm[in->reg]);
  DISPATCH_NEXT(c, in);
}

/* ---- their AVX forms: VEX.128 writes zero the upper half, VEX.256 moves 32 bytes, the
 * aligned ones (VMOVAPS, VMOVDQA, VMOVNTPS...) from and to 32-byte aligned memory ---- */

AVX_128_AS(movu_load, load_m128u, LEAN, DISPATCH_LEAN)
AVX_128_AS(mova_load, load_m128a, LEAN, DISPATCH_LEAN)

static inline uint64_t ea_aligned32(Cpu *c, const Insn *in) {
  uint64_t a = ea(c, in);
  if (__builtin_expect(a & 31, 0)) guest_gp(c, 0);
  return a;
}

LEAN void op_vmov_load_256(Cpu *c, const Insn *in) {
  c->xmm[in->reg] = c->xmm[in->rm];
  c->ymmh[in->reg] = c->ymmh[in->rm];
  DISPATCH_LEAN(c, in);
}
void op_vmovu_load_256_m(Cpu *c, const Insn *in) {
  Xmm v[2];
  load_m256(c, in, v);
  c->xmm[in->reg] = v[0];
  c->ymmh[in->reg] = v[1];
  DISPATCH_NEXT(c, in);
}
void op_vmova_load_256_m(Cpu *c, const Insn *in) {
  (void)ea_aligned32(c, in);
  op_vmovu_load_256_m(c, in);
}
/* The store forms with a register destination (ModRM.rm). */
LEAN void op_vmov_to_rm(Cpu *c, const Insn *in) {
  Xmm v = c->xmm[in->reg];
  vex128_put(c, in->rm, &v);
  DISPATCH_LEAN(c, in);
}
LEAN void op_vmov_to_rm_256(Cpu *c, const Insn *in) {
  c->xmm[in->rm] = c->xmm[in->reg];
  c->ymmh[in->rm] = c->ymmh[in->reg];
  DISPATCH_LEAN(c, in);
}
void op_vmovu_store_256_m(Cpu *c, const Insn *in) {
  store_m256(ea(c, in), &c->xmm[in->reg], &c->ymmh[in->reg]);
  DISPATCH_NEXT(c, in);
}
void op_vmova_store_256_m(Cpu *c, const Insn *in) {
  store_m256(ea_aligned32(c, in), &c->xmm[in->reg], &c->ymmh[in->reg]);
  DISPATCH_NEXT(c, in);
}

/* VEX 0F 77: VZEROUPPER (VEX.L 0) clears bits 255:128 of every YMM register,
 * VZEROALL (VEX.L 1) all of them. With one 16-byte store a register: a memset of the
 * 256 bytes compiled to REP STOSQ, whose start-up cost was 3 % of GCM's 16-byte row. */
static inline void zero_xmms(Xmm *x) {
  static const Xmm zero;
#pragma GCC unroll 16
  for (int i = 0; i < 16; i++) xmm_put(&x[i], &zero);
}
LEAN void op_vzeroupper(Cpu *c, const Insn *in) {
  zero_xmms(c->ymmh);
  c->xstate_in_use &= (uint8_t)~XSTATE_AVX; /* takes AVX out of use, as XRSTOR can (xsave.c) */
  DISPATCH_LEAN(c, in);
}
LEAN void op_vzeroall(Cpu *c, const Insn *in) {
  zero_xmms(c->ymmh);
  zero_xmms(c->xmm);
  c->xstate_in_use &= (uint8_t)~(XSTATE_SSE | XSTATE_AVX); /* SSE too (measured) */
  DISPATCH_LEAN(c, in);
}

/* ---- scalar moves: register to register merges, a load zero-extends ---- */

/* F3 0F 10 */
void op_movss(Cpu *c, const Insn *in) {
  c->xmm[in->reg].d[0] = c->xmm[in->rm].d[0];
  DISPATCH_NEXT(c, in);
}
void op_movss_m(Cpu *c, const Insn *in) {
  xmm_put_low64(&c->xmm[in->reg], ld32(ea(c, in)));
  DISPATCH_NEXT(c, in);
}
/* F3 0F 11 */
void op_movss_to_rm(Cpu *c, const Insn *in) {
  c->xmm[in->rm].d[0] = c->xmm[in->reg].d[0];
  DISPATCH_NEXT(c, in);
}
void op_movss_store_m(Cpu *c, const Insn *in) {
  st32(ea(c, in), c->xmm[in->reg].d[0]);
  DISPATCH_NEXT(c, in);
}
/* F2 0F 10 */
void op_movsd(Cpu *c, const Insn *in) {
  c->xmm[in->reg].q[0] = c->xmm[in->rm].q[0];
  DISPATCH_NEXT(c, in);
}
void op_movsd_m(Cpu *c, const Insn *in) {
  xmm_put_low64(&c->xmm[in->reg], ld64(ea(c, in)));
  DISPATCH_NEXT(c, in);
}
/* F2 0F 11 */
void op_movsd_to_rm(Cpu *c, const Insn *in) {
  c->xmm[in->rm].q[0] = c->xmm[in->reg].q[0];
  DISPATCH_NEXT(c, in);
}
void op_movsd_store_m(Cpu *c, const Insn *in) {
  st64(ea(c, in), c->xmm[in->reg].q[0]);
  DISPATCH_NEXT(c, in);
}

/* Their AVX forms: a register form merges the low lane into VEX.vvvv's, a load
 * zero-extends; both clear the upper half. (The stores are the SSE handlers.) */
#define VEX_SCALAR_MOVE(name, lane, load)                                               \
  void op_v##name(Cpu *c, const Insn *in) {                                             \
    Xmm v = c->xmm[in->vreg];                                                           \
    v.lane[0] = c->xmm[in->rm].lane[0];                                                 \
    vex128_put(c, in->reg, &v);                                                         \
    DISPATCH_NEXT(c, in);                                                               \
  }                                                                                     \
  void op_v##name##_m(Cpu *c, const Insn *in) {                                         \
    Xmm v = {.q = {load(ea(c, in)), 0}};                                                \
    vex128_put(c, in->reg, &v);                                                         \
    DISPATCH_NEXT(c, in);                                                               \
  }                                                                                     \
  void op_v##name##_to_rm(Cpu *c, const Insn *in) {                                     \
    Xmm v = c->xmm[in->vreg];                                                           \
    v.lane[0] = c->xmm[in->reg].lane[0];                                                \
    vex128_put(c, in->rm, &v);                                                          \
    DISPATCH_NEXT(c, in);                                                               \
  }
/* VEX.F3.0F 10 and 11, VEX.F2.0F 10 and 11 */
VEX_SCALAR_MOVE(movss, d, ld32)
VEX_SCALAR_MOVE(movsd, q, ld64)

/* ---- quadword halves ---- */

/* 0F 12 with a register: MOVHLPS */
void op_movhlps(Cpu *c, const Insn *in) {
  c->xmm[in->reg].q[0] = c->xmm[in->rm].q[1];
  DISPATCH_NEXT(c, in);
}
/* 0F 12, 66 0F 12 from memory: MOVLPS/MOVLPD load the low half, keeping the high one */
void op_movlps_load_m(Cpu *c, const Insn *in) {
  c->xmm[in->reg].q[0] = ld64(ea(c, in));
  DISPATCH_NEXT(c, in);
}
/* 0F 13, 66 0F 13 */
void op_movlps_store_m(Cpu *c, const Insn *in) {
  st64(ea(c, in), c->xmm[in->reg].q[0]);
  DISPATCH_NEXT(c, in);
}
/* 0F 16 with a register: MOVLHPS */
void op_movlhps(Cpu *c, const Insn *in) {
  c->xmm[in->reg].q[1] = c->xmm[in->rm].q[0];
  DISPATCH_NEXT(c, in);
}
/* 0F 16, 66 0F 16 from memory: MOVHPS/MOVHPD */
void op_movhps_load_m(Cpu *c, const Insn *in) {
  c->xmm[in->reg].q[1] = ld64(ea(c, in));
  DISPATCH_NEXT(c, in);
}
/* 0F 17, 66 0F 17 */
void op_movhps_store_m(Cpu *c, const Insn *in) {
  st64(ea(c, in), c->xmm[in->reg].q[1]);
  DISPATCH_NEXT(c, in);
}

/* ---- MOVD/MOVQ between XMM and general registers or memory (in->osz 4 or 8) ---- */

/* 66 [REX.W] 0F 6E: zero-extends into the whole XMM register */
LEAN void op_movd_to_xmm(Cpu *c, const Insn *in) {
  xmm_put_low64(&c->xmm[in->reg], reg_get(c, in->rm, in->osz));
  DISPATCH_LEAN(c, in);
}
void op_movd_to_xmm_m(Cpu *c, const Insn *in) {
  xmm_put_low64(&c->xmm[in->reg], ld(ea(c, in), in->osz));
  DISPATCH_NEXT(c, in);
}
/* 66 [REX.W] 0F 7E */
LEAN void op_movd_from_xmm(Cpu *c, const Insn *in) {
  reg_set(c, in->rm, c->xmm[in->reg].q[0], in->osz);
  DISPATCH_LEAN(c, in);
}
void op_movd_from_xmm_m(Cpu *c, const Insn *in) {
  st(ea(c, in), c->xmm[in->reg].q[0], in->osz);
  DISPATCH_NEXT(c, in);
}
/* F3 0F 7E: MOVQ xmm, xmm/m64 */
LEAN void op_movq_load(Cpu *c, const Insn *in) {
  xmm_put_low64(&c->xmm[in->reg], c->xmm[in->rm].q[0]);
  DISPATCH_LEAN(c, in);
}
void op_movq_load_m(Cpu *c, const Insn *in) {
  xmm_put_low64(&c->xmm[in->reg], ld64(ea(c, in)));
  DISPATCH_NEXT(c, in);
}
/* 66 0F D6: MOVQ xmm/m64, xmm */
LEAN void op_movq_to_rm(Cpu *c, const Insn *in) {
  xmm_put_low64(&c->xmm[in->rm], c->xmm[in->reg].q[0]);
  DISPATCH_LEAN(c, in);
}
void op_movq_store_m(Cpu *c, const Insn *in) {
  st64(ea(c, in), c->xmm[in->reg].q[0]);
  DISPATCH_NEXT(c, in);
}

/* ---- sign masks into a general register (zero-extended) ---- */

/* 0F 50 */
void op_movmskps(Cpu *c, const Insn *in) {
  const Xmm *s = &c->xmm[in->rm];
  uint64_t m = 0;
  for (int i = 0; i < 4; i++) m |= (uint64_t)(s->d[i] >> 31) << i;
  c->r[in->reg] = m;
  DISPATCH_NEXT(c, in);
}
/* 66 0F 50 */
void op_movmskpd(Cpu *c, const Insn *in) {
  const Xmm *s = &c->xmm[in->rm];
  c->r[in->reg] = (s->q[0] >> 63) | (s->q[1] >> 63) << 1;
  DISPATCH_NEXT(c, in);
}

/* 66 0F D7: half of the inner loop of glibc's string functions (with PCMPEQB) */
LEAN void op_pmovmskb(Cpu *c, const Insn *in) {
  c->r[in->reg] = xmm_byte_signs(&c->xmm[in->rm]);
  DISPATCH_LEAN(c, in);
}

/* ---- words ---- */

/* 66 0F C4: PINSRW xmm, r32/m16, imm8 */
void op_pinsrw(Cpu *c, const Insn *in) {
  c->xmm[in->reg].w[in->imm & 7] = (uint16_t)c->r[in->rm];
  DISPATCH_NEXT(c, in);
}
void op_pinsrw_m(Cpu *c, const Insn *in) {
  c->xmm[in->reg].w[in->imm & 7] = ld16(ea(c, in));
  DISPATCH_NEXT(c, in);
}
/* 66 0F C5: PEXTRW r32, xmm, imm8 */
void op_pextrw(Cpu *c, const Insn *in) {
  c->r[in->reg] = c->xmm[in->rm].w[in->imm & 7];
  DISPATCH_NEXT(c, in);
}

/* ---- stores that bypass the cache on real hardware: plain stores here ---- */

/* 0F C3: MOVNTI m32/m64, r */
void op_movnti_m(Cpu *c, const Insn *in) {
  st(ea(c, in), reg_get(c, in->reg, in->osz), in->osz);
  DISPATCH_NEXT(c, in);
}
/* 66 0F F7: MASKMOVDQU xmm1, xmm2 stores the bytes of xmm1 whose mask byte in xmm2 has
 * its top bit set, at [rdi] (the decoder set base = RDI and the segment). */
void op_maskmovdqu(Cpu *c, const Insn *in) {
  const Xmm *v = &c->xmm[in->reg], *mask = &c->xmm[in->rm];
  uint64_t a = ea(c, in);
  probe_masked(a, 16);
  access_in_order();
  for (int i = 0; i < 16; i++)
    if (mask->b[i] & 0x80) st8(a + (uint64_t)i, v->b[i]);
  DISPATCH_NEXT(c, in);
}
