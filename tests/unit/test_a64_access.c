/* test_a64_access.c: whether a faulting AArch64 instruction wrote memory, as fault.c
 * reads it when the signal frame has no exception syndrome (qemu-user). The encodings
 * below were assembled by GNU as (aarch64-linux-gnu-as -march=armv8.4-a) from the text
 * beside each; whether that instruction writes is the Arm Arm's answer for its mnemonic:
 * stores, atomics (read-modify-write, reported as writes by the syndrome) and DC ZVA
 * write, loads read, other instructions are no data access. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "host/a64_access.h"

static const struct {
  uint32_t insn;
  int writes;
  const char *text;
} cases[] = {
    {0xf9400020,  0, "ldr x0, [x1]"},
    {0xb9400c62,  0, "ldr w2, [x3, #12]"},
    {0x385ffca4,  0, "ldrb w4, [x5, #-1]!"},
    {0x784024e6,  0, "ldrh w6, [x7], #2"},
    {0xb8aa7928,  0, "ldrsw x8, [x9, x10, lsl #2]"},
    {0x3980018b,  0, "ldrsb x11, [x12]"},
    {0x79c00dcd,  0, "ldrsh w13, [x14, #6]"},
    {0xf85f820f,  0, "ldur x15, [x16, #-8]"},
    {0xf8400a51,  0, "ldtr x17, [x18]"},
    {0xf9000020,  1, "str x0, [x1]"},
    {0x39001c62,  1, "strb w2, [x3, #7]"},
    {0x781fe4a4,  1, "strh w4, [x5], #-2"},
    {0xb82868e6,  1, "str w6, [x7, x8]"},
    {0xf81fd149,  1, "stur x9, [x10, #-3]"},
    {0xb800098b,  1, "sttr w11, [x12]"},
    {0x3dc00020,  0, "ldr q0, [x1]"},
    {0xfd400441,  0, "ldr d1, [x2, #8]"},
    {0xbc647862,  0, "ldr s2, [x3, x4, lsl #2]"},
    {0x3d4000a3,  0, "ldr b3, [x5]"},
    {0x3cdf00c4,  0, "ldur q4, [x6, #-16]"},
    {0x3d800020,  1, "str q0, [x1]"},
    {0xfd000441,  1, "str d1, [x2, #8]"},
    {0xbc247862,  1, "str s2, [x3, x4, lsl #2]"},
    {0x3c8010e5,  1, "stur q5, [x7, #1]"},
    {0x3c001506,  1, "str b6, [x8], #1"},
    {0xa9400440,  0, "ldp x0, x1, [x2]"},
    {0xad410440,  0, "ldp q0, q1, [x2, #32]"},
    {0x694010a3,  0, "ldpsw x3, x4, [x5]"},
    {0x6c4004c0,  0, "ldnp d0, d1, [x6]"},
    {0xa9bf07e0,  1, "stp x0, x1, [sp, #-16]!"},
    {0xad000c82,  1, "stp q2, q3, [x4]"},
    {0xa80018e5,  1, "stnp x5, x6, [x7]"},
    {0x58000000,  0, "ldr x0, ."},
    {0x9c000001,  0, "ldr q1, ."},
    {0x98000002,  0, "ldrsw x2, ."},
    {0xc85f7c20,  0, "ldxr x0, [x1]"},
    {0x885ffc62,  0, "ldaxr w2, [x3]"},
    {0xc8dffca4,  0, "ldar x4, [x5]"},
    {0xc87f1d06,  0, "ldxp x6, x7, [x8]"},
    {0x085ffd49,  0, "ldaxrb w9, [x10]"},
    {0xc8007c41,  1, "stxr w0, x1, [x2]"},
    {0x8803fca4,  1, "stlxr w3, w4, [x5]"},
    {0xc89ffce6,  1, "stlr x6, [x7]"},
    {0xc8282969,  1, "stxp w8, x9, x10, [x11]"},
    {0x489ffdac,  1, "stlrh w12, [x13]"},
    {0xc8a07c41,  1, "cas x0, x1, [x2]"},
    {0x88e3fca4,  1, "casal w3, w4, [x5]"},
    {0x08a67d07,  1, "casb w6, w7, [x8]"},
    {0x48207c82,  1, "casp x0, x1, x2, x3, [x4]"},
    {0x0866fd48,  1, "caspal w6, w7, w8, w9, [x10]"},
    {0xf8200041,  1, "ldadd x0, x1, [x2]"},
    {0xb8e300a4,  1, "ldaddal w3, w4, [x5]"},
    {0xf8268107,  1, "swp x6, x7, [x8]"},
    {0xb8e9816a,  1, "swpal w9, w10, [x11]"},
    {0xf82c01bf,  1, "stadd x12, [x13]"},
    {0xb82e120f,  1, "ldclr w14, w15, [x16]"},
    {0xf8314272,  1, "ldsmax x17, x18, [x19]"},
    {0xf8bfc020,  0, "ldapr x0, [x1]"},
    {0x38bfc062,  0, "ldaprb w2, [x3]"},
    {0xd95fc0a4,  0, "ldapur x4, [x5, #-4]"},
    {0x998020e6,  0, "ldapursw x6, [x7, #2]"},
    {0x99003128,  1, "stlur w8, [x9, #3]"},
    {0x4c407000,  0, "ld1 {v0.16b}, [x0]"},
    {0x4cdfa821,  0, "ld1 {v1.4s, v2.4s}, [x1], #32"},
    {0x4c400440,  0, "ld4 {v0.8h-v3.8h}, [x2]"},
    {0x0d409063,  0, "ld1 {v3.s}[1], [x3]"},
    {0x4d40c884,  0, "ld1r {v4.4s}, [x4]"},
    {0x4c007000,  1, "st1 {v0.16b}, [x0]"},
    {0x4c9fac21,  1, "st1 {v1.2d, v2.2d}, [x1], #32"},
    {0x4c000840,  1, "st4 {v0.4s-v3.4s}, [x2]"},
    {0x0d000ca5,  1, "st1 {v5.b}[3], [x5]"},
    {0xd50b7420,  1, "dc zva, x0"},
    {0xf8200420,  0, "ldraa x0, [x1]"},
    {0xf8a01c62,  0, "ldrab x2, [x3, #8]!"},
    {0x8b020020, -1, "add x0, x1, x2"},
    {0x14000000, -1, "b ."},
    {0xd65f03c0, -1, "ret"},
    {0xd50b7e20, -1, "dc civac, x0"},
};

static void each_instruction_reads_or_writes_as_its_mnemonic_says(void **state) {
  (void)state;
  unsigned wrong = 0;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int got = a64_access_writes(cases[i].insn);
    if (got != cases[i].writes) {
      printf("%08x %-32s expected %d, got %d\n", cases[i].insn, cases[i].text, cases[i].writes, got);
      wrong++;
    }
  }
  assert_int_equal(wrong, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(each_instruction_reads_or_writes_as_its_mnemonic_says),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
