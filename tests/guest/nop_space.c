/* nop_space.c: the NOP space runs as NOPs, the way compilers and glibc use it on CPUs
 * without CET: ENDBR64/ENDBR32, RDSSPD/Q (no shadow stack: nothing happens), the hint NOPs
 * 0F 19..1F with a register or memory operand, PREFETCHW, PREFETCHh, PAUSE and the long
 * NOP forms. (The register forms of 0F 0D and 0F 18, and INCSSP and the other shadow-stack
 * instructions, differ between vendors and CPU generations: not here.) */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static sigjmp_buf back;

static void on_signal(int sig, siginfo_t *si, void *uc) {
  (void)uc;
  printf("  signal %d code %d\n", sig, si->si_code);
  siglongjmp(back, 1);
}

typedef struct Case {
  const char *name;
  uint8_t bytes[8];
  unsigned len;
} Case;

static const Case cases[] = {
    {"endbr64", {0xf3, 0x0f, 0x1e, 0xfa}, 4},
    {"endbr32", {0xf3, 0x0f, 0x1e, 0xfb}, 4},
    {"rdsspd eax", {0xf3, 0x0f, 0x1e, 0xc8}, 4},
    {"rdsspq rax", {0xf3, 0x48, 0x0f, 0x1e, 0xc8}, 5},
    {"f2 0f 1e fa", {0xf2, 0x0f, 0x1e, 0xfa}, 4},
    {"0f 1e fa", {0x0f, 0x1e, 0xfa}, 3},
    {"nop dword [rax]", {0x0f, 0x1f, 0x00}, 3},
    {"nop word [rax+rax*1+0]", {0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00}, 6},
    {"0f 19 c0", {0x0f, 0x19, 0xc0}, 3},
    {"0f 1a [rax]", {0x0f, 0x1a, 0x00}, 3},
    {"0f 1b [rax]", {0x0f, 0x1b, 0x00}, 3},
    {"0f 1c [rax]", {0x0f, 0x1c, 0x00}, 3},
    {"0f 1d c0", {0x0f, 0x1d, 0xc0}, 3},
    {"0f 1f c0", {0x0f, 0x1f, 0xc0}, 3},
    {"prefetchw [rax]", {0x0f, 0x0d, 0x08}, 3},
    {"prefetchnta [rax]", {0x0f, 0x18, 0x00}, 3},
    {"0f 18 /4 [rax]", {0x0f, 0x18, 0x20}, 3},
    {"pause", {0xf3, 0x90}, 2},
};

int main(void) {
  struct sigaction sa = {.sa_sigaction = on_signal, .sa_flags = SA_SIGINFO | SA_NODEFER};
  sigaction(SIGILL, &sa, NULL);
  sigaction(SIGSEGV, &sa, NULL);
  static uint64_t scratch[8];
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    uint8_t *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    memcpy(page, cases[i].bytes, cases[i].len);
    page[cases[i].len] = 0xc3; /* ret */
    printf("%s:\n", cases[i].name);
    fflush(stdout);
    uint64_t rax = (uint64_t)(uintptr_t)scratch;
    if (!sigsetjmp(back, 1)) {
      asm volatile("call *%1" : "+a"(rax) : "r"(page) : "rcx", "memory");
      printf("  ran, rax kept: %d\n", rax == (uint64_t)(uintptr_t)scratch);
    }
    munmap(page, 4096);
  }
  return 0;
}
