/* mxcsr.c: choosing the floating-point tier and faulting on unmasked SIMD exceptions. */
#include "mxcsr.h"

#include <signal.h>
#include <string.h>

#include "insn.h"
#include "run.h"

#ifdef __x86_64__
bool fp_tier_host_available(void) { return true; }
#else
bool fp_tier_host_available(void) { return false; }
#endif

enum FpTier fp_tier_best(void) { return fp_tier_host_available() ? FP_TIER_HOST : FP_TIER_PORTABLE; }

bool fp_tier_parse(const char *name, enum FpTier *tier) {
  if (!strcmp(name, "portable")) {
    *tier = FP_TIER_PORTABLE;
    return true;
  }
  if (!strcmp(name, "auto")) {
    *tier = fp_tier_best();
    return true;
  }
  if (!strcmp(name, "host") || !strcmp(name, "native")) {
    *tier = FP_TIER_HOST;
    return fp_tier_host_available();
  }
  return false;
}

/* The order of the kernel's fpu__exception_code() for X86_TRAP_XF. */
int mxcsr_fpe_code(uint32_t mxcsr) {
  uint32_t err = ~(mxcsr >> 7) & mxcsr;
  if (err & MXCSR_IE) return FPE_FLTINV;
  if (err & MXCSR_ZE) return FPE_FLTDIV;
  if (err & MXCSR_OE) return FPE_FLTOVF;
  if (err & (MXCSR_DE | MXCSR_UE)) return FPE_FLTUND;
  if (err & MXCSR_PE) return FPE_FLTRES;
  return 0;
}

/* The flags come from running the operation with every exception masked, or, where a
 * lane overflowed or is tiny with that exception unmasked, from the portable kernels'
 * trapping response (sse_fp.h's fp_host_missed_trap). An unmasked invalid, denormal or
 * divide-by-zero exception is found before computing and stops the instruction with
 * only those flags. */
_Noreturn void fp_fault(Cpu *c, uint32_t raised) {
  uint32_t unmasked = ~(c->mxcsr >> 7) & MXCSR_FLAGS;
  uint32_t pre = raised & (MXCSR_IE | MXCSR_DE | MXCSR_ZE);
  if (pre & unmasked) raised = pre;
  c->mxcsr |= raised;
  const Insn *in = cpu_insn(c);
  uint64_t rip = in ? in->rip : c->rip;
  guest_trap(c, SIGFPE, mxcsr_fpe_code(c->mxcsr), rip);
}

void fp_unmasked(Cpu *c, uint32_t raised) {
  if (!c->fp_halves) fp_fault(c, raised);
  c->mxcsr |= raised;
}
