/* cpuid.h: the CPU model the guest sees: exactly the features the interpreter implements. */
#ifndef X64EMU_CPUID_H
#define X64EMU_CPUID_H

#include <stdbool.h>
#include <stdint.h>

typedef struct CpuidRegs {
  uint32_t eax, ebx, ecx, edx;
} CpuidRegs;

/* The CPUID words that hold feature bits. */
enum {
  CPUID_1_EDX, CPUID_1_ECX, CPUID_7_EBX, CPUID_81_ECX, CPUID_81_EDX, CPUID_D1_EAX, CPUID_7_ECX,
  CPUID_WORDS
};

/* One machine's CPU model: the documented model (docs/cpu-model.md) less the features
 * --cpu removed (their bits read as 0 and their instructions are #UD). Zeroed, it is the
 * default model. */
typedef struct CpuModel {
  uint32_t removed[CPUID_WORDS];
} CpuModel;

CpuidRegs cpuid_query(const CpuModel *m, uint32_t leaf, uint32_t subleaf);

/* The XSAVE state components (XCR0 bits): x87 and SSE always, AVX (the upper halves of
 * the YMM registers) with the AVX feature. Their XSAVE area: the FXSAVE region's 512
 * bytes, the 64-byte header, then 256 bytes of YMM upper halves (xsave.c). */
enum { XSTATE_X87 = 1, XSTATE_SSE = 2, XSTATE_AVX = 4 };
enum {
  XSAVE_HEADER = 512, XSAVE_YMM = XSAVE_HEADER + 64,
  XSAVE_AREA_MAX = XSAVE_YMM + 256, /* every component */
};
/* The model's XCR0, and the size of its XSAVE area (standard and compacted alike). */
uint64_t cpuid_xcr0(const CpuModel *m);
unsigned cpuid_xsave_size(const CpuModel *m);

/* CPUID.1:EDX, which the kernel passes to programs as AT_HWCAP. */
uint32_t cpuid_hwcap(const CpuModel *m);

/* ---- --cpu: features taken away (or given back) for testing ---- */

/* A feature: its word (above) times 32 plus its bit. */
typedef enum CpuFeature {
  CPU_FEATURE_MMX = CPUID_1_EDX * 32 + 23,
  CPU_FEATURE_SSE3 = CPUID_1_ECX * 32 + 0,
  CPU_FEATURE_PCLMULQDQ = CPUID_1_ECX * 32 + 1,
  CPU_FEATURE_FMA = CPUID_1_ECX * 32 + 12,
  CPU_FEATURE_SSSE3 = CPUID_1_ECX * 32 + 9,
  CPU_FEATURE_CX16 = CPUID_1_ECX * 32 + 13,
  CPU_FEATURE_SSE41 = CPUID_1_ECX * 32 + 19,
  CPU_FEATURE_SSE42 = CPUID_1_ECX * 32 + 20,
  CPU_FEATURE_MOVBE = CPUID_1_ECX * 32 + 22,
  CPU_FEATURE_POPCNT = CPUID_1_ECX * 32 + 23,
  CPU_FEATURE_AES = CPUID_1_ECX * 32 + 25,
  CPU_FEATURE_XSAVE = CPUID_1_ECX * 32 + 26,
  CPU_FEATURE_OSXSAVE = CPUID_1_ECX * 32 + 27,
  CPU_FEATURE_AVX = CPUID_1_ECX * 32 + 28,
  CPU_FEATURE_F16C = CPUID_1_ECX * 32 + 29,
  CPU_FEATURE_XSAVEOPT = CPUID_D1_EAX * 32 + 0,
  CPU_FEATURE_XSAVEC = CPUID_D1_EAX * 32 + 1,
  CPU_FEATURE_BMI1 = CPUID_7_EBX * 32 + 3,
  CPU_FEATURE_AVX2 = CPUID_7_EBX * 32 + 5,
  CPU_FEATURE_BMI2 = CPUID_7_EBX * 32 + 8,
  CPU_FEATURE_ADX = CPUID_7_EBX * 32 + 19,
  CPU_FEATURE_SHA = CPUID_7_EBX * 32 + 29,
  CPU_FEATURE_VAES = CPUID_7_ECX * 32 + 9,
  CPU_FEATURE_VPCLMULQDQ = CPUID_7_ECX * 32 + 10,
  CPU_FEATURE_LZCNT = CPUID_81_ECX * 32 + 5,
} CpuFeature;

/* For the decoder, once per decoded instruction of an implemented feature: false when
 * --cpu removed the feature, whose instructions are then #UD as on a CPU without it. */
static inline bool cpu_feature_enabled(const CpuModel *m, CpuFeature f) {
  return !(m->removed[f / 32] >> (f % 32) & 1);
}

/* Applies a QEMU-style feature list, items separated by commas: "-aes" or "aes=off"
 * removes a feature, "+aes", "aes" or "aes=on" gives it back; "max" (the default model,
 * the default) changes nothing; "x86-64-v2" removes BMI1, BMI2, ADX, XSAVE and AVX (with
 * AVX2, FMA, F16C, VAES and VPCLMULQDQ): the model before x86-64-v3. Only
 * implemented features can be given.
 * Returns NULL, or a message saying what is wrong (changing nothing). */
const char *cpuid_apply_option(CpuModel *m, const char *list);

/* For an instruction x64emu does not run (its first n bytes): the instruction set it
 * belongs to that the CPU model lacks, said for a user ("the CPU model has no AVX-512
 * (EVEX encoding): build for x86-64-v3 or lower"), or NULL when it is not one of those. */
const char *cpuid_missing_set(const uint8_t *bytes, unsigned n);

/* The default model again: every removed feature back. */
void cpuid_reset_features(CpuModel *m);

#endif
