/* diff_int.c: differential test of the integer handlers: every form in forms.c runs on
 * random operands both on the host CPU and through the decoder and handlers, and the
 * registers, memory, defined flags and traps must agree.
 *
 * Usage: diff_int [--iter N] [--seed S] [--only SUBSTRING] [--max-reports N] [--list] [--verbose]
 * Environment: X64EMU_DIFF_ITER (cases per form, default 10000), X64EMU_DIFF_SEED (a number
 * or "random"; default a fixed seed; always printed, and each form's cases depend only on
 * it and the form's name, so `--only` reproduces a failure), X64EMU_TEST_HOST_VENDOR
 * (cpu_model.h). */
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "decoder/decode.h"
#include "interp/fault.h"
#include "interp/flags.h"
#include "interp/ops_int.h"
#include "interp/run.h"
#include "harness.h"
#include "diff.h"
#include "model.h"
#include "test_seed.h"
#include "test_machine.h"

/* ---- the two runs ---- */

/* Both sides run the same bytes at the same address (RIP-relative operands agree). */
static void place_code(const Case *k) {
  memcpy(code_page, k->code, k->len);
  code_page[k->len] = 0xC3; /* RET to the harness */
  model_sites_set(k->insn_at, k->insn_len, k->n_insn);
}

/* Decodes the case's instructions; false (with a message) when the decoder disagrees on a
 * length. A rejected instruction (SIGILL for the guest) ends the sequence. */
static bool decode_case(const Case *k, Insn *insns, char *why, size_t why_size) {
  uint64_t rip = (uint64_t)(uintptr_t)code_page, end = rip + k->len;
  for (unsigned i = 0; i < k->n_insn; i++) {
    uint64_t fault_at = 0;
    int n = decode_insn(&test_machine()->dec, rip, &insns[i], &fault_at);
    if (n < 0) return true;
    if (n == 0) {
      snprintf(why, why_size, "decoder cannot read instruction %u", i + 1);
      return false;
    }
    rip += (unsigned)n;
  }
  if (rip != end) {
    snprintf(why, why_size, "decoded length %" PRIu64 " differs from the encoded %u",
             rip - (uint64_t)(uintptr_t)code_page, k->len);
    return false;
  }
  return true;
}

static void run_emulated(const Case *k, const Insn *insns, Outcome *o) {
  memcpy(data, data_init, DATA_SIZE);
  cpu_init(&emu_cpu, test_machine());
  memcpy(emu_cpu.r, k->in.r, sizeof k->in.r);
  flags_set(&emu_cpu, k->in.rflags);
  emu_cpu.fs_base = fs_base;
  emu_cpu.gs_base = gs_base;
  o->sig = o->code = 0;
  int sig = sigsetjmp(emu_cpu.fault_jmp, 0);
  if (sig == 0) {
    emu_active = 1;
    fault_landing = &emu_cpu.fault_jmp;
    for (unsigned i = 0; i < k->n_insn; i++) {
      if (insns[i].fn == op_undefined) { /* what it does, without its message */
        o->sig = SIGILL;
        break;
      }
      emu_cpu.cur = &insns[i];
      emu_cpu.rip = insn_next(&insns[i]);
      insn_run_alone(&emu_cpu, &insns[i]);
    }
  } else {
    /* Negative: guest_trap(); positive: a host fault inside a handler. */
    o->sig = sig < 0 ? -sig : sig;
    o->code = fault_code;
    if (sig == SIGFPE) o->code = -1; /* the emulator's own division trapped */
  }
  fault_landing = NULL;
  emu_active = 0;
  memcpy(o->regs.r, emu_cpu.r, sizeof o->regs.r);
  o->regs.rflags = flags_get(&emu_cpu);
  memcpy(o->mem, data, DATA_SIZE);
}

/* ---- reporting ---- */

static unsigned max_reports = 3;
static const char *program = "diff_int";
static uint64_t iterations;

static void report(const Case *k, unsigned index, uint64_t seed, const char *why, const Outcome *nat,
                   const Outcome *emu) {
  const Form *f = k->f;
  printf("FAIL %s, case %u: %s\n", f->name, index, why);
  printf("  bytes:");
  for (unsigned i = 0; i < k->len; i++) printf(" %02x", k->code[i]);
  printf("\n");
  uint64_t rip = (uint64_t)(uintptr_t)code_page;
  for (unsigned i = 0, at = 0; i < k->n_insn && at < k->len; i++) {
    char text[96];
    Insn in;
    uint64_t fa;
    int n = decode_insn(&test_machine()->dec, rip + at, &in, &fa);
    decode_text(&test_machine()->dec, rip + at, k->code + at, k->len - at, text, sizeof text);
    printf("  insn %u: %s\n", i + 1, text);
    if (n <= 0) break;
    at += (unsigned)n;
  }
  if (k->s.mem) printf("  memory operand at data+%#" PRIx64 "\n", k->s.m.target - (uint64_t)(uintptr_t)data);
  printf("  in: ");
  for (int i = 0; i < 16; i++) {
    if (i == 4) continue;
    printf("%s=%" PRIx64 "%s", reg_names[i], k->in.r[i], (i % 4 == 3) ? "\n      " : " ");
  }
  char a[8], b[8];
  flag_letters(k->in.rflags, ARITH6 | FL_DF, a);
  printf("flags=%s\n", a);
  if (nat && emu) {
    if (nat->sig || emu->sig)
      printf("  trap: native signal %d code %d, emulated signal %d code %d\n", nat->sig, nat->code,
             emu->sig, emu->code);
    for (int i = 0; i < 16; i++)
      if (i != 4 && ((nat->regs.r[i] ^ emu->regs.r[i]) & ~k->ignore[i]))
        printf("  %s: native %016" PRIx64 " emulated %016" PRIx64 "\n", reg_names[i], nat->regs.r[i],
               emu->regs.r[i]);
    flag_letters(nat->regs.rflags, k->flag_mask | FL_DF, a);
    flag_letters(emu->regs.rflags, k->flag_mask | FL_DF, b);
    if (strcmp(a, b)) printf("  flags (- = undefined): native %s emulated %s\n", a, b);
    unsigned shown = 0;
    for (unsigned i = 0; i < DATA_SIZE && shown < 16; i++)
      if (nat->mem[i] != emu->mem[i]) {
        printf("  data+%#x: was %02x native %02x emulated %02x\n", i, data_init[i], nat->mem[i], emu->mem[i]);
        shown++;
      }
  }
  test_print_reproduce_env(stdout, seed);
  printf("%s --iter %" PRIu64 " --only '%s'\n", program, iterations, f->name);
}

