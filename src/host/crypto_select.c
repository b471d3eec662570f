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

/* The host's name for one HOST_CPU_* feature, and whether the build targets it. */
static const char *feature_name(uint32_t feature) {
  return feature == HOST_CPU_AES     ? HOST_AES_NAME
         : feature == HOST_CPU_CLMUL ? HOST_CLMUL_NAME
         : feature == HOST_CPU_SHA   ? HOST_SHA_NAME
                                     : HOST_SHUFFLE_NAME;
}

static bool feature_compiled(uint32_t feature) {
  return feature == HOST_CPU_AES     ? HOST_AES_COMPILED
         : feature == HOST_CPU_CLMUL ? HOST_CLMUL_COMPILED
         : feature == HOST_CPU_SHA   ? HOST_SHA_COMPILED
                                     : HOST_SHUFFLE_COMPILED;
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

/* "no A", "no A or B", "no A, B or C": the features the host lacks. */
static void append_missing(char *buf, size_t size, size_t *len, uint32_t have) {
  static const uint32_t features[] = {HOST_CPU_AES, HOST_CPU_CLMUL, HOST_CPU_SHA,
                                      HOST_CPU_SHUFFLE};
  enum { N_FEATURES = sizeof features / sizeof *features };
  int missing = 0, listed = 0;
  for (int i = 0; i < N_FEATURES; i++)
    missing += !(have & features[i]);
  append(buf, size, len, "no");
  for (int i = 0; i < N_FEATURES; i++)
    if (!(have & features[i])) {
      listed++;
      const char *sep = listed == 1 ? " " : listed < missing ? ", " : " or ";
      append(buf, size, len, "%s%s", sep, feature_name(features[i]));
    }
}

const char *host_crypto_select(HostCryptoMode mode) {
  static __thread char why[256]; /* the message returned */
  uint32_t have = host_cpu_detect() & HOST_CPU_CRYPTO;
  switch (mode) {
  case HOST_CRYPTO_AUTO:
    host_crypto_accel = have;
    break;
  case HOST_CRYPTO_NATIVE:
    if (have != HOST_CPU_CRYPTO) {
      size_t len = 0;
      append(why, sizeof why, &len, "host crypto 'native': ");
      append_missing(why, sizeof why, &len, have);
      append(why, sizeof why, &len, " on this host (%s)", HOST_CRYPTO_ARCH);
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
  return feature_compiled(feature) ? HOST_CRYPTO_TIER_COMPILED : HOST_CRYPTO_TIER_DETECTED;
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
      {"SHA1RNDS4", "sha1_rnds4", HOST_CPU_SHA},
      {"SHA1NEXTE", "sha1_nexte", HOST_CPU_SHA},
      {"SHA1MSG1", "sha1_msg1", HOST_CPU_SHA},
      {"SHA1MSG2", "sha1_msg2", HOST_CPU_SHA},
      {"SHA256RNDS2", "sha256_rnds2", HOST_CPU_SHA},
      {"SHA256MSG1", "sha256_msg1", HOST_CPU_SHA},
      {"SHA256MSG2", "sha256_msg2", HOST_CPU_SHA},
      {"PSHUFB PSHUFD", "byte_shuffle", HOST_CPU_SHUFFLE},
      {"PSLLDQ PSRLDQ", "byte_shuffle", HOST_CPU_SHUFFLE},
      {"PALIGNR", "byte_shuffle_pair", HOST_CPU_SHUFFLE},
  };
  size_t len = 0;
  append(buf, size, &len, "host crypto (%s):\n", mode_names[current_mode]);
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    uint32_t f = rows[i].feature;
    const char *name = feature_name(f);
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
