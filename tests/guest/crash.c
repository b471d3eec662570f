/* crash.c: ends in the way argv[1] names: a fault, a trap, abort(), exit() or a return
 * from main. The test compares how the process ended, not only what it printed. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile int zero = 0, seven = 7, int_min = INT_MIN, minus_one = -1;
static int *volatile null_pointer = NULL;
static char *volatile read_only = "a string literal";

int main(int argc, char **argv) {
  const char *how = argc > 1 ? argv[1] : "";
  /* Both streams get text first: it must come out before the process dies. */
  printf("about to end by: %s\n", how);
  fflush(stdout);
  fprintf(stderr, "stderr before %s\n", how);

  if (!strcmp(how, "divzero")) printf("%d\n", seven / zero);
  else if (!strcmp(how, "divoverflow")) printf("%d\n", int_min / minus_one);
  else if (!strcmp(how, "null")) printf("%d\n", *null_pointer);
  else if (!strcmp(how, "null-write")) *null_pointer = 1;
  else if (!strcmp(how, "rodata-write")) read_only[0] = 'A';
  else if (!strcmp(how, "abort")) abort();
  else if (!strcmp(how, "ud2")) __asm__ volatile("ud2");
  else if (!strcmp(how, "int3")) __asm__ volatile("int3");
  else if (!strcmp(how, "hlt")) __asm__ volatile("hlt");
  else if (!strcmp(how, "exit3")) {
    printf("buffered text that exit() flushes");
    exit(3);
  } else if (!strcmp(how, "return42")) {
    printf("buffered text that returning from main flushes");
    return 42;
  }
  printf("still alive after %s\n", how);
  return 1;
}
