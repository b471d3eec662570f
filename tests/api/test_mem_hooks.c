/* test_mem_hooks.c: x64emu_hook_mem: every kind of access an instruction makes, with its
 * address, size, bytes and RIP; the range and access filters; stopping from a memory
 * hook; what a memory hook may not do; and that a run with a hook ends as one without.
 * The guest is mem_hook_guest.s; the accesses it should make are worked out by hand from
 * its instructions below (the oracle is the instruction set, not x64emu). */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "api_test.h"
#include "x64emu/x64emu.h"

extern const uint8_t mh_code[], mh_store[], mh_rmw[], mh_push[], mh_pop[], mh_xload[], mh_xstore[],
    mh_fld[], mh_fstp[], mh_rep[], mh_fxsave[], mh_xsave[], mh_call[], mh_ret[], mh_over[],
    mh_end[];

#define DATA 0x30000000ull /* RBX: the guest's data page */
#define AT(label) (CODE + (uint64_t)(label - mh_code))

/* The data page as the guest finds it: bytes 0xA0 + i, except 1.0 as an 80-bit value at
 * 64 (significand 0x8000000000000000, exponent 0x3FFF) and "xyz" at 96. */
static void initial_data(uint8_t d[PAGE]) {
  memset(d, 0, PAGE);
  for (unsigned i = 0; i < 128; i++) d[i] = (uint8_t)(0xA0 + i);
  static const uint8_t one[10] = {0, 0, 0, 0, 0, 0, 0, 0x80, 0xFF, 0x3F};
  memcpy(d + 64, one, 10);
  memcpy(d + 96, "xyz", 3);
}

static x64emu *guest(void) {
  x64emu *m = machine_with(mh_code, (size_t)(mh_end + 2 - mh_code), CODE);
  uint8_t d[PAGE];
  initial_data(d);
  assert_int_equal(x64emu_mem_map(m, DATA, PAGE, X64EMU_PROT_READ | X64EMU_PROT_WRITE), X64EMU_OK);
  assert_int_equal(x64emu_mem_write(m, DATA, d, PAGE), X64EMU_OK);
  set_reg(m, X64EMU_REG_RBX, DATA);
  return m;
}

/* What a hook saw. */
typedef struct Access {
  int access;
  uint64_t address;
  unsigned size;
  uint8_t data[16]; /* the first 16 bytes */
  uint64_t rip;
} Access;

typedef struct Log {
  Access a[64];
  unsigned n;
  unsigned stop_at; /* stop the run at this access (1 is the first), or 0 */
  bool in_memory;   /* every reported byte is what memory held when the hook ran */
} Log;

static void record(x64emu *m, int access, uint64_t address, unsigned size, const void *data,
                   void *user) {
  Log *log = user;
  uint8_t now[512];
  assert_true(size <= sizeof now);
  assert_int_equal(x64emu_mem_read(m, address, now, size), X64EMU_OK);
  if (memcmp(now, data, size) != 0) log->in_memory = false;
  if (log->n < 64) {
    Access *a = &log->a[log->n];
    *a = (Access){.access = access, .address = address, .size = size, .rip = reg(m, X64EMU_REG_RIP)};
    memcpy(a->data, data, size < 16 ? size : 16);
  }
  if (++log->n == log->stop_at) assert_int_equal(x64emu_stop_run(m), X64EMU_OK);
}

enum { R = X64EMU_MEM_READ, W = X64EMU_MEM_WRITE };

static void expect(const Log *log, unsigned i, int access, uint64_t address, unsigned size,
                   const void *data, uint64_t rip) {
  assert_true(i < log->n);
  const Access *a = &log->a[i];
  assert_int_equal(a->access, access);
  assert_int_equal(a->address, address);
  assert_int_equal(a->size, size);
  assert_memory_equal(a->data, data, size < 16 ? size : 16);
  assert_int_equal(a->rip, rip);
}

static void run_to_the_end(x64emu *m) {
  x64emu_stop s;
  assert_int_equal(x64emu_run(m, 0, 0, &s), X64EMU_OK);
  assert_int_equal(s.reason, X64EMU_STOP_FAULT);
  assert_int_equal(s.signal, SIGILL);
  assert_int_equal(reg(m, X64EMU_REG_RIP), AT(mh_end));
}