/* Compares the two outcomes; returns a description of the first difference, or NULL. */
static const char *compare(const Case *k, const Outcome *nat, const Outcome *emu) {
  /* SIGILL's si_code is not compared: the emulator says ILL_ILLOPC for what it does not
   * implement, where the kernel reports #UD as ILL_ILLOPN. */
  if (nat->sig != emu->sig || (nat->sig != SIGILL && nat->code != emu->code)) return "the traps differ";
  if (nat->sig && !(k->f->x & X_MAY_FAULT)) return "unexpected native trap (a generator bug)";
  for (int i = 0; i < 16; i++)
    if (i != 4 && ((nat->regs.r[i] ^ emu->regs.r[i]) & ~k->ignore[i])) return "registers differ";
  if ((nat->regs.rflags ^ emu->regs.rflags) & (k->flag_mask | FL_DF)) return "flags differ";
  if (memcmp(nat->mem, emu->mem, DATA_SIZE)) return "memory differs";
  return NULL;
}

/* ---- driver ---- */

static Outcome nat_out, emu_out;

/* Runs `iter` cases of one form; returns the number of failing cases. */
static unsigned run_form(const Form *f, unsigned iter, uint64_t seed, unsigned *traps) {
  Rng g;
  rng_seed(&g, seed ^ name_hash(f->name));
  unsigned failures = 0;
  Case k;
  Insn insns[CASE_MAX_INSNS];
  for (unsigned i = 0; i < iter; i++) {
    if (i % 8 == 0)
      for (unsigned j = 0; j < DATA_SIZE; j += 8) {
        uint64_t v = rng_next(&g);
        memcpy(&data_init[j], &v, 8);
      }
    k.f = f;
    case_generate(&k, &g);
    char why[128];
    const char *diff = NULL;
    place_code(&k);
    if (!decode_case(&k, insns, why, sizeof why)) {
      diff = why;
      run_native(&k.in, &nat_out);
      if (failures < max_reports) report(&k, i, seed, diff, NULL, NULL);
      failures++;
      continue;
    }
    run_native(&k.in, &nat_out);
    run_emulated(&k, insns, &emu_out);
    if (nat_out.sig) ++*traps;
    diff = compare(&k, &nat_out, &emu_out);
    if (diff) {
      if (failures < max_reports) report(&k, i, seed, diff, &nat_out, &emu_out);
      failures++;
    }
  }
  return failures;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  uint64_t iter = env_u64("X64EMU_DIFF_ITER", 10000);
  const char *seed_arg = NULL;
  const char *only = NULL;
  bool list = false, verbose = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--iter") && i + 1 < argc) iter = strtoull(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed_arg = argv[++i];
    else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else if (!strcmp(argv[i], "--max-reports") && i + 1 < argc) max_reports = (unsigned)strtoul(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--list")) list = true;
    else if (!strcmp(argv[i], "--verbose") || !strcmp(argv[i], "-v")) verbose = true;
    else {
      fprintf(stderr, "usage: %s [--iter N] [--seed S] [--only SUBSTRING] [--max-reports N] [--list] [--verbose]\n", argv[0]);
      return 2;
    }
  }
  uint64_t seed = test_seed_from(seed_arg, DIFF_DEFAULT_SEED);
  program = argv[0];
  iterations = iter;
  forms_build();
  if (list) {
    for (unsigned i = 0; i < n_forms; i++) printf("%s\n", forms[i].name);
    return 0;
  }
  if (!harness_init("diff_int")) return 2;

  printf("diff_int: seed %#" PRIx64 " (X64EMU_DIFF_SEED), %" PRIu64 " cases per form\n", seed, iter);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  unsigned ran = 0, failed_forms = 0;
  uint64_t failed_cases = 0;
  for (unsigned i = 0; i < n_forms; i++) {
    const Form *f = &forms[i];
    if (only && !strstr(f->name, only)) continue;
    unsigned traps = 0;
    unsigned failures = run_form(f, (unsigned)iter, seed, &traps);
    ran++;
    if (failures) {
      failed_forms++;
      failed_cases += failures;
      printf("FAILED %s: %u of %" PRIu64 " cases\n", f->name, failures, iter);
    } else if (verbose) {
      printf("ok %s (%u native traps)\n", f->name, traps);
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  printf("diff_int: %u forms, %" PRIu64 " cases, %u forms failed (%" PRIu64 " cases), %.1f s, seed %#" PRIx64 "\n",
         ran, (uint64_t)ran * iter, failed_forms, failed_cases, secs, seed);
  model_print_summary("diff_int");
  return failed_forms || model_disagreements ? 1 : 0;
}
