/* watch.h: the memory hook's side of the core. The copy of the handlers compiled with
 * X64EMU_WATCH_MEMORY (access.h) reports every guest load and store here; the decoder
 * puts that copy into blocks only while the machine watches memory (machine_watch_memory),
 * so that the handlers of an unwatched run are the plain ones. */
#ifndef X64EMU_WATCH_H
#define X64EMU_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "cpu.h"

/* A load (write false) or store of size bytes at a, just made; data holds the bytes
 * read or written. Runs the machine's memory hook with RIP at the instruction. */
void memory_watched(uint64_t a, unsigned size, const void *data, bool write);

/* The CPU whose instructions this host thread runs (cpu_run sets it): access.h's loads
 * and stores name no CPU, being plain host accesses. */
void memory_watch_cpu(Cpu *c);

#endif
