/* sys_mem.h: which parts of the address space belong to the guest. */
#ifndef X64EMU_SYS_MEM_H
#define X64EMU_SYS_MEM_H

#include <stdbool.h>
#include <stdint.h>

#include "process.h"

/* Whether any part of [addr, addr+len) is mapped but is not guest memory (the machine's
 * ranges: what the loader and the guest's own calls mapped). Such memory is the
 * emulator's and is refused to MAP_FIXED, munmap, mremap, mprotect and destructive
 * madvise. A process made without the loader (tests) has its heap and stack guessed. */
bool guest_mem_hits_emulator(Cpu *c, uint64_t addr, uint64_t len);

#endif
