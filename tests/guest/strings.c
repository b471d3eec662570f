/* strings.c: glibc's string functions (SSE2/SSE4 paths) over many lengths and alignments,
 * each result checked against a plain byte loop and folded into a printed hash.
 * Built with -fno-tree-loop-distribute-patterns so the byte loops stay byte loops. */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wchar.h>

static const size_t lengths[] = {0,   1,   2,   3,   4,   5,   6,   7,   8,   9,   10,  11,  12,
                                 13,  14,  15,  16,  17,  18,  19,  20,  23,  24,  25,  31,  32,
                                 33,  39,  40,  47,  48,  49,  55,  63,  64,  65,  79,  80,  95,
                                 96,  97,  127, 128, 129, 191, 255, 256, 257, 500, 1023, 4096, 5000};
#define NLEN (sizeof lengths / sizeof lengths[0])
#define BUF 12288

static unsigned char *src_buf, *dst_buf, *ref_buf;
static uint64_t hash = 1469598103934665603ull;
static long cases, mismatches;
static const char *current;

static void fold(uint64_t v) {
  for (int i = 0; i < 8; i++) hash = (hash ^ ((v >> (i * 8)) & 0xff)) * 1099511628211ull;
}

static void check(int ok, size_t len, size_t a, size_t b) {
  cases++;
  if (!ok && ++mismatches <= 5)
    printf("  MISMATCH %s len %zu align %zu/%zu\n", current, len, a, b);
}

static void begin(const char *name) {
  current = name;
  cases = mismatches = 0;
  hash = 1469598103934665603ull;
}

static void end(void) { printf("%-12s %6ld cases, %ld mismatches, hash %016llx\n", current, cases, mismatches, (unsigned long long)hash); }

static uint32_t rng_state = 12345;
static unsigned char next_byte(void) {
  rng_state = rng_state * 1103515245 + 12345;
  return (unsigned char)(rng_state >> 16);
}

/* Non-zero bytes, so that strings end only where we put a NUL. */
static void fill(unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = 1 + next_byte() % 255;
}

static int sign(int v) { return (v > 0) - (v < 0); }

static void test_memcpy_memmove_memset(void) {
  begin("memcpy");
  for (size_t l = 0; l < NLEN; l++)
    for (size_t sa = 0; sa < 16; sa++)
      for (size_t da = 0; da < 16; da += 3) {
        size_t n = lengths[l];
        if (n > BUF - 128) abort(); /* tells the compiler the copy is bounded */
        fill(src_buf, n + 64);
        memset(dst_buf, 0xaa, n + 64);
        void *r = memcpy(dst_buf + da, src_buf + sa, n);
        int ok = r == dst_buf + da;
        for (size_t i = 0; i < n + 64; i++) {
          unsigned char want = i >= da && i < da + n ? src_buf[sa + i - da] : 0xaa;
          ok &= dst_buf[i] == want;
        }
        fold(dst_buf[da + n / 2]);
        check(ok, n, sa, da);
      }
  end();

  begin("memmove");
  for (size_t l = 0; l < NLEN; l++)
    for (int shift = -17; shift <= 17; shift += 2) {
      size_t n = lengths[l], base = 64;
      fill(src_buf, n + 128);
      memcpy(ref_buf, src_buf, n + 128);
      /* Reference: through a temporary, as the definition says. */
      static unsigned char tmp[BUF];
      for (size_t i = 0; i < n; i++) tmp[i] = ref_buf[base + i];
      for (size_t i = 0; i < n; i++) ref_buf[base + shift + i] = tmp[i];
      void *r = memmove(src_buf + base + shift, src_buf + base, n);
      int ok = r == src_buf + base + shift;
      for (size_t i = 0; i < n + 128; i++) ok &= src_buf[i] == ref_buf[i];
      fold(src_buf[base + shift + n / 3]);
      check(ok, n, base, (size_t)(shift + 17));
    }
  end();

  begin("memset");
  for (size_t l = 0; l < NLEN; l++)
    for (size_t a = 0; a < 16; a++) {
      size_t n = lengths[l];
      memset(dst_buf, 0x55, n + 64);
      int c = 0x100 + (int)n; /* memset uses only the low byte */
      memset(dst_buf + a, c, n);
      int ok = 1;
      for (size_t i = 0; i < n + 64; i++)
        ok &= dst_buf[i] == (i >= a && i < a + n ? (unsigned char)c : 0x55);
      fold(dst_buf[a]);
      check(ok, n, a, 0);
    }
  end();
}

static size_t ref_strlen(const char *s) {
  size_t n = 0;
  while (s[n]) n++;
  return n;
}

