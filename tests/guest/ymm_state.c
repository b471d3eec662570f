/* ymm_state.c: the YMM registers as a program sees them:
 * CPUID and XGETBV show the AVX state component, 256-bit AVX and AVX2 arithmetic, a
 * VEX.128 write clearing the upper half where a legacy SSE write keeps it, XSAVE's
 * XSTATE_BV following VZEROUPPER, and a signal handler that finds the YMM upper halves in
 * its frame, changes one, and sees the change (or, with the AVX bit of XSTATE_BV cleared,
 * the initial state) after sigreturn. Written in assembly where it matters, so that the
 * compiler picks no instruction beyond the ones tested. */
#define _GNU_SOURCE
#include <cpuid.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

enum { YMM_AREA = 576 };

static volatile uint8_t seen_upper;
static volatile int frame_has_avx;

static void on_usr1(int sig, siginfo_t *info, void *context) {
  (void)sig;
  uint8_t *fp = (uint8_t *)((ucontext_t *)context)->uc_mcontext.fpregs;
  uint64_t xfeatures, bv;
  memcpy(&xfeatures, fp + 472, 8);
  memcpy(&bv, fp + 512, 8);
  frame_has_avx = (xfeatures & 4) && (bv & 4);
  seen_upper = fp[YMM_AREA + 16 * 5];
  memset(fp + YMM_AREA + 16 * 5, 0x33, 16); /* YMM5's upper half */
  if (info->si_value.sival_int == 2) {
    bv &= ~4ull;
    memcpy(fp + 512, &bv, 8);
  }
}

/* YMM5 = 32 bytes of 0x44, a signal whose handler does `how`; YMM5's bytes 0 and 16. */
static void ymm5_after(int how, uint8_t out[2]) {
  uint8_t v[32];
  memset(v, 0x44, sizeof v);
  __asm__ volatile("vmovdqu %0, %%ymm5" : : "m"(v) : "xmm5");
  sigqueue(getpid(), SIGUSR1, (union sigval){.sival_int = how});
  __asm__ volatile("vmovdqu %%ymm5, %0\n\tvzeroupper" : "=m"(v));
  out[0] = v[0];
  out[1] = v[16];
}

static uint64_t xstate_bv_now(void) {
  static uint8_t area[1024] __attribute__((aligned(64)));
  memset(area, 0, sizeof area);
  __asm__ volatile("xsave64 %0" : "+m"(area) : "a"(7), "d"(0));
  uint64_t bv;
  memcpy(&bv, area + 512, 8);
  return bv & 4;
}

int main(void) {
  unsigned a, b, c, d, lo, hi;
  __cpuid(1, a, b, c, d);
  int avx = c >> 28 & 1, osxsave = c >> 27 & 1;
  __cpuid_count(7, 0, a, b, c, d);
  printf("AVX %d, AVX2 %d, OSXSAVE %d\n", avx, b >> 5 & 1, osxsave);
  if (!avx || !osxsave) return 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  __cpuid_count(0xD, 2, a, b, c, d);
  printf("XCR0 x87|SSE|AVX: %u, AVX component: %u bytes at %u\n", lo & 7, a, b);

  /* 256-bit arithmetic: dwords 1..8 plus 100 each, floats 0.5..4 times 2. */
  uint32_t ints[8] = {1, 2, 3, 4, 5, 6, 7, 8}, hundreds[8], isum[8];
  float fl[8] = {0.5f, 1, 1.5f, 2, 2.5f, 3, 3.5f, 4}, twos[8], fprod[8];
  for (int i = 0; i < 8; i++) hundreds[i] = 100, twos[i] = 2;
  __asm__ volatile("vmovdqu %2, %%ymm0\n\tvpaddd %3, %%ymm0, %%ymm1\n\tvmovdqu %%ymm1, %0\n\t"
                   "vmovups %4, %%ymm2\n\tvmulps %5, %%ymm2, %%ymm3\n\tvmovups %%ymm3, %1\n\t"
                   "vzeroupper"
                   : "=m"(isum), "=m"(fprod)
                   : "m"(ints), "m"(hundreds), "m"(fl), "m"(twos)
                   : "xmm0", "xmm1", "xmm2", "xmm3");
  printf("vpaddd:");
  for (int i = 0; i < 8; i++) printf(" %u", isum[i]);
  printf("\nvmulps:");
  for (int i = 0; i < 8; i++) printf(" %g", fprod[i]);
  printf("\n");

  /* Upper halves: a legacy SSE write keeps it, a VEX.128 write clears it. */
  uint8_t ones[32], y[32], z[32];
  memset(ones, 0xff, sizeof ones);
  __asm__ volatile("vmovdqu %2, %%ymm6\n\tpxor %%xmm6, %%xmm6\n\tvmovdqu %%ymm6, %0\n\t"
                   "vmovdqu %2, %%ymm7\n\tvpxor %%xmm7, %%xmm7, %%xmm7\n\tvmovdqu %%ymm7, %1\n\t"
                   "vzeroupper"
                   : "=m"(y), "=m"(z)
                   : "m"(ones)
                   : "xmm6", "xmm7");
  printf("after PXOR xmm6: low %02x high %02x; after VPXOR xmm7: low %02x high %02x\n", y[0], y[16],
         z[0], z[16]);

  /* XSAVE's XSTATE_BV: AVX in use with a non-zero upper half, not after VZEROUPPER. */
  __asm__ volatile("vmovdqu %0, %%ymm8" : : "m"(ones) : "xmm8");
  uint64_t in_use = xstate_bv_now();
  __asm__ volatile("vzeroupper");
  printf("XSTATE_BV AVX bit: with a YMM upper half set %d, after VZEROUPPER %d\n", in_use != 0,
         xstate_bv_now() != 0);

  struct sigaction sa = {.sa_sigaction = on_usr1, .sa_flags = SA_SIGINFO};
  sigaction(SIGUSR1, &sa, NULL);
  uint8_t r[2];
  ymm5_after(1, r);
  printf("handler: frame has AVX %d, YMM5 upper in frame %02x; after sigreturn YMM5 %02x/%02x\n",
         frame_has_avx, seen_upper, r[0], r[1]);
  ymm5_after(2, r);
  printf("with AVX cleared from XSTATE_BV: YMM5 %02x/%02x\n", r[0], r[1]);
  return 0;
}
