/* harness.c: the parts both differential testers share: the area the tested code and its
 * data live in, the native run, and the trap handlers of both sides. */
#define _GNU_SOURCE
#include "harness.h"

#include <inttypes.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <asm/prctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cpu_model.h"
#include "decoder/decode.h"
#include "interp/fault.h"
#include "diff.h"
#include "model.h"
#include "test_machine.h"

Cpu emu_cpu;
volatile sig_atomic_t emu_active;

const char *const reg_names[16] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
                                   "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};

/* ---- traps on both sides ---- */

static sigjmp_buf native_jmp;
static volatile sig_atomic_t native_active;
static volatile int native_code;
static struct sigaction library_segv, library_bus;

static void on_trap(int sig, siginfo_t *si, void *uc) {
  if (native_active && sig == SIGTRAP && model_trap(uc)) return;
  if (native_active) {
    native_active = 0;
    native_code = si->si_code;
    siglongjmp(native_jmp, sig);
  }
  if (emu_active && sig == SIGFPE) { /* a host division inside a handler: its bug */
    fault_code = si->si_code;
    siglongjmp(emu_cpu.fault_jmp, sig);
  }
  /* Guest memory faults inside handlers go to the library's own handler. */
  struct sigaction *lib = sig == SIGBUS ? &library_bus : &library_segv;
  if ((sig == SIGSEGV || sig == SIGBUS) && (lib->sa_flags & SA_SIGINFO) && lib->sa_sigaction) {
    lib->sa_sigaction(sig, si, uc);
    return;
  }
  static const char msg[] = "diff: unexpected host signal\n";
  (void)!write(2, msg, sizeof msg - 1);
  signal(sig, SIG_DFL);
}

static void install_traps(void) {
  fault_install();
  sigaction(SIGSEGV, NULL, &library_segv);
  sigaction(SIGBUS, NULL, &library_bus);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_trap;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK; /* left by siglongjmp */
  sigaction(SIGFPE, &sa, NULL);
  sigaction(SIGSEGV, &sa, NULL);
  sigaction(SIGBUS, &sa, NULL);
  sigaction(SIGILL, &sa, NULL);
  sigaction(SIGTRAP, &sa, NULL);
}

bool harness_init(const char *prog) {
  if (!(test_machine() != NULL)) {
    fprintf(stderr, "%s: Capstone did not initialize\n", prog);
    return false;
  }
  /* One code page then the data, below 2 GiB so that 32-bit addresses and disp32 reach. */
  uint8_t *area = mmap(NULL, 4096 + DATA_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
  if (area == MAP_FAILED) {
    perror("mmap");
    return false;
  }
  code_page = area;
  data = area + 4096;
  /* GS is free in user space: give it a small base so that GS-relative operands (also
   * with 32-bit addresses) can be compared. */
  gs_base = 0x10000;
  if (syscall(SYS_arch_prctl, ARCH_SET_GS, gs_base) != 0 || syscall(SYS_arch_prctl, ARCH_GET_FS, &fs_base) != 0) {
    perror("arch_prctl");
    return false;
  }
  install_traps();
  return true;
}

static void run_on_host(const Regs *in, Outcome *o) {
  memcpy(data, data_init, DATA_SIZE);
  o->regs = *in;
  o->sig = o->code = 0;
  int sig = sigsetjmp(native_jmp, 0);
  if (sig == 0) {
    native_active = 1;
    diff_native_call(&o->regs, code_page);
    native_active = 0;
  } else {
    o->sig = sig;
    o->code = native_code;
    o->regs = *in;
  }
  memcpy(o->mem, data, DATA_SIZE);
}

static bool outcomes_equal(const Outcome *a, const Outcome *b) {
  return a->sig == b->sig && a->code == b->code && !memcmp(&a->regs, &b->regs, sizeof a->regs) &&
         !memcmp(a->mem, b->mem, DATA_SIZE);
}

/* Where the model's rules judge, the host runs the code with them in place (model.h); on a
 * CPU of the model's own vendor the plain run must then agree with the rules. */
void run_native(const Regs *in, Outcome *o) {
  model_arm();
  run_on_host(in, o);
  model_disarm();
  if (!model_applied() || !cpu_model_rules_checkable()) return;
  static Outcome plain;
  run_on_host(in, &plain);
  if (outcomes_equal(o, &plain)) return;
  model_disagreements++;
  printf("MODEL RULE DISAGREES with this %s CPU:\n", cpu_model_real_vendor());
  for (int i = 0; i < 16; i++)
    if (o->regs.r[i] != plain.regs.r[i])
      printf("  %s: rule %016" PRIx64 " CPU %016" PRIx64 "\n", reg_names[i], o->regs.r[i], plain.regs.r[i]);
  if (o->regs.rflags != plain.regs.rflags || o->sig != plain.sig || memcmp(o->mem, plain.mem, DATA_SIZE))
    printf("  (flags, trap or memory differ too)\n");
}

/* ---- reporting ---- */

void flag_letters(uint64_t f, unsigned mask, char *out) {
  static const struct { unsigned bit; char c; } names[7] = {
      {FL_OF, 'o'}, {FL_DF, 'd'}, {FL_SF, 's'}, {FL_ZF, 'z'}, {FL_AF, 'a'}, {FL_PF, 'p'}, {FL_CF, 'c'}};
  for (int i = 0; i < 7; i++) {
    char c = names[i].c;
    if (!(mask & names[i].bit)) *out++ = '-';
    else *out++ = (f & names[i].bit) ? (char)(c - 32) : c;
  }
  *out = 0;
}

uint64_t env_u64(const char *name, uint64_t fallback) {
  const char *v = getenv(name);
  return v && *v ? strtoull(v, NULL, 0) : fallback;
}

uint64_t name_hash(const char *s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
  return h;
}
