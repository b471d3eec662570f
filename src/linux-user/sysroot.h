/* sysroot.h: an x86-64 sysroot (-L DIR, X64EMU_LD_PREFIX, QEMU_LD_PREFIX), as QEMU's
 * linux-user has it: an absolute path the guest names is looked up under DIR first, and
 * where nothing is there, on the host. So a dynamic program's loader and libraries come
 * from DIR on a host whose own are not x86-64's. The loader's cache (/etc/ld.so.cache),
 * which names the host's libraries, comes only from DIR. "/" itself is always the host's. */
#ifndef X64EMU_SYSROOT_H
#define X64EMU_SYSROOT_H

#include <limits.h>
#include <stdbool.h>

/* Whether prefix (NULL or "": none) holds the absolute path `path`: then *out is that
 * name under it. */
bool sysroot_lookup(const char *prefix, const char *path, char out[PATH_MAX]);

/* The default sysroot of this host: none where the host runs x86-64 programs itself or
 * has x86-64 libraries of its own (multiarch), else Debian's x86-64 cross sysroot
 * (libc6-amd64-cross) when it is installed; NULL if none. */
const char *sysroot_default(void);

#endif
