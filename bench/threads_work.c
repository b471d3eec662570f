/* threads_work.c: a threaded guest for bench/memory_order.sh: THREADS threads each mix
 * a private 64 KiB buffer (loads and stores, the accesses whose order x64emu keeps as
 * x86's between threads in parallel) and add to a shared atomic counter now and then.
 * Prints the counter, which is fixed by the work: usage: threads_work [ROUNDS]. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { THREADS = 2, WORDS = 8192 };
static uint64_t shared_counter;
static long rounds = 200;

static void *work(void *arg) {
  uint64_t *buf = malloc(WORDS * sizeof *buf), x = (uint64_t)(uintptr_t)arg * 0x9E3779B97F4A7C15ull + 1;
  if (!buf) return NULL;
  for (unsigned i = 0; i < WORDS; i++) buf[i] = x += 0x9E3779B97F4A7C15ull;
  for (long r = 0; r < rounds; r++) {
    for (unsigned i = 1; i < WORDS; i++) buf[i] ^= (buf[i - 1] >> 7) + (buf[i] << 3) + (uint64_t)r;
    __atomic_fetch_add(&shared_counter, buf[r % WORDS] & 1, __ATOMIC_SEQ_CST);
  }
  free(buf);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1) rounds = atol(argv[1]);
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, work, (void *)i);
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
  printf("%llu\n", (unsigned long long)shared_counter);
  return 0;
}
