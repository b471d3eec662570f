/* threads_code.c: code that changes while other threads run code. One thread rewrites a
 * function in a writable and executable page and calls it after each change (as a JIT
 * does); another maps, fills, runs and unmaps code pages; the others compute meanwhile.
 * Under x64emu the rewriting drops decoded blocks until the whole cache is flushed, many
 * times, with the other threads in the middle of their own code. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

enum { REWRITES = 3000, REMAPS = 300, WORKERS = 3 };

/* mov eax, imm32; ret */
static void put_return(uint8_t *at, uint32_t value) {
  at[0] = 0xb8;
  memcpy(at + 1, &value, 4);
  at[5] = 0xc3;
}

static void *rewriter(void *arg) {
  uint8_t *page = arg;
  long right = 0;
  for (uint32_t i = 0; i < REWRITES; i++) {
    put_return(page + (i % 64) * 16, i * 7 + 1); /* several places, so blocks pile up */
    uint32_t (*fn)(void) = (uint32_t (*)(void))(page + (i % 64) * 16);
    right += fn() == i * 7 + 1;
  }
  return (void *)right;
}

static void *remapper(void *arg) {
  (void)arg;
  long right = 0;
  for (uint32_t i = 0; i < REMAPS; i++) {
    uint8_t *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) return (void *)-1;
    put_return(page, i ^ 0x5a5a);
    mprotect(page, 4096, PROT_READ | PROT_EXEC);
    right += ((uint32_t (*)(void))page)() == (i ^ 0x5a5a);
    munmap(page, 4096);
  }
  return (void *)right;
}

static volatile int done;

static uint64_t checksum(void) {
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < 2000; i++) h = (h ^ (uint64_t)i) * 1099511628211ull;
  return h;
}

static uint64_t first_checksum;

/* The checksum over and over until the others are done: the same answer each time. */
static void *worker(void *arg) {
  (void)arg;
  long rounds = 0, wrong = 0;
  while (!done || rounds < 100) {
    wrong += checksum() != first_checksum;
    rounds++;
  }
  return (void *)wrong;
}

int main(void) {
  uint8_t *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return 1;
  first_checksum = checksum();
  pthread_t rw, rm, w[WORKERS];
  for (int i = 0; i < WORKERS; i++) pthread_create(&w[i], NULL, worker, NULL);
  pthread_create(&rw, NULL, rewriter, page);
  pthread_create(&rm, NULL, remapper, NULL);
  void *rewritten, *remapped;
  pthread_join(rw, &rewritten);
  pthread_join(rm, &remapped);
  done = 1;
  long wrong = 0;
  for (int i = 0; i < WORKERS; i++) {
    void *r;
    pthread_join(w[i], &r);
    wrong += (long)r;
  }
  printf("rewritten code ran as written %ld of %d times\n", (long)rewritten, REWRITES);
  printf("mapped code ran as written %ld of %d times\n", (long)remapped, REMAPS);
  printf("checksum %#llx, wrong meanwhile: %ld\n", (unsigned long long)first_checksum, wrong);
  return 0;
}
