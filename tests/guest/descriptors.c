/* descriptors.c: what a Linux x86-64 process sees of the descriptor tables: SGDT, SIDT,
 * SMSW, SLDT and STR as the kernel's UMIP emulation answers them (register sizes
 * included, and operands it cannot write); LAR, LSL, VERR and VERW on every GDT selector; loads of FS and GS (MOV,
 * POP, LGS), which set the base to 0, and PUSH GS. Run natively and under x64emu. */
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

static sigjmp_buf back;

static void on_sig(int sig, siginfo_t *si, void *ucv) {
  ucontext_t *uc = ucv;
  printf("  signal %d code %d addr %#lx trapno %lld err %lld\n", sig, si->si_code, (unsigned long)si->si_addr,
         (long long)uc->uc_mcontext.gregs[REG_TRAPNO], (long long)uc->uc_mcontext.gregs[REG_ERR]);
  siglongjmp(back, 1);
}

#define CASE(what, ...)                 \
  do {                                  \
    printf("%s\n", what);               \
    if (sigsetjmp(back, 1) == 0) {      \
      __VA_ARGS__;                      \
    }                                   \
  } while (0)

/* LAR, LSL, VERR, VERW of every selector of the GDT's first 17 entries, with each RPL.
 * The per-CPU entry's limit is the CPU and node: compared with getcpu's. */
