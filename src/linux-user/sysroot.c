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
  /* Not where the host has an x86-64 loader of its own (multiarch libc6:amd64): the cross
   * sysroot keeps its libraries in lib/, which its loader searches after
   * /lib/x86_64-linux-gnu, so it would find the host's libc there, from another build of
   * glibc (a stack smashed at start-up, their private interfaces differing). */
  static const char cross[] = "/usr/x86_64-linux-gnu";
  if (access("/lib64/ld-linux-x86-64.so.2", F_OK) == 0) return NULL;
  return access(cross, F_OK) == 0 ? cross : NULL;
#endif
}
