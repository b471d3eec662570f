/* mapping_places.c: makes the mappings whose place the kernel (here x64emu) chooses:
 * mmap without an address, of memory and of a file, with a hint, a mapping moved by
 * mremap, malloc's large blocks, a thread's stack, then prints its /proc/self/maps and
 * waits for a line on stdin, so that mapping_places.sh can read the emulator's maps
 * meanwhile and check that x64emu's own memory is nowhere near the guest's. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void *thread_main(void *arg) {
  FILE *maps = fopen("/proc/self/maps", "r");
  char line[512];
  while (maps && fgets(line, sizeof line, maps)) fputs(line, stdout);
  if (maps) fclose(maps);
  printf("ready\n");
  fflush(stdout);
  char answer[8];
  if (!fgets(answer, sizeof answer, stdin)) return NULL;
  return arg;
}

int main(void) {
  enum { MB = 1 << 20 };
  void *a = mmap(NULL, MB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  void *b = mmap(NULL, 3 * MB, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  void *hinted = mmap((void *)0x200000000000ull, MB, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  int fd = open("/proc/self/exe", O_RDONLY);
  void *file = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE, fd, 0);
  /* Between a and b nothing can grow: mremap moves it. */
  void *grown = mremap(a, MB, 256 * MB, MREMAP_MAYMOVE);
  char *big = malloc(64 * MB);
  if (a == MAP_FAILED || b == MAP_FAILED || hinted == MAP_FAILED || file == MAP_FAILED ||
      grown == MAP_FAILED || !big) {
    perror("mapping_places");
    return 1;
  }
  memset(big, 1, MB);
  fprintf(stderr, "hint %s\n", hinted == (void *)0x200000000000ull ? "taken" : "not taken");
  pthread_t t;
  void *result;
  if (pthread_create(&t, NULL, thread_main, big) != 0 || pthread_join(t, &result) != 0) return 1;
  return result == big ? 0 : 1;
}
