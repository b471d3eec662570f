/* user_addresses.c: every address the program is given lies in x86-64's user range, below
 * 2^47, whatever the host's address space: the stack, argv and envp, the auxiliary
 * vector's pointers (the program headers, the entry, AT_RANDOM, the program's name, the
 * platform string, the vDSO), the thread pointer, the break, mmap(NULL) of sizes small
 * and large, and mmap with a hint above 2^47, which x86-64 ignores; mmap and mremap at a
 * fixed address above it are refused as x86-64 refuses them. Compared with the native
 * run. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#define USER_TOP 0x800000000000ull

static int bad;

static void check(const char *what, uint64_t a) {
  int ok = a != 0 && a < USER_TOP;
  if (!ok) bad++;
  printf("%s: %s\n", what, ok ? "below 2^47" : "OUTSIDE");
}

int main(int argc, char **argv, char **envp) {
  int local = argc;
  check("stack", (uint64_t)(uintptr_t)&local);
  check("argv", (uint64_t)(uintptr_t)argv);
  check("argv[0]", (uint64_t)(uintptr_t)argv[0]);
  check("envp", (uint64_t)(uintptr_t)envp);
  static const struct {
    const char *name;
    unsigned long type;
  } aux[] = {{"AT_PHDR", AT_PHDR}, {"AT_ENTRY", AT_ENTRY}, {"AT_RANDOM", AT_RANDOM},
             {"AT_EXECFN", AT_EXECFN}, {"AT_PLATFORM", AT_PLATFORM}, {"AT_SYSINFO_EHDR", AT_SYSINFO_EHDR}};
  for (unsigned i = 0; i < sizeof aux / sizeof *aux; i++) check(aux[i].name, getauxval(aux[i].type));
  uint64_t tp;
  __asm__("mov %%fs:0, %0" : "=r"(tp));
  check("thread pointer", tp);
  check("break", (uint64_t)(uintptr_t)sbrk(0));
  check("malloc'd", (uint64_t)(uintptr_t)sbrk(4096));
  static const size_t sizes[] = {4096, 1 << 20, 256u << 20};
  for (unsigned i = 0; i < 3; i++) {
    void *m = mmap(NULL, sizes[i], PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char what[64];
    snprintf(what, sizeof what, "mmap(NULL, %zu)", sizes[i]);
    check(what, m == MAP_FAILED ? 0 : (uint64_t)(uintptr_t)m);
  }
  void *hinted = mmap((void *)(uintptr_t)0x900000000000ull, 65536, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  check("mmap with a hint above 2^47", hinted == MAP_FAILED ? 0 : (uint64_t)(uintptr_t)hinted);
  void *fixed = mmap((void *)(uintptr_t)0x900000000000ull, 65536, PROT_READ,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  printf("mmap MAP_FIXED above 2^47: %s\n", fixed == MAP_FAILED ? (errno == ENOMEM ? "ENOMEM" : "another error") : "mapped");
  void *straddle = mmap((void *)(uintptr_t)(USER_TOP - 4096), 8192, PROT_READ,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  printf("mmap MAP_FIXED_NOREPLACE across 2^47: %s\n",
         straddle == MAP_FAILED ? (errno == ENOMEM ? "ENOMEM" : "another error") : "mapped");
  void *moved = mremap(hinted, 65536, 65536, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)(uintptr_t)0x900000000000ull);
  printf("mremap to above 2^47: %s\n", moved == MAP_FAILED ? (errno == EINVAL ? "EINVAL" : "another error") : "moved");
  printf("%s\n", bad ? "some addresses outside" : "all addresses in the user range");
  return bad != 0;
}
