/* trace.c: the instruction tracer (trace.h). The command calls it from the core's
 * instruction hook before every instruction in the span of the filter; what an
 * instruction changed is known at the next call, so each call first writes the changes
 * of the instruction before, then the line of its own. The core's instruction count
 * tells whether other (untraced) instructions ran between. */
#include "trace.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder/decode.h"
#include "interp/fault.h"
#include "interp/flags.h"
#include "interp/machine.h"
#include "symbols.h"

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
  bool syscall;   /* the instruction is SYSCALL (0f 05) */
} Text;

struct Tracer {
  Cpu *c;
  FILE *out;
  Symbols syms;
  Span *ranges; /* empty: everything */
  size_t n_ranges;
  bool pending;  /* a traced instruction whose changes are not written yet */
  uint64_t icount_before; /* the instruction count as it began */
  Registers before;
  Text *texts;
};

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
      const Symbol *f = symbols_named(&t->syms, item);
      if (!f) {
        snprintf(err, errlen, "--trace: no function '%s' in the program's symbol table", item);
        ok = false;
      } else {
        r = (Span){f->start, f->start + (f->size ? f->size : 1)};
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

static const Text *text_of(Tracer *t, uint64_t rip) {
  Text *e = &t->texts[(rip * 0x9E3779B97F4A7C15ull) >> 52];
  if (e->rip == rip && e->line[0]) return e;
  uint8_t bytes[15];
  unsigned n = fault_copy_in(bytes, rip, sizeof bytes);
  char asm_text[80];
  unsigned len = decode_text(&t->c->m->dec, rip, bytes, n, asm_text, sizeof asm_text);
  int at = 0;
  for (unsigned i = 0; i < (len ? len : 1) && i < n; i++)
    at += snprintf(e->line + at, sizeof e->line - (size_t)at, "%02x ", bytes[i]);
  snprintf(e->line + at, sizeof e->line - (size_t)at, "%*s%s", at < 30 ? 30 - at : 1, "", asm_text);
  e->syscall = n >= 2 && bytes[0] == 0x0f && bytes[1] == 0x05;
  e->rip = rip;
  return e;
}

void trace_insn(Tracer *t, uint64_t rip) {
  if (t->pending) write_changes(t, t->c->icount + t->c->hooked.nth);
  t->pending = traced(t, rip);
  if (!t->pending) return;
  const Symbol *s = symbols_at(&t->syms, rip);
  const Text *text = text_of(t, rip);
  if (s) fprintf(t->out, "%#018" PRIx64 " <%s+%#" PRIx64 ">  %s\n", rip, s->name, rip - s->start, text->line);
  else fprintf(t->out, "%#018" PRIx64 "  %s\n", rip, text->line);
  /* A system call may end the process at once (abort's tgkill under the host's default
   * action): what was traced up to it is written out first. */
  if (text->syscall) fflush(t->out);
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
  if (!symbols_read(&t->syms, path, c->rip) || (filter && *filter && !parse_filter(t, filter, err, errlen))) {
    if (!err[0]) snprintf(err, errlen, "--trace: cannot read %s", path);
    trace_finish(t);
    return NULL;
  }
  return t;
}

/* The span of the filter: outside it the code runs without hook records. */
void trace_span(const Tracer *t, uint64_t *lo, uint64_t *hi) {
  *lo = t->n_ranges ? UINT64_MAX : 0;
  *hi = t->n_ranges ? 0 : UINT64_MAX;
  for (size_t i = 0; i < t->n_ranges; i++) {
    if (t->ranges[i].lo < *lo) *lo = t->ranges[i].lo;
    if (t->ranges[i].hi > *hi) *hi = t->ranges[i].hi;
  }
}

void trace_finish(Tracer *t) {
  if (!t) return;
  if (t->pending) write_changes(t, t->c->icount);
  t->pending = false;
  fflush(t->out);
  symbols_free(&t->syms);
  free(t->ranges);
  free(t->texts);
  free(t);
}
