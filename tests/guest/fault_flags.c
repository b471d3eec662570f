/* fault_flags.c: the flags a signal frame shows when an instruction faults after one
 * whose flags nothing reads before the next flag-setting instruction. The faulting
 * instruction has not run, so the frame holds the flags of the one before it: an
 * interpreter that drops flags no later instruction reads must still keep them where an
 * instruction in between may fault (a load or store, an implicit stack or string access,
 * a division). Each case sets the flags, faults, and would overwrite them after. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

enum { CF = 0x1, PF = 0x4, ZF = 0x40, SF = 0x80, OF = 0x800 };
static sigjmp_buf back;
static volatile unsigned long long frame_flags;
static char buffer[64];

static void on_fault(int sig, siginfo_t *info, void *context) {
  (void)info;
  frame_flags = (unsigned long long)((ucontext_t *)context)->uc_mcontext.gregs[REG_EFL];
  siglongjmp(back, sig);
}

/* Runs CODE, which must fault; prints the signal and the frame's flags under MASK (the
 * flags the instruction before the fault defines). */
#define CASE(name, mask, code, ...)                                                          \
  do {                                                                                       \
    int sig_ = sigsetjmp(back, 1);                                                           \
    if (!sig_) {                                                                             \
      __asm__ volatile(code ::__VA_ARGS__ : "rax", "rcx", "rdx", "rsi", "r8", "cc", "memory"); \
      printf("%-34s did not fault\n", name);                                                 \
    } else {                                                                                 \
      printf("%-34s signal %2d  flags 0x%04llx\n", name, sig_, frame_flags & (mask));         \
    }                                                                                        \
  } while (0)

#define ARITH (CF | PF | ZF | SF | OF) /* AF is undefined after shifts */

int main(void) {
  static char altstack[65536];
  stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack};
  sigaltstack(&ss, NULL);
  struct sigaction sa = {.sa_sigaction = on_fault, .sa_flags = SA_SIGINFO | SA_ONSTACK};
  sigaction(SIGSEGV, &sa, NULL);
  sigaction(SIGFPE, &sa, NULL);

  CASE("xor, load faults", ARITH,
       "mov $0x40000001, %%eax; cmp %%eax, %%eax; xor $0x7fffffff, %%eax; mov 16, %%ecx; add %%ecx, %%eax");
  CASE("shl, load faults", ARITH,
       "mov $0x40000001, %%eax; cmp %%eax, %%eax; shl $1, %%eax; mov 16, %%ecx; add %%ecx, %%eax");
  CASE("shr, store faults", ARITH,
       "mov $3, %%eax; cmp %%eax, %%eax; shr $1, %%eax; mov %%eax, 16; add %%eax, %%eax");
  CASE("sar, load and add fault", ARITH,
       "mov $-8, %%rax; cmp %%eax, %%eax; sar $1, %%rax; add 16, %%rax");
  CASE("shl, division by zero", ARITH,
       "xor %%ecx, %%ecx; xor %%edx, %%edx; mov $0x80000000, %%eax; shl $1, %%eax; div %%ecx;"
       "add %%eax, %%eax");
  CASE("shl, push faults", ARITH,
       "mov %%rsp, %%r8; mov $0x1000, %%rsp; mov $0x40000000, %%eax; cmp %%eax, %%eax;"
       "shl $1, %%eax; push %%rax; add %%eax, %%eax; mov %%r8, %%rsp");
  CASE("shl, pop faults", ARITH,
       "mov %%rsp, %%r8; mov $0x1000, %%rsp; mov $0x40000000, %%eax; cmp %%eax, %%eax;"
       "shl $1, %%eax; pop %%rcx; add %%eax, %%eax; mov %%r8, %%rsp");
  CASE("shl, rep movsb faults", ARITH,
       "mov $16, %%rsi; mov $4, %%ecx; mov $0xc0000000, %%eax; shl $1, %%eax; rep movsb;"
       "add %%eax, %%eax", "D"(buffer));
  CASE("rol, load faults", CF | OF,
       "mov $0x80000000, %%eax; cmp %%eax, %%eax; rol $1, %%eax; mov 16, %%ecx; add %%ecx, %%eax");
  CASE("bt, load faults", CF,
       "mov $1, %%eax; cmp %%eax, %%eax; bt $0, %%eax; mov 16, %%ecx; add %%ecx, %%eax");
  CASE("stc, inc keeps CF, load faults", ARITH,
       "mov $-1, %%eax; stc; inc %%eax; mov 16, %%ecx; add %%ecx, %%eax");
  CASE("sub, lea, load faults", ARITH,
       "mov $1, %%eax; sub $2, %%eax; lea 8(%%rax), %%rcx; mov 16, %%ecx; add %%ecx, %%eax");
  /* Floating-point exceptions the program unmasks: #XM from an SSE division by zero, and
   * the x87's, raised at the next waiting instruction. The masks come back after each. */
  static const unsigned mxcsr_zm_unmasked = 0x1F80 & ~0x200u, mxcsr_default = 0x1F80;
  static const unsigned short fcw_zm_unmasked = 0x037F & ~0x4, fcw_default = 0x037F;
  CASE("xor, divss faults (ZE unmasked)", ARITH,
       "ldmxcsr %0; mov $1, %%eax; cvtsi2ss %%eax, %%xmm0; pxor %%xmm1, %%xmm1;"
       "mov $0x40000001, %%eax; cmp %%eax, %%eax; xor $0x7fffffff, %%eax; divss %%xmm1, %%xmm0;"
       "add %%eax, %%eax", "m"(mxcsr_zm_unmasked));
  __asm__ volatile("ldmxcsr %0" ::"m"(mxcsr_default));
  CASE("shl, fwait after fdiv faults (ZE unmasked)", ARITH,
       "fninit; fldcw %0; fld1; fldz; fdivrp; mov $0x40000001, %%eax; cmp %%eax, %%eax;"
       "shl $1, %%eax; fwait; add %%eax, %%eax", "m"(fcw_zm_unmasked));
  __asm__ volatile("fninit; fldcw %0" ::"m"(fcw_default));
  return 0;
}
