/* stack.c: the guest's initial stack, laid out as Linux's exec does on x86-64. */
#define _GNU_SOURCE
#include "stack.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include "../interp/cpuid.h"
#include "../linux-user/sigframe.h"

#define ABI_PAGE 4096    /* AT_PAGESZ: x86-64's page size */
#define CLOCK_TICKS 100  /* AT_CLKTCK: USER_HZ */
static const char PLATFORM[] = "x86_64";

void stack_args_from_host(StackArgs *a, const CpuModel *model) {
  a->uid = getuid();
  a->euid = geteuid();
  a->gid = getgid();
  a->egid = getegid();
  /* The guest is as "secure" as the exec of x64emu itself was (setuid and the like). */
  a->secure = getauxval(AT_SECURE);
  a->hwcap = cpuid_hwcap(model);
  a->minsigstksz = sigframe_max_size(model);
  size_t got = 0;
  while (got < sizeof a->random) {
    ssize_t n = getrandom(a->random + got, sizeof a->random - got, 0);
    if (n > 0) got += (size_t)n;
    else if (errno != EINTR) break;
  }
}

static size_t count(char *const *v) {
  size_t n = 0;
  while (v && v[n]) n++;
  return n;
}

/* Bytes of argument and environment strings, with their terminating NULs. */
static size_t strings_size(char *const *argv, char *const *envp) {
  size_t total = 0;
  for (size_t i = 0; argv && argv[i]; i++) total += strlen(argv[i]) + 1;
  for (size_t i = 0; envp && envp[i]; i++) total += strlen(envp[i]) + 1;
  return total;
}

/* Copies the strings of v upward from *at and writes each one's address at *slot, then
 * the NULL that ends the vector. */
static void put_vector(char *const *v, uint64_t *at, uint64_t *slot) {
  for (size_t i = 0; v && v[i]; i++) {
    size_t len = strlen(v[i]) + 1;
    memcpy((void *)(uintptr_t)*at, v[i], len);
    memcpy((void *)(uintptr_t)*slot, at, 8);
    *at += len;
    *slot += 8;
  }
  memset((void *)(uintptr_t)*slot, 0, 8);
  *slot += 8;
}

#define AUX_WORDS (2 * 21) /* the entries stack_build writes, AT_NULL included */

uint64_t stack_build(void *mem, size_t size, const StackArgs *a) {
  const uint64_t bottom = (uint64_t)(uintptr_t)mem, top = bottom + size;
  const size_t argc = count(a->argv), envc = count(a->envp);
  const size_t execfn_len = strlen(a->execfn) + 1;
  const size_t strings = strings_size(a->argv, a->envp);
  const size_t items = (argc + 1) + (envc + 1) + 1; /* argv, envp, argc */

  /* The worst case of everything below, so that nothing lands outside [mem, top). */
  if (argc > size / 8 || envc > size / 8 ||
      8 + execfn_len + strings + 15 + sizeof PLATFORM + 16 + AUX_WORDS * 8 + items * 8 + 15 > size)
    return 0;

  /* Top down: an 8-byte end marker, the file name, then the argv and envp strings in
   * ascending order (exec copies them last to first, downward). */
  memset((void *)(uintptr_t)(top - 8), 0, 8);
  const uint64_t execfn_at = top - 8 - execfn_len;
  memcpy((void *)(uintptr_t)execfn_at, a->execfn, execfn_len);
  const uint64_t strings_at = execfn_at - strings;

  /* arch_align_stack() without its random offset, then the platform name and the random
   * bytes. */
  const uint64_t platform_at = (strings_at & ~15ull) - sizeof PLATFORM;
  memcpy((void *)(uintptr_t)platform_at, PLATFORM, sizeof PLATFORM);
  const uint64_t random_at = platform_at - 16;
  memcpy((void *)(uintptr_t)random_at, a->random, 16);

  /* In the order of create_elf_tables(). Not given: AT_RSEQ_* (rseq is ENOSYS). */
  const uint64_t aux[AUX_WORDS] = {
      AT_SYSINFO_EHDR, a->vdso, AT_MINSIGSTKSZ, a->minsigstksz, /* x86's ARCH_DLINFO, first */
      AT_HWCAP,  a->hwcap,     AT_PAGESZ,  ABI_PAGE,    AT_CLKTCK, CLOCK_TICKS,
      AT_PHDR,   a->phdr,      AT_PHENT,   sizeof(Elf64_Phdr),     AT_PHNUM,  a->phnum,
      AT_BASE,   a->base,      AT_FLAGS,   0,           AT_ENTRY,  a->entry,
      AT_UID,    a->uid,       AT_EUID,    a->euid,     AT_GID,    a->gid,
      AT_EGID,   a->egid,      AT_SECURE,  a->secure,   AT_RANDOM, random_at,
      AT_HWCAP2, 0,            AT_EXECFN,  execfn_at,   AT_PLATFORM, platform_at,
      AT_NULL,   0,
  };

  /* STACK_ROUND(): argc, argv, envp and auxv end at or below the random bytes, with rsp
   * 16-byte aligned at argc. */
  const uint64_t sp = (random_at - sizeof aux - items * 8) & ~15ull;
  const uint64_t argc64 = argc;
  memcpy((void *)(uintptr_t)sp, &argc64, 8);
  uint64_t slot = sp + 8, at = strings_at;
  put_vector(a->argv, &at, &slot);
  put_vector(a->envp, &at, &slot);
  memcpy((void *)(uintptr_t)slot, aux, sizeof aux);
  return sp;
}

uint64_t stack_create(const StackArgs *a, bool exec, const GuestSpace *space, char *err,
                      size_t errlen) {
  /* The kernel allows argument and environment strings up to a quarter of the stack. */
  if (strings_size(a->argv, a->envp) + strlen(a->execfn) + 1 > GUEST_STACK_SIZE / 4) {
    snprintf(err, errlen, "%s: Argument list too long", a->execfn);
    return 0;
  }
  /* At the top of the guest's space, above its mappings, where the kernel puts a stack. */
  const size_t total = (size_t)GUEST_STACK_SIZE + GUEST_STACK_GUARD;
  uint64_t hint = space->stack_top ? space->stack_top - total : 0;
  void *region = guest_space_map(space, hint, total, host_page(), space->stack_top, PROT_NONE,
                                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (region == MAP_FAILED) {
    snprintf(err, errlen, "cannot map the guest stack: %s", strerror(errno));
    return 0;
  }
  void *mem = (char *)region + GUEST_STACK_GUARD;
  int prot = PROT_READ | PROT_WRITE | (exec ? PROT_EXEC : 0);
  /* A fresh mapping over our own reservation: accounted like a normal stack. */
  if (mmap(mem, GUEST_STACK_SIZE, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_STACK, -1,
           0) == MAP_FAILED) {
    snprintf(err, errlen, "cannot map the guest stack: %s", strerror(errno));
    munmap(region, total);
    return 0;
  }
  uint64_t sp = stack_build(mem, GUEST_STACK_SIZE, a);
  if (!sp) {
    snprintf(err, errlen, "%s: Argument list too long", a->execfn);
    munmap(region, total);
    return 0;
  }
  /* The guard below is the guest's too (it may map over it), with no access. */
  uint64_t lo = (uint64_t)(uintptr_t)region, stack = (uint64_t)(uintptr_t)mem;
  if (!ranges_add(space->mem, lo, stack, GUEST_PROT_RESERVED) ||
      !ranges_add(space->mem, stack, lo + total, prot)) {
    snprintf(err, errlen, "%s: out of memory", a->execfn);
    munmap(region, total);
    return 0;
  }
  return sp;
}
