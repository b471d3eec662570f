/* test_lazy_flags.c: lazily computed flags and conditions against the host CPU's own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "decoder/decode.h"
#include "interp/access.h"
#include "interp/flags.h"
#include "interp/run.h"
#include "test_machine.h"

static uint64_t rnd(void) {
  static uint64_t s = 0x9E3779B97F4A7C15ull;
  s ^= s << 13;
  s ^= s >> 7;
  s ^= s << 17;
  /* Bias towards edge values where carries and overflows happen. */
  switch (s % 8) {
  case 0: return 0;
  case 1: return ~0ull;
  case 2: return 1ull << 63;
  case 3: return (1ull << 63) - 1;
  default: return s;
  }
}

/* Native RFLAGS after `op a, b` at 64 bits, with CF preset to cin. */
#define NATIVE_FLAGS(insn, a, b, cin)                                                  \
  ({                                                                                   \
    uint64_t f_, x_ = (a);                                                             \
    __asm__ volatile("bt $0, %q[c]\n\t" insn " %[y], %[x]\n\tpushfq\n\tpopq %[f]"     \
                     : [x] "+r"(x_), [f] "=r"(f_)                                      \
                     : [y] "r"((uint64_t)(b)), [c] "r"((uint64_t)(cin))                \
                     : "cc");                                                          \
    f_;                                                                                \
  })

static void check(Cpu *c, uint64_t native, const char *what) {
  uint64_t mine = flags_get(c) & F_ARITH;
  if (mine != (native & F_ARITH))
    fail_msg("%s: flags %#llx, CPU says %#llx", what, (unsigned long long)mine,
             (unsigned long long)(native & F_ARITH));
  for (unsigned cc = 0; cc < 16; cc++) {
    /* The CPU's view of condition cc from its own flags. */
    bool cf = native & F_CF, zf = native & F_ZF, sf = native & F_SF, of = native & F_OF,
         pf = native & F_PF;
    bool want[8] = {of, cf, zf, cf || zf, sf, pf, sf != of, zf || sf != of};
    assert_int_equal(cond(c, cc), want[cc >> 1] ^ (cc & 1));
  }
}

static void test_add_sub_logic_against_cpu(void **state) {
  Cpu c;
  cpu_init(&c, test_machine());
  for (int i = 0; i < 20000; i++) {
    uint64_t a = rnd(), b = rnd(), cin = rnd() & 1;
    lazy_set(&c, LF_ADD, 8, a + b, a, b);
    check(&c, NATIVE_FLAGS("add", a, b, 0), "add");
    lazy_set(&c, LF_SUB, 8, a - b, a, b);
    check(&c, NATIVE_FLAGS("sub", a, b, 0), "sub");
    lazy_set(&c, LF_ADC, 8, a + b + cin, a, b);
    c.lf.cin = (uint8_t)cin;
    check(&c, NATIVE_FLAGS("adc", a, b, cin), "adc");
    lazy_set(&c, LF_SBB, 8, a - b - cin, a, b);
    c.lf.cin = (uint8_t)cin;
    check(&c, NATIVE_FLAGS("sbb", a, b, cin), "sbb");
    /* AF is undefined after logic operations; the CPU clears it. */
    lazy_set(&c, LF_LOGIC, 8, a & b, a, b);
    check(&c, NATIVE_FLAGS("and", a, b, 0) & ~(uint64_t)F_AF, "and");
  }
}

static void test_narrow_sizes_use_their_own_sign_and_carry(void **state) {
  Cpu c;
  cpu_init(&c, test_machine());
  for (int i = 0; i < 20000; i++) {
    uint8_t a = (uint8_t)rnd(), b = (uint8_t)rnd();
    uint64_t f;
    uint8_t x = a;
    __asm__ volatile("addb %[y], %[x]\n\tpushfq\n\tpopq %[f]" : [x] "+q"(x), [f] "=r"(f)
                     : [y] "q"(b) : "cc");
    lazy_set(&c, LF_ADD, 1, (uint64_t)a + b, a, b);
    check(&c, f, "addb");
    uint32_t p = (uint32_t)rnd(), q = (uint32_t)rnd();
    uint32_t y = p;
    __asm__ volatile("subl %[q], %[y]\n\tpushfq\n\tpopq %[f]" : [y] "+r"(y), [f] "=r"(f)
                     : [q] "r"(q) : "cc");
    lazy_set(&c, LF_SUB, 4, (uint64_t)p - q, p, q);
    check(&c, f, "subl");
  }
}

static void test_flags_set_then_get_round_trips(void **state) {
  Cpu c;
  cpu_init(&c, test_machine());
  flags_set(&c, F_CF | F_ZF | F_DF | 0x200);
  assert_true(flag_cf(&c));
  assert_true(flag_zf(&c));
  assert_false(flag_sf(&c));
  assert_int_equal(flags_get(&c), F_CF | F_ZF | F_DF | 0x200 | 2);
  /* A lazy operation replaces the arithmetic flags but keeps DF and IF. */
  lazy_set(&c, LF_SUB, 8, 0, 5, 5);
  assert_int_equal(flags_get(&c), F_ZF | F_PF | F_DF | 0x200 | 2);
  flags_update(&c, F_CF, F_CF);
  assert_int_equal(flags_get(&c), F_CF | F_ZF | F_PF | F_DF | 0x200 | 2);
}

/* Every Jcc as decoded (the decoder installs specialised handlers for some conditions)
 * must branch exactly when the CPU's own flags say so. */
static void test_decoded_jcc_follows_the_cpu(void **state) {
  assert_true((test_machine() != NULL));
  static uint8_t code[16];
  Cpu c;
  cpu_init(&c, test_machine());
  for (unsigned cc = 0; cc < 16; cc++) {
    code[0] = (uint8_t)(0x70 + cc); /* jcc +0x10 */
    code[1] = 0x10;
    Insn in;
    uint64_t fault = 0;
    uint64_t at = (uint64_t)(uintptr_t)code;
    assert_int_equal(decode_insn(&test_machine()->dec, at, &in, &fault), 2);
    for (int i = 0; i < 4000; i++) {
      uint64_t a = rnd(), b = i % 3 ? rnd() : a; /* equal operands a third of the time */
      uint64_t native;
      switch (i % 4) {
      case 0: lazy_set(&c, LF_SUB, 8, a - b, a, b); native = NATIVE_FLAGS("sub", a, b, 0); break;
      case 1: lazy_set(&c, LF_ADD, 8, a + b, a, b); native = NATIVE_FLAGS("add", a, b, 0); break;
      case 2: lazy_set(&c, LF_LOGIC, 8, a & b, a, b); native = NATIVE_FLAGS("and", a, b, 0); break;
      default: flags_set(&c, a & F_ARITH); native = a & F_ARITH; break;
      }
      bool cf = native & F_CF, zf = native & F_ZF, sf = native & F_SF, of = native & F_OF,
           pf = native & F_PF;
      bool want[8] = {of, cf, zf, cf || zf, sf, pf, sf != of, zf || sf != of};
      bool taken = want[cc >> 1] ^ (cc & 1);
      c.rip = at + 2;
      insn_run_alone(&c, &in);
      assert_int_equal(c.rip, taken ? at + 2 + 0x10 : at + 2);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_add_sub_logic_against_cpu),
      cmocka_unit_test(test_narrow_sizes_use_their_own_sign_and_carry),
      cmocka_unit_test(test_flags_set_then_get_round_trips),
      cmocka_unit_test(test_decoded_jcc_follows_the_cpu),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
