/* test_aes_fusion.c: runs of register-form AESENCs, which the block decoder fuses into
 * one record (src/decoder/fuse.c), against the host CPU: random runs of 1 to 12 AESENCs
 * on random registers (a destination may be a later key, a key a later destination)
 * among other instructions, all 16 XMM registers compared after each, through each host
 * crypto tier. Fixed seed (X64EMU_TEST_SEED, test_seed.h). */
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

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(runs_agree_with_the_cpu)};
  return cmocka_run_group_tests(tests, setup, teardown);
}
