/* test_syscall_mem.c: mmap family, brk and arch_prctl through the shim; the emulator's own memory stays out of reach. */
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
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "proc_maps.h"

#include "decoder/block.h"
#include "decoder/decode.h"
#include "interp/fault.h"
#include "loader/brk.h"
#include "test_syscall_util.h"

/* x86-64 values (uapi/asm-generic/mman-common.h, asm/prctl.h) */
#define X_PROT_READ 1
#define X_PROT_WRITE 2
#define X_PROT_EXEC 4
#define X_MAP_PRIVATE 0x02
#define X_MAP_FIXED 0x10
#define X_MAP_ANON 0x20
#define X_MREMAP_MAYMOVE 1
#define X_ARCH_SET_GS 0x1001
#define X_ARCH_SET_FS 0x1002
#define X_ARCH_GET_FS 0x1003
#define X_ARCH_GET_GS 0x1004
#define PG 4096

/* Memory of the emulator itself (this test program's data). */
static uint8_t emulator_page[2 * PG] __attribute__((aligned(PG)));

static int setup(void **state) {
  test_cpu("/guest");
  return 0;
}


static uint64_t guest_anon(uint64_t len) {
  int64_t r = SC6(mmap, 0, len, X_PROT_READ | X_PROT_WRITE, X_MAP_PRIVATE | X_MAP_ANON, -1, 0);
  assert_true(r > 0 && (r & (PG - 1)) == 0);
  return (uint64_t)r;
}

static void test_mmap_munmap_round_trip(void **state) {
  catch_guest_faults();
  uint64_t a = guest_anon(3 * PG);
  assert_string_equal(maps_perms(a), "rw-p");
  memset((void *)a, 0x5a, 3 * PG);
  assert_int_equal(((uint8_t *)a)[3 * PG - 1], 0x5a);
  assert_int_equal(SC2(munmap, a, 3 * PG), 0);
  assert_string_equal(maps_perms(a), "");
  assert_string_equal(maps_perms(a + 2 * PG), "");
  assert_int_equal(SC2(munmap, a + 1, PG), -EINVAL);
  assert_int_equal(SC6(mmap, 0, 0, X_PROT_READ, X_MAP_PRIVATE | X_MAP_ANON, -1, 0), -EINVAL);

  /* a file mapping */
  char path[] = "/tmp/x64emu-mmap-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, "mapped file", 11), 11);
  int64_t m = SC6(mmap, 0, 11, X_PROT_READ, X_MAP_PRIVATE, fd, 0);
  assert_true(m > 0);
  assert_memory_equal((void *)m, "mapped file", 11);
  assert_int_equal(SC2(munmap, m, 11), 0);
  assert_int_equal(SC6(mmap, 0, 11, X_PROT_READ, X_MAP_PRIVATE, fd, 100), -EINVAL);
  close(fd);
  unlink(path);
}

static void test_fixed_over_emulator_memory_is_refused(void **state) {
  catch_guest_faults();
  uint64_t emu = (uint64_t)(uintptr_t)emulator_page;
  memset(emulator_page, 0xe5, sizeof emulator_page);
  assert_int_equal(SC6(mmap, emu, PG, X_PROT_READ | X_PROT_WRITE,
                       X_MAP_PRIVATE | X_MAP_ANON | X_MAP_FIXED, -1, 0),
                   -ENOMEM);
  assert_int_equal(SC2(munmap, emu, PG), -EINVAL);
  assert_int_equal(SC3(mprotect, emu, PG, X_PROT_READ), -ENOMEM);
  assert_int_equal(SC3(madvise, emu, PG, MADV_DONTNEED), -EINVAL);
  assert_int_equal(SC5(mremap, emu, PG, 2 * PG, X_MREMAP_MAYMOVE, 0), -EFAULT);
  for (size_t i = 0; i < sizeof emulator_page; i++) assert_int_equal(emulator_page[i], 0xe5);
  assert_string_equal(maps_perms(emu), "rw-p");

  /* half emulator, half guest is refused too */
  uint8_t *e = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(e != MAP_FAILED);
  e[0] = 0xe5;
  assert_int_equal(munmap(e + PG, PG), 0);
  uint64_t g = (uint64_t)(uintptr_t)(e + PG);
  assert_int_equal(SC6(mmap, g, PG, X_PROT_READ | X_PROT_WRITE,
                       X_MAP_PRIVATE | X_MAP_ANON | X_MAP_FIXED, -1, 0),
                   g); /* a hole: free for the guest */
  assert_int_equal(SC2(munmap, (uint64_t)(uintptr_t)e, 2 * PG), -EINVAL);
  assert_int_equal(SC3(mprotect, (uint64_t)(uintptr_t)e, 2 * PG, X_PROT_READ), -ENOMEM);
  assert_int_equal(e[0], 0xe5);
  assert_string_equal(maps_perms((uint64_t)(uintptr_t)e), "rw-p");
  assert_int_equal(SC2(munmap, g, PG), 0);
  munmap(e, PG);
  /* harmless advice is allowed everywhere */
  assert_int_equal(SC3(madvise, emu, PG, MADV_WILLNEED), 0);
}

