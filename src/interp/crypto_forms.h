/* crypto_forms.h: what the crypto handlers (aes.c, sha.c) share: XMM registers used in
 * place as the host primitives' blocks, and the four handlers of every instruction.
 *
 * Register forms work in place on the guest's XMM registers: an Xmm has the size and
 * alignment of a Block128, and the primitives accept a result that overlaps an operand.
 * Memory forms load their 16-byte operand, which must be aligned (legacy SSE encoding:
 * #GP otherwise, as the host CPU does), into a temporary first. */
#ifndef X64EMU_CRYPTO_FORMS_H
#define X64EMU_CRYPTO_FORMS_H

#include "host/host_crypto.h"
#include "ops_crypto.h"
#include "sse_operand.h"

_Static_assert(sizeof(Xmm) == sizeof(Block128) && _Alignof(Xmm) == _Alignof(Block128),
               "an XMM register is used as a Block128 in place");

static inline Block128 *block(Xmm *x) { return (Block128 *)x; }

/* Primitive p of the tier `accel` says, a constant in each handler: the host's own or
 * the portable one (ops_crypto.h). */
#define TIER(accel, p) ((accel) ? HOST_ACCEL(p) : p##_portable)

/* The four handlers of an instruction whose work is name##_run(c, in, source, accel),
 * a static inline function of the including file. No crypto instruction raises an
 * exception, so the register forms are lean (insn.h). */
#define CRYPTO_HANDLERS(name)                                              \
  LEAN void op_##name(Cpu *c, const Insn *in) {                            \
    name##_run(c, in, block(&c->xmm[in->rm]), true);                       \
    DISPATCH_LEAN(c, in);                                                  \
  }                                                                        \
  void op_##name##_m(Cpu *c, const Insn *in) {                             \
    Xmm s;                                                                 \
    load_m128a(c, in, &s);                                                 \
    name##_run(c, in, block(&s), true);                                    \
    DISPATCH_NEXT(c, in);                                                  \
  }                                                                        \
  LEAN void op_##name##_portable(Cpu *c, const Insn *in) {                 \
    name##_run(c, in, block(&c->xmm[in->rm]), false);                      \
    DISPATCH_LEAN(c, in);                                                  \
  }                                                                        \
  void op_##name##_portable_m(Cpu *c, const Insn *in) {                    \
    Xmm s;                                                                 \
    load_m128a(c, in, &s);                                                 \
    name##_run(c, in, block(&s), false);                                   \
    DISPATCH_NEXT(c, in);                                                  \
  }

/* The AES-NI and PCLMULQDQ instructions (aes.c) are name##_op(out, a, s, in, accel):
 * out from the first source a (the destination's old value in the SSE forms, VEX.vvvv
 * in the VEX ones) and the source s. These give an SSE form's _run, and the handlers of
 * the VEX forms: VEX.128 writes out and clears the upper half, VEX.256 does each lane
 * (memory operands of either need no alignment). */
#define CRYPTO_SSE_FROM_OP(name)                                                           \
  static inline __attribute__((always_inline)) void name##_run(Cpu *c, const Insn *in,   \
                                                               Block128 *s, bool accel) { \
    Xmm *d = &c->xmm[in->reg];                                                           \
    name##_op(block(d), d, (const Xmm *)s, in, accel);                                   \
  }                                                                                      \
  CRYPTO_HANDLERS(name)

#define CRYPTO_VEX128_FORM(name, accel, suffix)                                          \
  LEAN void op_v##name##suffix(Cpu *c, const Insn *in) {                                 \
    Xmm r;                                                                               \
    name##_op(block(&r), &c->xmm[in->vreg], &c->xmm[in->rm], in, accel);                 \
    vex128_put(c, in->reg, &r);                                                          \
    DISPATCH_LEAN(c, in);                                                                \
  }                                                                                      \
  void op_v##name##suffix##_m(Cpu *c, const Insn *in) {                                  \
    Xmm r, s;                                                                            \
    load_m128u(c, in, &s);                                                               \
    name##_op(block(&r), &c->xmm[in->vreg], &s, in, accel);                              \
    vex128_put(c, in->reg, &r);                                                          \
    DISPATCH_NEXT(c, in);                                                                \
  }
#define CRYPTO_VEX128_HANDLERS(name) \
  CRYPTO_VEX128_FORM(name, true, ) CRYPTO_VEX128_FORM(name, false, _portable)

/* Each lane of YMM[vvvv] with the source's lane (s: YMM[rm] or m256). */
#define CRYPTO_VEX256_FORM(name, accel, suffix)                                          \
  static inline __attribute__((always_inline)) void name##_256##suffix##_lanes(          \
      Cpu *c, const Insn *in, const Xmm s[2]) {                                          \
    Xmm r[2];                                                                            \
    name##_op(block(&r[0]), &c->xmm[in->vreg], &s[0], in, accel);                        \
    name##_op(block(&r[1]), &c->ymmh[in->vreg], &s[1], in, accel);                       \
    c->xmm[in->reg] = r[0];                                                              \
    c->ymmh[in->reg] = r[1];                                                             \
  }                                                                                      \
  YMM_SOURCE_PAIR(v##name##_256##suffix, name##_256##suffix##_lanes)
#define CRYPTO_VEX256_HANDLERS(name) \
  CRYPTO_VEX256_FORM(name, true, ) CRYPTO_VEX256_FORM(name, false, _portable)

/* An instruction that is primitive p(xmm[reg], xmm[reg], source). */
#define CRYPTO_TWO_OPERANDS(name, p)                                                     \
  static inline __attribute__((always_inline)) void name##_run(Cpu *c, const Insn *in, \
                                                               Block128 *s, bool accel) { \
    Block128 *d = block(&c->xmm[in->reg]);                                             \
    TIER(accel, p)(d, d, s);                                                           \
  }                                                                                    \
  CRYPTO_HANDLERS(name)

#endif
