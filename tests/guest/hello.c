/* hello.c: the smallest libc guest: printf to stdout, a line to stderr, exit 0. */
#include <stdio.h>

int main(void) {
  printf("Hello, world!\n");
  printf("%d %s %c %5.2f|%-6x|%#o\n", 42, "str", 'c', 3.14159, 0xbeefu, 8u);
  fputs("hello on stderr\n", stderr);
  return 0;
}
