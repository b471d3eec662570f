/* sse_forms.h: the table form of SSE decoding, shared by the per-family decoder files. */
#ifndef X64EMU_SSE_FORMS_H
#define X64EMU_SSE_FORMS_H

#include "decode.h"

enum { NP, P66, PF3, PF2 };

typedef struct SseForm {
  Handler reg; /* ModRM.rm names a register (NULL: #UD) */
  Handler mem; /* ModRM.rm names memory (NULL: #UD) */
  uint8_t flags;
} SseForm;

enum {
  SF_IMM8 = 1, /* an imm8 follows: in->imm */
  SF_W = 2,    /* a general-register operand of 4 bytes, 8 with REX.W: in->osz */
};

#define RM(name) {op_##name, op_##name##_m, 0}
#define RM_I(name) {op_##name, op_##name##_m, SF_IMM8}
#define RM_W(name) {op_##name, op_##name##_m, SF_W}
#define PAIR(r, m) {op_##r, op_##m, 0}
#define REG(r) {op_##r, NULL, 0}
#define MEM(m) {NULL, op_##m, 0}

/* The mandatory prefix (NP, P66, PF3, PF2): the last F2/F3 if any, else 66. */
unsigned sse_mandatory_prefix(const DecodeCtx *d);
/* Decodes the ModRM operands of form f (NULL or empty: not implemented, false). */
bool sse_decode_form(DecodeCtx *d, Insn *in, const SseForm *f);

/* SSSE3 and SSE4.1/4.2 forms of the 0F 38 and 0F 3A maps (decode_sse4.c), or NULL. */
const SseForm *sse4_form(unsigned map, uint8_t opcode, unsigned prefix);
/* Decodes an SSSE3/SSE4.x instruction of the 0F 38 or 0F 3A map, CRC32 included
 * (decode_sse4.c); false when it is not one. */
bool decode_sse4(DecodeCtx *d, Insn *in);
/* AES-NI and PCLMULQDQ (decode_crypto.c): true when the instruction is one of them. */
bool decode_crypto(DecodeCtx *d, Insn *in);

#endif
