/* guest_pages.h: the guest's 4 KiB pages on host pages that are larger (16 or 64 KiB on
 * many arm64 kernels), as QEMU's linux-user keeps them. The guest's mappings and
 * protections are its machine's ranges, at 4 KiB; the host's pages follow them: a host
 * page holds whichever guest pages lie in it, with the union of their protections, and
 * is unmapped when none is left. A guest mapping that starts, ends or takes its file
 * offset inside a host page is put together there: the host page made or kept, zeroed
 * for anonymous memory, the file's bytes read into it for a private file mapping.
 *
 * What cannot be kept: inside one host page, a guest page the guest cannot reach (a
 * PROT_NONE page, or one it unmapped) is reachable when another guest page of that host
 * page is; a shared file mapping whose offset does not meet the host's pages is
 * EINVAL; so is an mremap of such pieces that would have to move shared memory. These
 * functions are for hosts whose page is larger than GUEST_PAGE only. */
#ifndef X64EMU_GUEST_PAGES_H
#define X64EMU_GUEST_PAGES_H

#include <stdbool.h>
#include <stdint.h>

#include "../interp/cpu.h"

/* mmap at addr (MAP_FIXED, or MAP_FIXED_NOREPLACE when noreplace) of len bytes (a
 * multiple of GUEST_PAGE), prot and flags as the guest gives them (flags without
 * MAP_FIXED*), fd and off (a multiple of GUEST_PAGE) for a file; the guest's ranges
 * updated. addr, or -errno. */
int64_t guest_pages_map_fixed(Cpu *c, uint64_t addr, uint64_t len, int prot, int flags, int fd,
                              uint64_t off, bool noreplace);

/* mmap where the guest's space has room (hint as mmap's; below top when not 0): the
 * file's offset kept in step with the host's pages, so that the host maps the file
 * itself. The address, or -errno. */
int64_t guest_pages_map(Cpu *c, uint64_t hint, uint64_t len, uint64_t top, int prot, int flags,
                        int fd, uint64_t off);

/* munmap and mprotect of [addr, addr + len) (multiples of GUEST_PAGE), checked by the
 * caller: 0 or -errno. */
int64_t guest_pages_unmap(Cpu *c, uint64_t addr, uint64_t len);
int64_t guest_pages_protect(Cpu *c, uint64_t addr, uint64_t len, int prot);

/* mremap of old (old_len bytes) to new_len (multiples of GUEST_PAGE) with mremap's
 * flags, for mappings that do not fill their host pages: shrunk in place, or moved
 * (copied) when MREMAP_MAYMOVE allows. The address, or -errno. */
int64_t guest_pages_remap(Cpu *c, uint64_t old, uint64_t old_len, uint64_t new_len, int flags);

/* madvise of [addr, addr + len) (addr a multiple of GUEST_PAGE): the host's advice for
 * the host pages it covers whole; with destructive advice (MADV_DONTNEED and its kin)
 * the pieces of host pages are zeroed, as discarded private memory reads. 0 or -errno. */
int64_t guest_pages_advise(Cpu *c, uint64_t addr, uint64_t len, int advice, bool destructive);

/* mincore: a byte a guest page into vec, each its host page's. 0 or -errno. */
int64_t guest_pages_mincore(uint64_t addr, uint64_t len, uint8_t *vec);

#endif
