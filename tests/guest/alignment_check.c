/* alignment_check.c: EFLAGS.AC set in user mode (Linux sets CR0.AM): which accesses the
 * CPU checks, and the kernel's answer, SIGBUS BUS_ADRALN at address 0 with trapno 17.
 * Each case sets AC, makes one access, clears AC; a handler records the signal and
 * resumes after the case. Run natively and under x64emu, the output must be the same. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

static volatile int got;
static volatile long code, trapno, err;
static volatile uint64_t addr;
static uint64_t resume;

/* The handler runs with AC still set (the kernel keeps it): it clears it first, then
 * returns to `resume` with AC clear in the restored flags. */
static void on_fault(int sig, siginfo_t *si, void *ctx) {
  __asm__ volatile("pushfq; andq $~0x40000, (%%rsp); popfq" ::: "memory", "cc");
  ucontext_t *uc = ctx;
  got = sig;
  code = si->si_code;
  addr = (uint64_t)si->si_addr;
  trapno = uc->uc_mcontext.gregs[REG_TRAPNO];
  err = uc->uc_mcontext.gregs[REG_ERR];
  uc->uc_mcontext.gregs[REG_EFL] &= ~0x40000;
  uc->uc_mcontext.gregs[REG_RIP] = (greg_t)resume;
}

static _Alignas(64) unsigned char buf[256];

#define AC_ON "pushfq; orq $0x40000, (%%rsp); popfq\n"
#define AC_OFF "pushfq; andq $~0x40000, (%%rsp); popfq\n"
/* One case: RSP is saved in RDX and put back after it, so cases may misalign it. */
#define TRY(name, insn)                                                                    \
  do {                                                                                     \
    got = 0;                                                                               \
    __asm__ volatile("lea 1f(%%rip), %%rax; mov %%rax, %0\n mov %%rsp, %%rdx\n" AC_ON insn  \
                     "\n" AC_OFF "1:\n mov %%rdx, %%rsp\n"                                  \
                     : "=m"(resume)                                                         \
                     : "r"(buf)                                                             \
                     : "rax", "rcx", "rdx", "rsi", "rdi", "memory", "cc", "xmm0", "st");    \
    report(name);                                                                          \
  } while (0)

