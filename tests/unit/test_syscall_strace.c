/* test_syscall_strace.c: --strace lines, as strace prints them, captured from stderr. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "interp/fault.h"
#include "test_syscall_util.h"

#define AT_CWD ((uint64_t)(int64_t)-100)

static int saved_stderr = -1, capture[2];

static int setup(void **state) {
  test_cpu("/guest");
  test_proc.opt.strace = true;
  assert_int_equal(pipe(capture), 0);
  fflush(stderr);
  saved_stderr = dup(2);
  dup2(capture[1], 2);
  return 0;
}

static int teardown(void **state) {
  dup2(saved_stderr, 2);
  close(saved_stderr);
  close(capture[0]);
  close(capture[1]);
  return 0;
}

/* Everything the shim printed since the last check. */
static const char *captured(void) {
  static char buf[16384];
  fcntl(capture[0], F_SETFL, O_NONBLOCK);
  ssize_t n = read(capture[0], buf, sizeof buf - 1);
  buf[n > 0 ? n : 0] = 0;
  return buf;
}

/* Compares with the real stderr back in place, so that cmocka's report is seen. */
static void expect(const char *want) {
  const char *got = captured();
  dup2(saved_stderr, 2);
  assert_string_equal(got, want);
  dup2(capture[1], 2);
}

static void test_file_calls(void **state) {
  catch_guest_faults();
  SC4(openat, AT_CWD, "/nonexistent/passwd", 0, 0);
  expect("openat(AT_FDCWD, \"/nonexistent/passwd\", O_RDONLY) = -1 ENOENT (No such "
                      "file or directory)\n");
  char path[] = "/tmp/x64emu-strace-XXXXXX";
  close(mkstemp(path));
  int64_t fd = SC4(openat, AT_CWD, path, 01 | 0100 | 01000 | 02000000, 0644);
  char want[256];
  snprintf(want, sizeof want,
           "openat(AT_FDCWD, \"%s\", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0644) = %d\n", path,
           (int)fd);
  expect(want);
  SC1(close, fd);
  snprintf(want, sizeof want, "close(%d) = 0\n", (int)fd);
  expect(want);
  unlink(path);
  SC1(close, 999);
  expect("close(999) = -1 EBADF (Bad file descriptor)\n");
}

static void test_data_is_quoted_and_truncated(void **state) {
  catch_guest_faults();
  int p[2];
  assert_int_equal(pipe(p), 0);
  char want[512];
  SC3(write, p[1], "hi\n", 3);
  snprintf(want, sizeof want, "write(%d, \"hi\\n\", 3) = 3\n", p[1]);
  expect(want);

  char buf[4096];
  SC3(read, p[0], buf, sizeof buf);
  snprintf(want, sizeof want, "read(%d, \"hi\\n\", 4096) = 3\n", p[0]);
  expect(want);

  const char *forty = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
  SC3(write, p[1], forty, 40);
  snprintf(want, sizeof want, "write(%d, \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"..., 40) = 40\n", p[1]);
  expect(want);
  SC3(read, p[0], buf, sizeof buf);
  captured();

  SC3(write, p[1], "\x7f" "ELF\x02\x01\"\\\t" "\x1b" "1", 11);
  snprintf(want, sizeof want, "write(%d, \"\\177ELF\\2\\1\\\"\\\\\\t\\0331\", 11) = 11\n", p[1]);
  expect(want);
  close(p[0]);
  close(p[1]);
}

static void test_unknown_and_unprovided(void **state) {
  catch_guest_faults();
  test_sc6(0x1f0, 1, 2, 3, 4, 5, 6);
  expect("syscall_0x1f0(...) = -1 ENOSYS (Function not implemented)\n");
  SC2(io_uring_setup, 1, 2);
  expect("io_uring_setup(...) = -1 ENOSYS (Function not implemented)\n");
}

static void test_memory_and_process_calls(void **state) {
  catch_guest_faults();
  int64_t a = SC6(mmap, 0, 4096, 3, 0x22, -1, 0);
  char want[512];
  snprintf(want, sizeof want,
           "mmap(NULL, 4096, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = %#llx\n",
           (unsigned long long)a);
  expect(want);
  SC3(mprotect, a, 4096, 0);
  snprintf(want, sizeof want, "mprotect(%#llx, 4096, PROT_NONE) = 0\n", (unsigned long long)a);
  expect(want);
  SC2(munmap, a, 4096);
  captured();

  SC5(clone, 0x100 | 17, 0, 0, 0, 0);
  expect("clone(CLONE_VM|SIGCHLD, NULL, NULL, NULL, NULL) = -1 ENOSYS "
                                  "(Function not implemented)\n");
  SC2(arch_prctl, 0x1002, 0x5ec3c0);
  expect("arch_prctl(ARCH_SET_FS, 0x5ec3c0) = 0\n");
  SC4(rt_sigaction, 13, 0, 0, 8);
  expect("rt_sigaction(SIGPIPE, NULL, NULL, 8) = 0\n");
  SC2(access, "/", 4 | 1);
  expect("access(\"/\", R_OK|X_OK) = 0\n");
  SC3(lseek, 999, -5, 1);
  expect("lseek(999, -5, SEEK_CUR) = -1 EBADF (Bad file descriptor)\n");
  char *argv[] = {"prog", "a b", NULL}, *envp[] = {"A=1", "B=2", NULL};
  SC3(execve, "/nonexistent/prog", argv, envp);
  snprintf(want, sizeof want,
           "execve(\"/nonexistent/prog\", [\"prog\", \"a b\"], %p /* 2 vars */) = -1 ENOENT (No "
           "such file or directory)\n",
           (void *)envp);
  expect(want);
  SC1(exit_group, 3);
  expect("exit_group(3) = ?\n");
  test_proc.main.cpu.events = 0;
}

static void test_silent_without_the_option(void **state) {
  catch_guest_faults();
  test_proc.opt.strace = false;
  SC0(getpid);
  SC1(close, 999);
  expect("");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_file_calls, setup, teardown),
      cmocka_unit_test_setup_teardown(test_data_is_quoted_and_truncated, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unknown_and_unprovided, setup, teardown),
      cmocka_unit_test_setup_teardown(test_memory_and_process_calls, setup, teardown),
      cmocka_unit_test_setup_teardown(test_silent_without_the_option, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
