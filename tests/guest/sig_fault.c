/* sig_fault.c: faults reach SA_SIGINFO handlers with si_code, si_addr and the faulting
 * context (trapno, err, cr2, rip), and the handlers change the context to go on:
 * skipping the instruction, mapping the page, returning from a call through NULL,
 * masking an SSE or x87 exception in the frame's FPU state. A fault on a blocked signal
 * ends the program at the end. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

/* Probes: one faulting instruction each, between labels the handlers can name. */
asm(".text\n"
    "load_probe:\n"              /* uint64_t load_probe(const uint64_t *p) */
    "load_at: movq (%rdi), %rax\n"
    "load_next: ret\n"
    "store_probe:\n"             /* void store_probe(uint64_t *p, uint64_t v) */
    "store_at: movq %rsi, (%rdi)\n"
    "store_next: ret\n"
    "div_probe:\n"               /* unsigned div_probe(unsigned a, unsigned b): a / b */
    "movl %edi, %eax\n"
    "xorl %edx, %edx\n"
    "div_at: divl %esi\n"
    "div_next: ret\n"
    "ud2_probe:\n"               /* int ud2_probe(void): 7 once ud2 is skipped */
    "ud2_at: ud2\n"
    "ud2_next: movl $7, %eax\n"
    "ret\n"
    "int3_probe:\n"              /* int int3_probe(void): 2 when the trap returns */
    "movl $1, %eax\n"
    "int3\n"
    "int3_next: addl $1, %eax\n"
    "ret\n"
    "divss_probe:\n"            /* float divss_probe(float a, float b): a / b */
    "divss_at: divss %xmm1, %xmm0\n"
    "ret\n"
    "fdiv_probe:\n"             /* void fdiv_probe(double *a, const double *b): *a /= *b */
    "fldl (%rdi)\n"
    "fdivl (%rsi)\n"
    "mf_at: fstpl (%rdi)\n"    /* the next x87 instruction reports the pending exception */
    "fwait\n"
    "ret\n");
uint64_t load_probe(const volatile uint64_t *p);
void store_probe(volatile uint64_t *p, uint64_t v);
unsigned div_probe(unsigned a, unsigned b);
int ud2_probe(void);
int int3_probe(void);
float divss_probe(float a, float b);
void fdiv_probe(double *a, const double *b);
extern char load_at[], load_next[], store_at[], store_next[], div_at[], div_next[], ud2_at[],
    ud2_next[], int3_next[], divss_at[], mf_at[];

enum Fix { GO_ON, SKIP_LOAD, MAKE_WRITABLE, RETRY_THEN_MAP, RETURN_TO_CALLER, SKIP_TO, MASK_FP };
static enum Fix fix;
static char *fix_target;       /* SKIP_TO: where to go on */
static volatile char *page;    /* MAKE_WRITABLE, RETRY_THEN_MAP */
static int tries;

static struct {
  int sig, code, trapno, err;
  uintptr_t addr, rip, cr2;
  long rf;
  int pid_ok;
  unsigned fp_flags, x87_flags;
} seen;

static void on_fault(int sig, siginfo_t *si, void *ucv) {
  ucontext_t *uc = ucv;
  greg_t *g = uc->uc_mcontext.gregs;
  seen.sig = sig;
  seen.code = si->si_code;
  seen.addr = (uintptr_t)si->si_addr;
  seen.rip = (uintptr_t)g[REG_RIP];
  seen.trapno = (int)g[REG_TRAPNO];
  seen.err = (int)g[REG_ERR];
  seen.cr2 = (uintptr_t)g[REG_CR2];
  seen.rf = (g[REG_EFL] >> 16) & 1;
  seen.pid_ok = si->si_code <= 0 && si->si_pid == getpid();
  switch (fix) {
  case GO_ON: /* a trap or a sent signal: returning goes on after it */
    break;
  case SKIP_LOAD:
    g[REG_RIP] = (greg_t)load_next;
    g[REG_RAX] = 42;
    break;
  case MAKE_WRITABLE:
    mprotect((void *)page, 4096, PROT_READ | PROT_WRITE);
    break;
  case RETRY_THEN_MAP: /* returning unchanged runs the instruction, and faults, again */
    if (++tries == 3) mprotect((void *)page, 4096, PROT_READ);
    break;
  case RETURN_TO_CALLER: /* the call pushed the return address, then jumped to 0 */
    g[REG_RIP] = *(greg_t *)g[REG_RSP];
    g[REG_RSP] += 8;
    g[REG_RAX] = 5;
    break;
  case MASK_FP: /* mask the exception in the frame: the instruction runs again, masked */
    seen.fp_flags = uc->uc_mcontext.fpregs->mxcsr & 0x3f;
    seen.x87_flags = uc->uc_mcontext.fpregs->swd & 0x3f;
    uc->uc_mcontext.fpregs->mxcsr |= 0x1f80;
    uc->uc_mcontext.fpregs->cwd |= 0x3f;
    uc->uc_mcontext.fpregs->swd &= (unsigned short)~0x80bf;
    break;
  case SKIP_TO:
    g[REG_RIP] = (greg_t)fix_target;
    g[REG_RAX] = 99;
    break;
  }
}

