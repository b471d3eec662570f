/* iconv_gconv.c: a static glibc program that dlopens a system library (the gconv module for
 * ISO-8859-15): glibc loads it only if the CPU has the x86-64 baseline ISA level, which
 * needs the CPUID MMX bit. */
#include <iconv.h>
#include <stdio.h>
#include <string.h>
int main(void) {
  iconv_t cd = iconv_open("UTF-16LE", "ISO-8859-15");
  if (cd == (iconv_t)-1) { perror("iconv_open"); return 1; }
  char in[] = "caf\xe9 \xa4", out[64], *ip = in, *op = out;
  size_t il = strlen(in), ol = sizeof out;
  if (iconv(cd, &ip, &il, &op, &ol) == (size_t)-1) { perror("iconv"); return 1; }
  for (char *p = out; p < op; p++) printf("%02x", (unsigned char)*p);
  printf("\n");
  return 0;
}
