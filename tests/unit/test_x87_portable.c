/* test_x87_portable.c: the portable x87 tier (C and <fenv.h>, for hosts without an x87)
 * against the host tier, primitive by primitive, and the portable 80-bit conversions
 * against the host's own format. Where the portable tier is documented to differ (C1
 * after arithmetic, transcendental precision) the test says how far and checks a bound.
 * X64EMU_DIFF_ITER sets the cases per primitive (default 3000). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "interp/x87.h"
#include "interp/x87_host.h"
#include "test_seed.h"

static uint64_t rng_state = 0x5EED87ull;
static uint64_t rnd(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545F4914F6CDD1Dull;
}
static unsigned rnd_below(unsigned n) { return (unsigned)(rnd() % n); }

static unsigned iterations(void) {
  const char *s = getenv("X64EMU_DIFF_ITER");
  return s ? (unsigned)strtoul(s, NULL, 0) : 3000;
}

static long double make(uint64_t mant, unsigned sign_exp) {
  uint8_t b[10];
  memcpy(b, &mant, 8);
  b[8] = (uint8_t)sign_exp;
  b[9] = (uint8_t)(sign_exp >> 8);
  long double v = 0;
  memcpy(&v, b, 10);
  return v;
}

static bool same_bits(long double a, long double b) { return memcmp(&a, &b, 10) == 0; }

/* Valid encodings only: zero, denormal, normal, infinity, QNaN, SNaN. */
static long double random_value(int max_exp_spread) {
  unsigned sign = rnd_below(2) ? 0x8000 : 0;
  uint64_t r = rnd();
  switch (rnd_below(12)) {
  case 0: return make(0, sign);
  case 1: return make(r >> (1 + rnd_below(63)), sign);
  case 2: return make(1ull << 63, sign | 0x7FFF);
  case 3: return make((3ull << 62) | (r >> 2 & -(uint64_t)rnd_below(2)), sign | 0x7FFF);
  case 4: return make((1ull << 63) | (r >> 2) | 1, sign | 0x7FFF);
  case 5: return make(r | 1ull << 63, sign | (1 + rnd_below(0x7FFE)));
  case 6: return (long double)(int)(rnd_below(41) - 20) * (rnd_below(2) ? 0.5L : 1.0L);
  default:
    return make(r | 1ull << 63, sign | (unsigned)(0x3FFF - max_exp_spread +
                                                  (int)rnd_below(2 * max_exp_spread + 1)));
  }
}

static void print_ld(const char *label, long double v) {
  uint8_t b[10];
  memcpy(b, &v, 10);
  uint64_t m;
  memcpy(&m, b, 8);
  printf(" %s=%04x:%016llx", label, b[8] | b[9] << 8, (unsigned long long)m);
}

/* ---- the 80-bit conversions ---- */

static void test_ext80_portable_matches_host(void **state) {
  unsigned n = iterations() * 20, bad = 0;
  for (unsigned i = 0; i < n && bad < 5; i++) {
    long double v = random_value(40);
    uint8_t host[10], port[10];
    memcpy(host, &v, 10);
    x87_to_ext80_portable(v, port);
    long double back = x87_from_ext80_portable(host);
    if (memcmp(host, port, 10) || !same_bits(back, v)) {
      printf("ext80 conversion of");
      print_ld("v", v);
      print_ld("from_portable", back);
      printf("\n");
      bad++;
    }
  }
  assert_int_equal(bad, 0);
}

/* ---- arithmetic, compares, loads, stores: exact ---- */

static uint16_t random_cw(void) { return (uint16_t)(0x037F | rnd_below(4) << X87_RC_SHIFT); }

/* Arithmetic defines the exception flags and C1 ("rounded up"), which the portable tier
 * leaves 0; C0, C2, C3 are unchanged (the host tier returns whatever the host had). */
enum { EXACT_BITS = X87_EXC };

static bool check(const char *what, bool ok, long double a, long double b, uint16_t cw,
                  uint16_t native_sw, uint16_t portable_sw) {
  if (ok) return true;
  printf("%s cw=%04x:", what, cw);
  print_ld("a", a);
  print_ld("b", b);
  printf(" sw native %04x portable %04x\n", native_sw, portable_sw);
  return false;
}

