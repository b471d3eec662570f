/* test_decode_length.c: the lengths the instruction table's shapes give are Capstone's.
 * The decoder takes an instruction's length from the row that fits it and asks Capstone
 * only about bytes no row takes; here random encodings (legacy prefixes, REX, each opcode
 * map, every opcode, random ModRM, SIB, displacement and immediate bytes, some cut short
 * by an unreadable page) are decoded both ways, and the records must be the same: the
 * length, the fault address of a cut-off instruction, the handler and every operand. The
 * reference way asks Capstone (with its documented fix-ups) for every length. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "decoder/decode.h"
#include "interp/fault.h"
#include "test_machine.h"

static uint64_t rng = 0x1e57c0de; /* fixed: the same cases every run */
static unsigned next_random(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (unsigned)(rng >> 11);
}

/* An encoding of up to 15 bytes: prefixes, REX, an opcode map and opcode, random rest. */
static void random_encoding(uint8_t out[15]) {
  static const uint8_t prefixes[] = {0x66, 0x67, 0xf0, 0xf2, 0xf3, 0x2e, 0x3e, 0x64, 0x65, 0x26, 0x36};
  unsigned n = 0;
  for (unsigned k = next_random() % 4; k > 0; k--) {
    unsigned r = next_random() % 16;
    out[n++] = r < sizeof prefixes ? prefixes[r] : 0x66; /* 66 often: it changes most */
  }
  if (next_random() % 2) out[n++] = (uint8_t)(0x40 | (next_random() & 15));
  switch (next_random() % 4) {
  case 1: out[n++] = 0x0f; break;
  case 2: out[n++] = 0x0f; out[n++] = 0x38; break;
  case 3: out[n++] = 0x0f; out[n++] = 0x3a; break;
  default: break;
  }
  while (n < 15) out[n++] = (uint8_t)next_random();
}

static bool same_record(const Insn *a, const Insn *b) {
  return a->fn == b->fn && a->rip == b->rip && a->disp == b->disp && a->imm == b->imm &&
         a->len == b->len && a->osz == b->osz && a->reg == b->reg && a->rm == b->rm &&
         a->base == b->base && a->index == b->index && a->scale == b->scale && a->seg == b->seg &&
         a->mem == b->mem && a->addr32 == b->addr32 && a->ends == b->ends && a->lock == b->lock &&
         a->stack == b->stack && a->rep == b->rep && a->op == b->op && a->aux == b->aux &&
         a->flags_use == b->flags_use && a->flags_def == b->flags_def;
}

static void table_lengths_are_capstones(void **state) {
  (void)state;
  Machine *m = test_machine();
  fault_install(); /* cmocka installs its own SIGSEGV handler around each test */
  /* Two pages, the second unreadable: an encoding placed near the end of the first is
   * cut off there, as code at the end of a mapping. */
  uint8_t *page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(page != MAP_FAILED);
  assert_int_equal(mprotect(page + 4096, 4096, PROT_NONE), 0);
  const char *env = getenv("X64EMU_DIFF_ITER");
  unsigned cases = env ? (unsigned)strtoul(env, NULL, 0) : 400000, differ = 0, decoded = 0;
  for (unsigned i = 0; i < cases; i++) {
    uint8_t bytes[15];
    random_encoding(bytes);
    unsigned room = next_random() % 8 == 0 ? 1 + next_random() % 14 : 15;
    uint8_t *at = page + 4096 - room;
    memcpy(at, bytes, room);
    Insn fast, reference;
    uint64_t fault_fast = 0, fault_reference = 0;
    int n = decode_insn(&m->dec, (uint64_t)(uintptr_t)at, &fast, &fault_fast);
    m->dec.capstone_lengths = true;
    int r = decode_insn(&m->dec, (uint64_t)(uintptr_t)at, &reference, &fault_reference);
    m->dec.capstone_lengths = false;
    decoded += n > 0;
    bool same = n == r && (n != 0 || fault_fast == fault_reference) && (n == 0 || same_record(&fast, &reference));
    if (!same && differ++ < 20) {
      printf("differ:");
      for (unsigned k = 0; k < room; k++) printf(" %02x", bytes[k]);
      printf(" (%u readable): table %d (len %u, fault at +%lld), Capstone %d (len %u, fault at +%lld)\n",
             room, n, fast.len, n ? 0 : (long long)(fault_fast - (uint64_t)(uintptr_t)at), r,
             reference.len, r ? 0 : (long long)(fault_reference - (uint64_t)(uintptr_t)at));
    }
  }
  printf("%u encodings, %u decoded to an instruction, %u differ\n", cases, decoded, differ);
  munmap(page, 8192);
  assert_int_equal(differ, 0);
  assert_true(decoded > cases / 4); /* the cases reach the table, not only #UD */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(table_lengths_are_capstones),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