static void descriptor_table(void) {
  for (unsigned s = 0; s < 0x88; s++) {
    unsigned long lar = 0x77, lsl = 0x77;
    unsigned char zl, zs, zr, zw;
    asm volatile("lar %2, %0; setz %1" : "+r"(lar), "=r"(zl) : "r"((unsigned long)s));
    asm volatile("lsl %2, %0; setz %1" : "+r"(lsl), "=r"(zs) : "r"((unsigned long)s));
    asm volatile("verr %1; setz %0" : "=r"(zr) : "r"((unsigned short)s));
    asm volatile("verw %1; setz %0" : "=r"(zw) : "r"((unsigned short)s));
    if (!(zl || zs || zr || zw)) continue;
    /* The CPU may change between LSL and getcpu: a few tries. */
    unsigned cpu = 0, node = 0;
    for (int i = 0; i < 10 && s >> 3 == 15; i++) {
      asm volatile("lsl %1, %0" : "+r"(lsl) : "r"((unsigned long)s));
      getcpu(&cpu, &node);
      if (lsl == ((node << 12) | cpu)) break;
    }
    if (s >> 3 == 15) printf("%#04x lar %d %#lx lsl %d (node << 12 | cpu: %d) verr %d verw %d\n", s, zl, lar, zs,
                             lsl == ((node << 12) | cpu), zr, zw);
    else printf("%#04x lar %d %#lx lsl %d %#lx verr %d verw %d\n", s, zl, lar, zs, lsl, zr, zw);
  }
  unsigned long lar = 0x77;
  unsigned char z;
  asm volatile("lar %2, %0; setz %1" : "+r"(lar), "=r"(z) : "r"(0x10000ul | 0x2b));
  printf("lar of 0x1002b (the selector is the low 16 bits): %#lx zf %d\n", lar, z);
  /* Only ZF changes: CF and the others set before stay. */
  unsigned long flags;
  asm volatile("pushfq; orq $0x8c5, (%%rsp); popfq; mov $0x40, %%ecx; lsl %%ecx, %%eax; pushfq; pop %0"
               : "=r"(flags) : : "rax", "rcx", "cc");
  printf("flags after a failing lsl: %#lx\n", flags & 0x8d5);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  struct sigaction sa = {.sa_sigaction = on_sig, .sa_flags = SA_SIGINFO | SA_NODEFER};
  sigaction(SIGSEGV, &sa, NULL);
  sigaction(SIGILL, &sa, NULL);
  uint8_t buf[16];
  CASE("sgdt", { memset(buf, 0xAA, 16); asm volatile("sgdt %0" : "=m"(buf)); printf("  limit %#x base %#lx\n", *(uint16_t*)buf, *(unsigned long*)(buf+2)); });
  CASE("sidt", { memset(buf, 0xAA, 16); asm volatile("sidt %0" : "=m"(buf)); printf("  limit %#x base %#lx\n", *(uint16_t*)buf, *(unsigned long*)(buf+2)); });
  CASE("smsw eax", { unsigned long v = 0x1234567890; asm volatile("smsw %%rax" : "+a"(v)); printf("  %#lx\n", v); });
  CASE("smsw mem", { memset(buf, 0xAA, 16); asm volatile("smsw %0" : "=m"(*(uint16_t*)buf)); printf("  %#x %#x\n", *(uint16_t*)buf, buf[2]); });
  CASE("sldt", { unsigned long v = 0x55; asm volatile("sldt %%rax" : "+a"(v)); printf("  %#lx\n", v); });
  CASE("str", { unsigned long v = 0x55; asm volatile("str %%rax" : "+a"(v)); printf("  %#lx\n", v); });
  /* The kernel's store to an unmapped operand fails; at address -1 it does not emulate. */
  CASE("sldt to page 1", { asm volatile("sldt (%0)" :: "r"(0x1000ul) : "memory"); });
  CASE("sldt to address -1", { asm volatile("sldt (%0)" :: "r"(~0ul) : "memory"); });
  CASE("sgdt to address -1", { asm volatile("sgdt (%0)" :: "r"(~0ul) : "memory"); });
  CASE("lar 0x2b", { unsigned long v = 0x2b, r = 0x77; unsigned char z; asm volatile("lar %2, %0; setz %1" : "+r"(r), "=r"(z) : "r"(v)); printf("  %#lx zf %d\n", r, z); });
  CASE("lsl 0x2b", { unsigned long v = 0x2b, r = 0x77; unsigned char z; asm volatile("lsl %2, %0; setz %1" : "+r"(r), "=r"(z) : "r"(v)); printf("  %#lx zf %d\n", r, z); });
  CASE("verr 0x2b", { unsigned short v = 0x2b; unsigned char z; asm volatile("verr %1; setz %0" : "=r"(z) : "r"(v)); printf("  zf %d\n", z); });
  CASE("verw 0x33", { unsigned short v = 0x33; unsigned char z; asm volatile("verw %1; setz %0" : "=r"(z) : "r"(v)); printf("  zf %d\n", z); });
  unsigned long base;
  syscall(SYS_arch_prctl, ARCH_SET_GS, 0x12345000UL);
  CASE("mov gs, 0", { unsigned short s = 0; asm volatile("mov %0, %%gs" :: "r"(s)); syscall(SYS_arch_prctl, ARCH_GET_GS, &base); unsigned short g; asm("mov %%gs, %0" : "=r"(g)); printf("  gs %#x base %#lx\n", g, base); });
  syscall(SYS_arch_prctl, ARCH_SET_GS, 0x12345000UL);
  CASE("mov gs, 3", { unsigned short s = 3; asm volatile("mov %0, %%gs" :: "r"(s)); syscall(SYS_arch_prctl, ARCH_GET_GS, &base); unsigned short g; asm("mov %%gs, %0" : "=r"(g)); printf("  gs %#x base %#lx\n", g, base); });
  syscall(SYS_arch_prctl, ARCH_SET_GS, 0x12345000UL);
  CASE("mov gs, 0x2b", { unsigned short s = 0x2b; asm volatile("mov %0, %%gs" :: "r"(s)); syscall(SYS_arch_prctl, ARCH_GET_GS, &base); unsigned short g; asm("mov %%gs, %0" : "=r"(g)); printf("  gs %#x base %#lx\n", g, base); });
  CASE("mov gs, 0x40", { unsigned short s = 0x40; asm volatile("mov %0, %%gs" :: "r"(s)); });
  syscall(SYS_arch_prctl, ARCH_SET_GS, 0x12345000UL);
  CASE("pop gs (0x2b)", { unsigned long s = 0x2b; asm volatile("push %0; .byte 0x0f, 0xa9" :: "r"(s) : "memory"); syscall(SYS_arch_prctl, ARCH_GET_GS, &base); unsigned short g; asm("mov %%gs, %0" : "=r"(g)); printf("  gs %#x base %#lx\n", g, base); });
  CASE("push gs", { unsigned long v; asm volatile(".byte 0x0f, 0xa8; pop %0" : "=r"(v)); printf("  %#lx\n", v); });
  syscall(SYS_arch_prctl, ARCH_SET_GS, 0x12345000UL);
  CASE("lgs (0x2b)", { struct __attribute__((packed)) { unsigned long off; unsigned short sel; } fp = {0x1122334455667788ul, 0x2b}; unsigned long r; asm volatile(".byte 0x48, 0x0f, 0xb5, 0x07" : "=a"(r) : "D"(&fp) : "memory"); syscall(SYS_arch_prctl, ARCH_GET_GS, &base); printf("  r %#lx base %#lx\n", r, base); });
  unsigned long v;
  v = ~0ul; asm volatile("smsw %%eax" : "+a"(v)); printf("smsw eax: %#lx\n", v);
  v = ~0ul; asm volatile("smsw %%ax" : "+a"(v)); printf("smsw ax: %#lx\n", v);
  v = ~0ul; asm volatile("sldt %%eax" : "+a"(v)); printf("sldt eax: %#lx\n", v);
  v = ~0ul; asm volatile("sldt %%ax" : "+a"(v)); printf("sldt ax: %#lx\n", v);
  v = ~0ul; asm volatile("sldt %%rax" : "+a"(v)); printf("sldt rax: %#lx\n", v);
  v = ~0ul; asm volatile("str %%eax" : "+a"(v)); printf("str eax: %#lx\n", v);
  v = ~0ul; asm volatile("str %%ax" : "+a"(v)); printf("str ax: %#lx\n", v);
  unsigned char m[8]; memset(m, 0xAA, 8); asm volatile("sldt %0" : "=m"(*(unsigned short*)m)); printf("sldt m: %02x %02x %02x\n", m[0], m[1], m[2]);
  memset(m, 0xAA, 8); asm volatile("str %0" : "=m"(*(unsigned short*)m)); printf("str m: %02x %02x %02x\n", m[0], m[1], m[2]);
  unsigned char g[16]; memset(g, 0xAA, 16); asm volatile(".byte 0x66; sgdt %0" : "=m"(g)); printf("66 sgdt:"); for (int i = 0; i < 12; i++) printf(" %02x", g[i]); printf("\n");
  v = ~0ul; unsigned long s = 0x2b; asm volatile("lar %k1, %%eax" : "+a"(v) : "r"(s)); printf("lar eax: %#lx\n", v);
  v = ~0ul; asm volatile("lar %w1, %%ax" : "+a"(v) : "r"(s)); printf("lar ax: %#lx\n", v);
  v = ~0ul; asm volatile("lsl %k1, %%eax" : "+a"(v) : "r"(s)); printf("lsl eax: %#lx\n", v);
  v = ~0ul; asm volatile("lsl %w1, %%ax" : "+a"(v) : "r"(s)); printf("lsl ax: %#lx\n", v);
  v = ~0ul; s = 0x40; unsigned char z; asm volatile("lar %k2, %%eax; setz %1" : "+a"(v), "=r"(z) : "r"(s)); printf("lar eax fail: %#lx zf %d\n", v, z);
  v = 0; s = 0x10000 | 0x2b; asm volatile("lar %2, %%rax; setz %1" : "+a"(v), "=r"(z) : "r"(s)); printf("lar upper selector bits: %#lx zf %d\n", v, z);
  descriptor_table();
  return 0;
}
