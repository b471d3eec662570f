/* preload.c: a library for LD_PRELOAD that says where it was loaded, once per process:
 * under x64emu into the guest's loader only, never into x64emu itself. */
#include <stdio.h>

__attribute__((constructor)) static void announce(void) {
  printf("preloaded\n");
  fflush(stdout);
}
