/* x87_ext80.c: the x87 80-bit extended format to and from any host long double, in
 * portable C (x86-64 uses copies instead; tests check that both agree). */
#define _GNU_SOURCE /* getpayloadl, setpayloadl, setpayloadsigl, issignaling */
#include <float.h>
#include <math.h>

#include "x87.h"

enum { EXT80_BIAS = 16383, EXT80_EXP_MAX = 0x7FFF };
#define INT_BIT (1ull << 63)   /* the explicit integer bit of the significand */
#define QUIET_BIT (1ull << 62)
#define PAYLOAD_BITS (QUIET_BIT - 1)

static uint64_t get64(const uint8_t *b) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | b[i];
  return v;
}

static void put64(uint8_t *b, uint64_t v) {
  for (int i = 0; i < 8; i++, v >>= 8) b[i] = (uint8_t)v;
}

/* NaN payloads stay aligned to the top of the fraction, as a hardware conversion
 * between formats keeps them (the x87 compares NaN significands from the top). */
static long double nan_from_ext80(uint64_t mant) {
  long double v = 0, payload = ldexpl((long double)(mant & PAYLOAD_BITS), LDBL_MANT_DIG - 64);
  payload = truncl(payload);
  if (mant & QUIET_BIT) setpayloadl(&v, payload);
  else if (setpayloadsigl(&v, payload == 0 ? 1 : payload)) setpayloadl(&v, payload);
  return v;
}

long double x87_from_ext80_portable(const void *p) {
  const uint8_t *b = p;
  uint64_t mant = get64(b);
  unsigned se = (unsigned)(b[8] | b[9] << 8), exp = se & EXT80_EXP_MAX;
  long double v;
  if (exp == EXT80_EXP_MAX) v = (mant & ~INT_BIT) ? nan_from_ext80(mant) : INFINITY;
  else if (exp == 0) v = ldexpl((long double)mant, 1 - EXT80_BIAS - 63);
  else v = ldexpl((long double)mant, (int)exp - EXT80_BIAS - 63);
  return (se & 0x8000) ? -v : v;
}

static uint64_t nan_to_ext80(long double v) {
  long double payload = truncl(ldexpl(getpayloadl(&v), 64 - LDBL_MANT_DIG));
  uint64_t bits = (uint64_t)payload & PAYLOAD_BITS;
  if (issignaling(v)) return INT_BIT | (bits ? bits : 1);
  return INT_BIT | QUIET_BIT | bits;
}

void x87_to_ext80_portable(long double v, void *p) {
  uint8_t *b = p;
  uint64_t mant = 0;
  unsigned exp = 0;
  switch (fpclassify(v)) {
  case FP_NAN:
    mant = nan_to_ext80(v);
    exp = EXT80_EXP_MAX;
    break;
  case FP_INFINITE:
    mant = INT_BIT;
    exp = EXT80_EXP_MAX;
    break;
  case FP_ZERO: break;
  default: {
    /* Hosts with a wider significand round to 64 bits, to nearest. */
    long double a = fabsl(v);
    int e;
    frexpl(a, &e); /* a = m * 2^e, m in [0.5, 1): the leading bit has exponent e - 1 */
    int biased = e - 1 + EXT80_BIAS;
    if (biased >= 1) {
      long double m = rintl(ldexpl(a, 64 - e));
      if (m >= 0x1p64L) {
        m = 0x1p63L;
        biased++;
      }
      if (biased >= EXT80_EXP_MAX) {
        mant = INT_BIT;
        exp = EXT80_EXP_MAX;
      } else {
        mant = (uint64_t)m;
        exp = (unsigned)biased;
      }
    } else {
      /* Denormal: units of 2^-16445; rounding up to 2^63 gives the smallest normal. */
      mant = (uint64_t)rintl(ldexpl(a, EXT80_BIAS - 1 + 63));
      exp = (mant & INT_BIT) ? 1 : 0;
    }
    break;
  }
  }
  put64(b, mant);
  unsigned se = exp | (signbit(v) ? 0x8000u : 0);
  b[8] = (uint8_t)se;
  b[9] = (uint8_t)(se >> 8);
}
