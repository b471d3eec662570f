/* fma_host.h: the x86-64 host tier of FMA3 (fma.c): the guest's instruction itself, on
 * one 128-bit lane, between loading the guest's MXCSR and reading back the flags (as
 * sse_fp_host.h does for SSE), on hosts whose CPU has FMA (host_has_fma). */
#ifndef X64EMU_FMA_HOST_H
#define X64EMU_FMA_HOST_H

#ifdef __x86_64__

#include "sse_fp_host.h"

static inline bool host_has_fma(void) {
  static int has = -1;
  if (has < 0) has = __builtin_cpu_supports("fma");
  return has;
}

/* a = the instruction's first operand (read and written), b its second, c its third. */
#define HOST_FMA(name)                                                                  \
  static uint32_t host_##name(Xmm *d, const Xmm *s2, const Xmm *s3, uint32_t mx) {     \
    HostVec a = host_vec(d), b = host_vec(s2), c = host_vec(s3);                        \
    uint32_t in = mxcsr_for_host(mx), saved, out;                                       \
    __asm__ volatile(HOST_MXCSR_ASM(#name " %[c], %[b], %[a]")                          \
                     : [a] "+x"(a), [saved] "=m"(saved), [out] "=m"(out)                \
                     : [b] "x"(b), [c] "x"(c), [in] "m"(in));                           \
    memcpy(d, &a, 16);                                                                  \
    return out & MXCSR_FLAGS;                                                           \
  }
HOST_FMA(vfmadd132ps) HOST_FMA(vfmadd132pd) HOST_FMA(vfmadd132ss) HOST_FMA(vfmadd132sd)
HOST_FMA(vfmadd213ps) HOST_FMA(vfmadd213pd) HOST_FMA(vfmadd213ss) HOST_FMA(vfmadd213sd)
HOST_FMA(vfmadd231ps) HOST_FMA(vfmadd231pd) HOST_FMA(vfmadd231ss) HOST_FMA(vfmadd231sd)
HOST_FMA(vfmsub132ps) HOST_FMA(vfmsub132pd) HOST_FMA(vfmsub132ss) HOST_FMA(vfmsub132sd)
HOST_FMA(vfmsub213ps) HOST_FMA(vfmsub213pd) HOST_FMA(vfmsub213ss) HOST_FMA(vfmsub213sd)
HOST_FMA(vfmsub231ps) HOST_FMA(vfmsub231pd) HOST_FMA(vfmsub231ss) HOST_FMA(vfmsub231sd)
HOST_FMA(vfnmadd132ps) HOST_FMA(vfnmadd132pd) HOST_FMA(vfnmadd132ss) HOST_FMA(vfnmadd132sd)
HOST_FMA(vfnmadd213ps) HOST_FMA(vfnmadd213pd) HOST_FMA(vfnmadd213ss) HOST_FMA(vfnmadd213sd)
HOST_FMA(vfnmadd231ps) HOST_FMA(vfnmadd231pd) HOST_FMA(vfnmadd231ss) HOST_FMA(vfnmadd231sd)
HOST_FMA(vfnmsub132ps) HOST_FMA(vfnmsub132pd) HOST_FMA(vfnmsub132ss) HOST_FMA(vfnmsub132sd)
HOST_FMA(vfnmsub213ps) HOST_FMA(vfnmsub213pd) HOST_FMA(vfnmsub213ss) HOST_FMA(vfnmsub213sd)
HOST_FMA(vfnmsub231ps) HOST_FMA(vfnmsub231pd) HOST_FMA(vfnmsub231ss) HOST_FMA(vfnmsub231sd)
HOST_FMA(vfmaddsub132ps) HOST_FMA(vfmaddsub132pd) HOST_FMA(vfmaddsub213ps) HOST_FMA(vfmaddsub213pd)
HOST_FMA(vfmaddsub231ps) HOST_FMA(vfmaddsub231pd) HOST_FMA(vfmsubadd132ps) HOST_FMA(vfmsubadd132pd)
HOST_FMA(vfmsubadd213ps) HOST_FMA(vfmsubadd213pd) HOST_FMA(vfmsubadd231ps) HOST_FMA(vfmsubadd231pd)

/* By enum FmaKind, FmaOrder and FpShape (no scalar ADDSUB or SUBADD). */
typedef uint32_t (*HostFma)(Xmm *, const Xmm *, const Xmm *, uint32_t);
static const HostFma host_fma_fns[6][3][4] = {
    {{host_vfmadd132ps, host_vfmadd132pd, host_vfmadd132ss, host_vfmadd132sd}, {host_vfmadd213ps, host_vfmadd213pd, host_vfmadd213ss, host_vfmadd213sd}, {host_vfmadd231ps, host_vfmadd231pd, host_vfmadd231ss, host_vfmadd231sd}},
    {{host_vfmsub132ps, host_vfmsub132pd, host_vfmsub132ss, host_vfmsub132sd}, {host_vfmsub213ps, host_vfmsub213pd, host_vfmsub213ss, host_vfmsub213sd}, {host_vfmsub231ps, host_vfmsub231pd, host_vfmsub231ss, host_vfmsub231sd}},
    {{host_vfnmadd132ps, host_vfnmadd132pd, host_vfnmadd132ss, host_vfnmadd132sd}, {host_vfnmadd213ps, host_vfnmadd213pd, host_vfnmadd213ss, host_vfnmadd213sd}, {host_vfnmadd231ps, host_vfnmadd231pd, host_vfnmadd231ss, host_vfnmadd231sd}},
    {{host_vfnmsub132ps, host_vfnmsub132pd, host_vfnmsub132ss, host_vfnmsub132sd}, {host_vfnmsub213ps, host_vfnmsub213pd, host_vfnmsub213ss, host_vfnmsub213sd}, {host_vfnmsub231ps, host_vfnmsub231pd, host_vfnmsub231ss, host_vfnmsub231sd}},
    {{host_vfmaddsub132ps, host_vfmaddsub132pd, NULL, NULL}, {host_vfmaddsub213ps, host_vfmaddsub213pd, NULL, NULL}, {host_vfmaddsub231ps, host_vfmaddsub231pd, NULL, NULL}},
    {{host_vfmsubadd132ps, host_vfmsubadd132pd, NULL, NULL}, {host_vfmsubadd213ps, host_vfmsubadd213pd, NULL, NULL}, {host_vfmsubadd231ps, host_vfmsubadd231pd, NULL, NULL}},
};

#endif /* __x86_64__ */
#endif
