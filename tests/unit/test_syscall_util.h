/* test_syscall_util.h: a hand-made guest CPU for calling syscall_dispatch directly in tests. */
#ifndef TEST_SYSCALL_UTIL_H
#define TEST_SYSCALL_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/fault.h"
#include "linux-user/process.h"
#include "linux-user/sys_nr.h"
#include "linux-user/syscall.h"

static Process test_proc;

/* A fresh process whose guest program is called exe_path (the one before is ended). */
static inline Cpu *test_cpu(const char *exe_path) {
  static bool made;
  if (made) process_destroy(&test_proc);
  made = process_init(&test_proc, exe_path);
  if (!made) {
    fprintf(stderr, "test: cannot make a process\n");
    exit(1);
  }
  return &test_proc.main.cpu;
}

/* A fresh scratch folder /tmp/x64emu-<what>-XXXXXX in dir[64], and its removal. */
static inline void scratch_dir_make(char dir[64], const char *what) {
  snprintf(dir, 64, "/tmp/x64emu-%s-XXXXXX", what);
  assert_non_null(mkdtemp(dir));
}

static inline int scratch_dir_remove(const char dir[64]) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  return system(cmd);
}

/* Bad guest pointers must give EFAULT through fault.c's handler; cmocka installs its own
 * SIGSEGV handler around every test, so each test that passes one calls this first. */
static inline void catch_guest_faults(void) { fault_install(); }

/* One guest `syscall` instruction: rax and the argument registers in, rax out. */
static inline int64_t test_sc6(uint64_t nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
                               uint64_t a4, uint64_t a5) {
  Cpu *c = &test_proc.main.cpu;
  c->r[RAX] = nr;
  c->r[RDI] = a0;
  c->r[RSI] = a1;
  c->r[RDX] = a2;
  c->r[R10] = a3;
  c->r[R8] = a4;
  c->r[R9] = a5;
  syscall_dispatch(c);
  return (int64_t)c->r[RAX];
}

#define U(x) ((uint64_t)(uintptr_t)(x))
#define SC0(nr) test_sc6(X64_NR_##nr, 0, 0, 0, 0, 0, 0)
#define SC1(nr, a) test_sc6(X64_NR_##nr, U(a), 0, 0, 0, 0, 0)
#define SC2(nr, a, b) test_sc6(X64_NR_##nr, U(a), U(b), 0, 0, 0, 0)
#define SC3(nr, a, b, c) test_sc6(X64_NR_##nr, U(a), U(b), U(c), 0, 0, 0)
#define SC4(nr, a, b, c, d) test_sc6(X64_NR_##nr, U(a), U(b), U(c), U(d), 0, 0)
#define SC5(nr, a, b, c, d, e) test_sc6(X64_NR_##nr, U(a), U(b), U(c), U(d), U(e), 0)
#define SC6(nr, a, b, c, d, e, f) test_sc6(X64_NR_##nr, U(a), U(b), U(c), U(d), U(e), U(f))

#endif
