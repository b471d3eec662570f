/* enter_frames.c: ENTER's order of work as the CPU does it: push RBP, copy each outer
 * frame pointer, push the new frame pointer, then probe the new RSP with a write, a fault
 * at any step leaving RSP and RBP as they were; and ENTER and LEAVE with a 66 prefix,
 * which push and pop words and write BP alone. Run natively and under x64emu. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

static sigjmp_buf back;

static void on_segv(int sig, siginfo_t *si, void *ucv) {
  ucontext_t *uc = ucv;
  printf("  signal %d code %d addr %#lx err %lld rsp %#llx rbp %#llx\n", sig, si->si_code,
         (unsigned long)si->si_addr, (long long)uc->uc_mcontext.gregs[REG_ERR],
         (unsigned long long)uc->uc_mcontext.gregs[REG_RSP], (unsigned long long)uc->uc_mcontext.gregs[REG_RBP]);
  siglongjmp(back, 1);
}

/* Pages at 0x50000000: the first unmapped, the second read-write, the third read-only. */
#define BASE 0x50000000ull
#define ENTER(size, level, rsp, rbp)                                                              \
  asm volatile("mov %%rsp, %%r12\n mov %%rbp, %%r13\n mov %0, %%rsp\n mov %1, %%rbp\n"            \
               "enter $" #size ", $" #level "\n mov %%r12, %%rsp\n mov %%r13, %%rbp"              \
               :                                                                                  \
               : "r"((uint64_t)(rsp)), "r"((uint64_t)(rbp))                                       \
               : "r12", "r13", "memory")
#define CASE(what, code)                    \
  do {                                      \
    printf("%s\n", what);                   \
    if (sigsetjmp(back, 1) == 0) {          \
      code;                                 \
      printf("  ran\n");                    \
    }                                       \
  } while (0)

static void order_of_work(void) {
  uint64_t *slot = (uint64_t *)(BASE + 0x17f8), *outer = (uint64_t *)(BASE + 0x1ff8);
  outer[0] = 0x1111;
  outer[-1] = 0x2222;
  /* The new RSP in the unmapped page: the probe faults there, after every store. */
  CASE("enter 0x800, 0: the probe at the new rsp", ENTER(0x800, 0, BASE + 0x1800, BASE + 0x1800));
  CASE("enter 0xffff, 0: an odd new rsp", ENTER(0xffff, 0, BASE + 0x1800, BASE + 0x1800));
  CASE("enter 0x7f8, 0: the new rsp is mapped", ENTER(0x7f8, 0, BASE + 0x1800, BASE + 0x1800));
  CASE("enter 0x7f8, 2: two more pushes reach the unmapped page", ENTER(0x7f8, 2, BASE + 0x1800, BASE + 0x1800));
  for (int i = 0; i < 4; i++) slot[-i] = 0xAAAAAAAAAAAAAAAAull;
  CASE("enter 0x1000, 3: stores done before the probe faults", ENTER(0x1000, 3, BASE + 0x1800, BASE + 0x2000));
  printf("  slots %#lx %#lx %#lx %#lx\n", slot[0], slot[-1], slot[-2], slot[-3]);
  /* RBP points at nothing: the first copy faults, after the push of RBP. */
  for (int i = 0; i < 4; i++) slot[-i] = 0xAAAAAAAAAAAAAAAAull;
  CASE("enter 0x10, 2 with rbp unmapped", ENTER(0x10, 2, BASE + 0x1800, BASE + 0x800));
  printf("  slots %#lx %#lx %#lx\n", slot[0], slot[-1], slot[-2]);
  /* The push of RBP into the read-only page comes first of all. */
  CASE("enter 0x1000, 2, rsp in the read-only page, rbp unmapped", ENTER(0x1000, 2, BASE + 0x2800, BASE + 0x800));
}

static uint8_t words[256];

static void word_forms(void) {
  for (int level = 0; level < 4; level++) {
    memset(words, 0xAA, sizeof words);
    uint8_t *outer = words + 200;
    memcpy(outer - 6, "\x55\x66\x33\x44\x11\x22", 6);
    uint64_t sp = (uint64_t)(words + 128), bp = 0xdead000000000000ull | (uint64_t)(uintptr_t)outer, rsp, rbp;
#define ENTER16(L)                                                                                       \
  if (level == L)                                                                                        \
  asm volatile("mov %%rsp, %%r12\n mov %%rbp, %%r13\n mov %2, %%rsp\n mov %3, %%rbp\n"                   \
               ".byte 0x66, 0xc8, 0x10, 0x00, " #L "\n mov %%rsp, %0\n mov %%rbp, %1\n"                  \
               "mov %%r12, %%rsp\n mov %%r13, %%rbp"                                                     \
               : "=&r"(rsp), "=&r"(rbp)                                                                  \
               : "r"(sp), "r"(level > 1 ? (uint64_t)(uintptr_t)outer : bp)                               \
               : "r12", "r13", "memory")
    ENTER16(0); ENTER16(1); ENTER16(2); ENTER16(3);
    printf("66 enter 0x10, %d: rsp %+ld, rbp's upper bits %#lx, bp is the frame's: %d, words:", level,
           (long)(rsp - sp), (unsigned long)(rbp >> 16), (uint16_t)rbp == (uint16_t)(sp - 2));
    for (int i = 100; i < 128; i++)
      if (words[i] != 0xAA) printf(" %+d:%02x", i - 128, words[i]);
    printf("\n");
  }
  uint64_t rbp_in = (uint64_t)(uintptr_t)(words + 64), rsp, rbp;
  words[64] = 0x34;
  words[65] = 0x12;
  asm volatile("mov %%rsp, %%r12\n mov %%rbp, %%r13\n mov %2, %%rbp\n .byte 0x66, 0xc9\n"
               "mov %%rsp, %0\n mov %%rbp, %1\n mov %%r12, %%rsp\n mov %%r13, %%rbp"
               : "=&r"(rsp), "=&r"(rbp)
               : "r"(rbp_in)
               : "r12", "r13", "memory");
  printf("66 leave: rsp = rbp + %ld, bp %#x, rbp's upper bits kept: %d\n", (long)(rsp - rbp_in),
         (unsigned)(uint16_t)rbp, rbp >> 16 == rbp_in >> 16);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  static char altstack[65536];
  stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack};
  sigaltstack(&ss, NULL);
  struct sigaction sa = {.sa_sigaction = on_segv, .sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK};
  sigaction(SIGSEGV, &sa, NULL);
  if (mmap((void *)BASE, 0x3000, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) !=
      (void *)BASE) {
    perror("mmap");
    return 1;
  }
  munmap((void *)BASE, 0x1000);
  mprotect((void *)(BASE + 0x2000), 0x1000, PROT_READ);
  order_of_work();
  word_forms();
  return 0;
}
