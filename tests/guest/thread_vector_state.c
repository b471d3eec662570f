/* thread_vector_state.c: a thread made by clone starts with its parent's vector and x87
 * state, as the kernel copies it (fpu_clone): the YMM registers whole, MXCSR, the x87
 * control word, and the XSAVE components in use (XSTATE_BV of an XSAVE as the thread's
 * first instruction after clone). */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static uint8_t parent_ymm[32], child_ymm[32];
static uint32_t child_mxcsr;
static uint16_t child_fcw;
static uint8_t child_area[1024] __attribute__((aligned(64)));
static volatile int child_done;
static uint8_t stack[16384] __attribute__((aligned(16)));

int main(void) {
  for (int i = 0; i < 32; i++) parent_ymm[i] = (uint8_t)(0x11 * (i + 1));
  uint32_t mxcsr = 0x9fc0; /* FTZ, DAZ, round down, all masked */
  uint16_t fcw = 0x0b7f;   /* round up */
  long flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM;
  long ret;
  /* Everything from the parent's loads to the child's stores in one block, so that no
   * compiled code touches the registers between: the child stores what it was given and
   * exits. */
  __asm__ volatile("vmovdqu %[ymm], %%ymm5\n\t"
                   "ldmxcsr %[mxcsr]\n\t"
                   "fldcw %[fcw]\n\t"
                   "syscall\n\t"
                   "test %%rax, %%rax\n\t"
                   "jnz 1f\n\t"
                   "mov $7, %%eax\n\t"
                   "xor %%edx, %%edx\n\t"
                   "xsave %[area]\n\t"
                   "vmovdqu %%ymm5, %[cymm]\n\t"
                   "stmxcsr %[cmxcsr]\n\t"
                   "fnstcw %[cfcw]\n\t"
                   "movl $1, %[done]\n\t"
                   "mov $60, %%eax\n\t" /* exit: this thread only */
                   "xor %%edi, %%edi\n\t"
                   "syscall\n\t"
                   "1:"
                   : "=a"(ret), [area] "=m"(child_area), [cymm] "=m"(child_ymm), [cmxcsr] "=m"(child_mxcsr),
                     [cfcw] "=m"(child_fcw), [done] "=m"(child_done)
                   : "0"((long)SYS_clone), "D"(flags), "S"(stack + sizeof stack), "d"(0L), "r"(0L),
                     [ymm] "m"(parent_ymm), [mxcsr] "m"(mxcsr), [fcw] "m"(fcw)
                   : "rcx", "r11", "r8", "r9", "r10", "xmm5", "memory");
  uint16_t default_fcw = 0x037f;
  uint32_t default_mxcsr = 0x1f80;
  __asm__ volatile("fldcw %0\n\tldmxcsr %1" : : "m"(default_fcw), "m"(default_mxcsr));
  if (ret < 0) {
    printf("clone failed: %ld\n", ret);
    return 1;
  }
  while (!child_done) sched_yield();
  printf("ymm5 low half inherited: %s\n", memcmp(child_ymm, parent_ymm, 16) ? "no" : "yes");
  printf("ymm5 upper half inherited: %s\n", memcmp(child_ymm + 16, parent_ymm + 16, 16) ? "no" : "yes");
  printf("mxcsr %#x, fcw %#x\n", child_mxcsr, child_fcw);
  printf("xstate_bv (x87, SSE, AVX): %#x\n", child_area[512] & 7);
  return 0;
}
