/* x87_env16.c: FNSTENV, FLDENV, FNSAVE and FRSTOR with a 66 prefix, the 14-byte
 * environment of 16-bit layout (the control, status and tag words, the low 16 bits of
 * the instruction and data pointers, zero selectors) and the 94-byte state. Run natively
 * and under x64emu. */
#include <stdio.h>
#include <string.h>

int main(void) {
  unsigned char e[32], s[128];
  double one = 1.0;
  asm volatile("fninit; fldl %0; fld1; faddp" :: "m"(one));
  memset(e, 0xAA, sizeof e);
  asm volatile(".byte 0x66; fnstenv %0" : "=m"(e));
  printf("66 fnstenv:"); for (int i = 0; i < 16; i++) printf(" %02x", e[i]); printf("\n");
  memset(e, 0xAA, sizeof e);
  asm volatile("fnstenv %0" : "=m"(e));
  printf("   fnstenv:"); for (int i = 0; i < 28; i++) printf(" %02x", e[i]); printf("\n");
  memset(s, 0xAA, sizeof s);
  asm volatile(".byte 0x66; fnsave %0" : "=m"(s));
  printf("66 fnsave:"); for (int i = 0; i < 100; i++) printf(" %02x", s[i]); printf("\n");
  /* 66 frstor the same image back, then 66 fldenv of a crafted one */
  asm volatile(".byte 0x66; frstor %0" :: "m"(s));
  unsigned short sw, cw, tw; unsigned char img[14] = {0x7f, 0x02, 0x00, 0x38, 0xff, 0x3f, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88};
  asm volatile(".byte 0x66; fldenv %0" :: "m"(img));
  asm volatile("fnstcw %0; fnstsw %1" : "=m"(cw), "=m"(sw));
  unsigned char e2[28]; asm volatile("fnstenv %0" : "=m"(e2)); tw = e2[8] | e2[9] << 8;
  printf("after 66 fldenv: cw %#x sw %#x tw %#x ip %02x%02x%02x%02x dp %02x%02x%02x%02x\n", cw, sw, tw, e2[15], e2[14], e2[13], e2[12], e2[23], e2[22], e2[21], e2[20]);
}
