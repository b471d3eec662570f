/* trace.c: the instruction tracer (trace.h). The core calls it before every instruction
 * in the span of the filter; what an instruction changed is known at the next call, so
 * each call first writes the changes of the instruction before, then the line of its own.
 * The core's instruction count tells whether other (untraced) instructions ran between. */
#include "trace.h"

#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decoder/block.h"
#include "decoder/decode.h"
#include "interp/fault.h"
#include "interp/flags.h"
#include "interp/machine.h"
#include "interp/run.h"

typedef struct Symbol {
  uint64_t start, size;
  char *name;
} Symbol;

typedef struct Span {
  uint64_t lo, hi;
} Span;

/* What the registers were before the traced instruction. */
typedef struct Registers {
  uint64_t r[16], rflags;
  Xmm xmm[16];
  uint32_t mxcsr;
} Registers;

/* Disassembly is Capstone's, once per address. */
enum { TEXT_CACHE = 4096 };
typedef struct Text {
  uint64_t rip;
  char line[112]; /* "66 0f 38 dc c1  aesenc xmm0, xmm1" */
} Text;

struct Tracer {
  Cpu *c;
  FILE *out;
  Symbol *syms;
  size_t n_syms;
  Span *ranges; /* empty: everything */
  size_t n_ranges;
  bool pending;  /* a traced instruction whose changes are not written yet */
  uint64_t icount_before; /* the instruction count as it began */
  Registers before;
  Text *texts;
};

static int by_start(const void *a, const void *b) {
  const Symbol *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* The function symbols of the program's symbol table, moved by the load bias. */
static bool read_symbols(Tracer *t, const char *path, uint64_t bias) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return false;
  elf_version(EV_CURRENT);
  Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
  for (Elf_Scn *scn = NULL; elf && (scn = elf_nextscn(elf, scn));) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize) continue;
    Elf_Data *data = elf_getdata(scn, NULL);
    size_t n = sh.sh_size / sh.sh_entsize;
    for (size_t i = 0; data && i < n; i++) {
      GElf_Sym s;
      if (!gelf_getsym(data, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC || !s.st_value) continue;
      const char *name = elf_strptr(elf, sh.sh_link, s.st_name);
      if (!name || !*name) continue;
      Symbol *more = realloc(t->syms, (t->n_syms + 1) * sizeof *more);
      if (!more) break;
      t->syms = more;
      t->syms[t->n_syms++] = (Symbol){s.st_value + bias, s.st_size, strdup(name)};
    }
  }
  if (elf) elf_end(elf);
  close(fd);
  qsort(t->syms, t->n_syms, sizeof *t->syms, by_start);
  return true;
}

/* The function that holds a, or NULL. */
static const Symbol *symbol_at(const Tracer *t, uint64_t a) {
  size_t lo = 0, hi = t->n_syms;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (t->syms[mid].start <= a) lo = mid + 1;
    else hi = mid;
  }
  for (size_t i = lo; i-- > 0;) { /* the nearest before, or one that contains it */
    const Symbol *s = &t->syms[i];
    if (a < s->start + (s->size ? s->size : 1)) return s;
    if (s->size) break;
  }
  return NULL;
}

static bool parse_filter(Tracer *t, const char *filter, char *err, size_t errlen) {
  char *copy = strdup(filter), *save = NULL;
  bool ok = copy != NULL;
  for (char *item = copy ? strtok_r(copy, ",", &save) : NULL; ok && item; item = strtok_r(NULL, ",", &save)) {
    Span r = {0, 0};
    char *dash = strchr(item, '-'), *end = NULL;
    if (dash && item[0] == '0' && (item[1] == 'x' || item[1] == 'X')) {
      r.lo = strtoull(item, &end, 16);
      if (end != dash || !dash[1]) ok = false;
      else r.hi = strtoull(dash + 1, &end, 16);
      if (!ok || *end || r.hi <= r.lo) {
        snprintf(err, errlen, "--trace: '%s' is not a range LOW-HIGH in hex (0x401000-0x402000)", item);
        ok = false;
      }
    } else {
      size_t i = 0;
      while (i < t->n_syms && strcmp(t->syms[i].name, item) != 0) i++;
      if (i == t->n_syms) {
        snprintf(err, errlen, "--trace: no function '%s' in the program's symbol table", item);
        ok = false;
      } else {
        r = (Span){t->syms[i].start, t->syms[i].start + (t->syms[i].size ? t->syms[i].size : 1)};
      }
    }
    if (ok) {
      Span *more = realloc(t->ranges, (t->n_ranges + 1) * sizeof *more);
      if (!more) ok = false;
      else (t->ranges = more)[t->n_ranges++] = r;
    }
  }
  free(copy);
  return ok;
}

static bool traced(const Tracer *t, uint64_t rip) {
  if (!t->n_ranges) return true;
  for (size_t i = 0; i < t->n_ranges; i++)
    if (rip >= t->ranges[i].lo && rip < t->ranges[i].hi) return true;
  return false;
}

static void snapshot(const Cpu *c, Registers *r) {
  memcpy(r->r, c->r, sizeof r->r);
  r->rflags = flags_get(c);
  memcpy(r->xmm, c->xmm, sizeof r->xmm);
  r->mxcsr = c->mxcsr;
}

