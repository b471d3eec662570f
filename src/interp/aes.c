/* aes.c: AES-NI (AESENC, AESENCLAST, AESDEC, AESDECLAST, AESIMC, AESKEYGENASSIST) and
 * PCLMULQDQ, each the host primitive of host_crypto.h it is named after (operands as
 * crypto_forms.h says). */
#include "crypto_forms.h"

/* 66 0F 38 DC: AESENC xmm1, xmm2/m128 */
CRYPTO_TWO_OPERANDS(aesenc, aes_SB_SR_MC_AK)
/* 66 0F 38 DD: AESENCLAST xmm1, xmm2/m128 */
CRYPTO_TWO_OPERANDS(aesenclast, aes_SB_SR_AK)
/* 66 0F 38 DE: AESDEC xmm1, xmm2/m128 */
CRYPTO_TWO_OPERANDS(aesdec, aes_ISB_ISR_IMC_AK)
/* 66 0F 38 DF: AESDECLAST xmm1, xmm2/m128 */
CRYPTO_TWO_OPERANDS(aesdeclast, aes_ISB_ISR_AK)

/* 66 0F 38 DB: AESIMC xmm1, xmm2/m128 */
void op_aesimc(Cpu *c, const Insn *in) {
  aes_IMC(block(&c->xmm[in->reg]), block(&c->xmm[in->rm]));
  DISPATCH_NEXT(c, in);
}
void op_aesimc_m(Cpu *c, const Insn *in) {
  Xmm s;
  load_m128a(c, in, &s);
  aes_IMC(block(&c->xmm[in->reg]), block(&s));
  DISPATCH_NEXT(c, in);
}

/* 66 0F 3A DF ib: AESKEYGENASSIST xmm1, xmm2/m128, imm8 */
void op_aeskeygenassist(Cpu *c, const Insn *in) {
  aes_keygen_assist(block(&c->xmm[in->reg]), block(&c->xmm[in->rm]), (uint8_t)in->imm);
  DISPATCH_NEXT(c, in);
}
void op_aeskeygenassist_m(Cpu *c, const Insn *in) {
  Xmm s;
  load_m128a(c, in, &s);
  aes_keygen_assist(block(&c->xmm[in->reg]), block(&s), (uint8_t)in->imm);
  DISPATCH_NEXT(c, in);
}

/* 66 0F 3A 44 ib: PCLMULQDQ xmm1, xmm2/m128, imm8. imm8 bit 0 picks the quadword of
 * xmm1, bit 4 that of the source; the other bits are ignored. */
void op_pclmulqdq(Cpu *c, const Insn *in) {
  Xmm *d = &c->xmm[in->reg];
  clmul_64x64(block(d), d->q[in->imm & 1], c->xmm[in->rm].q[in->imm >> 4 & 1]);
  DISPATCH_NEXT(c, in);
}
void op_pclmulqdq_m(Cpu *c, const Insn *in) {
  Xmm s, *d = &c->xmm[in->reg];
  load_m128a(c, in, &s);
  clmul_64x64(block(d), d->q[in->imm & 1], s.q[in->imm >> 4 & 1]);
  DISPATCH_NEXT(c, in);
}
