/* syscall.h: the Linux x86-64 system call shim. */
#ifndef X64EMU_SYSCALL_H
#define X64EMU_SYSCALL_H

#include "../interp/cpu.h"

/* Performs the guest system call in rax with arguments in rdi, rsi, rdx, r10, r8, r9;
 * the result (or -errno) goes to rax. The caller has set rcx/r11 as SYSCALL does. */
void syscall_dispatch(Cpu *c);

#endif
