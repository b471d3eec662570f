/* stats.c: --stats=json (stats.h). Instructions are counted per address (sites.h), then
 * summed per mnemonic and per function at the end, with Capstone's text of each address once. */
#include "stats.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder/decode.h"
#include "interp/fault.h"
#include "interp/machine.h"
#include "linux-user/sys_nr.h"
#include "linux-user/sys_common.h"
#include "linux-user/threads.h"
#include "sites.h"
#include "symbols.h"

/* A name and a total, for the per-mnemonic and per-function sums. */
typedef struct Total {
  const char *name;
  uint64_t n;
} Total;

struct Stats {
  Cpu *c;
  Symbols syms;
  const uint64_t *syscall_counts;
  Sites sites;
};

Stats *stats_start(Cpu *c, const char *path, const uint64_t *syscall_counts) {
  Stats *s = calloc(1, sizeof *s);
  if (!s || !sites_init(&s->sites)) {
    free(s);
    return NULL;
  }
  s->c = c;
  s->syscall_counts = syscall_counts;
  symbols_read(&s->syms, path, c->rip); /* none: the per-function part is empty */
  return s;
}

void stats_insn(Stats *s, uint64_t rip) {
  bool fresh;
  Site *k = sites_get(&s->sites, rip, &fresh);
  if (k) k->runs++; /* out of memory: this address goes uncounted */
}

/* Adds n to name's total in t (names compared by pointer or text). */
static Total *add_to(Total **t, size_t *count, const char *name, uint64_t n) {
  for (size_t i = 0; i < *count; i++)
    if ((*t)[i].name == name || strcmp((*t)[i].name, name) == 0) {
      (*t)[i].n += n;
      return &(*t)[i];
    }
  Total *more = realloc(*t, (*count + 1) * sizeof *more);
  if (!more) return NULL;
  *t = more;
  (*t)[*count] = (Total){name, n};
  return &(*t)[(*count)++];
}

static int by_count(const void *a, const void *b) {
  const Total *x = a, *y = b;
  if (x->n != y->n) return x->n > y->n ? -1 : 1;
  return strcmp(x->name, y->name);
}

static void write_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
    else if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", (unsigned char)*s);
    else fputc(*s, f);
  }
  fputc('"', f);
}

/* "name": {"n1": v1, ...} of totals, the largest first. */
static void write_totals(FILE *f, const char *name, Total *t, size_t n, bool last) {
  qsort(t, n, sizeof *t, by_count);
  fprintf(f, "  \"%s\": {", name);
  for (size_t i = 0; i < n; i++) {
    fputs(i ? ",\n    " : "\n    ", f);
    write_string(f, t[i].name);
    fprintf(f, ": %" PRIu64, t[i].n);
  }
  fprintf(f, "%s}%s\n", n ? "\n  " : "", last ? "" : ",");
}

bool stats_finish(Stats *s, const char *path) {
  FILE *f = fopen(path, "w");
  bool ok = f != NULL;
  Total *mnemonics = NULL, *functions = NULL, *calls = NULL;
  size_t n_mnemonics = 0, n_functions = 0, n_calls = 0;
  char (*texts)[24] = calloc(s->sites.size, sizeof *texts); /* the mnemonic of each slot */
  for (size_t i = 0; ok && texts && i < s->sites.size; i++) {
    const Site *k = &s->sites.v[i];
    if (!k->rip) continue;
    uint8_t bytes[15];
    char text[160];
    unsigned got = fault_copy_in(bytes, k->rip, sizeof bytes);
    decode_text(&s->c->m->dec, k->rip, bytes, got, text, sizeof text);
    snprintf(texts[i], sizeof texts[i], "%.*s", (int)strcspn(text, " "), text);
    add_to(&mnemonics, &n_mnemonics, texts[i], k->runs);
    const Symbol *fn = symbols_at(&s->syms, k->rip);
    add_to(&functions, &n_functions, fn ? fn->name : "(no symbol)", k->runs);
  }
  for (unsigned nr = 0; s->syscall_counts && nr <= X64_NR_COUNT; nr++) {
    if (!s->syscall_counts[nr]) continue;
    const char *name = nr < X64_NR_COUNT ? x64_syscall_name(nr) : NULL;
    add_to(&calls, &n_calls, name ? name : "(unknown)", s->syscall_counts[nr]);
  }
  if (ok) {
    const BlockCache *code = &s->c->m->code;
    fprintf(f, "{\n  \"schema\": \"x64emu-stats/1\",\n  \"instructions\": %" PRIu64 ",\n",
            threads_instructions(s->c));
    fprintf(f, "  \"code_cache\": {\"blocks_decoded\": %" PRIu64 ", \"lookups\": %" PRIu64
               ", \"hits\": %" PRIu64 ", \"flushes\": %" PRIu64 "},\n",
            code->decoded, code->lookups, code->lookups - code->decoded, code->flushes);
    write_totals(f, "syscalls", calls, n_calls, false);
    write_totals(f, "mnemonics", mnemonics, n_mnemonics, false);
    write_totals(f, "functions", functions, n_functions, true);
    fputs("}\n", f);
    ok = fclose(f) == 0 && texts;
  }
  free(texts);
  free(mnemonics);
  free(functions);
  free(calls);
  symbols_free(&s->syms);
  sites_free(&s->sites);
  free(s);
  return ok;
}