static void test_every_access_with_its_address_size_bytes_and_rip(void **state) {
  x64emu *m = guest();
  Log log = {.in_memory = true};
  assert_int_equal(x64emu_hook_mem(m, R | W, 0, 0, record, &log, NULL), X64EMU_OK);
  run_to_the_end(m);
  uint8_t d[PAGE];
  initial_data(d);
  uint64_t sp = STACK_TOP - 8, ret = AT(mh_call) + 5; /* the JMP after the CALL */
  uint8_t rmw_after = (uint8_t)(d[16] + 1), ret_bytes[8];
  memcpy(ret_bytes, &ret, 8);
  /* mov rdx, [rbx + 4] reads bytes 4..7 as they were and 8..11, where the 4-byte store
   * put bytes 0..3. */
  uint8_t over[8] = {d[4], d[5], d[6], d[7], d[0], d[1], d[2], d[3]};
  unsigned i = 0;
  expect(&log, i++, R, DATA, 8, d, AT(mh_code));
  expect(&log, i++, W, DATA + 8, 4, d, AT(mh_store));
  expect(&log, i++, R, DATA + 16, 1, d + 16, AT(mh_rmw));
  expect(&log, i++, W, DATA + 16, 1, &rmw_after, AT(mh_rmw));
  expect(&log, i++, W, sp, 8, d, AT(mh_push));
  expect(&log, i++, R, sp, 8, d, AT(mh_pop));
  expect(&log, i++, R, DATA + 32, 16, d + 32, AT(mh_xload));
  expect(&log, i++, W, DATA + 48, 16, d + 32, AT(mh_xstore));
  expect(&log, i++, R, DATA + 64, 10, d + 64, AT(mh_fld));
  expect(&log, i++, W, DATA + 80, 10, d + 64, AT(mh_fstp));
  for (unsigned k = 0; k < 3; k++) { /* each iteration of REP MOVSB */
    expect(&log, i++, R, DATA + 96 + k, 1, "xyz" + k, AT(mh_rep));
    expect(&log, i++, W, DATA + 100 + k, 1, "xyz" + k, AT(mh_rep));
  }
  /* FXSAVE writes its 416 bytes at once, FCW first (0x037F, as at reset); the rest is
   * checked against memory (in_memory). */
  assert_int_equal(log.a[i].access, W);
  assert_int_equal(log.a[i].address, DATA + 512);
  assert_int_equal(log.a[i].size, 416);
  assert_int_equal(log.a[i].data[0] | log.a[i].data[1] << 8, 0x037F);
  assert_int_equal(log.a[i++].rip, AT(mh_fxsave));
  /* XSAVE of the SSE component writes MXCSR (0x1F80) and its mask, the XMM registers and
   * the header's XSTATE_BV, whose other components' bits it keeps (the area was 0; SSE
   * is in use, XMM0 holding bytes 32..47): nothing of the x87 region, nor bytes 416-511,
   * which are software's. */
  static const uint8_t sse_bv[8] = {2};
  assert_int_equal(log.a[i].access, W);
  assert_int_equal(log.a[i].address, DATA + 1024 + 24);
  assert_int_equal(log.a[i].size, 8);
  assert_int_equal(log.a[i].data[0] | log.a[i].data[1] << 8, 0x1F80);
  assert_int_equal(log.a[i++].rip, AT(mh_xsave));
  expect(&log, i++, W, DATA + 1024 + 160, 256, d + 32, AT(mh_xsave));
  expect(&log, i++, R, DATA + 1024 + 512, 8, d + 1536, AT(mh_xsave));
  expect(&log, i++, W, DATA + 1024 + 512, 8, sse_bv, AT(mh_xsave));
  expect(&log, i++, W, sp, 8, ret_bytes, AT(mh_call));
  expect(&log, i++, R, sp, 8, ret_bytes, AT(mh_ret));
  expect(&log, i++, R, DATA + 4, 8, over, AT(mh_over));
  assert_int_equal(log.n, i); /* and nothing else: no LEA, no MOV of a register, no fetch */
  assert_true(log.in_memory);
  x64emu_close(m);
}

