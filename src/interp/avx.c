/* avx.c: the AVX and AVX2 instructions that are no VEX form of an SSE body, or whose
 * VEX.256 form crosses lanes: VMOVD/VMOVQ, VPMOVMSKB, broadcasts, 128-bit inserts,
 * extracts and permutes, the qword and dword permutes (VPERMQ, VPERMD), blends, AVX2's
 * variable shifts, VPMOVSX/ZX into YMM, VMOVMSKPS/PD, VPTEST/VTESTPS/PD, VPERMILPS/PD, VSHUFPD,
 * the half moves, the masked moves and the gathers. */
#define _GNU_SOURCE /* TRAP_TRACE */
#include <signal.h>
#include <string.h>

#include "fault.h"
#include "flags.h"
#include "ops_avx.h"
#include "run.h"
#include "sse_operand.h"

/* ---- operands ---- */

/* A YMM register as its two halves; the helpers below read its elements as bytes. */
typedef struct Ymm {
  Xmm half[2];
} Ymm;
static inline Ymm ymm_of(const Cpu *c, unsigned r) { return (Ymm){{c->xmm[r], c->ymmh[r]}}; }
static inline void ymm_put(Cpu *c, unsigned r, const Ymm *v, bool wide) {
  c->xmm[r] = v->half[0];
  c->ymmh[r] = wide ? v->half[1] : (Xmm){.q = {0, 0}};
}
/* The source operand ModRM.rm of a VEX form, 16 or 32 bytes (no alignment needed). */
static inline Ymm source_of(Cpu *c, const Insn *in, bool wide) {
  Ymm s = {{{.q = {0, 0}}, {.q = {0, 0}}}};
  if (!in->mem) return ymm_of(c, in->rm);
  if (wide) load_m256(c, in, s.half);
  else load_m128u(c, in, &s.half[0]);
  return s;
}

/* The VEX.128 handler op_<name> and the VEX.256 one op_<name>_256 of fn(c, in, wide). */
#define BOTH_LENGTHS(name, fn)                                                          \
  void op_##name(Cpu *c, const Insn *in) {                                              \
    fn(c, in, false);                                                                   \
    DISPATCH_NEXT(c, in);                                                               \
  }                                                                                     \
  void op_##name##_256(Cpu *c, const Insn *in) {                                        \
    fn(c, in, true);                                                                    \
    DISPATCH_NEXT(c, in);                                                               \
  }

/* ---- VEX.128 VMOVD/VMOVQ: as the SSE forms, and the upper half cleared ---- */

/* VEX.66.0F 6E: VMOVD xmm, r/m32 (VEX.W1: VMOVQ xmm, r/m64) */
void op_vmovd_to_xmm(Cpu *c, const Insn *in) {
  vex128_put_low64(c, in->reg, reg_get(c, in->rm, in->osz));
  DISPATCH_NEXT(c, in);
}
void op_vmovd_to_xmm_m(Cpu *c, const Insn *in) {
  vex128_put_low64(c, in->reg, ld(ea(c, in), in->osz));
  DISPATCH_NEXT(c, in);
}
/* VEX.F3.0F 7E: VMOVQ xmm, xmm/m64 */
void op_vmovq_load(Cpu *c, const Insn *in) {
  vex128_put_low64(c, in->reg, c->xmm[in->rm].q[0]);
  DISPATCH_NEXT(c, in);
}
void op_vmovq_load_m(Cpu *c, const Insn *in) {
  vex128_put_low64(c, in->reg, ld64(ea(c, in)));
  DISPATCH_NEXT(c, in);
}
/* VEX.66.0F D6: VMOVQ xmm/m64, xmm (register destination) */
LEAN void op_vmovq_to_rm(Cpu *c, const Insn *in) {
  vex128_put_low64(c, in->rm, c->xmm[in->reg].q[0]);
  DISPATCH_LEAN(c, in);
}

