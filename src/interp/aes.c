/* aes.c: AES-NI (AESENC, AESENCLAST, AESDEC, AESDECLAST, AESIMC, AESKEYGENASSIST) and
 * PCLMULQDQ, each the host primitive of host_crypto.h it is named after (operands and
 * tiers as crypto_forms.h says). */
#include "crypto_forms.h"

/* 66 0F 38 DC: AESENC xmm1, xmm2/m128 */
CRYPTO_TWO_OPERANDS(aesenc, aes_SB_SR_MC_AK)
/* A fused run of n AESENCs (ops_crypto.h), one handler per length so that the rounds
 * are straight-line code: the pairs are read once, before any register is written. */
static inline __attribute__((always_inline)) void aesenc_run_of(Cpu *c, const Insn *in, unsigned n,
                                                                bool accel) {
  uint64_t pairs = in->imm;
  Xmm *x = c->xmm;
  for (unsigned i = 0; i < n; i++, pairs >>= 8) {
    Block128 *d = block(&x[pairs & 15]);
    TIER(accel, aes_SB_SR_MC_AK)(d, d, block(&x[pairs >> 4 & 15]));
  }
  const Insn *last = in + n - 1; /* goes on as if each instruction had run */
  c->cur = last;
  DISPATCH_NEXT(c, last);
}
#define AESENC_RUN(n)                                                                   \
  void op_aesenc_run##n(Cpu *c, const Insn *in) { aesenc_run_of(c, in, n, true); }      \
  void op_aesenc_run##n##_portable(Cpu *c, const Insn *in) { aesenc_run_of(c, in, n, false); }
AESENC_RUNS(AESENC_RUN)

/* 66 0F 38 DD: AESENCLAST xmm1, xmm2/m128 */
CRYPTO_TWO_OPERANDS(aesenclast, aes_SB_SR_AK)
/* 66 0F 38 DE: AESDEC xmm1, xmm2/m128 */
CRYPTO_TWO_OPERANDS(aesdec, aes_ISB_ISR_IMC_AK)
/* 66 0F 38 DF: AESDECLAST xmm1, xmm2/m128 */
CRYPTO_TWO_OPERANDS(aesdeclast, aes_ISB_ISR_AK)

/* 66 0F 38 DB: AESIMC xmm1, xmm2/m128 */
static inline __attribute__((always_inline)) void aesimc_run(Cpu *c, const Insn *in,
                                                             Block128 *s, bool accel) {
  TIER(accel, aes_IMC)(block(&c->xmm[in->reg]), s);
}
CRYPTO_HANDLERS(aesimc)

/* 66 0F 3A DF ib: AESKEYGENASSIST xmm1, xmm2/m128, imm8 */
static inline __attribute__((always_inline)) void aeskeygenassist_run(Cpu *c, const Insn *in,
                                                                      Block128 *s, bool accel) {
  TIER(accel, aes_keygen_assist)(block(&c->xmm[in->reg]), s, (uint8_t)in->imm);
}
CRYPTO_HANDLERS(aeskeygenassist)

/* 66 0F 3A 44 ib: PCLMULQDQ xmm1, xmm2/m128, imm8. imm8 bit 0 picks the quadword of
 * xmm1, bit 4 that of the source; the other bits are ignored. */
static inline __attribute__((always_inline)) void pclmulqdq_run(Cpu *c, const Insn *in,
                                                                Block128 *s, bool accel) {
  Xmm *d = &c->xmm[in->reg];
  TIER(accel, clmul_64x64)(block(d), d->q[in->imm & 1], s->q[in->imm >> 4 & 1]);
}
CRYPTO_HANDLERS(pclmulqdq)
