/* test_seed.h: the seed of a randomised test, the same on every run unless asked:
 * X64EMU_DIFF_SEED is a number, or "random" for a new one from the clock; without it the
 * test's fixed seed. Every failure report ends with reproduce lines built from it. */
#ifndef X64EMU_TEST_SEED_H
#define X64EMU_TEST_SEED_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* `arg` (a command-line --seed) wins over X64EMU_DIFF_SEED. Never 0 (the generators
 * would stall). */
static inline uint64_t test_seed_from(const char *arg, uint64_t fixed) {
  const char *v = arg && *arg ? arg : getenv("X64EMU_DIFF_SEED");
  uint64_t seed = fixed;
  if (v && *v && strcmp(v, "random") != 0) {
    seed = strtoull(v, NULL, 0);
  } else if (v && *v) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    seed = ((uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec) * 0x9e3779b97f4a7c15ull ^
           (uint64_t)getpid();
  }
  return seed ? seed : 1;
}

static inline uint64_t test_seed(uint64_t fixed) { return test_seed_from(NULL, fixed); }

/* The tests' generator (xorshift64*): the next number from *state. */
static inline uint64_t test_random(uint64_t *state) {
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return *state * 0x2545F4914F6CDD1Dull;
}

/* Cases per test: X64EMU_DIFF_ITER, or the test's default. */
static inline unsigned test_iterations(unsigned fallback) {
  const char *s = getenv("X64EMU_DIFF_ITER");
  return s && *s ? (unsigned)strtoul(s, NULL, 0) : fallback;
}

/* "  reproduce: X64EMU_DIFF_SEED=S [X64EMU_DIFF_ITER=N] [X64EMU_TEST_HOST_VENDOR=V] "
 * without a newline: the caller adds the program and its arguments. */
static inline void test_print_reproduce_env(FILE *out, uint64_t seed) {
  fprintf(out, "  reproduce: X64EMU_DIFF_SEED=%#" PRIx64 " ", seed);
  const char *iter = getenv("X64EMU_DIFF_ITER"), *vendor = getenv("X64EMU_TEST_HOST_VENDOR");
  if (iter && *iter) fprintf(out, "X64EMU_DIFF_ITER=%s ", iter);
  if (vendor && *vendor) fprintf(out, "X64EMU_TEST_HOST_VENDOR=%s ", vendor);
}

/* The whole line, for a test program that takes no arguments. */
static inline void test_print_reproduce(FILE *out, uint64_t seed) {
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  self[n > 0 ? n : 0] = 0;
  test_print_reproduce_env(out, seed);
  fprintf(out, "%s\n", n > 0 ? self : "(this test)");
}

#endif
