/* split_lock_fault.c: misaligned LOCK instructions (split locks) whose operand is on a
 * read-only page fault as a store does (SIGSEGV, SEGV_ACCERR, at the operand), and the
 * misaligned atomics after such a fault still run: x64emu takes a lock of its own for
 * them, which a fault must not leave taken. Each form, then each again on writable
 * memory, across a page boundary too. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static sigjmp_buf back;
static uint8_t *page;

static void on_segv(int sig, siginfo_t *si, void *uc) {
  (void)sig, (void)uc;
  printf("  SIGSEGV code %d at page%+ld\n", si->si_code, (long)((uint8_t *)si->si_addr - page));
  siglongjmp(back, 1);
}

#define TRY(name, insn, at)                                                                 \
  do {                                                                                      \
    uint32_t *p = (uint32_t *)(at);                                                         \
    uint32_t v = 0x11111111, eax = 0x22222222;                                              \
    printf("%s at page%+ld:\n", name, (long)((uint8_t *)p - page));                         \
    if (!sigsetjmp(back, 1)) {                                                              \
      __asm__ volatile("stc\n" insn : "+m"(*p), "+r"(v), "+a"(eax) : : "cc", "memory");    \
      printf("  memory %08x, register %08x, eax %08x\n", *p, v, eax);                       \
    }                                                                                       \
  } while (0)

static void all_forms(uint8_t *at) {
  TRY("lock add", "lock addl %1, %0", at);
  TRY("lock adc", "lock adcl %1, %0", at);
  TRY("lock xadd", "lock xaddl %1, %0", at);
  TRY("xchg", "xchgl %1, %0", at);
  TRY("lock bts", "lock btsl $5, %0", at);
  TRY("lock cmpxchg", "lock cmpxchgl %1, %0", at);
  TRY("lock cmpxchg (equal)", "movl %0, %%eax\n lock cmpxchgl %1, %0", at);
}

int main(void) {
  struct sigaction sa = {.sa_sigaction = on_segv, .sa_flags = SA_SIGINFO | SA_NODEFER};
  sigaction(SIGSEGV, &sa, NULL);
  enum { PAGE = 4096 };
  page = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return 1;
  for (int i = 0; i < 3 * PAGE; i++) page[i] = (uint8_t)(i * 7);
  mprotect(page + 2 * PAGE, PAGE, PROT_READ); /* the last page read-only */
  printf("read-only, misaligned:\n");
  all_forms(page + 2 * PAGE + 1);
  printf("writable then read-only, across the boundary:\n");
  all_forms(page + 2 * PAGE - 2);
  printf("writable, misaligned, after the faults:\n");
  all_forms(page + 9);
  printf("writable, across a boundary:\n");
  all_forms(page + PAGE - 2);
  return 0;
}
