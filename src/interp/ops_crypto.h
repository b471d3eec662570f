/* ops_crypto.h: handlers of the AES-NI and PCLMULQDQ instructions (aes.c), of the SHA
 * extensions (sha.c) and of the byte shuffles (byte_shuffles.c).
 *
 * Each has a register form op_<name> and a memory form op_<name>_m, which run the host's
 * own instruction (where it has one), and op_<name>_portable and op_<name>_portable_m,
 * which run the portable C of host_crypto.h. The table names the first two; its picker
 * fast_crypto_tier swaps in the portable ones when the host tier (host_crypto_accel)
 * lacks the feature, so no handler tests the tier as it runs. */
#ifndef X64EMU_OPS_CRYPTO_H
#define X64EMU_OPS_CRYPTO_H

#include "insn.h"

/* X(name, host feature: AES, CLMUL or SHA, as HOST_CPU_*) */
#define CRYPTO_INSNS(X)                                                        \
  X(aesenc, AES)          /* 66 0F 38 DC */                                    \
  X(aesenclast, AES)      /* 66 0F 38 DD */                                    \
  X(aesdec, AES)          /* 66 0F 38 DE */                                    \
  X(aesdeclast, AES)      /* 66 0F 38 DF */                                    \
  X(aesimc, AES)          /* 66 0F 38 DB */                                    \
  X(aeskeygenassist, AES) /* 66 0F 3A DF ib: in->imm is RCON */                \
  X(pclmulqdq, CLMUL)     /* 66 0F 3A 44 ib: imm8 bits 0 and 4 pick quadwords */ \
  X(sha1_nexte, SHA)      /* NP 0F 38 C8 */                                    \
  X(sha1_msg1, SHA)       /* NP 0F 38 C9 */                                    \
  X(sha1_msg2, SHA)       /* NP 0F 38 CA */                                    \
  X(sha256_rnds2, SHA)    /* NP 0F 38 CB: XMM0 implied */                      \
  X(sha256_msg1, SHA)     /* NP 0F 38 CC */                                    \
  X(sha256_msg2, SHA)     /* NP 0F 38 CD */                                    \
  X(sha1_rnds4, SHA)      /* NP 0F 3A CC ib */

/* Their VEX forms (AVX): VEX.128 ones of AES-NI and PCLMULQDQ, op_v<name>..., with the
 * first source in VEX.vvvv (AESIMC and AESKEYGENASSIST have none), and the VEX.256 ones
 * of VAES and VPCLMULQDQ, op_v<name>_256..., which do each 128-bit lane as the VEX.128
 * form does. Each has the same four handlers. */
#define CRYPTO_VEX128_INSNS(X) \
  X(vaesenc, AES) X(vaesenclast, AES) X(vaesdec, AES) X(vaesdeclast, AES) X(vaesimc, AES) \
  X(vaeskeygenassist, AES) X(vpclmulqdq, CLMUL)
#define CRYPTO_VEX256_INSNS(X) \
  X(vaesenc_256, AES) X(vaesenclast_256, AES) X(vaesdec_256, AES) X(vaesdeclast_256, AES) \
  X(vpclmulqdq_256, CLMUL)

#define CRYPTO_DECLARE(name, feature)                  \
  void op_##name(Cpu *c, const Insn *in);              \
  void op_##name##_m(Cpu *c, const Insn *in);          \
  void op_##name##_portable(Cpu *c, const Insn *in);   \
  void op_##name##_portable_m(Cpu *c, const Insn *in);
CRYPTO_INSNS(CRYPTO_DECLARE)
CRYPTO_VEX128_INSNS(CRYPTO_DECLARE)
CRYPTO_VEX256_INSNS(CRYPTO_DECLARE)
#undef CRYPTO_DECLARE

/* The byte shuffles (byte_shuffles.c), as X(host handler, portable handler) without the
 * op_ prefix: PSHUFB, PSHUFD and PALIGNR in register and memory, SSE, VEX.128 and
 * VEX.256 forms, PSHUFB's and PALIGNR's MMX forms, PSLLDQ and PSRLDQ (register only).
 * Their feature is HOST_CPU_SHUFFLE. */