/* ---- masks and tests across both lanes ---- */

/* VEX.256.66.0F D7: VPMOVMSKB r32, ymm (the VEX.128 form is PMOVMSKB's handler) */
LEAN void op_vpmovmskb_256(Cpu *c, const Insn *in) {
  c->r[in->reg] = xmm_byte_signs(&c->xmm[in->rm]) | (uint64_t)xmm_byte_signs(&c->ymmh[in->rm]) << 16;
  DISPATCH_LEAN(c, in);
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
void op_vperm2x128(Cpu *c, const Insn *in) {
  Ymm s2 = source_of(c, in, true);
  Xmm from[4] = {c->xmm[in->vreg], c->ymmh[in->vreg], s2.half[0], s2.half[1]}, out[2];
  for (unsigned i = 0; i < 2; i++) {
    unsigned sel = (unsigned)in->imm >> (4 * i);
    out[i] = sel & 8 ? (Xmm){.q = {0, 0}} : from[sel & 3];
  }
  c->xmm[in->reg] = out[0];
  c->ymmh[in->reg] = out[1];
  DISPATCH_NEXT(c, in);
}

/* ---- element permutes across lanes (AVX2, VEX.256 only) ---- */

/* VPERMQ, VPERMPD (VEX.256.66.0F3A.W1 00, 01): qword i = source qword imm8[2i+1:2i] */
void op_vpermq(Cpu *c, const Insn *in) {
  Ymm s = source_of(c, in, true);
  uint64_t q[4], r[4];
  memcpy(q, &s, 32);
  for (unsigned i = 0; i < 4; i++) r[i] = q[(in->imm >> (2 * i)) & 3];
  memcpy(&c->xmm[in->reg], r, 16);
  memcpy(&c->ymmh[in->reg], r + 2, 16);
  DISPATCH_NEXT(c, in);
}
/* VPERMD, VPERMPS (VEX.256.66.0F38.W0 36, 16): dword i = source dword (vvvv dword i & 7) */
void op_vpermd(Cpu *c, const Insn *in) {
  Ymm s = source_of(c, in, true);
  uint32_t d[8], idx[8], r[8];
  memcpy(d, &s, 32);
  memcpy(idx, &c->xmm[in->vreg], 16);
  memcpy(idx + 4, &c->ymmh[in->vreg], 16);
  for (unsigned i = 0; i < 8; i++) r[i] = d[idx[i] & 7];
  memcpy(&c->xmm[in->reg], r, 16);
  memcpy(&c->ymmh[in->reg], r + 4, 16);
  DISPATCH_NEXT(c, in);
}

/* ---- blends (the VEX.256 forms take imm8 bits or mask elements for all 8 or 4) ---- */

/* VPBLENDD (VEX.66.0F3A.W0 02), VBLENDPS (0C), VBLENDPD (0D): element i from the source
 * where imm8 bit i is set, else from vvvv. in->op: the element size. */
static void blend_imm(Cpu *c, const Insn *in, bool wide) {
  Ymm a = ymm_of(c, in->vreg), s = source_of(c, in, wide);
  unsigned size = in->op, n = (wide ? 32 : 16) / size;
  uint8_t *pa = (uint8_t *)&a, *ps = (uint8_t *)&s;
  for (unsigned i = 0; i < n; i++)
    if (in->imm >> i & 1) memcpy(pa + i * size, ps + i * size, size);
  ymm_put(c, in->reg, &a, wide);
}
BOTH_LENGTHS(vblend_imm, blend_imm)

/* VPBLENDVB (VEX.66.0F3A.W0 4C), VBLENDVPS (4A), VBLENDVPD (4B): element from the source
 * where the top bit of the mask register's element (register imm8[7:4]) is set. */
static void blend_var(Cpu *c, const Insn *in, bool wide) {
  Ymm a = ymm_of(c, in->vreg), s = source_of(c, in, wide), m = ymm_of(c, (unsigned)in->imm >> 4 & 15);
  unsigned size = in->op, n = (wide ? 32 : 16) / size;
  uint8_t *pa = (uint8_t *)&a, *ps = (uint8_t *)&s, *pm = (uint8_t *)&m;
  for (unsigned i = 0; i < n; i++)
    if (pm[i * size + size - 1] & 0x80) memcpy(pa + i * size, ps + i * size, size);
  ymm_put(c, in->reg, &a, wide);
}
BOTH_LENGTHS(vblendv, blend_var)

/* ---- AVX2 variable shifts: each element by the count in the source's element ---- */

/* VPSLLVD/Q (VEX.66.0F38 47, W0/W1), VPSRLVD/Q (45), VPSRAVD (46 W0): in->op 0 left,
 * 1 logical right, 2 arithmetic right; in->osz the element size (4 or 8). */
static void shift_var(Cpu *c, const Insn *in, bool wide) {
  Ymm a = ymm_of(c, in->vreg), s = source_of(c, in, wide);
  unsigned bits = in->osz * 8, n = (wide ? 32 : 16) / in->osz;
  for (unsigned i = 0; i < n; i++) {
    uint64_t v = 0, k = 0;
    memcpy(&v, (uint8_t *)&a + i * in->osz, in->osz);
    memcpy(&k, (uint8_t *)&s + i * in->osz, in->osz);
    if (in->op == 2) { /* arithmetic: counts past the width fill with the sign */
      int64_t x = bits == 32 ? (int64_t)(int32_t)v : (int64_t)v;
      v = (uint64_t)(x >> (k < bits ? k : bits - 1));
    } else if (k >= bits) {
      v = 0;
    } else {
      v = in->op == 0 ? v << k : v >> k;
    }
    memcpy((uint8_t *)&a + i * in->osz, &v, in->osz);
  }
  ymm_put(c, in->reg, &a, wide);
}
BOTH_LENGTHS(vshift_var, shift_var)

/* ---- VEX.256 VPMOVSX/VPMOVZX: the low elements of xmm/m (16, 8 or 4 bytes) widened to
 * fill a YMM register; in->op: source element size | 0x10 for sign extension, in->aux:
 * destination element size ---- */

static void widen256(Cpu *c, const Insn *in, const uint8_t *src) {
  unsigned from = in->op & 15, to = in->aux, n = 32 / to;
  Ymm r;
  for (unsigned i = 0; i < n; i++) {
    uint64_t v = 0;
    memcpy(&v, src + i * from, from);
    if ((in->op & 0x10) && (v >> (8 * from - 1) & 1)) v |= ~0ull << (8 * from);
    memcpy((uint8_t *)&r + i * to, &v, to);
  }
  ymm_put(c, in->reg, &r, true);
}
void op_vpmovx_256(Cpu *c, const Insn *in) {
  Xmm s = c->xmm[in->rm];
  widen256(c, in, s.b);
  DISPATCH_NEXT(c, in);
}
void op_vpmovx_256_m(Cpu *c, const Insn *in) {
  uint8_t s[16];
  ld_bytes(ea(c, in), s, 32 / in->aux * (in->op & 15));
  widen256(c, in, s);
  DISPATCH_NEXT(c, in);
}

/* ---- sign masks and tests of floating-point elements ---- */

/* VMOVMSKPS, VMOVMSKPD (VEX.256.0F 50): the sign bits of the 8 or 4 elements
 * (in->op: the element size) into a general register. */
void op_vmovmsk_256(Cpu *c, const Insn *in) {
  Ymm s = ymm_of(c, in->rm);
  unsigned size = in->op, n = 32 / size;
  uint64_t mask = 0;
  for (unsigned i = 0; i < n; i++) mask |= (uint64_t)(((uint8_t *)&s)[i * size + size - 1] >> 7) << i;
  c->r[in->reg] = mask;
  DISPATCH_NEXT(c, in);
}

/* VPTEST (VEX.66.0F38 17, in->op 0): ZF if ModRM.reg AND the source is zero, CF if
 * (NOT ModRM.reg) AND the source is, the other arithmetic flags cleared. VTESTPS,
 * VTESTPD (0E, 0F): the same on the sign bits of the elements (in->op: their size). */
static void test_signs(Cpu *c, const Insn *in, bool wide) {
  Ymm d = ymm_of(c, in->reg), s = source_of(c, in, wide);
  uint64_t sign = in->op == 4 ? 0x8000000080000000ull : in->op == 8 ? 0x8000000000000000ull : ~0ull;
  uint64_t and = 0, andn = 0;
  for (unsigned h = 0; h < (wide ? 2u : 1u); h++)
    for (unsigned q = 0; q < 2; q++) {
      and |= d.half[h].q[q] & s.half[h].q[q] & sign;
      andn |= ~d.half[h].q[q] & s.half[h].q[q] & sign;
    }
  flags_set(c, (flags_get(c) & ~(uint64_t)F_ARITH) | (and ? 0 : F_ZF) | (andn ? 0 : F_CF));
}
BOTH_LENGTHS(vtest, test_signs)

/* ---- shuffles within each 128-bit lane ---- */

/* VPERMILPS (VEX.66.0F38.W0 0C: selectors in the source's dwords; 0F3A 04: imm8, the
 * same for each lane), VPERMILPD (0D: bit 1 of the source's qwords; 0F3A 05: imm8 bit i
 * for qword i). in->op: the element size; in->aux 1 for the imm8 forms, whose source is
 * ModRM.rm and which have no vvvv. */
static void permil(Cpu *c, const Insn *in, bool wide) {
  Ymm data, sel;
  if (in->aux) {
    data = source_of(c, in, wide);
  } else {
    data = ymm_of(c, in->vreg);
    sel = source_of(c, in, wide);
  }
  Ymm r;
  for (unsigned h = 0; h < 2; h++)
    for (unsigned i = 0; i < 16 / in->op; i++) {
      unsigned k = in->op == 4 ? (in->aux ? (unsigned)in->imm >> (2 * i) : sel.half[h].d[i]) & 3
                               : (in->aux ? (unsigned)in->imm >> (2 * h + i) : (unsigned)sel.half[h].q[i] >> 1) & 1;
      if (in->op == 4) r.half[h].d[i] = data.half[h].d[k];
      else r.half[h].q[i] = data.half[h].q[k];
    }
  ymm_put(c, in->reg, &r, wide);
}
BOTH_LENGTHS(vpermil, permil)

/* VSHUFPD (VEX.66.0F C6): qword 0 of each lane from vvvv, qword 1 from the source,
 * by imm8 bits 0 and 1 (low lane), 2 and 3 (high lane). */
static void shufpd(Cpu *c, const Insn *in, bool wide) {
  Ymm a = ymm_of(c, in->vreg), s = source_of(c, in, wide), r;
  for (unsigned h = 0; h < 2; h++) {
    r.half[h].q[0] = a.half[h].q[in->imm >> (2 * h) & 1];
    r.half[h].q[1] = s.half[h].q[in->imm >> (2 * h + 1) & 1];
  }
  ymm_put(c, in->reg, &r, wide);
}
BOTH_LENGTHS(vshufpd, shufpd)

/* ---- VMOVLPS/VMOVHPS and friends (VEX.128): a quadword of memory or ModRM.rm with one
 * of VEX.vvvv; in->op: which half of the result the new quadword becomes ---- */

/* VMOVLPS/VMOVLPD (0F 12 memory: op 0), VMOVHPS/VMOVHPD (0F 16 memory: op 1) */
void op_vmovlhps_load_m(Cpu *c, const Insn *in) {
  Xmm v = c->xmm[in->vreg];
  v.q[in->op] = ld64(ea(c, in));
  vex128_put(c, in->reg, &v);
  DISPATCH_NEXT(c, in);
}
/* VMOVHLPS (0F 12 register: the high quadword of rm low, vvvv's high kept) */
void op_vmovhlps(Cpu *c, const Insn *in) {
  Xmm v = {.q = {c->xmm[in->rm].q[1], c->xmm[in->vreg].q[1]}};
  vex128_put(c, in->reg, &v);
  DISPATCH_NEXT(c, in);
}
/* VMOVLHPS (0F 16 register: vvvv's low quadword, then rm's) */
void op_vmovlhps(Cpu *c, const Insn *in) {
  Xmm v = {.q = {c->xmm[in->vreg].q[0], c->xmm[in->rm].q[0]}};
  vex128_put(c, in->reg, &v);
  DISPATCH_NEXT(c, in);
}

/* ---- masked moves: only the elements whose mask (vvvv) has its top bit set are read or
 * written, so the others cannot fault; a store faults before it writes anything ---- */

/* VMASKMOVPS/PD loads (VEX.66.0F38 2C, 2D), VPMASKMOVD/Q loads (8C W0/W1): in->op the
 * element size; masked-out elements become zero. */
static void maskmov_load(Cpu *c, const Insn *in, bool wide) {
  Ymm m = ymm_of(c, in->vreg), r = {{{.q = {0, 0}}, {.q = {0, 0}}}};
  uint64_t a = ea(c, in);
  unsigned size = in->op, n = (wide ? 32 : 16) / size;
  for (unsigned i = 0; i < n; i++)
    if (((uint8_t *)&m)[i * size + size - 1] & 0x80) {
      uint64_t v = size == 4 ? ld32(a + i * size) : ld64(a + i * size);
      memcpy((uint8_t *)&r + i * size, &v, size);
    }
  ymm_put(c, in->reg, &r, wide);
}
void op_vmaskmov_load_m(Cpu *c, const Insn *in) {
  maskmov_load(c, in, false);
  DISPATCH_NEXT(c, in);
}
void op_vmaskmov_load_256_m(Cpu *c, const Insn *in) {
  maskmov_load(c, in, true);
  DISPATCH_NEXT(c, in);
}
/* VMASKMOVPS/PD stores (2E, 2F), VPMASKMOVD/Q stores (8E W0/W1): ModRM.reg's elements.
 * The CPU checks the span from the first selected element to the last at its two ends,
 * its first byte, then its last, before it writes any (measured on an Intel Xeon: a
 * store that runs into an inaccessible page faults at the span's last byte). */
static void maskmov_store(Cpu *c, const Insn *in, bool wide) {
  Ymm m = ymm_of(c, in->vreg), v = ymm_of(c, in->reg);
  uint64_t a = ea(c, in);
  unsigned size = in->op, n = (wide ? 32 : 16) / size, first = n, last = 0;
  for (unsigned i = 0; i < n; i++)
    if (((uint8_t *)&m)[i * size + size - 1] & 0x80) {
      if (first == n) first = i;
      last = i;
    }
  if (first == n) return;
  probe_write8(a + first * size);
  access_in_order();
  probe_write8(a + last * size + size - 1);
  for (unsigned i = first; i <= last; i++) {
    if (!(((uint8_t *)&m)[i * size + size - 1] & 0x80)) continue;
    uint64_t x = 0;
    memcpy(&x, (uint8_t *)&v + i * size, size);
    if (size == 4) st32(a + i * size, (uint32_t)x);
    else st64(a + i * size, x);
  }
}
void op_vmaskmov_store_m(Cpu *c, const Insn *in) {
  maskmov_store(c, in, false);
  DISPATCH_NEXT(c, in);
}
void op_vmaskmov_store_256_m(Cpu *c, const Insn *in) {
  maskmov_store(c, in, true);
  DISPATCH_NEXT(c, in);
}

/* ---- AVX2 gathers (VEX.66.0F38 90..93): element i of the destination (ModRM.reg) from
 * base + disp + index element i << scale (the SIB index is a vector register) where the
 * top bit of mask element i (VEX.vvvv) is set. in->op: the index size (4 or 8); in->osz:
 * the element size (VEX.W). The elements go in order, each clearing its mask element
 * whether it loads or not, so that a fault leaves the ones before it done and the
 * instruction restarts from there (measured); once all are done the bits above them in
 * the destination and the whole mask are zero. What a fault leaves besides (measured on
 * an Intel Xeon): before the first element, the mask register becomes whole elements
 * over the vector's length, all ones where the top bit was set and zero elsewhere (a
 * VEX.128 form clears its upper half), and a VEX.128 form clears the destination's upper
 * half with the first element it loads. Under TF, an element that would fault after
 * one was gathered gives the single-step trap instead, at the gather, with the progress
 * made (the SDM's "traps pending from already gathered elements"; measured on an Intel
 * Xeon and an AMD EPYC), so that the fault comes when the gather is resumed. ---- */

static void element_put(Cpu *c, unsigned reg, unsigned at, uint64_t v, unsigned size) {
  uint8_t *p = at < 16 ? c->xmm[reg].b + at : c->ymmh[reg].b + (at - 16);
  memcpy(p, &v, size);
}

static void gather(Cpu *c, const Insn *in, bool wide) {
  unsigned isz = in->op, esz = in->osz, n = (wide ? 32 : 16) / (isz > esz ? isz : esz);
  Ymm index = ymm_of(c, in->index), mask = ymm_of(c, in->vreg);
  const uint8_t *m = (const uint8_t *)&mask, *x = (const uint8_t *)&index;
  Ymm pending = {{{.q = {0, 0}}, {.q = {0, 0}}}};
  for (unsigned at = 0; at < (wide ? 32u : 16u); at += esz)
    if (m[at + esz - 1] & 0x80) memset((uint8_t *)&pending + at, 0xFF, esz);
  ymm_put(c, in->vreg, &pending, wide);
  bool upper_cleared = wide, gathered = false;
  for (unsigned i = 0; i < n; i++) {
    if (m[i * esz + esz - 1] & 0x80) {
      int64_t ix;
      if (isz == 4) {
        int32_t v;
        memcpy(&v, x + 4 * i, 4);
        ix = v;
      } else {
        memcpy(&ix, x + 8 * i, 8);
      }
      uint64_t a = (uint64_t)in->disp + c->r[in->base] + ((uint64_t)ix << in->scale);
      if (in->addr32 || in->seg != SEG_NONE) a = ea_adjust(c, in, a);
      if (gathered && (c->rflags & F_TF)) {
        uint64_t probe;
        if (fault_copy_in(&probe, a, esz) != esz) {
          c->trapno = 1;
          c->trap_err = 0;
          guest_trap(c, SIGTRAP, TRAP_TRACE, in->rip);
        }
      }
      uint64_t v = esz == 4 ? ld32(a) : ld64(a);
      if (!upper_cleared) memset(&c->ymmh[in->reg], 0, sizeof(Xmm));
      upper_cleared = gathered = true;
      element_put(c, in->reg, i * esz, v, esz);
    }
    element_put(c, in->vreg, i * esz, 0, esz);
  }
  for (unsigned at = n * esz; at < 32; at += 8) element_put(c, in->reg, at, 0, 8);
  memset(&c->xmm[in->vreg], 0, sizeof(Xmm));
  memset(&c->ymmh[in->vreg], 0, sizeof(Xmm));
}
void op_vgather_m(Cpu *c, const Insn *in) {
  gather(c, in, false);
  DISPATCH_NEXT(c, in);
}
void op_vgather_256_m(Cpu *c, const Insn *in) {
  gather(c, in, true);
  DISPATCH_NEXT(c, in);
}
