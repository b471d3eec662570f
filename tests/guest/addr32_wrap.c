/* addr32_wrap.c: under a 67 prefix the whole address wraps at 4 GiB, including the part
 * BT, BTS, BTR and BTC add for a register bit offset outside the addressed word (SDM vol.
 * 2A, "BT": the offset's word is addressed as part of the effective address). Each case
 * addresses a page at 0x20000 from a base near 4 GiB (or a negative offset from a small
 * base) and prints CF and the page's bytes it changed. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define PAGE ((uint8_t *)0x20000)

static void show(const char *name, unsigned cf) {
  printf("%-22s cf=%u", name, cf);
  for (int i = 0; i < 64; i++)
    if (PAGE[i]) printf(" [%d]=%02x", i, PAGE[i]);
  printf("\n");
  memset(PAGE, 0, 64);
}

/* The bit offset, from base, that reaches byte `at` of the page, bit `bit`, the address
 * wrapping at 4 GiB. */
static int64_t offset_to(uint32_t base, unsigned at, unsigned bit) {
  int64_t bytes = (int64_t)(uint32_t)(0x20000u + at - base);
  if (base < 0x20000) bytes -= 1ll << 32; /* backwards, past 0, from a small base */
  return bytes * 8 + bit;
}

#define BIT_CASE(insn, suffix, type)                                                     \
  do {                                                                                   \
    type off = (type)offset_to(base, at, bit);                                           \
    unsigned char cf;                                                                    \
    __asm__ volatile("addr32 " insn suffix " %2, (%%esi)\n\tsetc %0"                     \
                     : "=r"(cf)                                                          \
                     : "S"((uint64_t)base), "r"(off)                                     \
                     : "cc", "memory");                                                  \
    show(insn suffix, cf);                                                               \
  } while (0)

int main(void) {
  if (mmap(PAGE, 4096, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) != PAGE) {
    perror("mmap");
    return 1;
  }
  /* A plain load first: disp + ESI past 4 GiB. */
  PAGE[8] = 0x5a;
  uint32_t got;
  __asm__ volatile("addr32 movl 0x20018(%%esi), %0" : "=r"(got) : "S"((uint64_t)0xfffffff0u));
  printf("load %#x\n", got);
  PAGE[8] = 0;

  uint32_t bases[] = {0xfffffff0u, 0xffff0000u, 0x10u};
  for (unsigned b = 0; b < 3; b++) {
    uint32_t base = bases[b];
    printf("base %#x\n", base);
    unsigned at = 16, bit = 5;
    BIT_CASE("bts", "q", int64_t);
    BIT_CASE("bts", "l", int32_t);
    at = 32, bit = 1;
    PAGE[at] = 0xff;
    BIT_CASE("btr", "q", int64_t);
    PAGE[at] = 0x02;
    BIT_CASE("btc", "l", int32_t);
    PAGE[at] = 0x02;
    BIT_CASE("bt", "q", int64_t);
    BIT_CASE("lock bts", "q", int64_t);
    PAGE[at] = 0x02;
    BIT_CASE("lock btr", "l", int32_t);
  }
  return 0;
}