/* System V shared memory is attached among the guest's mappings, never over the
 * emulator's, and shmdt gives the place back. */
static void test_shmat_keeps_to_guest_memory(void **state) {
  catch_guest_faults();
  int id = shmget(IPC_PRIVATE, 3 * PG, IPC_CREAT | 0600);
  assert_true(id >= 0);
  uint64_t emu = (uint64_t)(uintptr_t)emulator_page;
  memset(emulator_page, 0xe5, sizeof emulator_page);
  assert_int_equal(SC3(shmat, id, emu, SHM_REMAP), -EINVAL);
  assert_int_equal(SC3(shmat, id, emu + 1, SHM_RND | SHM_REMAP), -EINVAL);
  for (size_t i = 0; i < sizeof emulator_page; i++) assert_int_equal(emulator_page[i], 0xe5);

  int64_t at = SC3(shmat, id, 0, 0);
  assert_true(at > 0 && (at & (PG - 1)) == 0);
  assert_string_equal(maps_perms((uint64_t)at), "rw-s");
  ((uint8_t *)at)[3 * PG - 1] = 7;
  /* the attachment is the guest's: mprotect and a fixed mapping beside it are allowed */
  assert_int_equal(SC3(mprotect, at, PG, X_PROT_READ), 0);
  assert_int_equal(SC1(shmdt, at + PG), -EINVAL); /* not where one starts */
  assert_int_equal(SC1(shmdt, at), 0);
  assert_int_equal(SC1(shmdt, at), -EINVAL);
  assert_int_equal(SC3(mprotect, at, PG, X_PROT_READ), -ENOMEM); /* nothing there now */
  /* attached again where it was, by address, then read-only */
  assert_int_equal(SC3(shmat, id, at, SHM_RDONLY), at);
  assert_int_equal(((uint8_t *)at)[3 * PG - 1], 7);
  assert_string_equal(maps_perms((uint64_t)at), "r--s");
  assert_int_equal(SC1(shmdt, at), 0);
  assert_int_equal(shmctl(id, IPC_RMID, NULL), 0);
  assert_int_equal(SC3(shmat, id, 0, 0), -EINVAL); /* removed */
}

/* A memory policy reaches the guest's pages only: the emulator's memory is a hole to the
 * guest's mbind, get_mempolicy and move_pages, and its own policy stays the default. */
static void test_numa_keeps_to_guest_memory(void **state) {
  catch_guest_faults();
  enum { BIND = 2, F_ADDR = 2 };
  unsigned long node0 = 1;
  uint64_t emu = (uint64_t)(uintptr_t)emulator_page, guest = guest_anon(PG);
  memset(emulator_page, 0xe5, sizeof emulator_page);
  memset((void *)guest, 1, PG);
  assert_int_equal(SC6(mbind, emu, PG, BIND, (uint64_t)(uintptr_t)&node0, 2, 0), -EFAULT);
  assert_int_equal(SC6(mbind, emu, PG, 0, 0, 0, 0), -EFAULT);
  assert_int_equal(SC6(mbind, guest, PG, BIND, (uint64_t)(uintptr_t)&node0, 2, 0), 0);
  int mode = -1;
  assert_int_equal(SC5(get_mempolicy, (uint64_t)(uintptr_t)&mode, 0, 0, emu, F_ADDR), -EFAULT);
  assert_int_equal(SC5(get_mempolicy, (uint64_t)(uintptr_t)&mode, 0, 0, guest, F_ADDR), 0);
  assert_int_equal(mode, BIND);
  assert_int_equal(syscall(SYS_get_mempolicy, &mode, NULL, 0, emulator_page, F_ADDR), 0);
  assert_int_equal(mode, 0); /* the emulator's own, untouched */
  uint64_t pages[2] = {emu, guest};
  int status[2] = {9, 9};
  assert_int_equal(SC6(move_pages, 0, 2, (uint64_t)(uintptr_t)pages, 0, (uint64_t)(uintptr_t)status, 0), 0);
  assert_int_equal(status[0], -EFAULT);
  assert_int_equal(status[1], 0); /* node 0 */
  for (size_t i = 0; i < sizeof emulator_page; i++) assert_int_equal(emulator_page[i], 0xe5);
  assert_int_equal(SC2(munmap, guest, PG), 0);
}

