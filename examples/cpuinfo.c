/* cpuinfo.c: the bundled example: shows which CPU a static x86-64 program believes it
 * runs on, echoes its arguments, and does a little integer and floating-point work. */
#include <cpuid.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  unsigned regs[12];
  __cpuid(0x80000002, regs[0], regs[1], regs[2], regs[3]);
  __cpuid(0x80000003, regs[4], regs[5], regs[6], regs[7]);
  __cpuid(0x80000004, regs[8], regs[9], regs[10], regs[11]);
  char brand[49];
  memcpy(brand, regs, 48);
  brand[48] = 0;
  unsigned a, b, c, d;
  __cpuid(1, a, b, c, d);
  printf("CPU: %s\n", brand);
  printf("features: sse2=%s sse4.2=%s aes=%s pclmulqdq=%s popcnt=%s\n",
         (d >> 26) & 1 ? "yes" : "no", (c >> 20) & 1 ? "yes" : "no",
         (c >> 25) & 1 ? "yes" : "no", (c >> 1) & 1 ? "yes" : "no",
         (c >> 23) & 1 ? "yes" : "no");
  printf("arguments:");
  for (int i = 1; i < argc; i++) printf(" %s", argv[i]);
  printf("\n");

  /* FNV-1a over the arguments, and pi from a slowly converging series. */
  unsigned long long h = 0xcbf29ce484222325ull;
  for (int i = 1; i < argc; i++)
    for (const char *p = argv[i]; *p; p++) h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
  double pi = 0;
  for (int k = 0; k < 1000000; k++) pi += (k & 1 ? -4.0 : 4.0) / (2 * k + 1);
  printf("fnv1a(arguments) = %016llx\n", h);
  printf("pi ~ %.9f (error %.2e), sqrt(2) = %.15f\n", pi, fabs(pi - M_PI), sqrt(2.0));
  return 0;
}