static void test_arith_exact(void **state) {
  static const unsigned ops[] = {X87_ADD, X87_MUL, X87_SUB, X87_SUBR, X87_DIV, X87_DIVR};
  unsigned n = iterations(), bad = 0;
  for (unsigned k = 0; k < 6; k++) {
    for (unsigned i = 0; i < n && bad < 10; i++) {
      long double a = random_value(20), b = random_value(20), rn = a, rp = a;
      uint16_t cw = random_cw();
      uint16_t sn = x87_native_arith(ops[k], &rn, b, cw),
               sp = x87_portable_arith(ops[k], &rp, b, cw);
      bad += !check("arith", same_bits(rn, rp) && !((sn ^ sp) & EXACT_BITS), a, b, cw, sn, sp);
      float f;
      uint32_t fb = (uint32_t)rnd();
      memcpy(&f, &fb, 4);
      rn = rp = a;
      sn = x87_native_arith_f32(ops[k], &rn, f, cw);
      sp = x87_portable_arith_f32(ops[k], &rp, f, cw);
      bad += !check("arith_f32", same_bits(rn, rp) && !((sn ^ sp) & EXACT_BITS), a, f, cw, sn, sp);
      double d;
      uint64_t db = rnd();
      memcpy(&d, &db, 8);
      rn = rp = a;
      sn = x87_native_arith_f64(ops[k], &rn, d, cw);
      sp = x87_portable_arith_f64(ops[k], &rp, d, cw);
      bad += !check("arith_f64", same_bits(rn, rp) && !((sn ^ sp) & EXACT_BITS), a, d, cw, sn, sp);
    }
  }
  assert_int_equal(bad, 0);
}

static void test_compare_exact(void **state) {
  unsigned n = iterations(), bad = 0;
  uint16_t cw = X87_CW_DEFAULT;
  for (unsigned i = 0; i < n && bad < 10; i++) {
    long double a = random_value(3), b = rnd_below(4) ? random_value(3) : a;
    bool quiet = rnd_below(2);
    uint16_t sn = x87_native_compare(a, b, quiet, cw), sp = x87_portable_compare(a, b, quiet, cw);
    bad += !check("compare", !((sn ^ sp) & (EXACT_BITS | X87_C1)), a, b, cw, sn, sp);
    float f = (float)b;
    sn = x87_native_compare_f32(a, f, cw);
    sp = x87_portable_compare_f32(a, f, cw);
    bad += !check("compare_f32", !((sn ^ sp) & (EXACT_BITS | X87_C1)), a, f, cw, sn, sp);
    double d = (double)b;
    sn = x87_native_compare_f64(a, d, cw);
    sp = x87_portable_compare_f64(a, d, cw);
    bad += !check("compare_f64", !((sn ^ sp) & (EXACT_BITS | X87_C1)), a, d, cw, sn, sp);
    sn = x87_native_test(a, cw);
    sp = x87_portable_test(a, cw);
    bad += !check("test", !((sn ^ sp) & (EXACT_BITS | X87_C1)), a, 0, cw, sn, sp);
    sn = x87_native_examine(a);
    sp = x87_portable_examine(a);
    bad += !check("examine", !((sn ^ sp) & X87_CC), a, 0, cw, sn, sp);
  }
  assert_int_equal(bad, 0);
}

static void test_load_store_exact(void **state) {
  unsigned n = iterations(), bad = 0;
  for (unsigned i = 0; i < n && bad < 10; i++) {
    uint16_t cw = random_cw();
    long double a = random_value(rnd_below(2) ? 200 : 16400), rn = 0, rp = 0;
    uint32_t fb = (uint32_t)rnd();
    uint64_t db = rnd();
    float f;
    double d;
    memcpy(&f, &fb, 4);
    memcpy(&d, &db, 8);
    uint16_t sn = x87_native_load_f32(&rn, f, cw), sp = x87_portable_load_f32(&rp, f, cw);
    bad += !check("load_f32", same_bits(rn, rp) && !((sn ^ sp) & (X87_EXC | X87_C1)), f, 0, cw, sn,
                  sp);
    sn = x87_native_load_f64(&rn, d, cw);
    sp = x87_portable_load_f64(&rp, d, cw);
    bad += !check("load_f64", same_bits(rn, rp) && !((sn ^ sp) & (X87_EXC | X87_C1)), d, 0, cw, sn,
                  sp);
    float fn = 0, fp = 0;
    sn = x87_native_store_f32(&fn, a, cw);
    sp = x87_portable_store_f32(&fp, a, cw);
    bad += !check("store_f32", !memcmp(&fn, &fp, 4) && !((sn ^ sp) & (X87_EXC | X87_C1)), a, 0, cw,
                  sn, sp);
    double dn = 0, dp = 0;
    sn = x87_native_store_f64(&dn, a, cw);
    sp = x87_portable_store_f64(&dp, a, cw);
    bad += !check("store_f64", !memcmp(&dn, &dp, 8) && !((sn ^ sp) & (X87_EXC | X87_C1)), a, 0, cw,
                  sn, sp);
  }
  assert_int_equal(bad, 0);
}

