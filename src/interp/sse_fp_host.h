/* sse_fp_host.h: the x86-64 host tier of the SSE float kernels: each runs the guest's
 * instruction itself, between loading the guest's MXCSR and reading back the flags it
 * raised, all in one asm statement so that nothing else runs under the guest's mode.
 * NaN propagation, DAZ/FTZ, the denormal flag and RCPPS's table are then the CPU's own. */
#ifndef X64EMU_SSE_FP_HOST_H
#define X64EMU_SSE_FP_HOST_H

#ifdef __x86_64__

#include <string.h>

#include "sse_fp.h"

typedef long long HostVec __attribute__((vector_size(16)));

static inline HostVec host_vec(const Xmm *x) {
  HostVec v;
  memcpy(&v, x, 16);
  return v;
}

/* The instruction text between the MXCSR switch; operands named a (destination, read
 * and written), b (source), p (predicate immediate); saved/in/out are the MXCSR words. */
#define HOST_MXCSR_ASM(body) \
  "stmxcsr %[saved]\n\tldmxcsr %[in]\n\t" body "\n\tstmxcsr %[out]\n\tldmxcsr %[saved]"

/* d = d op s for an "op xmm, xmm" instruction. */
#define HOST_BINARY(name)                                                            \
  static inline uint32_t host_##name(Xmm *d, const Xmm *s, uint32_t mx) {            \
    HostVec a = host_vec(d), b = host_vec(s);                                        \
    uint32_t in = mxcsr_for_host(mx), saved, out;                                    \
    __asm__ volatile(HOST_MXCSR_ASM(#name " %[b], %[a]")                             \
                     : [a] "+x"(a), [saved] "=m"(saved), [out] "=m"(out)             \
                     : [b] "x"(b), [in] "m"(in));                                    \
    memcpy(d, &a, 16);                                                               \
    return out & MXCSR_FLAGS;                                                        \
  }

HOST_BINARY(addps) HOST_BINARY(addpd) HOST_BINARY(addss) HOST_BINARY(addsd)
HOST_BINARY(subps) HOST_BINARY(subpd) HOST_BINARY(subss) HOST_BINARY(subsd)
HOST_BINARY(mulps) HOST_BINARY(mulpd) HOST_BINARY(mulss) HOST_BINARY(mulsd)
HOST_BINARY(divps) HOST_BINARY(divpd) HOST_BINARY(divss) HOST_BINARY(divsd)
HOST_BINARY(minps) HOST_BINARY(minpd) HOST_BINARY(minss) HOST_BINARY(minsd)
HOST_BINARY(maxps) HOST_BINARY(maxpd) HOST_BINARY(maxss) HOST_BINARY(maxsd)
HOST_BINARY(sqrtps) HOST_BINARY(sqrtpd) HOST_BINARY(sqrtss) HOST_BINARY(sqrtsd)
HOST_BINARY(rcpps) HOST_BINARY(rcpss) HOST_BINARY(rsqrtps) HOST_BINARY(rsqrtss)
HOST_BINARY(cvtss2sd) HOST_BINARY(cvtsd2ss) HOST_BINARY(cvtps2pd) HOST_BINARY(cvtpd2ps)
HOST_BINARY(cvtdq2ps) HOST_BINARY(cvtdq2pd) HOST_BINARY(cvtps2dq) HOST_BINARY(cvttps2dq)
HOST_BINARY(cvtpd2dq) HOST_BINARY(cvttpd2dq)

/* CMPccPS/PD/SS/SD: the predicate must be an immediate of the host instruction. */
#define HOST_CMP_CASE(name, n)                                                       \
  case n:                                                                            \
    __asm__ volatile(HOST_MXCSR_ASM(#name " %[p], %[b], %[a]")                       \
                     : [a] "+x"(a), [saved] "=m"(saved), [out] "=m"(out)             \
                     : [b] "x"(b), [in] "m"(in), [p] "i"(n));                        \
    break;

#define HOST_CMP(name)                                                               \
  static inline uint32_t host_##name(Xmm *d, const Xmm *s, uint32_t mx, unsigned pred) { \
    HostVec a = host_vec(d), b = host_vec(s);                                        \
    uint32_t in = mxcsr_for_host(mx), saved, out;                                    \
    switch (pred & 7) {                                                              \
      HOST_CMP_CASE(name, 0) HOST_CMP_CASE(name, 1) HOST_CMP_CASE(name, 2)           \
      HOST_CMP_CASE(name, 3) HOST_CMP_CASE(name, 4) HOST_CMP_CASE(name, 5)           \
      HOST_CMP_CASE(name, 6) default: HOST_CMP_CASE(name, 7)                         \
    }                                                                                \
    memcpy(d, &a, 16);                                                               \
    return out & MXCSR_FLAGS;                                                        \
  }

