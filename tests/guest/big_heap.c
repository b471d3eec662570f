/* big_heap.c: the program break grows as far as the kernel lets it (3 GiB here, in 64 MiB
 * steps, a byte written at the top of each), not only within a fixed reservation. */
#include <stdio.h>
#include <unistd.h>

int main(void) {
  char *start = sbrk(0);
  const size_t step = 64u << 20;
  size_t total = 0;
  for (int i = 0; i < 48; i++) {
    if (sbrk((long)step) == (void *)-1) break;
    total += step;
    start[total - 1] = 1;
  }
  printf("heap grew by %zu MiB\n", total >> 20);
  printf("break where it should be: %d\n", (char *)sbrk(0) == start + total);
  printf("shrunk back: %d\n", sbrk(-(long)total) != (void *)-1 && (char *)sbrk(0) == start);
  return 0;
}
