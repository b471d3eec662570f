/* profile.h: --profile=PATH, exact guest instruction counts per function and per call
 * edge, written in Valgrind's callgrind format (callgrind_annotate and KCachegrind read
 * it). The command calls it from the core's instruction hook. */
#ifndef X64EMU_PROFILE_H
#define X64EMU_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "interp/cpu.h"

typedef struct Profile Profile;

/* Profiles the program at path, loaded and about to run on c; NULL without memory. */
Profile *profile_start(Cpu *c, const char *path);

/* Before the instruction at rip, of len bytes. */
void profile_insn(Profile *p, uint64_t rip, unsigned len);

/* Writes the profile to path and ends it; false (errno set) if it cannot. */
bool profile_finish(Profile *p, const char *path);

#endif
