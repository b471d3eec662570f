/* far_transfers.c: far returns, IRET, far jumps and calls at CPL 3: to __USER_CS 0x33 they
 * go on as near ones (RETF and the far pointers in 32-bit slots unless REX.W), and so do
 * far jumps and calls to it with another RPL (0x30: the CPU takes the CPL); to another
 * selector, or a far return with RPL 0, they are #GP with it as error code, with the
 * registers as they were; a far return or IRET to a non-canonical address is #GP(0). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <ucontext.h>

static sigjmp_buf back;

static void on_segv(int sig, siginfo_t *si, void *ucv) {
  ucontext_t *uc = ucv;
  (void)sig;
  printf("  SIGSEGV si_code=%d trapno=%lld err=%#llx\n", si->si_code,
         (long long)uc->uc_mcontext.gregs[REG_TRAPNO], (long long)uc->uc_mcontext.gregs[REG_ERR]);
  siglongjmp(back, 1);
}

/* Each returns 1 when control arrived where the transfer pointed. */
static int retfq_to(uint64_t cs) {
  int r = 0;
  asm volatile("push %1\n lea 1f(%%rip), %%rax\n push %%rax\n lretq\n"
               "1: mov $1, %0\n"
               : "+r"(r) : "r"(cs) : "rax", "memory");
  return r;
}

static int retfl_to(uint32_t cs) {
  int r = 0;
  asm volatile("sub $8, %%rsp\n movl $1f, (%%rsp)\n movl %1, 4(%%rsp)\n lretl\n"
               "1: mov $1, %0\n"
               : "+r"(r) : "r"(cs) : "memory");
  return r;
}

static int retf_imm(void) { /* lretq $16 also drops 16 bytes of arguments */
  int r = 0;
  uint64_t before, after;
  asm volatile("mov %%rsp, %1\n sub $16, %%rsp\n push $0x33\n lea 1f(%%rip), %%rax\n push %%rax\n"
               "lretq $16\n"
               "1: mov $1, %0\n mov %%rsp, %2\n"
               : "+r"(r), "=&r"(before), "=&r"(after) : : "rax", "memory");
  return r && before == after;
}

static int iretq_with(uint64_t cs, uint64_t ss) {
  int r = 0;
  asm volatile("mov %%rsp, %%rax\n push %2\n push %%rax\n pushfq\n orq $1, (%%rsp)\n push %1\n"
               "lea 1f(%%rip), %%rax\n push %%rax\n iretq\n"
               "1: setc %%al\n movzbl %%al, %0\n"
               : "+r"(r) : "r"(cs), "r"(ss) : "rax", "memory", "cc");
  return r; /* 1: arrived, with the CF that the frame's RFLAGS set */
}

/* Returns the CS it arrived with. */
static int ljmp_to(uint16_t cs) {
  struct __attribute__((packed)) { uint32_t offset; uint16_t selector; } target = {0, cs};
  int r = 0;
  asm volatile("movl $1f, (%1)\n ljmpl *(%1)\n"
               "1: mov %%cs, %k0\n"
               : "+r"(r) : "r"(&target) : "memory");
  return r;
}

static int lcall_to(uint16_t cs) {
  struct __attribute__((packed)) { uint32_t offset; uint16_t selector; } target = {0, cs};
  int r = 0;
  asm volatile("movl $2f, (%1)\n lcalll *(%1)\n jmp 3f\n"
               "2: lretl\n"
               "3: mov $1, %0\n"
               : "+r"(r) : "r"(&target) : "memory");
  return r;
}

/* A far return and an IRET to a non-canonical RIP: they fault, and return no value. */
static int retfq_noncanonical(void) {
  asm volatile("push $0x33\n push %0\n lretq" : : "r"(0x8000000000000000ull) : "memory");
  return 1;
}

static int iretq_noncanonical(void) {
  asm volatile("mov %%rsp, %%rax\n push $0x2b\n push %%rax\n pushfq\n push $0x33\n push %0\n iretq"
               : : "r"(0x0000800000000000ull) : "rax", "memory");
  return 1;
}

#define TRY(what, call)                               \
  do {                                                \
    printf("%s:\n", what);                            \
    if (!sigsetjmp(back, 1)) printf("  %d\n", call); \
  } while (0)

int main(void) {
  struct sigaction sa = {.sa_sigaction = on_segv, .sa_flags = SA_SIGINFO | SA_NODEFER};
  sigaction(SIGSEGV, &sa, NULL);
  TRY("lretq to 0x33", retfq_to(0x33));
  TRY("lretl to 0x33", retfl_to(0x33));
  TRY("lretq $16", retf_imm());
  TRY("iretq to 0x33, ss 0x2b", iretq_with(0x33, 0x2b));
  TRY("ljmpl to 0x33", ljmp_to(0x33));
  TRY("lcalll to 0x33, lretl back", lcall_to(0x33));
  TRY("lretq to 0", retfq_to(0));
  TRY("lretq to 0x2b (a data segment)", retfq_to(0x2b));
  TRY("lretq to 0x30 (RPL 0)", retfq_to(0x30));
  TRY("lretl to 0x1234", retfl_to(0x1234));
  TRY("iretq with ss 0", iretq_with(0x33, 0));
  TRY("iretq to 0x8 (the kernel's)", iretq_with(0x8, 0x2b));
  TRY("ljmpl to 0x1234", ljmp_to(0x1234));
  TRY("lcalll to 0", lcall_to(0));
  TRY("ljmpl to 0x30 (RPL 0)", ljmp_to(0x30));
  TRY("ljmpl to 0x31 (RPL 1)", ljmp_to(0x31));
  TRY("lcalll to 0x32 (RPL 2), lretl back", lcall_to(0x32));
  TRY("iretq to 0x30 (RPL 0)", iretq_with(0x30, 0x2b));
  TRY("lretq to 0x33:0x8000000000000000", retfq_noncanonical());
  TRY("iretq to 0x33:0x0000800000000000", iretq_noncanonical());
  return 0;
}
