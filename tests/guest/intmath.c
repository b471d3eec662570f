/* intmath.c: integer arithmetic the compiler turns into the interesting instructions:
 * 128-bit multiply and divide, overflow checks, bit counts, rotates, byte swaps, shifts
 * by every count, and signed/unsigned division of every sign. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

static uint64_t state = 0x2545f4914f6cdd1dull;
static uint64_t next(void) {
  state ^= state << 13, state ^= state >> 7, state ^= state << 17;
  return state;
}

static uint64_t hash = 14695981039346656037ull;
static void fold(uint64_t v) { hash = (hash ^ v) * 1099511628211ull; }

static void section(const char *name) {
  printf("%-16s %016" PRIx64 "\n", name, hash);
  hash = 14695981039346656037ull;
}

/* Edge values mixed with random ones. */
static uint64_t operand(int i) {
  static const uint64_t edges[] = {0, 1, 2, 3, 7, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff,
                                   0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ull,
                                   0x7fffffffffffffffull, 0x8000000000000000ull,
                                   0xffffffffffffffffull, 0xfffffffffffffffeull};
  const int n = sizeof edges / sizeof edges[0];
  return i < n ? edges[i] : next() >> (next() % 64);
}

int main(void) {
  enum { N = 120 };
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j += 3) {
      uint64_t a = operand(i), b = operand(j);
      fold(a + b), fold(a - b), fold(a * b), fold(a & b), fold(a | b), fold(a ^ b);
      fold((int64_t)a < (int64_t)b), fold(a < b), fold((uint32_t)a * (uint32_t)b);
      fold((uint64_t)(int64_t)(int32_t)a * (int64_t)(int16_t)b), fold((uint8_t)a + (uint8_t)b);
    }
  section("add/sub/mul/logic");

  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j += 2) {
      uint64_t a = operand(i), b = operand(j);
      if (b) {
        fold(a / b), fold(a % b);
        if ((uint32_t)b) fold((uint32_t)a / (uint32_t)b), fold((uint32_t)a % (uint32_t)b);
        if (!((int64_t)a == INT64_MIN && (int64_t)b == -1))
          fold((uint64_t)((int64_t)a / (int64_t)b)), fold((uint64_t)((int64_t)a % (int64_t)b));
        if ((int32_t)b && !((int32_t)a == INT32_MIN && (int32_t)b == -1))
          fold((uint64_t)((int32_t)a / (int32_t)b)), fold((uint64_t)((int32_t)a % (int32_t)b));
        if ((uint16_t)b) fold((uint16_t)a / (uint16_t)b);
        if ((int8_t)b && !((int8_t)a == INT8_MIN && (int8_t)b == -1)) fold((int8_t)a / (int8_t)b);
      }
    }
  section("div/mod");

  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j += 5) {
      unsigned __int128 a = (unsigned __int128)operand(i) << 64 | operand(N - 1 - i);
      unsigned __int128 b = (unsigned __int128)operand(j) << (next() % 64) | operand(j / 2);
      unsigned __int128 p = a * b;
      fold((uint64_t)p), fold((uint64_t)(p >> 64));
      if (b) {
        unsigned __int128 q = a / b, r = a % b;
        fold((uint64_t)q), fold((uint64_t)(q >> 64)), fold((uint64_t)r), fold((uint64_t)(r >> 64));
        __int128 sa = (__int128)a, sb = (__int128)b;
        if (!(sb == -1 && sa == (__int128)((unsigned __int128)1 << 127))) {
          __int128 sq = sa / sb;
          fold((uint64_t)sq), fold((uint64_t)((unsigned __int128)sq >> 64));
        }
      }
      unsigned __int128 full = (unsigned __int128)operand(i) * operand(j);
      fold((uint64_t)(full >> 64));
      __int128 sfull = (__int128)(int64_t)operand(i) * (int64_t)operand(j);
      fold((uint64_t)((unsigned __int128)sfull >> 64));
    }
  section("128-bit");

  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j += 7) {
      uint64_t a = operand(i), b = operand(j), r;
      int64_t sr;
      fold(__builtin_add_overflow(a, b, &r)), fold(r);
      fold(__builtin_sub_overflow(a, b, &r)), fold(r);
      fold(__builtin_mul_overflow(a, b, &r)), fold(r);
      fold(__builtin_add_overflow((int64_t)a, (int64_t)b, &sr)), fold((uint64_t)sr);
      fold(__builtin_mul_overflow((int64_t)a, (int64_t)b, &sr)), fold((uint64_t)sr);
      int32_t r32;
      fold(__builtin_mul_overflow((int32_t)a, (int32_t)b, &r32)), fold((uint32_t)r32);
    }
  section("overflow checks");

  for (int i = 0; i < 400; i++) {
    uint64_t a = operand(i);
    fold(__builtin_popcountll(a)), fold(__builtin_popcount((uint32_t)a));
    fold(__builtin_parityll(a));
    if (a) fold(__builtin_ctzll(a)), fold(__builtin_clzll(a));
    if ((uint32_t)a) fold(__builtin_ctz((uint32_t)a)), fold(__builtin_clz((uint32_t)a));
    fold(__builtin_ffsll((int64_t)a)), fold(__builtin_clrsbll((int64_t)a));
    fold(__builtin_bswap64(a)), fold(__builtin_bswap32((uint32_t)a)), fold(__builtin_bswap16((uint16_t)a));
  }
  section("bit counts/bswap");

  for (int i = 0; i < 200; i++) {
    uint64_t a = operand(i);
    for (unsigned s = 0; s < 64; s++) {
      fold(a << s), fold(a >> s), fold((uint64_t)((int64_t)a >> s));
      fold((a << s) | (a >> ((64 - s) & 63))), fold((a >> s) | (a << ((64 - s) & 63)));
      uint32_t w = (uint32_t)a;
      unsigned s32 = s & 31;
      fold(w << s32), fold(w >> s32), fold((uint32_t)((int32_t)w >> s32));
      fold((w << s32) | (w >> ((32 - s32) & 31)));
      uint16_t h = (uint16_t)a;
      fold((uint16_t)(h << (s & 15))), fold((uint16_t)(h >> (s & 15)));
      fold((uint8_t)((uint8_t)a >> (s & 7))), fold((uint8_t)((int8_t)a >> (s & 7)));
    }
  }
  section("shifts/rotates");

  int64_t acc = 0;
  for (int i = 0; i < 2000; i++) {
    int64_t a = (int64_t)operand(i % 150), b = (int64_t)operand((i * 7) % 150);
    acc += a > b ? a - b : b - a;
    acc ^= a < 0 ? -a : a;
    acc += (a & 1) ? (int8_t)a : (int16_t)b;
    acc = acc * 3 + (uint32_t)(a >> 32);
    fold((uint64_t)acc), fold((uint64_t)(a < b) - (a > b));
    fold((uint64_t)(int64_t)(int32_t)(a + b)), fold((uint64_t)(uint16_t)(a - b));
  }
  section("branches/cmov");
  return 0;
}
