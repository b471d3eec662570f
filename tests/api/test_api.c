/* test_api.c: the public API (include/x64emu/x64emu.h), every function and its error
 * paths, through the static library. Guest code is assembled bytes, its source beside it;
 * what each program computes is worked out by hand in the comments. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "api_test.h"
#include "x64emu/x64emu.h"

/* A loop, a REP MOVSB, a CALL and RET, then a load from page 0, which faults:
 *   mov ecx, 3; xor eax, eax
 * 1: add rax, rcx; dec rcx; jnz 1b          rax = 3 + 2 + 1 = 6
 *   lea rsi, [rip + src]; lea rdi, [rip + dst]; mov ecx, 5
 *   rep movsb                                 "hello" to dst, five iterations
 *   call fn                                   fn: inc rax; ret -> rax = 7
 *   mov rbx, [0x10]                           SIGSEGV, SEGV_MAPERR, address 0x10
 * 2 + 9 + 3 + 5 (each iteration of the REP) + 1 + 2 = 22 steps before the fault. */
static const uint8_t walk[] = {
    0xb9, 0x03, 0x00, 0x00, 0x00, 0x31, 0xc0, 0x48, 0x01, 0xc8, 0x48, 0xff, 0xc9, 0x75,
    0xf8, 0x48, 0x8d, 0x35, 0x2a, 0x00, 0x00, 0x00, 0x48, 0x8d, 0x3d, 0x33, 0x00, 0x00,
    0x00, 0xb9, 0x05, 0x00, 0x00, 0x00, 0xf3, 0xa4, 0xe8, 0x08, 0x00, 0x00, 0x00, 0x48,
    0x8b, 0x1c, 0x25, 0x10, 0x00, 0x00, 0x00, 0x48, 0xff, 0xc0, 0xc3, 0x66, 0x66, 0x2e,
    0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00, 'h',  'e',  'l',  'l',  'o',
};
enum {
  WALK_FAULT_AT = 0x29, WALK_STEPS = 22, WALK_REP_AT = 0x22, WALK_CALL_AT = 0x24,
  WALK_FN_AT = 0x31, WALK_DST = 0x50,
};

/* mov eax, 60; mov edi, 7; syscall; mov ebx, eax; ud2 */
static const uint8_t sys_then_ud2[] = {0xb8, 0x3c, 0x00, 0x00, 0x00, 0xbf, 0x07, 0x00, 0x00,
                                       0x00, 0x0f, 0x05, 0x89, 0xc3, 0x0f, 0x0b};

/* ---- statuses, machines ---- */

static void test_every_status_has_its_own_text(void **state) {
  const char *seen[X64EMU_ERR_DECODE + 1];
  for (int s = X64EMU_OK; s <= X64EMU_ERR_DECODE; s++) {
    seen[s] = x64emu_strerror((x64emu_status)s);
    assert_non_null(seen[s]);
    assert_string_not_equal(seen[s], "unknown status");
    for (int t = 0; t < s; t++) assert_string_not_equal(seen[s], seen[t]);
  }
  assert_string_equal(x64emu_strerror((x64emu_status)999), "unknown status");
}

static void test_open_close_and_bad_arguments(void **state) {
  assert_int_equal(x64emu_open(NULL), X64EMU_ERR_ARG);
  x64emu *m = NULL;
  assert_int_equal(x64emu_open(&m), X64EMU_OK);
  assert_non_null(m);
  x64emu_stop s;
  assert_int_equal(x64emu_run(NULL, 0, 0, &s), X64EMU_ERR_ARG);
  assert_int_equal(x64emu_run(m, 0, 0, NULL), X64EMU_ERR_ARG);
  assert_int_equal(x64emu_step(NULL, &s), X64EMU_ERR_ARG);
  assert_int_equal(x64emu_reg_read(NULL, X64EMU_REG_RAX, &s), X64EMU_ERR_ARG);
  assert_int_equal(x64emu_mem_read(NULL, CODE, &s, 1), X64EMU_ERR_ARG);
  assert_int_equal(x64emu_stop_run(NULL), X64EMU_ERR_ARG);
  assert_int_equal(x64emu_breakpoint_add(NULL, CODE), X64EMU_ERR_ARG);
  assert_int_equal(x64emu_hook_remove(NULL, 1), X64EMU_ERR_ARG);
  assert_int_equal(x64emu_icount(NULL), 0);
  assert_int_equal(x64emu_icount(m), 0);
  x64emu_close(m);
  x64emu_close(NULL);
}

/* ---- memory ---- */

