/* test_table.c: the instruction table's rows are well formed, none is hidden behind an
 * earlier row, and the decoder picks the row the SDM names for encodings where the
 * order of rows decides (special cases before the general row they narrow). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "decoder/decode.h"
#include "decoder/table.h"
#include "interp/ops_int.h"
#include "interp/ops_sse4.h"
#include "interp/ops_x87.h"
#include "test_machine.h"

static const char *const table_names[TABLES] = {"one-byte", "0F", "0F 38", "0F 3A"};

/* Every row: its patterns name only bits they test, ModRM-less rows have no ModRM
 * pattern and a handler in reg (mem is not used), bit fields exist, LOCK only where there is a memory form. */
static void rows_are_well_formed(void **state) {
  (void)state;
  for (unsigned t = 0; t < TABLES; t++) {
    unsigned n;
    const Form *rows = form_rows(t, &n);
    assert_true(n > 0);
    for (unsigned i = 0; i < n; i++) {
      const Form *f = &rows[i];
      char where[64];
      snprintf(where, sizeof where, "%s row %u (opcode %02x)", table_names[t], i, f->opcode);
      bool modrm = shape_has_modrm(f->shape);
      if ((f->opcode & ~f->opcode_mask) || (f->modrm & ~f->modrm_mask) || !f->prefixes ||
          f->shape >= SHAPES || (!f->reg && !f->mem) || (!modrm && (f->modrm_mask || !f->reg)) ||
          ((f->attrs & (A_OPC | A_EXT)) && !f->op) || ((f->attrs & A_OPC) && (f->attrs & A_EXT)) ||
          ((f->attrs & A_LOCK) && !f->mem) || ((f->attrs & A_W0) && (f->attrs & A_W1)) ||
          ((f->attrs & A_COND) && f->use) || (f->use & ~FL_ALL) || (f->def & ~FL_ALL))
        fail_msg("%s is malformed", where);
    }
  }
}

/* Whether every encoding row b fits, row a fits too (with a handler wherever b has one). */
static bool covers(const Form *a, const Form *b) {
  if ((a->opcode_mask & ~b->opcode_mask) || ((b->opcode ^ a->opcode) & a->opcode_mask)) return false;
  if ((a->modrm_mask & ~b->modrm_mask) || ((b->modrm ^ a->modrm) & a->modrm_mask)) return false;
  if (b->prefixes & ~a->prefixes) return false;
  if ((b->reg && !a->reg) || (b->mem && !a->mem)) return false;
  if ((a->attrs & A_VEX) != (b->attrs & A_VEX)) return false; /* VEX rows fit VEX only */
  unsigned conditions = A_W0 | A_W1 | A_O16 | A_NO_O16 | A_NO_REXB | A_NO_REXR | A_L0 | A_L1 | A_NO_VVVV;
  if ((a->attrs & conditions) & ~(b->attrs & conditions)) return false;
  if ((a->attrs & A_LOCK) != (b->attrs & A_LOCK) && (b->attrs & A_LOCK)) return false;
  return a->feature == BASE || a->feature == b->feature;
}

/* A row that an earlier one covers never fits anything: a mistake in the table. */
static void no_row_is_hidden(void **state) {
  (void)state;
  for (unsigned t = 0; t < TABLES; t++) {
    unsigned n;
    const Form *rows = form_rows(t, &n);
    for (unsigned j = 0; j < n; j++)
      for (unsigned i = 0; i < j; i++)
        if (shape_has_modrm(rows[i].shape) == shape_has_modrm(rows[j].shape) && covers(&rows[i], &rows[j]))
          fail_msg("%s row %u (opcode %02x) is hidden by row %u", table_names[t], j, rows[j].opcode, i);
  }
}

typedef struct Pick {
  const char *what;
  uint8_t bytes[15];
  unsigned n;
  Handler fn; /* op_ud: #UD as the CPU defines it; NULL: not implemented */
  uint8_t op, aux, osz;
} Pick;

