/* harness.h: what both differential testers share: the code and data area, the native
 * run, trap plumbing on both sides and the pieces of a report. */
#ifndef X64EMU_DIFF_HARNESS_H
#define X64EMU_DIFF_HARNESS_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "interp/cpu.h"

/* The emulated CPU; a host SIGFPE while emu_active is set lands in its fault_jmp. */
extern Cpu emu_cpu;
extern volatile sig_atomic_t emu_active;

/* Outcome is declared in diff.h with Regs (it includes the data image). */
struct Outcome;
struct Regs;

/* Capstone, the code page and data area below 2 GiB, the GS base, the trap handlers.
 * Prints why and returns false when something is missing. */
bool harness_init(const char *prog);

/* Runs the bytes at code_page natively from `in` (data starts as data_init); a trap is
 * reported in o->sig/o->code with the input registers. */
void run_native(const struct Regs *in, struct Outcome *o);

extern const char *const reg_names[16];
/* Flag letters "odszapc", upper case when set, '-' when outside mask. */
void flag_letters(uint64_t f, unsigned mask, char *out);
uint64_t env_u64(const char *name, uint64_t fallback);
/* The fixed seed of the default run (test_seed.h: X64EMU_DIFF_SEED or --seed replace it). */
#define DIFF_DEFAULT_SEED 0x7836346d6f64656cull
uint64_t name_hash(const char *s);

#endif
