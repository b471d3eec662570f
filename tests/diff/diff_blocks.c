/* diff_blocks.c: differential test of whole decoded blocks: random straight-line sequences
 * of integer instructions (seq_gen.c) run on the host CPU and through cpu_run, which
 * decodes them as one block, so the per-block flag liveness and the specialised handlers
 * act together. Registers, memory and the flags the SDM defines at the end must agree.
 *
 * With --watch-memory the blocks run the handlers' copy that reports every access to a
 * memory hook (access.h), which checks that each access's bytes are those in memory.
 *
 * Usage: diff_blocks [--iter N] [--seed S] [--case I] [--max-reports N] [--verbose]
 *                    [--watch-memory]
 * Environment: X64EMU_DIFF_ITER (sequences, default 10000), X64EMU_DIFF_SEED (a number or
 * "random"; default a fixed seed; always printed), X64EMU_TEST_HOST_VENDOR (cpu_model.h).
 * Sequence I depends only on the seed and I: `--case I` reproduces it alone. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "decoder/block.h"
#include "decoder/decode.h"
#include "interp/flags.h"
#include "interp/machine.h"
#include "interp/run.h"
#include "harness.h"
#include "model.h"
#include "test_seed.h"
#include "seq.h"
#include "test_machine.h"

static Outcome nat_out, emu_out;

/* ---- the memory hook of --watch-memory ---- */

static uint64_t accesses, accesses_unlike_memory;

static void check_access(void *embedder, bool write, uint64_t address, unsigned size,
                         const void *bytes, void *user) {
  accesses++;
  if (memcmp(bytes, (const void *)(uintptr_t)address, size) != 0) accesses_unlike_memory++;
}

/* ---- the emulated run ---- */

static void run_emulated(const Regs *in, Outcome *o) {
  memcpy(data, data_init, DATA_SIZE);
  block_flush_all(&test_machine()->code); /* the code page holds new bytes at the same addresses */
  cpu_init(&emu_cpu, test_machine());
  memcpy(emu_cpu.r, in->r, sizeof in->r);
  flags_set(&emu_cpu, in->rflags);
  emu_cpu.fs_base = fs_base;
  emu_cpu.gs_base = gs_base;
  emu_cpu.events = 0;
  emu_cpu.rip = (uint64_t)(uintptr_t)code_page;
  emu_active = 1;
  StopReason why = cpu_run(&emu_cpu, seq_stop_rip());
  emu_active = 0;
  o->sig = why == STOP_FAULT ? emu_cpu.fault.sig : why == STOP_ADDRESS ? 0 : -1;
  o->code = 0;
  memcpy(o->regs.r, emu_cpu.r, sizeof o->regs.r);
  o->regs.rflags = flags_get(&emu_cpu);
  memcpy(o->mem, data, DATA_SIZE);
}

/* Runs the first n instructions of q both ways; returns the first difference, or NULL. */
static const char *run_prefix(const Seq *q, unsigned n) {
  seq_place(q, n);
  run_native(&q->in, &nat_out);
  run_emulated(&q->in, &emu_out);
  if (nat_out.sig) return "native trap (a generator bug)";
  if (emu_out.sig) return "the interpreter raised a signal";
  if (emu_cpu.rip != seq_stop_rip()) return "the interpreter stopped elsewhere";
  uint64_t rax_undefined = n == q->n ? q->rax_undefined : 0;
  for (int i = 0; i < 16; i++)
    if (i != 4 && ((nat_out.regs.r[i] ^ emu_out.regs.r[i]) & ~(i == 0 ? rax_undefined : 0)))
      return "registers differ";
  unsigned defined = n ? q->insn[n - 1].defined : ARITH6;
  if ((nat_out.regs.rflags ^ emu_out.regs.rflags) & (defined | FL_DF)) return "flags differ";
  if (memcmp(nat_out.mem, emu_out.mem, DATA_SIZE)) return "memory differs";
  return NULL;
}

