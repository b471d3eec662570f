/* mmx.c: MMX as programs use it: GCC's MMX, SSE and SSSE3 intrinsics on __m64 values, and
 * the aliasing of the MMX registers with the x87 stack: an x87 value read through MM7, the
 * x87 image (tags, TOP, exponents) FXSAVE and FNSTENV show after MMX writes, EMMS, a signal
 * handler run between two MMX instructions, and long double arithmetic after EMMS. */
#include <mmintrin.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <tmmintrin.h>
#include <unistd.h>
#include <xmmintrin.h>

static uint64_t bits(__m64 v) {
  uint64_t b;
  memcpy(&b, &v, 8);
  return b;
}

static __m64 from(uint64_t b) {
  __m64 v;
  memcpy(&v, &b, 8);
  return v;
}

static void intrinsics(void) {
  uint64_t seed = 0x9E3779B97F4A7C15ull, acc = 0;
  for (int i = 0; i < 2000; i++) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    __m64 a = from(seed), b = from(seed >> 7 | seed << 57);
    __m64 r = _mm_add_pi8(a, b);
    r = _mm_xor_si64(r, _mm_madd_pi16(a, b));
    r = _mm_add_pi16(r, _mm_packs_pi16(a, b));
    r = _mm_sub_pi32(r, _mm_unpackhi_pi8(a, b));
    r = _mm_or_si64(r, _mm_srli_pi16(_mm_sad_pu8(a, b), 3));
    r = _mm_add_pi8(r, _mm_shuffle_pi16(a, 0x1B));
    r = _mm_xor_si64(r, _mm_shuffle_pi8(a, b));
    r = _mm_add_pi16(r, _mm_alignr_pi8(a, b, 3));
    r = _mm_sub_pi16(r, _mm_hadd_pi16(a, b));
    r = _mm_xor_si64(r, _mm_abs_pi8(b));
    r = _mm_add_pi16(r, _mm_mulhrs_pi16(a, b));
    r = _mm_adds_pu8(r, _mm_avg_pu8(a, b));
    r = _mm_xor_si64(r, _mm_cmpgt_pi16(a, b));
    r = _mm_sll_pi32(r, _mm_cvtsi32_si64(i & 31));
    r = _mm_add_pi32(r, _mm_cvtsi32_si64(_mm_movemask_pi8(a)));
    acc = acc * 31 + bits(r);
  }
  __m128 f = _mm_cvtpi32_ps(_mm_setzero_ps(), from(0x00000007FFFFFFF9ull));
  __m64 back = _mm_cvtps_pi32(_mm_mul_ps(f, _mm_set1_ps(0.5f)));
  _mm_empty();
  printf("intrinsics: %016llx, converted back %016llx\n", (unsigned long long)acc,
         (unsigned long long)bits(back));
}

static void x87_into_mmx(void) {
  uint64_t mm7;
  __asm__ volatile("fninit\n fldpi\n movq %%mm7, %0\n emms" : "=r"(mm7));
  printf("pi's significand through mm7: %016llx\n", (unsigned long long)mm7);
}

static void mmx_into_x87(void) {
  uint8_t fx[512] __attribute__((aligned(16)));
  uint16_t env[14];
  uint64_t v = 0x0123456789ABCDEFull;
  __asm__ volatile("fninit\n fld1\n fldz\n movq %2, %%mm3\n fxsave %0\n fnstenv %1\n emms"
                   : "=m"(fx), "=m"(env)
                   : "r"(v));
  printf("after movq mm3: fsw %04x ftw %02x, fnstenv tags %04x\n", fx[2] | fx[3] << 8, fx[4], env[4]);
  for (int i = 0; i < 8; i++) {
    printf("  st%d:", i);
    for (int j = 9; j >= 0; j--) printf("%02x", fx[32 + 16 * i + j]);
    printf("\n");
  }
  __asm__ volatile("fxsave %0" : "=m"(fx));
  printf("after emms: ftw %02x\n", fx[4]);
}

static volatile sig_atomic_t handled;
static void on_usr1(int sig) {
  (void)sig;
  volatile long double x = 1.0L / 3.0L; /* the handler's own x87 work */
  handled = x > 0.3L;
}

static void signal_between_mmx(void) {
  signal(SIGUSR1, on_usr1);
  uint64_t in = 0xFEDCBA9876543210ull, out;
  __asm__ volatile("movq %0, %%mm1" : : "m"(in));
  kill(getpid(), SIGUSR1);
  __asm__ volatile("movq %%mm1, %0\n emms" : "=m"(out));
  printf("mm1 across a signal handler: %016llx (handler ran: %d)\n", (unsigned long long)out,
         (int)handled);
}

/* PUNPCKLBW, PUNPCKLWD and PUNPCKLDQ read 32 bits from memory: an operand at the end of
 * the last readable page is read, not a fault. */
static void unpack_low_from_m32(void) {
  uint8_t *two = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (two == MAP_FAILED || munmap(two + 4096, 4096) != 0) return;
  uint32_t *last = (uint32_t *)(two + 4096 - 4);
  *last = 0x89abcdef;
  uint64_t base = 0x0011223344556677ull, bw, wd, dq;
  __asm__ volatile("movq %3, %%mm0\n punpcklbw (%4), %%mm0\n movq %%mm0, %0\n"
                   "movq %3, %%mm0\n punpcklwd (%4), %%mm0\n movq %%mm0, %1\n"
                   "movq %3, %%mm0\n punpckldq (%4), %%mm0\n movq %%mm0, %2\n emms"
                   : "=m"(bw), "=m"(wd), "=m"(dq)
                   : "m"(base), "r"(last)
                   : "mm0", "memory");
  printf("punpckl from m32: %016llx %016llx %016llx\n", (unsigned long long)bw,
         (unsigned long long)wd, (unsigned long long)dq);
  munmap(two, 4096);
}

int main(void) {
  unpack_low_from_m32();
  intrinsics();
  x87_into_mmx();
  mmx_into_x87();
  signal_between_mmx();
  long double third = 1.0L / 3.0L;
  printf("long double after emms: %.20Lg\n", third * 3.0L - 1.0L + third);
  return 0;
}
