/* api_hooks.c: the hooks: a list per machine, and the core's callbacks that run them. */
#include <stdlib.h>
#include <string.h>

#include "../interp/run.h"
#include "api.h"

static bool watches(const Hook *h, uint64_t address) {
  return address >= h->begin && (h->end == 0 || address < h->end);
}

/* Several instruction hooks, or one that watches less than the decoded range. */
static void on_insn(void *embedder, uint64_t rip, unsigned len, void *unused) {
  x64emu *x = embedder;
  for (size_t i = 0; i < x->n_insn_hooks; i++) {
    const Hook *h = &x->insn_hooks[i];
    if (watches(h, rip)) ((x64emu_insn_hook)h->fn)(x, rip, len, h->user);
  }
}

static void on_block(void *embedder, uint64_t start, uint64_t len, void *unused) {
  x64emu *x = embedder;
  for (size_t i = 0; i < x->n_hooks; i++) {
    const Hook *h = &x->hooks[i];
    if (h->kind == HOOK_BLOCK && watches(h, start))
      ((x64emu_block_hook)h->fn)(x, start, len, h->user);
  }
}

/* An access overlaps [begin, end) when it starts before end and ends after begin. */
static void on_mem(void *embedder, bool write, uint64_t address, unsigned size, const void *data,
                   void *unused) {
  x64emu *x = embedder;
  int access = write ? X64EMU_MEM_WRITE : X64EMU_MEM_READ;
  x->in_mem_hook++;
  for (size_t i = 0; i < x->n_hooks; i++) {
    const Hook *h = &x->hooks[i];
    if (h->kind == HOOK_MEM && (h->access & access) && address + size > h->begin &&
        (h->end == 0 || address < h->end))
      ((x64emu_mem_hook)h->fn)(x, access, address, size, data, h->user);
  }
  x->in_mem_hook--;
}

bool api_hooks_event(x64emu *x, HookKind kind, const x64emu_stop *event) {
  for (size_t i = 0; i < x->n_hooks; i++) {
    const Hook *h = &x->hooks[i];
    if (h->kind == kind && ((x64emu_event_hook)h->fn)(x, event, h->user)) return true;
  }
  return false;
}

/* The core decodes hook records for the span of every instruction hook, calls the block
 * callback only when a block hook exists, and runs the handlers that report memory
 * accesses only when a memory hook exists: no hook, no cost. */
bool api_hooks_update(x64emu *x) {
  uint64_t lo = UINT64_MAX, hi = 0;
  bool blocks = false, memory = false;
  Hook *insn = malloc((x->n_hooks + 1) * sizeof *insn);
  if (!insn) return false;
  free(x->insn_hooks);
  x->insn_hooks = insn;
  x->n_insn_hooks = 0;
  for (size_t i = 0; i < x->n_hooks; i++) {
    const Hook *h = &x->hooks[i];
    if (h->kind == HOOK_BLOCK) blocks = true;
    if (h->kind == HOOK_MEM) memory = true;
    if (h->kind != HOOK_INSN) continue;
    x->insn_hooks[x->n_insn_hooks++] = *h;
    if (h->begin < lo) lo = h->begin;
    uint64_t end = h->end ? h->end : UINT64_MAX;
    if (end > hi) hi = end;
  }
  bool insns = lo < hi;
  MachineHooks *mh = &x->m->hooks;
  /* One instruction hook is the core's own: its range is the decoded one, and its first
   * parameter, an x64emu *, is passed as the core's void * embedder. */
  typedef void (*CoreInsnHook)(void *, uint64_t, unsigned, void *);
  mh->insn = !insns ? NULL : x->n_insn_hooks == 1 ? (CoreInsnHook)x->insn_hooks[0].fn : on_insn;
  mh->insn_user = x->n_insn_hooks == 1 ? x->insn_hooks[0].user : NULL;
  mh->block = blocks ? on_block : NULL;
  mh->mem = memory ? on_mem : NULL;
  machine_watch(x->m, WATCH_HOOKS, memory);
  block_hooks_set(&x->m->code, insns ? op_insn_hook : NULL, lo, hi, blocks ? op_block_hook : NULL,
                  insns || blocks);
  return true;
}

static x64emu_status add(x64emu *x, Hook h, int *id) {
  if (!x || !h.fn || (h.end && h.end <= h.begin)) return X64EMU_ERR_ARG;
  if (x->running) return X64EMU_ERR_RUNNING;
  Hook *more = realloc(x->hooks, (x->n_hooks + 1) * sizeof *more);
  if (!more) return X64EMU_ERR_NOMEM;
  x->hooks = more;
  h.id = x->next_id;
  x->hooks[x->n_hooks++] = h;
  if (!api_hooks_update(x)) {
    x->n_hooks--;
    return X64EMU_ERR_NOMEM;
  }
  x->next_id++;
  if (id) *id = h.id;
  return X64EMU_OK;
}

x64emu_status x64emu_hook_insn(x64emu *x, uint64_t begin, uint64_t end, x64emu_insn_hook hook,
                               void *user, int *id) {
  return add(x, (Hook){.kind = HOOK_INSN, .begin = begin, .end = end, .fn = (void *)hook, .user = user}, id);
}

x64emu_status x64emu_hook_block(x64emu *x, uint64_t begin, uint64_t end, x64emu_block_hook hook,
                                void *user, int *id) {
  return add(x, (Hook){.kind = HOOK_BLOCK, .begin = begin, .end = end, .fn = (void *)hook, .user = user}, id);
}

x64emu_status x64emu_hook_mem(x64emu *x, int access, uint64_t begin, uint64_t end,
                              x64emu_mem_hook hook, void *user, int *id) {
  if (access <= 0 || (access & ~(X64EMU_MEM_READ | X64EMU_MEM_WRITE))) return X64EMU_ERR_ARG;
  return add(x, (Hook){.kind = HOOK_MEM, .access = access, .begin = begin, .end = end,
                       .fn = (void *)hook, .user = user}, id);
}

x64emu_status x64emu_hook_syscall(x64emu *x, x64emu_event_hook hook, void *user, int *id) {
  return add(x, (Hook){.kind = HOOK_SYSCALL, .fn = (void *)hook, .user = user}, id);
}

x64emu_status x64emu_hook_fault(x64emu *x, x64emu_event_hook hook, void *user, int *id) {
  return add(x, (Hook){.kind = HOOK_FAULT, .fn = (void *)hook, .user = user}, id);
}

x64emu_status x64emu_hook_invalid(x64emu *x, x64emu_event_hook hook, void *user, int *id) {
  return add(x, (Hook){.kind = HOOK_INVALID, .fn = (void *)hook, .user = user}, id);
}

x64emu_status x64emu_hook_remove(x64emu *x, int id) {
  if (!x) return X64EMU_ERR_ARG;
  if (x->running) return X64EMU_ERR_RUNNING;
  for (size_t i = 0; i < x->n_hooks; i++) {
    if (x->hooks[i].id != id) continue;
    Hook gone = x->hooks[i];
    memmove(&x->hooks[i], &x->hooks[i + 1], (--x->n_hooks - i) * sizeof *x->hooks);
    if (!api_hooks_update(x)) { /* put it back: nothing changed */
      memmove(&x->hooks[i + 1], &x->hooks[i], (x->n_hooks++ - i) * sizeof *x->hooks);
      x->hooks[i] = gone;
      return X64EMU_ERR_NOMEM;
    }
    return X64EMU_OK;
  }
  return X64EMU_ERR_HOOK;
}