static void test_fixed_over_guest_memory_replaces_it(void **state) {
  catch_guest_faults();
  uint64_t a = guest_anon(3 * PG);
  memset((void *)a, 0x11, 3 * PG);
  int64_t r = SC6(mmap, a + PG, PG, X_PROT_READ | X_PROT_WRITE,
                  X_MAP_PRIVATE | X_MAP_ANON | X_MAP_FIXED, -1, 0);
  assert_int_equal(r, a + PG);
  assert_int_equal(((uint8_t *)a)[PG - 1], 0x11);
  assert_int_equal(((uint8_t *)a)[PG], 0);
  assert_int_equal(((uint8_t *)a)[2 * PG], 0x11);

  /* a hole punched in the middle leaves both sides the guest's */
  assert_int_equal(SC2(munmap, a + PG, PG), 0);
  assert_int_equal(SC3(mprotect, a, PG, X_PROT_READ), 0);
  assert_int_equal(SC3(mprotect, a + 2 * PG, PG, X_PROT_READ), 0);
  assert_string_equal(maps_perms(a + 2 * PG), "r--p");
  assert_int_equal(SC3(mprotect, a, 3 * PG, X_PROT_READ), -ENOMEM); /* the kernel: a hole */

  /* MAP_FIXED where nothing is mapped at all */
  uint64_t hole = guest_anon(2 * PG);
  assert_int_equal(munmap((void *)hole, 2 * PG), 0); /* unmapped behind the shim's back */
  r = SC6(mmap, hole, PG, X_PROT_READ, X_MAP_PRIVATE | X_MAP_ANON | X_MAP_FIXED, -1, 0);
  assert_int_equal(r, hole);
  assert_int_equal(SC2(munmap, hole, PG), 0);
  assert_int_equal(SC2(munmap, a, 3 * PG), 0);
}

static void test_mprotect_and_mremap(void **state) {
  catch_guest_faults();
  uint64_t a = guest_anon(2 * PG);
  strcpy((char *)a, "keep me");
  assert_int_equal(SC3(mprotect, a, PG, X_PROT_READ), 0);
  assert_string_equal(maps_perms(a), "r--p");
  /* the kernel now refuses to write there */
  int p[2];
  assert_int_equal(pipe(p), 0);
  assert_int_equal(write(p[1], "x", 1), 1);
  assert_int_equal(SC3(read, p[0], a, 1), -EFAULT);
  close(p[0]);
  close(p[1]);
  /* guest code is read by the decoder: executable-only still reads */
  assert_int_equal(SC3(mprotect, a, PG, X_PROT_EXEC), 0);
  assert_int_equal(maps_perms(a)[0], 'r');
  assert_int_equal(SC3(mprotect, a, PG, X_PROT_READ | X_PROT_WRITE), 0);

  int64_t b = SC5(mremap, a, 2 * PG, 64 * PG, X_MREMAP_MAYMOVE, 0);
  assert_true(b > 0);
  assert_string_equal((char *)b, "keep me");
  ((char *)b)[64 * PG - 1] = 1;
  /* the moved mapping is the guest's: it can be unmapped */
  assert_int_equal(SC2(munmap, b, 64 * PG), 0);
  assert_string_equal(maps_perms((uint64_t)b), "");
}

