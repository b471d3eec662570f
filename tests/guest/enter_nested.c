/* enter_nested.c: ENTER with a nesting level copies the outer frame pointers from below
 * RBP; when RBP points at nothing the read faults and RSP and RBP are as before. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <ucontext.h>

static sigjmp_buf back;
static uint64_t rsp_before;

static void on_segv(int sig, siginfo_t *si, void *ucv) {
  ucontext_t *uc = ucv;
  (void)sig;
  printf("  SIGSEGV si_code=%d si_addr=%#lx rbp=%#llx rsp unchanged: %d\n", si->si_code,
         (unsigned long)(uintptr_t)si->si_addr, (unsigned long long)uc->uc_mcontext.gregs[REG_RBP],
         (uint64_t)uc->uc_mcontext.gregs[REG_RSP] == rsp_before);
  siglongjmp(back, 1);
}

int main(void) {
  struct sigaction sa = {.sa_sigaction = on_segv, .sa_flags = SA_SIGINFO | SA_NODEFER};
  sigaction(SIGSEGV, &sa, NULL);
  /* A frame chain: enter 16, 3 copies two outer frame pointers and pushes the new one. */
  uint64_t chain[4] = {0x1111, 0x2222, 0x3333, 0x4444}, got[6];
  asm volatile("mov %%rbp, %%r12\n mov %%rsp, %%r13\n"
               "lea 32(%1), %%rbp\n"
               "enter $16, $3\n"
               "mov 0(%%rsp), %%rax\n mov %%rax, 0(%0)\n"  /* below the locals: */
               "mov 16(%%rsp), %%rax\n mov %%rax, 8(%0)\n" /* the new frame pointer */
               "mov 24(%%rsp), %%rax\n mov %%rax, 16(%0)\n" /* outer copies */
               "mov 32(%%rsp), %%rax\n mov %%rax, 24(%0)\n"
               "mov 40(%%rsp), %%rax\n mov %%rax, 32(%0)\n" /* the saved rbp */
               "mov %%rbp, %%rax\n sub %%rsp, %%rax\n mov %%rax, 40(%0)\n"
               "mov %%r12, %%rbp\n mov %%r13, %%rsp\n"
               :
               : "r"(got), "r"(chain)
               : "rax", "r12", "r13", "memory");
  printf("copies %#llx %#llx, saved rbp is chain+32: %d, frame pointer is rbp: %d, rbp-rsp %llu\n",
         (unsigned long long)got[3], (unsigned long long)got[2],
         got[4] == (uint64_t)(uintptr_t)(chain + 4), got[1] != 0, (unsigned long long)got[5]);
  printf("enter $16, $2 with rbp at nothing:\n");
  if (!sigsetjmp(back, 1)) {
    asm volatile("mov %%rbp, %%r12\n mov %%rsp, %0\n"
                 "mov $0x10, %%rbp\n"
                 "enter $16, $2\n"
                 "mov %%r12, %%rbp\n"
                 : "=m"(rsp_before)
                 :
                 : "r12", "memory");
    printf("  ran\n");
  }
  return 0;
}
