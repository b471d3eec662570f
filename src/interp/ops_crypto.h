/* ops_crypto.h: handlers of the AES-NI and PCLMULQDQ instructions (aes.c). Each has a
 * register form op_<name> and a memory form op_<name>_m. */
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

#undef CRYPTO_FORMS

#endif