static void show(const char *what, uintptr_t expect_addr, uintptr_t expect_rip) {
  printf("%s: signal %d si_code %d addr %s rip %s trapno %d err %#x cr2 %s RF %ld\n", what,
         seen.sig, seen.code, seen.addr == expect_addr ? "ok" : "WRONG",
         seen.rip == expect_rip ? "ok" : "WRONG", seen.trapno, seen.err,
         seen.cr2 == seen.addr ? "= addr" : "other", seen.rf);
  memset(&seen, 0, sizeof seen);
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP};
  for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; i++) sigaction(sigs[i], &sa, NULL);

  fix = SKIP_LOAD;
  uint64_t v = load_probe((uint64_t *)0x10);
  show("load from 0x10", 0x10, (uintptr_t)load_at);
  printf("  skipped, the load gave %llu\n", (unsigned long long)v);

  v = load_probe((uint64_t *)0x8000000000000000ull);
  show("non-canonical load", 0, (uintptr_t)load_at);

  page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  fix = MAKE_WRITABLE;
  store_probe((uint64_t *)page, 1234);
  show("store to a read-only page", (uintptr_t)page, (uintptr_t)store_at);
  printf("  made writable, the store landed: %llu\n", (unsigned long long)*(uint64_t *)page);

  mprotect((void *)page, 4096, PROT_NONE);
  fix = RETRY_THEN_MAP;
  v = load_probe((uint64_t *)(page + 8));
  show("load from a PROT_NONE page", (uintptr_t)page + 8, (uintptr_t)load_at);
  printf("  faulted %d times before the handler mapped it; read %llu\n", tries,
         (unsigned long long)v);

  fix = SKIP_TO;
  fix_target = store_next;
  store_probe((uint64_t *)0x18, 1);
  show("store to 0x18", 0x18, (uintptr_t)store_at);

  fix = RETURN_TO_CALLER;
  int (*volatile null_fn)(void) = NULL;
  int r = null_fn();
  show("call through NULL", 0, 0);
  printf("  back in the caller with %d\n", r);

  fix = SKIP_TO;
  fix_target = div_next;
  unsigned q = div_probe(7, 0);
  show("divide by zero", (uintptr_t)div_at, (uintptr_t)div_at);
  printf("  skipped, the division gave %u\n", q);

  fix_target = ud2_next;
  r = ud2_probe();
  show("ud2", (uintptr_t)ud2_at, (uintptr_t)ud2_at);
  printf("  skipped, returned %d\n", r);

  fix = GO_ON;
  r = int3_probe();
  show("int3", 0, (uintptr_t)int3_next);
  printf("  went on after the trap: %d\n", r);

  /* Unmasked floating-point exceptions: SSE's at the instruction (#XM), x87's at the next
   * x87 instruction (#MF), whose result is then left unwritten. */
  fix = MASK_FP;
  unsigned mxcsr = 0x1f80 & ~0x200u, old_mxcsr; /* divide-by-zero unmasked */
  asm volatile("stmxcsr %0\n\tldmxcsr %1" : "=m"(old_mxcsr) : "m"(mxcsr));
  float f = divss_probe(1.0f, 0.0f);
  asm volatile("ldmxcsr %0" : : "m"(old_mxcsr));
  unsigned flags = seen.fp_flags;
  show("SSE divide by zero", (uintptr_t)divss_at, (uintptr_t)divss_at);
  printf("  MXCSR flags in the frame %#x; masked, the division gave %f\n", flags, (double)f);
  unsigned short cw = 0x037f & ~0x4, old_cw;
  asm volatile("fnstcw %0\n\tfldcw %1" : "=m"(old_cw) : "m"(cw));
  double a = 1.0, b = 0.0;
  fdiv_probe(&a, &b);
  asm volatile("fnclex\n\tfldcw %0" : : "m"(old_cw));
  flags = seen.x87_flags;
  show("x87 divide by zero", (uintptr_t)mf_at, (uintptr_t)mf_at);
  printf("  x87 status flags in the frame %#x; then the result was %f\n", flags, a);

  /* A mapping past the end of its file: SIGBUS. */
  int fd = open("bus.tmp", O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (fd < 0 || ftruncate(fd, 4096) < 0) return 1;
  volatile uint64_t *mapped = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
  if (ftruncate(fd, 0) < 0) return 1;
  fix = SKIP_LOAD;
  v = load_probe(mapped);
  show("load past the end of a file", (uintptr_t)mapped, (uintptr_t)load_at);
  close(fd);
  unlink("bus.tmp");

  /* Sent, not raised by an instruction: si_code says who. */
  fix = GO_ON;
  raise(SIGSEGV);
  printf("raise(SIGSEGV): signal %d si_code %d (SI_TKILL %d), sender is us: %d\n", seen.sig,
         seen.code, SI_TKILL, seen.pid_ok);
  kill(getpid(), SIGFPE);
  printf("kill(SIGFPE): signal %d si_code %d (SI_USER %d), sender is us: %d\n", seen.sig,
         seen.code, SI_USER, seen.pid_ok);

  /* The kernel does not let a fault wait: blocked, it kills. */
  sigset_t segv;
  sigemptyset(&segv);
  sigaddset(&segv, SIGSEGV);
  sigprocmask(SIG_BLOCK, &segv, NULL);
  printf("faulting with SIGSEGV blocked\n");
  fflush(stdout);
  load_probe((uint64_t *)0x10);
  printf("not reached\n");
  return 0;
}