static void test_memory_map_unmap_protect_read_write(void **state) {
  x64emu *m = NULL;
  assert_int_equal(x64emu_open(&m), X64EMU_OK);
  const int rw = X64EMU_PROT_READ | X64EMU_PROT_WRITE;
  assert_int_equal(x64emu_mem_map(m, CODE + 1, PAGE, rw), X64EMU_ERR_ARG);   /* unaligned */
  assert_int_equal(x64emu_mem_map(m, CODE, 100, rw), X64EMU_ERR_ARG);        /* partial page */
  assert_int_equal(x64emu_mem_map(m, CODE, 0, rw), X64EMU_ERR_ARG);
  assert_int_equal(x64emu_mem_map(m, CODE, PAGE, 8), X64EMU_ERR_ARG);        /* unknown prot */
  assert_int_equal(x64emu_mem_map(m, 1ull << 47, PAGE, rw), X64EMU_ERR_ARG); /* not user space */
  assert_int_equal(x64emu_mem_map(m, CODE, 2 * PAGE, rw), X64EMU_OK);
  assert_int_equal(x64emu_mem_map(m, CODE + PAGE, PAGE, rw), X64EMU_ERR_MAP_IN_USE);
  /* The host program's own memory is in use too. */
  static char mine[2 * PAGE];
  uint64_t host_page = ((uint64_t)(uintptr_t)mine + PAGE - 1) & ~(PAGE - 1);
  assert_int_equal(x64emu_mem_map(m, host_page, PAGE, rw), X64EMU_ERR_MAP_IN_USE);

  uint8_t buf[8] = {1, 2, 3, 4, 5, 6, 7, 8}, back[8] = {0};
  assert_int_equal(x64emu_mem_write(m, CODE + PAGE - 4, buf, 8), X64EMU_OK); /* across pages */
  assert_int_equal(x64emu_mem_read(m, CODE + PAGE - 4, back, 8), X64EMU_OK);
  assert_memory_equal(buf, back, 8);
  assert_int_equal(x64emu_mem_read(m, CODE + 2 * PAGE - 4, back, 8), X64EMU_ERR_UNMAPPED);
  assert_int_equal(x64emu_mem_write(m, CODE - 1, buf, 2), X64EMU_ERR_UNMAPPED);
  assert_int_equal(x64emu_mem_read(m, host_page, back, 1), X64EMU_ERR_UNMAPPED); /* not its own */
  assert_int_equal(x64emu_mem_read(m, CODE, NULL, 1), X64EMU_ERR_ARG);
  assert_int_equal(x64emu_mem_read(m, CODE, NULL, 0), X64EMU_OK);

  /* Reading and writing ignore the guest's protection, as a debugger's do. */
  assert_int_equal(x64emu_mem_protect(m, CODE, PAGE, X64EMU_PROT_NONE), X64EMU_OK);
  assert_int_equal(x64emu_mem_write(m, CODE, "\xAA", 1), X64EMU_OK);
  assert_int_equal(x64emu_mem_read(m, CODE, back, 1), X64EMU_OK);
  assert_int_equal(back[0], 0xAA);
  assert_int_equal(x64emu_mem_protect(m, CODE, 3 * PAGE, rw), X64EMU_ERR_UNMAPPED);
  assert_int_equal(x64emu_mem_protect(m, CODE, PAGE, 16), X64EMU_ERR_ARG);

  assert_int_equal(x64emu_mem_unmap(m, CODE, 3 * PAGE), X64EMU_ERR_UNMAPPED);
  assert_int_equal(x64emu_mem_unmap(m, CODE + PAGE, PAGE), X64EMU_OK);
  assert_int_equal(x64emu_mem_read(m, CODE + PAGE, back, 1), X64EMU_ERR_UNMAPPED);
  assert_int_equal(x64emu_mem_map(m, CODE + PAGE, PAGE, rw), X64EMU_OK); /* free again */
  x64emu_close(m);
  /* Closing unmaps: another machine can have the range. */
  assert_int_equal(x64emu_open(&m), X64EMU_OK);
  assert_int_equal(x64emu_mem_map(m, CODE, 2 * PAGE, rw), X64EMU_OK);
  x64emu_close(m);
}

/* ---- registers ---- */

static void test_every_register_reads_back_what_was_written(void **state) {
  x64emu *m = NULL;
  assert_int_equal(x64emu_open(&m), X64EMU_OK);
  assert_int_equal(x64emu_reg_size(X64EMU_REG_RAX), 8);
  assert_int_equal(x64emu_reg_size(X64EMU_REG_MXCSR), 4);
  assert_int_equal(x64emu_reg_size(X64EMU_REG_FCW), 2);
  assert_int_equal(x64emu_reg_size(X64EMU_REG_XMM15), 16);
  assert_int_equal(x64emu_reg_size(X64EMU_REG_ST7), 10);
  assert_int_equal(x64emu_reg_size(X64EMU_REG_COUNT), 0);
  assert_int_equal(x64emu_reg_size(-1), 0);
  /* The reset state. */
  assert_int_equal(reg(m, X64EMU_REG_RFLAGS), 0x202);
  assert_int_equal(reg(m, X64EMU_REG_MXCSR), 0x1F80);
  assert_int_equal(reg(m, X64EMU_REG_FCW), 0x37F);
  assert_int_equal(reg(m, X64EMU_REG_FTW), 0xFFFF);
  for (int r = X64EMU_REG_RAX; r <= X64EMU_REG_GS_BASE; r++) {
    if (r == X64EMU_REG_RFLAGS) continue;
    uint64_t v = 0x1122334455667788ull ^ (uint64_t)r << 56;
    set_reg(m, r, v);
    assert_int_equal(reg(m, r), v);
  }
  set_reg(m, X64EMU_REG_RFLAGS, ~0ull); /* only what user code can set, IF read as 1 */
  assert_int_equal(reg(m, X64EMU_REG_RFLAGS), 0x240ED7);
  set_reg(m, X64EMU_REG_MXCSR, 0x7F80 | 0x3F);
  assert_int_equal(reg(m, X64EMU_REG_MXCSR), 0x7FBF);
  uint32_t bad = 0x10000;
  assert_int_equal(x64emu_reg_write(m, X64EMU_REG_MXCSR, &bad), X64EMU_ERR_ARG);
  for (int r = X64EMU_REG_XMM0; r <= X64EMU_REG_XMM15; r++) {
    uint8_t x[16], y[16];
    for (int i = 0; i < 16; i++) x[i] = (uint8_t)(r * 16 + i);
    assert_int_equal(x64emu_reg_write(m, r, x), X64EMU_OK);
    assert_int_equal(x64emu_reg_read(m, r, y), X64EMU_OK);
    assert_memory_equal(x, y, 16);
  }
  /* ST(0) as 80-bit extended: 1.0 is 0x3FFF 8000000000000000. */
  const uint8_t one[10] = {0, 0, 0, 0, 0, 0, 0, 0x80, 0xFF, 0x3F};
  uint8_t st[10];
  for (int r = X64EMU_REG_ST0; r <= X64EMU_REG_ST7; r++) {
    assert_int_equal(x64emu_reg_write(m, r, one), X64EMU_OK);
    assert_int_equal(x64emu_reg_read(m, r, st), X64EMU_OK);
    assert_memory_equal(st, one, 10);
  }
  set_reg(m, X64EMU_REG_FSW, 0x3800); /* TOP = 7 */
  assert_int_equal(reg(m, X64EMU_REG_FSW), 0x3800);
  set_reg(m, X64EMU_REG_FCW, 0x27F);
  assert_int_equal(reg(m, X64EMU_REG_FCW), 0x27F);
  uint64_t v;
  assert_int_equal(x64emu_reg_read(m, X64EMU_REG_COUNT, &v), X64EMU_ERR_REG);
  assert_int_equal(x64emu_reg_write(m, -3, &v), X64EMU_ERR_REG);
  assert_int_equal(x64emu_reg_read(m, X64EMU_REG_RAX, NULL), X64EMU_ERR_ARG);
  x64emu_close(m);
}