/* An access is reported when any of its bytes is in the range; the kind filters. */
static void test_range_and_access_filters(void **state) {
  x64emu *m = guest();
  Log both = {.in_memory = true}, reads = {.in_memory = true}, writes = {.in_memory = true};
  assert_int_equal(x64emu_hook_mem(m, R | W, DATA + 8, DATA + 12, record, &both, NULL), X64EMU_OK);
  assert_int_equal(x64emu_hook_mem(m, R, DATA + 96, DATA + 100, record, &reads, NULL), X64EMU_OK);
  assert_int_equal(x64emu_hook_mem(m, W, DATA + 96, DATA + 104, record, &writes, NULL), X64EMU_OK);
  run_to_the_end(m);
  uint8_t d[PAGE];
  initial_data(d);
  uint8_t over[8] = {d[4], d[5], d[6], d[7], d[0], d[1], d[2], d[3]};
  /* [rbx] (bytes 0..7) ends where the range begins: not reported. */
  assert_int_equal(both.n, 2);
  expect(&both, 0, W, DATA + 8, 4, d, AT(mh_store));
  expect(&both, 1, R, DATA + 4, 8, over, AT(mh_over));
  assert_int_equal(reads.n, 3);
  for (unsigned k = 0; k < 3; k++) expect(&reads, k, R, DATA + 96 + k, 1, "xyz" + k, AT(mh_rep));
  assert_int_equal(writes.n, 3);
  for (unsigned k = 0; k < 3; k++) expect(&writes, k, W, DATA + 100 + k, 1, "xyz" + k, AT(mh_rep));
  x64emu_close(m);
}

/* A stop from a memory hook comes after the instruction that made the access. */
static void test_a_memory_hook_stops_the_run_after_its_instruction(void **state) {
  x64emu *m = guest();
  Log log = {.stop_at = 1, .in_memory = true};
  assert_int_equal(x64emu_hook_mem(m, W, DATA + 8, DATA + 12, record, &log, NULL), X64EMU_OK);
  x64emu_stop s;
  assert_int_equal(x64emu_run(m, 0, 0, &s), X64EMU_OK);
  assert_int_equal(s.reason, X64EMU_STOP_REQUESTED);
  assert_int_equal(reg(m, X64EMU_REG_RIP), AT(mh_rmw));
  assert_int_equal(x64emu_icount(m), 2);
  uint32_t stored = 0;
  assert_int_equal(x64emu_mem_read(m, DATA + 8, &stored, 4), X64EMU_OK);
  assert_int_equal(stored, 0xA3A2A1A0);
  x64emu_close(m);

  /* In a REP MOVSB: after the iteration that stored at data + 101, the second. */
  m = guest();
  log = (Log){.stop_at = 1, .in_memory = true};
  assert_int_equal(x64emu_hook_mem(m, W, DATA + 101, DATA + 102, record, &log, NULL), X64EMU_OK);
  assert_int_equal(x64emu_run(m, 0, 0, &s), X64EMU_OK);
  assert_int_equal(s.reason, X64EMU_STOP_REQUESTED);
  assert_int_equal(reg(m, X64EMU_REG_RIP), AT(mh_rep));
  assert_int_equal(reg(m, X64EMU_REG_RCX), 1);
  assert_int_equal(reg(m, X64EMU_REG_RDI), DATA + 102);
  assert_int_equal(x64emu_icount(m), 12 + 2);
  /* and the run goes on from there to the same end */
  run_to_the_end(m);
  assert_int_equal(reg(m, X64EMU_REG_RCX), 0);
  x64emu_close(m);
}

/* In the middle of an instruction a hook may read registers and read and write memory;
 * it may not write registers or change mappings. */
static int refusals;

static void meddle(x64emu *m, int access, uint64_t address, unsigned size, const void *data,
                   void *user) {
  if (address != DATA) return;
  uint64_t v = 1;
  refusals += x64emu_reg_write(m, X64EMU_REG_RAX, &v) == X64EMU_ERR_RUNNING;
  refusals += x64emu_reg_write(m, X64EMU_REG_RIP, &v) == X64EMU_ERR_RUNNING;
  refusals += x64emu_mem_map(m, DATA + 16 * PAGE, PAGE, X64EMU_PROT_READ) == X64EMU_ERR_RUNNING;
  refusals += x64emu_mem_protect(m, DATA, PAGE, X64EMU_PROT_READ) == X64EMU_ERR_RUNNING;
  refusals += x64emu_mem_unmap(m, DATA, PAGE) == X64EMU_ERR_RUNNING;
  refusals += x64emu_hook_remove(m, 0) == X64EMU_ERR_RUNNING;
  uint8_t fifty = 0x50; /* what ADD BYTE [rbx + 16], 1 then reads */
  assert_int_equal(x64emu_mem_write(m, DATA + 16, &fifty, 1), X64EMU_OK);
  assert_int_equal(reg(m, X64EMU_REG_RBX), DATA);
}

