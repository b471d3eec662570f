/* sigframe.c: building the x86-64 signal frame on the guest stack and reading it back. */
#include "sigframe.h"

#include <string.h>

#include "../interp/flags.h"
#include "../interp/machine.h"
#include "../interp/ops_sse.h"
#include "../interp/run.h"
#include "../interp/x87.h"
#include "sys_common.h"

#define F_RF (1u << 16)

/* The flags rt_sigreturn takes from the frame (the kernel's FIX_EFLAGS) less RF, which
 * the interpreter does not keep. */
#define SIGRETURN_FLAGS (F_AC | F_OF | F_DF | F_TF | F_SF | F_ZF | F_AF | F_PF | F_CF)

unsigned sigframe_fpstate_size(const CpuModel *m) { return cpuid_xsave_size(m) + 4; }

uint64_t sigframe_place(uint64_t sp, unsigned fp_size, uint64_t *fpstate) {
  uint64_t fp = (sp - fp_size) & ~63ull;
  *fpstate = fp;
  return ((fp - sizeof(X64RtSigframe)) & ~15ull) - 8;
}

uint64_t sigframe_max_size(const CpuModel *m) {
  return (sigframe_fpstate_size(m) + 63 + sizeof(X64RtSigframe) + 15 + 8 + 15) & ~15ull;
}

void sigframe_fill(const Cpu *c, const SigframeArgs *a, uint64_t fpstate, X64RtSigframe *f) {
  memset(f, 0, sizeof *f);
  f->pretcode = a->restorer;
  f->uc.uc_flags = X64_UC_SIGCONTEXT_SS | X64_UC_STRICT_RESTORE_SS;
  f->uc.uc_stack = a->altstack;
  X64Sigcontext *sc = &f->uc.uc_mcontext;
  const uint64_t *r = c->r;
  sc->r8 = r[R8], sc->r9 = r[R9], sc->r10 = r[R10], sc->r11 = r[R11];
  sc->r12 = r[R12], sc->r13 = r[R13], sc->r14 = r[R14], sc->r15 = r[R15];
  sc->rdi = r[RDI], sc->rsi = r[RSI], sc->rbp = r[RBP], sc->rbx = r[RBX];
  sc->rdx = r[RDX], sc->rax = r[RAX], sc->rcx = r[RCX], sc->rsp = r[RSP];
  sc->rip = c->rip;
  sc->eflags = flags_get(c) | (a->fault ? F_RF : 0);
  sc->cs = X64_USER_CS;
  sc->ss = X64_USER_DS;
  sc->err = a->err;
  sc->trapno = a->trapno;
  sc->oldmask = a->mask;
  sc->cr2 = a->cr2;
  sc->fpstate = fpstate;
  f->uc.uc_sigmask = a->mask;
  if (a->info) f->info = *a->info;
}

/* The kernel's frame on a CPU with XSAVE: the XSAVE area, the software-reserved bytes of
 * its legacy region saying so (struct _fpx_sw_bytes) and FP_XSTATE_MAGIC2 after it. */
enum {
  SW_BYTES = 464, FP_XSTATE_MAGIC1 = 0x46505853u, FP_XSTATE_MAGIC2 = 0x46505845u,
  SW_MAGIC1 = SW_BYTES, SW_EXTENDED_SIZE = SW_BYTES + 4, SW_XFEATURES = SW_BYTES + 8,
  SW_XSTATE_SIZE = SW_BYTES + 16,
};

static bool has_xsave(const Cpu *c) { return cpu_feature_enabled(&c->m->model, CPU_FEATURE_XSAVE); }

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static uint32_t get32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

static void xstate_frame(const Cpu *c, uint8_t fp[X64_FPSTATE_MAX]) {
  const CpuModel *m = &c->m->model;
  xsave_image(c, fp);
  put32(fp + SW_MAGIC1, FP_XSTATE_MAGIC1);
  put32(fp + SW_EXTENDED_SIZE, sigframe_fpstate_size(m));
  uint64_t features = cpuid_xcr0(m);
  memcpy(fp + SW_XFEATURES, &features, 8);
  put32(fp + SW_XSTATE_SIZE, cpuid_xsave_size(m));
  put32(fp + cpuid_xsave_size(m), FP_XSTATE_MAGIC2);
}

