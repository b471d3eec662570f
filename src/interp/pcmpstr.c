/* pcmpstr.c: SSE4.2's string compares PCMPESTRI, PCMPESTRM, PCMPISTRI and PCMPISTRM,
 * written from the SDM's description of the imm8 control byte (Vol. 2B, 4.1):
 *   bits 1:0  elements: unsigned bytes, unsigned words, signed bytes, signed words
 *   bits 3:2  aggregation: equal any, ranges, equal each, equal ordered
 *   bits 5:4  polarity: positive, negative, masked positive, masked negative
 *   bit 6     index: least (0) or most (1) significant bit; mask: bits (0) or elements (1)
 * The first operand (ModRM.reg) holds the set, ranges or substring; the second (ModRM.rm
 * or memory, unaligned) the string searched. Elements at or past an operand's length
 * are invalid; the lengths are EAX/EDX (RAX/RDX with REX.W), by absolute value up to the
 * element count, or end at the first zero element for the implicit forms. */
#include "flags.h"
#include "ops_sse4.h"
#include "sse_operand.h"

enum { EQUAL_ANY, RANGES, EQUAL_EACH, EQUAL_ORDERED };

static inline unsigned elements(unsigned imm) { return imm & 1 ? 8 : 16; }

static inline int element(const Xmm *x, unsigned i, unsigned imm) {
  switch (imm & 3) {
  case 0: return x->b[i];
  case 1: return x->w[i];
  case 2: return x->sb[i];
  default: return x->sw[i];
  }
}

static unsigned implicit_length(const Xmm *x, unsigned imm) {
  unsigned n = elements(imm);
  if (n == 8) {
    for (unsigned i = 0; i < 8; i++)
      if (!x->w[i]) return i;
  } else {
    for (unsigned i = 0; i < 16; i++)
      if (!x->b[i]) return i;
  }
  return n;
}

/* |v| of a 4- or 8-byte signed register value, saturated to the element count. */
static unsigned explicit_length(uint64_t v, unsigned size, unsigned imm) {
  int64_t sv = size == 8 ? (int64_t)v : (int32_t)v;
  uint64_t mag = sv < 0 ? 0 - (uint64_t)sv : (uint64_t)sv;
  unsigned n = elements(imm);
  return mag > n ? n : (unsigned)mag;
}

/* IntRes2 of the SDM: bit j for element j of b (of the set bit i of a, for equal each),
 * after aggregation and polarity. Sets the flags: CF if it is not zero, ZF if b is
 * shorter than a register, SF if a is, OF its bit 0; AF and PF clear. */
static unsigned compare_strings(Cpu *c, const Xmm *a, unsigned la, const Xmm *b, unsigned lb,
                                unsigned imm) {
  unsigned n = elements(imm);
  int ea[16], eb[16];
  for (unsigned i = 0; i < n; i++) {
    ea[i] = element(a, i, imm);
    eb[i] = element(b, i, imm);
  }
  unsigned res = 0;
  switch (imm >> 2 & 3) {
  case EQUAL_ANY: /* b[j] is one of a's elements */
    for (unsigned j = 0; j < lb; j++)
      for (unsigned i = 0; i < la; i++)
        if (ea[i] == eb[j]) {
          res |= 1u << j;
          break;
        }
    break;
  case RANGES: /* b[j] lies in one of the ranges a[i]..a[i+1], i even */
    for (unsigned j = 0; j < lb; j++)
      for (unsigned i = 0; i + 1 < la; i += 2)
        if (ea[i] <= eb[j] && eb[j] <= ea[i + 1]) {
          res |= 1u << j;
          break;
        }
    break;
  case EQUAL_EACH: /* a[i] == b[i]; two invalid elements are equal, one is not */
    for (unsigned i = 0; i < n; i++) {
      bool va = i < la, vb = i < lb;
      if (va && vb ? ea[i] == eb[i] : !va && !vb) res |= 1u << i;
    }
    break;
  default: /* EQUAL_ORDERED: a occurs in b at j; it may run past b's last element */
    for (unsigned j = 0; j < n; j++) {
      bool match = true;
      for (unsigned i = 0; i < la && i + j < n && match; i++)
        match = i + j < lb && ea[i] == eb[i + j];
      if (match) res |= 1u << j;
    }
    break;
  }
  switch (imm >> 4 & 3) {
  case 1: res ^= (1u << n) - 1; break;
  case 3: res ^= (1u << lb) - 1; break;
  default: break;
  }
  uint64_t fl = (res ? F_CF : 0) | (lb < n ? F_ZF : 0) | (la < n ? F_SF : 0) | (res & 1 ? F_OF : 0);
  flags_set(c, (c->rflags & ~(uint64_t)F_ARITH) | fl);
  return res;
}

