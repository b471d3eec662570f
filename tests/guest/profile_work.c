/* profile_work.c: deterministic work in functions of its own (fib's recursion, mix's
 * loop, work calling both), for --profile against Valgrind's callgrind (profile.sh).
 * Their instruction counts do not depend on the CPU the C library detects. */
#include <stdio.h>

__attribute__((noinline)) unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__attribute__((noinline)) unsigned long mix(unsigned long x, int rounds) {
  for (int i = 0; i < rounds; i++) x = (x * 6364136223846793005ull + 1442695040888963407ull) ^ (x >> 13);
  return x;
}

__attribute__((noinline)) unsigned long work(void) { return fib(18) + mix(1, 5000) + mix(2, 300); }

int main(void) {
  printf("%lu\n", work());
  return 0;
}
