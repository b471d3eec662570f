/* a64_access.c: whether a faulting AArch64 instruction wrote memory, from its encoding
 * (the Arm Architecture Reference Manual's A64 encoding index, "Loads and Stores"). */
#include "a64_access.h"

static unsigned bits(uint32_t insn, unsigned hi, unsigned lo) {
  return (insn >> lo) & ((1u << (hi - lo + 1)) - 1);
}

/* Load/store register forms (immediate, register offset, unprivileged): opc (bits 23:22)
 * 00 stores; a general register's 10 and 11 are sign-extending loads (or PRFM), a SIMD
 * register's 10 and 11 the 128-bit store and load, so there bit 22 alone tells. */
static int by_opc(uint32_t insn, unsigned simd) {
  return simd ? !bits(insn, 22, 22) : bits(insn, 23, 22) == 0;
}

int a64_access_writes(uint32_t insn) {
  enum { DC_ZVA = 0xD50B7420, RT_MASK = 0x1F };
  if ((insn & ~(uint32_t)RT_MASK) == DC_ZVA) return 1; /* zeroes a block: memset's */
  if (!bits(insn, 27, 27) || bits(insn, 25, 25)) return -1; /* not a load or store */
  unsigned simd = bits(insn, 26, 26), load = bits(insn, 22, 22), b24 = bits(insn, 24, 24);
  unsigned b21 = bits(insn, 21, 21), op4 = bits(insn, 11, 10);
  switch (bits(insn, 29, 28)) {
  case 0:
    if (simd) return bits(insn, 31, 31) || bits(insn, 29, 24) >> 1 != 0x6 ? -1 : !load;
    if (b24) return -1;
    /* Exclusive and ordered loads and stores; with o1 (bit 21) and either o2 (bit 23)
     * or a 32/64-bit size in bit 31 = 0, CAS and CASP: read-modify-writes. */
    if (b21 && (bits(insn, 23, 23) || !bits(insn, 31, 31))) return 1;
    return !load;
  case 1:
    if (!b24) return 0; /* a PC-relative literal: always a load */
    if (!b21 && op4 == 0) return by_opc(insn, simd); /* LDAPUR, STLUR */
    return -1;                                       /* memory tags, copies and sets */
  case 2:
    return !load; /* pairs: LDP, STP, LDNP, STNP (and SIMD) */
  default:
    if (b24 || !b21 || op4 == 2) return by_opc(insn, simd);
    if (simd) return -1;
    if (op4 & 1) return 0; /* LDRAA, LDRAB */
    /* Atomic memory operations (LDADD, SWP... and their ST aliases) read and write;
     * LDAPR (o3 = 1, opc = 100) only reads. */
    return !(bits(insn, 15, 15) && bits(insn, 14, 12) == 4);
  }
}
