/* crypto_forms.h: what the crypto handlers (aes.c, sha.c) share: XMM registers used in
 * place as the host primitives' blocks, and the two forms of a two-operand instruction.
 *
 * Register forms work in place on the guest's XMM registers: an Xmm has the size and
 * alignment of a Block128, and the primitives accept a result that overlaps an operand.
 * Memory forms load their 16-byte operand, which must be aligned (legacy SSE encoding:
 * #GP otherwise, as the host CPU does), into a temporary first. */
#ifndef X64EMU_CRYPTO_FORMS_H
#define X64EMU_CRYPTO_FORMS_H

#include "host/host_crypto.h"
#include "ops_crypto.h"
#include "sse_operand.h"

_Static_assert(sizeof(Xmm) == sizeof(Block128) && _Alignof(Xmm) == _Alignof(Block128),
               "an XMM register is used as a Block128 in place");

static inline Block128 *block(Xmm *x) { return (Block128 *)x; }

/* op_name and op_name_m: xmm[reg] = primitive(xmm[reg], source). */
#define CRYPTO_TWO_OPERANDS(name, primitive)                              \
  void op_##name(Cpu *c, const Insn *in) {                                \
    Block128 *d = block(&c->xmm[in->reg]);                                \
    primitive(d, d, block(&c->xmm[in->rm]));                              \
    DISPATCH_NEXT(c, in);                                                 \
  }                                                                       \
  void op_##name##_m(Cpu *c, const Insn *in) {                            \
    Xmm s;                                                                \
    load_m128a(c, in, &s);                                                \
    Block128 *d = block(&c->xmm[in->reg]);                                \
    primitive(d, d, block(&s));                                           \
    DISPATCH_NEXT(c, in);                                                 \
  }

#endif
