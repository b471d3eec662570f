/* test_syscall_buffers.c: a system call's buffers must be the guest's. A process whose
 * memory is noted (as the loader notes it) gets one page of guest memory and one read-only
 * page; the emulator's own memory (this program's data) passed as any buffer gives EFAULT
 * (after the kernel's own errors, as for memory the process does not have) and is left
 * as it was, and a transfer that runs off the guest's page stops there. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_syscall_util.h"

#define PG 4096

/* Memory of the emulator itself: never to be written for the guest. */
static uint8_t emulator_bytes[PG] __attribute__((aligned(PG)));
static uint8_t *guest, *guest_ro;
static int pipe_fds[2];

static int setup(void **state) {
  (void)state;
  test_cpu("/guest");
  test_proc.mem_noted = true;
  guest = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(guest != MAP_FAILED);
  guest_ro = guest + PG;
  memset(guest_ro, 'a', PG); /* a string with no end in the guest's memory */
  mprotect(guest_ro, PG, PROT_READ);
  ranges_add(&test_proc.machine.mem, U(guest), U(guest) + PG, GUEST_PROT_READ | GUEST_PROT_WRITE);
  ranges_add(&test_proc.machine.mem, U(guest_ro), U(guest_ro) + PG, GUEST_PROT_READ);
  memset(emulator_bytes, 0x5A, sizeof emulator_bytes);
  assert_int_equal(pipe(pipe_fds), 0);
  catch_guest_faults();
  return 0;
}

static int teardown(void **state) {
  (void)state;
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  munmap(guest, 2 * PG);
  return 0;
}

static void assert_emulator_untouched(void) {
  for (size_t i = 0; i < sizeof emulator_bytes; i++) assert_int_equal(emulator_bytes[i], 0x5A);
}

static void put_in_pipe(size_t n) {
  static const char data[64] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde";
  assert_int_equal(write(pipe_fds[1], data, n), (ssize_t)n);
}

static void test_reads_and_writes(void **state) {
  (void)state;
  put_in_pipe(16);
  assert_int_equal(SC3(read, pipe_fds[0], emulator_bytes, 16), -EFAULT);
  assert_int_equal(SC3(read, pipe_fds[0], guest_ro, 16), -EFAULT); /* read-only */
  /* The kernel's own errors come first: a pipe has no offset to read at. */
  assert_int_equal(SC4(pread64, pipe_fds[0], emulator_bytes, 16, 0), -ESPIPE);
  int zero = open("/dev/zero", O_RDONLY);
  assert_int_equal(SC4(pread64, zero, emulator_bytes, 16, 0), -EFAULT);
  close(zero);
  assert_int_equal(SC3(write, pipe_fds[1], emulator_bytes, 16), -EFAULT);
  /* Off the end of the guest's writable page: the part before it, as the kernel's copy. */
  assert_int_equal(SC3(read, pipe_fds[0], guest + PG - 8, 16), 8);
  assert_int_equal(SC3(read, pipe_fds[0], guest, 64), 8);
  struct iovec *iov = (struct iovec *)guest;
  iov[0] = (struct iovec){guest + 512, 4};
  iov[1] = (struct iovec){emulator_bytes, 4};
  put_in_pipe(8);
  assert_int_equal(SC3(readv, pipe_fds[0], iov, 2), 4); /* stops at the emulator's */
  assert_int_equal(SC3(readv, pipe_fds[0], emulator_bytes, 1), -EFAULT); /* the array itself */
  assert_int_equal(SC3(read, pipe_fds[0], guest, 64), 4);
  assert_emulator_untouched();
}

static void test_structures(void **state) {
  (void)state;
  assert_int_equal(SC2(clock_gettime, 0, emulator_bytes), -EFAULT);
  assert_int_equal(SC2(clock_gettime, 0, guest_ro), -EFAULT);
  assert_int_equal(SC2(clock_gettime, 0, guest), 0);
  assert_int_equal(SC2(fstat, pipe_fds[0], emulator_bytes), -EFAULT);
  assert_int_equal(SC2(uname, emulator_bytes, 0), -EFAULT);
  int tty = open("/dev/ptmx", O_RDWR | O_NOCTTY); /* a terminal: its ENOTTY is not first */
  assert_true(tty >= 0);
  assert_int_equal(SC3(ioctl, tty, 0x5413 /* TIOCGWINSZ */, emulator_bytes), -EFAULT);
  close(tty);
  assert_int_equal(SC3(getrandom, emulator_bytes, 16, 0), -EFAULT);
  assert_int_equal(SC2(getcwd, emulator_bytes, 64), -EFAULT);
  assert_int_equal(SC1(pipe, emulator_bytes), -EFAULT);
  assert_int_equal(SC2(rt_sigpending, emulator_bytes, 8), -EFAULT);
  /* A futex word and a timeout of the emulator's. */
  assert_int_equal(SC4(futex, emulator_bytes, 0 /* FUTEX_WAIT */, 0x5A5A5A5A, 0), -EFAULT);
  memset(guest, 0, 64);
  assert_int_equal(SC4(futex, guest, 0, 0, emulator_bytes), -EFAULT);
  /* select's sets, poll's array, a socket address, recvmsg's header. */
  assert_int_equal(SC5(select, 8, emulator_bytes, 0, 0, 0), -EFAULT);
  assert_int_equal(SC3(poll, emulator_bytes, 1, 0), -EFAULT);
  assert_int_equal(SC3(connect, 0, emulator_bytes, 16), -EFAULT);
  assert_int_equal(SC3(recvmsg, pipe_fds[0], emulator_bytes, 0), -ENOTSOCK); /* that first */
  int sv[2];
  assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
  assert_int_equal(SC3(recvmsg, sv[0], emulator_bytes, 0), -EFAULT);
  close(sv[0]);
  close(sv[1]);
  assert_emulator_untouched();
}

static void test_paths_and_strings(void **state) {
  (void)state;
  memcpy(emulator_bytes, "/etc/hostname", 14);
  assert_int_equal(SC3(open, emulator_bytes, O_RDONLY, 0), -EFAULT);
  assert_int_equal(SC2(access, emulator_bytes, 0), -EFAULT);
  memcpy(guest, "/etc/hostname", 14);
  int64_t fd = SC3(open, guest, O_RDONLY, 0);
  assert_true(fd >= 0);
  close((int)fd);
  /* A path that runs off the guest's memory without its NUL. */
  assert_int_equal(SC2(access, guest_ro + PG - 4, 0), -EFAULT);
  memset(emulator_bytes, 0x5A, sizeof emulator_bytes);
  /* execve's argv strings must be the guest's too. */
  uint64_t *argv = (uint64_t *)(guest + 256);
  argv[0] = U(emulator_bytes);
  argv[1] = 0;
  assert_int_equal(SC3(execve, guest, argv, 0), -EFAULT);
  assert_emulator_untouched();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_reads_and_writes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_structures, setup, teardown),
      cmocka_unit_test_setup_teardown(test_paths_and_strings, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
