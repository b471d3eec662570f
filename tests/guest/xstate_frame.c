/* xstate_frame.c: the XSAVE state as a program sees it: XGETBV and CPUID leaf 0xD agree,
 * XSAVE/XRSTOR of the x87 and SSE components round-trip, and a signal handler finds the
 * kernel's XSAVE frame (UC_FP_XSTATE, FP_XSTATE_MAGIC1 and the sizes in the software
 * bytes, FP_XSTATE_MAGIC2 after the area, x87 and SSE in xfeatures and XSTATE_BV), changes
 * XMM registers there, and sees them changed after sigreturn (and one whose XSTATE_BV bit
 * it cleared come back as zero). The sizes differ by CPU, so only outcomes are printed. */
#define _GNU_SOURCE
#include <cpuid.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

enum { MAGIC1 = 0x46505853, MAGIC2 = 0x46505845 };

static volatile int frame_ok[6];

static void on_usr1(int sig, siginfo_t *info, void *context) {
  (void)sig, (void)info;
  ucontext_t *uc = context;
  uint8_t *fp = (uint8_t *)uc->uc_mcontext.fpregs;
  uint32_t magic1, extended, xstate_size, magic2;
  uint64_t xfeatures, bv;
  memcpy(&magic1, fp + 464, 4);
  memcpy(&extended, fp + 468, 4);
  memcpy(&xfeatures, fp + 472, 8);
  memcpy(&xstate_size, fp + 480, 4);
  memcpy(&magic2, fp + xstate_size, 4);
  memcpy(&bv, fp + 512, 8);
  frame_ok[0] = (uc->uc_flags & 1) != 0; /* UC_FP_XSTATE */
  frame_ok[1] = magic1 == MAGIC1;
  frame_ok[2] = extended == xstate_size + 4 && xstate_size >= 576;
  frame_ok[3] = magic2 == MAGIC2;
  frame_ok[4] = (xfeatures & 3) == 3;
  frame_ok[5] = (bv & 3) == 3;
  /* XMM4 = 0x11...; and no SSE state at all if asked (XSTATE_BV bit 1 clear), which
   * sigreturn loads as zeros. */
  memset(fp + 160 + 16 * 4, 0x11, 16);
  if (info->si_value.sival_int == 2) {
    bv &= ~2ull;
    memcpy(fp + 512, &bv, 8);
  }
}

/* XMM4 after a signal whose handler did `how` (1: changed it; 2: and cleared SSE). */
static uint8_t xmm4_after(int how) {
  uint8_t v[16];
  memset(v, 0x77, sizeof v);
  __asm__ volatile("movdqu %0, %%xmm4" : : "m"(v) : "xmm4");
  sigqueue(getpid(), SIGUSR1, (union sigval){.sival_int = how});
  __asm__ volatile("movdqu %%xmm4, %0" : "=m"(v));
  return v[0];
}

int main(void) {
  unsigned a, b, c, d, lo, hi;
  __cpuid(1, a, b, c, d);
  int xsave = c >> 26 & 1, osxsave = c >> 27 & 1;
  printf("XSAVE %d, OSXSAVE %d\n", xsave, osxsave);
  if (!osxsave) return 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  __cpuid_count(0xD, 0, a, b, c, d);
  printf("XCR0 has x87 and SSE: %d, CPUID.0xD.0 lists them: %d, area of at least 576 bytes: %d\n",
         (lo & 3) == 3, (a & 3) == 3, b >= 576 && c >= b);

  /* XSAVE, a change, XRSTOR: the change is undone. */
  static uint8_t area[4096] __attribute__((aligned(64)));
  uint8_t v[16], w[16];
  memset(v, 0x5a, sizeof v);
  memset(w, 0xa5, sizeof w);
  __asm__ volatile("movdqu %1, %%xmm3\n\t"
                   "xsave64 %0\n\t"
                   "movdqu %2, %%xmm3\n\t"
                   "xrstor64 %0\n\t"
                   "movdqu %%xmm3, %1"
                   : "+m"(area), "+m"(v)
                   : "m"(w), "a"(3), "d"(0)
                   : "xmm3");
  uint64_t bv;
  memcpy(&bv, area + 512, 8);
  printf("XSAVE/XRSTOR round trip: %d, XSTATE_BV has SSE: %d\n", v[0] == 0x5a, (bv & 2) != 0);

  struct sigaction sa = {.sa_sigaction = on_usr1, .sa_flags = SA_SIGINFO};
  sigaction(SIGUSR1, &sa, NULL);
  uint8_t changed = xmm4_after(1);
  printf("frame: UC_FP_XSTATE %d, magic1 %d, sizes %d, magic2 %d, xfeatures %d, XSTATE_BV %d\n",
         frame_ok[0], frame_ok[1], frame_ok[2], frame_ok[3], frame_ok[4], frame_ok[5]);
  printf("XMM4 changed by the handler: %d\n", changed == 0x11);
  printf("XMM4 with SSE cleared from XSTATE_BV: %02x\n", xmm4_after(2));
  return 0;
}
