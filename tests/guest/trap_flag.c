/* trap_flag.c: single-stepping with EFLAGS.TF: the SIGTRAP (TRAP_TRACE, trapno 1, si_addr the
 * next instruction) after every instruction from the one after the POPF that sets TF to
 * the POPF that clears it, inclusive; none between MOV SS and the next instruction (its
 * interrupt shadow), nor a longer shadow for two MOV SS in a row; none after a SYSCALL
 * (the kernel returns without it). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
static volatile int steps;
static unsigned long rips[64], addrs[64];
static void on_trap(int sig, siginfo_t *si, void *ucv) {
  ucontext_t *uc = ucv;
  if (steps < 64) {
    rips[steps] = uc->uc_mcontext.gregs[REG_RIP] - (unsigned long)si->si_addr;
    addrs[steps] = (unsigned long)si->si_addr;
  }
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
  /* The traps' addresses, as offsets from label 1: after MOV SS, SS the next trap is one
   * instruction later; after two MOV SS in a row, after the second. */
  unsigned long at;
  steps = 0;
  __asm__ volatile("lea 1f(%%rip), %0\n mov %%ss, %%ecx\n"
                   "pushfq\n orq $0x100, (%%rsp)\n popfq\n"
                   "1: nop\n mov %%ecx, %%ss\n inc %%eax\n inc %%eax\n mov %%ecx, %%ss\n mov %%ecx, %%ss\n"
                   "inc %%eax\n inc %%eax\n"
                   "pushfq\n andq $~0x100, (%%rsp)\n popfq\n"
                   : "=&r"(at) : : "rax", "rcx", "cc", "memory");
  printf("mov ss: %d traps at", steps);
  for (int i = 0; i < steps && i < 64; i++) printf(" +%lu", addrs[i] - at);
  printf("\n");
  steps = 0;
  __asm__ volatile("lea 1f(%%rip), %0\n pushfq\n orq $0x100, (%%rsp)\n popfq\n"
                   "1: nop\n mov $39, %%eax\n syscall\n nop\n mov $39, %%eax\n syscall\n syscall\n nop\n"
                   "pushfq\n andq $~0x100, (%%rsp)\n popfq\n"
                   : "=&r"(at) : : "rax", "rcx", "r11", "cc", "memory");
  printf("syscall (getpid): %d traps at", steps);
  for (int i = 0; i < steps && i < 64; i++) printf(" +%lu", addrs[i] - at);
  printf("\n");
  return 0;
}
