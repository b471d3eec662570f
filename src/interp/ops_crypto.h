/* ops_crypto.h: handlers of the AES-NI and PCLMULQDQ instructions (aes.c) and of the SHA
 * extensions (sha.c). Each has a register form op_<name> and a memory form op_<name>_m. */
#ifndef X64EMU_OPS_CRYPTO_H
#define X64EMU_OPS_CRYPTO_H

#include "insn.h"

#define CRYPTO_FORMS(name)                 \
  void op_##name(Cpu *c, const Insn *in); \
  void op_##name##_m(Cpu *c, const Insn *in);

CRYPTO_FORMS(aesenc)          /* 66 0F 38 DC */
CRYPTO_FORMS(aesenclast)      /* 66 0F 38 DD */
CRYPTO_FORMS(aesdec)          /* 66 0F 38 DE */
CRYPTO_FORMS(aesdeclast)      /* 66 0F 38 DF */
CRYPTO_FORMS(aesimc)          /* 66 0F 38 DB */
CRYPTO_FORMS(aeskeygenassist) /* 66 0F 3A DF ib: in->imm is RCON */
CRYPTO_FORMS(pclmulqdq)       /* 66 0F 3A 44 ib: in->op, in->aux pick the quadwords */
CRYPTO_FORMS(sha1_nexte)      /* NP 0F 38 C8 */
CRYPTO_FORMS(sha1_msg1)       /* NP 0F 38 C9 */
CRYPTO_FORMS(sha1_msg2)       /* NP 0F 38 CA */
CRYPTO_FORMS(sha256_rnds2)    /* NP 0F 38 CB: XMM0 implied */
CRYPTO_FORMS(sha256_msg1)     /* NP 0F 38 CC */
CRYPTO_FORMS(sha256_msg2)     /* NP 0F 38 CD */
CRYPTO_FORMS(sha1_rnds4)      /* NP 0F 3A CC ib */

#undef CRYPTO_FORMS

#endif
