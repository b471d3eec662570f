/* stack.h: the guest's initial stack: strings, argv, envp and the auxiliary vector. */
#ifndef X64EMU_STACK_H
#define X64EMU_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../interp/cpuid.h"
#include "guest_space.h"

#define GUEST_STACK_SIZE (8u << 20)      /* the usual RLIMIT_STACK */
#define GUEST_STACK_GUARD (1u << 20)     /* PROT_NONE below it, like the kernel's guard gap */

/* Everything the kernel's create_elf_tables() puts on a new x86-64 process's stack. */
typedef struct StackArgs {
  char *const *argv;  /* NULL-terminated */
  char *const *envp;  /* NULL-terminated */
  const char *execfn; /* AT_EXECFN: the path the program was run by */
  uint64_t phdr;      /* AT_PHDR */
  uint64_t phnum;     /* AT_PHNUM */
  uint64_t entry;     /* AT_ENTRY */
  uint64_t base;      /* AT_BASE: the interpreter's base, 0 for static programs */
  uint64_t vdso;      /* AT_SYSINFO_EHDR: the vDSO's address */
  uint64_t hwcap;     /* AT_HWCAP: CPUID.1:EDX of the modelled CPU */
  uint64_t minsigstksz; /* AT_MINSIGSTKSZ: the most a signal frame takes */
  uint64_t uid, euid, gid, egid;
  uint64_t secure;    /* AT_SECURE */
  uint8_t random[16]; /* the bytes AT_RANDOM points to */
} StackArgs;

/* Fills what comes from the host: ids, AT_SECURE, AT_HWCAP and fresh random bytes. */
void stack_args_from_host(StackArgs *a, const CpuModel *model);

/* Lays out the initial stack in [mem, mem + size) exactly as Linux x86-64 does, with the
 * top of the region as the top of the stack; addresses written are host addresses of mem.
 * Returns the initial rsp (pointing at argc, 16-byte aligned), or 0 if it does not fit. */
uint64_t stack_build(void *mem, size_t size, const StackArgs *a);

/* Maps a guest stack of GUEST_STACK_SIZE (executable if exec) at the top of the guest's
 * space, adds it to space->mem, and builds it.
 * Returns the initial rsp, or 0 with a one-line message in err. */
uint64_t stack_create(const StackArgs *a, bool exec, const GuestSpace *space, char *err,
                      size_t errlen);

#endif