static const char *const gpr_names[16] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
                                          "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};

/* The registers that differ from t->before, on one line; icount is the instruction count
 * now. */
static void write_changes(Tracer *t, uint64_t icount) {
  Registers now;
  snapshot(t->c, &now);
  uint64_t ran = icount - t->icount_before;
  char line[1024];
  int n = 0;
#define ADD(...) n += snprintf(line + n, n < (int)sizeof line ? sizeof line - (size_t)n : 0, __VA_ARGS__)
  if (ran > 1) ADD(" (with %" PRIu64 " untraced after it)", ran - 1);
  for (int i = 0; i < 16; i++)
    if (now.r[i] != t->before.r[i]) ADD(" %s=%#" PRIx64, gpr_names[i], now.r[i]);
  if (now.rflags != t->before.rflags) ADD(" rflags=%#" PRIx64, now.rflags);
  for (int i = 0; i < 16; i++)
    if (memcmp(&now.xmm[i], &t->before.xmm[i], 16) != 0)
      ADD(" xmm%d=0x%016" PRIx64 "%016" PRIx64, i, now.xmm[i].q[1], now.xmm[i].q[0]);
  if (now.mxcsr != t->before.mxcsr) ADD(" mxcsr=%#x", now.mxcsr);
#undef ADD
  if (n) fprintf(t->out, "   %s\n", line); /* nothing changed: no line */
}

static const char *text_of(Tracer *t, uint64_t rip) {
  Text *e = &t->texts[(rip * 0x9E3779B97F4A7C15ull) >> 52];
  if (e->rip == rip && e->line[0]) return e->line;
  uint8_t bytes[15];
  unsigned n = fault_copy_in(bytes, rip, sizeof bytes);
  char asm_text[80];
  unsigned len = decode_text(&t->c->m->dec, rip, bytes, n, asm_text, sizeof asm_text);
  int at = 0;
  for (unsigned i = 0; i < (len ? len : 1) && i < n; i++)
    at += snprintf(e->line + at, sizeof e->line - (size_t)at, "%02x ", bytes[i]);
  snprintf(e->line + at, sizeof e->line - (size_t)at, "%*s%s", at < 30 ? 30 - at : 1, "", asm_text);
  e->rip = rip;
  return e->line;
}

/* The core's instruction hook (machine.h): before the instruction at rip. */
static void on_insn(void *embedder, uint64_t rip, unsigned len, void *user) {
  Tracer *t = user;
  if (t->pending) write_changes(t, t->c->icount + t->c->hooked.nth);
  t->pending = traced(t, rip);
  if (!t->pending) return;
  const Symbol *s = symbol_at(t, rip);
  if (s) fprintf(t->out, "%#018" PRIx64 " <%s+%#" PRIx64 ">  %s\n", rip, s->name, rip - s->start, text_of(t, rip));
  else fprintf(t->out, "%#018" PRIx64 "  %s\n", rip, text_of(t, rip));
  t->icount_before = t->c->icount + t->c->hooked.nth;
  snapshot(t->c, &t->before);
}

Tracer *trace_start(Cpu *c, const char *path, const char *filter, FILE *out, char *err, size_t errlen) {
  Tracer *t = calloc(1, sizeof *t);
  if (t) t->texts = calloc(TEXT_CACHE, sizeof *t->texts);
  if (!t || !t->texts) {
    free(t);
    snprintf(err, errlen, "--trace: out of memory");
    return NULL;
  }
  t->c = c;
  t->out = out;
  /* The load bias: the entry point now against the one in the file. */
  uint64_t bias = 0;
  int fd = open(path, O_RDONLY);
  elf_version(EV_CURRENT);
  Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
  GElf_Ehdr eh;
  if (elf && gelf_getehdr(elf, &eh) && eh.e_type == ET_DYN) bias = c->rip - eh.e_entry;
  if (elf) elf_end(elf);
  if (fd >= 0) close(fd);
  if (!read_symbols(t, path, bias) || (filter && *filter && !parse_filter(t, filter, err, errlen))) {
    if (!err[0]) snprintf(err, errlen, "--trace: cannot read %s", path);
    trace_finish(t);
    return NULL;
  }
  /* Hook records over the span of the filter; outside it the code runs as usual. */
  uint64_t lo = t->n_ranges ? UINT64_MAX : 0, hi = t->n_ranges ? 0 : UINT64_MAX;
  for (size_t i = 0; i < t->n_ranges; i++) {
    if (t->ranges[i].lo < lo) lo = t->ranges[i].lo;
    if (t->ranges[i].hi > hi) hi = t->ranges[i].hi;
  }
  Machine *m = c->m;
  m->hooks.insn = on_insn;
  m->hooks.insn_user = t;
  block_hooks_set(&m->code, op_insn_hook, lo, hi, true);
  return t;
}

void trace_finish(Tracer *t) {
  if (!t) return;
  if (t->pending) write_changes(t, t->c->icount);
  t->pending = false;
  fflush(t->out);
  for (size_t i = 0; i < t->n_syms; i++) free(t->syms[i].name);
  free(t->syms);
  free(t->ranges);
  free(t->texts);
  free(t);
}
