/* aes.c: AES-NI (AESENC, AESENCLAST, AESDEC, AESDECLAST, AESIMC, AESKEYGENASSIST) and
 * PCLMULQDQ, each the host primitive of host_crypto.h it is named after, in their SSE
 * forms, their VEX.128 forms (AVX), and the VEX.256 forms of VAES and VPCLMULQDQ
 * (operands and tiers as crypto_forms.h says). */
#include "chain.h"
#include "crypto_forms.h"
#include "flags.h"
#include "ops_fast.h"
#include "ops_sse.h"

/* A round: out = p(a, s). */
#define AES_ROUND(name, p)                                                                \
  static inline __attribute__((always_inline)) void name##_op(                            \
      Block128 *out, const Xmm *a, const Xmm *s, const Insn *in, bool accel) {            \
    (void)in;                                                                             \
    TIER(accel, p)(out, (const Block128 *)a, (const Block128 *)s);                        \
  }                                                                                       \
  CRYPTO_SSE_FROM_OP(name) CRYPTO_VEX128_HANDLERS(name) CRYPTO_VEX256_HANDLERS(name)

/* 66 0F 38 DC: AESENC xmm1, xmm2/m128; VEX: VAESENC xmm1/ymm1, vvvv, xmm3/m128/ymm3/m256 */
AES_ROUND(aesenc, aes_SB_SR_MC_AK)
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

/* A one-block round loop (ops_crypto.h): each pass that loops again runs here, the state
 * and the round key in host registers, while the run could go on into another block
 * without looking (may_chain: no event, no exact stop to meet). Such a pass writes the
 * guest's registers and flags as its DEC left them before its MOVUPS loads, so that a
 * fault there finds what the instructions before it did, and counts its instructions.
 * The last pass's round is done here too; its other four instructions run from their
 * own records. */
static inline __attribute__((always_inline)) void aes_round_loop(Cpu *c, const Insn *in,
                                                                 bool decrypt, bool accel) {
  const Insn *dec = &in[1], *load = &in[2], *lea = &in[3];
  Xmm *x = c->xmm;
  Block128 s = *block(&x[in->reg]), k = *block(&x[in->rm]);
  uint32_t count = (uint32_t)c->r[dec->rm];
  bool cf = flag_cf_kept(c); /* DEC, MOVUPS and LEA keep it */
  for (;;) {
    if (decrypt)
      TIER(accel, aes_ISB_ISR_IMC_AK)(&s, &s, &k);
    else
      TIER(accel, aes_SB_SR_MC_AK)(&s, &s, &k);
    if (count == 1 || !may_chain(c)) break; /* this pass's DEC ends the loop, or a look */
    *block(&x[in->reg]) = s;
    c->r[dec->rm] = --count;
    lazy_set(c, LF_DEC, 4, count, count + 1u, 1);
    c->lf.cin = cf;
    c->cur = load;
    ld128(ea(c, load), &x[load->reg]);
    k = *block(&x[load->reg]);
    c->r[lea->reg] = c->r[lea->base] + (uint64_t)lea->disp;
    c->icount += c->block->ninsn;
  }
  *block(&x[in->reg]) = s;
  c->cur = in;
  DISPATCH_NEXT(c, in);
}
void op_aesenc_loop(Cpu *c, const Insn *in) { aes_round_loop(c, in, false, true); }
void op_aesenc_loop_portable(Cpu *c, const Insn *in) { aes_round_loop(c, in, false, false); }
void op_aesdec_loop(Cpu *c, const Insn *in) { aes_round_loop(c, in, true, true); }
void op_aesdec_loop_portable(Cpu *c, const Insn *in) { aes_round_loop(c, in, true, false); }

/* The decoder's picks of the two fusions above (ops_crypto.h), here so that each copy of
 * the handlers fuses into its own: the ordered copy's round loop loads its keys as that
 * copy's MOVUPS does. */
#define HOST_RUN(n) op_aesenc_run##n,
#define PORTABLE_RUN(n) op_aesenc_run##n##_portable,
static const Handler host_runs[] = {NULL, NULL, AESENC_RUNS(HOST_RUN)};
static const Handler portable_runs[] = {NULL, NULL, AESENC_RUNS(PORTABLE_RUN)};

