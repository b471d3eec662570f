/* sse41_move.c: SSE4.1 data movement: sign- and zero-extending loads (PMOVSX/PMOVZX)
 * and element inserts and extracts between XMM registers, general registers and
 * memory. Memory operands are read and written at the element's exact width. */
#include "ops_sse4.h"
#include "sse_operand.h"

static inline void load_m16(Cpu *c, const Insn *in, Xmm *t) {
  t->q[0] = ld16(ea(c, in));
  t->q[1] = 0;
}

/* ---- widening: the low elements of the source, each extended to the wider lane ---- */

#define WIDEN(name, to, from, n, load)                                                \
  SSE_RM(name, load) {                                                                \
    Xmm r;                                                                            \
    for (int i = 0; i < (n); i++) r.to[i] = s->from[i];                               \
    *d = r;                                                                           \
  }

/* 66 0F 38 20..25 */
WIDEN(pmovsxbw, sw, sb, 8, load_m64)
WIDEN(pmovsxbd, sd, sb, 4, load_m32)
WIDEN(pmovsxbq, sq, sb, 2, load_m16)
WIDEN(pmovsxwd, sd, sw, 4, load_m64)
WIDEN(pmovsxwq, sq, sw, 2, load_m32)
WIDEN(pmovsxdq, sq, sd, 2, load_m64)
/* 66 0F 38 30..35 */
WIDEN(pmovzxbw, w, b, 8, load_m64)
WIDEN(pmovzxbd, d, b, 4, load_m32)
WIDEN(pmovzxbq, q, b, 2, load_m16)
WIDEN(pmovzxwd, d, w, 4, load_m64)
WIDEN(pmovzxwq, q, w, 2, load_m32)
WIDEN(pmovzxdq, q, d, 2, load_m64)

/* ---- inserts: element imm8 of the destination from a general register or memory ---- */

/* 66 0F 3A 20: PINSRB xmm, r32/m8, imm8 */
void op_pinsrb(Cpu *c, const Insn *in) {
  c->xmm[in->reg].b[in->imm & 15] = (uint8_t)c->r[in->rm];
  DISPATCH_NEXT(c, in);
}
void op_pinsrb_m(Cpu *c, const Insn *in) {
  c->xmm[in->reg].b[in->imm & 15] = ld8(ea(c, in));
  DISPATCH_NEXT(c, in);
}

/* 66 [REX.W] 0F 3A 22: PINSRD xmm, r/m32, imm8 and PINSRQ xmm, r/m64, imm8 */
static void insert_dq(Cpu *c, const Insn *in, uint64_t v) {
  if (in->osz == 8) c->xmm[in->reg].q[in->imm & 1] = v;
  else c->xmm[in->reg].d[in->imm & 3] = (uint32_t)v;
}
void op_pinsrd(Cpu *c, const Insn *in) {
  insert_dq(c, in, c->r[in->rm]);
  DISPATCH_NEXT(c, in);
}
void op_pinsrd_m(Cpu *c, const Insn *in) {
  insert_dq(c, in, ld(ea(c, in), in->osz));
  DISPATCH_NEXT(c, in);
}

/* 66 0F 3A 21: INSERTPS: a dword (imm8 bits 7:6 pick it from a register source) into
 * dword imm8 bits 5:4, then the dwords in the zero mask imm8 bits 3:0 cleared. */
static void insert_ps(Cpu *c, const Insn *in, uint32_t v) {
  Xmm *d = &c->xmm[in->reg];
  d->d[in->imm >> 4 & 3] = v;
  for (int i = 0; i < 4; i++)
    if (in->imm >> i & 1) d->d[i] = 0;
}
void op_insertps(Cpu *c, const Insn *in) {
  insert_ps(c, in, c->xmm[in->rm].d[in->imm >> 6 & 3]);
  DISPATCH_NEXT(c, in);
}
void op_insertps_m(Cpu *c, const Insn *in) {
  insert_ps(c, in, ld32(ea(c, in)));
  DISPATCH_NEXT(c, in);
}

/* ---- extracts: element imm8 of the source (ModRM.reg) to r/m; a register destination
 * is zero-extended to 64 bits ---- */

/* 66 0F 3A 14: PEXTRB r32/m8, xmm, imm8 */
void op_pextrb(Cpu *c, const Insn *in) {
  c->r[in->rm] = c->xmm[in->reg].b[in->imm & 15];
  DISPATCH_NEXT(c, in);
}
void op_pextrb_m(Cpu *c, const Insn *in) {
  st8(ea(c, in), c->xmm[in->reg].b[in->imm & 15]);
  DISPATCH_NEXT(c, in);
}

