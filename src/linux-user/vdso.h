/* vdso.h: the vDSO each guest gets (AT_SYSINFO_EHDR), an x86-64 "linux-vdso.so.1" with
 * clock_gettime, gettimeofday, time, getcpu and clock_getres, as glibc, musl and Go look
 * for it. */
#ifndef X64EMU_VDSO_H
#define X64EMU_VDSO_H

#include <stddef.h>
#include <stdint.h>

#include "../loader/guest_space.h"

#define VDSO_SIZE 4096u /* one x86-64 page holds the whole image */

/* Writes the image (linked at address 0) into out[VDSO_SIZE]; returns its length in bytes. */
size_t vdso_image(uint8_t out[VDSO_SIZE]);

/* Maps the image read and execute in the guest's space, and adds it to space->mem.
 * Returns its address, or 0 with a one-line message in err. */
uint64_t vdso_map(const GuestSpace *space, char *err, size_t errlen);

#endif
