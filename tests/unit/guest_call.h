/* guest_call.h: calling compiled x86-64 code of a test inside the interpreter, from its
 * first instruction to its return, on a stack of its own (test_aes_guest.c,
 * test_sha_guest.c, test_x87_programs.c). Include after cmocka.h and test_machine.h. */
#ifndef X64EMU_TEST_GUEST_CALL_H
#define X64EMU_TEST_GUEST_CALL_H

#include <stdint.h>

#include "interp/cpu.h"
#include "interp/run.h"

/* The attribute of a function the tests run as guest code: a sanitizer's checks and
 * coverage hooks call into its runtime, which is not the code under test (Clang's name
 * for the coverage hooks is one GCC does not know). */
#ifdef __clang__
#define UNINSTRUMENTED no_sanitize("address", "undefined", "coverage")
#else
#define UNINSTRUMENTED no_sanitize("address", "undefined")
#endif

static void guest_call_return(void) {} /* where the run stops: the return address */

/* Runs fn(a0, a1, a2, a3, a4); returns the number of guest instructions it took. */
static uint64_t guest_call(void *fn, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
                           uint64_t a4) {
  static Cpu cpu;
  static uint64_t stack[4096] __attribute__((aligned(16)));
  cpu_init(&cpu, test_machine());
  uint64_t stop = (uint64_t)(uintptr_t)guest_call_return;
  uint64_t *sp = &stack[4096 - 8];
  *--sp = stop;
  cpu.r[RSP] = (uint64_t)(uintptr_t)sp;
  cpu.r[RDI] = a0;
  cpu.r[RSI] = a1;
  cpu.r[RDX] = a2;
  cpu.r[RCX] = a3;
  cpu.r[R8] = a4;
  cpu.rip = (uint64_t)(uintptr_t)fn;
  assert_int_equal(cpu_run(&cpu, stop), STOP_ADDRESS);
  assert_int_equal(cpu.rip, stop);
  return cpu.icount;
}
#define P(x) ((uint64_t)(uintptr_t)(x))

#endif
