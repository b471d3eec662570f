/* printf_float.c: floating-point formatting, parsing and a little libm (SSE2 and x87 paths). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* volatile keeps the compiler from folding the conversions at build time. */
static volatile double dvals[] = {
    0.0, -0.0, 1.0, -1.0, 0.1, 0.5, 1.5, 2.5, 3.14159265358979323846, 2.718281828459045,
    1e-300, 1e300, 123456789.123456789, -987654.321, 1.0 / 3.0, 2.0 / 3.0, 1e-5, 1e15,
    1e16, 1e22, 1e23, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 0.3,
    9007199254740993.0, 4.35, 0.125, 1024.0, 65535.5, 1e-7, 6.02214076e23};

static void print_double(double d) {
  printf("%%f=%f %%.0f=%.0f %%.3f=%.3f %%e=%e %%.10e=%.10e %%g=%g %%.17g=%.17g %%a=%a\n", d, d,
         d, d, d, d, d, d);
  printf("  %%12.4f=[%12.4f] %%-12.2e=[%-12.2e] %%+g=%+g %% g=% g %%#g=%#g %%G=%G %%E=%E\n", d,
         d, d, d, d, d, d);
}

static void print_special(void) {
  volatile double zero = 0.0;
  double inf = 1.0 / zero, nan_v = zero / zero;
  printf("inf: %f %e %g %a %F %E %G\n", inf, inf, inf, inf, inf, inf, inf);
  printf("-inf: %f %e %g %a\n", -inf, -inf, -inf, -inf);
  printf("nan: %f %e %g %F\n", fabs(nan_v), fabs(nan_v), fabs(nan_v), fabs(nan_v));
  printf("-nan: %f\n", -fabs(nan_v));
  printf("isnan=%d isinf=%d isfinite=%d signbit(-0.0)=%d\n", isnan(nan_v), isinf(-inf),
         isfinite(1.0), signbit(-zero) != 0);
  printf("fpclassify: %d %d %d %d %d\n", fpclassify(0.0), fpclassify(5e-324), fpclassify(1.0),
         fpclassify(inf), fpclassify(nan_v));
  printf("DBL_MAX=%a DBL_MIN=%a DBL_EPSILON=%a FLT_MAX=%a\n", DBL_MAX, DBL_MIN, DBL_EPSILON,
         (double)FLT_MAX);
}

static void print_float_and_long_double(void) {
  volatile float fv[] = {0.1f, 1.0f / 3.0f, 16777217.0f, 3.4e38f, 1e-45f, -2.5f};
  for (unsigned i = 0; i < sizeof fv / sizeof fv[0]; i++)
    printf("float %.9g %a %f\n", fv[i], fv[i], fv[i]);
  volatile long double lv[] = {0.1L, 1.0L / 3.0L, 3.14159265358979323846264338327950288L,
                               1e4000L, -1e-4000L, 18446744073709551615.0L, 0.0L};
  for (unsigned i = 0; i < sizeof lv / sizeof lv[0]; i++)
    printf("long double %%Lf=%Lf %%.20Lg=%.20Lg %%Le=%Le %%La=%La\n", lv[i], lv[i], lv[i],
           lv[i]);
  long double x = 1.0L;
  for (int i = 0; i < 70; i++) x = x * 3.0L / 2.0L + 0.25L;
  printf("long double loop: %.25Lg\n", x);
  printf("long double sqrtl(2)=%.21Lg\n", sqrtl(2.0L));
}

