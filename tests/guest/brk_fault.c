/* brk_fault.c: the heap beyond the break is not mapped: touching it is SIGSEGV with
 * SEGV_MAPERR and mprotect there fails with ENOMEM, as the kernel says; once the break
 * grows over it, it reads zero and can be written. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static sigjmp_buf back;
static uintptr_t base;

static void on_segv(int sig, siginfo_t *si, void *uc) {
  (void)sig, (void)uc;
  printf("  SIGSEGV si_code=%d at break%+ld\n", si->si_code, (long)((uintptr_t)si->si_addr - base));
  siglongjmp(back, 1);
}

int main(void) {
  struct sigaction sa = {.sa_sigaction = on_segv, .sa_flags = SA_SIGINFO | SA_NODEFER};
  sigaction(SIGSEGV, &sa, NULL);
  uintptr_t top = ((uintptr_t)sbrk(0) + 4095) & ~(uintptr_t)4095;
  base = top;
  sbrk((intptr_t)(top - (uintptr_t)sbrk(0))); /* the break on a page boundary */
  volatile uint8_t *beyond = (volatile uint8_t *)(top + 3 * 4096);
  printf("a read beyond the break:\n");
  if (!sigsetjmp(back, 1)) printf("  read %d\n", *beyond);
  printf("a write beyond the break:\n");
  if (!sigsetjmp(back, 1)) *beyond = 1, printf("  written\n");
  int r = mprotect((void *)(top + 3 * 4096), 4096, PROT_READ);
  printf("mprotect beyond the break: %d %s\n", r, r ? strerror(errno) : "");
  printf("after sbrk(16384):\n");
  if (sbrk(16384) == (void *)-1) return 1;
  printf("  reads %d\n", *beyond);
  *beyond = 7;
  printf("  holds %d\n", *beyond);
  return 0;
}
