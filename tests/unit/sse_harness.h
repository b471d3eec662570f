/* sse_harness.h: differential testing of one SSE instruction: the same bytes run on the
 * host CPU (inside a generated stub that loads and stores every register) and through
 * the interpreter (decode_insn, then the handler), from the same registers, flags,
 * MXCSR and memory; faults (#GP, #XM) are compared as signals. Included once by each
 * test_sse*.c. */
#ifndef X64EMU_TEST_SSE_HARNESS_H
#define X64EMU_TEST_SSE_HARNESS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "cpu_model.h"
#include "decoder/decode.h"
#include "interp/cpu.h"
#include "interp/fault.h"
#include "interp/flags.h"
#include "interp/mxcsr.h"
#include "interp/ops_sse.h"
#include "interp/x87.h"
#include "test_seed.h"
#include "test_machine.h"

/* ---- machine state and outcome ---- */

/* The x87 unit as FXSAVE shows it: the MMX registers are the significands of ST(0..7),
 * physical registers 0..7 while TOP is 0. */
typedef struct X87Image {
  uint16_t fcw, fsw;
  uint8_t ftw; /* abridged: bit i set when physical register i is not empty */
  uint8_t st[8][10];
} X87Image;

/* Before a case, the x87 unit is as after FNINIT and MOVQ MMi, mm[i] for every i. */
typedef struct MachineState {
  Xmm xmm[16];
  uint64_t r[16];
  uint64_t rflags;
  uint32_t mxcsr;
  uint32_t pad;
  uint64_t mm[8];
  X87Image fpu; /* after a case */
  Xmm ymmh[16]; /* bits 255:128 of the YMM registers (the host's only with harness_avx) */
} MachineState;

/* s->fpu as an instruction that leaves the x87 unit alone leaves it (the models' rules
 * start from it). */
static void x87_image_untouched(MachineState *s) {
  s->fpu = (X87Image){.fcw = 0x37F, .ftw = 0xFF};
  for (unsigned i = 0; i < 8; i++) {
    memcpy(s->fpu.st[i], &s->mm[i], 8);
    memset(s->fpu.st[i] + 8, 0xFF, 2);
  }
}

static void x87_image_from_fxsave(X87Image *x, const uint8_t *fx) {
  memcpy(&x->fcw, fx, 2);
  memcpy(&x->fsw, fx + 2, 2);
  x->ftw = fx[4];
  for (unsigned i = 0; i < 8; i++) memcpy(x->st[i], fx + 32 + 16 * i, 10);
}

/* sig 0: the instruction completed. Otherwise the signal it raised, its si_code and
 * si_addr (made relative to the instruction's address for SIGFPE and SIGILL, whose
 * si_addr is the instruction). */
typedef struct Outcome {
  int sig, code;
  uint64_t addr;
} Outcome;

/* ---- random numbers (xorshift64*, seeded by test_seed.h) ---- */

#define SSE_DEFAULT_SEED 0x9E3779B97F4A7C15ull
static uint64_t rng_seed_used = SSE_DEFAULT_SEED, rng_state = SSE_DEFAULT_SEED;

static inline uint64_t rnd(void) {
  return test_random(&rng_state);
}
/* Uniform in [0, n) by multiplying instead of dividing: this runs millions of times. */
static inline unsigned rnd_below(unsigned n) { return (unsigned)(((rnd() >> 32) * n) >> 32); }

static inline void rng_seed_from_env(void) {
  rng_seed_used = test_seed(SSE_DEFAULT_SEED);
  rng_state = rng_seed_used;
  if (getenv("X64EMU_DIFF_SEED")) fprintf(stderr, "seed %#llx\n", (unsigned long long)rng_seed_used);
}

/* Cases per instruction form: fallback unless X64EMU_DIFF_ITER says otherwise (the
 * sanitizer run asks for fewer, a long hunt for more). */
static inline unsigned diff_iterations_or(unsigned fallback) {
  unsigned n = test_iterations(fallback);
  return n ? n : fallback;
}

/* The usual count: 10,000. */
static inline unsigned diff_iterations(void) { return diff_iterations_or(10000); }

/* ---- the native stub ---- */

/* Set by tests of VEX forms: the stub then loads and stores the YMM upper halves too
 * (VINSERTI128, VEXTRACTI128: the host must have AVX2). harness_begin builds the stub
 * anew when it changes. */
static bool harness_avx;
static bool stub_avx, have_epilogue; /* what the stub was built for; its epilogue is there */

typedef struct NativeData {
  uint8_t fx[512] __attribute__((aligned(16))); /* FXSAVE after the case */
  MachineState st;
  uint64_t saved_rsp;
  uint32_t host_mxcsr;
} NativeData;

enum { STUB_SIZE = 4096 };
static uint8_t *stub_code;        /* STUB_SIZE bytes of code, then the NativeData page */
static NativeData *stub_data;
static unsigned stub_insn_at;     /* where the instruction slot starts */
static unsigned native_insn_at;   /* where the instruction under test is */

static sigjmp_buf native_jmp;
static volatile sig_atomic_t native_active;
static MachineState native_fault_state;
static Outcome native_fault;

typedef struct Emitter {
  uint8_t *p;
} Emitter;

static void emit(Emitter *e, int n, ...) {
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) *e->p++ = (uint8_t)va_arg(ap, int);
  va_end(ap);
}

/* Appends a ModRM with mod=00 rm=101 (RIP-relative) and the disp32 reaching target. */
static void emit_riprel(Emitter *e, unsigned reg, const void *target) {
  *e->p++ = (uint8_t)(((reg & 7) << 3) | 5);
  int64_t disp = (int64_t)((uintptr_t)target - (uintptr_t)(e->p + 4));
  int32_t d32 = (int32_t)disp;
  memcpy(e->p, &d32, 4);
  e->p += 4;
}

