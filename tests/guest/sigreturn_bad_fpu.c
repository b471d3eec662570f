/* sigreturn_bad_fpu.c: an rt_sigreturn whose frame's FPU state cannot be read. The kernel
 * restores the general registers, finds the FPU state bad, resets the FPU (fpu__restore_sig
 * clears the user state when it fails) and sends SIGSEGV (SI_KERNEL) there: the SIGSEGV
 * handler sees the interrupted state with MXCSR and the x87 control word at their
 * defaults, not at the values set before the sigreturn. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

static sigjmp_buf back;
static uint8_t stack[16384] __attribute__((aligned(16)));

static void on_segv(int sig, siginfo_t *si, void *ucv) {
  ucontext_t *uc = ucv;
  printf("signal %d code %d at the frame's rip: %s\n", sig, si->si_code,
         uc->uc_mcontext.gregs[REG_RIP] == (greg_t)(uintptr_t)&back ? "yes" : "no");
  printf("interrupted state: mxcsr %#x, fcw %#x\n", uc->uc_mcontext.fpregs->mxcsr,
         uc->uc_mcontext.fpregs->cwd);
  siglongjmp(back, 1);
}

int main(void) {
  struct sigaction sa = {.sa_sigaction = on_segv, .sa_flags = SA_SIGINFO};
  sigaction(SIGSEGV, &sa, NULL);
  /* The frame rt_sigreturn reads at RSP: a ucontext whose registers are sane (a stack of
   * our own, user code and stack selectors) and whose FPU state pointer is unmapped. */
  static ucontext_t frame;
  memset(&frame, 0, sizeof frame);
  frame.uc_mcontext.gregs[REG_RSP] = (greg_t)(uintptr_t)(stack + sizeof stack - 64);
  frame.uc_mcontext.gregs[REG_RIP] = (greg_t)(uintptr_t)&back; /* never run: only compared */
  frame.uc_mcontext.gregs[REG_CSGSFS] = 0x33;
  frame.uc_mcontext.fpregs = (fpregset_t)(uintptr_t)0x1000;
  uint32_t mxcsr = 0x9fc0;
  uint16_t fcw = 0x0b7f;
  if (!sigsetjmp(back, 1)) {
    __asm__ volatile("ldmxcsr %0\n\tfldcw %1\n\t"
                     "mov %2, %%rsp\n\t"
                     "mov %3, %%eax\n\t"
                     "syscall"
                     : : "m"(mxcsr), "m"(fcw), "r"(&frame), "i"(SYS_rt_sigreturn) : "memory");
    __builtin_unreachable();
  }
  uint32_t now_mxcsr;
  uint16_t now_fcw;
  __asm__ volatile("stmxcsr %0\n\tfnstcw %1" : "=m"(now_mxcsr), "=m"(now_fcw));
  printf("after the handler: mxcsr %#x, fcw %#x\n", now_mxcsr, now_fcw);
  return 0;
}
