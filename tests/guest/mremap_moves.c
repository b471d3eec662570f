/* mremap_moves.c: mremap that may move a mapping (MREMAP_MAYMOVE): a second mapping of
 * shared memory (old size 0), a private mapping grown past its neighbour, and a move that
 * leaves the old mapping in place (MREMAP_DONTUNMAP); x64emu places the new ones in the
 * guest's own space, and the contents must follow as natively. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

int main(void) {
  enum { PG = 4096 };
  char *a = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  strcpy(a, "shared");
  char *b = mremap(a, 0, 2 * PG, MREMAP_MAYMOVE);
  if (b == MAP_FAILED) return perror("mremap of size 0"), 1;
  strcpy(b + 10, "seen through the second");
  printf("%s, %s; %s\n", b, a + 10, a == b ? "the same address" : "another address");

  /* Placed top-down, right under the mappings above: it cannot grow where it is. */
  char *c = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  strcpy(c, "grown");
  char *d = mremap(c, PG, 256 * PG, MREMAP_MAYMOVE);
  if (d == MAP_FAILED) return perror("mremap growing"), 1;
  d[255 * PG] = '!';
  printf("%s%c, %s\n", d, d[255 * PG], d != c ? "moved" : "grown in place");

  char *e = mremap(d, 256 * PG, 256 * PG, MREMAP_MAYMOVE | MREMAP_DONTUNMAP);
  if (e == MAP_FAILED) return perror("mremap DONTUNMAP"), 1;
  printf("%s%c, the old one now reads %d\n", e, e[255 * PG], d[0]);
  return 0;
}
