/* profile.c: --profile (profile.h). Every instruction adds one to its function's own
 * count, a block at a time; a block that ends in a CALL and is followed by another than
 * its next instruction opens a frame on a shadow stack, and the RET to that frame's
 * return address closes it, adding the instructions run in between to the
 * caller-to-callee edge (a return that skips frames, as longjmp does, closes them all). A
 * call into a function already running (recursion) counts as a call but adds no cost:
 * the outermost call has it all, so that inclusive counts, which callgrind_annotate sums
 * over the edges, do not count the recursion twice. */
#include "profile.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder/decode.h"
#include "interp/fault.h"
#include "interp/machine.h"
#include "interp/watch.h"
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
  Sites sites; /* the blocks */
  Frame *stack;
  size_t depth, room;
  Edge *edges;
  size_t n_edges;
  Own *own; /* per function, indexed as syms.v; the last entry is "(no symbol)" */
  uint64_t total;
  Site *running;      /* the block begun last, NULL before */
  uint64_t running_at; /* its address, and the table's size then: a larger table */
  size_t running_size; /* has moved it */
  uint64_t mark;      /* the instruction count when it began */
  const Cpu *marked;  /* whose count: the CPU (the guest thread) it runs on */
};

Profile *profile_start(Cpu *c, const char *path) {
  Profile *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->c = c;
  p->path = path;
  p->mark = c->icount;
  p->marked = c;
  symbols_read(&p->syms, path, c->rip);
  p->own = calloc(p->syms.n + 1, sizeof *p->own);
  if (!p->own || !sites_init(&p->sites)) {
    profile_finish(p, NULL);
    return NULL;
  }
  for (size_t i = 0; i < p->syms.n; i++) p->own[i].fn = &p->syms.v[i];
  return p;
}

static size_t own_index(const Profile *p, const Symbol *fn) {
  return fn ? (size_t)(fn - p->syms.v) : p->syms.n;
}

/* Fills a block's site from its instructions, read once. */
static void describe(Profile *p, Site *k, uint64_t start, uint64_t len) {
  free(k->each);
  k->each = NULL;
  k->len = (uint32_t)len;
  k->n = 0;
  k->kind = OTHER;
  k->fn = symbols_at(&p->syms, start);
  k->own = &p->own[own_index(p, k->fn)].n;
  const Symbol *fns[256];
  bool mixed = false;
  for (uint64_t at = start; at < start + len;) {
    uint8_t bytes[15];
    char text[160];
    unsigned n = fault_copy_in(bytes, at, sizeof bytes);
    unsigned size = decode_text(&p->c->m->dec, at, bytes, n, text, sizeof text);
    if (!size) break;
    const Symbol *fn = symbols_at(&p->syms, at);
    mixed |= fn != k->fn;
    if (k->n < sizeof fns / sizeof *fns) fns[k->n] = fn;
    k->n++;
    k->kind = strncmp(text, "call", 4) == 0 ? CALL : strncmp(text, "ret", 3) == 0 ? RET : OTHER;
    at += size;
  }
  /* A block that runs from one function into the next (one without a return, say). */
  size_t kept = k->n < sizeof fns / sizeof *fns ? k->n : sizeof fns / sizeof *fns;
  if (mixed && (k->each = malloc(kept * sizeof *k->each))) memcpy(k->each, fns, kept * sizeof *fns);
  if (k->each) k->n = (uint32_t)kept;
}

/* The running block's instructions, counted up to the instruction count `now`; whether
 * it ran to its end. */
