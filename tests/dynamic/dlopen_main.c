/* dlopen_main.c: a dynamically linked program that loads a library at run time, finds a
 * function and a variable in it, and calls through them. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  void *lib = dlopen(argv[1], RTLD_NOW);
  if (!lib) {
    printf("dlopen: %s\n", dlerror());
    return 1;
  }
  int (*twice)(int) = (int (*)(int))dlsym(lib, "twice");
  const char *const *greeting = dlsym(lib, "greeting");
  if (!twice || !greeting) return 1;
  printf("%s: twice(21) = %d\n", *greeting, twice(21));
  printf("a missing symbol: %s\n", dlsym(lib, "absent") ? "found" : "not found");
  return dlclose(lib);
}
