/* crypto_select.c: host CPU feature detection at start-up, and which tier the host
 * crypto primitives use (--host-crypto=, X64EMU_HOST_CRYPTO). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "host_crypto.h"

uint32_t host_cpu_features;
uint32_t host_crypto_accel;
static HostCryptoMode current_mode = HOST_CRYPTO_AUTO;

static const char *const mode_names[] = {
    [HOST_CRYPTO_AUTO] = "auto",
    [HOST_CRYPTO_NATIVE] = "native",
    [HOST_CRYPTO_PORTABLE] = "portable",
};

uint32_t host_cpu_detect(void) {
  if (!(host_cpu_features & HOST_CPU_DETECTED))
    host_cpu_features = host_cpu_probe();
  return host_cpu_features;
}

/* Auto from start-up, before main(). Before this runs (in another constructor) the word
 * is 0, which means portable C: slower, never wrong. */
__attribute__((constructor)) static void host_crypto_start(void) {
  host_crypto_accel = host_cpu_detect() & HOST_CPU_CRYPTO;
}

bool host_crypto_parse(const char *name, HostCryptoMode *mode) {
  for (size_t i = 0; i < sizeof mode_names / sizeof *mode_names; i++)
    if (name && strcmp(name, mode_names[i]) == 0) {
      *mode = (HostCryptoMode)i;
      return true;
    }
  return false;
}

const char *host_crypto_select(HostCryptoMode mode) {
  static __thread char why[160]; /* the message returned */
  uint32_t have = host_cpu_detect() & HOST_CPU_CRYPTO;
  switch (mode) {
  case HOST_CRYPTO_AUTO:
    host_crypto_accel = have;
    break;
  case HOST_CRYPTO_NATIVE:
    if (have != HOST_CPU_CRYPTO) {
      bool no_aes = !(have & HOST_CPU_AES), no_clmul = !(have & HOST_CPU_CLMUL);
      snprintf(why, sizeof why, "host crypto 'native': no %s%s%s on this host (%s)",
               no_aes ? HOST_AES_NAME : "", no_aes && no_clmul ? " and no " : "",
               no_clmul ? HOST_CLMUL_NAME : "", HOST_CRYPTO_ARCH);
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

/* snprintf at the end of the text so far; *len counts the whole text, as snprintf does,
 * even where it no longer fits. */
__attribute__((format(printf, 4, 5))) static void append(char *buf, size_t size, size_t *len,
                                                          const char *format, ...) {
  va_list args;
  va_start(args, format);
  int n = *len < size ? vsnprintf(buf + *len, size - *len, format, args)
                      : vsnprintf(NULL, 0, format, args);
  va_end(args);
  *len += n > 0 ? (size_t)n : 0;
}

int host_crypto_describe(char *buf, size_t size) {
  static const struct {
    const char *instruction, *primitive;
    uint32_t feature;
  } rows[] = {
      {"AESENC", "aes_SB_SR_MC_AK", HOST_CPU_AES},
      {"AESENCLAST", "aes_SB_SR_AK", HOST_CPU_AES},
      {"AESDEC", "aes_ISB_ISR_IMC_AK", HOST_CPU_AES},
      {"AESDECLAST", "aes_ISB_ISR_AK", HOST_CPU_AES},
      {"AESIMC", "aes_IMC", HOST_CPU_AES},
      {"AESKEYGENASSIST", "aes_keygen_assist", HOST_CPU_AES},
      {"PCLMULQDQ", "clmul_64x64", HOST_CPU_CLMUL},
  };
  size_t len = 0;
  append(buf, size, &len, "host crypto (%s):\n", mode_names[current_mode]);
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    uint32_t f = rows[i].feature;
    const char *name = f == HOST_CPU_AES ? HOST_AES_NAME : HOST_CLMUL_NAME;
    append(buf, size, &len, "  %-16s %-19s ", rows[i].instruction, rows[i].primitive);
    switch (host_crypto_tier(f)) {
    case HOST_CRYPTO_TIER_COMPILED:
      append(buf, size, &len, "%s, compiled in\n", name);
      break;
    case HOST_CRYPTO_TIER_DETECTED:
      append(buf, size, &len, "%s, detected at start-up\n", name);
      break;
    case HOST_CRYPTO_TIER_PORTABLE:
      if (host_cpu_features & f)
        append(buf, size, &len, "portable C (the host has %s)\n", name);
      else
        append(buf, size, &len, "portable C\n");
      break;
    }
  }
  return (int)len;
}