static long double random_int_like(void) {
  int bits = 1 + (int)rnd_below(66);
  long double v = (long double)(rnd() >> (64 - (bits > 64 ? 64 : bits))) * (bits > 64 ? 4 : 1);
  static const long double fractions[] = {0, 0.5L, 0.25L, 0.75L, 0x1p-40L};
  v += fractions[rnd_below(5)];
  if (rnd_below(8) == 0) v = random_value(70);
  return rnd_below(2) ? -v : v;
}

static void test_integer_exact(void **state) {
  unsigned n = iterations(), bad = 0;
  for (unsigned i = 0; i < n && bad < 10; i++) {
    uint16_t cw = random_cw();
    long double a = random_int_like();
    bool trunc = rnd_below(2);
    int16_t hn = 0, hp = 0;
    int32_t wn = 0, wp = 0;
    int64_t qn = 0, qp = 0;
    uint16_t sn = x87_native_store_i16(&hn, a, cw, trunc),
             sp = x87_portable_store_i16(&hp, a, cw, trunc);
    bad += !check("store_i16", hn == hp && !((sn ^ sp) & (X87_EXC | X87_C1)), a, trunc, cw, sn, sp);
    sn = x87_native_store_i32(&wn, a, cw, trunc);
    sp = x87_portable_store_i32(&wp, a, cw, trunc);
    bad += !check("store_i32", wn == wp && !((sn ^ sp) & (X87_EXC | X87_C1)), a, trunc, cw, sn, sp);
    sn = x87_native_store_i64(&qn, a, cw, trunc);
    sp = x87_portable_store_i64(&qp, a, cw, trunc);
    bad += !check("store_i64", qn == qp && !((sn ^ sp) & (X87_EXC | X87_C1)), a, trunc, cw, sn, sp);
    long double rn = a, rp = a;
    sn = x87_native_unary(X87_FRNDINT, &rn, cw);
    sp = x87_portable_unary(X87_FRNDINT, &rp, cw);
    bad +=
        !check("frndint", same_bits(rn, rp) && !((sn ^ sp) & (X87_EXC | X87_C1)), a, 0, cw, sn, sp);
  }
  assert_int_equal(bad, 0);
}

static void test_constants_exact(void **state) {
  unsigned bad = 0;
  for (unsigned op = X87_FLD1; op <= X87_FLDZ; op++) {
    for (unsigned rc = 0; rc < 4; rc++) {
      uint16_t cw = (uint16_t)(0x037F | rc << X87_RC_SHIFT);
      long double rn = 0, rp = 0;
      uint16_t sn = x87_native_constant(op, &rn, cw), sp = x87_portable_constant(op, &rp, cw);
      bad += !check("constant", same_bits(rn, rp) && !((sn ^ sp) & (X87_EXC | X87_C1)),
                    (long double)op, rc, cw, sn, sp);
    }
  }
  assert_int_equal(bad, 0);
}

