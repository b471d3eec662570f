/* sse42.c: SSE4.2's quadword compare and CRC32 (the string compares are pcmpstr.c's;
 * POPCNT is an integer instruction, in bits.c). */
#include "ops_sse4.h"
#include "sse_operand.h"

/* 66 0F 38 37: signed quadwords */
SSE_RM(pcmpgtq, load_m128a) {
  for (int i = 0; i < 2; i++) d->q[i] = d->sq[i] > s->sq[i] ? ~0ull : 0;
}

/* ---- CRC32: CRC-32C (Castagnoli), bit-reflected, no inversion before or after ---- */

/* Filled before main() and never written again, so that machines on any thread share it. */
static uint32_t crc32c_table[256];

__attribute__((constructor)) static void crc32c_init(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t r = i;
    for (int k = 0; k < 8; k++) r = r >> 1 ^ (r & 1 ? 0x82F63B78u : 0);
    crc32c_table[i] = r;
  }
}

/* The CRC of the `size` low bytes of v, least significant first, continuing from crc. */
static uint32_t crc32c(uint32_t crc, uint64_t v, unsigned size) {
  for (unsigned i = 0; i < size; i++, v >>= 8) crc = crc32c_table[(crc ^ v) & 0xff] ^ crc >> 8;
  return crc;
}

/* F2 [REX.W] 0F 38 F0 (r/m8), F2 [66|REX.W] 0F 38 F1 (r/m16, r/m32, r/m64): the
 * destination's low 32 bits are the running CRC; the result is zero-extended. */
void op_crc32(Cpu *c, const Insn *in) {
  c->r[in->reg] = crc32c((uint32_t)c->r[in->reg], reg_get(c, in->rm, in->aux), in->aux);
  DISPATCH_NEXT(c, in);
}
void op_crc32_m(Cpu *c, const Insn *in) {
  c->r[in->reg] = crc32c((uint32_t)c->r[in->reg], ld(ea(c, in), in->aux), in->aux);
  DISPATCH_NEXT(c, in);
}

/* ---- AVX form (VEX.128: AVX; VEX.256: AVX2) ---- */

AVX_RM(pcmpgtq, load_m128u)
