/* linked_main.c: linked against libdlopen_lib.so at build time, found through
 * LD_LIBRARY_PATH at run time. */
#include <stdio.h>

int twice(int x);
extern const char *greeting;

int main(void) {
  printf("%s, linked: twice(5) = %d\n", greeting, twice(5));
  return 0;
}
