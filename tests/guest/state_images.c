/* state_images.c: the x87 and SSE state images (FLDENV, FNSTENV, FRSTOR, FNSAVE in both
 * layouts, FXSAVE, FXRSTOR) and the XSAVE area (XSAVE, XSAVEC, XRSTOR) placed across the
 * edge of a page they may not access: which byte the fault names, and whether anything
 * was written before it. The CPU checks such an operand at its ends before it accesses
 * any of it (docs/cpu-model.md); x64emu once copied them with the host's memcpy, so that
 * the byte named was the host library's choice and a store that faulted had written part
 * of the image. Measured on an Intel Xeon: state_images.expected. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static sigjmp_buf back;
static int caught;
static uintptr_t fault_at;

static void on_fault(int sig, siginfo_t *si, void *uc) {
  (void)uc;
  caught = sig;
  fault_at = (uintptr_t)si->si_addr;
  siglongjmp(back, 1);
}

enum { PAGE = 4096 };
static uint8_t *area; /* three pages */
static const uint32_t mxcsr_default = 0x1f80; /* FXRSTOR and XRSTOR load zeroes: all unmasked */

/* Runs one instruction on the operand at edge - before, where edge is the start of the
 * middle page: with after_bad the page from edge on is protected (prot), else the page
 * before it. Prints the signal, the byte named relative to edge, and the bytes changed. */
#define RUN(name, insn, before, after_bad, prot)                                            \
  do {                                                                                   \
    uint8_t *edge = area + PAGE, *at = edge - (before);                                  \
    mprotect(area, 3 * PAGE, PROT_READ | PROT_WRITE);                                    \
    memset(area, 0, 3 * PAGE);                                                           \
    mprotect(after_bad ? edge : edge - PAGE, PAGE, prot);                                \
    caught = 0;                                                                          \
    if (!sigsetjmp(back, 1))                                                             \
      asm volatile(insn " (%0)" : : "r"(at), "a"(7), "d"(0) : "memory");                 \
    mprotect(area, 3 * PAGE, PROT_READ | PROT_WRITE);                                    \
    int changed = 0;                                                                     \
    for (int i = 0; i < 3 * PAGE; i++) changed += area[i] != 0;                          \
    if (caught)                                                                          \
      printf("%-14s %s %4d: sig %d at %+ld, %s\n", name, after_bad ? "end" : "start",     \
             before, caught, (long)(fault_at - (uintptr_t)edge),                         \
             changed ? "written" : "nothing written");                                   \
    else                                                                                 \
      printf("%-14s %s %4d: ran\n", name, after_bad ? "end" : "start", before);           \
    asm volatile("fninit\n ldmxcsr %0" : : "m"(mxcsr_default));                          \
  } while (0)

int main(void) {
  struct sigaction sa = {.sa_sigaction = on_fault, .sa_flags = SA_SIGINFO | SA_NODEFER};
  sigaction(SIGSEGV, &sa, NULL);
  area = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (area == MAP_FAILED) return 1;
  /* Offsets into the image where the edge falls: inside its first word, just past it,
   * inside and at the end of the image. */
  static const int x87[] = {1, 3, 4, 8, 13, 14, 27, 28, 50, 93, 94, 107, 108};
  for (volatile unsigned i = 0; i < sizeof x87 / sizeof *x87; i++) {
    int b = x87[i];
    RUN("fldenv", "fldenv", b, 1, PROT_NONE);
    RUN("fnstenv", "fnstenv", b, 1, PROT_READ);
    RUN("frstor", "frstor", b, 1, PROT_NONE);
    RUN("fnsave", "fnsave", b, 1, PROT_READ);
    RUN("fldenv 16", "data16 fldenv", b, 1, PROT_NONE);
    RUN("fnstenv 16", "data16 fnstenv", b, 1, PROT_READ);
    RUN("frstor 16", "data16 frstor", b, 1, PROT_NONE);
    RUN("fnsave 16", "data16 fnsave", b, 1, PROT_READ);
    RUN("frstor", "frstor", b, 0, PROT_NONE);
    RUN("fnsave", "fnsave", b, 0, PROT_NONE);
  }
  static const int fx[] = {16, 64, 400, 496, 512};
  for (volatile unsigned i = 0; i < sizeof fx / sizeof *fx; i++) {
    int b = fx[i];
    RUN("fxrstor", "fxrstor64", b, 1, PROT_NONE);
    RUN("fxsave", "fxsave64", b, 1, PROT_READ);
    RUN("fxrstor", "fxrstor64", b, 0, PROT_NONE);
    RUN("fxsave", "fxsave64", b, 0, PROT_READ);
  }
  /* EDX:EAX = 7: x87, SSE and AVX; the area's header is zero (every component in its
   * initial state). */
  static const int xs[] = {64, 256, 512, 576, 768, 832};
  for (volatile unsigned i = 0; i < sizeof xs / sizeof *xs; i++) {
    int b = xs[i];
    RUN("xrstor", "xrstor64", b, 1, PROT_NONE);
    RUN("xsave", "xsave64", b, 1, PROT_READ);
    RUN("xsavec", "xsavec64", b, 1, PROT_READ);
    RUN("xrstor", "xrstor64", b, 0, PROT_NONE);
    RUN("xsave", "xsave64", b, 0, PROT_READ);
    RUN("xsavec", "xsavec64", b, 0, PROT_READ);
  }
  return 0;
}