/* A register's view holds what x64emu_reg_read gives, after writes and during runs. */
static const void *rip_view;
static uint64_t rip_seen_mismatch;

static void rip_by_view(x64emu *m, uint64_t address, unsigned length, void *user) {
  uint64_t rip;
  memcpy(&rip, rip_view, 8);
  if (rip != address || rip != reg(m, X64EMU_REG_RIP)) rip_seen_mismatch++;
}

static void test_register_views_hold_the_registers(void **state) {
  x64emu *m = machine_with(walk, sizeof walk, CODE);
  const void *view = NULL;
  for (int r = 0; r < X64EMU_REG_COUNT; r++) {
    x64emu_status st = x64emu_reg_view(m, r, &view);
    bool plain = r <= X64EMU_REG_R15 || r == X64EMU_REG_RIP || r == X64EMU_REG_FS_BASE ||
                 r == X64EMU_REG_GS_BASE || r == X64EMU_REG_MXCSR || r == X64EMU_REG_FCW ||
                 (r >= X64EMU_REG_XMM0 && r <= X64EMU_REG_XMM15);
    assert_int_equal(st, plain ? X64EMU_OK : X64EMU_ERR_REG);
    if (!plain) continue;
    uint8_t value[16] = {0}, read[16] = {0};
    for (size_t i = 0; i < sizeof value; i++) value[i] = (uint8_t)(0x11 * (i + 1) + r);
    if (r == X64EMU_REG_MXCSR) memcpy(value, &(uint32_t){0x1F80 | 0x3F}, 4);
    if (r == X64EMU_REG_FCW) memcpy(value, &(uint16_t){0x27F}, 2);
    if (r == X64EMU_REG_RIP || r == X64EMU_REG_RSP) continue; /* the run below needs them */
    assert_int_equal(x64emu_reg_write(m, r, value), X64EMU_OK);
    assert_int_equal(x64emu_reg_read(m, r, read), X64EMU_OK);
    assert_memory_equal(view, read, x64emu_reg_size(r));
  }
  assert_int_equal(x64emu_reg_view(m, X64EMU_REG_COUNT, &view), X64EMU_ERR_REG);
  assert_int_equal(x64emu_reg_view(m, -1, &view), X64EMU_ERR_REG);
  assert_int_equal(x64emu_reg_view(m, X64EMU_REG_RAX, NULL), X64EMU_ERR_ARG);
  assert_int_equal(x64emu_reg_view(NULL, X64EMU_REG_RAX, &view), X64EMU_ERR_ARG);
  /* During a run: RIP at every instruction, RAX and RCX at its end. */
  assert_int_equal(x64emu_reg_view(m, X64EMU_REG_RIP, &rip_view), X64EMU_OK);
  rip_seen_mismatch = 0;
  assert_int_equal(x64emu_hook_insn(m, 0, 0, rip_by_view, NULL, NULL), X64EMU_OK);
  x64emu_stop s;
  assert_int_equal(x64emu_run(m, 0, 0, &s), X64EMU_OK);
  assert_int_equal(rip_seen_mismatch, 0);
  const void *rax, *rcx;
  assert_int_equal(x64emu_reg_view(m, X64EMU_REG_RAX, &rax), X64EMU_OK);
  assert_int_equal(x64emu_reg_view(m, X64EMU_REG_RCX, &rcx), X64EMU_OK);
  assert_int_equal(*(const uint64_t *)rax, 7);
  assert_int_equal(*(const uint64_t *)rcx, 0);
  assert_int_equal(*(const uint64_t *)rip_view, CODE + WALK_FAULT_AT);
  x64emu_close(m);
}

/* ---- running ---- */

static void test_run_to_a_fault_and_the_stop_it_reports(void **state) {
  x64emu *m = machine_with(walk, sizeof walk, CODE);
  x64emu_stop s;
  assert_int_equal(x64emu_run(m, 0, 0, &s), X64EMU_OK);
  assert_int_equal(s.reason, X64EMU_STOP_FAULT);
  assert_int_equal(s.signal, SIGSEGV);
  assert_int_equal(s.code, SEGV_MAPERR);
  assert_int_equal(s.address, 0x10);
  assert_int_equal(reg(m, X64EMU_REG_RIP), CODE + WALK_FAULT_AT);
  assert_int_equal(reg(m, X64EMU_REG_RAX), 7);
  assert_int_equal(x64emu_icount(m), WALK_STEPS);
  char dst[6] = {0};
  assert_int_equal(x64emu_mem_read(m, CODE + WALK_DST, dst, 5), X64EMU_OK);
  assert_string_equal(dst, "hello");
  x64emu_close(m);
}

static void test_run_until_an_address_inside_a_block(void **state) {
  x64emu *m = machine_with(walk, sizeof walk, CODE);
  x64emu_stop s;
  /* 0x1d (mov ecx, 5) is in the middle of the block that starts after the loop. */
  assert_int_equal(x64emu_run(m, CODE + 0x1d, 0, &s), X64EMU_OK);
  assert_int_equal(s.reason, X64EMU_STOP_UNTIL);
  assert_int_equal(reg(m, X64EMU_REG_RIP), CODE + 0x1d);
  assert_int_equal(reg(m, X64EMU_REG_RAX), 6);
  assert_int_equal(x64emu_icount(m), 2 + 3 * 3 + 2);
  x64emu_close(m);
}