/* Encodings (Intel SDM, vol. 2) where a special row precedes the general one. */
static const Pick picks[] = {
    {"pause (F3 90)", {0xf3, 0x90}, 2, op_pause, 0, 0, 0},
    {"pause with REX.B (F3 41 90)", {0xf3, 0x41, 0x90}, 3, op_pause, 0, 0, 0},
    {"nop (90)", {0x90}, 1, op_nop, 0, 0, 0},
    {"xchg r8d, eax (41 90)", {0x41, 0x90}, 2, op_xchg, 0, 0, 4},
    {"adc eax, ecx (11 C8)", {0x11, 0xc8}, 2, op_alu_rm_r, ALU_ADC, 0, 4},
    {"sbb al, 1 (1C 01)", {0x1c, 0x01}, 2, op_alu_rm_imm, ALU_SBB, 0, 1},
    {"cmp byte fs:[rax], 1 (64 80 38 01)", {0x64, 0x80, 0x38, 0x01}, 4, op_alu_rm_imm, ALU_CMP, 0, 1},
    {"lock add [rax], ecx (F0 01 08)", {0xf0, 0x01, 0x08}, 3, op_alu_rm_r, ALU_ADD, 0, 4},
    {"lock add eax, ecx: #UD (F0 01 C8)", {0xf0, 0x01, 0xc8}, 3, op_ud, 0, 0, 0},
    {"lock cmp [rax], ecx: #UD (F0 39 08)", {0xf0, 0x39, 0x08}, 3, op_ud, 0, 0, 0},
    {"lock mov [rax], ecx: #UD (F0 89 08)", {0xf0, 0x89, 0x08}, 3, op_ud, 0, 0, 0},
    {"lock pxor xmm0, xmm1: #UD (F0 66 0F EF C1)", {0xf0, 0x66, 0x0f, 0xef, 0xc1}, 5, op_ud, 0, 0, 0},
    {"lock bt [rax], 1: #UD (F0 0F BA 20 01)", {0xf0, 0x0f, 0xba, 0x20, 0x01}, 5, op_ud, 0, 0, 0},
    {"lock bts [rax], 1 (F0 0F BA 28 01)", {0xf0, 0x0f, 0xba, 0x28, 0x01}, 5, op_bt_rm_imm, 1, 0, 4},
    {"btc eax, 1 (0F BA F8 01)", {0x0f, 0xba, 0xf8, 0x01}, 4, op_bt_rm_imm, 3, 0, 4},
    {"movsxd rax, fs:[rcx] (64 48 63 01)", {0x64, 0x48, 0x63, 0x01}, 4, op_movsx, 0, 4, 8},
    {"lzcnt eax, ecx (F3 0F BD C1)", {0xf3, 0x0f, 0xbd, 0xc1}, 4, op_lzcnt, 0, 0, 4},
    {"bsr eax, ecx (0F BD C1)", {0x0f, 0xbd, 0xc1}, 3, op_bsr, 0, 0, 4},
    {"crc32 eax, cx (66 F2 0F 38 F1 C1)", {0x66, 0xf2, 0x0f, 0x38, 0xf1, 0xc1}, 6, op_crc32, 0, 2, 4},
    {"crc32 rax, rcx (F2 48 0F 38 F1 C1)", {0xf2, 0x48, 0x0f, 0x38, 0xf1, 0xc1}, 6, op_crc32, 0, 8, 8},
    {"movbe eax, [rcx] (0F 38 F0 01)", {0x0f, 0x38, 0xf0, 0x01}, 4, op_movbe, 0, 0, 4},
    {"jp rel8: condition 10 (7A 00)", {0x7a, 0x00}, 2, op_jcc, 10, 0, 0},
    {"loope (E1 00)", {0xe1, 0x00}, 2, op_loop, 1, 0, 0},
    {"clflush [rax] (0F AE 38)", {0x0f, 0xae, 0x38}, 3, op_clflush, 0, 0, 4},
    {"sfence (0F AE F8)", {0x0f, 0xae, 0xf8}, 3, op_sfence, 0, 0, 4},
    {"movss xmm0, xmm1 (F3 0F 10 C1): the last F2/F3 wins", {0xf2, 0xf3, 0x0f, 0x10, 0xc1}, 5, op_movss, 0, 0, 16},
    {"fucompp (DA E9)", {0xda, 0xe9}, 2, op_x87_fcompp, 1, 2, 0},
    {"fcomp st(1) alias (DE D1): ST(0) against ST(i)", {0xde, 0xd1}, 2, op_x87_arith_st0_sti, 3, 0, 0},
    {"fsubr st(1), st(0) (DC E1)", {0xdc, 0xe1}, 2, op_x87_arith_sti_st0, 5, 0, 0},
    {"fldenv with 66: the 14-byte layout (66 D9 20)", {0x66, 0xd9, 0x20}, 3, op_x87_fldenv, 0, 0, 2},
};

