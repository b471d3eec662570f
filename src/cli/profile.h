/* profile.h: --profile=PATH, exact guest instruction counts per function and per call
 * edge, written in Valgrind's callgrind format (callgrind_annotate and KCachegrind read
 * it). The command calls it from the core's block hook: each block's instructions are
 * counted when the next begins, from the instruction count, so that one cut short (by a
 * fault) counts only what ran. */
#ifndef X64EMU_PROFILE_H
#define X64EMU_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "interp/cpu.h"

typedef struct Profile Profile;

/* Profiles the program at path, loaded and about to run on c; NULL without memory. */
Profile *profile_start(Cpu *c, const char *path);

/* Before the block at start, of len bytes: the core's block hook (MachineHooks.block),
 * with the profile as its user pointer, so that it is called with nothing between. */
void profile_block(void *embedder, uint64_t start, uint64_t len, void *profile);

/* Writes the profile to path and ends it; false (errno set) if it cannot. */
bool profile_finish(Profile *p, const char *path);

#endif