/* The registers and memory a test compares after stepping and after running. */
typedef struct Snapshot {
  uint64_t r[X64EMU_REG_MXCSR + 1];
  uint8_t xmm[16][16];
  uint8_t page[PAGE];
  uint64_t icount;
  x64emu_stop stop;
} Snapshot;

static void snapshot(x64emu *m, const x64emu_stop *s, Snapshot *out) {
  memset(out, 0, sizeof *out);
  for (int r = 0; r <= X64EMU_REG_MXCSR; r++) assert_int_equal(x64emu_reg_read(m, r, &out->r[r]), X64EMU_OK);
  for (int i = 0; i < 16; i++) assert_int_equal(x64emu_reg_read(m, X64EMU_REG_XMM0 + i, out->xmm[i]), X64EMU_OK);
  assert_int_equal(x64emu_mem_read(m, CODE, out->page, PAGE), X64EMU_OK);
  out->icount = x64emu_icount(m);
  out->stop = *s;
}

/* For every n: n single steps and one run of n instructions end in the same state, across
 * block boundaries, the loop, every iteration of the REP, the call and the fault. */
static void test_stepping_n_times_equals_running_n_instructions(void **state) {
  for (unsigned n = 1; n <= WALK_STEPS + 1; n++) {
    x64emu *a = machine_with(walk, sizeof walk, CODE);
    x64emu_stop sa, sb;
    unsigned steps = 0;
    do {
      assert_int_equal(x64emu_step(a, &sa), X64EMU_OK);
      steps++;
    } while (steps < n && sa.reason == X64EMU_STOP_COUNT);
    static Snapshot after_steps, after_run;
    snapshot(a, &sa, &after_steps);
    x64emu_close(a);

    x64emu *b = machine_with(walk, sizeof walk, CODE);
    assert_int_equal(x64emu_run(b, 0, n, &sb), X64EMU_OK);
    snapshot(b, &sb, &after_run);
    x64emu_close(b);
    assert_memory_equal(&after_steps, &after_run, sizeof after_steps);
    if (n <= WALK_STEPS) {
      assert_int_equal(sa.reason, X64EMU_STOP_COUNT);
      assert_int_equal(after_run.icount, n);
    } else {
      assert_int_equal(sa.reason, X64EMU_STOP_FAULT);
    }
  }
}

static void test_a_rep_string_instruction_steps_one_iteration(void **state) {
  x64emu *m = machine_with(walk, sizeof walk, CODE);
  x64emu_stop s;
  assert_int_equal(x64emu_run(m, CODE + WALK_REP_AT, 0, &s), X64EMU_OK);
  for (uint64_t left = 4; left > 0; left--) {
    assert_int_equal(x64emu_step(m, &s), X64EMU_OK);
    assert_int_equal(s.reason, X64EMU_STOP_COUNT);
    assert_int_equal(reg(m, X64EMU_REG_RIP), CODE + WALK_REP_AT); /* the same instruction */
    assert_int_equal(reg(m, X64EMU_REG_RCX), left);
  }
  assert_int_equal(x64emu_step(m, &s), X64EMU_OK);
  assert_int_equal(reg(m, X64EMU_REG_RCX), 0);
  assert_int_equal(reg(m, X64EMU_REG_RIP), CODE + WALK_CALL_AT);
  x64emu_close(m);
}

static void test_breakpoints_stop_before_their_instruction(void **state) {
  x64emu *m = machine_with(walk, sizeof walk, CODE);
  x64emu_stop s;
  assert_int_equal(x64emu_breakpoint_add(m, CODE + 0xa), X64EMU_OK); /* dec rcx, in the loop */
  assert_int_equal(x64emu_breakpoint_add(m, CODE + 0xa), X64EMU_OK); /* twice is once */
  for (uint64_t rcx = 3; rcx > 0; rcx--) {
    assert_int_equal(x64emu_run(m, 0, 0, &s), X64EMU_OK);
    assert_int_equal(s.reason, X64EMU_STOP_BREAKPOINT);
    assert_int_equal(reg(m, X64EMU_REG_RIP), CODE + 0xa);
    assert_int_equal(reg(m, X64EMU_REG_RCX), rcx); /* not yet decremented */
  }
  assert_int_equal(x64emu_breakpoint_remove(m, CODE + 0xa), X64EMU_OK);
  assert_int_equal(x64emu_breakpoint_remove(m, CODE + 0xa), X64EMU_ERR_ARG);
  assert_int_equal(x64emu_run(m, 0, 0, &s), X64EMU_OK);
  assert_int_equal(s.reason, X64EMU_STOP_FAULT);
  x64emu_close(m);
}

/* ---- hooks ---- */

typedef struct Seen {
  uint64_t insns, blocks, first_block_len, last_address;
  uint64_t stop_at; /* an instruction hook stops the run here */
  x64emu *m;
} Seen;

static void count_insn(x64emu *m, uint64_t address, unsigned length, void *user) {
  Seen *seen = user;
  seen->insns++;
  seen->last_address = address;
  assert_true(length > 0 && length <= 15);
  uint64_t rip = 0;
  x64emu_reg_read(m, X64EMU_REG_RIP, &rip);
  assert_int_equal(rip, address);
  if (address == seen->stop_at) x64emu_stop_run(m);
}

static void count_block(x64emu *m, uint64_t address, uint64_t length, void *user) {
  Seen *seen = user;
  if (seen->blocks++ == 0) seen->first_block_len = length;
}