bool sigframe_push(Cpu *c, uint64_t frame, uint64_t fpstate, const SigframeArgs *a) {
  uint8_t fp[X64_FPSTATE_MAX] = {0};
  bool xstate = has_xsave(c);
  if (xstate) xstate_frame(c, fp);
  else fx_image_save(c, fp, true); /* a CPU without XSAVE: the FXSAVE image alone */
  X64RtSigframe f;
  sigframe_fill(c, a, fpstate, &f);
  if (xstate) f.uc.uc_flags |= X64_UC_FP_XSTATE;
  /* Without SA_SIGINFO the kernel leaves the info area as the stack had it. */
  size_t len = a->info ? sizeof f : offsetof(X64RtSigframe, info);
  size_t fp_len = xstate ? sigframe_fpstate_size(&c->m->model) : FX_IMAGE_SIZE;
  if (guest_copy_out(c, fpstate, fp, fp_len) < 0 || guest_copy_out(c, frame, &f, len) < 0)
    return false;
  c->r[RDI] = (uint64_t)a->sig;
  c->r[RSI] = frame + offsetof(X64RtSigframe, info);
  c->r[RDX] = frame + offsetof(X64RtSigframe, uc);
  c->r[RAX] = 0; /* for handlers declared without a prototype (varargs) */
  c->r[RSP] = frame;
  c->rip = a->handler;
  flags_set(c, flags_get(c) & ~(uint64_t)(F_DF | F_TF | F_RF));
  cpu_fpu_reset(c);
  return true;
}

bool sigframe_read(Cpu *c, X64Ucontext *uc) {
  return guest_copy_in(c, uc, c->r[RSP] - 8 + offsetof(X64RtSigframe, uc), sizeof *uc) == 0;
}

/* The frame's FPU state at fpstate, as the kernel checks and loads it. */
static bool fpstate_restore(Cpu *c, uint64_t fpstate) {
  const CpuModel *m = &c->m->model;
  unsigned xsave_size = cpuid_xsave_size(m), fp_size = sigframe_fpstate_size(m);
  uint8_t fp[X64_FPSTATE_MAX];
  if (guest_copy_in(c, fp, fpstate, FX_IMAGE_SIZE) < 0) return false;
  /* The XSAVE area when the software bytes and the magic after it say there is one (the
   * kernel's check), its components restored as XRSTOR would, those the frame's
   * xfeatures leave out set to their initial state; else the FXSAVE image alone. */
  if (has_xsave(c) && get32(fp + SW_MAGIC1) == FP_XSTATE_MAGIC1 &&
      get32(fp + SW_XSTATE_SIZE) == xsave_size && get32(fp + SW_EXTENDED_SIZE) == fp_size) {
    if (guest_copy_in(c, fp + FX_IMAGE_SIZE, fpstate + FX_IMAGE_SIZE, fp_size - FX_IMAGE_SIZE) < 0)
      return false;
    if (get32(fp + xsave_size) == FP_XSTATE_MAGIC2) {
      uint64_t features, bv, xcr0 = cpuid_xcr0(m);
      memcpy(&features, fp + SW_XFEATURES, 8);
      memcpy(&bv, fp + XSAVE_HEADER, 8);
      bv &= features | ~xcr0; /* bits beyond XCR0 stay, to be refused */
      memcpy(fp + XSAVE_HEADER, &bv, 8);
      return xrstor_image(c, fp, xcr0, true);
    }
  }
  return fx_image_load(c, fp, true);
}

/* The general registers first, then the FPU state; where that cannot be restored the
 * kernel resets the FPU (fpu__restore_sig) and the caller sends SIGSEGV. */
bool sigcontext_restore(Cpu *c, const X64Sigcontext *sc) {
  uint64_t *r = c->r;
  r[R8] = sc->r8, r[R9] = sc->r9, r[R10] = sc->r10, r[R11] = sc->r11;
  r[R12] = sc->r12, r[R13] = sc->r13, r[R14] = sc->r14, r[R15] = sc->r15;
  r[RDI] = sc->rdi, r[RSI] = sc->rsi, r[RBP] = sc->rbp, r[RBX] = sc->rbx;
  r[RDX] = sc->rdx, r[RAX] = sc->rax, r[RCX] = sc->rcx, r[RSP] = sc->rsp;
  c->rip = sc->rip;
  flags_set(c, (flags_get(c) & ~(uint64_t)SIGRETURN_FLAGS) | (sc->eflags & SIGRETURN_FLAGS));
  if (!sc->fpstate) { /* no FPU state in the frame: the kernel starts a fresh one */
    cpu_fpu_reset(c);
    return true;
  }
  if (fpstate_restore(c, sc->fpstate)) return true;
  cpu_fpu_reset(c);
  return false;
}