/* VINSERTI128 ymmi, ymmi, [target], 1 (op 0x38), or VEXTRACTI128 [target], ymmi, 1
 * (op 0x39): the RIP-relative displacement counts the imm8 after it. */
static void emit_ymm_half(Emitter *e, uint8_t op, unsigned i, const void *target) {
  unsigned vvvv = op == 0x38 ? i : 0; /* VEXTRACTI128 has none: 1111 */
  emit(e, 3, 0xC4, (i < 8 ? 0x80 : 0) | 0x63, (~vvvv & 15) << 3 | 0x05);
  emit(e, 1, op);
  *e->p++ = (uint8_t)(((i & 7) << 3) | 5);
  int32_t d32 = (int32_t)((int64_t)((uintptr_t)target - (uintptr_t)(e->p + 5)));
  memcpy(e->p, &d32, 4);
  e->p += 4;
  emit(e, 1, 1);
}

static void emit_prologue(Emitter *e) {
  NativeData *d = stub_data;
  emit(e, 8, 0x53, 0x55, 0x41, 0x54, 0x41, 0x55, 0x41, 0x56); /* push rbx rbp r12 r13 r14 */
  emit(e, 2, 0x41, 0x57);                                     /* push r15 */
  emit(e, 2, 0x48, 0x89); emit_riprel(e, RSP, &d->saved_rsp); /* mov [saved_rsp], rsp */
  emit(e, 2, 0x0F, 0xAE); emit_riprel(e, 3, &d->host_mxcsr);  /* stmxcsr [host_mxcsr] */
  for (unsigned i = 0; i < 16; i++) {                         /* movdqu xmmi, [st.xmm[i]] */
    emit(e, 1, 0xF3);
    if (i >= 8) emit(e, 1, 0x44);
    emit(e, 2, 0x0F, 0x6F); emit_riprel(e, i, &d->st.xmm[i]);
    if (harness_avx) emit_ymm_half(e, 0x38, i, &d->st.ymmh[i]);
  }
  emit(e, 2, 0x0F, 0xAE); emit_riprel(e, 2, &d->st.mxcsr);    /* ldmxcsr [st.mxcsr] */
  emit(e, 2, 0xDB, 0xE3);                                     /* fninit */
  for (unsigned i = 0; i < 8; i++) {                          /* movq mmi, [st.mm[i]] */
    emit(e, 2, 0x0F, 0x6F); emit_riprel(e, i, &d->st.mm[i]);
  }
  emit(e, 1, 0xFF); emit_riprel(e, 6, &d->st.rflags);         /* push [st.rflags] */
  emit(e, 1, 0x9D);                                           /* popfq */
  for (unsigned i = 0; i < 16; i++) {                         /* mov ri, [st.r[i]] */
    if (i == RSP) continue;
    emit(e, 2, i >= 8 ? 0x4C : 0x48, 0x8B); emit_riprel(e, i, &d->st.r[i]);
  }
}

static void emit_epilogue(Emitter *e) {
  NativeData *d = stub_data;
  for (unsigned i = 0; i < 16; i++) {
    if (i == RSP) continue;
    emit(e, 2, i >= 8 ? 0x4C : 0x48, 0x89); emit_riprel(e, i, &d->st.r[i]);
  }
  emit(e, 1, 0x9C);                                           /* pushfq */
  emit(e, 1, 0x8F); emit_riprel(e, 0, &d->st.rflags);         /* pop [st.rflags] */
  emit(e, 2, 0x0F, 0xAE); emit_riprel(e, 3, &d->st.mxcsr);    /* stmxcsr */
  for (unsigned i = 0; i < 16; i++) {
    emit(e, 1, 0xF3);
    if (i >= 8) emit(e, 1, 0x44);
    emit(e, 2, 0x0F, 0x7F); emit_riprel(e, i, &d->st.xmm[i]);
    if (harness_avx) emit_ymm_half(e, 0x39, i, &d->st.ymmh[i]);
  }
  if (harness_avx) emit(e, 3, 0xC5, 0xF8, 0x77);              /* vzeroupper */
  emit(e, 2, 0x0F, 0xAE); emit_riprel(e, 0, d->fx);           /* fxsave [fx] */
  emit(e, 2, 0xDB, 0xE3);                                     /* fninit: the C code's x87 */
  emit(e, 2, 0x0F, 0xAE); emit_riprel(e, 2, &d->host_mxcsr);  /* ldmxcsr [host_mxcsr] */
  emit(e, 2, 0x48, 0x8B); emit_riprel(e, RSP, &d->saved_rsp); /* mov rsp, [saved_rsp] */
  emit(e, 6, 0x41, 0x5F, 0x41, 0x5E, 0x41, 0x5D);             /* pop r15 r14 r13 */
  emit(e, 5, 0x41, 0x5C, 0x5D, 0x5B, 0xC3);                   /* pop r12 rbp rbx; ret */
}

/* A fault inside the instruction under test: keep the state it left (the kernel's
 * signal frame) and go back to native_run. */