/* 66 0F 3A 15: PEXTRW r32/m16, xmm, imm8 (66 0F C5 is the register-only SSE2 form) */
void op_pextrw_rm(Cpu *c, const Insn *in) {
  c->r[in->rm] = c->xmm[in->reg].w[in->imm & 7];
  DISPATCH_NEXT(c, in);
}
void op_pextrw_rm_m(Cpu *c, const Insn *in) {
  st16(ea(c, in), c->xmm[in->reg].w[in->imm & 7]);
  DISPATCH_NEXT(c, in);
}

/* 66 [REX.W] 0F 3A 16: PEXTRD r/m32 and PEXTRQ r/m64 */
static uint64_t extract_dq(const Cpu *c, const Insn *in) {
  const Xmm *s = &c->xmm[in->reg];
  return in->osz == 8 ? s->q[in->imm & 1] : s->d[in->imm & 3];
}
void op_pextrd(Cpu *c, const Insn *in) {
  c->r[in->rm] = extract_dq(c, in);
  DISPATCH_NEXT(c, in);
}
void op_pextrd_m(Cpu *c, const Insn *in) {
  st(ea(c, in), extract_dq(c, in), in->osz);
  DISPATCH_NEXT(c, in);
}

/* 66 0F 3A 17: EXTRACTPS r/m32, xmm, imm8 */
void op_extractps(Cpu *c, const Insn *in) {
  c->r[in->rm] = c->xmm[in->reg].d[in->imm & 3];
  DISPATCH_NEXT(c, in);
}
void op_extractps_m(Cpu *c, const Insn *in) {
  st32(ea(c, in), c->xmm[in->reg].d[in->imm & 3]);
  DISPATCH_NEXT(c, in);
}

/* ---- AVX forms: VEX.128 widening moves (VEX.256 ones are in avx.c); the inserts take
 * the other elements from VEX.vvvv and clear the upper half ---- */

AVX_128(pmovsxbw, load_m64) AVX_128(pmovsxbd, load_m32) AVX_128(pmovsxbq, load_m16)
AVX_128(pmovsxwd, load_m64) AVX_128(pmovsxwq, load_m32) AVX_128(pmovsxdq, load_m64)
AVX_128(pmovzxbw, load_m64) AVX_128(pmovzxbd, load_m32) AVX_128(pmovzxbq, load_m16)
AVX_128(pmovzxwd, load_m64) AVX_128(pmovzxwq, load_m32) AVX_128(pmovzxdq, load_m64)

/* VPINSRB, VPINSRD/Q, VINSERTPS: element into a copy of VEX.vvvv */
#define VEX_INSERT(name, put, source, source_m)                                         \
  void op_v##name(Cpu *c, const Insn *in) {                                             \
    Xmm v = c->xmm[in->vreg];                                                           \
    put(&v, in, source);                                                                \
    vex128_put(c, in->reg, &v);                                                         \
    DISPATCH_NEXT(c, in);                                                               \
  }                                                                                     \
  void op_v##name##_m(Cpu *c, const Insn *in) {                                         \
    Xmm v = c->xmm[in->vreg];                                                           \
    put(&v, in, source_m);                                                              \
    vex128_put(c, in->reg, &v);                                                         \
    DISPATCH_NEXT(c, in);                                                               \
  }
static inline void put_b(Xmm *v, const Insn *in, uint64_t x) { v->b[in->imm & 15] = (uint8_t)x; }
static inline void put_w(Xmm *v, const Insn *in, uint64_t x) { v->w[in->imm & 7] = (uint16_t)x; }
static inline void put_dq(Xmm *v, const Insn *in, uint64_t x) {
  if (in->osz == 8) v->q[in->imm & 1] = x;
  else v->d[in->imm & 3] = (uint32_t)x;
}
static inline void put_ps(Xmm *v, const Insn *in, uint64_t x) {
  v->d[in->imm >> 4 & 3] = (uint32_t)x;
  for (int i = 0; i < 4; i++)
    if (in->imm >> i & 1) v->d[i] = 0;
}
VEX_INSERT(pinsrb, put_b, c->r[in->rm], ld8(ea(c, in)))
VEX_INSERT(pinsrw, put_w, c->r[in->rm], ld16(ea(c, in)))
VEX_INSERT(pinsrd, put_dq, c->r[in->rm], ld(ea(c, in), in->osz))
VEX_INSERT(insertps, put_ps, c->xmm[in->rm].d[in->imm >> 6 & 3], ld32(ea(c, in)))
