/* api_test.h: what the API's C tests share: where guest code and its stack go, a bare
 * machine with code in place, and register access that asserts success. Include after
 * <cmocka.h>. */
#ifndef X64EMU_API_TEST_H
#define X64EMU_API_TEST_H

#include <stdint.h>

#include "x64emu/x64emu.h"

#define CODE 0x10000000ull /* where the tests put guest code: one RWX page */
#define STACK_TOP 0x20000000ull /* and a stack page below this */
#define PAGE 4096ull

/* A bare machine with `code` at `at` (one RWX page), a stack page below
 * STACK_TOP + (at - CODE), and RIP and RSP set. */
static inline x64emu *machine_with(const uint8_t *code, size_t size, uint64_t at) {
  x64emu *m = NULL;
  assert_int_equal(x64emu_open(&m), X64EMU_OK);
  assert_int_equal(x64emu_mem_map(m, at & ~(PAGE - 1), PAGE, X64EMU_PROT_READ | X64EMU_PROT_WRITE | X64EMU_PROT_EXEC), X64EMU_OK);
  assert_int_equal(x64emu_mem_write(m, at, code, size), X64EMU_OK);
  uint64_t rip = at, rsp = STACK_TOP + (at - CODE);
  assert_int_equal(x64emu_mem_map(m, rsp - PAGE, PAGE, X64EMU_PROT_READ | X64EMU_PROT_WRITE), X64EMU_OK);
  assert_int_equal(x64emu_reg_write(m, X64EMU_REG_RIP, &rip), X64EMU_OK);
  assert_int_equal(x64emu_reg_write(m, X64EMU_REG_RSP, &rsp), X64EMU_OK);
  return m;
}

static inline uint64_t reg(x64emu *m, int r) {
  uint64_t v = 0;
  assert_int_equal(x64emu_reg_read(m, r, &v), X64EMU_OK);
  return v;
}

static inline void set_reg(x64emu *m, int r, uint64_t v) { assert_int_equal(x64emu_reg_write(m, r, &v), X64EMU_OK); }

#endif
