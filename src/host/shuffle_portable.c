/* shuffle_portable.c: the portable C tier of the byte shuffles (PSHUFB's table lookup,
 * Intel SDM), for hosts without SSSE3 or TBL and for --host-crypto=portable. */
#include "host_crypto.h"

static inline uint8_t lookup(const Block128 *table, uint8_t i) {
  return i & 0x80 ? 0 : table->b[i & 15];
}

void byte_shuffle_portable(Block128 *out, const Block128 *table, const uint8_t idx[16]) {
  Block128 r;
  for (int i = 0; i < 16; i++) r.b[i] = lookup(table, idx[i]);
  *out = r;
}

void byte_shuffle_pair_portable(Block128 *out, const Block128 *a, const uint8_t ia[16],
                                const Block128 *b, const uint8_t ib[16]) {
  Block128 r;
  for (int i = 0; i < 16; i++) r.b[i] = lookup(a, ia[i]) | lookup(b, ib[i]);
  *out = r;
}