static void native_on_signal(int sig, siginfo_t *si, void *ucv) {
  if (!native_active) {
    if (fault_landing) { /* the interpreter's access of guest memory (emu_run) */
      fault_addr = (uint64_t)(uintptr_t)si->si_addr;
      fault_code = si->si_code;
      siglongjmp(*fault_landing, sig); /* the signal is not blocked (NODEFER) */
    }
    signal(sig, SIG_DFL);
    return;
  }
  ucontext_t *uc = ucv;
  const greg_t *g = uc->uc_mcontext.gregs;
  static const int order[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP,
                                REG_RSI, REG_RDI, REG_R8,  REG_R9,  REG_R10, REG_R11,
                                REG_R12, REG_R13, REG_R14, REG_R15};
  for (int i = 0; i < 16; i++) native_fault_state.r[i] = (uint64_t)g[order[i]];
  native_fault_state.rflags = (uint64_t)g[REG_EFL];
  native_fault_state.mxcsr = uc->uc_mcontext.fpregs->mxcsr;
  memcpy(native_fault_state.xmm, uc->uc_mcontext.fpregs->_xmm, sizeof native_fault_state.xmm);
  /* The YMM upper halves: in the frame's XSAVE area at 576 when its XSTATE_BV has AVX,
   * else in their initial state (zero). */
  const uint8_t *area = (const uint8_t *)uc->uc_mcontext.fpregs;
  uint64_t bv;
  memcpy(&bv, area + 512, 8);
  memset(native_fault_state.ymmh, 0, sizeof native_fault_state.ymmh);
  if (bv & 4) memcpy(native_fault_state.ymmh, area + 576, sizeof native_fault_state.ymmh);
  x87_image_from_fxsave(&native_fault_state.fpu, (const uint8_t *)uc->uc_mcontext.fpregs);
  /* The handler's own x87 state: clean for the C code after the jump. */
  __asm__ volatile("fninit");
  native_fault.sig = sig;
  native_fault.code = si->si_code;
  native_fault.addr = (uint64_t)(uintptr_t)si->si_addr;
  if (sig == SIGFPE || sig == SIGILL)
    native_fault.addr -= (uint64_t)(uintptr_t)(stub_code + native_insn_at);
  if ((uint64_t)g[REG_RIP] != (uint64_t)(uintptr_t)(stub_code + native_insn_at))
    native_fault.sig = -sig; /* not the instruction under test: reported as a mismatch */
  native_active = 0;
  siglongjmp(native_jmp, 1);
}

static void harness_init(void) {
  if (stub_code && stub_avx == harness_avx) return;
  if (!stub_code) {
    rng_seed_from_env();
    test_machine();
    uint8_t *m = mmap(NULL, STUB_SIZE + 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
      perror("mmap");
      abort();
    }
    stub_code = m;
    stub_data = (NativeData *)(m + STUB_SIZE);
  }
  stub_avx = harness_avx;
  have_epilogue = false;
  Emitter e = {stub_code};
  emit_prologue(&e);
  stub_insn_at = (unsigned)(e.p - stub_code);
}

/* Every test calls this first: cmocka installs its own handlers around each test. */
static void harness_begin(void) {
  harness_init();
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = native_on_signal;
  /* NODEFER: the handler leaves by siglongjmp, and a jump buffer without the signal mask
   * saves native_run a system call per case (half the tests' time went to them). */
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigaction(SIGFPE, &sa, NULL);
  sigaction(SIGSEGV, &sa, NULL);
  sigaction(SIGILL, &sa, NULL);
}

/* The instruction under test ends where the epilogue starts, NOPs before it, so that
 * the epilogue is emitted once. */
enum { INSN_SLOT = 16 };

static Outcome native_run(MachineState *s, const uint8_t *insn, unsigned len) {
  if (!have_epilogue) {
    Emitter e = {stub_code + stub_insn_at + INSN_SLOT};
    emit_epilogue(&e);
    have_epilogue = true;
  }
  memset(stub_code + stub_insn_at, 0x90, INSN_SLOT - len);
  native_insn_at = stub_insn_at + INSN_SLOT - len;
  memcpy(stub_code + native_insn_at, insn, len);
  stub_data->st = *s;
  Outcome o = {0, 0, 0};
  if (sigsetjmp(native_jmp, 0)) {
    uint32_t dflt = MXCSR_DEFAULT;
    __asm__ volatile("ldmxcsr %0" : : "m"(dflt));
    uint64_t mm[8];
    Xmm ymmh[16];
    memcpy(mm, s->mm, sizeof mm);
    memcpy(ymmh, s->ymmh, sizeof ymmh);
    *s = native_fault_state;
    memcpy(s->mm, mm, sizeof mm);
    if (!harness_avx) memcpy(s->ymmh, ymmh, sizeof ymmh);
    return native_fault;
  }
  native_active = 1;
  ((void (*)(void))(uintptr_t)stub_code)();
  native_active = 0;
  *s = stub_data->st;
  x87_image_from_fxsave(&s->fpu, stub_data->fx);
  return o;
}

/* ---- the interpreter side ---- */

static Cpu emu_cpu;

static Outcome emu_run(MachineState *s, const uint8_t *insn, unsigned len) {
  Cpu *c = &emu_cpu;
  memset(c, 0, sizeof *c);
  c->m = test_machine();
  memcpy(c->r, s->r, sizeof s->r);
  memcpy(c->xmm, s->xmm, sizeof c->xmm);
  memcpy(c->ymmh, s->ymmh, sizeof c->ymmh);
  c->mxcsr = s->mxcsr;
  flags_set(c, s->rflags);
  x87_init(&c->fpu); /* FNINIT, then MOVQ MMi, mm[i]: all valid, exponents all ones */
  for (unsigned i = 0; i < 8; i++) {
    c->fpu.mm[i] = s->mm[i];
    c->fpu.mm_se[i] = 0xFFFF;
  }
  c->fpu.raw = 0xFF;
  c->fpu.tag = 0;
  uint8_t bytes[32];
  memset(bytes, 0x90, sizeof bytes);
  memcpy(bytes, insn, len);
  static Insn in;
  uint64_t fault_at = 0;
  uint64_t rip = (uint64_t)(uintptr_t)bytes;
  int n = decode_insn(&test_machine()->dec, rip, &in, &fault_at);
  Outcome o = {0, 0, 0};
  if (n != (int)len) {
    /* Not decoded: the guest gets SIGILL as for #UD (ILL_ILLOPN at the instruction). */
    uint8_t fx[FX_IMAGE_WRITTEN];
    fx_image_save(c, fx, true);
    x87_image_from_fxsave(&s->fpu, fx);
    o.sig = SIGILL;
    o.code = n == -1 ? ILL_ILLOPN : n;
    return o;
  }
  c->cur = &in;
  c->rip = rip;
  int r = sigsetjmp(c->fault_jmp, 0);
  if (r == 0) {
    fault_landing = &c->fault_jmp; /* a host fault in a guest access lands here */
    insn_run_alone(c, &in);
    fault_landing = NULL;
  } else {
    fault_landing = NULL;
    o.sig = r < 0 ? -r : r;
    o.code = fault_code;
    o.addr = fault_addr;
    if (o.sig == SIGFPE) o.addr -= rip;
  }
  memcpy(s->r, c->r, sizeof s->r);
  memcpy(s->xmm, c->xmm, sizeof c->xmm);
  memcpy(s->ymmh, c->ymmh, sizeof c->ymmh);
  s->mxcsr = c->mxcsr;
  s->rflags = flags_get(c);
  uint8_t fx[FX_IMAGE_WRITTEN];
  fx_image_save(c, fx, true);
  x87_image_from_fxsave(&s->fpu, fx);
  return o;
}

