/* cpuid.h: the CPU model the guest sees: exactly the features the interpreter implements. */
#ifndef X64EMU_CPUID_H
#define X64EMU_CPUID_H

#include <stdint.h>

typedef struct CpuidRegs {
  uint32_t eax, ebx, ecx, edx;
} CpuidRegs;

CpuidRegs cpuid_query(uint32_t leaf, uint32_t subleaf);

/* CPUID.1:EDX, which the kernel passes to programs as AT_HWCAP. */
uint32_t cpuid_hwcap(void);

#endif
