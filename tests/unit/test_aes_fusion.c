/* test_aes_fusion.c: what the block decoder fuses of AES code (src/decoder/fuse.c),
 * through each host crypto tier, with a fixed seed (X64EMU_TEST_SEED, test_seed.h).
 * Runs of register-form AESENCs against the host CPU: random runs of 1 to 12 AESENCs on
 * random registers (a destination may be a later key, a key a later destination) among
 * other instructions, all 16 XMM registers compared after each. OpenSSL's one-block
 * round loop (op_aesenc_loop, op_aesdec_loop) against the host CPU on random registers,
 * keys and round counts; and, where its key load faults part way, against the same
 * instructions run one at a time: the same registers, flags, fault and count. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "sse_harness.h"
#include "crypto_guest.h"
#include "decoder/block.h"
#include "interp/ops_crypto.h"

enum { CODE_SIZE = 4096, MAX_RUN = 12 };

/* movdqu xmmN, [rdi + 16N] (F3 (REX) 0F 6F /r, disp8 or disp32), and the store 0F 7F. */
static unsigned emit_xmm_access(uint8_t *p, unsigned reg, bool store) {
  unsigned n = 0;
  p[n++] = 0xF3;
  if (reg >= 8) p[n++] = 0x44; /* REX.R */
  p[n++] = 0x0F;
  p[n++] = store ? 0x7F : 0x6F;
  p[n++] = (uint8_t)(0x87 | (reg & 7) << 3); /* mod 10, rm RDI: [rdi + disp32] */
  uint32_t disp = 16 * reg;
  memcpy(p + n, &disp, 4);
  return n + 4;
}

/* aesenc xmm(d), xmm(k): 66 (REX) 0F 38 DC /r. */
static unsigned emit_aesenc(uint8_t *p, unsigned d, unsigned k) {
  unsigned n = 0;
  p[n++] = 0x66;
  if (d >= 8 || k >= 8) p[n++] = (uint8_t)(0x40 | (d >= 8) << 2 | (k >= 8));
  p[n++] = 0x0F;
  p[n++] = 0x38;
  p[n++] = 0xDC;
  p[n++] = (uint8_t)(0xC0 | (d & 7) << 3 | (k & 7));
  return n;
}

/* A function of one argument (the 16 registers' image at rdi): load all, the runs, store
 * all, return. Runs are split by `pxor xmm0, xmm0`-free fillers (`add eax, 1`), so that
 * a block holds several runs of various lengths. Returns where the first AESENC is. */
static unsigned generate(uint8_t *code, uint64_t *rng, unsigned *aesencs) {
  unsigned n = 0, first = 0;
  *aesencs = 0;
  for (unsigned r = 0; r < 16; r++) n += emit_xmm_access(code + n, r, false);
  unsigned runs = 1 + test_random(rng) % 4;
  for (unsigned i = 0; i < runs; i++) {
    unsigned len = 1 + test_random(rng) % MAX_RUN;
    for (unsigned j = 0; j < len; j++) {
      if (!*aesencs) first = n;
      n += emit_aesenc(code + n, test_random(rng) % 16, test_random(rng) % 16);
      ++*aesencs;
    }
    code[n++] = 0x83; /* add eax, 1 */
    code[n++] = 0xC0;
    code[n++] = 0x01;
  }
  for (unsigned r = 0; r < 16; r++) n += emit_xmm_access(code + n, r, true);
  code[n++] = 0xC3;
  assert_true(n < CODE_SIZE);
  return first;
}

static bool is_fused(Handler fn) {
#define SAME(n) fn == op_aesenc_run##n || fn == op_aesenc_run##n##_portable ||
  return AESENC_RUNS(SAME) false;
#undef SAME
}