/* The I forms: ECX gets the index of the least or most significant bit of res, or the
 * element count when res is zero. */
static void output_index(Cpu *c, unsigned res, unsigned imm) {
  unsigned index = elements(imm);
  if (res) index = imm & 0x40 ? 31 - (unsigned)__builtin_clz(res) : (unsigned)__builtin_ctz(res);
  c->r[RCX] = index;
}

/* The M forms: XMM0 gets res as bits, or as elements of all ones or zero. */
static void output_mask(Cpu *c, unsigned res, unsigned imm) {
  Xmm m = {.q = {0, 0}};
  if (!(imm & 0x40)) m.q[0] = res;
  else if (imm & 1)
    for (unsigned i = 0; i < 8; i++) m.w[i] = res >> i & 1 ? 0xFFFF : 0;
  else
    for (unsigned i = 0; i < 16; i++) m.b[i] = res >> i & 1 ? 0xFF : 0;
  c->xmm[0] = m;
}

/* The VEX.128 M forms (VPCMPESTRM, VPCMPISTRM): and YMM0's upper half cleared. */
static void output_mask_vex(Cpu *c, unsigned res, unsigned imm) {
  output_mask(c, res, imm);
  c->ymmh[0] = (Xmm){.q = {0, 0}};
}

static unsigned explicit_compare(Cpu *c, const Insn *in, const Xmm *b) {
  unsigned imm = (unsigned)in->imm;
  unsigned la = explicit_length(c->r[RAX], in->osz, imm);
  unsigned lb = explicit_length(c->r[RDX], in->osz, imm);
  Xmm a = c->xmm[in->reg];
  return compare_strings(c, &a, la, b, lb, imm);
}

static unsigned implicit_compare(Cpu *c, const Insn *in, const Xmm *b) {
  unsigned imm = (unsigned)in->imm;
  Xmm a = c->xmm[in->reg];
  return compare_strings(c, &a, implicit_length(&a, imm), b, implicit_length(b, imm), imm);
}

/* The second operand is a register or 16 bytes of memory with no alignment rule. */
#define PCMPSTR(name, compare, output)                                                \
  void op_##name(Cpu *c, const Insn *in) {                                            \
    Xmm b = c->xmm[in->rm];                                                           \
    output(c, compare(c, in, &b), (unsigned)in->imm);                                 \
  }                                                                                   \
  void op_##name##_m(Cpu *c, const Insn *in) {                                        \
    Xmm b;                                                                            \
    load_m128u(c, in, &b);                                                            \
    output(c, compare(c, in, &b), (unsigned)in->imm);                                 \
  }

/* 66 [REX.W] 0F 3A 61, 60 */
PCMPSTR(pcmpestri, explicit_compare, output_index)
PCMPSTR(pcmpestrm, explicit_compare, output_mask)
/* 66 0F 3A 63, 62 */
PCMPSTR(pcmpistri, implicit_compare, output_index)
PCMPSTR(pcmpistrm, implicit_compare, output_mask)
/* VEX.128 66 0F 3A 60, 62 (the I forms are the SSE handlers) */
PCMPSTR(vpcmpestrm, explicit_compare, output_mask_vex)
PCMPSTR(vpcmpistrm, implicit_compare, output_mask_vex)
