/* stats.h: --stats=json:PATH, the command's statistics of a run as JSON: instructions in
 * all, per mnemonic and per function, the code cache's work, the system calls by name.
 * The schema is in docs/stats.md. It counts from the core's instruction hook. */
#ifndef X64EMU_STATS_H
#define X64EMU_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "interp/cpu.h"

typedef struct Stats Stats;

/* Counts the instructions of the program at path, loaded and about to run on c;
 * syscall_counts are the calls by number (X64_NR_COUNT + 1 entries, the shim's). NULL
 * without memory. */
Stats *stats_start(Cpu *c, const char *path, const uint64_t *syscall_counts);

/* Before the instruction at rip. */
void stats_insn(Stats *s, uint64_t rip);

/* Writes the JSON document to path and ends the count; false (errno set) if it cannot. */
bool stats_finish(Stats *s, const char *path);

#endif
