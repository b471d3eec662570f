/* sigframe.c: building the x86-64 signal frame on the guest stack and reading it back. */
#include "sigframe.h"

#include <string.h>

#include "../interp/flags.h"
#include "../interp/ops_sse.h"
#include "../interp/x87.h"
#include "sys_common.h"

#define F_RF (1u << 16)

/* The flags rt_sigreturn takes from the frame (the kernel's FIX_EFLAGS) less RF, which
 * the interpreter does not keep. */
#define SIGRETURN_FLAGS (F_AC | F_OF | F_DF | F_TF | F_SF | F_ZF | F_AF | F_PF | F_CF)

uint64_t sigframe_place(uint64_t sp, uint64_t *fpstate) {
  uint64_t fp = (sp - X64_FPSTATE_SIZE) & ~63ull;
  *fpstate = fp;
  return ((fp - sizeof(X64RtSigframe)) & ~15ull) - 8;
}

uint64_t sigframe_max_size(void) {
  return (X64_FPSTATE_SIZE + 63 + sizeof(X64RtSigframe) + 15 + 8 + 15) & ~15ull;
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

/* fpu__clear_user_states(): the handler starts with the FPU as after FNINIT, MXCSR at
 * its default and the XMM registers clear. */
static void fpu_reset(Cpu *c) {
  memset(c->xmm, 0, sizeof c->xmm);
  c->mxcsr = 0x1F80;
  memset(&c->fpu, 0, sizeof c->fpu);
  x87_init(&c->fpu);
}

bool sigframe_push(Cpu *c, uint64_t frame, uint64_t fpstate, const SigframeArgs *a) {
  uint8_t fx[X64_FPSTATE_SIZE] = {0};
  fx_image_save(c, fx, true);
  X64RtSigframe f;
  sigframe_fill(c, a, fpstate, &f);
  /* Without SA_SIGINFO the kernel leaves the info area as the stack had it. */
  size_t len = a->info ? sizeof f : offsetof(X64RtSigframe, info);
  if (guest_copy_out(c, fpstate, fx, sizeof fx) < 0 || guest_copy_out(c, frame, &f, len) < 0)
    return false;
  c->r[RDI] = (uint64_t)a->sig;
  c->r[RSI] = frame + offsetof(X64RtSigframe, info);
  c->r[RDX] = frame + offsetof(X64RtSigframe, uc);
  c->r[RAX] = 0; /* for handlers declared without a prototype (varargs) */
  c->r[RSP] = frame;
  c->rip = a->handler;
  flags_set(c, flags_get(c) & ~(uint64_t)(F_DF | F_TF | F_RF));
  fpu_reset(c);
  return true;
}

bool sigframe_read(Cpu *c, X64Ucontext *uc) {
  return guest_copy_in(c, uc, c->r[RSP] - 8 + offsetof(X64RtSigframe, uc), sizeof *uc) == 0;
}

bool sigcontext_restore(Cpu *c, const X64Sigcontext *sc) {
  uint64_t *r = c->r;
  r[R8] = sc->r8, r[R9] = sc->r9, r[R10] = sc->r10, r[R11] = sc->r11;
  r[R12] = sc->r12, r[R13] = sc->r13, r[R14] = sc->r14, r[R15] = sc->r15;
  r[RDI] = sc->rdi, r[RSI] = sc->rsi, r[RBP] = sc->rbp, r[RBX] = sc->rbx;
  r[RDX] = sc->rdx, r[RAX] = sc->rax, r[RCX] = sc->rcx, r[RSP] = sc->rsp;
  c->rip = sc->rip;
  flags_set(c, (flags_get(c) & ~(uint64_t)SIGRETURN_FLAGS) | (sc->eflags & SIGRETURN_FLAGS));
  if (!sc->fpstate) { /* no FPU state in the frame: the kernel starts a fresh one */
    fpu_reset(c);
    return true;
  }
  uint8_t fx[FX_IMAGE_WRITTEN];
  if (guest_copy_in(c, fx, sc->fpstate, sizeof fx) < 0) return false;
  return fx_image_load(c, fx, true);
}
