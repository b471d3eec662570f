/* rmw_faults.c: the page-fault error code (the signal frame's err) of instructions that
 * read a memory operand to write it back, on a page that is not mapped and on a read-only
 * page the program has read: the CPU reads such an operand for writing, so the fault is a
 * write's (err bit 1) even though nothing was stored yet. Loads, CMP and TEST fault as
 * reads; stores and SETcc as writes. Each case prints the signal, si_code, the fault's
 * offset in its page, and err. A read-only page the program has never touched differs:
 * there the kernel has no page-table entry yet, so its err lacks the present bit (6),
 * while x64emu's own read of the operand has brought the page in first (7); that case is
 * not compared. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <ucontext.h>

static sigjmp_buf back;
static volatile unsigned long long frame_err;
static volatile int frame_code;
static volatile unsigned long frame_addr;

static void on_fault(int sig, siginfo_t *info, void *context) {
  frame_err = (unsigned long long)((ucontext_t *)context)->uc_mcontext.gregs[REG_ERR];
  frame_code = info->si_code;
  frame_addr = (unsigned long)info->si_addr;
  siglongjmp(back, sig);
}

/* Runs CODE with %rdi at a page of kind KIND (the first operand's address); it must fault. */
#define CASE(kind, page, name, code)                                                         \
  do {                                                                                       \
    int sig_ = sigsetjmp(back, 1);                                                           \
    if (!sig_) {                                                                             \
      __asm__ volatile(code ::"D"(page + 8) : "rax", "rcx", "rdx", "cc", "memory");         \
      printf("%-10s %-26s did not fault\n", kind, name);                                     \
    } else {                                                                                 \
      printf("%-10s %-26s signal %d code %d offset %lu err %llu\n", kind, name, sig_,        \
             frame_code, frame_addr - (unsigned long)page, frame_err);                       \
    }                                                                                        \
  } while (0)

#define CASES(kind, page)                                                                    \
  do {                                                                                       \
    CASE(kind, page, "mov load", "mov (%%rdi), %%eax");                                      \
    CASE(kind, page, "cmp", "cmpl $1, (%%rdi)");                                             \
    CASE(kind, page, "test", "testl %%eax, (%%rdi)");                                        \
    CASE(kind, page, "add to register", "add (%%rdi), %%eax");                               \
    CASE(kind, page, "mov store", "movl $1, (%%rdi)");                                       \
    CASE(kind, page, "setcc", "sete (%%rdi)");                                               \
    CASE(kind, page, "add", "addl $1, (%%rdi)");                                             \
    CASE(kind, page, "adc byte", "adcb %%al, (%%rdi)");                                      \
    CASE(kind, page, "sub quad", "subq %%rax, (%%rdi)");                                     \
    CASE(kind, page, "lock add", "lock addl $1, (%%rdi)");                                   \
    CASE(kind, page, "inc", "incl (%%rdi)");                                                 \
    CASE(kind, page, "dec word", "decw (%%rdi)");                                            \
    CASE(kind, page, "not", "notl (%%rdi)");                                                 \
    CASE(kind, page, "neg", "negq (%%rdi)");                                                 \
    CASE(kind, page, "xchg", "xchg %%eax, (%%rdi)");                                         \
    CASE(kind, page, "xadd", "xadd %%eax, (%%rdi)");                                         \
    CASE(kind, page, "cmpxchg", "cmpxchg %%ecx, (%%rdi)");                                   \
    CASE(kind, page, "cmpxchg8b", "cmpxchg8b (%%rdi)");                                      \
    CASE(kind, page, "lock cmpxchg", "lock cmpxchg %%ecx, (%%rdi)");                         \
    CASE(kind, page, "lock cmpxchg8b", "lock cmpxchg8b (%%rdi)");                            \
    CASE(kind, page, "bts", "btsl $3, (%%rdi)");                                             \
    CASE(kind, page, "btr register", "btrl %%ecx, (%%rdi)");                                 \
    CASE(kind, page, "bt", "btl $3, (%%rdi)");                                               \
    CASE(kind, page, "shl 1", "shll (%%rdi)");                                               \
    CASE(kind, page, "rol imm", "roll $3, (%%rdi)");                                         \
    CASE(kind, page, "sar cl", "mov $2, %%ecx; sarl %%cl, (%%rdi)");                         \
    CASE(kind, page, "rcr imm", "rcrq $5, (%%rdi)");                                         \
    CASE(kind, page, "shld", "shldl $4, %%eax, (%%rdi)");                                    \
    CASE(kind, page, "shrd cl", "mov $2, %%ecx; shrdl %%cl, %%eax, (%%rdi)");                \
  } while (0)

int main(void) {
  static char altstack[65536];
  stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack};
  sigaltstack(&ss, NULL);
  struct sigaction sa = {.sa_sigaction = on_fault, .sa_flags = SA_SIGINFO | SA_ONSTACK};
  sigaction(SIGSEGV, &sa, NULL);
  sigaction(SIGBUS, &sa, NULL);

  char *pages = mmap(NULL, 2 * 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (pages == MAP_FAILED) return perror("mmap"), 1;
  char *read_only = pages, *unmapped = pages + 4096;
  if (munmap(unmapped, 4096) != 0) return perror("munmap"), 1;
  /* Read once, so that the page is present: a write to it is a protection fault. */
  (void)*(volatile char *)read_only;
  CASES("unmapped", unmapped);
  CASES("read-only", read_only);
  return 0;
}