/* ---- comparing ---- */

static void print_xmm(const char *what, unsigned i, const Xmm *x) {
  fprintf(stderr, "    %s xmm%-2u %016llx_%016llx\n", what, i, (unsigned long long)x->q[1],
          (unsigned long long)x->q[0]);
}

/* Reports differences between the native and the interpreter's results; true if none.
 * `rflags_mask` is the RFLAGS bits the comparison covers. */
static bool states_match(const MachineState *nat, const Outcome *on, const MachineState *emu,
                         const Outcome *oe, const uint8_t *mem_nat, const uint8_t *mem_emu,
                         size_t mem_size, uint64_t rflags_mask) {
  bool ok = true;
  if (on->sig != oe->sig || on->code != oe->code || on->addr != oe->addr) {
    fprintf(stderr,
            "    outcome: native sig %d code %d addr %#llx, emulated sig %d code %d addr %#llx\n",
            on->sig, on->code, (unsigned long long)on->addr, oe->sig, oe->code,
            (unsigned long long)oe->addr);
    ok = false;
    if (oe->sig == SIGILL) return false;
  }
  for (unsigned i = 0; i < 16; i++)
    if (memcmp(&nat->xmm[i], &emu->xmm[i], 16)) {
      print_xmm("native  ", i, &nat->xmm[i]);
      print_xmm("emulated", i, &emu->xmm[i]);
      ok = false;
    }
  for (unsigned i = 0; i < 16; i++)
    if (memcmp(&nat->ymmh[i], &emu->ymmh[i], 16)) {
      print_xmm("native   upper", i, &nat->ymmh[i]);
      print_xmm("emulated upper", i, &emu->ymmh[i]);
      ok = false;
    }
  for (unsigned i = 0; i < 16; i++)
    if (i != RSP && nat->r[i] != emu->r[i]) {
      fprintf(stderr, "    r%u: native %#llx emulated %#llx\n", i, (unsigned long long)nat->r[i],
              (unsigned long long)emu->r[i]);
      ok = false;
    }
  const X87Image *xn = &nat->fpu, *xe = &emu->fpu;
  if (xn->fcw != xe->fcw || xn->fsw != xe->fsw || xn->ftw != xe->ftw) {
    fprintf(stderr, "    x87: native fcw %04x fsw %04x ftw %02x, emulated fcw %04x fsw %04x ftw %02x\n",
            xn->fcw, xn->fsw, xn->ftw, xe->fcw, xe->fsw, xe->ftw);
    ok = false;
  }
  for (unsigned i = 0; i < 8; i++)
    if (memcmp(xn->st[i], xe->st[i], 10)) {
      uint64_t mn, me;
      uint16_t en, ee;
      memcpy(&mn, xn->st[i], 8);
      memcpy(&me, xe->st[i], 8);
      memcpy(&en, xn->st[i] + 8, 2);
      memcpy(&ee, xe->st[i] + 8, 2);
      fprintf(stderr, "    st%u (mm%u): native %04x_%016llx emulated %04x_%016llx\n", i, i, en,
              (unsigned long long)mn, ee, (unsigned long long)me);
      ok = false;
    }
  if (nat->mxcsr != emu->mxcsr) {
    fprintf(stderr, "    mxcsr: native %#x emulated %#x\n", nat->mxcsr, emu->mxcsr);
    ok = false;
  }
  if ((nat->rflags ^ emu->rflags) & rflags_mask) {
    fprintf(stderr, "    rflags: native %#llx emulated %#llx\n",
            (unsigned long long)(nat->rflags & rflags_mask),
            (unsigned long long)(emu->rflags & rflags_mask));
    ok = false;
  }
  if (mem_size && memcmp(mem_nat, mem_emu, mem_size)) {
    for (size_t i = 0; i < mem_size; i++)
      if (mem_nat[i] != mem_emu[i])
        fprintf(stderr, "    mem[%zu]: native %02x emulated %02x\n", i, mem_nat[i], mem_emu[i]);
    ok = false;
  }
  return ok;
}

static void print_bytes(const char *what, const uint8_t *b, unsigned n) {
  fprintf(stderr, "  %s:", what);
  for (unsigned i = 0; i < n; i++) fprintf(stderr, " %02x", b[i]);
  fprintf(stderr, "\n");
}

/* ---- instruction forms: random operands, encodings and state ---- */

enum ValKind { VAL_INT, VAL_F32, VAL_F64, VAL_SHIFT, VAL_MXCSR };
enum { MR_BOTH, MR_REG, MR_MEM };

/* One encoding family: "pfx [REX] opc ModRM [SIB disp8] [imm8]", with the XMM or general
 * registers and the memory operand chosen at random for every case. */
