/* trap_flag.c: single-stepping with EFLAGS.TF: the SIGTRAP (TRAP_TRACE, trapno 1, si_addr the
 * next instruction) after every instruction from the one after the POPF that sets TF to
 * the POPF that clears it, inclusive. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
static volatile int steps;
static unsigned long rips[64];
static void on_trap(int sig, siginfo_t *si, void *ucv) {
  ucontext_t *uc = ucv;
  if (steps < 64) rips[steps] = uc->uc_mcontext.gregs[REG_RIP] - (unsigned long)si->si_addr;
  if (steps == 0) printf("sig %d code %d trapno %lld err %lld\n", sig, si->si_code, (long long)uc->uc_mcontext.gregs[REG_TRAPNO], (long long)uc->uc_mcontext.gregs[REG_ERR]);
  steps++;
}
int main(void) {
  struct sigaction sa = {.sa_sigaction = on_trap, .sa_flags = SA_SIGINFO};
  sigaction(SIGTRAP, &sa, NULL);
  unsigned long r;
  __asm__ volatile("pushfq\n orq $0x100, (%%rsp)\n popfq\n"
                   "mov $5, %%eax\n add $3, %%eax\n imul $7, %%eax\n"
                   "pushfq\n andq $~0x100, (%%rsp)\n popfq\n nop\n nop\n mov %%rax, %0" : "=r"(r) : : "rax", "cc", "memory");
  printf("r=%lu steps=%d, rip-si_addr all %s\n", r, steps, rips[0] == 0 && rips[steps-1] == 0 ? "0" : "differ");
  return 0;
}
