/* under_qemu.h: whether x64emu runs under qemu-user, as in the aarch64 tests: they set
 * X64EMU_TEST_UNDER_QEMU, which compare.sh gives the native run too, so that both print
 * alike. For the programs that leave out what qemu gets wrong, or do less there of what
 * only repeats (qemu makes x64emu's aarch64 build many times slower). */
#ifndef X64EMU_TEST_UNDER_QEMU_H
#define X64EMU_TEST_UNDER_QEMU_H

#include <stdbool.h>
#include <stdlib.h>

static inline bool under_qemu(void) { return getenv("X64EMU_TEST_UNDER_QEMU") != NULL; }

#endif
