/* decode_crypto.c: AES-NI (66 0F 38 DB..DF, 66 0F 3A DF) and PCLMULQDQ (66 0F 3A 44). */
#include <stddef.h>

#include "../interp/cpuid.h"
#include "../interp/ops_crypto.h"
#include "sse_forms.h"

typedef struct CryptoForm {
  uint8_t map, opcode;
  CpuFeature feature; /* --cpu may take it away: the instruction is then #UD */
  SseForm form;
} CryptoForm;

static const CryptoForm crypto_forms[] = {
  {MAP_0F38, 0xDB, CPU_FEATURE_AES, RM(aesimc)},
  {MAP_0F38, 0xDC, CPU_FEATURE_AES, RM(aesenc)},
  {MAP_0F38, 0xDD, CPU_FEATURE_AES, RM(aesenclast)},
  {MAP_0F38, 0xDE, CPU_FEATURE_AES, RM(aesdec)},
  {MAP_0F38, 0xDF, CPU_FEATURE_AES, RM(aesdeclast)},
  {MAP_0F3A, 0xDF, CPU_FEATURE_AES, RM_I(aeskeygenassist)},
  {MAP_0F3A, 0x44, CPU_FEATURE_PCLMULQDQ, RM_I(pclmulqdq)},
};

/* Only the 66 forms exist: without a prefix, or with F2/F3 (Key Locker's AESENC128KL
 * and friends are F3 0F 38 DC..DF), these opcodes are other instructions or #UD. */
bool decode_crypto(DecodeCtx *d, Insn *in) {
  if (sse_mandatory_prefix(d) != P66) return false;
  for (size_t i = 0; i < sizeof crypto_forms / sizeof *crypto_forms; i++) {
    const CryptoForm *f = &crypto_forms[i];
    if (f->map != d->map || f->opcode != d->opcode) continue;
    if (!cpu_feature_enabled(d->model, f->feature) || !sse_decode_form(d, in, &f->form)) return false;
    if (f->form.reg == op_pclmulqdq) {
      in->op = in->imm & 1;
      in->aux = in->imm >> 4 & 1;
    }
    return true;
  }
  return false;
}
