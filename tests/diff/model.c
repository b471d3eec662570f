/* model.c: the CPU model's rules for the integer instructions on which the vendors differ
 * (docs/cpu-model.md, "Integer instructions"), applied in place of the host's execution
 * when the tests judge by the model. */
#define _GNU_SOURCE
#include "model.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cpu_model.h"
#include "diff.h"
#include "interp/cpu.h"

/* What a rule looks at: the instruction's prefixes and opcode. */
typedef struct Parsed {
  bool a32, rep_f3, rep_any, rex_b;
  uint8_t opcode;
} Parsed;

static bool is_legacy_prefix(uint8_t x) {
  return x == 0x66 || x == 0x67 || x == 0xF0 || x == 0xF2 || x == 0xF3 || x == 0x2E || x == 0x36 ||
         x == 0x3E || x == 0x26 || x == 0x64 || x == 0x65;
}

/* Only a REX right before the opcode counts: a later REX replaces an earlier one, and a
 * legacy prefix after a REX cancels it. */
static Parsed parse(const uint8_t *b, unsigned len) {
  Parsed p = {0};
  unsigned i = 0;
  for (; i < len; i++) {
    uint8_t x = b[i];
    if ((x & 0xF0) == 0x40) {
      p.rex_b = x & 1;
      continue;
    }
    if (!is_legacy_prefix(x)) break;
    p.rex_b = false;
    if (x == 0x67) p.a32 = true;
    else if (x == 0xF2 || x == 0xF3) p.rep_any = true, p.rep_f3 = x == 0xF3;
  }
  p.opcode = i < len ? b[i] : 0;
  return p;
}

/* ---- the rules: each says whether it covers the registers at hand, and if so sets
 * them as the model's CPU leaves them ---- */

typedef struct Rule {
  const char *name;
  bool (*governs)(const Parsed *p);
  bool (*apply)(const Parsed *p, uint64_t r[16]);
} Rule;

static bool is_string_op(uint8_t op) { return (op >= 0xA4 && op <= 0xA7) || (op >= 0xAA && op <= 0xAF); }

/* REP string instruction with a 67 prefix and ECX = 0: the model writes ECX back
 * zero-extended, and REP MOVS/STOS also zero-extend the index registers they use (ESI,
 * EDI); nothing else changes. (AMD leaves RCX, RSI and RDI as they were.) */
static bool rep_a32_governs(const Parsed *p) { return p->a32 && p->rep_any && is_string_op(p->opcode); }
static bool rep_a32_apply(const Parsed *p, uint64_t r[16]) {
  if ((uint32_t)r[RCX] != 0) return false;
  r[RCX] = 0;
  if (p->opcode == 0xA4 || p->opcode == 0xA5) { /* MOVS */
    r[RSI] = (uint32_t)r[RSI];
    r[RDI] = (uint32_t)r[RDI];
  } else if (p->opcode == 0xAA || p->opcode == 0xAB) { /* STOS */
    r[RDI] = (uint32_t)r[RDI];
  }
  return true;
}

/* F3 90 with REX.B: the model runs PAUSE, changing no register. (AMD exchanges rAX with
 * r8.) */
static bool pause_rex_b_governs(const Parsed *p) { return p->rep_f3 && p->rex_b && p->opcode == 0x90; }
static bool pause_rex_b_apply(const Parsed *p, uint64_t r[16]) { return true; }

static const Rule rules[] = {
    {"REP string op, 67 prefix, ECX = 0", rep_a32_governs, rep_a32_apply},
    {"F3 REX.B 90 (PAUSE)", pause_rex_b_governs, pause_rex_b_apply},
};
enum { N_RULES = sizeof rules / sizeof *rules };

static uint64_t judged[N_RULES];
uint64_t model_judged_total, model_disagreements;

/* ---- sites on the code page ---- */

enum { MAX_SITES = 64 };
typedef struct Site {
  uint16_t at;
  uint8_t len, rule;
  uint8_t first_byte; /* what INT3 covers while armed */
  bool armed;
  Parsed p;
} Site;

static Site sites[MAX_SITES];
static unsigned n_sites;
static bool applied;

void model_sites_set(const uint16_t *at, const uint8_t *len, unsigned n) {
  n_sites = 0;
  if (host_follows_model()) return;
  for (unsigned i = 0; i < n && n_sites < MAX_SITES; i++) {
    Parsed p = parse(code_page + at[i], len[i]);
    for (unsigned r = 0; r < N_RULES; r++)
      if (rules[r].governs(&p)) {
        sites[n_sites++] = (Site){.at = at[i], .len = len[i], .rule = (uint8_t)r, .p = p};
        break;
      }
  }
}

void model_arm(void) {
  applied = false;
  for (unsigned i = 0; i < n_sites; i++) {
    sites[i].first_byte = code_page[sites[i].at];
    code_page[sites[i].at] = 0xCC;
    sites[i].armed = true;
  }
}

void model_disarm(void) {
  for (unsigned i = 0; i < n_sites; i++)
    if (sites[i].armed) {
      code_page[sites[i].at] = sites[i].first_byte;
      sites[i].armed = false;
    }
}

bool model_applied(void) { return applied; }

bool model_trap(ucontext_t *uc) {
  greg_t *g = uc->uc_mcontext.gregs;
  uint64_t at = (uint64_t)g[REG_RIP] - 1 - (uint64_t)(uintptr_t)code_page;
  for (unsigned i = 0; i < n_sites; i++) {
    Site *s = &sites[i];
    if (!s->armed || s->at != at) continue;
    static const int order[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP,
                                  REG_RSI, REG_RDI, REG_R8,  REG_R9,  REG_R10, REG_R11,
                                  REG_R12, REG_R13, REG_R14, REG_R15};
    uint64_t r[16];
    for (int j = 0; j < 16; j++) r[j] = (uint64_t)g[order[j]];
    code_page[s->at] = s->first_byte;
    s->armed = false;
    if (rules[s->rule].apply(&s->p, r)) {
      for (int j = 0; j < 16; j++) g[order[j]] = (greg_t)r[j];
      g[REG_RIP] += s->len - 1;
      judged[s->rule]++;
      model_judged_total++;
      applied = true;
    } else {
      g[REG_RIP] -= 1; /* the host runs it after all */
    }
    return true;
  }
  return false;
}

void model_print_summary(const char *test) {
  cpu_model_print_path(stdout, test);
  for (unsigned r = 0; r < N_RULES; r++)
    if (!host_follows_model())
      printf("%s: %" PRIu64 " runs of an instruction by the model's rule instead of the host: %s\n", test, judged[r], rules[r].name);
  if (model_disagreements)
    printf("%s: FAIL: the model's rules disagree with this CPU (vendor %s) %" PRIu64 " times\n", test,
           cpu_model_real_vendor(), model_disagreements);
}
