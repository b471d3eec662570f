/* byte_shuffles.c: the instructions whose work is one or two host byte shuffles
 * (byte_select.h): PSHUFB, PSHUFD, PALIGNR, PSLLDQ and PSRLDQ, in their SSE, VEX.128 and
 * VEX.256 forms and PSHUFB's and PALIGNR's MMX ones. Every handler is here twice, as the
 * crypto handlers are (ops_crypto.h): op_<name> on the host's shuffle instruction,
 * compiled for it so that the shuffle inlines (SHUFFLE_ACCEL_BEGIN, the host's
 * crypto_accel.h), and op_<name>_portable on portable C; the table's picker
 * (crypto_tier.c) chooses one when it decodes. */
#include "byte_select.h"
#include "mmx.h"
#include "ops_mmx.h"

/* The handlers of one tier: handler names end in `tier`, `accel` says which. */
#define SHIFT_BYTES(name, shift, tier, accel)                                         \
  LEAN void op_##name##tier(Cpu *c, const Insn *in) {                                 \
    shift(&c->xmm[in->rm], in->imm, accel);                                           \
    DISPATCH_LEAN(c, in);                                                             \
  }                                                                                   \
  LEAN void op_v##name##tier(Cpu *c, const Insn *in) {                                \
    Xmm v = c->xmm[in->rm];                                                           \
    shift(&v, in->imm, accel);                                                        \
    vex128_put(c, in->vreg, &v);                                                      \
    DISPATCH_LEAN(c, in);                                                             \
  }                                                                                   \
  LEAN void op_v##name##tier##_256(Cpu *c, const Insn *in) {                          \
    Xmm lo = c->xmm[in->rm], hi = c->ymmh[in->rm];                                    \
    shift(&lo, in->imm, accel);                                                       \
    shift(&hi, in->imm, accel);                                                       \
    c->xmm[in->vreg] = lo;                                                            \
    c->ymmh[in->vreg] = hi;                                                           \
    DISPATCH_LEAN(c, in);                                                             \
  }

#define BYTE_SHUFFLES(tier, accel)                                                    \
  /* 66 0F 38 00: each byte picks a byte of the destination by the low four bits of   \
   * the source byte, or is zero when its top bit is set. */                          \
  SSE_RM_LEAN(pshufb##tier, load_m128a) { pick_bytes(d, d, s->b, accel); }            \
  /* 66 0F 70 */                                                                      \
  SSE_RM_LEAN(pshufd##tier, load_m128a) { select_dwords(d, s, (unsigned)in->imm, accel); } \
  /* 66 0F 3A 0F: bytes imm8.. of the 32-byte value destination:source */             \
  SSE_RM_LEAN(palignr##tier, load_m128a) { align_bytes(d, s, in->imm, accel); }       \
  /* 66 0F 73 /7 and /3 */                                                            \
  SHIFT_BYTES(pslldq, shift_bytes_left, tier, accel)                                  \
  SHIFT_BYTES(psrldq, shift_bytes_right, tier, accel)                                 \
  MMX_FROM_SSE(pshufb##tier, pshufb##tier, mmx_doubled)                               \
  MMX_FROM_SSE(palignr##tier, palignr##tier, mmx_aligned)                             \
  AVX_RM_LEAN(pshufb##tier, load_m128u) AVX_RM_LEAN(pshufd##tier, load_m128u)              \
  AVX_RM_LEAN(palignr##tier, load_m128u)

SHUFFLE_ACCEL_BEGIN
BYTE_SHUFFLES(, true)
SHUFFLE_ACCEL_END
BYTE_SHUFFLES(_portable, false)
