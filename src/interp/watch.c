/* watch.c: reporting the watched handlers' accesses to the machine's memory hook. */
#include "watch.h"

#include "machine.h"

/* Per host thread, as a CPU runs on one host thread at a time. */
static __thread Cpu *running;

void memory_watch_cpu(Cpu *c) { running = c; }

void memory_watched(uint64_t a, unsigned size, const void *data, bool write) {
  Cpu *c = running;
  Machine *m = c->m;
  if (!m->hooks.mem) return;
  /* In the middle of an instruction: RIP reads as its address (a block's RIP is its end
   * until it leaves), and decoded blocks may be dropped but not reused (the handler
   * still reads its record). */
  uint64_t rip = c->rip;
  c->rip = c->cur->rip;
  m->code.holding++;
  m->hooks.mem(m->embedder, write, a, size, data, m->hooks.mem_user);
  m->code.holding--;
  c->rip = rip;
}
