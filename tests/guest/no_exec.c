/* no_exec.c: code runs only from executable pages: a jump into the stack, into a page
 * mapped without PROT_EXEC, into one whose PROT_EXEC mprotect took away after it ran, an
 * instruction that runs on into a page it may not be fetched from, and one into a hole
 * of the address space, each the kernel's SIGSEGV (SEGV_ACCERR, or SEGV_MAPERR for the
 * hole, at the first byte that cannot be fetched; #PF with the instruction-fetch bit). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

static sigjmp_buf back;
static uint64_t base; /* addresses print relative to it */

static void on_segv(int sig, siginfo_t *si, void *ucv) {
  ucontext_t *uc = ucv;
  printf("  %s si_code=%d si_addr=base%+ld rip=base%+ld trapno=%lld err=%#llx\n",
         sigabbrev_np(sig), si->si_code, (long)((uint64_t)(uintptr_t)si->si_addr - base),
         (long)((uint64_t)uc->uc_mcontext.gregs[REG_RIP] - base),
         (long long)uc->uc_mcontext.gregs[REG_TRAPNO], (long long)uc->uc_mcontext.gregs[REG_ERR]);
  siglongjmp(back, 1);
}

static int call(void *code) { return ((int (*)(void))code)(); }

static const uint8_t ret42[] = {0xb8, 0x2a, 0x00, 0x00, 0x00, 0xc3}; /* mov eax, 42; ret */

int main(void) {
  struct sigaction sa = {.sa_sigaction = on_segv, .sa_flags = SA_SIGINFO | SA_NODEFER};
  sigaction(SIGSEGV, &sa, NULL);
  uint8_t *two = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

  printf("an executable page:\n");
  base = (uint64_t)(uintptr_t)two;
  memcpy(two, ret42, sizeof ret42);
  printf("  returns %d\n", call(two));

  printf("the same page after mprotect(PROT_READ | PROT_WRITE):\n");
  mprotect(two, 4096, PROT_READ | PROT_WRITE);
  if (!sigsetjmp(back, 1)) printf("  returns %d\n", call(two));

  printf("a page mapped without PROT_EXEC:\n");
  uint8_t *rw = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  memcpy(rw, ret42, sizeof ret42);
  base = (uint64_t)(uintptr_t)rw;
  if (!sigsetjmp(back, 1)) printf("  returns %d\n", call(rw));

  printf("the stack:\n");
  uint8_t on_stack[16];
  memcpy(on_stack, ret42, sizeof ret42);
  base = (uint64_t)(uintptr_t)on_stack;
  if (!sigsetjmp(back, 1)) printf("  returns %d\n", call(on_stack));

  printf("an instruction that runs on into a page without PROT_EXEC:\n");
  mprotect(two, 4096, PROT_READ | PROT_WRITE | PROT_EXEC);
  mprotect(two + 4096, 4096, PROT_READ | PROT_WRITE);
  uint8_t *at = two + 4096 - 2; /* mov eax, 42 is 5 bytes: 3 of them on the next page */
  memcpy(at, ret42, sizeof ret42);
  base = (uint64_t)(uintptr_t)two;
  if (!sigsetjmp(back, 1)) printf("  returns %d\n", call(at));

  printf("a hole of the address space:\n");
  munmap(two + 4096, 4096);
  if (!sigsetjmp(back, 1)) printf("  returns %d\n", call(two + 4096));
  return 0;
}
