/* aes128_step.c: single-steps one AES-128 block encryption written with AES-NI
 * (aes128.s), prints the state after every AESENC and AESENCLAST, and checks each round
 * against FIPS-197 Appendix B ("Cipher Example"). Built against the installed library:
 *   cc aes128_step.c $(pkg-config --cflags --libs x64emu) -o aes128_step */
#include <stdio.h>
#include <string.h>

#include <x64emu/x64emu.h>

/* aes128.s, assembled: rdi = key, rsi = input, rdx = output; `done` at DONE. */
static const unsigned char code[] = {
    0xf3, 0x0f, 0x6f, 0x0f, 0xf3, 0x0f, 0x6f, 0x06, 0x66, 0x0f, 0xef, 0xc1, 0x66, 0x0f, 0x3a, 0xdf,
    0xd1, 0x01, 0xe8, 0x9b, 0x00, 0x00, 0x00, 0x66, 0x0f, 0x38, 0xdc, 0xc1, 0x66, 0x0f, 0x3a, 0xdf,
    0xd1, 0x02, 0xe8, 0x8b, 0x00, 0x00, 0x00, 0x66, 0x0f, 0x38, 0xdc, 0xc1, 0x66, 0x0f, 0x3a, 0xdf,
    0xd1, 0x04, 0xe8, 0x7b, 0x00, 0x00, 0x00, 0x66, 0x0f, 0x38, 0xdc, 0xc1, 0x66, 0x0f, 0x3a, 0xdf,
    0xd1, 0x08, 0xe8, 0x6b, 0x00, 0x00, 0x00, 0x66, 0x0f, 0x38, 0xdc, 0xc1, 0x66, 0x0f, 0x3a, 0xdf,
    0xd1, 0x10, 0xe8, 0x5b, 0x00, 0x00, 0x00, 0x66, 0x0f, 0x38, 0xdc, 0xc1, 0x66, 0x0f, 0x3a, 0xdf,
    0xd1, 0x20, 0xe8, 0x4b, 0x00, 0x00, 0x00, 0x66, 0x0f, 0x38, 0xdc, 0xc1, 0x66, 0x0f, 0x3a, 0xdf,
    0xd1, 0x40, 0xe8, 0x3b, 0x00, 0x00, 0x00, 0x66, 0x0f, 0x38, 0xdc, 0xc1, 0x66, 0x0f, 0x3a, 0xdf,
    0xd1, 0x80, 0xe8, 0x2b, 0x00, 0x00, 0x00, 0x66, 0x0f, 0x38, 0xdc, 0xc1, 0x66, 0x0f, 0x3a, 0xdf,
    0xd1, 0x1b, 0xe8, 0x1b, 0x00, 0x00, 0x00, 0x66, 0x0f, 0x38, 0xdc, 0xc1, 0x66, 0x0f, 0x3a, 0xdf,
    0xd1, 0x36, 0xe8, 0x0b, 0x00, 0x00, 0x00, 0x66, 0x0f, 0x38, 0xdd, 0xc1, 0xf3, 0x0f, 0x7f, 0x02,
    0x0f, 0x0b, 0x66, 0x0f, 0x70, 0xd2, 0xff, 0x66, 0x0f, 0x6f, 0xd9, 0x66, 0x0f, 0x73, 0xfb, 0x04,
    0x66, 0x0f, 0xef, 0xcb, 0x66, 0x0f, 0x73, 0xfb, 0x04, 0x66, 0x0f, 0xef, 0xcb, 0x66, 0x0f, 0x73,
    0xfb, 0x04, 0x66, 0x0f, 0xef, 0xcb, 0x66, 0x0f, 0xef, 0xca, 0xc3,
};
enum { CODE = 0x400000, DONE = 0xb0, DATA = 0x500000 };

/* FIPS-197 Appendix B: key, input, the state at the start of rounds 2..10 (after
 * rounds 1..9), and the output. */