static void test_sqrt_scale_extract_exact(void **state) {
  unsigned n = iterations(), bad = 0;
  for (unsigned i = 0; i < n && bad < 10; i++) {
    uint16_t cw = random_cw();
    long double a = random_value(rnd_below(2) ? 30 : 16000);
    long double rn = a, rp = a;
    uint16_t sn = x87_native_unary(X87_FSQRT, &rn, cw), sp = x87_portable_unary(X87_FSQRT, &rp, cw);
    bad += !check("fsqrt", same_bits(rn, rp) && !((sn ^ sp) & X87_EXC), a, 0, cw, sn, sp);
    long double s = rnd_below(3)
                        ? (long double)((int)rnd_below(200) - 100) + (rnd_below(2) ? 0.5L : 0)
                        : random_value(20);
    rn = rp = a;
    sn = x87_native_binary(X87_FSCALE, &rn, s, cw);
    sp = x87_portable_binary(X87_FSCALE, &rp, s, cw);
    bad += !check("fscale", same_bits(rn, rp) && !((sn ^ sp) & X87_EXC), a, s, cw, sn, sp);
    long double pn = 0, pp = 0;
    rn = rp = a;
    sn = x87_native_split(X87_FXTRACT, &rn, &pn, cw);
    sp = x87_portable_split(X87_FXTRACT, &rp, &pp, cw);
    bad += !check("fxtract", same_bits(rn, rp) && same_bits(pn, pp) && !((sn ^ sp) & X87_EXC), a, 0,
                  cw, sn, sp);
  }
  assert_int_equal(bad, 0);
}

/* FPREM/FPREM1: the remainder and quotient bits are exact when the exponents are close;
 * far apart, both tiers give a partial remainder (C2) that a loop finishes the same way. */
static void test_prem(void **state) {
  unsigned n = iterations(), bad = 0;
  for (unsigned i = 0; i < n && bad < 10; i++) {
    bool ieee = rnd_below(2);
    unsigned op = ieee ? X87_FPREM1 : X87_FPREM;
    long double a = random_value(rnd_below(4) ? 30 : 2000), b = random_value(30);
    long double rn = a, rp = a;
    uint16_t sn = 0, sp = 0;
    for (int k = 0; k < 600; k++) {
      sn = x87_native_binary(op, &rn, b, X87_CW_DEFAULT);
      if (!(sn & X87_C2)) break;
    }
    for (int k = 0; k < 600; k++) {
      sp = x87_portable_binary(op, &rp, b, X87_CW_DEFAULT);
      if (!(sp & X87_C2)) break;
    }
    uint16_t mask = X87_IE | X87_ZE | X87_C2 | (isnan(rn) ? 0 : X87_C0 | X87_C1 | X87_C3);
    bad += !check(ieee ? "fprem1" : "fprem", same_bits(rn, rp) && !((sn ^ sp) & mask), a, b,
                  X87_CW_DEFAULT, sn, sp);
  }
  assert_int_equal(bad, 0);
}

/* Transcendental operations: the C library against the CPU's microcode. */
static long double ulps(long double a, long double b) {
  if (isnan(a) && isnan(b)) return 0;
  if (same_bits(a, b) || (isnan(a) && isnan(b))) return 0;
  if (isnan(a) || isnan(b) || isinf(a) || isinf(b)) return INFINITY;
  long double scale = fmaxl(fabsl(a), fabsl(b));
  if (scale < 0x1p-16000L) return fabsl(a - b) / 0x1p-16445L;
  return fabsl(a - b) / ldexpl(1, ilogbl(scale) - 63);
}

typedef struct Worst {
  const char *name;
  long double max_ulps;
} Worst;

static void note(Worst *w, long double u) {
  if (u > w->max_ulps) w->max_ulps = u;
}

/* FSIN, FCOS and FPTAN reduce their argument by a 66-bit pi (exact to about 2^-66 * |x|
 * absolute), the C library by an exact one: the difference is measured in units of 2^-63
 * absolute, allowing |x| * 2^-3 of them for the CPU's reduction. The others are measured
 * in units of the last place of the result. */
static long double trig_units(long double x, long double a, long double b) {
  if (isnan(a) && isnan(b)) return 0;
  return fabsl(a - b) / 0x1p-63L / fmaxl(1, fabsl(x) * 0x1p-3L);
}