static void rows_are_tried_in_order(void **state) {
  (void)state;
  Machine *m = test_machine();
  for (size_t i = 0; i < sizeof picks / sizeof *picks; i++) {
    const Pick *p = &picks[i];
    Insn in;
    uint64_t fault_at = 0;
    int n = decode_insn(&m->dec, (uint64_t)(uintptr_t)p->bytes, &in, &fault_at);
    if (!p->fn || p->fn == op_ud) {
      if (n != -1 || in.fn != (p->fn ? op_ud : op_undefined))
        fail_msg("%s: decoded, or #UD of the other kind", p->what);
      continue;
    }
    if (n != (int)p->n || in.op != p->op || in.aux != p->aux || in.osz != p->osz)
      fail_msg("%s: length %d op %u aux %u osz %u", p->what, n, in.op, in.aux, in.osz);
    /* The fast pickers may replace the handler; these rows have none that apply. */
    if (in.fn != p->fn) fail_msg("%s: another handler", p->what);
  }
}

/* The table's watched copy (access.h) is the same rows, every handler and picker the
 * copy compiled to report memory accesses: a handler left out of that copy would run
 * unwatched under a memory hook, its accesses unreported. */
static void the_watched_table_is_the_same_rows_with_watched_handlers(void **state) {
  (void)state;
  for (unsigned t = 0; t < TABLES; t++) {
    unsigned n, wn;
    const Form *rows = form_rows(t, &n), *watched = watched_form_rows(t, &wn);
    assert_int_equal(n, wn);
    for (unsigned i = 0; i < n; i++) {
      const Form *f = &rows[i], *w = &watched[i];
      size_t columns = offsetof(Form, feature);
      if (memcmp((const char *)f + columns, (const char *)w + columns, sizeof *f - columns) ||
          !f->reg != !w->reg || !f->mem != !w->mem || !f->fast != !w->fast ||
          (f->reg && f->reg == w->reg) || (f->mem && f->mem == w->mem) || (f->fast && f->fast == w->fast))
        fail_msg("%s row %u (opcode %02x): not its watched twin", table_names[t], i, f->opcode);
    }
  }
  /* Decoding while watching picks the watched handler, the fast pickers' ones too. */
  static const struct {
    const char *what;
    uint8_t bytes[15];
  } fast[] = {
      {"mov rax, [rbx] (48 8B 03)", {0x48, 0x8b, 0x03}},
      {"add [rbx], eax (01 03)", {0x01, 0x03}},
      {"movzx eax, byte [rbx] (0F B6 03)", {0x0f, 0xb6, 0x03}},
      {"lea rax, [rax + rbx] (48 8D 04 18)", {0x48, 0x8d, 0x04, 0x18}},
      {"aesenc xmm0, [rbx] (66 0F 38 DC 03)", {0x66, 0x0f, 0x38, 0xdc, 0x03}},
      {"push rax (50)", {0x50}},
  };
  Machine *m = test_machine();
  for (size_t i = 0; i < sizeof picks / sizeof *picks + sizeof fast / sizeof *fast; i++) {
    bool pick = i < sizeof picks / sizeof *picks;
    const uint8_t *bytes = pick ? picks[i].bytes : fast[i - sizeof picks / sizeof *picks].bytes;
    const char *what = pick ? picks[i].what : fast[i - sizeof picks / sizeof *picks].what;
    if (pick && (!picks[i].fn || picks[i].fn == op_ud)) continue;
    Insn plain, watched;
    uint64_t fault_at = 0;
    assert_true(decode_insn(&m->dec, (uint64_t)(uintptr_t)bytes, &plain, &fault_at) > 0);
    m->dec.watch_memory = true;
    decode_insn(&m->dec, (uint64_t)(uintptr_t)bytes, &watched, &fault_at);
    m->dec.watch_memory = false;
    /* An atomic instruction keeps the plain handler, on a copy of its operand: the
     * op_atomic record before it reports the guest's accesses (atomic.c). */
    if (plain.lock) {
      if (watched.fn != plain.fn) fail_msg("%s: atomic, but not the plain handler", what);
    } else if (watched.fn == plain.fn) {
      fail_msg("%s: the plain handler while watching", what);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(rows_are_well_formed),
      cmocka_unit_test(no_row_is_hidden),
      cmocka_unit_test(rows_are_tried_in_order),
      cmocka_unit_test(the_watched_table_is_the_same_rows_with_watched_handlers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
