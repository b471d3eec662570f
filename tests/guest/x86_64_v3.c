/* x86_64_v3.c: ordinary C built with -O3 -march=x86-64-v3, so that the compiler
 * vectorizes its loops with AVX2 and contracts a * b + c into FMA: float and double
 * reductions, integer min/max/select, widening and narrowing, a byte histogram,
 * conversions, libm (whose FMA variants glibc picks) and the AVX2 string functions. It
 * must print what it prints natively. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 1027 }; /* not a multiple of the vector width: the loops' tails run too */

static float fa[N], fb[N], fc[N];
static double da[N], db[N];
static int32_t ia[N], ib[N];
static int16_t sh[N];
static uint8_t bytes[4 * N];

static int cmp_int(const void *x, const void *y) {
  int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
  return (a > b) - (a < b);
}

int main(void) {
  for (int i = 0; i < N; i++) {
    fa[i] = (float)i * 0.5f - 100.0f;
    fb[i] = 1.0f / (float)(i + 1);
    da[i] = sqrt((double)i) * 1.25;
    db[i] = (double)(i % 17) - 8.5;
    ia[i] = i * 7919 % 1000 - 500;
    ib[i] = (i * 13) % 97 - 40;
  }
  for (int i = 0; i < N; i++) fc[i] = fa[i] * fb[i] + fc[i] * 0.25f; /* FMA */
  float fdot = 0;
  for (int i = 0; i < N; i++) fdot += fa[i] * fc[i];
  double ddot = 0, dsum = 0;
  for (int i = 0; i < N; i++) ddot = fma(da[i], db[i], ddot);
  for (int i = 0; i < N; i++) dsum += floor(da[i]) + ceil(db[i] / 3.0);
  printf("float dot %.9g, double dot %.17g, sum %.17g\n", fdot, ddot, dsum);

  long select = 0;
  int32_t mn = ia[0], mx = ia[0];
  for (int i = 0; i < N; i++) {
    select += ia[i] > ib[i] ? (long)ia[i] * ib[i] : ib[i] - ia[i];
    mn = ia[i] < mn ? ia[i] : mn;
    mx = ia[i] > mx ? ia[i] : mx;
  }
  for (int i = 0; i < N; i++) sh[i] = (int16_t)(ia[i] * 3 >> 1);
  long wide = 0;
  for (int i = 0; i < N; i++) wide += sh[i] * (long)sh[N - 1 - i];
  printf("select %ld, min %d, max %d, widened %ld\n", select, mn, mx, wide);

  for (int i = 0; i < 4 * N; i++) bytes[i] = (uint8_t)(i * 31 + (i >> 3));
  unsigned hist[256] = {0}, h = 0;
  for (int i = 0; i < 4 * N; i++) hist[bytes[i]]++;
  for (int i = 0; i < 256; i++) h = h * 31 + hist[i];
  uint32_t mix = 0;
  for (int i = 0; i < 4 * N; i += 4) mix ^= (uint32_t)bytes[i] << 24 | (uint32_t)bytes[i + 1] << 16 | (uint32_t)bytes[i + 2] << 8 | bytes[i + 3];
  printf("histogram hash %u, word mix %08x\n", h, mix);

  int32_t conv[N];
  for (int i = 0; i < N; i++) conv[i] = (int32_t)lrintf(fc[i] * 1000.0f);
  qsort(conv, N, sizeof *conv, cmp_int);
  long csum = 0;
  for (int i = 0; i < N; i += 101) csum += conv[i];
  float fmaxabs = 0;
  for (int i = 0; i < N; i++) fmaxabs = fmaxf(fmaxabs, fabsf(fa[i] - fb[i]));
  printf("converted %ld, max |a-b| %.9g\n", csum, fmaxabs);

  printf("libm: %.9g %.9g %.9g %.17g %.17g %.17g\n", expf(1.5f), logf(3.0f), sinf(0.5f), exp(0.75),
         log1p(0.001), atan2(1.0, 3.0));

  char text[600];
  for (int i = 0; i < (int)sizeof text - 1; i++) text[i] = (char)('a' + i % 26);
  text[sizeof text - 1] = 0;
  const char *z = memchr(text, 'z', sizeof text);
  printf("strings: strlen %zu, strchr %td, memchr %td, strcmp %d\n", strlen(text),
         strchr(text + 100, 'q') - text, z - text, strcmp(text, text + 26) != 0);
  return 0;
}
