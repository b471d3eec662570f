/* crypto_select.c: host CPU feature detection at start-up, and which tier the host
 * crypto primitives use (--host-crypto=, X64EMU_HOST_CRYPTO). */
#include <stdio.h>
#include <string.h>

#include "host_crypto.h"

uint32_t host_cpu_features;
uint32_t host_crypto_accel;
static HostCryptoMode current_mode = HOST_CRYPTO_AUTO;

uint32_t host_cpu_detect(void) {
  if (!(host_cpu_features & HOST_CPU_DETECTED))
    host_cpu_features = host_cpu_probe();
  return host_cpu_features;
}

/* Auto is in force before main(), so the primitives never run on an unset word. */
__attribute__((constructor)) static void host_crypto_start(void) {
  host_crypto_accel = host_cpu_detect() & HOST_CPU_CRYPTO;
}

bool host_crypto_parse(const char *name, HostCryptoMode *mode) {
  static const char *const names[] = {
      [HOST_CRYPTO_AUTO] = "auto",
      [HOST_CRYPTO_NATIVE] = "native",
      [HOST_CRYPTO_PORTABLE] = "portable",
  };
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (name && strcmp(name, names[i]) == 0) {
      *mode = (HostCryptoMode)i;
      return true;
    }
  return false;
}

const char *host_crypto_select(HostCryptoMode mode) {
  static char why[160];
  uint32_t have = host_cpu_detect() & HOST_CPU_CRYPTO;
  switch (mode) {
  case HOST_CRYPTO_AUTO:
    host_crypto_accel = have;
    break;
  case HOST_CRYPTO_NATIVE:
    if (have != HOST_CPU_CRYPTO) {
      bool no_aes = !(have & HOST_CPU_AES), no_clmul = !(have & HOST_CPU_CLMUL);
      snprintf(why, sizeof why, "host crypto 'native': %s has no %s%s%s", HOST_CRYPTO_ARCH,
               no_aes ? HOST_AES_NAME : "", no_aes && no_clmul ? " and no " : "",
               no_clmul ? HOST_CLMUL_NAME : "");
      return why;
    }
    host_crypto_accel = have;
    break;
  case HOST_CRYPTO_PORTABLE:
    host_crypto_accel = 0;
    break;
  default:
    return "host crypto: unknown mode";
  }
  current_mode = mode;
  return NULL;
}

HostCryptoMode host_crypto_mode(void) { return current_mode; }

HostCryptoTier host_crypto_tier(uint32_t feature) {
  if (!(host_crypto_accel & feature))
    return HOST_CRYPTO_TIER_PORTABLE;
  bool compiled = feature == HOST_CPU_AES ? HOST_AES_COMPILED : HOST_CLMUL_COMPILED;
  return compiled ? HOST_CRYPTO_TIER_COMPILED : HOST_CRYPTO_TIER_DETECTED;
}

int host_crypto_describe(char *buf, size_t size) {
  static const struct {
    const char *primitive, *instruction;
    uint32_t feature;
  } rows[] = {
      {"aes_SB_SR_MC_AK", "AESENC", HOST_CPU_AES},
      {"aes_SB_SR_AK", "AESENCLAST", HOST_CPU_AES},
      {"aes_ISB_ISR_IMC_AK", "AESDEC", HOST_CPU_AES},
      {"aes_ISB_ISR_AK", "AESDECLAST", HOST_CPU_AES},
      {"aes_IMC", "AESIMC", HOST_CPU_AES},
      {"aes_keygen_assist", "AESKEYGENASSIST", HOST_CPU_AES},
      {"clmul_64x64", "PCLMULQDQ", HOST_CPU_CLMUL},
  };
  static const char *const modes[] = {"auto", "native", "portable"};
  size_t len = 0;
  /* snprintf with the space left, counting on past the end like snprintf itself. */
#define APPEND(...)                                                                       \
  len += (size_t)snprintf(buf + (len < size ? len : size), len < size ? size - len : 0, \
                          __VA_ARGS__)
  APPEND("host crypto (%s):\n", modes[current_mode]);
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    uint32_t f = rows[i].feature;
    const char *name = f == HOST_CPU_AES ? HOST_AES_NAME : HOST_CLMUL_NAME;
    APPEND("  %-16s %-19s ", rows[i].instruction, rows[i].primitive);
    switch (host_crypto_tier(f)) {
    case HOST_CRYPTO_TIER_COMPILED:
      APPEND("%s, compiled in\n", name);
      break;
    case HOST_CRYPTO_TIER_DETECTED:
      APPEND("%s, detected at start-up\n", name);
      break;
    case HOST_CRYPTO_TIER_PORTABLE:
      APPEND("portable C%s%s\n", host_cpu_features & f ? ", host has " : "",
             host_cpu_features & f ? name : "");
      break;
    }
  }
#undef APPEND
  return (int)len;
}