/* ---- reporting ---- */

static const char *const cc_names[16] = {"O", "NO", "B", "AE", "E", "NE", "BE", "A",
                                         "S", "NS", "P", "NP", "L", "GE", "LE", "G"};

static unsigned max_reports = 3;
static const char *program = "diff_blocks";
static uint64_t iterations;

static void defined_letters(unsigned defined, char *out) {
  static const struct { unsigned bit; char c; } names[6] = {
      {FL_OF, 'o'}, {FL_SF, 's'}, {FL_ZF, 'z'}, {FL_AF, 'a'}, {FL_PF, 'p'}, {FL_CF, 'c'}};
  for (int i = 0; i < 6; i++) *out++ = defined & names[i].bit ? names[i].c : '-';
  *out = 0;
}

static void print_listing(const Seq *q, unsigned n) {
  for (unsigned i = 0; i < n; i++) {
    const SeqInsn *s = &q->insn[i];
    char text[96], bytes[48] = "", def[8];
    decode_text(&test_machine()->dec, (uint64_t)(uintptr_t)code_page + s->at, q->code + s->at, s->len, text, sizeof text);
    for (unsigned b = 0, at = 0; b < s->len && at + 4 < sizeof bytes; b++)
      at += (unsigned)snprintf(bytes + at, sizeof bytes - at, "%02x", q->code[s->at + b]);
    defined_letters(s->defined, def);
    printf("  %2u +%-4u %-30s %-36s defined after: %s  (%s)\n", i + 1, s->at, bytes, text, def,
           s->f ? s->f->name : "set-up");
  }
}

static void print_differences(const Seq *q, unsigned n) {
  uint64_t rax_undefined = n == q->n ? q->rax_undefined : 0;
  if (nat_out.sig || emu_out.sig)
    printf("    trap: native signal %d, emulated signal %d\n", nat_out.sig, emu_out.sig);
  if (emu_cpu.rip != seq_stop_rip())
    printf("    interpreter stopped at +%#" PRIx64 "\n", emu_cpu.rip - (uint64_t)(uintptr_t)code_page);
  for (int i = 0; i < 16; i++)
    if (i != 4 && ((nat_out.regs.r[i] ^ emu_out.regs.r[i]) & ~(i == 0 ? rax_undefined : 0)))
      printf("    %s: native %016" PRIx64 " emulated %016" PRIx64 "\n", reg_names[i], nat_out.regs.r[i],
             emu_out.regs.r[i]);
  unsigned defined = n ? q->insn[n - 1].defined : ARITH6;
  char a[8], b[8];
  flag_letters(nat_out.regs.rflags, defined | FL_DF, a);
  flag_letters(emu_out.regs.rflags, defined | FL_DF, b);
  if (strcmp(a, b)) printf("    flags (- = undefined): native %s emulated %s\n", a, b);
  unsigned shown = 0;
  for (unsigned i = 0; i < DATA_SIZE && shown < 16; i++)
    if (nat_out.mem[i] != emu_out.mem[i]) {
      printf("    data+%#x: was %02x native %02x emulated %02x\n", i, data_init[i], nat_out.mem[i],
             emu_out.mem[i]);
      shown++;
    }
}