static void runs_agree_with_the_cpu(void **state) {
  uint8_t *code = mmap(NULL, CODE_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(code != MAP_FAILED);
  static const uint8_t aesenc[] = {0x66, 0x0F, 0x38, 0xDC, 0xC1};
  assert_true(decodes(aesenc, sizeof aesenc));
  unsigned cases = test_iterations(3000), fused = 0;
  for (unsigned t = 0; t < n_tiers; t++) {
    use_tier(t);
    uint64_t rng = test_seed_from(NULL, 0xae5f05e) + t;
    for (unsigned i = 0; i < cases; i++) {
      unsigned aesencs;
      memset(code, 0xCC, CODE_SIZE);
      unsigned first = generate(code, &rng, &aesencs);
      Xmm start[16], native[16], emulated[16];
      for (unsigned r = 0; r < 16; r++)
        for (unsigned b = 0; b < 2; b++) start[r].q[b] = test_random(&rng);
      memcpy(native, start, sizeof start);
      memcpy(emulated, start, sizeof start);
      ((void (*)(Xmm *))(void *)code)(native);
      block_flush_all(&test_machine()->code); /* new code at the same address */
      interpret(code, P(emulated), 0, 0, 0, 0);
      if (memcmp(native, emulated, sizeof native) != 0)
        fail_msg("%s tier, case %u (%u AESENCs): the registers differ", tier_name, i, aesencs);
      const Block *b = block_get(&test_machine()->code, P(code));
      for (unsigned k = 0; k < b->n; k++)
        if (b->insns[k].rip >= P(code + first) && is_fused(b->insns[k].fn)) {
          fused++;
          break;
        }
    }
  }
  munmap(code, CODE_SIZE);
  print_message("%u cases, %u with fused runs\n", cases * n_tiers, fused);
  assert_true(fused > cases / 2); /* the runs were fused, so the test tested them */
}

/* ---- the round loop ---- */

enum { KEYS = 32, LOOP_IMAGE = 16 * 16 + 3 * 8 }; /* XMM0..15, then RAX, RDX, RFLAGS */

/* The loop on random registers: xmm(s) the state, xmm(k) the round key, EAX the count
 * (RAX's image), RDX the key pointer (RSI on entry), CF set or clear; the end stores
 * every register and the flags to the image at RDI and runs `ret` (native) or `ud2` (the
 * emulated run stops there, with no exact stop asked, so that the fused record runs its
 * passes). *end is where that ret is; returns the number of instructions outside the
 * loop. */
static unsigned generate_loop(uint8_t *code, uint64_t *rng, bool decrypt, uint8_t **end) {
  unsigned n = 0;
  for (unsigned r = 0; r < 16; r++) n += emit_xmm_access(code + n, r, false);
  const uint8_t setup[] = {0x8B, 0x87, 0x00, 0x01, 0x00, 0x00, /* mov eax, [rdi + 256] */
                           0x48, 0x89, 0xF2};                   /* mov rdx, rsi */
  memcpy(code + n, setup, sizeof setup);
  n += sizeof setup;
  code[n++] = test_random(rng) & 1 ? 0xF9 : 0xF8; /* stc or clc: the CF that DEC keeps */
  unsigned s = test_random(rng) % 16, k = (s + 1 + test_random(rng) % 15) % 16;
  unsigned loop = n;
  n += emit_aesenc(code + n, s, k);
  if (decrypt) code[n - 2] = 0xDE;                                        /* AESDEC */
  code[n++] = 0xFF, code[n++] = 0xC8;                                     /* dec eax */
  if (k >= 8) code[n++] = 0x44;                         /* movups xmm(k), [rdx] */
  code[n++] = 0x0F, code[n++] = 0x10, code[n++] = (uint8_t)(0x02 | (k & 7) << 3);
  code[n++] = 0x48, code[n++] = 0x8D, code[n++] = 0x52, code[n++] = 0x10; /* lea rdx, [rdx + 16] */
  code[n] = 0x75, code[n + 1] = (uint8_t)(loop - (n + 2)), n += 2;       /* jnz loop */
  for (unsigned r = 0; r < 16; r++) n += emit_xmm_access(code + n, r, true);
  const uint8_t tail[] = {0x48, 0x89, 0x87, 0x00, 0x01, 0x00, 0x00, /* mov [rdi + 256], rax */
                          0x48, 0x89, 0x97, 0x08, 0x01, 0x00, 0x00, /* mov [rdi + 264], rdx */
                          0x9C, 0x58,                               /* pushf; pop rax */
                          0x48, 0x89, 0x87, 0x10, 0x01, 0x00, 0x00, /* mov [rdi + 272], rax */
                          0xC3, 0xCC};                              /* ret, or ud2 (0F 0B) */
  memcpy(code + n, tail, sizeof tail);
  *end = code + n + sizeof tail - 2;
  return 16 + 3 + 16 + 5;
}

/* Whether a decoded block of code is the fused loop. */
static bool loop_is_fused(const uint8_t *code, unsigned size) {
  for (uint64_t a = P(code); a < P(code) + size; a++) {
    const Block *b = block_get(&test_machine()->code, a);
    /* after the code check of a block from writable memory (op_code_check) */
    unsigned check = b && b->insns[0].fn == op_code_check;
    Handler f = b && b->n == check + 5 ? b->insns[check].fn : NULL;
    if (f == op_aesenc_loop || f == op_aesenc_loop_portable || f == op_aesdec_loop ||
        f == op_aesdec_loop_portable)
      return true;
  }
  return false;
}

/* Runs code from its start with RDI = image, RSI = keys, up to the UD2 at ud2 (exactly
 * when `precise`, else with no stop asked); returns the stop. */
static StopReason run_loop(Cpu *cpu, uint8_t *code, uint8_t *ud2, void *image, void *keys,
                           bool precise) {
  static uint64_t stack[64] __attribute__((aligned(16)));
  cpu_init(cpu, test_machine());
  cpu->r[RSP] = P(&stack[64]); /* PUSHF */
  cpu->r[RDI] = P(image);
  cpu->r[RSI] = P(keys);
  cpu->rip = P(code);
  block_flush_all(&test_machine()->code);
  return cpu_run(cpu, precise ? P(ud2) : 0);
}

static void round_loops_agree_with_the_cpu(void **state) {
  enum { PAGE = 4096 };
  harness_begin(); /* the interpreter's landing for faults in guest memory */
  uint8_t *code = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  uint8_t *keys_area =
      mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(code != MAP_FAILED && keys_area != MAP_FAILED);
  assert_int_equal(mprotect(keys_area + PAGE, PAGE, PROT_NONE), 0); /* the keys end there */
  uint8_t *keys = keys_area + PAGE - KEYS * 16;
  static Cpu cpu;
  unsigned cases = test_iterations(1000), fused = 0, faulted = 0;
  for (unsigned t = 0; t < n_tiers; t++) {
    use_tier(t);
    uint64_t rng = test_seed_from(NULL, 0x100b5) + t;
    for (unsigned i = 0; i < cases; i++) {
      bool decrypt = test_random(&rng) & 1;
      unsigned rounds = 1 + test_random(&rng) % (KEYS - 1);
      memset(code, 0xCC, 2 * PAGE);
      uint8_t *ret;
      unsigned outside = generate_loop(code, &rng, decrypt, &ret);
      for (unsigned b = 0; b < KEYS * 16; b++) keys[b] = (uint8_t)test_random(&rng);
      uint64_t start[LOOP_IMAGE / 8], native[LOOP_IMAGE / 8], emulated[LOOP_IMAGE / 8];
      for (unsigned w = 0; w < LOOP_IMAGE / 8; w++) start[w] = test_random(&rng);
      start[32] = rounds;
      memcpy(native, start, sizeof start);
      memcpy(emulated, start, sizeof start);
      ret[0] = 0xC3;
      ((void (*)(void *, void *))(void *)code)(native, keys + 16);
      ret[0] = 0x0F, ret[1] = 0x0B; /* ud2 */
      assert_int_equal(run_loop(&cpu, code, ret, emulated, keys + 16, false), STOP_FAULT);
      assert_int_equal(cpu.fault.sig, SIGILL);
      assert_true(cpu.rip == P(ret));
      native[34] &= 0x8D5, emulated[34] &= 0x8D5; /* the arithmetic flags */
      if (memcmp(native, emulated, sizeof native) != 0)
        fail_msg("%s tier, case %u (%s, %u rounds): the registers differ", tier_name, i,
                 decrypt ? "AESDEC" : "AESENC", rounds);
      if (cpu.icount != outside + 5 * rounds)
        fail_msg("case %u: %llu instructions counted, %u run", i,
                 (unsigned long long)cpu.icount, outside + 5 * rounds);
      fused += loop_is_fused(code, (unsigned)(ret - code));

      /* The keys cut short: MOVUPS faults in pass `cut`, the state as the instructions
       * one at a time leave it. */
      unsigned cut = 1 + test_random(&rng) % rounds;
      void *short_keys = keys_area + PAGE - 16 * cut;
      if (cut == rounds) continue; /* the last pass's load is in bounds */
      memcpy(emulated, start, sizeof start);
      assert_int_equal(run_loop(&cpu, code, ret, emulated, short_keys, true), STOP_FAULT);
      Cpu one_cpu = cpu;
      memcpy(emulated, start, sizeof start);
      assert_int_equal(run_loop(&cpu, code, ret, emulated, short_keys, false), STOP_FAULT);
      faulted++;
      assert_int_equal(cpu.fault.sig, SIGSEGV);
      assert_int_equal(cpu.fault.addr, P(keys_area + PAGE));
      assert_true(cpu.rip == one_cpu.rip && cpu.icount == one_cpu.icount);
      assert_memory_equal(cpu.r, one_cpu.r, sizeof cpu.r);
      assert_memory_equal(cpu.xmm, one_cpu.xmm, sizeof cpu.xmm);
      assert_int_equal(flags_get(&cpu) & 0x8D5, flags_get(&one_cpu) & 0x8D5);
    }
  }
  munmap(code, 2 * PAGE);
  munmap(keys_area, 2 * PAGE);
  print_message("%u loops, %u fused, %u cut short by a fault\n", cases * n_tiers, fused, faulted);
  assert_true(fused == cases * n_tiers && faulted > cases / 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(runs_agree_with_the_cpu),
                                     cmocka_unit_test(round_loops_agree_with_the_cpu)};
  return cmocka_run_group_tests(tests, setup, teardown);
}