typedef struct Form {
  const char *name;
  uint8_t pfx;       /* mandatory prefix (0x66, 0xF2, 0xF3) or 0 */
  uint8_t rexw;      /* REX.W set */
  uint8_t opc[3];    /* opcode bytes after 0F */
  uint8_t nopc;
  uint8_t modrm;     /* MR_BOTH, MR_REG (register operand only) or MR_MEM */
  int8_t ext;        /* a fixed ModRM.reg (/digit), or -1 */
  uint8_t reg_gpr;   /* ModRM.reg names a general register */
  uint8_t rm_gpr;    /* a register ModRM.rm names a general register */
  uint8_t imm8;
  uint8_t align16;   /* the memory operand must be 16-byte aligned */
  uint8_t vals;      /* enum ValKind: what the XMM and memory values look like */
  uint8_t approx;    /* RCP/RSQRT: the portable tier is only within the error bound */
  uint8_t rdi_mem;   /* stores through [rdi] (MASKMOVDQU): rdi points into test memory */
  uint8_t rm_zero;   /* register form with ModRM.rm 0 only (LFENCE/MFENCE/SFENCE: the
                        other rm values are valid but Capstone 4.0.2 rejects them) */
  uint8_t pfx2;      /* a second prefix byte after pfx (66 with CRC32's F2), or 0 */
  uint16_t avoid_gprs; /* general registers (bit n: register n) never chosen as operands
                          or address registers: implicit operands the test sets itself */
  uint8_t reg_mm;    /* ModRM.reg names an MMX register (REX.R, set at random, is ignored) */
  uint8_t rm_mm;     /* a register ModRM.rm names an MMX register (REX.B likewise) */
  uint8_t vex;       /* VEX-encoded (pfx becomes VEX.pp, opc[0] 0x38 or 0x3A the map);
                        needs harness_avx */
  uint8_t vex_l;     /* VEX.L: 256-bit operands (an aligned form then needs 32 bytes) */
  uint8_t vex_nv;    /* no VEX.vvvv register (1111); else a random first source */
  uint8_t host_ud;   /* #UD on the host by design: else a form the host rejects in every
                        case is reported as a mistake */
} Form;

/* The XMM register number in ModRM.reg of the case make_case built last, and in VEX.vvvv
 * (VEX forms with one). */
static unsigned case_reg, case_vreg;
/* Set: memory operands of aligned forms are misaligned, and memory forms are preferred. */
static bool force_misaligned;
/* The register ModRM.rm names (register forms) and the memory operand's address
 * (memory forms, else NULL) of the case make_case built last. */
static unsigned case_rm;
static uint8_t *case_mem;
/* When not negative, the imm8 of every case instead of a random one. */
static int forced_imm = -1;
/* When set, the memory operand is here instead of in test_mem, and its contents are
 * left alone (a test placing it against an unmapped page fills it itself). */
static uint8_t *mem_operand_at;
/* When set, called at the end of make_case to give the operands structured values. */
static void (*case_hook)(const Form *f, MachineState *s);

enum { MEM_SIZE = 128 };
static uint8_t test_mem[MEM_SIZE] __attribute__((aligned(64)));

static const uint32_t special_f32[] = {
  0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7FC12345,
  0x7F800001, 0xFFA00000, 0x7FBFFFFF, 0x00000001, 0x007FFFFF, 0x80400000, 0x00800000,
  0x80800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000, 0xBF800000, 0x3F000000, 0x3FC00000,
  0x40200000, 0xC0200000, 0x4F000000, 0xCF000000, 0x4EFFFFFF, 0xCF000001, 0x5F000000,
  0xDF000000, 0x5EFFFFFF, 0x3EFFFFFF, 0x00FFFFFF, 0x3F7FFFFF, 0x4B800000, 0x34000000,
};
static const uint64_t special_f64[] = {
  0x0000000000000000ull, 0x8000000000000000ull, 0x7FF0000000000000ull, 0xFFF0000000000000ull,
  0x7FF8000000000000ull, 0xFFF8000000000000ull, 0x7FF8000012345678ull, 0x7FF0000000000001ull,
  0xFFF4000000000000ull, 0x0000000000000001ull, 0x000FFFFFFFFFFFFFull, 0x8008000000000000ull,
  0x0010000000000000ull, 0x7FEFFFFFFFFFFFFFull, 0xFFEFFFFFFFFFFFFFull, 0x3FF0000000000000ull,
  0xBFF0000000000000ull, 0x3FE0000000000000ull, 0x4004000000000000ull, 0xC004000000000000ull,
  0x41E0000000000000ull, 0xC1E0000000000000ull, 0x41DFFFFFFFC00000ull, 0xC1E0000000100000ull,
  0x41DFFFFFFFE00000ull, 0x43E0000000000000ull, 0xC3E0000000000000ull, 0x43DFFFFFFFFFFFFFull,
  0x47EFFFFFE0000000ull, 0x47EFFFFFF0000000ull, 0x3810000000000000ull, 0x380FFFFFF0000000ull,
  0x36A0000000000000ull, 0x4330000000000000ull, 0x3FDFFFFFFFFFFFFFull,
};

static uint32_t rand_f32(void) {
  switch (rnd_below(8)) {
  case 0: case 1: case 2: return special_f32[rnd_below(sizeof special_f32 / 4)];
  case 3: return (uint32_t)rnd();
  case 4: /* near the denormal range, where results underflow */
    return (uint32_t)(rnd() & 0x807FFFFF) | (rnd_below(48) << 23);
  case 5: /* short mantissas: exact results and ties */
    return (uint32_t)(rnd() & 0x80000000) | (uint32_t)((100 + rnd_below(60)) << 23) |
           (uint32_t)(rnd() & 0x7F0000);
  default: return (uint32_t)(rnd() & 0x807FFFFF) | (uint32_t)((97 + rnd_below(66)) << 23);
  }
}