static void report(const Seq *q, unsigned index, uint64_t seed, const char *why) {
  printf("FAIL sequence %u: %s\n", index, why);
  printf("  code at %p, data at %p, stop at +%#x\n", (void *)code_page, (void *)data, SEQ_STOP_OFFSET);
  print_listing(q, q->n);
  printf("  in: ");
  for (int i = 0; i < 16; i++) {
    if (i == 4) continue;
    printf("%s=%" PRIx64 "%s", reg_names[i], q->in.r[i], (i % 4 == 3) ? "\n      " : " ");
  }
  char a[8];
  flag_letters(q->in.rflags, ARITH6 | FL_DF, a);
  printf("flags=%s\n", a);
  if (q->rax_undefined) printf("  rax bits left undefined by LAHF: %#" PRIx64 "\n", q->rax_undefined);
  if (q->end_cc >= 0) printf("  then J%s to the stop, or NOT R15 and on\n", cc_names[q->end_cc]);
  printf("  differences after all %u instructions:\n", q->n);
  print_differences(q, q->n);
  /* The shortest prefix that fails too: every prefix ran natively while drawing. */
  for (unsigned n = 1; n < q->n; n++) {
    const char *w = run_prefix(q, n);
    if (!w) continue;
    printf("  shortest failing prefix: instructions 1..%u (%s):\n", n, w);
    print_listing(q, n);
    print_differences(q, n);
    break;
  }
  test_print_reproduce_env(stdout, seed);
  printf("%s --iter %" PRIu64 " --case %u\n", program, iterations, index);
}

/* ---- driver ---- */

typedef struct Stats {
  uint64_t insns, main, partly_dead, all_dead;
  uint64_t jcc_ends, fused[2]; /* sequences ending with a Jcc; those the decoder fused,
                                  [1] as a side exit */
  uint64_t unrecorded;      /* instructions run by a form that records no flags (fast.c) */
  uint32_t *drawn, *dead; /* per form: drawn, and run with some flag dead */
} Stats;

/* Counts the instructions whose flags the liveness pass found (partly) dead: the block
 * at the code page is still cached after the run. */
static void count_liveness(const Seq *q, Stats *st) {
  const Block *b = block_get(&test_machine()->code, (uint64_t)(uintptr_t)code_page);
  /* After the drawn instructions: the JMP, the Jcc that ends the block, or the Jcc as a
   * side exit, NOT and JMP. */
  bool side_exit = q->end_cc >= 0 && test_machine()->code.side_exits;
  const uint32_t tail = side_exit ? 3 : 1;
  for (uint32_t i = 0; i < b->n; i++) {
    uint8_t live = b->insns[i].flags_live;
    if (live == 0) {
      st->all_dead++;
      if (b->insns[i].fn != block_get_single(&test_machine()->code, b->insns[i].rip)->insns[0].fn)
        st->unrecorded++; /* another handler than the instruction's own */
    }
    else if (live != FL_ALL) st->partly_dead++;
    if (b->n == q->n + tail && i < q->n && q->insn[i].f) {
      unsigned form = (unsigned)(q->insn[i].f - forms);
      st->drawn[form]++;
      if (live != FL_ALL) st->dead[form]++;
    }
  }
  st->insns += q->n;
  st->main += q->n_main;
  if (q->end_cc >= 0 && b->n >= tail + 1) { /* fused: another handler than its own */
    st->jcc_ends++;
    const Insn *compare = &b->insns[b->n - tail - 1];
    st->fused[side_exit] += b->insns[b->n - tail].side_exit == side_exit &&
                 compare->fn != block_get_single(&test_machine()->code, compare->rip)->insns[0].fn;
  }
}

/* Forms drawn but never run with a dead flag: what liveness does to them went untested. */
static void print_coverage(const Stats *st) {
  unsigned never_drawn = 0, never_dead = 0;
  for (unsigned i = 0; i < n_forms; i++) {
    if (!st->drawn[i]) {
      never_drawn++;
      continue;
    }
    if (!st->dead[i]) {
      never_dead++;
      printf("  never with a dead flag: %s (drawn %u times)\n", forms[i].name, st->drawn[i]);
    }
  }
  printf("  %u forms never drawn (the #UD forms and pairs are not used), %u never with a dead flag\n",
         never_drawn, never_dead);
}

