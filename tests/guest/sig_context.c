/* sig_context.c: a handler reads the interrupted context from its frame and changes it
 * (a general register, XMM registers, MXCSR, the x87 control word, the signal mask), and
 * the interrupted code goes on with the changes; the handler itself starts with a fresh
 * FPU state. Last, an invalid MXCSR in the frame makes rt_sigreturn fail: SIGSEGV. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

typedef struct {
  uint32_t d[4];
} Xmm;

static struct {
  uint32_t mxcsr_at_entry, mxcsr_in_frame;
  uint16_t fcw_at_entry, fcw_in_frame;
  int xmm0_in_frame_ok, rbx_in_frame_ok, fpregs_set;
} seen;
static int break_mxcsr;

static const Xmm pattern = {{0x11111111, 0x22222222, 0x33333333, 0x44444444}};

static void on_usr1(int sig, siginfo_t *si, void *ucv) {
  (void)sig, (void)si;
  ucontext_t *uc = ucv;
  uint32_t mxcsr;
  uint16_t fcw;
  asm volatile("stmxcsr %0\n\tfnstcw %1" : "=m"(mxcsr), "=m"(fcw));
  seen.mxcsr_at_entry = mxcsr;
  seen.fcw_at_entry = fcw;
  struct _libc_fpstate *fp = uc->uc_mcontext.fpregs;
  seen.fpregs_set = fp != NULL;
  if (!fp) return;
  seen.mxcsr_in_frame = fp->mxcsr;
  seen.fcw_in_frame = fp->cwd;
  seen.xmm0_in_frame_ok = !memcmp(&fp->_xmm[0], &pattern, 16);
  seen.rbx_in_frame_ok = uc->uc_mcontext.gregs[REG_RBX] == 0x1111;
  /* The changes the interrupted code must see. */
  fp->_xmm[0].element[0] ^= 0xffffffffu;
  fp->_xmm[0].element[3] = 0xdeadbeef;
  for (int i = 0; i < 4; i++) fp->_xmm[7].element[i] = 0x70707070u + (uint32_t)i;
  fp->mxcsr = break_mxcsr ? 0xffffffffu : 0x3f80; /* round down, or reserved bits set */
  fp->cwd = 0x027f;                               /* 53-bit precision */
  uc->uc_mcontext.gregs[REG_RBX] = 0x2222;
  sigaddset(&uc->uc_sigmask, SIGUSR2); /* blocked once the handler returns */
}

/* Loads XMM0, XMM7 and RBX, sends itself SIGUSR1 with the SYSCALL instruction, and
 * reports the registers as they are after the handler returned. */
static void probe(Xmm *xmm0, Xmm *xmm7, uint64_t *rbx, uint32_t *mxcsr, uint16_t *fcw) {
  long nr = SYS_tgkill;
  long pid = getpid(), tid = gettid();
  asm volatile("movdqu %[in], %%xmm0\n\t"
               "movdqu %[in], %%xmm7\n\t"
               "movq $0x1111, %%rbx\n\t"
               "syscall\n\t"
               "movdqu %%xmm0, %[x0]\n\t"
               "movdqu %%xmm7, %[x7]\n\t"
               "movq %%rbx, %[rbx]\n\t"
               "stmxcsr %[mxcsr]\n\t"
               "fnstcw %[fcw]"
               : "+a"(nr), [x0] "=m"(*xmm0), [x7] "=m"(*xmm7), [rbx] "=m"(*rbx),
                 [mxcsr] "=m"(*mxcsr), [fcw] "=m"(*fcw)
               : [in] "m"(pattern), "D"(pid), "S"(tid), "d"((long)SIGUSR1)
               : "rcx", "r11", "rbx", "xmm0", "xmm7", "memory");
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_usr1;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGUSR1, &sa, NULL);

  /* Round toward zero, and 24-bit x87 precision, before the signal. */
  uint32_t mxcsr = 0x7f80;
  uint16_t fcw = 0x007f;
  asm volatile("ldmxcsr %0\n\tfldcw %1" : : "m"(mxcsr), "m"(fcw));

  Xmm x0, x7;
  uint64_t rbx;
  probe(&x0, &x7, &rbx, &mxcsr, &fcw);
  printf("handler entry: MXCSR %#x, x87 control word %#x (the interrupted code's: %#x, %#x)\n",
         seen.mxcsr_at_entry, seen.fcw_at_entry, seen.mxcsr_in_frame, seen.fcw_in_frame);
  printf("frame: fpregs %s, XMM0 %s, RBX %s\n", seen.fpregs_set ? "present" : "missing",
         seen.xmm0_in_frame_ok ? "as loaded" : "WRONG",
         seen.rbx_in_frame_ok ? "as loaded" : "WRONG");
  printf("after return: XMM0 %08x %08x %08x %08x\n", x0.d[0], x0.d[1], x0.d[2], x0.d[3]);
  printf("after return: XMM7 %08x %08x %08x %08x\n", x7.d[0], x7.d[1], x7.d[2], x7.d[3]);
  printf("after return: RBX %#llx, MXCSR %#x, x87 control word %#x\n", (unsigned long long)rbx,
         mxcsr, fcw);
  volatile float one = 1.0f, three = 3.0f;
  float third = one / three, minus_third = -one / three;
  printf("rounding down now: 1/3 = %a, -1/3 = %a\n", (double)third, (double)minus_third);
  sigset_t now;
  sigprocmask(SIG_BLOCK, NULL, &now);
  printf("mask from the frame: SIGUSR2 %s, SIGUSR1 %s\n",
         sigismember(&now, SIGUSR2) ? "blocked" : "not blocked",
         sigismember(&now, SIGUSR1) ? "blocked" : "not blocked");

  printf("an MXCSR with reserved bits in the frame: rt_sigreturn fails\n");
  fflush(stdout);
  break_mxcsr = 1;
  probe(&x0, &x7, &rbx, &mxcsr, &fcw);
  printf("not reached\n");
  return 0;
}
