/* x87_harness.h: what the x87 tests share: random 80-bit values of every class, integer
 * and float operands, and host memory to run instruction bytes from. */
#ifndef X64EMU_TEST_X87_HARNESS_H
#define X64EMU_TEST_X87_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "test_seed.h"

/* ---- random values ---- */

#define X87_DEFAULT_SEED 0x87C0FFEE12345ull
static uint64_t seed_used = X87_DEFAULT_SEED, rng_state = X87_DEFAULT_SEED;
/* Whether register values include the encodings the x87 no longer supports (unnormals,
 * pseudo-NaNs and pseudo-infinities). */
static bool gen_unsupported = true;

/* X64EMU_DIFF_SEED overrides the fixed seed (test_seed.h). */
static inline void seed_from_env(void) {
  rng_state = seed_used = test_seed(X87_DEFAULT_SEED);
  if (getenv("X64EMU_DIFF_SEED")) printf("seed %#llx\n", (unsigned long long)seed_used);
}

static inline uint64_t rnd(void) {
  return test_random(&rng_state);
}
static inline unsigned rnd_below(unsigned n) { return (unsigned)(rnd() % n); }

static inline unsigned iterations(void) { return test_iterations(3000); }

static inline void put_ext80(uint8_t *b, uint64_t mant, unsigned sign_exp) {
  memcpy(b, &mant, 8);
  b[8] = (uint8_t)sign_exp;
  b[9] = (uint8_t)(sign_exp >> 8);
}

static inline void ld_bytes(long double v, uint8_t *b) { memcpy(b, &v, 10); }

/* Register value domains: ANY mixes everything; INT is near integers and the integer
 * formats' limits; UNIT is [-1, 1] (F2XM1); NEAR is moderate magnitudes. */
enum Domain { D_ANY, D_INT, D_UNIT, D_NEAR };

static inline void gen_special(uint8_t *b) {
  unsigned sign = rnd_below(2) ? 0x8000 : 0;
  uint64_t r = rnd();
  switch (rnd_below(14)) {
  case 0: put_ext80(b, 0, sign); break;                   /* zero */
  case 1: put_ext80(b, 1ull << 63, sign | 0x7FFF); break; /* inf */
  case 2: put_ext80(b, (3ull << 62) | (r >> 2 & -(uint64_t)rnd_below(2)), sign | 0x7FFF); break;
  case 3: put_ext80(b, (1ull << 63) | ((r >> 2) | 1), sign | 0x7FFF); break;    /* SNaN */
  case 4: put_ext80(b, 3ull << 62, 0xFFFF); break;                              /* indefinite */
  case 5: put_ext80(b, r >> (1 + rnd_below(63)), sign); break;                  /* denormal */
  case 6: put_ext80(b, 1ull << 63, sign | 1); break;                            /* min normal */
  case 7: put_ext80(b, ~0ull, sign | 0x7FFE); break;                            /* max */
  case 8: put_ext80(b, r | 1ull << 63, sign | (0x7FFE - rnd_below(64))); break; /* huge */
  case 9: put_ext80(b, r | 1ull << 63, sign | (1 + rnd_below(64))); break;      /* tiny */
  case 10: ld_bytes(sign ? -1.0L : 1.0L, b); break;
  case 11: ld_bytes((long double)(int)(rnd_below(9) - 4), b); break;
  case 12: ld_bytes(sign ? -0.5L : 0.5L, b); break;
  default:
    put_ext80(b, (1ull << 63) | (r >> (rnd_below(2) ? 0 : 40)), sign | (0x3FFF + rnd_below(128)));
    break;
  }
}

static inline void gen_int_like(uint8_t *b) {
  int bits = 1 + (int)rnd_below(66);
  uint64_t m = rnd() >> (64 - (bits > 64 ? 64 : bits));
  long double v = (long double)m;
  if (bits > 64) v *= 4;
  switch (rnd_below(6)) {
  case 0: v += 0.5L; break;
  case 1: v -= 0.5L; break;
  case 2: v += (long double)(rnd() >> 11) * 0x1p-53L; break;
  case 3: {
    static const long double edges[] = {0x1p15L, 0x1p31L, 0x1p63L, 1e18L,
                                        0x1p16L, 0x1p32L, 0x1p64L};
    v = edges[rnd_below(7)] + (long double)((int)rnd_below(5) - 2) * (rnd_below(2) ? 0.5L : 1.0L);
    break;
  }
  default: break;
  }
  if (rnd_below(2)) v = -v;
  ld_bytes(v, b);
}