static void test_brk(void **state) {
  catch_guest_faults();
  void *res = mmap(NULL, 256 * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  assert_true(res != MAP_FAILED);
  uint64_t start = (uint64_t)(uintptr_t)res;
  brk_adopt(&test_proc, start, start + 256 * PG);
  assert_int_equal(SC1(brk, 0), start);
  assert_int_equal(SC1(brk, start + 5000), start + 5000);
  ((uint8_t *)start)[4999] = 7;
  assert_string_equal(maps_perms(start + PG), "rw-p");
  assert_int_equal(SC1(brk, start + 1024 * PG), start + 5000); /* beyond the reservation */
  assert_int_equal(SC1(brk, start - PG), start + 5000);        /* below the start */
  assert_int_equal(SC1(brk, start), start);
  assert_string_equal(maps_perms(start), "---p");
  assert_int_equal(SC1(brk, start + PG), start + PG);
  assert_int_equal(((uint8_t *)start)[0], 0); /* grown again: zero, as the kernel's brk */
  /* the heap is guest memory: the guest may map over it */
  assert_int_equal(SC6(mmap, start + 8 * PG, PG, X_PROT_READ,
                       X_MAP_PRIVATE | X_MAP_ANON | X_MAP_FIXED, -1, 0),
                   start + 8 * PG);
  munmap(res, 256 * PG);
}

static uint64_t host_fs_base(void) {
  uint64_t v = 0;
  syscall(SYS_arch_prctl, 0x1003 /* ARCH_GET_FS */, &v);
  return v;
}

static void test_arch_prctl(void **state) {
  catch_guest_faults();
  Cpu *c = &test_proc.main.cpu;
  uint64_t host_before = host_fs_base();
  assert_int_equal(SC2(arch_prctl, X_ARCH_SET_FS, 0x12345000), 0);
  assert_int_equal(c->fs_base, 0x12345000);
  assert_int_equal(SC2(arch_prctl, X_ARCH_SET_GS, 0x6789a000), 0);
  assert_int_equal(c->gs_base, 0x6789a000);
  uint64_t v = 0;
  assert_int_equal(SC2(arch_prctl, X_ARCH_GET_FS, &v), 0);
  assert_int_equal(v, 0x12345000);
  assert_int_equal(SC2(arch_prctl, X_ARCH_GET_GS, &v), 0);
  assert_int_equal(v, 0x6789a000);
  assert_int_equal(host_fs_base(), host_before); /* the host's TLS is untouched */
  assert_int_equal(SC2(arch_prctl, X_ARCH_SET_FS, 0x800000000000ull), -EPERM);
  assert_int_equal(c->fs_base, 0x12345000);
  assert_int_equal(SC2(arch_prctl, 0x9999, 0), -EINVAL);
  assert_int_equal(SC2(arch_prctl, X_ARCH_GET_FS, 8), -EFAULT);
}

/* Decoded code goes when its memory is re-protected or unmapped. */
static void test_decoded_code_is_dropped(void **state) {
  catch_guest_faults();
  uint64_t a = guest_anon(PG);
  memcpy((void *)a, "\x90\x90\xc3", 3); /* nop; nop; ret */
  uint64_t n0 = test_proc.machine.code.decoded;
  /* the code check first (op_code_check: the page is writable), then three instructions */
  assert_int_equal(block_get(&test_proc.machine.code, a)->n, 1 + 3);
  block_get(&test_proc.machine.code, a);
  assert_int_equal(test_proc.machine.code.decoded, n0 + 1); /* cached */
  assert_int_equal(SC3(mprotect, a, PG, X_PROT_READ | X_PROT_EXEC), 0);
  block_get(&test_proc.machine.code, a);
  assert_int_equal(test_proc.machine.code.decoded, n0 + 2); /* decoded again */

  assert_int_equal(SC2(munmap, a, PG), 0);
  uint64_t b = (uint64_t)SC6(mmap, a, PG, X_PROT_READ | X_PROT_WRITE,
                             X_MAP_PRIVATE | X_MAP_ANON | X_MAP_FIXED, -1, 0);
  assert_int_equal(b, a);
  memcpy((void *)b, "\xc3", 1); /* ret */
  /* the new bytes after the check, not the old block */
  assert_int_equal(block_get(&test_proc.machine.code, b)->n, 1 + 1);
  assert_int_equal(SC2(munmap, b, PG), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_mmap_munmap_round_trip, setup),
      cmocka_unit_test_setup(test_fixed_over_emulator_memory_is_refused, setup),
      cmocka_unit_test_setup(test_shmat_keeps_to_guest_memory, setup),
      cmocka_unit_test_setup(test_numa_keeps_to_guest_memory, setup),
      cmocka_unit_test_setup(test_fixed_over_guest_memory_replaces_it, setup),
      cmocka_unit_test_setup(test_mprotect_and_mremap, setup),
      cmocka_unit_test_setup(test_brk, setup),
      cmocka_unit_test_setup(test_arch_prctl, setup),
      cmocka_unit_test_setup(test_decoded_code_is_dropped, setup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
