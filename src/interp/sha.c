/* sha.c: the SHA extensions (SHA1RNDS4, SHA1NEXTE, SHA1MSG1, SHA1MSG2, SHA256RNDS2,
 * SHA256MSG1, SHA256MSG2), each the host primitive of host_crypto.h it is named after
 * (operands and tiers as crypto_forms.h says). */
#include "crypto_forms.h"

/* NP 0F 38 C8: SHA1NEXTE xmm1, xmm2/m128 */
CRYPTO_TWO_OPERANDS(sha1_nexte, sha1_nexte)
/* NP 0F 38 C9: SHA1MSG1 xmm1, xmm2/m128 */
CRYPTO_TWO_OPERANDS(sha1_msg1, sha1_msg1)
/* NP 0F 38 CA: SHA1MSG2 xmm1, xmm2/m128 */
CRYPTO_TWO_OPERANDS(sha1_msg2, sha1_msg2)
/* NP 0F 38 CC: SHA256MSG1 xmm1, xmm2/m128 */
CRYPTO_TWO_OPERANDS(sha256_msg1, sha256_msg1)
/* NP 0F 38 CD: SHA256MSG2 xmm1, xmm2/m128 */
CRYPTO_TWO_OPERANDS(sha256_msg2, sha256_msg2)

/* NP 0F 3A CC ib: SHA1RNDS4 xmm1, xmm2/m128, imm8; imm8 bits 0-1 pick the function. */
static inline __attribute__((always_inline)) void sha1_rnds4_run(Cpu *c, const Insn *in,
                                                                 Block128 *s, bool accel) {
  Block128 *d = block(&c->xmm[in->reg]);
  TIER(accel, sha1_rnds4)(d, d, s, in->imm & 3);
}
CRYPTO_HANDLERS(sha1_rnds4)

/* NP 0F 38 CB: SHA256RNDS2 xmm1, xmm2/m128, <XMM0>: XMM0 holds the rounds' W+K. */
static inline __attribute__((always_inline)) void sha256_rnds2_run(Cpu *c, const Insn *in,
                                                                   Block128 *s, bool accel) {
  Block128 *d = block(&c->xmm[in->reg]);
  TIER(accel, sha256_rnds2)(d, d, s, block(&c->xmm[0]));
}
CRYPTO_HANDLERS(sha256_rnds2)