static inline void gen_ext80(uint8_t *b, enum Domain d) {
  unsigned r = rnd_below(100);
  unsigned sign = rnd_below(2) ? 0x8000 : 0;
  if (d == D_INT && r < 70) return gen_int_like(b);
  if (d == D_UNIT && r < 80) {
    put_ext80(b, rnd() | 1ull << 63, sign | (0x3FFE - rnd_below(rnd_below(4) ? 20 : 70)));
    return;
  }
  if (d == D_NEAR && r < 80) {
    put_ext80(b, rnd() | 1ull << 63, sign | (0x3FFF - 40 + rnd_below(80)));
    return;
  }
  if (r < 2 && gen_unsupported) { /* unsupported encodings: unnormals, pseudo-NaN/infinity */
    put_ext80(b, rnd() >> 1, sign | (rnd_below(2) ? 0x7FFF : rnd_below(0x7FFF)));
    return;
  }
  if (r < 25)
    gen_special(b);
  else if (r < 55)
    put_ext80(b, rnd() | 1ull << 63, sign | (0x3FFF - 12 + rnd_below(25)));
  else if (r < 70)
    put_ext80(b, rnd() | 1ull << 63, sign | (1 + rnd_below(0x7FFE)));
  else if (r < 85)
    gen_int_like(b);
  else if (r < 92)
    ld_bytes((long double)(float)((float)(rnd() >> 40) * 0x1p-12f * (sign ? -1 : 1)), b);
  else
    ld_bytes((long double)(double)((double)(rnd() >> 11) * 0x1p-30 * (sign ? -1 : 1)), b);
}

static inline uint32_t gen_f32(void) {
  uint32_t s = rnd_below(2) ? 0x80000000u : 0, r = (uint32_t)rnd();
  switch (rnd_below(10)) {
  case 0: return s;
  case 1: return s | 0x7F800000u;
  case 2: return s | 0x7FC00000u | (r & 0x3FFFFF);
  case 3: return s | 0x7F800000u | ((r & 0x3FFFFF) | 1);
  case 4: return s | (r & 0x7FFFFF);
  case 5: return s | (0x3F000000u + (r & 0x01FFFFFF));
  default: return r;
  }
}

static inline uint64_t gen_f64(void) {
  uint64_t s = rnd_below(2) ? 1ull << 63 : 0, r = rnd();
  switch (rnd_below(10)) {
  case 0: return s;
  case 1: return s | 0x7FF0000000000000ull;
  case 2: return s | 0x7FF8000000000000ull | (r & 0x7FFFFFFFFFFFFull);
  case 3: return s | 0x7FF0000000000000ull | ((r & 0x7FFFFFFFFFFFFull) | 1);
  case 4: return s | (r & 0xFFFFFFFFFFFFFull);
  case 5: return s | (0x3FE0000000000000ull + (r & 0x003FFFFFFFFFFFFFull));
  default: return r;
  }
}

static inline uint64_t gen_int(unsigned size) {
  uint64_t r = rnd();
  switch (rnd_below(5)) {
  case 0: return 1ull << (size * 8 - 1);       /* most negative */
  case 1: return (1ull << (size * 8 - 1)) - 1; /* most positive */
  case 2: return (uint64_t)(int64_t)((int)rnd_below(21) - 10);
  case 3: return r >> rnd_below(64);
  default: return r;
  }
}

static inline uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t get32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

static inline void dump_ext80(const char *label, const uint8_t *b) {
  uint64_t m;
  memcpy(&m, b, 8);
  printf("%s %04x:%016llx", label, get16(b + 8), (unsigned long long)m);
}

/* A page the tests write instruction bytes to and run natively. */
static inline uint8_t *exec_page(void) {
  void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
                 -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

#endif
