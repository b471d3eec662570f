/* decode_crypto.c: AES-NI (66 0F 38 DB..DF, 66 0F 3A DF) and PCLMULQDQ (66 0F 3A 44). */
#include "sse_forms.h"

/* Not implemented yet. */
bool decode_crypto(DecodeCtx *d, Insn *in) {
  (void)d;
  (void)in;
  return false;
}