static void seed_sequence(Rng *g, uint64_t seed, unsigned index) {
  rng_seed(g, seed ^ ((uint64_t)(index + 1) * 0xd1342543de82ef95ull));
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  uint64_t iter = env_u64("X64EMU_DIFF_ITER", 10000);
  const char *seed_arg = NULL;
  long only = -1;
  bool verbose = false, watch = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--iter") && i + 1 < argc) iter = strtoull(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed_arg = argv[++i];
    else if (!strcmp(argv[i], "--case") && i + 1 < argc) only = strtol(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--max-reports") && i + 1 < argc) max_reports = (unsigned)strtoul(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--verbose") || !strcmp(argv[i], "-v")) verbose = true;
    else if (!strcmp(argv[i], "--watch-memory")) watch = true;
    else {
      fprintf(stderr, "usage: %s [--iter N] [--seed S] [--case I] [--max-reports N] [--verbose] [--watch-memory]\n",
              argv[0]);
      return 2;
    }
  }
  uint64_t seed = test_seed_from(seed_arg, DIFF_DEFAULT_SEED);
  program = argv[0];
  iterations = iter;
  forms_build();
  if (!harness_init("diff_blocks")) return 2;
  if (watch) {
    test_machine()->hooks.mem = check_access;
    machine_watch(test_machine(), WATCH_HOOKS, true);
  }

  printf("diff_blocks: seed %#" PRIx64 " (X64EMU_DIFF_SEED), %" PRIu64 " sequences\n", seed, iter);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  static Seq q;
  Stats st = {.drawn = calloc(n_forms, sizeof *st.drawn), .dead = calloc(n_forms, sizeof *st.dead)};
  uint64_t ran = 0, failures = 0;
  for (unsigned i = 0; i < iter; i++) {
    if (only >= 0 && i != (unsigned long)only) continue;
    Rng g;
    seed_sequence(&g, seed, i);
    seq_generate(&q, &g, 2 + rng_below(&g, SEQ_MAX_MAIN - 1));
    /* The first half with the final Jcc as a side exit, the rest ending the block: both
     * fused forms of each pair (fast.c). */
    block_side_exits_set(&test_machine()->code, i < iter / 2);
    const char *why = run_prefix(&q, q.n);
    ran++;
    if (why) {
      if (failures < max_reports) report(&q, i, seed, why);
      failures++;
    } else if (!watch) { /* watched blocks hold stop checks between the instructions */
      count_liveness(&q, &st);
      if (verbose && only >= 0) print_listing(&q, q.n);
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  if (verbose) {
    printf("diff_blocks: %" PRIu64 " instructions (%" PRIu64 " drawn, the rest set-up moves); liveness left "
           "%" PRIu64 " with some flags dead, %" PRIu64 " with all dead\n",
           st.insns, st.main, st.partly_dead, st.all_dead);
    if (only < 0) print_coverage(&st);
  }
  free(st.drawn);
  free(st.dead);
  printf("diff_blocks: %" PRIu64 " sequences, %" PRIu64 " failed, %.1f s, seed %#" PRIx64 "\n", ran, failures,
         secs, seed);
  if (!watch && only < 0) {
    printf("diff_blocks: %" PRIu64 " ended with a Jcc, %" PRIu64 " of them fused with the instruction "
           "before (fuse.c): %" PRIu64 " ending the block, %" PRIu64 " as a side exit\n",
           st.jcc_ends, st.fused[0] + st.fused[1], st.fused[0], st.fused[1]);
    printf("diff_blocks: %" PRIu64 " instructions run by a form that records no flags\n", st.unrecorded);
    if (iter >= 1000 && (!st.fused[0] || !st.fused[1] || !st.unrecorded))
      failures++; /* those handlers went untested */
  }
  model_print_summary("diff_blocks");
  if (watch) {
    printf("diff_blocks: %" PRIu64 " accesses reported, %" PRIu64 " of them unlike memory\n", accesses,
           accesses_unlike_memory);
    if (!accesses || accesses_unlike_memory) failures++;
  }
  return failures || model_disagreements ? 1 : 0;
}
