/* mmx.c: the MMX instructions that are not an SSE body on 64 bits: EMMS, the moves
 * between MMX, general and XMM registers and memory, the word inserts and extracts, the
 * byte mask and the masked store. */
#include "mmx.h"

#include "ops_mmx.h"

/* 0F 77: TOP 0, as every MMX instruction leaves it, and every register tagged empty
 * (their contents stay). */
void op_mmx_emms(Cpu *c, const Insn *in) {
  mmx_check(c);
  c->fpu.top = 0;
  c->fpu.tag = 0xFFFF;
  DISPATCH_NEXT(c, in);
}

/* 0F 6E: MOVD mm, r/m32 (zero-extended); with REX.W MOVQ mm, r/m64. */
void op_mmx_movd_to(Cpu *c, const Insn *in) {
  mmx_begin(c);
  uint64_t v = c->r[in->rm];
  mmx_set(c, in->reg, in->osz == 8 ? v : (uint32_t)v);
  DISPATCH_NEXT(c, in);
}
void op_mmx_movd_to_m(Cpu *c, const Insn *in) {
  mmx_check(c);
  uint64_t v = in->osz == 8 ? ld64(ea(c, in)) : ld32(ea(c, in));
  mmx_begin(c);
  mmx_set(c, in->reg, v);
  DISPATCH_NEXT(c, in);
}

/* 0F 7E: MOVD r/m32, mm; with REX.W MOVQ r/m64, mm. A 32-bit register destination is
 * zero-extended, as every 32-bit write. */
void op_mmx_movd_from(Cpu *c, const Insn *in) {
  mmx_begin(c);
  uint64_t v = mmx_get(c, in->reg);
  c->r[in->rm] = in->osz == 8 ? v : (uint32_t)v;
  DISPATCH_NEXT(c, in);
}
void op_mmx_movd_from_m(Cpu *c, const Insn *in) {
  mmx_store_begin(c);
  uint64_t v = mmx_get(c, in->reg), a = ea(c, in);
  if (in->osz == 8) st64(a, v);
  else st32(a, (uint32_t)v);
  mmx_begin(c);
  DISPATCH_NEXT(c, in);
}

/* 0F 6F: MOVQ mm, mm/m64. */
void op_mmx_movq_load(Cpu *c, const Insn *in) {
  mmx_begin(c);
  mmx_set(c, in->reg, mmx_get(c, in->rm));
  DISPATCH_NEXT(c, in);
}
void op_mmx_movq_load_m(Cpu *c, const Insn *in) {
  mmx_check(c);
  uint64_t v = ld64(ea(c, in));
  mmx_begin(c);
  mmx_set(c, in->reg, v);
  DISPATCH_NEXT(c, in);
}

/* 0F 7F: MOVQ mm/m64, mm; 0F E7: MOVNTQ m64, mm (the hint changes nothing here). */
void op_mmx_movq_store(Cpu *c, const Insn *in) {
  mmx_begin(c);
  mmx_set(c, in->rm, mmx_get(c, in->reg));
  DISPATCH_NEXT(c, in);
}
void op_mmx_movq_store_m(Cpu *c, const Insn *in) {
  mmx_store_begin(c);
  st64(ea(c, in), mmx_get(c, in->reg));
  mmx_begin(c);
  DISPATCH_NEXT(c, in);
}

/* F3 0F D6: MOVQ2DQ xmm, mm (upper half zero); F2 0F D6: MOVDQ2Q mm, xmm. */
void op_mmx_movq2dq(Cpu *c, const Insn *in) {
  mmx_begin(c);
  c->xmm[in->reg] = (Xmm){.q = {mmx_get(c, in->rm), 0}};
  DISPATCH_NEXT(c, in);
}
void op_mmx_movdq2q(Cpu *c, const Insn *in) {
  mmx_begin(c);
  mmx_set(c, in->reg, c->xmm[in->rm].q[0]);
  DISPATCH_NEXT(c, in);
}

static uint64_t with_word(uint64_t v, unsigned i, uint16_t w) {
  unsigned shift = 16 * (i & 3);
  return (v & ~(0xFFFFull << shift)) | (uint64_t)w << shift;
}

/* 0F C4 ib: PINSRW mm, r32/m16, imm8 (word imm8 & 3). */
void op_mmx_pinsrw(Cpu *c, const Insn *in) {
  mmx_begin(c);
  mmx_set(c, in->reg, with_word(mmx_get(c, in->reg), (unsigned)in->imm, (uint16_t)c->r[in->rm]));
  DISPATCH_NEXT(c, in);
}
void op_mmx_pinsrw_m(Cpu *c, const Insn *in) {
  mmx_check(c);
  uint16_t w = ld16(ea(c, in));
  mmx_begin(c);
  mmx_set(c, in->reg, with_word(mmx_get(c, in->reg), (unsigned)in->imm, w));
  DISPATCH_NEXT(c, in);
}

/* 0F C5 ib: PEXTRW r32, mm, imm8. */
void op_mmx_pextrw(Cpu *c, const Insn *in) {
  mmx_begin(c);
  c->r[in->reg] = (uint16_t)(mmx_get(c, in->rm) >> (16 * (in->imm & 3)));
  DISPATCH_NEXT(c, in);
}

/* 0F D7: PMOVMSKB r32, mm: the sign bit of each byte. */
void op_mmx_pmovmskb(Cpu *c, const Insn *in) {
  mmx_begin(c);
  uint64_t v = mmx_get(c, in->rm);
  unsigned mask = 0;
  for (unsigned i = 0; i < 8; i++) mask |= (unsigned)(v >> (8 * i + 7) & 1) << i;
  c->r[in->reg] = mask;
  DISPATCH_NEXT(c, in);
}

/* 0F F7: MASKMOVQ mm1, mm2: the bytes of mm1 whose byte in mm2 has its sign bit set go
 * to [rdi] (edi with 67), in DS or an override. */
void op_mmx_maskmovq(Cpu *c, const Insn *in) {
  mmx_begin(c); /* the transition comes first here, even before a #GP */
  uint64_t v = mmx_get(c, in->reg), mask = mmx_get(c, in->rm), a = ea(c, in);
  probe_masked(a, 8);
  access_in_order();
  for (unsigned i = 0; i < 8; i++)
    if (mask >> (8 * i + 7) & 1) st8(a + i, (uint8_t)(v >> (8 * i)));
  DISPATCH_NEXT(c, in);
}
