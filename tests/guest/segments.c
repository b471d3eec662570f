/* segments.c: the segment registers a 64-bit Linux process has (CS 0x33, SS 0x2b, the
 * others 0), read with MOV r/m, Sreg into registers of each size and memory, and loads of
 * DS, ES and SS: valid selectors stay, invalid ones are #GP with the selector as error
 * code. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

static sigjmp_buf back;

static void on_segv(int sig, siginfo_t *si, void *ucv) {
  ucontext_t *uc = ucv;
  printf("  SIGSEGV si_code=%d si_addr=%p trapno=%lld err=%#llx\n", si->si_code, si->si_addr,
         (long long)uc->uc_mcontext.gregs[REG_TRAPNO], (long long)uc->uc_mcontext.gregs[REG_ERR]);
  (void)sig;
  siglongjmp(back, 1);
}

#define LOAD(seg, value)                                                          \
  do {                                                                            \
    uint16_t v = (value), got = 0xffff;                                           \
    printf("mov " #seg ", %#x:\n", v);                                           \
    if (!sigsetjmp(back, 1)) {                                                    \
      asm volatile("mov %1, %%" #seg "\n mov %%" #seg ", %0" : "=r"(got) : "r"(v)); \
      printf("  " #seg " = %#x\n", got);                                          \
    }                                                                             \
  } while (0)

int main(void) {
  struct sigaction sa = {.sa_sigaction = on_segv, .sa_flags = SA_SIGINFO | SA_NODEFER};
  sigaction(SIGSEGV, &sa, NULL);
  uint64_t r64 = ~0ull;
  uint32_t r32 = ~0u;
  uint16_t m16[2] = {0xaaaa, 0xbbbb};
  asm volatile("mov %%cs, %0" : "=r"(r64));
  asm volatile("mov %%ss, %0" : "=r"(r32));
  asm volatile("mov %%ds, %0" : "=m"(m16[0]));
  printf("cs (64-bit register) = %#llx, ss (32-bit) = %#x, ds (memory) = %#x, next word %#x\n",
         (unsigned long long)r64, r32, m16[0], m16[1]);
  uint16_t es, fs, gs;
  asm volatile("mov %%es, %0; mov %%fs, %1; mov %%gs, %2" : "=r"(es), "=r"(fs), "=r"(gs));
  printf("es = %#x, fs = %#x, gs = %#x\n", es, fs, gs);
  LOAD(ds, 0x2b);
  /* 0x23, Linux's 32-bit user code segment, is readable code: DS takes it. A host whose
   * GDT lacks it (compare.sh's host_traits) cannot show that. */
  const char *user32 = getenv("X64EMU_TEST_HOST_USER32_CS");
  if (user32 && !strcmp(user32, "0"))
    printf("mov ds, 0x23: left out, the host's GDT has no 32-bit code segment\n");
  else
    LOAD(ds, 0x23);
  LOAD(ds, 0);
  LOAD(es, 0x2b);
  LOAD(es, 3);
  LOAD(ds, 0x1234);
  LOAD(es, 0x2c);
  LOAD(ss, 0x2b);
  LOAD(ss, 0);
  LOAD(ss, 0x23);
  LOAD(ds, 0);
  LOAD(es, 0);
  return 0;
}