static void strtod_round_trips(void) {
  const char *inputs[] = {"0",        "1e-400",     "4.9e-324",          "2.4703282292062327e-324",
                          "0.1",      "123.456e7",  "1.7976931348623158e308", "1e309",
                          "-0x1.8p3", "  42abc",    "nan",                 "-inf",
                          "infinity", "3.14159265358979323846264338327950288419716939937510",
                          "0.000000000000000000000000000001", "9007199254740993"};
  for (unsigned i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
    char *end;
    double d = strtod(inputs[i], &end);
    printf("strtod(\"%s\") = %.17g (%a), consumed %d\n", inputs[i], d, d,
           (int)(end - inputs[i]));
  }
  /* Every %.17g output must read back to the same bits. */
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  int bad = 0;
  uint64_t bits_sum = 0;
  for (int i = 0; i < 2000; i++) {
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    uint64_t bits = seed & ~(0x7ffull << 52);
    bits |= (uint64_t)(1 + (i % 2046)) << 52;
    double d;
    memcpy(&d, &bits, sizeof d);
    char buf[64];
    snprintf(buf, sizeof buf, "%.17g", d);
    double back = strtod(buf, NULL);
    uint64_t back_bits;
    memcpy(&back_bits, &back, sizeof back);
    if (back_bits != bits) bad++;
    for (char *p = buf; *p; p++) bits_sum = bits_sum * 31 + (unsigned char)*p;
  }
  printf("round trips: %d mismatches, text hash %016llx\n", bad, (unsigned long long)bits_sum);
  float f = strtof("1.17549435e-38", NULL);
  long double ld = strtold("1.18973149535723176502e+4932", NULL);
  printf("strtof=%a strtold=%La\n", f, ld);
}

static int int_or_minus1(double d) {
  return d > -2147483649.0 && d < 2147483648.0 ? (int)d : -1;
}

static void conversions(void) {
  volatile double d[] = {2.5, -2.5, 3.5, 1e10, -1e10, 4294967295.9, -0.9, 9.2e18, 1.8e19};
  for (unsigned i = 0; i < sizeof d / sizeof d[0]; i++) {
    double x = d[i];
    printf("conv %g: (int)=%d (long)=%ld (unsigned long)=%lu rint=%g lrint=%ld round=%g "
           "floor=%g ceil=%g trunc=%g\n",
           x, int_or_minus1(x), x < 9.2233e18 ? (long)x : 0l, x >= 0 ? (unsigned long)x : 0ul,
           rint(x), x < 9.2233e18 ? lrint(x) : 0l, round(x), floor(x), ceil(x), trunc(x));
  }
  volatile long l = -123456789012345;
  volatile unsigned long u = 18446744073709551615ul;
  printf("long->double %.17g ulong->double %.17g ulong->float %.9g\n", (double)l, (double)u,
         (float)u);
  volatile float f = 1.1f;
  printf("float->double %.17g double->float %.9g\n", (double)f, (float)(double)f);
  /* The sign and payload of a generated NaN are the CPU's "default NaN". */
  volatile double zero = 0.0;
  double qnan = zero / zero;
  uint64_t bits;
  memcpy(&bits, &qnan, sizeof bits);
  printf("0/0 bits %016llx\n", (unsigned long long)bits);
}

/* libm results are printed to 12 digits: glibc picks FMA variants where the CPU has
 * them, and those may differ from the SSE2 ones in the last bit. sqrt is exact. */
static void libm(void) {
  volatile double xs[] = {0.5, 1.0, 2.0, 3.0, 10.0, 0.001, 100.25, -1.5};
  for (unsigned i = 0; i < sizeof xs / sizeof xs[0]; i++) {
    double x = xs[i];
    printf("x=%g sin=%.12g cos=%.12g tan=%.12g exp=%.12g log=%.12g pow(x,2.5)=%.12g "
           "sqrt=%.17g atan=%.12g fmod(x,0.3)=%.17g\n",
           x, sin(x), cos(x), tan(x), exp(x), log(fabs(x)), pow(fabs(x), 2.5), sqrt(fabs(x)),
           atan(x), fmod(x, 0.3));
  }
  printf("pow(2,0.5)=%.12g exp(-745)=%.6g log(0)=%g sqrt(-1) is nan=%d hypot=%.17g\n",
         pow(2, 0.5), exp(-745.0), log(0.0), isnan(sqrt(-1.0)), hypot(3.0, 4.0));
  printf("ldexp=%a frexp mantissa=%g modf frac=%g\n", ldexp(1.0, -1074), frexp(48.0, &(int){0}),
         modf(3.75, &(double){0}));
}

int main(void) {
  for (unsigned i = 0; i < sizeof dvals / sizeof dvals[0]; i++) print_double(dvals[i]);
  print_special();
  print_float_and_long_double();
  strtod_round_trips();
  conversions();
  libm();
  return 0;
}
