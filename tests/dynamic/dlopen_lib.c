/* dlopen_lib.c: the library dlopen_main loads, with thread-local storage of its own. */
static __thread int calls;
const char *greeting = "from the library";

int twice(int x) {
  calls++;
  return 2 * x + calls - 1;
}
