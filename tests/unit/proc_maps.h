/* proc_maps.h: what the host kernel says is mapped, for tests of the loader and mmap. */
#ifndef TEST_PROC_MAPS_H
#define TEST_PROC_MAPS_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The permissions ("r-xp") of the mapping holding addr in /proc/self/maps; "" if none. */
static const char *maps_perms(uint64_t addr) {
  static char perms[8];
  perms[0] = 0;
  FILE *f = fopen("/proc/self/maps", "r");
  assert_non_null(f);
  char line[1024];
  while (fgets(line, sizeof line, f)) {
    unsigned long s, e;
    char p[8];
    if (sscanf(line, "%lx-%lx %7s", &s, &e, p) == 3 && addr >= s && addr < e) {
      strcpy(perms, p);
      break;
    }
  }
  fclose(f);
  return perms;
}

#endif
