/* malloc.c: the allocator over brk and mmap: many sizes, large blocks, realloc and free
 * in mixed order, each block filled and verified. */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "test_env.h"

static uint64_t state = 0x123456789abcdefull;
static uint64_t next(void) {
  state ^= state << 13, state ^= state >> 7, state ^= state << 17;
  return state;
}

static void fill(unsigned char *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(seed + i * 7);
}

static int verify(const unsigned char *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != (unsigned char)(seed + i * 7)) return 0;
  return 1;
}

int main(void) {
  /* A quarter of the rounds where x64emu is slow (test_env.h): each fills and checks its
   * blocks byte by byte, and the heap reaches the same places in fewer. */
  const int rounds = fewer_rounds() ? 1500 : 6000;
  enum { SLOTS = 512 };
  unsigned char *slot[SLOTS] = {0};
  size_t size[SLOTS] = {0};
  int bad = 0, misaligned = 0, allocations = 0;
  for (int round = 0; round < rounds; round++) {
    int i = next() % SLOTS;
    if (slot[i]) {
      bad += !verify(slot[i], size[i], i);
      if (next() % 3 == 0) {
        size_t n = next() % 5000;
        slot[i] = realloc(slot[i], n);
        bad += !verify(slot[i], n < size[i] ? n : size[i], i);
        size[i] = n;
        fill(slot[i], n, i);
        continue;
      }
      free(slot[i]);
      slot[i] = NULL;
      continue;
    }
    /* Mostly small, some medium, a few beyond the mmap threshold. */
    uint64_t r = next() % 100;
    size_t n = r < 80 ? next() % 256 : r < 97 ? next() % 65536 : 128 * 1024 + next() % (128 * 1024);
    slot[i] = next() % 4 ? malloc(n) : calloc(1, n);
    size[i] = n;
    allocations++;
    misaligned += ((uintptr_t)slot[i] & 15) != 0;
    fill(slot[i], n, i);
  }
  for (int i = 0; i < SLOTS; i++) {
    if (slot[i]) bad += !verify(slot[i], size[i], i);
    free(slot[i]);
  }
  printf("allocations %d, corrupted blocks %d, misaligned %d\n", allocations, bad, misaligned);

  /* calloc must return zeroed memory, also when it reuses freed blocks. */
  int nonzero = 0;
  for (int k = 0; k < 200; k++) {
    size_t n = 1 + k * 97;
    unsigned char *p = malloc(n);
    memset(p, 0xff, n);
    free(p);
    unsigned char *z = calloc(n, 1);
    for (size_t j = 0; j < n; j++) nonzero += z[j] != 0;
    free(z);
  }
  printf("calloc non-zero bytes: %d\n", nonzero);

  /* Very large blocks come from mmap; grow one with realloc (mremap). */
  size_t big = 4u << 20;
  unsigned char *p = malloc(big);
  fill(p, big, 3);
  p = realloc(p, big * 2);
  int big_ok = verify(p, big, 3);
  memset(p + big, 0x5a, big);
  printf("4 MiB block grown to 8 MiB: contents kept %s, last byte %#x\n", big_ok ? "yes" : "NO",
         p[2 * big - 1]);
  free(p);

  void *aligned = NULL;
  int r = posix_memalign(&aligned, 4096, 10000);
  printf("posix_memalign 4096: %d, aligned %s\n", r, ((uintptr_t)aligned & 4095) ? "NO" : "yes");
  free(aligned);
  void *al = aligned_alloc(64, 640);
  printf("aligned_alloc 64: aligned %s\n", ((uintptr_t)al & 63) ? "NO" : "yes");
  free(al);

  /* brk directly: grows, is readable and writable, and shrinks back. */
  char *start = sbrk(0);
  char *grown = sbrk(3 * 4096);
  int brk_ok = grown == start;
  memset(grown, 1, 3 * 4096);
  brk_ok &= sbrk(0) == start + 3 * 4096;
  brk_ok &= sbrk(-3 * 4096) == start + 3 * 4096 && sbrk(0) == start;
  printf("sbrk grow, write and shrink: %s\n", brk_ok ? "yes" : "NO");

  /* Anonymous mmap is zeroed; mprotect and munmap of part of it. */
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  unsigned char *m = mmap(NULL, 8 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  int zero = 1;
  for (size_t j = 0; j < 8 * page; j++) zero &= m[j] == 0;
  memset(m, 7, 8 * page);
  int protect_result = mprotect(m, page, PROT_READ);
  int unmap_result = munmap(m + 2 * page, 2 * page);
  printf("mmap zeroed: %s, mprotect: %d, munmap middle: %d\n", zero ? "yes" : "NO",
         protect_result, unmap_result);
  unsigned char *moved = mremap(m + 4 * page, 4 * page, 16 * page, MREMAP_MAYMOVE);
  int kept = moved != MAP_FAILED && moved[0] == 7 && moved[4 * page - 1] == 7;
  printf("mremap kept contents: %s\n", kept ? "yes" : "NO");
  munmap(m, 2 * page);
  munmap(moved, 16 * page);
  return 0;
}
