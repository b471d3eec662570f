/* bmi.c: BMI1, BMI2 and ADX as compiled code uses them (-mbmi -mbmi2 -madx: GCC emits
 * ANDN, BEXTR, BLS*, TZCNT, BZHI, PDEP, PEXT, SHLX/SHRX/SARX, RORX and MULX on its own)
 * and as multi-precision code does (two carry chains, ADCX and ADOX, interleaved): a
 * checksum over a stream of random operands, and a 512-bit multiplication, printed to be
 * compared with the native run. Also what CPUID says of the three. */
#include <cpuid.h>
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>

static uint64_t state = 0x123456789abcdef1ull;
static uint64_t next(void) {
  state ^= state << 13, state ^= state >> 7, state ^= state << 17;
  return state;
}

/* One step of the two chains: t[j] += lo[j] + CF (ADCX, memory source), t[j+1] += hi[j]
 * + OF (ADOX); MOV changes no flag, so both carries go on to the next step. */
#define STEP(j)                                                                      \
  "mov " #j "*8(%[t]), %%r8\n\tadcx " #j "*8(%[lo]), %%r8\n\tmov %%r8, " #j "*8(%[t])\n\t" \
  "mov " #j "*8+8(%[t]), %%r8\n\tadox " #j "*8(%[hi]), %%r8\n\tmov %%r8, " #j "*8+8(%[t])\n\t"

/* a * b (8 limbs each) into r (17 limbs, the last one room for a carry), a row of MULX
 * at a time, its low and high halves added by two independent carry chains, as
 * multi-precision code interleaves them: ADCX for the low halves, ADOX for the high. */
static void mul512(uint64_t r[17], const uint64_t a[8], const uint64_t b[8]) {
  for (int i = 0; i < 17; i++) r[i] = 0;
  for (int i = 0; i < 8; i++) {
    uint64_t lo[8], hi[8];
    for (int j = 0; j < 8; j++) lo[j] = _mulx_u64(a[j], b[i], (unsigned long long *)&hi[j]);
    __asm__ volatile("xor %%eax, %%eax\n\t" /* CF = OF = 0 */
                     STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7)
                     "mov 64(%[t]), %%r8\n\tadcx %%rax, %%r8\n\tmov %%r8, 64(%[t])\n\t"
                     "mov 72(%[t]), %%r8\n\tadox %%rax, %%r8\n\tmov %%r8, 72(%[t])"
                     :
                     : [t] "r"(r + i), [lo] "r"(lo), [hi] "r"(hi)
                     : "rax", "r8", "cc", "memory");
  }
}

/* MULX's 32-bit form (no intrinsic has it): the low half plus the high half. */
static uint32_t mulx32(uint32_t a, uint32_t b) {
  uint32_t lo, hi;
  __asm__("mulx %2, %0, %1" : "=r"(lo), "=r"(hi) : "rm"(b), "d"(a));
  return lo + hi;
}

int main(void) {
  unsigned a, b, c, d;
  __cpuid_count(7, 0, a, b, c, d);
  printf("cpuid: bmi1 %u, bmi2 %u, adx %u\n", b >> 3 & 1, b >> 8 & 1, b >> 19 & 1);

  uint64_t h = 0;
  uint32_t h32 = 0;
  for (int i = 0; i < 200000; i++) {
    uint64_t x = next(), y = next() * 0x9e3779b97f4a7c15ull;
    unsigned long long hi;
    h = h * 31 + _andn_u64(x, y) + _bextr_u64(x, y & 0x7f, (y >> 8) & 0x7f) + _blsi_u64(x) +
        _blsmsk_u64(x >> (y & 63)) + _blsr_u64(x) + _tzcnt_u64(x & y) + _tzcnt_u32((uint32_t)(x & y));
    h = h * 31 + _bzhi_u64(x, y & 0x7f) + _pdep_u64(x, y) + _pext_u64(x, y) + (x << (y & 63)) +
        (x >> (y >> 58)) + (uint64_t)((int64_t)x >> (y >> 58)) + _mulx_u64(x, y, &hi) + hi;
    h32 = h32 * 33 + _andn_u32((uint32_t)x, (uint32_t)y) + _pdep_u32((uint32_t)x, (uint32_t)y) +
          _pext_u32((uint32_t)x, (uint32_t)y) + _bzhi_u32((uint32_t)x, (uint32_t)y & 63) +
          _bextr_u32((uint32_t)x, y & 0x3f, (y >> 8) & 0x3f) + ((uint32_t)x >> (y & 31)) +
          (uint32_t)((int32_t)x >> (y & 31)) + mulx32((uint32_t)x, (uint32_t)y);
    h ^= h >> 29 | h << 35; /* RORX */
  }
  printf("checksum: %016llx %08x\n", (unsigned long long)h, h32);

  uint64_t x[8], y[8], r[17];
  for (int i = 0; i < 8; i++) x[i] = next() | (i == 7 ? 1ull << 63 : 0), y[i] = next();
  mul512(r, x, y);
  printf("product:");
  for (int i = 16; i >= 0; i--) printf(" %016llx", (unsigned long long)r[i]);
  printf("\n");
  return 0;
}