static void test_transcendental_close(void **state) {
  unsigned n = iterations();
  Worst sin_w = {"fsin", 0}, cos_w = {"fcos", 0}, tan_w = {"fptan", 0}, f2_w = {"f2xm1", 0},
        yl_w = {"fyl2x", 0}, yp_w = {"fyl2xp1", 0}, at_w = {"fpatan", 0};
  unsigned c2_mismatch = 0;
  for (unsigned i = 0; i < n; i++) {
    long double x =
        make(rnd() | 1ull << 63, (rnd_below(2) ? 0x8000 : 0) | (0x3FFF - 30 + rnd_below(50)));
    long double rn = x, rp = x, pn = 0, pp = 0;
    uint16_t sn = x87_native_unary(X87_FSIN, &rn, X87_CW_DEFAULT);
    uint16_t sp = x87_portable_unary(X87_FSIN, &rp, X87_CW_DEFAULT);
    c2_mismatch += ((sn ^ sp) & X87_C2) != 0;
    note(&sin_w, trig_units(x, rn, rp));
    rn = rp = x;
    x87_native_unary(X87_FCOS, &rn, X87_CW_DEFAULT);
    x87_portable_unary(X87_FCOS, &rp, X87_CW_DEFAULT);
    note(&cos_w, trig_units(x, rn, rp));
    /* tan: relative, away from its poles. */
    long double t =
        make(rnd() | 1ull << 63, (rnd_below(2) ? 0x8000 : 0) | (0x3FFE - rnd_below(30)));
    rn = rp = t;
    x87_native_split(X87_FPTAN, &rn, &pn, X87_CW_DEFAULT);
    x87_portable_split(X87_FPTAN, &rp, &pp, X87_CW_DEFAULT);
    note(&tan_w, ulps(rn, rp));
    long double u =
        make(rnd() | 1ull << 63, (rnd_below(2) ? 0x8000 : 0) | (0x3FFE - rnd_below(40)));
    rn = rp = u;
    x87_native_unary(X87_F2XM1, &rn, X87_CW_DEFAULT);
    x87_portable_unary(X87_F2XM1, &rp, X87_CW_DEFAULT);
    note(&f2_w, ulps(rn, rp));
    long double pos = fabsl(make(rnd() | 1ull << 63, 0x3FFF - 200 + rnd_below(400)));
    long double y =
        make(rnd() | 1ull << 63, (rnd_below(2) ? 0x8000 : 0) | (0x3FFF - 5 + rnd_below(10)));
    x87_native_binary_pop(X87_FYL2X, &rn, pos, y, X87_CW_DEFAULT);
    x87_portable_binary_pop(X87_FYL2X, &rp, pos, y, X87_CW_DEFAULT);
    note(&yl_w, ulps(rn, rp));
    long double small =
        make(rnd() | 1ull << 63, (rnd_below(2) ? 0x8000 : 0) | (0x3FFD - rnd_below(40)));
    x87_native_binary_pop(X87_FYL2XP1, &rn, small, y, X87_CW_DEFAULT);
    x87_portable_binary_pop(X87_FYL2XP1, &rp, small, y, X87_CW_DEFAULT);
    note(&yp_w, ulps(rn, rp));
    x87_native_binary_pop(X87_FPATAN, &rn, x, y, X87_CW_DEFAULT);
    x87_portable_binary_pop(X87_FPATAN, &rp, x, y, X87_CW_DEFAULT);
    note(&at_w, ulps(rn, rp));
  }
  const Worst *all[] = {&sin_w, &cos_w, &tan_w, &f2_w, &yl_w, &yp_w, &at_w};
  printf("portable tier, largest difference from the CPU (see test_transcendental_close):\n");
  for (unsigned k = 0; k < 7; k++) printf("  %-8s %.1Lf\n", all[k]->name, all[k]->max_ulps);
  assert_int_equal(c2_mismatch, 0);
  for (unsigned k = 0; k < 7; k++) assert_true(all[k]->max_ulps <= 16);
}

int main(void) {
  rng_state = test_seed(rng_state);
  printf("every case below depends only on the seed; a failure is reproduced by\n");
  test_print_reproduce(stdout, rng_state);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ext80_portable_matches_host),
      cmocka_unit_test(test_arith_exact),
      cmocka_unit_test(test_compare_exact),
      cmocka_unit_test(test_load_store_exact),
      cmocka_unit_test(test_integer_exact),
      cmocka_unit_test(test_constants_exact),
      cmocka_unit_test(test_sqrt_scale_extract_exact),
      cmocka_unit_test(test_prem),
      cmocka_unit_test(test_transcendental_close),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
