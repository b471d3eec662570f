/* rep_strings.c: REP MOVS and REP STOS of every element size, forward and backward,
 * across pages: the memory they leave, and, where a page they reach cannot be read or
 * written, the fault and the registers the signal handler sees (RCX counts the elements
 * left, RDI and RSI point at the element that faulted), elements that straddle the
 * boundary included. Overlapping copies, which replicate a pattern, and STOS values
 * whose bytes differ too. Printed, to be compared with a native run. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

enum { PAGE = 4096, PAGES = 6 };
static unsigned char *area; /* PAGES pages, the fourth made inaccessible per case;
                              every case stays inside them */
static sigjmp_buf back;

static uint64_t checksum(void) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned i = 0; i < PAGES * PAGE; i++) {
    if (i / PAGE == 3) continue;
    h = (h ^ area[i]) * 1099511628211ull;
  }
  return h;
}

static bool copying; /* RSI is the source's: printed */

static void on_fault(int sig, siginfo_t *si, void *ucv) {
  const greg_t *g = ((ucontext_t *)ucv)->uc_mcontext.gregs;
  printf("  SIG%s at +%ld: rcx=%lld rdi=+%lld", sig == SIGSEGV ? "SEGV" : "BUS",
         (long)((unsigned char *)si->si_addr - area), (long long)g[REG_RCX],
         (long long)(g[REG_RDI] - (greg_t)area));
  if (copying) printf(" rsi=+%lld", (long long)(g[REG_RSI] - (greg_t)area));
  printf("\n");
  siglongjmp(back, 1);
}

static void fill(void) {
  for (unsigned i = 0; i < PAGES * PAGE; i++) area[i] = (unsigned char)(i * 7 + i / 251);
}

/* One REP instruction of element size `size` (1, 2, 4, 8): STOS (src NULL) or MOVS. */
static void rep_op(unsigned size, bool backward, unsigned char *dst, const unsigned char *src,
                   uint64_t count, uint64_t value) {
  if (backward) __asm__ volatile("std");
#define REP(insn, ...) \
  __asm__ volatile("rep " insn : "+D"(dst), "+c"(count), ##__VA_ARGS__ : "a"(value) : "memory")
  if (!src) {
    switch (size) {
    case 1: REP("stosb"); break;
    case 2: REP("stosw"); break;
    case 4: REP("stosl"); break;
    default: REP("stosq"); break;
    }
  } else {
    switch (size) {
    case 1: REP("movsb", "+S"(src)); break;
    case 2: REP("movsw", "+S"(src)); break;
    case 4: REP("movsl", "+S"(src)); break;
    default: REP("movsq", "+S"(src)); break;
    }
  }
#undef REP
  __asm__ volatile("cld");
}

static void run_case(const char *what, unsigned size, bool backward, long dst, long src,
                     uint64_t count, uint64_t value, int guard) {
  fill();
  mprotect(area + 3 * PAGE, PAGE, guard);
  printf("%s%u %s dst=+%ld src=%s%ld count=%llu:\n", what, size * 8, backward ? "down" : "up",
         dst, src < 0 ? "none " : "+", src < 0 ? 0 : src, (unsigned long long)count);
  copying = src >= 0;
  if (!sigsetjmp(back, 1)) {
    rep_op(size, backward, area + dst, src < 0 ? NULL : area + src, count, value);
    printf("  done\n");
  }
  __asm__ volatile("cld");
  mprotect(area + 3 * PAGE, PAGE, PROT_READ | PROT_WRITE);
  printf("  memory %016llx\n", (unsigned long long)checksum());
}

int main(void) {
  area = mmap(NULL, PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  struct sigaction sa = {.sa_sigaction = on_fault, .sa_flags = SA_SIGINFO | SA_NODEFER};
  sigaction(SIGSEGV, &sa, NULL);
  sigaction(SIGBUS, &sa, NULL);
  const uint64_t zero = 0, mixed = 0x8877665544332211ull, same = 0x5a5a5a5a5a5a5a5aull;
  for (unsigned size = 1; size <= 8; size *= 2) {
    /* Within accessible pages, several pages long; uniform and mixed values. */
    run_case("stos", size, false, 5, -1, 3 * PAGE / size - 3, mixed, PROT_READ | PROT_WRITE);
    run_case("stos", size, false, 0, -1, 3 * PAGE / size, zero, PROT_READ | PROT_WRITE);
    run_case("stos", size, false, 9, -1, 2 * PAGE / size, same, PROT_READ | PROT_WRITE);
    run_case("stos", size, true, 3 * PAGE - 5, -1, 2 * PAGE / size, mixed,
             PROT_READ | PROT_WRITE);
    run_case("movs", size, false, 4 * PAGE + 3, 17, PAGE / size + 5, 0, PROT_READ | PROT_WRITE);
    run_case("movs", size, false, 100, 4 * PAGE + 1, PAGE / size + 7, 0, PROT_READ | PROT_WRITE);
    run_case("movs", size, true, 2 * PAGE, 5 * PAGE + 100, PAGE / size, 0, PROT_READ | PROT_WRITE);
    /* Overlapping ahead of itself: the pattern repeats; and behind itself. */
    run_case("movs", size, false, 4 * PAGE + 3, 4 * PAGE, PAGE / size, 0, PROT_READ | PROT_WRITE);
    run_case("movs", size, false, 4 * PAGE, 4 * PAGE + 5, PAGE / size, 0, PROT_READ | PROT_WRITE);
    /* Into the inaccessible page: elements that end at its start, and one across it. */
    for (unsigned skew = 0; skew < size; skew += size > 2 ? size / 2 - 1 : 1) {
      long dst = 3 * PAGE - 40 * (long)size - skew;
      run_case("stos", size, false, dst, -1, 100, mixed, PROT_NONE);
      run_case("stos", size, false, dst, -1, 100, zero, PROT_READ);
      run_case("movs", size, false, dst, 9, 100, 0, PROT_READ);
      /* The source runs into it: the read faults first. */
      run_case("movs", size, false, 5 * PAGE, dst, 100, 0, PROT_NONE);
      run_case("movs", size, true, 4 * PAGE + 64 * size + skew, 4 * PAGE + 60 * size, 100, 0,
               PROT_NONE);
    }
  }
  return 0;
}
