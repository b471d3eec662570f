/* crypto_tier.c: the table's picker for the crypto and byte-shuffle rows (ops_crypto.h):
 * the portable handlers where the host tier lacks the instruction's feature. Decoded
 * blocks keep the tier of their decoding; cpu_run drops them when host_crypto_select
 * changed it. */
#include "host/host_crypto.h"
#include "ops_crypto.h"

static const struct {
  Handler host, portable;
  uint32_t feature;
} twins[] = {
#define TWINS(name, feature)                                         \
  {op_##name, op_##name##_portable, HOST_CPU_##feature},             \
  {op_##name##_m, op_##name##_portable_m, HOST_CPU_##feature},
    CRYPTO_INSNS(TWINS) CRYPTO_VEX128_INSNS(TWINS) CRYPTO_VEX256_INSNS(TWINS)
#undef TWINS
#define SHUFFLE(host, portable) {op_##host, op_##portable, HOST_CPU_SHUFFLE},
    SHUFFLE_TWINS(SHUFFLE)
#undef SHUFFLE
};

Handler fast_crypto_tier(Insn *in) {
  for (size_t i = 0; i < sizeof twins / sizeof *twins; i++)
    if (in->fn == twins[i].host) return host_crypto_accel & twins[i].feature ? NULL : twins[i].portable;
  return NULL;
}