static void test_instruction_and_block_hooks(void **state) {
  x64emu *m = machine_with(walk, sizeof walk, CODE);
  Seen seen = {.stop_at = ~0ull}, in_fn = {.stop_at = ~0ull};
  int all, fn, blocks;
  assert_int_equal(x64emu_hook_insn(m, 0, 0, count_insn, &seen, &all), X64EMU_OK);
  assert_int_equal(x64emu_hook_insn(m, CODE + WALK_FN_AT, CODE + WALK_FN_AT + 4, count_insn, &in_fn, &fn), X64EMU_OK);
  assert_int_equal(x64emu_hook_block(m, 0, 0, count_block, &seen, &blocks), X64EMU_OK);
  assert_int_equal(x64emu_hook_insn(m, 10, 5, count_insn, &seen, NULL), X64EMU_ERR_ARG);
  assert_int_equal(x64emu_hook_insn(m, 0, 0, NULL, &seen, NULL), X64EMU_ERR_ARG);
  x64emu_stop s;
  assert_int_equal(x64emu_run(m, 0, 0, &s), X64EMU_OK);
  assert_int_equal(s.reason, X64EMU_STOP_FAULT);
  /* Each instruction once, the REP once per iteration, the faulting one too (it began). */
  assert_int_equal(seen.insns, WALK_STEPS + 1);
  assert_int_equal(in_fn.insns, 2);  /* inc rax; ret */
  assert_int_equal(seen.last_address, CODE + WALK_FAULT_AT);
  /* Blocks: entry (to jnz) 15 bytes, the loop twice more, lea..rep, the REP's four
   * other iterations (each a jump to itself, as hooks see it), call, fn, the faulting one. */
  assert_int_equal(seen.blocks, 1 + 2 + 1 + 4 + 1 + 1 + 1);
  assert_int_equal(seen.first_block_len, 15);
  assert_int_equal(x64emu_hook_remove(m, fn), X64EMU_OK);
  assert_int_equal(x64emu_hook_remove(m, fn), X64EMU_ERR_HOOK);
  assert_int_equal(x64emu_hook_remove(m, all), X64EMU_OK);
  assert_int_equal(x64emu_hook_remove(m, blocks), X64EMU_OK);
  x64emu_close(m);
}

/* What is for between runs, tried from inside one. */
static void try_between_runs_calls(x64emu *m, uint64_t address, unsigned length, void *user) {
  int *tried = user;
  if ((*tried)++) return;
  x64emu_stop s;
  assert_int_equal(x64emu_run(m, 0, 0, &s), X64EMU_ERR_RUNNING);
  assert_int_equal(x64emu_step(m, &s), X64EMU_ERR_RUNNING);
  assert_int_equal(x64emu_breakpoint_add(m, address), X64EMU_ERR_RUNNING);
  assert_int_equal(x64emu_breakpoint_remove(m, address), X64EMU_ERR_RUNNING);
  assert_int_equal(x64emu_hook_insn(m, 0, 0, try_between_runs_calls, user, NULL), X64EMU_ERR_RUNNING);
  assert_int_equal(x64emu_hook_remove(m, 1), X64EMU_ERR_RUNNING);
}

/* A hook that moves RIP: the run goes on at the new address as if it had jumped there,
 * so a breakpoint there stops it before its instruction (only the breakpoint where a run
 * starts is passed over). */
static void jump_to_fn(x64emu *m, uint64_t address) {
  if (address != CODE) return;
  uint64_t fn = CODE + WALK_FN_AT;
  assert_int_equal(x64emu_reg_write(m, X64EMU_REG_RIP, &fn), X64EMU_OK);
}

static void jump_from_insn(x64emu *m, uint64_t address, unsigned length, void *user) {
  jump_to_fn(m, address);
}

static void jump_from_block(x64emu *m, uint64_t address, uint64_t length, void *user) {
  jump_to_fn(m, address);
}

static void test_a_hook_that_moves_rip_meets_the_breakpoint_there(void **state) {
  for (int block = 0; block < 2; block++) {
    x64emu *m = machine_with(walk, sizeof walk, CODE);
    if (block) assert_int_equal(x64emu_hook_block(m, 0, 0, jump_from_block, NULL, NULL), X64EMU_OK);
    else assert_int_equal(x64emu_hook_insn(m, CODE, CODE + 1, jump_from_insn, NULL, NULL), X64EMU_OK);
    assert_int_equal(x64emu_breakpoint_add(m, CODE + WALK_FN_AT), X64EMU_OK);
    x64emu_stop s;
    assert_int_equal(x64emu_run(m, 0, 0, &s), X64EMU_OK);
    assert_int_equal(s.reason, X64EMU_STOP_BREAKPOINT);
    assert_int_equal(reg(m, X64EMU_REG_RIP), CODE + WALK_FN_AT);
    assert_int_equal(x64emu_icount(m), 0);
    assert_int_equal(reg(m, X64EMU_REG_RAX), 0); /* inc rax has not run */
    x64emu_close(m);
  }
}

static void test_runs_and_hook_changes_are_refused_inside_a_run(void **state) {
  x64emu *m = machine_with(walk, sizeof walk, CODE);
  int tried = 0;
  assert_int_equal(x64emu_hook_insn(m, 0, 0, try_between_runs_calls, &tried, NULL), X64EMU_OK);
  x64emu_stop s;
  assert_int_equal(x64emu_run(m, 0, 0, &s), X64EMU_OK);
  assert_int_equal(s.reason, X64EMU_STOP_FAULT); /* the run itself went on */
  assert_true(tried > 1);
  x64emu_close(m);
}

static void test_a_hook_stops_the_run_before_an_instruction(void **state) {
  x64emu *m = machine_with(walk, sizeof walk, CODE);
  Seen seen = {.stop_at = CODE + WALK_CALL_AT};
  assert_int_equal(x64emu_hook_insn(m, 0, 0, count_insn, &seen, NULL), X64EMU_OK);
  x64emu_stop s;
  assert_int_equal(x64emu_run(m, 0, 0, &s), X64EMU_OK);
  assert_int_equal(s.reason, X64EMU_STOP_REQUESTED);
  assert_int_equal(reg(m, X64EMU_REG_RIP), CODE + WALK_CALL_AT);
  assert_int_equal(x64emu_icount(m), 2 + 9 + 3 + 5); /* the call has not run */
  seen.stop_at = ~0ull;
  assert_int_equal(x64emu_run(m, 0, 0, &s), X64EMU_OK);
  assert_int_equal(s.reason, X64EMU_STOP_FAULT);
  assert_int_equal(reg(m, X64EMU_REG_RAX), 7);
  x64emu_close(m);
}