static void test_search(void) {
  begin("strlen");
  for (size_t l = 0; l < NLEN; l++)
    for (size_t a = 0; a < 16; a++) {
      size_t n = lengths[l];
      char *s = (char *)src_buf + a;
      fill((unsigned char *)s, n);
      s[n] = 0;
      s[n + 1] = 'x';
      size_t got = strlen(s);
      fold(got);
      check(got == ref_strlen(s) && strnlen(s, n / 2) == n / 2 && strnlen(s, n + 5) == n, n, a, 0);
    }
  end();

  begin("strchr");
  for (size_t l = 0; l < NLEN; l++)
    for (size_t a = 0; a < 16; a++) {
      size_t n = lengths[l];
      char *s = (char *)src_buf + a;
      fill((unsigned char *)s, n);
      s[n] = 0;
      int c = n ? (unsigned char)s[n - 1 - (n * 7) % n] : 'z';
      char *first = NULL, *last = NULL;
      for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] == c) {
          if (!first) first = s + i;
          last = s + i;
        }
      char *got = strchr(s, c), *got_r = strrchr(s, c);
      void *got_m = memchr(s, c, n), *got_mr = memrchr(s, c, n);
      int ok = got == first && got_r == last && got_m == first && got_mr == last;
      ok &= strchr(s, 0) == s + n && rawmemchr(s, 0) == s + n && strchrnul(s, c) == (first ? first : s + n);
      fold(got ? (uint64_t)(got - s) : 99999);
      fold(got_r ? (uint64_t)(got_r - s) : 99999);
      check(ok, n, a, 0);
    }
  end();

  begin("strstr");
  for (size_t l = 0; l < NLEN; l++)
    for (size_t a = 0; a < 16; a += 5)
      for (size_t nl = 1; nl < 20; nl += 3) {
        size_t n = lengths[l];
        char *s = (char *)src_buf + a;
        for (size_t i = 0; i < n; i++) s[i] = 'a' + next_byte() % 3;
        s[n] = 0;
        char needle[32];
        size_t from = n > nl ? next_byte() % (n - nl + 1) : 0;
        for (size_t i = 0; i < nl; i++) needle[i] = from + i < n ? s[from + i] : 'a';
        needle[nl] = 0;
        char *want = NULL;
        for (size_t i = 0; i + nl <= n && !want; i++) {
          size_t j = 0;
          while (j < nl && s[i + j] == needle[j]) j++;
          if (j == nl) want = s + i;
        }
        char *got = strstr(s, needle);
        void *got_m = memmem(s, n, needle, nl);
        fold(got ? (uint64_t)(got - s) : 99999);
        check(got == want && got_m == want, n, a, nl);
      }
  end();

  begin("strspn");
  for (size_t l = 0; l < NLEN; l++) {
    size_t n = lengths[l];
    char *s = (char *)src_buf + 3;
    for (size_t i = 0; i < n; i++) s[i] = "abcdefgh"[next_byte() % 8];
    s[n] = 0;
    const char *accept = "abcdefg", *reject = "h";
    size_t want = 0;
    while (want < n && s[want] != 'h') want++;
    size_t got = strspn(s, accept), got_c = strcspn(s, reject);
    char *brk = strpbrk(s, reject);
    fold(got), fold(got_c);
    check(got == want && got_c == want && brk == (want < n ? s + want : NULL), n, 3, 0);
  }
  end();
}

static void test_compare(void) {
  begin("strcmp");
  for (size_t l = 0; l < NLEN; l++)
    for (size_t a = 0; a < 16; a += 3)
      for (size_t b = 0; b < 16; b += 5)
        for (int where = 0; where < 3; where++) {
          size_t n = lengths[l];
          char *x = (char *)src_buf + a, *y = (char *)dst_buf + b;
          fill((unsigned char *)x, n);
          memcpy(y, x, n);
          x[n] = y[n] = 0;
          /* Equal, or differing at one position in the first half, or at the last byte. */
          size_t pos = where == 1 ? n / 2 : n - 1;
          if (where && n) y[pos] = (char)(x[pos] == (char)0xff ? 1 : x[pos] + 1);
          int want = 0;
          for (size_t i = 0; i < n; i++)
            if (x[i] != y[i]) {
              want = (unsigned char)x[i] < (unsigned char)y[i] ? -1 : 1;
              break;
            }
          int got = sign(strcmp(x, y)), got_m = sign(memcmp(x, y, n));
          int got_n = sign(strncmp(x, y, n)), got_b = sign(bcmp(x, y, n) ? 1 : 0);
          fold((uint64_t)(got + 1) | (uint64_t)(got_m + 1) << 2);
          check(got == want && got_m == want && got_n == want && got_b == (want != 0), n, a, b);
        }
  end();

  begin("strcasecmp");
  for (size_t l = 0; l < NLEN; l++) {
    size_t n = lengths[l];
    char *x = (char *)src_buf, *y = (char *)dst_buf + 1;
    for (size_t i = 0; i < n; i++) {
      x[i] = 'a' + next_byte() % 26;
      y[i] = i % 2 ? toupper(x[i]) : x[i];
    }
    x[n] = y[n] = 0;
    int ok = strcasecmp(x, y) == 0 && strncasecmp(x, y, n) == 0;
    if (n) {
      y[n - 1] = '[';
      ok &= strcasecmp(x, y) > 0; /* every letter sorts above '[' once lowered */
    }
    fold(ok);
    check(ok, n, 0, 1);
  }
  end();
}