static const char *const key = "2b7e151628aed2a6abf7158809cf4f3c";
static const char *const input = "3243f6a8885a308d313198a2e0370734";
static const char *const after_round[10] = {
    "a49c7ff2689f352b6b5bea43026a5049", "aa8f5f0361dde3ef82d24ad26832469a",
    "486c4eee671d9d0d4de3b138d65f58e7", "e0927fe8c86363c0d9b1355085b8be01",
    "f1006f55c1924cef7cc88b325db5d50c", "260e2e173d41b77de86472a9fdd28b25",
    "5a4142b11949dc1fa3e019657a8c040c", "ea835cf00445332d655d98ad8596b0c5",
    "eb40f21e592e38848ba113e71bc342d2", "3925841d02dc09fbdc118597196a0b32",
};

static void from_hex(const char *hex, unsigned char *out) {
  for (int i = 0; i < 16; i++) sscanf(hex + 2 * i, "%2hhx", &out[i]);
}

static int check(x64emu_status s, const char *what) {
  if (s != X64EMU_OK) fprintf(stderr, "aes128_step: %s: %s\n", what, x64emu_strerror(s));
  return s != X64EMU_OK;
}

int main(void) {
  x64emu *m;
  if (check(x64emu_open(&m), "open")) return 1;
  unsigned char block[16];
  uint64_t rip = CODE, rsp = DATA + 0x1000, rdi = DATA, rsi = DATA + 16, rdx = DATA + 32;
  int bad = check(x64emu_mem_map(m, CODE, 0x1000, X64EMU_PROT_READ | X64EMU_PROT_EXEC), "map code") ||
            check(x64emu_mem_map(m, DATA, 0x1000, X64EMU_PROT_READ | X64EMU_PROT_WRITE), "map data") ||
            check(x64emu_mem_write(m, CODE, code, sizeof code), "write code");
  from_hex(key, block);
  bad = bad || check(x64emu_mem_write(m, rdi, block, 16), "write key");
  from_hex(input, block);
  bad = bad || check(x64emu_mem_write(m, rsi, block, 16), "write input") ||
        check(x64emu_reg_write(m, X64EMU_REG_RIP, &rip), "rip") ||
        check(x64emu_reg_write(m, X64EMU_REG_RSP, &rsp), "rsp") ||
        check(x64emu_reg_write(m, X64EMU_REG_RDI, &rdi), "rdi") ||
        check(x64emu_reg_write(m, X64EMU_REG_RSI, &rsi), "rsi") ||
        check(x64emu_reg_write(m, X64EMU_REG_RDX, &rdx), "rdx");
  int round = 0, wrong = 0;
  while (!bad && rip != CODE + DONE) {
    char text[64];
    bad = check(x64emu_disasm(m, rip, text, sizeof text, NULL), "disasm");
    x64emu_stop stop;
    bad = bad || check(x64emu_step(m, &stop), "step");
    if (!bad && stop.reason != X64EMU_STOP_COUNT) {
      fprintf(stderr, "aes128_step: stopped at 0x%llx (reason %d)\n", (unsigned long long)rip, stop.reason);
      bad = 1;
    }
    if (!bad && strncmp(text, "aesenc", 6) == 0) {
      unsigned char state[16], want[16];
      x64emu_reg_read(m, X64EMU_REG_XMM0, state);
      from_hex(after_round[round], want);
      int ok = memcmp(state, want, 16) == 0;
      printf("round %2d  %-22s ", round + 1, text);
      for (int i = 0; i < 16; i++) printf("%02x", state[i]);
      printf("  %s\n", ok ? "= FIPS-197" : "differs from FIPS-197");
      wrong += !ok;
      round++;
    }
    x64emu_reg_read(m, X64EMU_REG_RIP, &rip);
  }
  x64emu_mem_read(m, rdx, block, 16);
  unsigned long long steps = (unsigned long long)x64emu_icount(m);
  x64emu_close(m);
  if (bad) return 1;
  printf("%d rounds in %llu single steps: %s\n", round, steps,
         round == 10 && !wrong ? "every round as FIPS-197 Appendix B" : "MISMATCH");
  return round == 10 && !wrong ? 0 : 1;
}
