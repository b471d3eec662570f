/* a64_access.h: whether an AArch64 instruction that faulted on memory was writing it.
 *
 * An aarch64 kernel says so in the signal frame (the exception syndrome's WnR bit); an
 * emulated one (qemu-user) leaves the syndrome out, and then the faulting instruction
 * itself tells: its encoding class and load/store bit (Arm ARM, "Loads and Stores" in
 * the A64 encoding index). Compiled on every host so that the tests can check it. */
#ifndef X64EMU_A64_ACCESS_H
#define X64EMU_A64_ACCESS_H

#include <stdint.h>

/* 1 if the instruction writes memory (stores, and atomic read-modify-writes, which the
 * syndrome reports as writes; DC ZVA), 0 if it only reads, -1 if it is no data access. */
int a64_access_writes(uint32_t insn);

#endif
