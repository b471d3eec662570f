/* api.c: the library against Unicorn on the same guest code, in one process: a loop of
 * integer and SSE instructions run with no hook, with a per-instruction hook that reads
 * RIP and XMM0 (by calls, and in x64emu also through register views), and one exact
 * single step at a time; a loop of loads and stores with a
 * hook on every access; and whether PCLMULQDQ runs. Prints
 * one Markdown table of millions of guest instructions (or steps) per second.
 * A benchmark, not a test: bench/api.sh builds and runs it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <unicorn/unicorn.h>
#include <x64emu/x64emu.h>

/* 1: add rax, rcx; pxor xmm0, xmm1; paddq xmm1, xmm0; xor rbx, rax; dec rcx; jnz 1b; nop
 * Six instructions an iteration; rcx iterations; `done` is the NOP. */
static const uint8_t loop[] = {0x48, 0x01, 0xc8, 0x66, 0x0f, 0xef, 0xc1, 0x66, 0x0f, 0xd4,
                               0xc8, 0x48, 0x31, 0xc3, 0x48, 0xff, 0xc9, 0x75, 0xee, 0x90};
/* 1: mov rax, [rdx]; add [rdx + 8], rax; dec rcx; jnz 1b; nop
 * Four instructions and three accesses (two loads, a store) an iteration. */
static const uint8_t memloop[] = {0x48, 0x8b, 0x02, 0x48, 0x01, 0x42, 0x08, 0x48, 0xff, 0xc9, 0x75, 0xf4, 0x90};
/* pclmulqdq xmm0, xmm1, 0; nop */
static const uint8_t clmul[] = {0x66, 0x0f, 0x3a, 0x44, 0xc1, 0x00, 0x90};
enum { CODE = 0x1000000, DATA = 0x2000000, PER_ITER = 6, MEM_PER_ITER = 4 };
/* MEM_HOOK runs memloop, the others loop; Unicorn has no views, so VIEW_HOOK is
 * INSN_HOOK there. */
enum Kind { NO_HOOK, INSN_HOOK, VIEW_HOOK, STEPS, MEM_HOOK };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static volatile uint64_t sink;

/* ---- x64emu ---- */

static void x_hook(x64emu *m, uint64_t address, unsigned length, void *user) {
  uint64_t rip;
  uint8_t xmm0[16];
  x64emu_reg_read(m, X64EMU_REG_RIP, &rip);
  x64emu_reg_read(m, X64EMU_REG_XMM0, xmm0);
  sink += rip + xmm0[0];
}

static const void *rip_view, *xmm0_view;

static void x_view_hook(x64emu *m, uint64_t address, unsigned length, void *user) {
  uint64_t rip;
  memcpy(&rip, rip_view, 8);
  sink += rip + ((const uint8_t *)xmm0_view)[0];
}

static void x_mem_hook(x64emu *m, int access, uint64_t address, unsigned size, const void *data,
                       void *user) {
  sink += address + size;
}

static x64emu *x_machine(const uint8_t *code, size_t size, uint64_t iterations) {
  x64emu *m;
  uint64_t rip = CODE, data = DATA;
  if (x64emu_open(&m) || x64emu_mem_map(m, CODE, 0x1000, X64EMU_PROT_READ | X64EMU_PROT_EXEC) ||
      x64emu_mem_map(m, DATA, 0x1000, X64EMU_PROT_READ | X64EMU_PROT_WRITE) ||
      x64emu_mem_write(m, CODE, code, size) || x64emu_reg_write(m, X64EMU_REG_RIP, &rip) ||
      x64emu_reg_write(m, X64EMU_REG_RCX, &iterations) || x64emu_reg_write(m, X64EMU_REG_RDX, &data))
    return NULL;
  return m;
}

/* Millions of instructions a second: run (with a hook or not), or steps. */
static double x_rate(uint64_t iterations, enum Kind kind) {
  size_t size = kind == MEM_HOOK ? sizeof memloop : sizeof loop;
  x64emu *m = x_machine(kind == MEM_HOOK ? memloop : loop, size, iterations);
  uint64_t done = CODE + size - 1;
  x64emu_stop s;
  if (kind == INSN_HOOK) x64emu_hook_insn(m, 0, 0, x_hook, NULL, NULL);
  if (kind == VIEW_HOOK) {
    x64emu_reg_view(m, X64EMU_REG_RIP, &rip_view);
    x64emu_reg_view(m, X64EMU_REG_XMM0, &xmm0_view);
    x64emu_hook_insn(m, 0, 0, x_view_hook, NULL, NULL);
  }
  if (kind == MEM_HOOK)
    x64emu_hook_mem(m, X64EMU_MEM_READ | X64EMU_MEM_WRITE, 0, 0, x_mem_hook, NULL, NULL);
  double t0 = now();
  if (kind == STEPS) {
    uint64_t rip = CODE;
    while (rip != done) {
      x64emu_step(m, &s);
      x64emu_reg_read(m, X64EMU_REG_RIP, &rip);
    }
  } else {
    x64emu_run(m, done, 0, &s);
  }
  double t = now() - t0, n = (double)x64emu_icount(m);
  x64emu_close(m);
  return n / t / 1e6;
}