HOST_CMP(cmpps) HOST_CMP(cmppd) HOST_CMP(cmpss) HOST_CMP(cmpsd)

/* (U)COMISS/SD: ZF, PF and CF as RFLAGS bits in *zpc. */
#define HOST_COMI(name)                                                              \
  static inline uint32_t host_##name(const Xmm *d, const Xmm *s, uint32_t mx,        \
                                     uint64_t *zpc) {                                \
    HostVec a = host_vec(d), b = host_vec(s);                                        \
    uint32_t in = mxcsr_for_host(mx), saved, out;                                    \
    bool z, p, cf;                                                                   \
    __asm__ volatile(HOST_MXCSR_ASM(#name " %[b], %[a]")                             \
                     : "=@ccz"(z), "=@ccp"(p), "=@ccc"(cf), [saved] "=m"(saved),     \
                       [out] "=m"(out)                                               \
                     : [a] "x"(a), [b] "x"(b), [in] "m"(in));                        \
    *zpc = (z ? F_ZF : 0) | (p ? F_PF : 0) | (cf ? F_CF : 0);                        \
    return out & MXCSR_FLAGS;                                                        \
  }

HOST_COMI(comiss) HOST_COMI(comisd) HOST_COMI(ucomiss) HOST_COMI(ucomisd)

/* CVTSI2SS/SD: the low lane of d from a 32- or 64-bit integer. */
#define HOST_FROM_INT(name, type, suffix)                                            \
  static inline uint32_t host_##name##suffix(Xmm *d, type v, uint32_t mx) {          \
    HostVec a = host_vec(d);                                                         \
    uint32_t in = mxcsr_for_host(mx), saved, out;                                    \
    __asm__ volatile(HOST_MXCSR_ASM(#name #suffix " %[v], %[a]")                     \
                     : [a] "+x"(a), [saved] "=m"(saved), [out] "=m"(out)             \
                     : [v] "r"(v), [in] "m"(in));                                    \
    memcpy(d, &a, 16);                                                               \
    return out & MXCSR_FLAGS;                                                        \
  }

HOST_FROM_INT(cvtsi2ss, int32_t, l) HOST_FROM_INT(cvtsi2ss, int64_t, q)
HOST_FROM_INT(cvtsi2sd, int32_t, l) HOST_FROM_INT(cvtsi2sd, int64_t, q)

/* CVT(T)SS2SI/SD2SI into a 32- or 64-bit integer. */
#define HOST_TO_INT(name, type, suffix)                                              \
  static inline uint32_t host_##name##suffix(const Xmm *s, uint32_t mx, uint64_t *r) { \
    HostVec b = host_vec(s);                                                         \
    uint32_t in = mxcsr_for_host(mx), saved, out;                                    \
    type v;                                                                          \
    __asm__ volatile(HOST_MXCSR_ASM(#name " %[b], %[v]")                             \
                     : [v] "=r"(v), [saved] "=m"(saved), [out] "=m"(out)             \
                     : [b] "x"(b), [in] "m"(in));                                    \
    *r = v;                                                                          \
    return out & MXCSR_FLAGS;                                                        \
  }

HOST_TO_INT(cvtss2si, uint32_t, _32) HOST_TO_INT(cvtss2si, uint64_t, _64)
HOST_TO_INT(cvttss2si, uint32_t, _32) HOST_TO_INT(cvttss2si, uint64_t, _64)
HOST_TO_INT(cvtsd2si, uint32_t, _32) HOST_TO_INT(cvtsd2si, uint64_t, _64)
HOST_TO_INT(cvttsd2si, uint32_t, _32) HOST_TO_INT(cvttsd2si, uint64_t, _64)

#endif /* __x86_64__ */
#endif
