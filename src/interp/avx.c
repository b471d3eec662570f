/* avx.c: the AVX and AVX2 instructions that are no VEX form of an SSE one, or whose
 * VEX.256 form crosses lanes: VMOVD/VMOVQ, VPMOVMSKB, VPTEST, broadcasts, 128-bit inserts,
 * extracts and permutes, and the qword and dword permutes (VPERMQ, VPERMD...). */
#include <string.h>

#include "flags.h"
#include "ops_avx.h"
#include "sse_operand.h"

/* ---- VEX.128 VMOVD/VMOVQ: as the SSE forms, and the upper half cleared ---- */

/* VEX.66.0F 6E: VMOVD xmm, r/m32 (VEX.W1: VMOVQ xmm, r/m64) */
void op_vmovd_to_xmm(Cpu *c, const Insn *in) {
  Xmm v = {.q = {reg_get(c, in->rm, in->osz), 0}};
  vex128_put(c, in->reg, &v);
  DISPATCH_NEXT(c, in);
}
void op_vmovd_to_xmm_m(Cpu *c, const Insn *in) {
  Xmm v = {.q = {ld(ea(c, in), in->osz), 0}};
  vex128_put(c, in->reg, &v);
  DISPATCH_NEXT(c, in);
}
/* VEX.F3.0F 7E: VMOVQ xmm, xmm/m64 */
void op_vmovq_load(Cpu *c, const Insn *in) {
  Xmm v = {.q = {c->xmm[in->rm].q[0], 0}};
  vex128_put(c, in->reg, &v);
  DISPATCH_NEXT(c, in);
}
void op_vmovq_load_m(Cpu *c, const Insn *in) {
  Xmm v = {.q = {ld64(ea(c, in)), 0}};
  vex128_put(c, in->reg, &v);
  DISPATCH_NEXT(c, in);
}
/* VEX.66.0F D6: VMOVQ xmm/m64, xmm (register destination) */
void op_vmovq_to_rm(Cpu *c, const Insn *in) {
  Xmm v = {.q = {c->xmm[in->reg].q[0], 0}};
  vex128_put(c, in->rm, &v);
  DISPATCH_NEXT(c, in);
}

/* ---- masks and tests across both lanes ---- */

/* VEX.256.66.0F D7: VPMOVMSKB r32, ymm (the VEX.128 form is PMOVMSKB's handler) */
void op_vpmovmskb_256(Cpu *c, const Insn *in) {
  c->r[in->reg] = xmm_byte_signs(&c->xmm[in->rm]) | (uint64_t)xmm_byte_signs(&c->ymmh[in->rm]) << 16;
  DISPATCH_NEXT(c, in);
}

/* VEX.66.0F38 17: VPTEST xmm/ymm, xmm/m128/ymm/m256 (no vvvv): ZF if d AND s is zero,
 * CF if (NOT d) AND s is zero, the other arithmetic flags cleared. */
static void ptest_flags(Cpu *c, const Xmm *d, const Xmm *s, unsigned n) {
  uint64_t and = 0, andn = 0;
  for (unsigned i = 0; i < n; i++) {
    and |= (d[i].q[0] & s[i].q[0]) | (d[i].q[1] & s[i].q[1]);
    andn |= (~d[i].q[0] & s[i].q[0]) | (~d[i].q[1] & s[i].q[1]);
  }
  flags_set(c, (flags_get(c) & ~(uint64_t)F_ARITH) | (and ? 0 : F_ZF) | (andn ? 0 : F_CF));
}
void op_vptest(Cpu *c, const Insn *in) {
  ptest_flags(c, &c->xmm[in->reg], &c->xmm[in->rm], 1);
  DISPATCH_NEXT(c, in);
}
void op_vptest_m(Cpu *c, const Insn *in) {
  Xmm s;
  load_m128u(c, in, &s);
  ptest_flags(c, &c->xmm[in->reg], &s, 1);
  DISPATCH_NEXT(c, in);
}
void op_vptest_256(Cpu *c, const Insn *in) {
  Xmm d[2] = {c->xmm[in->reg], c->ymmh[in->reg]}, s[2] = {c->xmm[in->rm], c->ymmh[in->rm]};
  ptest_flags(c, d, s, 2);
  DISPATCH_NEXT(c, in);
}
void op_vptest_256_m(Cpu *c, const Insn *in) {
  Xmm d[2] = {c->xmm[in->reg], c->ymmh[in->reg]}, s[2];
  load_m256(c, in, s);
  ptest_flags(c, d, s, 2);
  DISPATCH_NEXT(c, in);
}

/* ---- broadcasts: in->op is the element's size in bytes ---- */

static void broadcast(Cpu *c, const Insn *in, uint64_t v, bool wide) {
  Xmm x;
  for (unsigned i = 0; i < 16; i += in->op) memcpy(x.b + i, &v, in->op);
  c->xmm[in->reg] = x;
  c->ymmh[in->reg] = wide ? x : (Xmm){.q = {0, 0}};
}
/* VPBROADCASTB/W/D/Q (VEX.66.0F38 78, 79, 58, 59), VBROADCASTSS (18), VBROADCASTSD (19):
 * the low element of an XMM register or one from memory, into every element. */