static void report(const char *name) {
  printf("%-28s ", name);
  if (!got) printf("ok\n");
  else printf("%s code %ld addr %#lx trapno %ld err %ld\n", got == SIGBUS ? "SIGBUS" : "SIGSEGV", code,
              (unsigned long)addr, trapno, err);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  struct sigaction sa = {0};
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGBUS, &sa, NULL);
  sigaction(SIGSEGV, &sa, NULL);
  TRY("mov eax, [buf+1] (4)", "movl 1(%1), %%eax");
  TRY("mov ax, [buf+1] (2)", "movw 1(%1), %%ax");
  TRY("mov al, [buf+1] (1)", "movb 1(%1), %%al");
  TRY("mov rax, [buf+4] (8)", "movq 4(%1), %%rax");
  TRY("mov [buf+2], eax", "movl %%eax, 2(%1)");
  TRY("movups xmm0, [buf+4]", "movups 4(%1), %%xmm0");
  TRY("movdqu [buf+8], xmm0", "movdqu %%xmm0, 8(%1)");
  TRY("movsd xmm0, [buf+4] (8)", "movsd 4(%1), %%xmm0");
  TRY("movss xmm0, [buf+2] (4)", "movss 2(%1), %%xmm0");
  TRY("fld tbyte [buf+4]", "fldt 4(%1); fstp %%st(0)");
  TRY("fld tbyte [buf+8]", "fldt 8(%1); fstp %%st(0)");
  TRY("fld qword [buf+4]", "fldl 4(%1); fstp %%st(0)");
  TRY("fnstenv [buf+2]", "fnstenv 2(%1)");
  TRY("fnstenv [buf+4]", "fnstenv 4(%1)");
  TRY("fxsave [buf+8]", "fxsave 8(%1)");
  TRY("push with rsp%8=4", "sub $4, %%rsp; push %%rax");
  TRY("call with rsp%8=4", "sub $4, %%rsp; call 2f; 2: nop");
  TRY("rep movsd to buf+2", "lea 2(%1), %%rdi; lea 64(%1), %%rsi; mov $2, %%ecx; rep movsl");
  TRY("add [buf+1], eax (rmw)", "addl %%eax, 1(%1)");
  TRY("lea only", "lea 1(%1), %%rax");
  TRY("pshufb xmm0, [buf+4]", "pshufb 4(%1), %%xmm0");
  TRY("paddd xmm0, [buf+4]: #GP", "paddd 4(%1), %%xmm0");
  TRY("cmpxchg16b [buf+8]: #GP", "cmpxchg16b 8(%1)");
  TRY("movnti [buf+2], eax", "movnti %%eax, 2(%1)");
  TRY("clflush [buf+1]", "clflush 1(%1)");
  TRY("fnsave [buf+2]", "fnsave 2(%1); frstor 2(%1)");
  TRY("mov ax, [unmapped+1]: #AC first", "movw 0x1001, %%ax");
  TRY("movq mm0, [buf+4]", "movq 4(%1), %%mm0; emms");
  TRY("maskmovdqu", "lea 1(%1), %%rdi; pcmpeqb %%xmm0, %%xmm0; maskmovdqu %%xmm0, %%xmm0");
  TRY("maskmovdqu at +8", "lea 8(%1), %%rdi; pcmpeqb %%xmm0, %%xmm0; maskmovdqu %%xmm0, %%xmm0");
  TRY("maskmovdqu at +4", "lea 4(%1), %%rdi; pcmpeqb %%xmm0, %%xmm0; maskmovdqu %%xmm0, %%xmm0");
  TRY("maskmovq at +4", "lea 4(%1), %%rdi; pcmpeqb %%mm0, %%mm0; maskmovq %%mm0, %%mm0; emms");
  TRY("maskmovq at +1", "lea 1(%1), %%rdi; pcmpeqb %%mm0, %%mm0; maskmovq %%mm0, %%mm0; emms");
  TRY("maskmovdqu zero mask +1", "lea 1(%1), %%rdi; pxor %%xmm0, %%xmm0; maskmovdqu %%xmm0, %%xmm0");
  TRY("lddqu xmm0, [buf+4]", "lddqu 4(%1), %%xmm0");
  TRY("cmpxchg8b [buf+4]", "cmpxchg8b 4(%1)");
  TRY("lock add [buf+1], eax", "lock addl %%eax, 1(%1)");
  TRY("xchg [buf+2], eax", "xchgl %%eax, 2(%1)");
  TRY("bt [buf+2], eax", "btl %%eax, 2(%1)");
  TRY("movbe eax, [buf+2]", "movbe 2(%1), %%eax");
  TRY("fild word [buf+1]", "filds 1(%1); fstp %%st(0)");
  TRY("fldcw [buf+1]", "fnstcw 8(%1); fldcw 1(%1); fldcw 8(%1)");
  TRY("fnstsw [buf+1]", "fnstsw 1(%1)");
  TRY("stmxcsr [buf+2]", "stmxcsr 2(%1)");
  TRY("pinsrw xmm0, [buf+1], 0", "pinsrw $0, 1(%1), %%xmm0");
  TRY("pextrw [buf+1], xmm0, 0", "pextrw $0, %%xmm0, 1(%1)");
  TRY("crc32 eax, dword [buf+1]", "crc32l 1(%1), %%eax");
  TRY("movsb rsi odd", "lea 1(%1), %%rdi; lea 3(%1), %%rsi; movsb");
  TRY("pop with rsp%8=4", "sub $4, %%rsp; pop %%rax");
  TRY("ret with rsp%8=4", "lea 2f(%%rip), %%rax; sub $12, %%rsp; mov %%rax, (%%rsp); ret; 2: nop");
  TRY("enter 16,0 rsp%8=4", "mov %%rbp, %%rcx; sub $4, %%rsp; enter $16, $0; mov %%rcx, %%rbp");
  TRY("pushf rsp%8=4", "sub $4, %%rsp; pushfq");
  TRY("mov [rsp%8=4], rax", "sub $4, %%rsp; mov %%rax, (%%rsp)");
  TRY("movhps xmm0, [buf+4]", "movhps 4(%1), %%xmm0");
  TRY("movlpd xmm0, [buf+4]", "movlpd 4(%1), %%xmm0");
  TRY("cvtsi2sd xmm0, [buf+4] q", "cvtsi2sdq 4(%1), %%xmm0");
  TRY("pmovzxbw xmm0, [buf+4]", "pmovzxbw 4(%1), %%xmm0");
  TRY("pmovzxbd xmm0, [buf+2]", "pmovzxbd 2(%1), %%xmm0");
  TRY("movd xmm0, [buf+2]", "movd 2(%1), %%xmm0");
  TRY("fxrstor [buf+16] fine", "fxsave 16(%1); fxrstor 16(%1)");
  return 0;
}
