/* vsyscall.h: the legacy vsyscall page at 0xffffffffff600000, as the kernel's
 * vsyscall=emulate gives it: old static programs call gettimeofday, time and getcpu
 * there. */
#ifndef X64EMU_VSYSCALL_H
#define X64EMU_VSYSCALL_H

#include <stdbool.h>

#include "../interp/cpu.h"

/* For a fault of the guest (c->fault): when it is a call into the vsyscall page, does
 * what the kernel does (the call and the return to the caller, or the SIGSEGV the kernel
 * sends) and returns true; otherwise false, and the fault is the guest's as it is. */
bool vsyscall_emulate(Cpu *c);

#endif
