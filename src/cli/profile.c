/* profile.c: --profile (profile.h). Every instruction adds one to its function's own
 * count; a CALL that went elsewhere than its next instruction opens a frame on a shadow
 * stack, and the RET to that frame's return address closes it, adding the instructions
 * run in between to the caller-to-callee edge (a return that skips frames, as longjmp
 * does, closes them all). A call into a function already running (recursion) counts as a
 * call but adds no cost: the outermost call has it all, so that inclusive counts, which
 * callgrind_annotate sums over the edges, do not count the recursion twice. */
#include "profile.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder/decode.h"
#include "interp/fault.h"
#include "interp/machine.h"
#include "sites.h"
#include "symbols.h"

enum Kind { OTHER, CALL, RET };

typedef struct Frame {
  uint64_t ret, start; /* the return address; the instruction count at the call */
  const Symbol *caller, *callee;
  bool nested;         /* callee was already running below */
} Frame;

typedef struct Edge {
  const Symbol *caller, *callee;
  uint64_t calls, inclusive;
} Edge;

typedef struct Own {
  const Symbol *fn;
  uint64_t n;
} Own;

struct Profile {
  Cpu *c;
  const char *path;
  Symbols syms;
  Sites sites;
  Frame *stack;
  size_t depth, room;
  Edge *edges;
  size_t n_edges;
  Own *own; /* per function, indexed as syms.v; the last entry is "(no symbol)" */
  uint64_t total;
  uint8_t prev_kind;     /* the previous instruction's: OTHER before the first */
  const Symbol *prev_fn;
  uint64_t prev_next;    /* the address after it */
};

Profile *profile_start(Cpu *c, const char *path) {
  Profile *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->c = c;
  p->path = path;
  symbols_read(&p->syms, path, c->rip);
  p->own = calloc(p->syms.n + 1, sizeof *p->own);
  if (!p->own || !sites_init(&p->sites)) {
    profile_finish(p, NULL);
    return NULL;
  }
  for (size_t i = 0; i < p->syms.n; i++) p->own[i].fn = &p->syms.v[i];
  return p;
}

/* The site of rip, its function and kind found on its first run; NULL without memory. */
static const Site *site(Profile *p, uint64_t rip) {
  bool fresh;
  Site *k = sites_get(&p->sites, rip, &fresh);
  if (k && fresh) {
    uint8_t bytes[15];
    char text[160];
    unsigned n = fault_copy_in(bytes, rip, sizeof bytes);
    decode_text(&p->c->m->dec, rip, bytes, n, text, sizeof text);
    k->fn = symbols_at(&p->syms, rip);
    k->kind = strncmp(text, "call", 4) == 0 ? CALL : strncmp(text, "ret", 3) == 0 ? RET : OTHER;
  }
  return k;
}

static Edge *edge(Profile *p, const Symbol *caller, const Symbol *callee) {
  for (size_t i = 0; i < p->n_edges; i++)
    if (p->edges[i].caller == caller && p->edges[i].callee == callee) return &p->edges[i];
  Edge *more = realloc(p->edges, (p->n_edges + 1) * sizeof *more);
  if (!more) return NULL;
  p->edges = more;
  p->edges[p->n_edges] = (Edge){caller, callee, 0, 0};
  return &p->edges[p->n_edges++];
}

static void close_frame(Profile *p) {
  Frame *f = &p->stack[--p->depth];
  Edge *e = edge(p, f->caller, f->callee);
  if (e) {
    e->calls++;
    if (!f->nested) e->inclusive += p->total - f->start;
  }
}

void profile_insn(Profile *p, uint64_t rip, unsigned len) {
  if (p->prev_kind == CALL && rip != p->prev_next) {
    if (p->depth == p->room) {
      size_t room = p->room ? 2 * p->room : 256;
      Frame *more = realloc(p->stack, room * sizeof *more);
      if (more) p->stack = more, p->room = room;
    }
    if (p->depth < p->room) {
      const Symbol *callee = symbols_at(&p->syms, rip);
      bool nested = false;
      for (size_t d = 0; d < p->depth && !nested; d++) nested = p->stack[d].callee == callee;
      p->stack[p->depth++] = (Frame){p->prev_next, p->total, p->prev_fn, callee, nested};
    }
  } else if (p->prev_kind == RET) {
    size_t d = p->depth;
    while (d > 0 && p->stack[d - 1].ret != rip) d--;
    while (d > 0 && p->depth >= d) close_frame(p); /* this frame, and any it skipped */
  }
  const Site *s = site(p, rip);
  p->total++;
  p->own[s && s->fn ? (size_t)(s->fn - p->syms.v) : p->syms.n].n++;
  p->prev_kind = s ? s->kind : OTHER;
  p->prev_fn = s ? s->fn : NULL;
  p->prev_next = rip + len;
}

/* A function's name in the file: "(id) name" the first time, "(id)" after. */
static void write_fn(FILE *f, const Profile *p, const Symbol *fn, bool *named) {
  size_t id = fn ? (size_t)(fn - p->syms.v) : p->syms.n;
  if (named[id]) fprintf(f, "(%zu)\n", id + 1);
  else fprintf(f, "(%zu) %s\n", id + 1, fn ? fn->name : "(no symbol)");
  named[id] = true;
}

bool profile_finish(Profile *p, const char *path) {
  bool ok = true;
  while (p->depth > 0) close_frame(p); /* what is still running counts to the end */
  bool *named = path ? calloc(p->syms.n + 1, sizeof *named) : NULL;
  FILE *f = named ? fopen(path, "w") : NULL;
  if (path) {
    ok = f != NULL;
    if (f) {
      fprintf(f, "# callgrind format\nversion: 1\ncreator: x64emu\ncmd: %s\npositions: line\n"
                 "events: Ir\nsummary: %" PRIu64 "\n\nob=(1) %s\nfl=(1) ???\n", p->path, p->total,
              p->path);
      for (size_t i = 0; i <= p->syms.n; i++) {
        const Symbol *fn = i < p->syms.n ? &p->syms.v[i] : NULL;
        bool calls = false;
        for (size_t e = 0; e < p->n_edges && !calls; e++) calls = p->edges[e].caller == fn;
        if (!p->own[i].n && !calls) continue;
        fputs("fn=", f);
        write_fn(f, p, fn, named);
        fprintf(f, "0 %" PRIu64 "\n", p->own[i].n);
        for (size_t e = 0; e < p->n_edges; e++) {
          if (p->edges[e].caller != fn) continue;
          fputs("cfn=", f);
          write_fn(f, p, p->edges[e].callee, named);
          fprintf(f, "calls=%" PRIu64 " 0\n0 %" PRIu64 "\n", p->edges[e].calls, p->edges[e].inclusive);
        }
        fputc('\n', f);
      }
      ok = fclose(f) == 0;
    }
  }
  free(named);
  symbols_free(&p->syms);
  sites_free(&p->sites);
  free(p->stack);
  free(p->edges);
  free(p->own);
  free(p);
  return ok;
}
