/* stack_segment.c: a non-canonical address through the stack segment (the stack pointer
 * itself, or a base of RSP or RBP) is #SS, which the kernel answers with SIGBUS; through
 * any other register it is #GP, SIGSEGV. Both SI_KERNEL, address 0. The handler runs on
 * an alternate stack, since RSP may be the bad address. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

static sigjmp_buf back;

static void on_signal(int sig, siginfo_t *si, void *ucv) {
  ucontext_t *uc = ucv;
  printf("  %s si_code=%d si_addr=%p trapno=%lld err=%lld\n", sigabbrev_np(sig), si->si_code,
         si->si_addr, (long long)uc->uc_mcontext.gregs[REG_TRAPNO],
         (long long)uc->uc_mcontext.gregs[REG_ERR]);
  siglongjmp(back, 1);
}

int main(void) {
  static char alt[65536];
  stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt};
  sigaltstack(&ss, NULL);
  struct sigaction sa = {.sa_sigaction = on_signal, .sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK};
  sigaction(SIGSEGV, &sa, NULL);
  sigaction(SIGBUS, &sa, NULL);
  printf("push with a non-canonical rsp:\n");
  if (!sigsetjmp(back, 1))
    asm volatile("mov %%rsp, %%r12\n movabs $0x8000000000000008, %%rsp\n push %%rax\n mov %%r12, %%rsp"
                 ::: "r12", "memory");
  printf("call with a non-canonical rsp:\n");
  if (!sigsetjmp(back, 1))
    asm volatile("mov %%rsp, %%r12\n movabs $0x8000000000000100, %%rsp\n call 1f\n 1: mov %%r12, %%rsp"
                 ::: "r12", "memory");
  printf("mov rax, [rbp] with a non-canonical rbp:\n");
  if (!sigsetjmp(back, 1))
    asm volatile("mov %%rbp, %%r12\n movabs $0x8000000000000008, %%rbp\n mov (%%rbp), %%rax\n mov %%r12, %%rbp"
                 ::: "r12", "rax", "memory");
  printf("mov [rsp+rax], rcx with a non-canonical rax:\n");
  if (!sigsetjmp(back, 1))
    asm volatile("movabs $0x8000000000000000, %%rax\n mov %%rcx, (%%rsp,%%rax)" ::: "rax", "memory");
  printf("mov rax, [rax] with a non-canonical rax:\n");
  if (!sigsetjmp(back, 1))
    asm volatile("movabs $0x8000000000000000, %%rax\n mov (%%rax), %%rax" ::: "rax", "memory");
  printf("mov [rbx+rbp], rax with a non-canonical rbx (base rbx):\n");
  if (!sigsetjmp(back, 1))
    asm volatile("movabs $0xff00000000000000, %%rbx\n mov %%rax, (%%rbx,%%rbp)" ::: "rbx", "memory");
  return 0;
}
