/* recursion.c: deep and branching recursion: call/ret, stack frames, the return stack. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint64_t fib(int n) { return n < 2 ? (uint64_t)n : fib(n - 1) + fib(n - 2); }

static uint64_t ackermann(uint64_t m, uint64_t n) {
  if (m == 0) return n + 1;
  if (n == 0) return ackermann(m - 1, 1);
  return ackermann(m - 1, ackermann(m, n - 1));
}

static int is_even(unsigned n);
static int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }
static int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }

static int queens(int row, int n, unsigned cols, unsigned diag1, unsigned diag2) {
  if (row == n) return 1;
  int count = 0;
  for (int c = 0; c < n; c++) {
    unsigned d1 = 1u << (row + c), d2 = 1u << (row - c + n - 1);
    if ((cols & 1u << c) || (diag1 & d1) || (diag2 & d2)) continue;
    count += queens(row + 1, n, cols | 1u << c, diag1 | d1, diag2 | d2);
  }
  return count;
}

static unsigned long moves;
static void hanoi(int n, int from, int to, int via) {
  if (n == 0) return;
  hanoi(n - 1, from, via, to);
  moves++;
  hanoi(n - 1, via, to, from);
}

/* A deep chain of frames with locals that must survive the calls below them. */
static uint64_t deep(int depth) {
  volatile char frame[100];
  memset((char *)frame, depth & 0xff, sizeof frame);
  uint64_t below = depth ? deep(depth - 1) : 0;
  return below + frame[depth % 100] + (uint64_t)depth;
}

static void permute(char *s, int k, int n, unsigned long *count, uint64_t *h) {
  if (k == n) {
    (*count)++;
    for (int i = 0; i < n; i++) *h = *h * 131 + (unsigned char)s[i];
    return;
  }
  for (int i = k; i < n; i++) {
    char t = s[k];
    s[k] = s[i], s[i] = t;
    permute(s, k + 1, n, count, h);
    t = s[k], s[k] = s[i], s[i] = t;
  }
}

int main(void) {
  printf("fib(27) = %llu\n", (unsigned long long)fib(27));
  printf("ackermann(2, 300) = %llu, ackermann(3, 6) = %llu\n",
         (unsigned long long)ackermann(2, 300), (unsigned long long)ackermann(3, 6));
  printf("is_even(10001) = %d, is_odd(7777) = %d\n", is_even(10001), is_odd(7777));
  for (int n = 1; n <= 9; n++) printf("queens(%d) = %d\n", n, queens(0, n, 0, 0, 0));
  hanoi(16, 1, 3, 2);
  printf("hanoi(16) moves = %lu\n", moves);
  printf("deep(20000) = %llu\n", (unsigned long long)deep(20000));
  char letters[] = "abcdefgh";
  unsigned long count = 0;
  uint64_t h = 0;
  permute(letters, 0, 8, &count, &h);
  printf("permutations of 8: %lu, hash %016llx\n", count, (unsigned long long)h);
  return 0;
}
