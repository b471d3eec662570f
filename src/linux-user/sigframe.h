/* sigframe.h: the x86-64 kernel's signal frame (rt_sigframe): layout, building, reading back. */
#ifndef X64EMU_SIGFRAME_H
#define X64EMU_SIGFRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../interp/cpu.h"
#include "../interp/cpuid.h"
#include "sys_x64.h"

/* siginfo_t: 128 bytes on every 64-bit Linux, the union at offset 16. */
typedef struct X64Siginfo {
  int32_t si_signo, si_errno, si_code, pad;
  union {
    uint64_t addr; /* SIGSEGV, SIGBUS, SIGILL, SIGFPE: the faulting address */
    uint8_t bytes[112];
  } u;
} X64Siginfo;
_Static_assert(sizeof(X64Siginfo) == 128, "siginfo_t is 128 bytes");

/* struct sigcontext of arch/x86/include/uapi/asm/sigcontext.h (64-bit). glibc's
 * mcontext_t is the same bytes: gregs[REG_R8..REG_CR2] are its first 23 words and
 * fpregs is the fpstate pointer. */
typedef struct X64Sigcontext {
  uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
  uint64_t rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags;
  uint16_t cs, gs, fs, ss;
  uint64_t err, trapno, oldmask, cr2;
  uint64_t fpstate; /* guest address of the 512-byte FXSAVE image, or 0 */
  uint64_t reserved1[8];
} X64Sigcontext;
_Static_assert(sizeof(X64Sigcontext) == 256, "struct sigcontext is 256 bytes");

/* The kernel's struct ucontext (asm-generic), with its 8-byte signal mask. */
typedef struct X64Ucontext {
  uint64_t uc_flags;
  uint64_t uc_link;
  X64StackT uc_stack;
  X64Sigcontext uc_mcontext;
  uint64_t uc_sigmask;
} X64Ucontext;
_Static_assert(offsetof(X64Ucontext, uc_mcontext) == 40 && sizeof(X64Ucontext) == 304,
               "struct ucontext layout");

/* What the handler finds at its stack pointer: the return address first. */
typedef struct X64RtSigframe {
  uint64_t pretcode; /* sa_restorer, which calls rt_sigreturn */
  X64Ucontext uc;
  X64Siginfo info;
} X64RtSigframe;
_Static_assert(offsetof(X64RtSigframe, info) == 312 && sizeof(X64RtSigframe) == 440,
               "struct rt_sigframe layout");

enum {
  X64_REDZONE = 128,     /* below rsp, the interrupted function's own */
  /* The most an fpstate takes: the XSAVE area of every component and FP_XSTATE_MAGIC2
   * after it (sigframe_fpstate_size gives the model's). */
  X64_FPSTATE_MAX = XSAVE_AREA_MAX + 4,
  X64_UC_FP_XSTATE = 1, X64_UC_SIGCONTEXT_SS = 2, X64_UC_STRICT_RESTORE_SS = 4,
  X64_USER_CS = 0x33, X64_USER_DS = 0x2b,
};

/* The bytes the model's fpstate takes: its XSAVE area and FP_XSTATE_MAGIC2 (the same
 * room without XSAVE, where the FXSAVE image is written). */
unsigned sigframe_fpstate_size(const CpuModel *m);

/* Where the kernel puts the frame below sp (red zone skipped, stack chosen): the fpstate
 * (fp_size bytes) 64-byte aligned under sp, the frame under it so that the handler starts
 * as if called (rsp + 8 16-byte aligned). Returns the frame's address. */
uint64_t sigframe_place(uint64_t sp, unsigned fp_size, uint64_t *fpstate);

/* The most stack a signal frame takes below the stack pointer (sigframe_place's, with its
 * alignments at their worst): AT_MINSIGSTKSZ, as the kernel computes it for its frame. */
uint64_t sigframe_max_size(const CpuModel *m);

/* The frame's contents besides the registers. */
typedef struct SigframeArgs {
  int sig;
  uint64_t handler, restorer;
  uint64_t mask;           /* what rt_sigreturn restores (uc_sigmask, oldmask) */
  X64StackT altstack;      /* the alternate stack settings (uc_stack) */
  uint64_t err, trapno, cr2;
  bool fault;              /* a fault, not a trap or an interrupt: RF is set in the saved flags */
  const X64Siginfo *info;  /* written only for SA_SIGINFO handlers, as the kernel does */
} SigframeArgs;

/* The frame for the CPU's current state, with fpstate at the given address. */
void sigframe_fill(const Cpu *c, const SigframeArgs *a, uint64_t fpstate, X64RtSigframe *f);

/* Writes the frame and the FXSAVE image into guest memory and enters the handler:
 * rdi = sig, rsi = &info, rdx = &uc, rax = 0, rsp = frame, DF/TF clear, and a fresh FPU
 * state. Returns false, changing nothing, if guest memory refused the writes. */
bool sigframe_push(Cpu *c, uint64_t frame, uint64_t fpstate, const SigframeArgs *a);

/* rt_sigreturn: reads the ucontext of the frame the handler returned from (rsp - 8). */
bool sigframe_read(Cpu *c, X64Ucontext *uc);

/* Restores registers, flags and the FPU state from a sigcontext. False on a bad FPU state
 * (unreadable, or reserved MXCSR bits), with the general registers restored and the FPU
 * reset, as the kernel leaves them. */
bool sigcontext_restore(Cpu *c, const X64Sigcontext *sc);

#endif
