/* fuzz_elf.c: libFuzzer target for the ELF loader: any file is refused with a message or
 * mapped (and unmapped again), never a crash, a leak or a sanitizer report. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "loader/elf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int fd = memfd_create("fuzz-elf", MFD_CLOEXEC);
  if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
    if (fd >= 0) close(fd);
    return 0;
  }
  char path[64], err[8192];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  ElfImage img;
  /* One guest space for every input (finding its window costs a mapping of its own);
   * the set of the input's mappings starts empty each time. */
  static RangeSet mapped;
  static GuestSpace space;
  if (!space.mem) guest_space_init(&space, &mapped);
  if (elf_map(path, &img, 1 << 20, &space, err, sizeof err) == 0)
    munmap((void *)(uintptr_t)img.lo, img.room_end - img.lo);
  ranges_free(&mapped);
  close(fd);
  return 0;
}
