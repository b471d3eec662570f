/* crypto_guest.h: what the guest crypto tests (test_aes_guest.c, test_sha_guest.c) share:
 * the host crypto tiers each test runs through, and calling compiled x86-64 code inside
 * the interpreter (guest_call.h). Include after sse_harness.h. */
#ifndef X64EMU_TEST_CRYPTO_GUEST_H
#define X64EMU_TEST_CRYPTO_GUEST_H

#include "host/host_crypto.h"
#include "interp/cpuid.h"
#include "interp/run.h"
#include "guest_call.h"

/* The tiers: portable C always, the host's instructions when it has them all. */
static HostCryptoMode tiers[2];
static unsigned n_tiers;
static const char *tier_name = "?";

static int setup(void **state) {
  harness_init();
  n_tiers = 0;
  tiers[n_tiers++] = HOST_CRYPTO_PORTABLE;
  const char *why = host_crypto_select(HOST_CRYPTO_NATIVE);
  if (why == NULL) tiers[n_tiers++] = HOST_CRYPTO_NATIVE;
  else print_message("%s: portable tier only\n", why);
  host_crypto_select(HOST_CRYPTO_AUTO);
  return 0;
}

static int teardown(void **state) {
  host_crypto_select(HOST_CRYPTO_AUTO);
  cpuid_reset_features(&test_machine()->model);
  return 0;
}

static void use_tier(unsigned t) {
  const char *why = host_crypto_select(tiers[t]);
  if (why) fail_msg("%s", why);
  tier_name = tiers[t] == HOST_CRYPTO_PORTABLE ? "portable" : "native";
}

/* Calls fn(a0, a1, a2, a3, a4) inside the interpreter (guest_call.h). */
__attribute__((unused)) static void interpret(void *fn, uint64_t a0, uint64_t a1, uint64_t a2,
                                              uint64_t a3, uint64_t a4) {
  assert_true(guest_call(fn, a0, a1, a2, a3, a4) > 5);
}

/* Whether an instruction decodes (to len bytes) under the test machine's CPU model. */
__attribute__((unused)) static bool decodes(const uint8_t *insn, unsigned len) {
  uint8_t code[16];
  memset(code, 0x90, sizeof code);
  memcpy(code, insn, len);
  Insn in;
  uint64_t fault_at;
  return decode_insn(&test_machine()->dec, (uint64_t)(uintptr_t)code, &in, &fault_at) == (int)len;
}

#endif
