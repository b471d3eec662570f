/* api.h: the library's machine handle, behind include/x64emu/x64emu.h. */
#ifndef X64EMU_API_H
#define X64EMU_API_H

#include "../interp/machine.h"
#include "../linux-user/process.h"
#include "x64emu/x64emu.h"

typedef enum HookKind { HOOK_INSN, HOOK_BLOCK, HOOK_MEM, HOOK_SYSCALL, HOOK_FAULT, HOOK_INVALID } HookKind;

typedef struct Hook {
  int id;
  HookKind kind;
  int access;          /* MEM: X64EMU_MEM_READ and/or X64EMU_MEM_WRITE */
  uint64_t begin, end; /* INSN, BLOCK and MEM: the addresses watched, [begin, end) */
  void *fn;            /* the x64emu_*_hook of its kind */
  void *user;
} Hook;

struct x64emu {
  Machine *m;     /* bare_machine, or the Linux process's */
  Cpu *c;         /* bare_cpu, or the Linux process's thread's */
  Process *proc;  /* Linux machines only */
  Machine bare_machine;
  Cpu bare_cpu;
  Hook *hooks;     /* every hook, in the order added */
  size_t n_hooks;
  Hook *insn_hooks; /* the instruction hooks among them, for the per-instruction call */
  size_t n_insn_hooks;
  int next_id;
  bool running;
  unsigned in_mem_hook; /* a memory hook runs: the instruction is halfway */
  int mem_fd;     /* /proc/self/mem: reads and writes whatever the protection */
};

/* The hooks' side of running: each kind's dispatch in the core, set up again whenever
 * the list of hooks changes (api_hooks.c); false (nothing changed) without memory. */
bool api_hooks_update(x64emu *x);

/* Runs the event hooks of a kind for a stop; true if one handled it. */
bool api_hooks_event(x64emu *x, HookKind kind, const x64emu_stop *event);

#endif