/* A block hook alone: the blocks run chained, each first calling the hook with rip at
 * its start, as with instruction hooks (test_instruction_and_block_hooks); stopping
 * there stops before the block. */
static void stop_at_block(x64emu *m, uint64_t address, uint64_t length, void *user) {
  Seen *seen = user;
  seen->blocks++;
  uint64_t rip = 0;
  x64emu_reg_read(m, X64EMU_REG_RIP, &rip);
  assert_int_equal(rip, address);
  if (address == seen->stop_at) x64emu_stop_run(m);
}

static void test_a_block_hook_sees_every_block_and_stops_the_run(void **state) {
  x64emu *m = machine_with(walk, sizeof walk, CODE);
  Seen seen = {.stop_at = CODE + 7}; /* the loop (add rax, rcx; dec rcx; jnz) */
  assert_int_equal(x64emu_hook_block(m, 0, 0, stop_at_block, &seen, NULL), X64EMU_OK);
  x64emu_stop s;
  assert_int_equal(x64emu_run(m, 0, 0, &s), X64EMU_OK);
  assert_int_equal(s.reason, X64EMU_STOP_REQUESTED);
  assert_int_equal(reg(m, X64EMU_REG_RIP), CODE + 7);
  assert_int_equal(x64emu_icount(m), 5); /* the entry block's, up to its jnz */
  assert_int_equal(seen.blocks, 2);
  seen.stop_at = ~0ull;
  assert_int_equal(x64emu_run(m, 0, 0, &s), X64EMU_OK);
  assert_int_equal(s.reason, X64EMU_STOP_FAULT);
  assert_int_equal(reg(m, X64EMU_REG_RAX), 7);
  assert_int_equal(x64emu_icount(m), WALK_STEPS);
  /* The blocks of test_instruction_and_block_hooks, and the loop's again on the way on. */
  assert_int_equal(seen.blocks, 1 + 2 + 1 + 4 + 1 + 1 + 1 + 1);
  x64emu_close(m);

  /* A run with a budget takes the loop an instruction at a time once too few are left
   * for it, and calls the hook for it itself. */
  m = machine_with(walk, sizeof walk, CODE);
  seen = (Seen){.stop_at = ~0ull};
  assert_int_equal(x64emu_hook_block(m, 0, 0, stop_at_block, &seen, NULL), X64EMU_OK);
  assert_int_equal(x64emu_run(m, 0, 6, &s), X64EMU_OK);
  assert_int_equal(s.reason, X64EMU_STOP_COUNT);
  assert_int_equal(x64emu_icount(m), 6);
  assert_int_equal(seen.blocks, 2);
  x64emu_close(m);
}

/* exit(7) comes back to the syscall hook, which answers 42 in RAX; UD2 to the invalid
 * instruction hook, which skips it; then the run ends at the page's zero bytes... which
 * are `add [rax], al` with RAX = 42: a fault that the fault hook declines. */
static bool on_syscall(x64emu *m, const x64emu_stop *event, void *user) {
  int *calls = user;
  (*calls)++;
  assert_int_equal(event->reason, X64EMU_STOP_SYSCALL);
  assert_int_equal(reg(m, X64EMU_REG_RAX), 60);
  assert_int_equal(reg(m, X64EMU_REG_RDI), 7);
  set_reg(m, X64EMU_REG_RAX, 42);
  return true;
}

static bool on_invalid(x64emu *m, const x64emu_stop *event, void *user) {
  int *calls = user;
  (*calls)++;
  assert_int_equal(event->signal, SIGILL);
  set_reg(m, X64EMU_REG_RIP, reg(m, X64EMU_REG_RIP) + 2);
  return true;
}

static bool on_fault(x64emu *m, const x64emu_stop *event, void *user) {
  int *calls = user;
  (*calls)++;
  return false;
}

static void test_event_hooks_handle_or_decline(void **state) {
  x64emu *m = machine_with(sys_then_ud2, sizeof sys_then_ud2, CODE);
  int syscalls = 0, invalids = 0, faults = 0;
  assert_int_equal(x64emu_hook_syscall(m, on_syscall, &syscalls, NULL), X64EMU_OK);
  assert_int_equal(x64emu_hook_invalid(m, on_invalid, &invalids, NULL), X64EMU_OK);
  assert_int_equal(x64emu_hook_fault(m, on_fault, &faults, NULL), X64EMU_OK);
  x64emu_stop s;
  assert_int_equal(x64emu_run(m, 0, 0, &s), X64EMU_OK);
  assert_int_equal(syscalls, 1);
  assert_int_equal(invalids, 1);
  assert_int_equal(faults, 1);
  assert_int_equal(reg(m, X64EMU_REG_RBX), 42);
  assert_int_equal(s.reason, X64EMU_STOP_FAULT);
  assert_int_equal(s.signal, SIGSEGV);
  assert_int_equal(s.address, 42);
  x64emu_close(m);
  /* Without hooks the system call is the stop. */
  m = machine_with(sys_then_ud2, sizeof sys_then_ud2, CODE);
  assert_int_equal(x64emu_run(m, 0, 0, &s), X64EMU_OK);
  assert_int_equal(s.reason, X64EMU_STOP_SYSCALL);
  assert_int_equal(reg(m, X64EMU_REG_RIP), CODE + 12);
  assert_int_equal(reg(m, X64EMU_REG_RCX), CODE + 12);
  x64emu_close(m);
}

/* Another thread stops a machine that runs `jmp $` forever. */
static void *stop_later(void *m) {
  while (x64emu_icount(m) < 1000000) {
  }
  x64emu_stop_run(m);
  return NULL;
}

static void test_another_thread_stops_the_run(void **state) {
  static const uint8_t spin[] = {0xeb, 0xfe}; /* jmp $ */
  x64emu *m = machine_with(spin, sizeof spin, CODE);
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, stop_later, m), 0);
  x64emu_stop s;
  assert_int_equal(x64emu_run(m, 0, 0, &s), X64EMU_OK);
  pthread_join(t, NULL);
  assert_int_equal(s.reason, X64EMU_STOP_REQUESTED);
  assert_int_equal(reg(m, X64EMU_REG_RIP), CODE);
  assert_true(x64emu_icount(m) >= 1000000);
  x64emu_close(m);
}