static const char *x_clmul(void) {
  x64emu *m = x_machine(clmul, sizeof clmul, 0);
  x64emu_stop s;
  x64emu_run(m, CODE + sizeof clmul - 1, 0, &s);
  x64emu_close(m);
  return s.reason == X64EMU_STOP_UNTIL ? "runs" : "rejected";
}

/* ---- Unicorn ---- */

static void u_hook(uc_engine *uc, uint64_t address, uint32_t size, void *user) {
  uint64_t rip;
  uint8_t xmm0[16];
  uc_reg_read(uc, UC_X86_REG_RIP, &rip);
  uc_reg_read(uc, UC_X86_REG_XMM0, xmm0);
  sink += rip + xmm0[0];
}

static void u_mem_hook(uc_engine *uc, uc_mem_type type, uint64_t address, int size, int64_t value,
                       void *user) {
  sink += address + (uint64_t)size;
}

static uc_engine *u_machine(const uint8_t *code, size_t size, uint64_t iterations) {
  uc_engine *uc;
  uint64_t data = DATA;
  if (uc_open(UC_ARCH_X86, UC_MODE_64, &uc) || uc_mem_map(uc, CODE, 0x1000, UC_PROT_ALL) ||
      uc_mem_map(uc, DATA, 0x1000, UC_PROT_READ | UC_PROT_WRITE) ||
      uc_mem_write(uc, CODE, code, size) || uc_reg_write(uc, UC_X86_REG_RCX, &iterations) ||
      uc_reg_write(uc, UC_X86_REG_RDX, &data))
    return NULL;
  return uc;
}

static double u_rate(uint64_t iterations, enum Kind kind) {
  size_t size = kind == MEM_HOOK ? sizeof memloop : sizeof loop;
  uc_engine *uc = u_machine(kind == MEM_HOOK ? memloop : loop, size, iterations);
  uint64_t done = CODE + size - 1;
  uc_hook h;
  if (kind == INSN_HOOK || kind == VIEW_HOOK) uc_hook_add(uc, &h, UC_HOOK_CODE, (void *)u_hook, NULL, 1, 0);
  if (kind == MEM_HOOK)
    uc_hook_add(uc, &h, UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, (void *)u_mem_hook, NULL, 1, 0);
  double t0 = now();
  uint64_t n = 0;
  if (kind == STEPS) {
    uint64_t rip = CODE;
    while (rip != done) {
      uc_emu_start(uc, rip, done, 0, 1);
      uc_reg_read(uc, UC_X86_REG_RIP, &rip);
      n++;
    }
  } else {
    uc_emu_start(uc, CODE, done, 0, 0);
    n = iterations * (kind == MEM_HOOK ? MEM_PER_ITER : PER_ITER);
  }
  double t = now() - t0;
  uc_close(uc);
  return n / t / 1e6;
}

static const char *u_clmul(void) {
  uc_engine *uc = u_machine(clmul, sizeof clmul, 0);
  uc_err e = uc_emu_start(uc, CODE, CODE + sizeof clmul - 1, 0, 0);
  uc_close(uc);
  return e == UC_ERR_OK ? "runs" : e == UC_ERR_INSN_INVALID ? "rejected (UC_ERR_INSN_INVALID)" : uc_strerror(e);
}

int main(int argc, char **argv) {
  uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 20000000; /* loop iterations */
  unsigned major, minor;
  uc_version(&major, &minor);
  printf("| guest instructions per second (millions) | x64emu | Unicorn %u.%u | x64emu / Unicorn |\n",
         major, minor);
  printf("|---|---:|---:|---:|\n");
  struct { const char *name; enum Kind kind; uint64_t n; } rows[] = {
      {"run, no hook", NO_HOOK, n},
      {"run, hook on every instruction (reads RIP, XMM0)", INSN_HOOK, n / 4},
      {"the same, x64emu reading them through x64emu_reg_view", VIEW_HOOK, n / 4},
      {"single steps (count = 1)", STEPS, n / 40},
      {"run, hook on every load and store (3 in 4 instructions)", MEM_HOOK, n / 4},
  };
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    double x = x_rate(rows[i].n, rows[i].kind);
    double u = u_rate(rows[i].n, rows[i].kind);
    printf("| %s | %.1f | %.1f | %.2f |\n", rows[i].name, x, u, x / u);
  }
  printf("| PCLMULQDQ | %s | %s | |\n", x_clmul(), u_clmul());
  return (int)(sink & 0);
}
