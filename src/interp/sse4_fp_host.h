/* sse4_fp_host.h: the x86-64 host tier of the SSE3 and SSE4.1 float kernels: the guest's
 * instruction itself, run under the guest's MXCSR (sse_fp_host.h's scheme). The
 * immediate forms switch over every immediate that matters, since the host instruction
 * needs it as a constant. */
#ifndef X64EMU_SSE4_FP_HOST_H
#define X64EMU_SSE4_FP_HOST_H

#ifdef __x86_64__

#include "sse_fp_host.h"

HOST_BINARY(haddps) HOST_BINARY(haddpd) HOST_BINARY(hsubps) HOST_BINARY(hsubpd)
HOST_BINARY(addsubps) HOST_BINARY(addsubpd)

#define HOST_IMM_CASE(name, n)                                                       \
  case n:                                                                            \
    __asm__ volatile(HOST_MXCSR_ASM(#name " %[p], %[b], %[a]")                       \
                     : [a] "+x"(a), [saved] "=m"(saved), [out] "=m"(out)             \
                     : [b] "x"(b), [in] "m"(in), [p] "i"(n));                        \
    break;

#define HOST_IMM_4(name, n) HOST_IMM_CASE(name, n) HOST_IMM_CASE(name, n + 1) \
  HOST_IMM_CASE(name, n + 2) HOST_IMM_CASE(name, n + 3)
#define HOST_IMM_16(name, n) HOST_IMM_4(name, n) HOST_IMM_4(name, n + 4) \
  HOST_IMM_4(name, n + 8) HOST_IMM_4(name, n + 12)
#define HOST_IMM_256(name) HOST_IMM_16(name, 0) HOST_IMM_16(name, 16) HOST_IMM_16(name, 32) \
  HOST_IMM_16(name, 48) HOST_IMM_16(name, 64) HOST_IMM_16(name, 80) HOST_IMM_16(name, 96)   \
  HOST_IMM_16(name, 112) HOST_IMM_16(name, 128) HOST_IMM_16(name, 144)                     \
  HOST_IMM_16(name, 160) HOST_IMM_16(name, 176) HOST_IMM_16(name, 192)                     \
  HOST_IMM_16(name, 208) HOST_IMM_16(name, 224) HOST_IMM_16(name, 240)
/* DPPD reads imm8 bits 5:4 and 1:0 only. */
#define HOST_IMM_DPPD(name) HOST_IMM_4(name, 0x00) HOST_IMM_4(name, 0x10) \
  HOST_IMM_4(name, 0x20) HOST_IMM_4(name, 0x30)

/* d = op(d, s, imm), `cases` listing the immediates (imm is masked to them first). */
#define HOST_WITH_IMM(name, mask, cases)                                             \
  static inline uint32_t host_##name(Xmm *d, const Xmm *s, uint32_t mx, unsigned imm) { \
    HostVec a = host_vec(d), b = host_vec(s);                                        \
    uint32_t in = mxcsr_for_host(mx), saved, out;                                    \
    switch (imm & (mask)) {                                                          \
      cases                                                                          \
    default: __builtin_unreachable();                                                \
    }                                                                                \
    memcpy(d, &a, 16);                                                               \
    return out & MXCSR_FLAGS;                                                        \
  }

/* ROUNDxx reads imm8 bits 3:0. */
HOST_WITH_IMM(roundps, 15, HOST_IMM_16(roundps, 0))
HOST_WITH_IMM(roundpd, 15, HOST_IMM_16(roundpd, 0))
HOST_WITH_IMM(roundss, 15, HOST_IMM_16(roundss, 0))
HOST_WITH_IMM(roundsd, 15, HOST_IMM_16(roundsd, 0))
HOST_WITH_IMM(dpps, 255, HOST_IMM_256(dpps))
HOST_WITH_IMM(dppd, 0x33, HOST_IMM_DPPD(dppd))

#endif /* __x86_64__ */
#endif
