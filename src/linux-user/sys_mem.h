/* sys_mem.h: which parts of the address space belong to the guest. */
#ifndef X64EMU_SYS_MEM_H
#define X64EMU_SYS_MEM_H

#include <stdbool.h>
#include <stdint.h>

/* Records [addr, addr+len) as guest memory (the loader's image and stack): the guest may
 * then map over, unmap and re-protect it. Whatever else is mapped belongs to the emulator
 * and is refused to MAP_FIXED, munmap, mremap, mprotect and destructive madvise. Until the
 * first call, the shim guesses the loader's mappings from the heap and stack positions. */
void guest_mem_note(uint64_t addr, uint64_t len);

/* Whether any part of [addr, addr+len) is mapped but is not guest memory. */
bool guest_mem_hits_emulator(uint64_t addr, uint64_t len);

#endif