static uint64_t rand_f64(void) {
  switch (rnd_below(9)) {
  case 0: case 1: case 2: return special_f64[rnd_below(sizeof special_f64 / 8)];
  case 3: return rnd();
  case 4: return (rnd() & 0x800FFFFFFFFFFFFFull) | (uint64_t)rnd_below(80) << 52;
  case 5: /* where f32 overflows or underflows */
    return (rnd() & 0x800FFFFFFFFFFFFFull) | (uint64_t)(1023 - 160 + rnd_below(40)) << 52;
  case 6: return (rnd() & 0x800FFFFFFFFFFFFFull) | (uint64_t)(1023 + 110 + rnd_below(40)) << 52;
  case 7: /* short mantissas */
    return (rnd() & 0x8000000000000000ull) | (uint64_t)(1000 + rnd_below(70)) << 52 |
           (rnd() & 0x000FF00000000000ull);
  default: return (rnd() & 0x800FFFFFFFFFFFFFull) | (uint64_t)(1023 - 30 + rnd_below(95)) << 52;
  }
}

static void rand_bytes_int(uint8_t *b, size_t n) {
  static const uint8_t special[] = {0x00, 0xFF, 0x80, 0x7F, 0x01, 0xFE, 0x81};
  for (size_t i = 0; i < n; i++)
    b[i] = rnd_below(4) ? (uint8_t)rnd() : special[rnd_below(sizeof special)];
}

/* Random contents for n bytes (a multiple of 8) in the form's style. */
static void rand_fill(uint8_t *b, size_t n, unsigned kind) {
  for (size_t i = 0; i + 8 <= n; i += 8) {
    uint64_t v;
    unsigned k = kind;
    if (k == VAL_F32 || k == VAL_F64) k = rnd_below(8) ? k : VAL_INT; /* some raw bits */
    switch (k) {
    case VAL_F32: v = rand_f32() | (uint64_t)rand_f32() << 32; break;
    case VAL_F64: v = rand_f64(); break;
    case VAL_SHIFT: v = rnd_below(3) ? rnd_below(72) : rnd(); break;
    case VAL_MXCSR: /* mostly valid MXCSR values, sometimes with reserved bits */
      v = (rnd() & 0x0000FFFF0000FFFFull) | (rnd_below(8) ? 0 : rnd() & 0xFFFF0000FFFF0000ull);
      break;
    default: rand_bytes_int((uint8_t *)&v, 8); break;
    }
    memcpy(b + i, &v, 8);
  }
}

static uint64_t rand_gpr(void) {
  static const uint64_t special[] = {0, 1, ~0ull, 0x80000000ull, 0x7FFFFFFFull,
                                     0xFFFFFFFF80000000ull, 1ull << 63, (1ull << 63) - 1,
                                     (1ull << 53) + 1, (1ull << 24) + 1, 0xFFFFFFFFull};
  switch (rnd_below(4)) {
  case 0: return special[rnd_below(sizeof special / 8)];
  case 1: return (uint64_t)(int64_t)(int32_t)rnd() >> rnd_below(32);
  default: return rnd() >> rnd_below(64);
  }
}

/* A general register that is safe to use as an operand (not RSP, nor one in avoid). */
static unsigned rand_gpr_number_avoiding(unsigned avoid) {
  unsigned r;
  do r = rnd_below(16); while (r == RSP || (avoid >> r & 1));
  return r;
}

static inline unsigned rand_gpr_number(void) { return rand_gpr_number_avoiding(0); }

/* MXCSR: any rounding mode, DAZ and FTZ, sticky flags; exceptions masked unless
 * `unmask` names some that may be unmasked. */
static uint32_t rand_mxcsr(uint32_t unmask) {
  uint32_t m = (uint32_t)(rnd() & (MXCSR_RC | MXCSR_DAZ | MXCSR_FTZ | MXCSR_FLAGS));
  if (rnd_below(4) == 0) m &= ~(uint32_t)MXCSR_FLAGS;
  m |= MXCSR_MASKS & ~((uint32_t)(rnd() & unmask) << 7);
  return m;
}

/* ModRM (register, or [base + index << scale + disp8]) and the form's imm8, at p;
 * returns their end. */
static uint8_t *emit_modrm_imm(const Form *f, unsigned reg_field, unsigned rm, bool mem,
                               unsigned base, int index, unsigned scale, int8_t disp, uint8_t *p) {
  if (!mem) {
    *p++ = (uint8_t)(0xC0 | (reg_field & 7) << 3 | (rm & 7));
  } else if (index >= 0 || (base & 7) == 4) {
    *p++ = (uint8_t)(0x44 | (reg_field & 7) << 3);
    *p++ = (uint8_t)(scale << 6 | (index >= 0 ? (unsigned)index & 7 : 4) << 3 | (base & 7));
    *p++ = (uint8_t)disp;
  } else {
    *p++ = (uint8_t)(0x40 | (reg_field & 7) << 3 | (base & 7));
    *p++ = (uint8_t)disp;
  }
  if (f->imm8) *p++ = forced_imm >= 0 ? (uint8_t)forced_imm : (uint8_t)rnd();
  return p;
}

/* The VEX encoding of make_case's operands, at p; returns its end. */
static uint8_t *vex_encode(const Form *f, unsigned reg, unsigned vreg, unsigned rm, bool mem,
                           unsigned base, int index, unsigned scale, int8_t disp, uint8_t *p) {
  unsigned reg_field = f->ext >= 0 ? (unsigned)f->ext : reg;
  unsigned map = f->opc[0] == 0x38 ? 2 : f->opc[0] == 0x3A ? 3 : 1;
  unsigned pp = f->pfx == 0x66 ? 1 : f->pfx == 0xF3 ? 2 : f->pfx == 0xF2 ? 3 : 0;
  bool r = reg_field >= 8, x = mem && index >= 8, b = (mem ? base : rm) >= 8;
  uint8_t last = (uint8_t)((f->rexw ? 0x80 : 0) | (~vreg & 15) << 3 | (f->vex_l ? 4 : 0) | pp);
  if (map == 1 && !x && !b && !f->rexw && rnd_below(2)) {
    *p++ = 0xC5;
    *p++ = (uint8_t)((r ? 0 : 0x80) | (last & 0x7F));
  } else {
    *p++ = 0xC4;
    *p++ = (uint8_t)((r ? 0 : 0x80) | (x ? 0 : 0x40) | (b ? 0 : 0x20) | map);
    *p++ = last;
  }
  for (unsigned i = map == 1 ? 0 : 1; i < f->nopc; i++) *p++ = f->opc[i];
  return emit_modrm_imm(f, reg_field, rm, mem, base, index, scale, disp, p);
}

