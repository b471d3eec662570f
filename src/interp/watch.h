/* watch.h: what the copy of the handlers compiled with X64EMU_WATCH_MEMORY (access.h)
 * does around every guest load and store: the alignment check of EFLAGS.AC before it,
 * the report to the machine's memory hook after it. The decoder puts that copy into
 * blocks only while the machine watches (machine_watch), so that the handlers of a plain
 * run are the plain ones. */
#ifndef X64EMU_WATCH_H
#define X64EMU_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "cpu.h"

/* The CPU whose instructions this host thread runs (cpu_run sets it): access.h's loads
 * and stores name no CPU, being plain host accesses. */
extern __thread Cpu *watched_cpu;
static inline void memory_watch_cpu(Cpu *c) { watched_cpu = c; }

/* The alignment EFLAGS.AC asks of an access of size bytes, as this CPU checks it
 * (measured, docs/cpu-model.md): its size for 2, 4 and 8 bytes, 8 for the x87's 10-byte
 * operands, 4 for the x87 environment and state images (2 for their 16-bit layouts);
 * none for 16 bytes (the
 * aligned SSE forms #GP first, the unaligned ones are not checked). */
static inline unsigned ac_alignment(unsigned size) {
  switch (size) {
  case 2: case 4: case 8: return size;
  case 10: return 8;
  case 28: case 108: return 4;
  case 14: case 94: return 2;
  default: return 1;
  }
}

/* #AC: the kernel's SIGBUS, BUS_ADRALN, address 0, trapno 17. */
_Noreturn void memory_misaligned(Cpu *c);

/* Before an access of size bytes at a (a probe counts as one of `size`). */
static inline void memory_align_check(uint64_t a, unsigned size) {
  Cpu *c = watched_cpu;
  if (__builtin_expect((c->rflags & F_AC) != 0, 0) && (a & (ac_alignment(size) - 1)))
    memory_misaligned(c);
}

/* A load (write false) or store of size bytes at a, just made; data holds the bytes
 * read or written. Runs the machine's memory hook with RIP at the instruction. */
void memory_watched(uint64_t a, unsigned size, const void *data, bool write);

#endif
