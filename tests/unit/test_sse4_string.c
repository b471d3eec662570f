/* test_sse4_string.c: SSE4.2's PCMPESTRI, PCMPESTRM, PCMPISTRI and PCMPISTRM against the
 * host CPU: all 256 imm8 values, register and memory forms, with random bytes and with
 * structured strings (small alphabets, embedded zero bytes and words, planted
 * substrings, ranges, equal strings) and lengths in EAX/EDX (RAX/RDX) from -20 to 20,
 * huge and at the integer limits. ECX, XMM0, the flags and everything else compared. */
#define _GNU_SOURCE /* ucontext register names for the native side */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

/* The host CPU is the oracle: on other hosts there is nothing to compare with. */
#ifdef __x86_64__
#include "sse_harness.h"

#pragma GCC diagnostic ignored "-Woverride-init"
#define LENGTH_REGS (1u << RAX | 1u << RDX)
/* Unaligned memory is allowed: the string compares have no alignment rule. */
#define STR(n, o, ...) {.name = n, .pfx = 0x66, .opc = {0x3A, o}, .nopc = 2, .imm8 = 1,   \
                        .modrm = MR_BOTH, .ext = -1, .vals = VAL_INT,                      \
                        .avoid_gprs = LENGTH_REGS, ##__VA_ARGS__}
#define COUNT(a) (sizeof(a) / sizeof *(a))

static const Form string_forms[] = {
  STR("pcmpestri", 0x61), STR("pcmpestri rex.w", 0x61, .rexw = 1),
  STR("pcmpestrm", 0x60), STR("pcmpestrm rex.w", 0x60, .rexw = 1),
  STR("pcmpistri", 0x63), STR("pcmpistrm", 0x62),
};

/* ---- operands ---- */

/* Element i of a string of 16 bytes, as bytes (w 1) or words (w 2). */
static void put_element(uint8_t *s, unsigned w, unsigned i, unsigned v) {
  if (w == 1) s[i] = (uint8_t)v;
  else memcpy(s + 2 * i, &(uint16_t){(uint16_t)v}, 2);
}

/* A letter of a small alphabet: matches are frequent. As words, some letters sit in
 * the high byte so that a word is not zero where a byte is. */
static unsigned letter(unsigned w) {
  static const unsigned bytes[] = {'a', 'b', 'c', 0x80, 0xFF};
  static const unsigned words[] = {'a', 'b', 0x6100, 0x8000, 0xFFFF, 0x0100};
  return w == 1 ? bytes[rnd_below(COUNT(bytes))] : words[rnd_below(COUNT(words))];
}

/* A string of letters with zero elements at random places (or none). */
static void fill_letters(uint8_t *s, unsigned w) {
  unsigned n = 16 / w, zero_odds = 2 + rnd_below(12);
  for (unsigned i = 0; i < n; i++) put_element(s, w, i, rnd_below(zero_odds) ? letter(w) : 0);
}

/* Range pairs (low, high) around a few centres, sometimes reversed or negative. */
static void fill_ranges(uint8_t *s, unsigned w) {
  unsigned n = 16 / w;
  for (unsigned i = 0; i + 1 < n; i += 2) {
    unsigned lo = letter(w) + rnd_below(3) - 1, hi = lo + rnd_below(4);
    if (rnd_below(6) == 0) { unsigned t = lo; lo = hi; hi = t; }
    put_element(s, w, i, lo);
    put_element(s, w, i + 1, hi);
  }
  if (rnd_below(4) == 0) put_element(s, w, 2 * rnd_below(n / 2), 0); /* an early end */
}

/* A length register's value: mostly -20..20, sometimes huge or at the limits; random
 * upper halves, which only the REX.W forms read. */
static uint64_t rand_length(void) {
  static const uint64_t limits[] = {0x80000000ull, 0x7FFFFFFFull, 0xFFFFFFFFull,
                                    1ull << 63, (1ull << 63) - 1, ~0ull, 0x100000010ull,
                                    0xFFFFFFFF00000008ull, 16, 8, 0};
  switch (rnd_below(10)) {
  case 0: return limits[rnd_below(COUNT(limits))];
  case 1: return rnd();
  case 2: return (uint64_t)(int64_t)((int)rnd_below(41) - 20) ^ (rnd() & 0xFFFFFFFF00000000ull);
  default: return (uint64_t)(int64_t)((int)rnd_below(41) - 20);
  }
}

/* Gives most cases structured strings: the first operand (ModRM.reg) is the set,
 * ranges or substring; the second (ModRM.rm or memory) the string searched. */
static void string_hook(const Form *f, MachineState *s) {
  (void)f;
  uint8_t *a = s->xmm[case_reg].b;
  uint8_t *b = case_mem ? case_mem : s->xmm[case_rm].b;
  unsigned w = 1 + rnd_below(2);
  switch (rnd_below(6)) {
  case 0: break; /* random bytes */
  case 1: fill_letters(a, w); fill_letters(b, w); break;
  case 2: { /* a piece of b planted as a, possibly running past b's end */
    fill_letters(b, w);
    unsigned n = 16 / w, at = rnd_below(n), len = 1 + rnd_below(n);
    fill_letters(a, w);
    for (unsigned i = 0; i < len && at + i < n; i++)
      memcpy(a + w * i, b + w * (at + i), w);
    if (rnd_below(2)) put_element(a, w, len < n ? len : n - 1, 0);
    break;
  }
  case 3: fill_ranges(a, w); fill_letters(b, w); break;
  case 4: /* equal strings, differing in a few elements */
    fill_letters(a, w);
    memcpy(b, a, 16);
    for (unsigned k = rnd_below(3); k > 0; k--) put_element(b, w, rnd_below(16 / w), letter(w));
    break;
  default: /* no zero elements at all: the implicit lengths are full */
    for (unsigned i = 0; i < 16 / w; i++) {
      put_element(a, w, i, letter(w) | 1);
      put_element(b, w, i, letter(w) | 1);
    }
    break;
  }
  s->r[RAX] = rand_length();
  s->r[RDX] = rand_length();
}

/* Every form, every imm8 (bit 7 included): 16 times the usual cases per form, since the
 * imm8 byte alone makes 256 different instructions of each. */
static void test_string_compares_match_host_for_every_imm8(void **state) {
  (void)state;
  harness_begin();
  unsigned per_imm = (diff_iterations() + 255) / 256 * 16, bad = 0;
  case_hook = string_hook;
  for (size_t i = 0; i < COUNT(string_forms); i++) {
    unsigned failures = 0;
    for (int imm = 0; imm < 256 && !failures; imm++) {
      forced_imm = imm;
      failures += run_form(&string_forms[i], per_imm, 0, NULL);
    }
    if (failures) {
      fprintf(stderr, "FAIL %s (imm8 %#x)\n", string_forms[i].name, (unsigned)forced_imm);
      bad++;
    }
  }
  forced_imm = -1;
  case_hook = NULL;
  fprintf(stderr, "%zu forms x 256 imm8 x %u cases: %u forms differ from the host CPU\n",
          COUNT(string_forms), per_imm, bad);
  assert_int_equal(bad, 0);
}

static void test_string_compares_misaligned_operands_like_host(void **state) {
  (void)state;
  case_hook = string_hook;
  unsigned bad = run_forms_misaligned(string_forms, COUNT(string_forms), NULL);
  case_hook = NULL;
  assert_int_equal(bad, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_string_compares_match_host_for_every_imm8),
    cmocka_unit_test(test_string_compares_misaligned_operands_like_host),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

#else
#include "needs_x86_64.h"
#endif
