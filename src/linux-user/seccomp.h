/* seccomp.h: the guest's seccomp, strict mode and filters, run on each of its system
 * calls as the kernel runs them (struct seccomp_data with AUDIT_ARCH_X86_64 and x86-64's
 * numbers). Only the guest is filtered: the host process, whose calls are the emulator's,
 * is not. A thread's filters are its own, inherited by the threads and processes it
 * makes and kept across execve, as the kernel keeps them. */
#ifndef X64EMU_SECCOMP_H
#define X64EMU_SECCOMP_H

#include <stdbool.h>
#include <stdint.h>

#include "../interp/cpu.h"

/* One attached filter: immutable, shared by the threads that have it, and kept until the
 * process ends (the kernel frees it with the last task; a process attaches few), on the
 * process's list (Process.seccomp_kept), which seccomp_free_all frees. */
typedef struct SeccompFilter SeccompFilter;
void seccomp_free_all(SeccompFilter *kept);

typedef struct Seccomp {
  int mode;                /* 0, SECCOMP_MODE_STRICT (1) or SECCOMP_MODE_FILTER (2) */
  SeccompFilter *filters;  /* the newest, which points at those before it */
} Seccomp;

/* What seccomp says of the system call c is about to make (nr and args as the guest
 * passed them; c->rip after its SYSCALL): make it (SECCOMP_CALL), return *ret without
 * making it (SECCOMP_RETURN), or neither (SECCOMP_STOPPED): a SIGSYS's handler is
 * entered (rax still the call's number, which it returns unless the handler changes it),
 * or the thread or the process has ended. */
enum SeccompVerdict { SECCOMP_CALL, SECCOMP_RETURN, SECCOMP_STOPPED };
enum SeccompVerdict seccomp_check(Cpu *c, uint64_t nr, const uint64_t args[6], int64_t *ret);

/* seccomp(2), and prctl's PR_SET_SECCOMP and PR_GET_SECCOMP. */
int64_t sys_seccomp(Cpu *c, const uint64_t *a);
int64_t seccomp_prctl_set(Cpu *c, uint64_t mode, uint64_t prog);
int64_t seccomp_prctl_get(Cpu *c);

/* execve: c's seccomp as a descriptor for the new image (-1 when it has none, or on
 * failure, with errno), and the new image's from that descriptor (which it closes):
 * false if it cannot be read. */
int seccomp_pass(const Cpu *c);
bool seccomp_restore(Cpu *c, int fd);

#endif