/* A fault hook that maps the page the guest touched, the way a lazy loader would. */
static bool map_on_demand(x64emu *m, const x64emu_stop *event, void *user) {
  if (event->signal != SIGSEGV || event->code != SEGV_MAPERR) return false;
  return x64emu_mem_map(m, event->address & ~(PAGE - 1), PAGE, X64EMU_PROT_READ) == X64EMU_OK;
}

static void test_a_fault_hook_maps_memory_and_the_run_goes_on(void **state) {
  /* mov rbx, [0x30000010]; syscall */
  static const uint8_t load[] = {0x48, 0x8b, 0x1c, 0x25, 0x10, 0x00, 0x00, 0x30, 0x0f, 0x05};
  x64emu *m = machine_with(load, sizeof load, CODE);
  assert_int_equal(x64emu_hook_fault(m, map_on_demand, NULL, NULL), X64EMU_OK);
  assert_int_equal(x64emu_hook_fault(m, map_on_demand, NULL, NULL), X64EMU_OK); /* adds a second */
  x64emu_stop s;
  assert_int_equal(x64emu_run(m, 0, 0, &s), X64EMU_OK);
  assert_int_equal(s.reason, X64EMU_STOP_SYSCALL);
  assert_int_equal(reg(m, X64EMU_REG_RBX), 0); /* a fresh page reads zero */
  assert_int_equal(x64emu_mem_read(m, 0x30000000, &(char){1}, 1), X64EMU_OK);
  x64emu_close(m); /* and unmaps it */
  assert_int_equal(x64emu_open(&m), X64EMU_OK);
  assert_int_equal(x64emu_mem_map(m, 0x30000000, PAGE, X64EMU_PROT_READ), X64EMU_OK);
  x64emu_close(m);
}

/* ---- two machines ---- */

static void test_two_machines_in_one_process(void **state) {
  x64emu *a = machine_with(walk, sizeof walk, CODE);
  x64emu *b = machine_with(walk, sizeof walk, CODE + 16 * PAGE);
  x64emu *c = NULL;
  assert_int_equal(x64emu_open(&c), X64EMU_OK);
  assert_int_equal(x64emu_mem_map(c, CODE, PAGE, X64EMU_PROT_READ), X64EMU_ERR_MAP_IN_USE);
  assert_int_equal(x64emu_mem_read(c, CODE, &(char){0}, 1), X64EMU_ERR_UNMAPPED);
  x64emu_close(c);
  x64emu_stop s;
  /* Interleaved: each keeps its own registers, count and decoded code. */
  assert_int_equal(x64emu_run(a, 0, 5, &s), X64EMU_OK);
  assert_int_equal(x64emu_run(b, 0, 3, &s), X64EMU_OK);
  assert_int_equal(x64emu_icount(a), 5);
  assert_int_equal(x64emu_icount(b), 3);
  assert_int_equal(x64emu_run(b, 0, 0, &s), X64EMU_OK);
  assert_int_equal(reg(b, X64EMU_REG_RIP), CODE + 16 * PAGE + WALK_FAULT_AT);
  assert_int_equal(x64emu_run(a, 0, 0, &s), X64EMU_OK);
  assert_int_equal(reg(a, X64EMU_REG_RIP), CODE + WALK_FAULT_AT);
  assert_int_equal(reg(a, X64EMU_REG_RAX), 7);
  x64emu_close(a);
  x64emu_close(b);
}

/* ---- Linux machines, disassembly ---- */

static const char *hello_path;

static void test_linux_machine_runs_a_program_to_its_exit(void **state) {
  char *argv[] = {"hello", NULL}, *envp[] = {"LANG=C", NULL};
  x64emu *m = NULL, *other = NULL;
  assert_int_equal(x64emu_open_linux(&m, "/nonexistent/program", argv, envp), X64EMU_ERR_LOAD);
  assert_non_null(strstr(x64emu_last_error(), "/nonexistent/program"));
  assert_int_equal(x64emu_open_linux(&m, hello_path, NULL, envp), X64EMU_ERR_ARG);
  assert_int_equal(x64emu_open_linux(&m, hello_path, argv, envp), X64EMU_OK);
  assert_int_equal(x64emu_open_linux(&other, hello_path, argv, envp), X64EMU_ERR_LINUX_IN_USE);
  x64emu_stop s;
  assert_int_equal(x64emu_step(m, &s), X64EMU_OK);
  assert_int_equal(s.reason, X64EMU_STOP_COUNT);
  assert_int_equal(x64emu_run(m, 0, 0, &s), X64EMU_OK);
  assert_int_equal(s.reason, X64EMU_STOP_EXIT);
  assert_int_equal(s.exit_status, 0);
  assert_int_equal(s.signal, 0);
  assert_true(x64emu_icount(m) > 1000);
  assert_int_equal(x64emu_run(m, 0, 0, &s), X64EMU_OK); /* still exited */
  assert_int_equal(s.reason, X64EMU_STOP_EXIT);
  x64emu_close(m);
  assert_int_equal(x64emu_open_linux(&m, hello_path, argv, envp), X64EMU_OK); /* free again */
  x64emu_close(m);
}

/* A Linux program whose faults reach its signal handlers, which map pages and change
 * the context (tests/guest/sig_fault.c): stepped to its end once, its RIP at every
 * count recorded; then run again in runs of varying counts, each of which must end where
 * stepping was at that count, across system calls, faults and signal frames. */
static const char *sig_fault_path;

/* A Linux program under a memory hook: its _start reads argc (1) at the entry RSP, as
 * the x86-64 ABI puts it there, and it still exits with 0. */
static int argc_reads;

static void argc_read(x64emu *m, int access, uint64_t address, unsigned size, const void *data,
                      void *user) {
  uint64_t v = 0;
  memcpy(&v, data, size < 8 ? size : 8);
  if (size == 8 && v == 1) argc_reads++;
}