#define SHUFFLE_RM_TWINS(X, n)                                                              \
  X(n, n##_portable) X(n##_m, n##_portable_m) X(v##n, v##n##_portable)                     \
  X(v##n##_m, v##n##_portable_m) X(v##n##_256, v##n##_portable_256)                        \
  X(v##n##_256_m, v##n##_portable_256_m)
#define SHUFFLE_MMX_TWINS(X, n) X(mmx_##n, mmx_##n##_portable) X(mmx_##n##_m, mmx_##n##_portable_m)
#define SHUFFLE_SHIFT_TWINS(X, n) \
  X(n, n##_portable) X(v##n, v##n##_portable) X(v##n##_256, v##n##_portable_256)
#define SHUFFLE_TWINS(X)                                                                    \
  SHUFFLE_RM_TWINS(X, pshufb) SHUFFLE_RM_TWINS(X, pshufd) SHUFFLE_RM_TWINS(X, palignr)     \
  SHUFFLE_MMX_TWINS(X, pshufb) SHUFFLE_MMX_TWINS(X, palignr)                              \
  SHUFFLE_SHIFT_TWINS(X, pslldq) SHUFFLE_SHIFT_TWINS(X, psrldq)
#define SHUFFLE_DECLARE(host, portable)      \
  void op_##host(Cpu *c, const Insn *in);    \
  void op_##portable(Cpu *c, const Insn *in);
SHUFFLE_TWINS(SHUFFLE_DECLARE)
#undef SHUFFLE_DECLARE

/* The table's picker for every crypto and byte-shuffle row (crypto_tier.c). */
Handler fast_crypto_tier(Insn *in);

/* A run of 2..8 register-form AESENCs one after another in a block (OpenSSL's CTR and
 * ECB loops give every block of a batch the same round), fused by the block decoder
 * into its first record: op_aesenc_run<n> does n instructions, the i-th on XMM registers
 * in->imm >> 8i & 0xF (destination) and in->imm >> (8i + 4) & 0xF (round key), in their
 * order with the host's instructions back to back. The records of the others stay behind
 * it, skipped. AESENC with a register source cannot fault, so the run is exact. */
#define AESENC_RUNS(X) X(2) X(3) X(4) X(5) X(6) X(7) X(8)
enum { AES_RUN_MAX = 8 };
#define AESENC_RUN_DECLARE(n)                         \
  void op_aesenc_run##n(Cpu *c, const Insn *in);      \
  void op_aesenc_run##n##_portable(Cpu *c, const Insn *in);
AESENC_RUNS(AESENC_RUN_DECLARE)
#undef AESENC_RUN_DECLARE

/* OpenSSL's loop over the rounds of one block (aesni_encrypt and aesni_decrypt, the CBC
 * encryption, the ECB and CCM tails), fused by the block decoder into the first record
 * of a block that is exactly
 *   AESENC (AESDEC) xmm_s, xmm_k; DEC r32; MOVUPS xmm_k, [rB + d]; LEA rB, [rB + e];
 *   JNZ to the AESENC
 * so that the rounds of a pass follow each other in host registers, with one dispatch,
 * rather than through the guest's registers in memory, five dispatches and a block
 * chaining each (aes.c). The other records stay behind it. */
void op_aesenc_loop(Cpu *c, const Insn *in);
void op_aesenc_loop_portable(Cpu *c, const Insn *in);
void op_aesdec_loop(Cpu *c, const Insn *in);
void op_aesdec_loop_portable(Cpu *c, const Insn *in);

/* What the block decoder fuses of this copy's handlers (aes.c; ops_fast.h's FastPairing
 * holds them): the run of n AESENCs whose records have fn, and the round loop that the
 * n records of a block are; NULL where there is none. */
Handler aesenc_run_form(Handler fn, unsigned n);
Handler aes_round_loop_form(const Insn *records, unsigned n);

#endif