/* Builds a random case of form f: the instruction bytes (returned length), the state,
 * and the memory contents. */
static unsigned make_case(const Form *f, MachineState *s, uint32_t unmask, uint8_t *insn) {
  /* Raw bits everywhere, then values in the form's style where its operands are. */
  for (unsigned i = 0; i < 16; i++) {
    s->xmm[i].q[0] = rnd();
    s->xmm[i].q[1] = rnd();
    s->ymmh[i].q[0] = rnd_below(4) ? rnd() : 0;
    s->ymmh[i].q[1] = rnd();
  }
  for (unsigned i = 0; i < 16; i++) s->r[i] = rand_gpr();
  for (unsigned i = 0; i < 8; i++) s->mm[i] = rnd();
  for (unsigned i = 0; i < MEM_SIZE; i += 8) {
    uint64_t v = rnd();
    memcpy(test_mem + i, &v, 8);
  }
  s->rflags = 0x202 | (rnd() & F_ARITH);
  s->mxcsr = rand_mxcsr(unmask);
  unsigned vals = f->vals == VAL_SHIFT ? VAL_INT : f->vals;

  bool mem = f->modrm == MR_MEM || (f->modrm == MR_BOTH && (force_misaligned || rnd_below(2)));
  unsigned avoid = f->avoid_gprs;
  unsigned reg = f->reg_gpr ? rand_gpr_number_avoiding(avoid) : rnd_below(16);
  unsigned rm = f->rm_zero ? 0 : f->rm_gpr ? rand_gpr_number_avoiding(avoid) : rnd_below(16);
  unsigned vreg = f->vex && !f->vex_nv ? rnd_below(16) : 0;
  if (f->vex && !f->vex_nv) {
    rand_fill(s->xmm[vreg].b, 16, vals);
    rand_fill(s->ymmh[vreg].b, 16, vals);
  }
  if (f->reg_mm) rand_fill((uint8_t *)&s->mm[reg & 7], 8, vals);
  else if (!f->reg_gpr) rand_fill(s->xmm[reg].b, 16, vals);
  if (f->rm_mm && !mem) {
    rand_fill((uint8_t *)&s->mm[rm & 7], 8, f->vals == VAL_SHIFT ? VAL_SHIFT : vals);
  } else if (!f->rm_gpr && !mem) {
    rand_fill(s->xmm[rm].b, 16, vals);
    if (f->vex_l) rand_fill(s->ymmh[rm].b, 16, vals);
    if (f->vals == VAL_SHIFT) rand_fill(s->xmm[rm].b, 8, VAL_SHIFT);
  }
  unsigned base = rand_gpr_number_avoiding(avoid), scale = 0;
  int index = -1;
  int8_t disp = (int8_t)rnd();
  if (mem) {
    unsigned width = f->vex_l ? 32 : 16, align = f->align16 ? width : 1;
    unsigned off = align * rnd_below((MEM_SIZE - 16) / align - (width - 16) / align);
    if (force_misaligned) off = 16 * rnd_below(MEM_SIZE / 16 - 3) + 1 + rnd_below(15);
    uint64_t addr = (uint64_t)(uintptr_t)(test_mem + off);
    if (mem_operand_at) {
      addr = (uint64_t)(uintptr_t)mem_operand_at;
    } else {
      rand_fill(test_mem + (off & ~7u), f->vex_l ? 40 : 24, vals);
      if (f->vals == VAL_SHIFT) rand_fill(test_mem + off, 8, VAL_SHIFT);
    }
    uint64_t index_val = 0;
    if (rnd_below(2)) {
      do index = (int)rand_gpr_number_avoiding(avoid); while ((unsigned)index == base);
      scale = rnd_below(4);
      index_val = rnd_below(8);
      s->r[index] = index_val;
    }
    s->r[base] = addr - (uint64_t)(int64_t)disp - (index_val << scale);
  }
  if (f->rdi_mem) s->r[RDI] = (uint64_t)(uintptr_t)(test_mem + rnd_below(MEM_SIZE - 16));
  case_reg = reg;
  case_vreg = vreg;
  case_rm = rm;
  case_mem = mem ? (uint8_t *)(uintptr_t)(s->r[base] + (uint64_t)(int64_t)disp +
                                          (index >= 0 ? s->r[index] << scale : 0))
                 : NULL;

  uint8_t *p = insn;
  if (f->vex) {
    p = vex_encode(f, reg, vreg, rm, mem, base, index, scale, disp, p);
  } else {
    if (f->pfx) *p++ = f->pfx;
    if (f->pfx2) *p++ = f->pfx2;
    unsigned reg_field = f->ext >= 0 ? (unsigned)f->ext : reg;
    unsigned rex = (f->rexw ? 8 : 0) | (reg_field >= 8 ? 4 : 0) |
                   (mem && index >= 8 ? 2 : 0) | ((mem ? base : rm) >= 8 ? 1 : 0);
    if (rex || rnd_below(8) == 0) *p++ = (uint8_t)(0x40 | rex);
    *p++ = 0x0F;
    for (unsigned i = 0; i < f->nopc; i++) *p++ = f->opc[i];
    p = emit_modrm_imm(f, reg_field, rm, mem, base, index, scale, disp, p);
  }
  if (case_hook) case_hook(f, s);
  x87_image_untouched(s);
  return (unsigned)(p - insn);
}

/* ---- the CPU model where the host's vendor differs (cpu_model.h) ---- */

