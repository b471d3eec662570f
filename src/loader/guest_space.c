/* guest_space.c: the guest's mappings placed in a window of their own (guest_space.h). */
#define _GNU_SOURCE
#include "guest_space.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define GUEST_LO 0x10000ull /* the kernel's usual vm.mmap_min_addr */

uint64_t host_page(void) {
  static uint64_t page;
  if (!page) {
    uint64_t real = (uint64_t)sysconf(_SC_PAGESIZE), want = real;
    const char *v = getenv("X64EMU_HOST_PAGE");
    if (v) want = strtoull(v, NULL, 0);
    page = want >= real && want <= (1u << 20) && !(want & (want - 1)) ? want : real;
  }
  return page;
}

void guest_space_init(GuestSpace *gs, RangeSet *mem) {
  *gs = (GuestSpace){.mem = mem};
#ifdef __SANITIZE_THREAD__
  /* ThreadSanitizer keeps most of the address space for its shadow and refuses mappings
   * outside the ranges it leaves the program: its build lets the host place them. */
  return;
#endif
  /* Where the host puts a fresh mapping now: the emulator's memory lies about there. */
  void *probe = mmap(NULL, host_page(), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (probe == MAP_FAILED) return; /* no window: the host places the guest's mappings */
  munmap(probe, host_page());
  uint64_t host = (uint64_t)(uintptr_t)probe;
  uint64_t top = host - host / 16;
  if (top > GUEST_USER_TOP - (GUEST_USER_TOP >> 7)) /* a host with more than 47 bits */
    top = GUEST_USER_TOP - (GUEST_USER_TOP >> 7);
  top &= ~(uint64_t)(host_page() - 1);
  if (top < GUEST_LO + 2ull * GUEST_STACK_ROOM) return;
  gs->lo = GUEST_LO;
  gs->stack_top = top;
  gs->mmap_top = top - GUEST_STACK_ROOM;
}

/* The lowest start of a host mapping that meets [lo, hi), from /proc/self/maps; lo when
 * none can be read (then the caller looks below lo). */
static uint64_t host_mapping_below(uint64_t lo, uint64_t hi) {
  FILE *f = fopen("/proc/self/maps", "re");
  uint64_t lowest = hi;
  unsigned long long s, e;
  char line[512];
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "%llx-%llx", &s, &e) == 2 && s < hi && e > lo && s < lowest) lowest = s;
  if (f) fclose(f);
  return lowest < hi ? lowest : lo;
}

void *guest_space_map(const GuestSpace *gs, uint64_t hint, uint64_t len, uint64_t align,
                      uint64_t top, int prot, int flags, int fd, off_t off) {
  if (!gs->mmap_top) return mmap((void *)(uintptr_t)hint, len, prot, flags, fd, off);
  uint64_t page = host_page(), span = (len + page - 1) & ~(page - 1);
  if (align < page) align = page;
  if (span < len) {
    errno = ENOMEM;
    return MAP_FAILED;
  }
  hint = (hint + page - 1) & ~(page - 1);
  bool hint_free = hint >= gs->lo && hint + span > hint && hint + span <= GUEST_USER_TOP &&
                   !ranges_meet(gs->mem, hint, hint + span);
  if (hint_free) {
    void *got = mmap((void *)(uintptr_t)hint, len, prot, flags | MAP_FIXED_NOREPLACE, fd, off);
    if (got == (void *)(uintptr_t)hint) return got;
    if (got != MAP_FAILED) munmap(got, len); /* a kernel that took the flag for a hint */
    else if (errno != EEXIST) return MAP_FAILED;
  }
  uint64_t below = top ? top : gs->mmap_top;
  for (;;) {
    uint64_t at = ranges_gap_below(gs->mem, gs->lo, below, span, align);
    if (!at) {
      errno = ENOMEM;
      return MAP_FAILED;
    }
    void *got = mmap((void *)(uintptr_t)at, len, prot, flags | MAP_FIXED_NOREPLACE, fd, off);
    if (got == (void *)(uintptr_t)at) return got;
    if (got != MAP_FAILED) munmap(got, len);
    else if (errno != EEXIST) return MAP_FAILED;
    below = host_mapping_below(at, at + span); /* the host's own memory is there */
  }
}
