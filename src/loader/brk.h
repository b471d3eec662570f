/* brk.h: the guest's program break, in an address range reserved for it alone. */
#ifndef X64EMU_BRK_H
#define X64EMU_BRK_H

#include <stdint.h>

#include "../linux-user/process.h"

#define BRK_RESERVE (1ull << 30) /* address space set aside for the guest heap at first */

/* Reserves up to BRK_RESERVE bytes (PROT_NONE) starting at start (page-aligned, just past
 * the loaded image), less if something already lives there, and makes it p's heap. */
void brk_init(Process *p, uint64_t start);

/* Makes [start, end), already reserved PROT_NONE by the caller, p's heap. */
void brk_adopt(Process *p, uint64_t start, uint64_t end);

/* The brk system call: moves the break to want and returns the new break, or the old one
 * when want is below the start of the heap, beyond RLIMIT_DATA, or where the reservation
 * cannot grow (another mapping is in the way, as the kernel's brk would find). The break's
 * pages are the guest's (GUEST_PAGE): those up to it are read-write, those beyond it
 * the guest's no longer. Host pages wholly beyond it are PROT_NONE and read as zero when
 * the break grows again; on a host with larger pages, the guest pages a shrink leaves in
 * the break's host page keep their bytes: the caller zeroes them. */
uint64_t brk_set(Process *p, uint64_t want);

#endif
