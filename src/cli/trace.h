/* trace.h: --trace, the instruction tracer of the command: for each instruction run in
 * the filter, its address, symbol+offset, bytes and disassembly, then the registers it
 * changed (XMM as 128-bit hex). The command calls it from the core's instruction hook
 * (machine.h), whose records it asks for over trace_span. */
#ifndef X64EMU_TRACE_H
#define X64EMU_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "interp/cpu.h"

typedef struct Tracer Tracer;

/* Starts tracing the program at path, loaded and about to run on c: filter is NULL or ""
 * for every instruction, else a comma-separated list of function names of the program's
 * symbol table and hex address ranges (0x401000-0x402000); out is where lines go. NULL
 * with a one-line message in err when a name is unknown or a range malformed. */
Tracer *trace_start(Cpu *c, const char *path, const char *filter, FILE *out, char *err, size_t errlen);

/* The addresses [*lo, *hi) that hold every traced instruction. */
void trace_span(const Tracer *t, uint64_t *lo, uint64_t *hi);

/* Before the instruction at rip. */
void trace_insn(Tracer *t, uint64_t rip);

/* Writes what the last traced instruction changed, and ends the trace. */
void trace_finish(Tracer *t);

#endif