static void test_copy(void) {
  begin("strcpy");
  for (size_t l = 0; l < NLEN; l++)
    for (size_t a = 0; a < 16; a += 2)
      for (size_t b = 0; b < 16; b += 7) {
        size_t n = lengths[l];
        char *s = (char *)src_buf + a, *d = (char *)dst_buf + b;
        fill((unsigned char *)s, n);
        s[n] = 0;
        memset(dst_buf, 0x7f, n + 64);
        char *r = strcpy(d, s);
        int ok = r == d && memcmp(d, s, n + 1) == 0 && (unsigned char)d[n + 1] == 0x7f;
        ok &= stpcpy(d, s) == d + n;
        memset(d, 'z', n + 20);
        strncpy(d, s, n + 10);
        for (size_t i = n; i < n + 10; i++) ok &= d[i] == 0;
        ok &= d[n + 10] == 'z';
        d[0] = 0;
        strcat(strcat(d, s), "!");
        ok &= strlen(d) == n + 1 && d[n] == '!';
        fold(d[n / 2]);
        check(ok, n, a, b);
      }
  end();

  begin("strdup");
  for (size_t l = 0; l < NLEN; l++) {
    size_t n = lengths[l];
    char *s = (char *)src_buf + 5;
    fill((unsigned char *)s, n);
    s[n] = 0;
    char *d = strdup(s), *dn = strndup(s, n / 2);
    int ok = d && strcmp(d, s) == 0 && strlen(dn) == n / 2 && memcmp(dn, s, n / 2) == 0;
    fold(ok);
    free(d), free(dn);
    check(ok, n, 5, 0);
  }
  end();
}

/* glibc reads whole aligned vectors; a string that ends right before an inaccessible
 * page must still be handled without a fault. */
static void test_page_end(void) {
  begin("page end");
  long page = sysconf(_SC_PAGESIZE);
  unsigned char *map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  mprotect(map + page, page, PROT_NONE);
  for (size_t n = 0; n < 80; n++) {
    char *s = (char *)map + page - n - 1;
    memset(s, 'q', n);
    s[n] = 0;
    int ok = strlen(s) == n && strchr(s, 'r') == NULL && strrchr(s, 'q') == (n ? s + n - 1 : NULL);
    ok &= memchr(s, 'r', n) == NULL && strcmp(s, s) == 0 && memcmp(s, s, n) == 0;
    char *copy = (char *)dst_buf;
    strcpy(copy, s);
    ok &= strcmp(copy, s) == 0 && strnlen(s, 1000) == n;
    fold(ok);
    check(ok, n, 0, 0);
  }
  munmap(map, 2 * page);
  end();
}

static void test_wide_and_conversions(void) {
  begin("wide");
  wchar_t w[600];
  for (size_t l = 0; l < NLEN && lengths[l] < 599; l++) {
    size_t n = lengths[l];
    wmemset(w, L'x', n);
    w[n] = 0;
    int ok = wcslen(w) == n && (n == 0 || wcschr(w, L'x') == w) && wcschr(w, L'y') == NULL;
    fold(wcslen(w));
    check(ok, n, 0, 0);
  }
  end();

  printf("numbers:\n");
  const char *inputs[] = {"0", "-1", "2147483647", "-2147483648", "9223372036854775807",
                          "-9223372036854775808", "18446744073709551615", "0x7fffFFFF", "0777",
                          "  +42xyz", "1e5", "99999999999999999999999", "-0", "z"};
  for (unsigned i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
    char *end_l, *end_u;
    long v = strtol(inputs[i], &end_l, 0);
    unsigned long u = strtoul(inputs[i], &end_u, 0);
    long b36 = strtol(inputs[i], NULL, 36);
    printf("  strtol(\"%s\",0)=%ld used %d, strtoul=%lu used %d, base36=%ld, atoi=%d\n",
           inputs[i], v, (int)(end_l - inputs[i]), u, (int)(end_u - inputs[i]), b36,
           atoi(inputs[i]));
  }
  char buf[256];
  int n = snprintf(buf, sizeof buf, "[%5d|%-5d|%05d|%+d|%x|%X|%#x|%o|%lld|%llu|%hhd|%hd|%zu|%s|%.3s|%10.4s|%c|%%]",
                   42, 42, 42, 42, 255, 255, 255, 8, -9223372036854775807ll - 1,
                   18446744073709551615ull, 300, 70000, (size_t)12345, "str", "abcdef", "xyzw", 'Q');
  printf("  snprintf %d %s\n", n, buf);
  const char *volatile long_text = "0123456789abcdef";
  n = snprintf(buf, 8, "%s", long_text);
  printf("  snprintf truncated: %d \"%s\"\n", n, buf);
  int a, b;
  char word[16];
  float f;
  int got = sscanf("  17 0x1f word 2.5", "%d %i %15s %f", &a, &b, word, &f);
  printf("  sscanf %d: %d %d %s %g\n", got, a, b, word, f);
}

int main(void) {
  src_buf = malloc(BUF), dst_buf = malloc(BUF), ref_buf = malloc(BUF);
  test_memcpy_memmove_memset();
  test_search();
  test_compare();
  test_copy();
  test_page_end();
  test_wide_and_conversions();
  return 0;
}