void op_vbroadcast(Cpu *c, const Insn *in) {
  broadcast(c, in, c->xmm[in->rm].q[0], false);
  DISPATCH_NEXT(c, in);
}
void op_vbroadcast_m(Cpu *c, const Insn *in) {
  broadcast(c, in, ld(ea(c, in), in->op), false);
  DISPATCH_NEXT(c, in);
}
void op_vbroadcast_256(Cpu *c, const Insn *in) {
  broadcast(c, in, c->xmm[in->rm].q[0], true);
  DISPATCH_NEXT(c, in);
}
void op_vbroadcast_256_m(Cpu *c, const Insn *in) {
  broadcast(c, in, ld(ea(c, in), in->op), true);
  DISPATCH_NEXT(c, in);
}
/* VBROADCASTF128, VBROADCASTI128 (VEX.256.66.0F38 1A, 5A): m128 into both lanes */
void op_vbroadcast128_m(Cpu *c, const Insn *in) {
  Xmm v;
  load_m128u(c, in, &v);
  c->xmm[in->reg] = c->ymmh[in->reg] = v;
  DISPATCH_NEXT(c, in);
}

/* ---- 128-bit lanes: inserts, extracts, permutes (VEX.256 only) ---- */

/* VINSERTF128, VINSERTI128 (VEX.256.66.0F3A 18, 38): vvvv with lane imm8[0] replaced by
 * xmm/m128 */
static void insert128(Cpu *c, const Insn *in, const Xmm *v) {
  Xmm lane[2] = {c->xmm[in->vreg], c->ymmh[in->vreg]};
  lane[in->imm & 1] = *v;
  c->xmm[in->reg] = lane[0];
  c->ymmh[in->reg] = lane[1];
}
void op_vinsert128(Cpu *c, const Insn *in) {
  Xmm v = c->xmm[in->rm];
  insert128(c, in, &v);
  DISPATCH_NEXT(c, in);
}
void op_vinsert128_m(Cpu *c, const Insn *in) {
  Xmm v;
  load_m128u(c, in, &v);
  insert128(c, in, &v);
  DISPATCH_NEXT(c, in);
}
/* VEXTRACTF128, VEXTRACTI128 (VEX.256.66.0F3A 19, 39): lane imm8[0] of ModRM.reg into
 * xmm/m128 (a register destination's upper half cleared) */
void op_vextract128(Cpu *c, const Insn *in) {
  Xmm v = in->imm & 1 ? c->ymmh[in->reg] : c->xmm[in->reg];
  vex128_put(c, in->rm, &v);
  DISPATCH_NEXT(c, in);
}
void op_vextract128_m(Cpu *c, const Insn *in) {
  st128(ea(c, in), in->imm & 1 ? &c->ymmh[in->reg] : &c->xmm[in->reg]);
  DISPATCH_NEXT(c, in);
}
/* VPERM2F128, VPERM2I128 (VEX.256.66.0F3A 06, 46): each result lane is one of the four
 * source lanes (imm8 bits 1:0 and 5:4) or zero (bits 3 and 7). */
static void perm2x128(Cpu *c, const Insn *in, const Xmm s2[2]) {
  Xmm from[4] = {c->xmm[in->vreg], c->ymmh[in->vreg], s2[0], s2[1]}, out[2];
  for (unsigned i = 0; i < 2; i++) {
    unsigned sel = (unsigned)in->imm >> (4 * i);
    out[i] = sel & 8 ? (Xmm){.q = {0, 0}} : from[sel & 3];
  }
  c->xmm[in->reg] = out[0];
  c->ymmh[in->reg] = out[1];
}
void op_vperm2x128(Cpu *c, const Insn *in) {
  Xmm s2[2] = {c->xmm[in->rm], c->ymmh[in->rm]};
  perm2x128(c, in, s2);
  DISPATCH_NEXT(c, in);
}
void op_vperm2x128_m(Cpu *c, const Insn *in) {
  Xmm s2[2];
  load_m256(c, in, s2);
  perm2x128(c, in, s2);
  DISPATCH_NEXT(c, in);
}

/* ---- element permutes across lanes (AVX2, VEX.256 only) ---- */

/* VPERMQ, VPERMPD (VEX.256.66.0F3A.W1 00, 01): qword i = source qword imm8[2i+1:2i] */
static void permq(Cpu *c, const Insn *in, const Xmm s[2]) {
  uint64_t q[4] = {s[0].q[0], s[0].q[1], s[1].q[0], s[1].q[1]}, r[4];
  for (unsigned i = 0; i < 4; i++) r[i] = q[(in->imm >> (2 * i)) & 3];
  memcpy(&c->xmm[in->reg], r, 16);
  memcpy(&c->ymmh[in->reg], r + 2, 16);
}
void op_vpermq(Cpu *c, const Insn *in) {
  Xmm s[2] = {c->xmm[in->rm], c->ymmh[in->rm]};
  permq(c, in, s);
  DISPATCH_NEXT(c, in);
}
void op_vpermq_m(Cpu *c, const Insn *in) {
  Xmm s[2];
  load_m256(c, in, s);
  permq(c, in, s);
  DISPATCH_NEXT(c, in);
}
/* VPERMD, VPERMPS (VEX.256.66.0F38.W0 36, 16): dword i = source dword (vvvv dword i & 7) */
static void permd(Cpu *c, const Insn *in, const Xmm s[2]) {
  uint32_t d[8], idx[8], r[8];
  memcpy(d, &s[0], 16);
  memcpy(d + 4, &s[1], 16);
  memcpy(idx, &c->xmm[in->vreg], 16);
  memcpy(idx + 4, &c->ymmh[in->vreg], 16);
  for (unsigned i = 0; i < 8; i++) r[i] = d[idx[i] & 7];
  memcpy(&c->xmm[in->reg], r, 16);
  memcpy(&c->ymmh[in->reg], r + 4, 16);
}
void op_vpermd(Cpu *c, const Insn *in) {
  Xmm s[2] = {c->xmm[in->rm], c->ymmh[in->rm]};
  permd(c, in, s);
  DISPATCH_NEXT(c, in);
}
void op_vpermd_m(Cpu *c, const Insn *in) {
  Xmm s[2];
  load_m256(c, in, s);
  permd(c, in, s);
  DISPATCH_NEXT(c, in);
}
