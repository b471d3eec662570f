/* hello.c: the trivial static program whose start-up bench/run.sh times under each runner. */
#include <stdio.h>

int main(void) {
  puts("hello, world");
  return 0;
}