static void test_linux_machine_with_a_memory_hook(void **state) {
  char *argv[] = {"hello", NULL}, *envp[] = {"LANG=C", NULL};
  x64emu *m = NULL;
  assert_int_equal(x64emu_open_linux(&m, hello_path, argv, envp), X64EMU_OK);
  uint64_t sp = reg(m, X64EMU_REG_RSP);
  argc_reads = 0;
  assert_int_equal(x64emu_hook_mem(m, X64EMU_MEM_READ, sp, sp + 8, argc_read, NULL, NULL), X64EMU_OK);
  x64emu_stop s;
  assert_int_equal(x64emu_run(m, 0, 0, &s), X64EMU_OK);
  assert_int_equal(s.reason, X64EMU_STOP_EXIT);
  assert_int_equal(s.exit_status, 0);
  assert_true(argc_reads >= 1);
  x64emu_close(m);
}

static void test_linux_stepping_equals_running_across_signals(void **state) {
  char *argv[] = {"sig_fault", NULL}, *envp[] = {"LANG=C", NULL};
  enum { MAX_STEPS = 1 << 20 };
  uint64_t *trace = malloc(MAX_STEPS * sizeof *trace);
  x64emu *m = NULL;
  x64emu_stop s;
  assert_int_equal(x64emu_open_linux(&m, sig_fault_path, argv, envp), X64EMU_OK);
  uint64_t n = 0;
  do {
    assert_true(n < MAX_STEPS);
    trace[n++] = reg(m, X64EMU_REG_RIP);
    assert_int_equal(x64emu_step(m, &s), X64EMU_OK);
  } while (s.reason == X64EMU_STOP_COUNT);
  x64emu_stop stepped_end = s;
  uint64_t steps = x64emu_icount(m);
  x64emu_close(m);
  assert_int_equal(stepped_end.reason, X64EMU_STOP_EXIT);
  assert_int_equal(stepped_end.signal, SIGSEGV); /* its last fault is on a blocked signal */
  assert_true(steps > 10000);

  assert_int_equal(x64emu_open_linux(&m, sig_fault_path, argv, envp), X64EMU_OK);
  static const uint64_t counts[] = {1, 7, 100, 1013, 3, 4099};
  unsigned runs = 0;
  for (;;) {
    assert_int_equal(x64emu_run(m, 0, counts[runs++ % 6], &s), X64EMU_OK);
    if (s.reason != X64EMU_STOP_COUNT) break;
    uint64_t at = x64emu_icount(m);
    assert_true(at < n);
    assert_int_equal(reg(m, X64EMU_REG_RIP), trace[at]);
  }
  assert_int_equal(s.reason, X64EMU_STOP_EXIT);
  assert_int_equal(s.signal, stepped_end.signal);
  assert_int_equal(x64emu_icount(m), steps);
  x64emu_close(m);
  free(trace);
}

static void test_disassembly_at_an_address(void **state) {
  x64emu *m = machine_with(walk, sizeof walk, CODE);
  char text[64];
  unsigned len = 0;
  assert_int_equal(x64emu_disasm(m, CODE + WALK_REP_AT, text, sizeof text, &len), X64EMU_OK);
  assert_int_equal(len, 2);
  assert_non_null(strstr(text, "movsb"));
  assert_int_equal(x64emu_disasm(m, CODE + WALK_FN_AT, text, sizeof text, &len), X64EMU_OK);
  assert_string_equal(text, "inc rax");
  assert_int_equal(x64emu_disasm(m, CODE - 16, text, sizeof text, &len), X64EMU_ERR_UNMAPPED);
  uint8_t bad[2] = {0x0f, 0x38}; /* cut short by the end of the mapping */
  assert_int_equal(x64emu_mem_write(m, CODE + PAGE - 2, bad, 2), X64EMU_OK);
  assert_int_equal(x64emu_disasm(m, CODE + PAGE - 2, text, sizeof text, &len), X64EMU_ERR_DECODE);
  assert_int_equal(x64emu_disasm(m, CODE, NULL, 0, &len), X64EMU_ERR_ARG);
  x64emu_close(m);
}

int main(int argc, char **argv) {
  hello_path = argc > 1 ? argv[1] : "tests/guest/hello";
  sig_fault_path = argc > 2 ? argv[2] : "tests/guest/sig_fault";
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_status_has_its_own_text),
      cmocka_unit_test(test_open_close_and_bad_arguments),
      cmocka_unit_test(test_memory_map_unmap_protect_read_write),
      cmocka_unit_test(test_every_register_reads_back_what_was_written),
      cmocka_unit_test(test_register_views_hold_the_registers),
      cmocka_unit_test(test_run_to_a_fault_and_the_stop_it_reports),
      cmocka_unit_test(test_run_until_an_address_inside_a_block),
      cmocka_unit_test(test_stepping_n_times_equals_running_n_instructions),
      cmocka_unit_test(test_a_rep_string_instruction_steps_one_iteration),
      cmocka_unit_test(test_breakpoints_stop_before_their_instruction),
      cmocka_unit_test(test_instruction_and_block_hooks),
      cmocka_unit_test(test_a_hook_stops_the_run_before_an_instruction),
      cmocka_unit_test(test_a_block_hook_sees_every_block_and_stops_the_run),
      cmocka_unit_test(test_a_hook_that_moves_rip_meets_the_breakpoint_there),
      cmocka_unit_test(test_runs_and_hook_changes_are_refused_inside_a_run),
      cmocka_unit_test(test_event_hooks_handle_or_decline),
      cmocka_unit_test(test_another_thread_stops_the_run),
      cmocka_unit_test(test_a_fault_hook_maps_memory_and_the_run_goes_on),
      cmocka_unit_test(test_two_machines_in_one_process),
      cmocka_unit_test(test_linux_machine_runs_a_program_to_its_exit),
      cmocka_unit_test(test_linux_machine_with_a_memory_hook),
      cmocka_unit_test(test_linux_stepping_equals_running_across_signals),
      cmocka_unit_test(test_disassembly_at_an_address),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