static bool count_running(Profile *p, uint64_t now) {
  const Site *b = p->running;
  uint64_t ran = now - p->mark;
  p->mark = now;
  p->total += ran;
  if (!b) return false;
  if (!b->each) {
    *b->own += ran;
  } else { /* a REP string instruction's iterations count each: the excess to the last */
    for (uint32_t i = 0; i < b->n && i < ran; i++) p->own[own_index(p, b->each[i])].n++;
    if (ran > b->n) p->own[own_index(p, b->each[b->n - 1])].n += ran - b->n;
  }
  return ran >= b->n;
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

static void open_frame(Profile *p, uint64_t ret, const Symbol *caller, uint64_t rip) {
  if (p->depth == p->room) {
    size_t room = p->room ? 2 * p->room : 256;
    Frame *more = realloc(p->stack, room * sizeof *more);
    if (!more) return; /* out of memory: this call goes uncounted */
    p->stack = more, p->room = room;
  }
  const Symbol *callee = symbols_at(&p->syms, rip);
  bool nested = false;
  for (size_t d = 0; d < p->depth && !nested; d++) nested = p->stack[d].callee == callee;
  p->stack[p->depth++] = (Frame){ret, p->total, caller, callee, nested};
}

/* The CPU running now: this host thread's. */
static const Cpu *current_cpu(const Profile *p) { return watched_cpu ? watched_cpu : p->c; }

/* The CPU running now, and the instruction count to take the running block's from: when
 * another thread's CPU runs now, the block begun last ran on a CPU that may be gone, and
 * is taken as having run to its end. */
static const Cpu *switch_to_current(Profile *p, uint64_t *now) {
  const Cpu *c = current_cpu(p);
  *now = c == p->marked ? c->icount : p->mark + (p->running ? p->running->n : 0);
  return c;
}

/* The common case, a block of one function that ran to its end without calling or
 * returning, or left early, on the thread that began it, followed by one of the two
 * blocks that followed it last: no lookup. */
static bool followed_as_before(Profile *p, uint64_t start, uint64_t len) {
  Site *b = p->running;
  if (!b || b->each || p->sites.size != p->running_size) return false;
  Site *k = b->next[0] && b->next[0]->rip == start   ? b->next[0]
            : b->next[1] && b->next[1]->rip == start ? b->next[1]
                                                     : NULL;
  if (!k || k->len != len) return false;
  const Cpu *c = current_cpu(p);
  uint64_t ran = c->icount - p->mark;
  if (c != p->marked || ran > b->n || (ran == b->n && b->kind != OTHER)) return false;
  p->mark = c->icount;
  p->total += ran;
  *b->own += ran;
  p->running = k;
  p->running_at = start;
  return true;
}

/* Any other: the block's site from the table, described when new, and the call or return
 * the last one ended with. Out of line, so that the common case saves no registers. */
static __attribute__((noinline)) void new_block(Profile *p, uint64_t start, uint64_t len) {
  if (p->running && p->sites.size != p->running_size) { /* the table grew: find it again */
    bool fresh;
    p->running = sites_get(&p->sites, p->running_at, &fresh);
  }
  Site *b = p->running;
  uint64_t now;
  const Cpu *c = switch_to_current(p, &now);
  bool same_thread = c == p->marked;
  bool ran_to_end = count_running(p, now);
  if (!same_thread) { /* calls and returns pair up within a thread */
    p->marked = c;
    p->mark = c->icount;
  } else if (ran_to_end) {
    uint64_t next = b->rip + b->len;
    if (b->kind == CALL && start != next) {
      open_frame(p, next, b->each ? b->each[b->n - 1] : b->fn, start);
    } else if (b->kind == RET) {
      size_t d = p->depth;
      while (d > 0 && p->stack[d - 1].ret != start) d--;
      while (d > 0 && p->depth >= d) close_frame(p); /* this frame, and any it skipped */
    }
  }
  bool fresh;
  Site *k = sites_get(&p->sites, start, &fresh);
  if (k && (fresh || k->len != len)) describe(p, k, start, len); /* new, or code rewritten */
  if (k && b && p->sites.size == p->running_size && k != b->next[0]) { /* b did not move */
    b->next[1] = b->next[0];
    b->next[0] = k;
  }
  p->running = k;
  p->running_at = start;
  p->running_size = p->sites.size;
}

void profile_block(void *embedder, uint64_t start, uint64_t len, void *profile) {
  if (!followed_as_before(profile, start, len)) new_block(profile, start, len);
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
  uint64_t now;
  switch_to_current(p, &now);
  count_running(p, now);
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
  for (size_t i = 0; i < p->sites.size; i++) free(p->sites.v[i].each);
  sites_free(&p->sites);
  free(p->stack);
  free(p->edges);
  free(p->own);
  free(p);
  return ok;
}