Handler aesenc_run_form(Handler fn, unsigned n) {
  if (n < 2 || n > AES_RUN_MAX) return NULL;
  if (fn == op_aesenc) return host_runs[n];
  if (fn == op_aesenc_portable) return portable_runs[n];
  return NULL;
}

/* A plain address: base + disp, no index, segment or 32-bit arithmetic. */
static bool base_disp(const Insn *in) {
  return in->base != REG_NONE && in->index == REG_NONE && in->seg == SEG_NONE && !in->addr32;
}

Handler aes_round_loop_form(const Insn *records, unsigned n) {
  if (n != 5) return NULL;
  const Insn *round = &records[0], *dec = &records[1], *load = &records[2], *lea = &records[3],
             *jnz = &records[4];
  Handler fused = round->fn == op_aesenc            ? op_aesenc_loop
                  : round->fn == op_aesenc_portable ? op_aesenc_loop_portable
                  : round->fn == op_aesdec          ? op_aesdec_loop
                  : round->fn == op_aesdec_portable ? op_aesdec_loop_portable
                                                    : NULL;
  if (!fused || round->mem || round->reg == round->rm) return NULL;
  if (!fast_is_dec32(dec->fn) || !fast_is_jnz(jnz->fn) || jnz->imm != round->rip) return NULL;
  if (load->fn != op_movu_load_m || !base_disp(load) || load->reg != round->rm) return NULL;
  if (!fast_is_lea64_base_disp(lea->fn) || !base_disp(lea) || lea->reg != load->base ||
      lea->base != load->base || dec->rm == load->base)
    return NULL;
  return fused;
}

/* 66 0F 38 DD: AESENCLAST xmm1, xmm2/m128 (and VEX, as above) */
AES_ROUND(aesenclast, aes_SB_SR_AK)
/* 66 0F 38 DE: AESDEC xmm1, xmm2/m128 */
AES_ROUND(aesdec, aes_ISB_ISR_IMC_AK)
/* 66 0F 38 DF: AESDECLAST xmm1, xmm2/m128 */
AES_ROUND(aesdeclast, aes_ISB_ISR_AK)

/* 66 0F 38 DB: AESIMC xmm1, xmm2/m128 (VEX.128: no vvvv) */
static inline __attribute__((always_inline)) void aesimc_op(Block128 *out, const Xmm *a,
                                                            const Xmm *s, const Insn *in, bool accel) {
  (void)a, (void)in;
  TIER(accel, aes_IMC)(out, (const Block128 *)s);
}
CRYPTO_SSE_FROM_OP(aesimc) CRYPTO_VEX128_HANDLERS(aesimc)

/* 66 0F 3A DF ib: AESKEYGENASSIST xmm1, xmm2/m128, imm8 (VEX.128: no vvvv) */
static inline __attribute__((always_inline)) void aeskeygenassist_op(Block128 *out, const Xmm *a,
                                                                     const Xmm *s, const Insn *in,
                                                                     bool accel) {
  (void)a;
  TIER(accel, aes_keygen_assist)(out, (const Block128 *)s, (uint8_t)in->imm);
}
CRYPTO_SSE_FROM_OP(aeskeygenassist) CRYPTO_VEX128_HANDLERS(aeskeygenassist)

/* 66 0F 3A 44 ib: PCLMULQDQ xmm1, xmm2/m128, imm8. imm8 bit 0 picks the quadword of the
 * first source, bit 4 that of the second; the other bits are ignored (in each lane of
 * VPCLMULQDQ ymm alike). */
static inline __attribute__((always_inline)) void pclmulqdq_op(Block128 *out, const Xmm *a,
                                                               const Xmm *s, const Insn *in, bool accel) {
  TIER(accel, clmul_64x64)(out, a->q[in->imm & 1], s->q[in->imm >> 4 & 1]);
}
CRYPTO_SSE_FROM_OP(pclmulqdq) CRYPTO_VEX128_HANDLERS(pclmulqdq) CRYPTO_VEX256_HANDLERS(pclmulqdq)
