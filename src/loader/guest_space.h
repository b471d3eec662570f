/* guest_space.h: where the guest's mappings go when it names no address. */
#ifndef X64EMU_GUEST_SPACE_H
#define X64EMU_GUEST_SPACE_H

#include <stdint.h>
#include <sys/types.h>
#include <unistd.h>

#include "../interp/ranges.h"

/* Guest addresses are host addresses, and the host kernel would put a guest's mmap(NULL)
 * among the emulator's own memory (its heap, libraries, threads' stacks, decoded code),
 * where a guest that overruns a buffer reaches it. So x64emu places them itself, as the
 * kernel does but in a window of their own: the stack at its top, then top-down below
 * the stack's room as the kernel's mmap_base does, everything below x86-64's 2^47 limit
 * whatever the host's. The window ends a sixteenth of the address space below where the
 * host maps the emulator's memory (a terabyte or more on x86-64), which grows away from
 * it or towards it only after using that much. */
#define GUEST_USER_TOP 0x800000000000ull /* x86-64's user address space ends at 2^47 */

/* x86-64's page: the unit of the guest's mappings, protections and file offsets. */
#define GUEST_PAGE 4096ull

/* The host's page size, a multiple of GUEST_PAGE (16 or 64 KiB on many arm64 kernels):
 * the unit of the host's mappings. X64EMU_HOST_PAGE (a larger power of two, up to
 * 1 MiB) makes x64emu keep to that unit as if the host's pages were that large, which
 * tests the guest's 4 KiB pages on large host pages on any machine. */
uint64_t host_page(void);

/* a rounded to the guest's page, or to the host's, up or down. */
static inline uint64_t guest_page_up(uint64_t a) { return (a + GUEST_PAGE - 1) & ~(GUEST_PAGE - 1); }
static inline uint64_t host_page_up(uint64_t a) { return (a + host_page() - 1) & ~(host_page() - 1); }
static inline uint64_t host_page_down(uint64_t a) { return a & ~(host_page() - 1); }

typedef struct GuestSpace {
  RangeSet *mem;     /* the guest's mappings, which placement steps around */
  uint64_t lo;       /* the lowest address given out */
  uint64_t mmap_top; /* mappings go below it, highest first */
  uint64_t stack_top;
} GuestSpace;

enum { GUEST_STACK_ROOM = 128 << 20 }; /* between stack_top and mmap_top, as the kernel's
                                          smallest stack gap */

/* The window for this process, from where the host maps new memory now. */
void guest_space_init(GuestSpace *gs, RangeSet *mem);

/* mmap of len bytes (prot, flags, fd and off as mmap takes them; no MAP_FIXED) at hint
 * when [hint, hint + len) is free, else at the highest free address of the window that
 * is a multiple of align (a power of two, at least a page) and stays under top (0: the
 * window's mmap_top). Memory of the host's own found there is stepped around. The
 * address, or MAP_FAILED with errno (ENOMEM when the window is full). The caller adds
 * the mapping to gs->mem. Without a window (mmap_top 0) the host places it. */
void *guest_space_map(const GuestSpace *gs, uint64_t hint, uint64_t len, uint64_t align,
                      uint64_t top, int prot, int flags, int fd, off_t off);

#endif
