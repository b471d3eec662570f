/* cpuid.c: the guest's CPUID answers. Guests (glibc, OpenSSL) choose code paths from
 * these bits, so every advertised feature must be implemented and nothing more. */
#include "cpuid.h"

#include <string.h>

/* CPUID.1:EDX */
#define EDX1_FPU (1u << 0)
#define EDX1_TSC (1u << 4)
#define EDX1_CX8 (1u << 8)
#define EDX1_CMOV (1u << 15)
#define EDX1_FXSR (1u << 24)
#define EDX1_SSE (1u << 25)
#define EDX1_SSE2 (1u << 26)
/* CPUID.1:ECX */
#define ECX1_CX16 (1u << 13)
#define ECX1_POPCNT (1u << 23)
/* CPUID.80000001 */
#define ECX81_LAHF (1u << 0)
#define ECX81_ABM (1u << 5) /* LZCNT */
#define EDX81_SYSCALL (1u << 11)
#define EDX81_NX (1u << 20)
#define EDX81_RDTSCP (1u << 27)
#define EDX81_LM (1u << 29)

static const uint32_t leaf1_edx =
    EDX1_FPU | EDX1_TSC | EDX1_CX8 | EDX1_CMOV | EDX1_FXSR | EDX1_SSE | EDX1_SSE2;
static const uint32_t leaf1_ecx = ECX1_CX16 | ECX1_POPCNT;

uint32_t cpuid_hwcap(void) { return leaf1_edx; }

/* Deterministic cache descriptions (leaf 4) so that glibc sizes its memcpy thresholds
 * the same way on every host: 32 KiB L1d/L1i, 1 MiB L2, 8 MiB L3, 64-byte lines. */
static CpuidRegs cache_leaf(uint32_t index) {
  /* type, level, ways, sets */
  static const uint32_t caches[][4] = {
      {1, 1, 8, 64}, {2, 1, 8, 64}, {3, 2, 16, 1024}, {3, 3, 16, 8192}};
  CpuidRegs r = {0, 0, 0, 0};
  if (index >= sizeof caches / sizeof caches[0]) return r;
  const uint32_t *k = caches[index];
  r.eax = k[0] | k[1] << 5 | 1u << 8 /* self-initializing */;
  r.ebx = (64 - 1) | (1 - 1) << 12 | (k[2] - 1) << 22;
  r.ecx = k[3] - 1;
  return r;
}

static void brand(uint32_t leaf, CpuidRegs *r) {
  static const char name[48] = "x64emu virtual x86-64 CPU";
  memcpy(r, name + (leaf - 0x80000002u) * 16, 16);
}

CpuidRegs cpuid_query(uint32_t leaf, uint32_t subleaf) {
  CpuidRegs r = {0, 0, 0, 0};
  switch (leaf) {
  case 0:
    r.eax = 7;
    memcpy(&r.ebx, "Genu", 4);
    memcpy(&r.edx, "ineI", 4);
    memcpy(&r.ecx, "ntel", 4);
    break;
  case 1:
    r.eax = 0x000106A5;      /* family 6, model 0x1A, stepping 5 */
    r.ebx = 8u << 8 | 1u << 16; /* 64-byte CLFLUSH line, one logical processor */
    r.ecx = leaf1_ecx;
    r.edx = leaf1_edx;
    break;
  case 2:
    r.eax = 0x0000FF01; /* one round; descriptor FF: "see leaf 4" */
    break;
  case 4:
    r = cache_leaf(subleaf);
    break;
  case 0x80000000:
    r.eax = 0x80000004;
    break;
  case 0x80000001:
    r.ecx = ECX81_LAHF | ECX81_ABM;
    r.edx = EDX81_SYSCALL | EDX81_NX | EDX81_RDTSCP | EDX81_LM;
    break;
  case 0x80000002: case 0x80000003: case 0x80000004:
    brand(leaf, &r);
    break;
  default:
    break;
  }
  return r;
}
