/* cpu_model.h: whether the host CPU behaves as x64emu's CPU model, for the tests that use
 * the host as their oracle. The model is Intel's behaviour (docs/cpu-model.md). On a host
 * of another vendor, the cases that table lists are judged by the model's rule instead of
 * the host; X64EMU_TEST_HOST_VENDOR=AuthenticAMD makes an Intel host take that path too,
 * and there each rule is also checked against the CPU, which is the model's vendor. */
#ifndef X64EMU_TEST_CPU_MODEL_H
#define X64EMU_TEST_CPU_MODEL_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MODEL_VENDOR "GenuineIntel"

/* The host's CPUID vendor string ("?" on hosts that are not x86-64). */
static inline const char *cpu_model_real_vendor(void) {
  static char vendor[13];
  if (!vendor[0]) {
#ifdef __x86_64__
    unsigned a = 0, b, c, d;
    __asm__("cpuid" : "+a"(a), "=b"(b), "=c"(c), "=d"(d));
    memcpy(vendor, &b, 4);
    memcpy(vendor + 4, &d, 4);
    memcpy(vendor + 8, &c, 4);
#else
    vendor[0] = '?';
#endif
  }
  return vendor;
}

/* The vendor the tests take the host for: X64EMU_TEST_HOST_VENDOR, or the real one. */
static inline const char *cpu_model_host_vendor(void) {
  const char *forced = getenv("X64EMU_TEST_HOST_VENDOR");
  return forced && *forced ? forced : cpu_model_real_vendor();
}

/* True when the host's results are the model's on every case of the table. Asked once
 * per case, so the answer is kept: neither the CPU nor the environment changes. */
static inline bool host_follows_model(void) {
  static int follows = -1;
  if (follows < 0) follows = strcmp(cpu_model_host_vendor(), MODEL_VENDOR) == 0;
  return follows;
}

/* True when the tests judge by the model's rules but the CPU is the model's vendor: each
 * rule's result can then be held against the CPU's own. */
static inline bool cpu_model_rules_checkable(void) {
  return !host_follows_model() && strcmp(cpu_model_real_vendor(), MODEL_VENDOR) == 0;
}

/* One line for the test's output: which vendor's path it took. */
static inline void cpu_model_print_path(FILE *out, const char *test) {
  if (host_follows_model())
    fprintf(out, "%s: host %s follows the CPU model: every case is judged by the host\n", test,
            cpu_model_real_vendor());
  else
    fprintf(out, "%s: host taken as %s (CPUID says %s): the cases of docs/cpu-model.md are "
            "judged by the model's rules%s\n", test, cpu_model_host_vendor(),
            cpu_model_real_vendor(),
            cpu_model_rules_checkable() ? ", and each rule is checked against this CPU" : "");
}

#endif
