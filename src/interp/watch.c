/* watch.c: the watched handlers' reports to the machine's memory hook, and #AC. */
#include "watch.h"

#include <signal.h>

#include "machine.h"
#include "run.h"

/* Per host thread, as a CPU runs on one host thread at a time. */
__thread Cpu *watched_cpu;

void memory_misaligned(Cpu *c) {
  c->trapno = 17;
  c->trap_err = 0;
  guest_trap(c, SIGBUS, BUS_ADRALN, 0);
}

void memory_watched(uint64_t a, unsigned size, const void *data, bool write) {
  Cpu *c = watched_cpu;
  Machine *m = c->m;
  if (!m->hooks.mem) return;
  /* In the middle of an instruction: RIP reads as its address (a block's RIP is its end
   * until it leaves). The hook may drop decoded code, even all of it: the arena keeps the
   * record the handler still reads until the run loop decodes again. */
  uint64_t rip = c->rip;
  c->rip = cpu_insn(c)->rip;
  m->hooks.mem(m->embedder, write, a, size, data, m->hooks.mem_user);
  c->rip = rip;
}
