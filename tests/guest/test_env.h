/* test_env.h: what a guest program's test tells it through the environment, which
 * compare.sh gives the native run too, so that both print alike:
 * - X64EMU_TEST_UNDER_QEMU: x64emu runs under qemu-user (the aarch64 tests); for the cases
 *   qemu itself gets wrong;
 * - X64EMU_TEST_FEWER_ROUNDS: x64emu runs many times slower than it does natively built
 *   (under qemu-user, or built with a sanitizer); programs do less of what only repeats. */
#ifndef X64EMU_TEST_ENV_H
#define X64EMU_TEST_ENV_H

#include <stdbool.h>
#include <stdlib.h>

static inline bool under_qemu(void) { return getenv("X64EMU_TEST_UNDER_QEMU") != NULL; }
static inline bool fewer_rounds(void) { return getenv("X64EMU_TEST_FEWER_ROUNDS") != NULL; }

#endif
