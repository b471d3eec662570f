/* sysroot.c: looking paths up under the sysroot (sysroot.h). */
#define _GNU_SOURCE
#include "sysroot.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The dynamic loader's cache of where libraries are: the host's lists the host's own,
 * which must not leak into a sysroot's programs (on an x86-64 host they would load its
 * libc beside the sysroot's loader), so it is only ever the sysroot's. */
static const char loader_cache[] = "/etc/ld.so.cache";

bool sysroot_lookup(const char *prefix, const char *path, char out[PATH_MAX]) {
  if (!prefix || !*prefix || path[0] != '/') return false;
  /* The root itself stays the host's: a program that finds its directory by walking up
   * (zsh without $PWD) must meet the same root through "/" as through "..". */
  if (path[strspn(path, "/")] == '\0') return false;
  if (snprintf(out, PATH_MAX, "%s%s", prefix, path) >= PATH_MAX) return false;
  return faccessat(AT_FDCWD, out, F_OK, AT_SYMLINK_NOFOLLOW) == 0 || strcmp(path, loader_cache) == 0;
}

const char *sysroot_default(void) {
#ifdef __x86_64__
  return NULL;
#else
  static const char cross[] = "/usr/x86_64-linux-gnu";
  return access(cross, F_OK) == 0 ? cross : NULL;
#endif
}