static void test_what_a_memory_hook_may_and_may_not_do(void **state) {
  x64emu *m = guest();
  int id = -1;
  assert_int_equal(x64emu_hook_mem(m, R, DATA, DATA + 1, meddle, NULL, &id), X64EMU_OK);
  refusals = 0;
  run_to_the_end(m);
  assert_int_equal(refusals, 6);
  uint8_t b = 0;
  assert_int_equal(x64emu_mem_read(m, DATA + 16, &b, 1), X64EMU_OK);
  assert_int_equal(b, 0x51);
  assert_int_equal(reg(m, X64EMU_REG_RAX) & 0xFF, 0xA0); /* the load's value, not 1 */
  assert_int_equal(x64emu_hook_remove(m, id), X64EMU_OK);
  x64emu_close(m);
}

/* Bad arguments, and a hook removed: nothing more is reported. */
static void test_memory_hook_arguments_and_removal(void **state) {
  x64emu *m = guest();
  Log log = {.in_memory = true};
  int id = -1;
  assert_int_equal(x64emu_hook_mem(NULL, R, 0, 0, record, &log, &id), X64EMU_ERR_ARG);
  assert_int_equal(x64emu_hook_mem(m, 0, 0, 0, record, &log, &id), X64EMU_ERR_ARG);
  assert_int_equal(x64emu_hook_mem(m, 4, 0, 0, record, &log, &id), X64EMU_ERR_ARG);
  assert_int_equal(x64emu_hook_mem(m, R, 0, 0, NULL, &log, &id), X64EMU_ERR_ARG);
  assert_int_equal(x64emu_hook_mem(m, R, DATA + 8, DATA, record, &log, &id), X64EMU_ERR_ARG);
  assert_int_equal(x64emu_hook_mem(m, R, 0, 0, record, &log, &id), X64EMU_OK);
  x64emu_stop s;
  assert_int_equal(x64emu_run(m, 0, 3, &s), X64EMU_OK); /* mov, mov, add: two reads */
  assert_int_equal(log.n, 2);
  assert_int_equal(x64emu_hook_remove(m, id), X64EMU_OK);
  assert_int_equal(x64emu_hook_remove(m, id), X64EMU_ERR_HOOK);
  run_to_the_end(m);
  assert_int_equal(log.n, 2);
  x64emu_close(m);
}

/* The same program with and without a memory hook ends in the same state. */
static void ignore(x64emu *m, int access, uint64_t address, unsigned size, const void *data,
                   void *user) {}

static void test_a_watched_run_ends_as_an_unwatched_one(void **state) {
  uint8_t mem[2][PAGE];
  uint64_t regs[2][X64EMU_REG_RFLAGS + 1];
  uint8_t xmm0[2][16];
  for (int watched = 0; watched < 2; watched++) {
    x64emu *m = guest();
    if (watched) assert_int_equal(x64emu_hook_mem(m, R | W, 0, 0, ignore, NULL, NULL), X64EMU_OK);
    run_to_the_end(m);
    for (int r = 0; r <= X64EMU_REG_RFLAGS; r++) regs[watched][r] = reg(m, r);
    assert_int_equal(x64emu_reg_read(m, X64EMU_REG_XMM0, xmm0[watched]), X64EMU_OK);
    assert_int_equal(x64emu_mem_read(m, DATA, mem[watched], PAGE), X64EMU_OK);
    assert_int_equal(x64emu_icount(m), 25);
    x64emu_close(m);
  }
  assert_memory_equal(regs[0], regs[1], sizeof regs[0]);
  assert_memory_equal(xmm0[0], xmm0[1], 16);
  assert_memory_equal(mem[0], mem[1], PAGE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_access_with_its_address_size_bytes_and_rip),
      cmocka_unit_test(test_range_and_access_filters),
      cmocka_unit_test(test_a_memory_hook_stops_the_run_after_its_instruction),
      cmocka_unit_test(test_what_a_memory_hook_may_and_may_not_do),
      cmocka_unit_test(test_memory_hook_arguments_and_removal),
      cmocka_unit_test(test_a_watched_run_ends_as_an_unwatched_one),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