/* A test's rule for the cases of docs/cpu-model.md it meets: false when the case at hand
 * (make_case's last: insn, state before, the memory operand at case_mem) is not one of
 * them; otherwise it writes the model's result into expect and o. */
typedef bool (*ModelRule)(const Form *f, const uint8_t *insn, unsigned len,
                          const MachineState *before, MachineState *expect, Outcome *o);
static ModelRule model_rule;
/* Cases judged by the rule since the last model_report. */
static unsigned long model_judged;

/* Judges the case by the rule when the host is taken for another vendor; on a CPU of the
 * model's vendor the rule must also give what the CPU gave. False on a disagreement. */
static bool apply_model(const Form *f, const uint8_t *insn, unsigned len,
                        const MachineState *before, MachineState *nat, Outcome *on) {
  if (!model_rule || host_follows_model()) return true;
  MachineState m = *nat;
  Outcome om = *on;
  if (!model_rule(f, insn, len, before, &m, &om)) return true;
  model_judged++;
  /* states_match prints what differs, with "native" the CPU and "emulated" the rule. */
  bool agree = !cpu_model_rules_checkable() || states_match(nat, on, &m, &om, NULL, NULL, 0, F_ARITH | F_DF);
  if (!agree)
    fprintf(stderr, "  %s: MODEL RULE DISAGREES with this %s CPU (above: native is the CPU, "
            "emulated the rule)\n", f->name, cpu_model_real_vendor());
  *nat = m;
  *on = om;
  return agree;
}

/* One line on what the rule judged (when it judged anything), and a fresh count. */
static void model_report(const char *what) {
  if (host_follows_model()) return;
  fprintf(stderr, "%s: %lu cases judged by the CPU model's rule instead of the host "
          "(taken as %s)%s\n", what, model_judged, cpu_model_host_vendor(),
          cpu_model_rules_checkable() ? ", each checked against this CPU" : "");
  model_judged = 0;
}

/* Lets a test accept a tier's result that differs from the host's within bounds: it may
 * rewrite `emu` after checking it. */
typedef void (*Reconcile)(const Form *f, const MachineState *nat, MachineState *emu);

/* Runs `iterations` random cases of form f on both sides; returns the mismatches.
 * unmask: the MXCSR exceptions that may be unmasked at random. */
static unsigned run_form(const Form *f, unsigned iterations, uint32_t unmask, Reconcile fix) {
  static uint8_t mem_before[MEM_SIZE], mem_native[MEM_SIZE];
  unsigned failures = 0, undefined = 0;
  for (unsigned it = 0; it < iterations; it++) {
    MachineState before, nat, emu;
    uint8_t insn[16];
    unsigned len = make_case(f, &before, unmask, insn);
    memcpy(mem_before, test_mem, MEM_SIZE);
    nat = before;
    Outcome on = native_run(&nat, insn, len);
    undefined += on.sig == SIGILL;
    memcpy(mem_native, test_mem, MEM_SIZE);
    memcpy(test_mem, mem_before, MEM_SIZE);
    bool agree = apply_model(f, insn, len, &before, &nat, &on);
    emu = before;
    Outcome oe = emu_run(&emu, insn, len);
    if (fix && on.sig == 0 && oe.sig == 0) fix(f, &nat, &emu);
    if (!states_match(&nat, &on, &emu, &oe, mem_native, test_mem, MEM_SIZE,
                      F_ARITH | F_DF) || !agree) {
      fprintf(stderr, "  %s: case %u differs\n", f->name, it);
      print_bytes("bytes", insn, len);
      for (unsigned i = 0; i < 16; i++)
        if (memcmp(&before.xmm[i], &nat.xmm[i], 16) || memcmp(&before.xmm[i], &emu.xmm[i], 16))
          print_xmm("input   ", i, &before.xmm[i]);
      fprintf(stderr, "    input mxcsr %#x rflags %#llx\n", before.mxcsr,
              (unsigned long long)before.rflags);
      test_print_reproduce(stderr, rng_seed_used);
      if (++failures >= 3) break;
    }
  }
  /* A form the host never runs is a mistake in the form, not a match. */
  if (iterations && undefined == iterations && !f->host_ud) {
    fprintf(stderr, "  %s: the host CPU rejects every case (#UD)\n", f->name);
    failures++;
  }
  return failures;
}

/* Runs every form of a table; prints the failing ones. Returns the failing forms. */
static unsigned run_forms_n(const Form *forms, size_t n, unsigned iterations, uint32_t unmask,
                            Reconcile fix) {
  harness_begin();
  unsigned bad = 0;
  for (size_t i = 0; i < n; i++)
    if (run_form(&forms[i], iterations, unmask, fix)) {
      fprintf(stderr, "FAIL %s\n", forms[i].name);
      bad++;
    }
  fprintf(stderr, "%zu forms x %u cases: %u forms differ from the host CPU\n", n, iterations, bad);
  if (model_rule) model_report("  these forms");
  return bad;
}

/* With exceptions unmasked, a fifth of the cases: nearly every one then traps, natively a
 * host SIGFPE that costs more than the case (test_avx's 2.5 million of them took 30 of its
 * 45 s), and what is checked (which exception, the flags, the destination untouched)
 * varies less from operand to operand than a result does. */
__attribute__((unused)) static unsigned run_forms(const Form *forms, size_t n, uint32_t unmask,
                                                  Reconcile fix) {
  unsigned cases = diff_iterations();
  return run_forms_n(forms, n, unmask && cases >= 5 ? cases / 5 : cases, unmask, fix);
}

/* Memory operands at misaligned addresses: #GP (SIGSEGV, SI_KERNEL) for the aligned
 * forms, a plain access for the others, as on the host. */
__attribute__((unused)) static unsigned run_forms_misaligned(const Form *forms, size_t n,
                                                             Reconcile fix) {
  force_misaligned = true;
  unsigned bad = run_forms_n(forms, n, 500, 0, fix);
  force_misaligned = false;
  return bad;
}

#endif
