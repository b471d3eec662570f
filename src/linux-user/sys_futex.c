/* sys_futex.c: futex, which glibc uses for its locks even in a single-threaded process. */
#include <sys/syscall.h>
#include <unistd.h>

#include "sys_common.h"

/* Futex words are guest memory, which is host memory, and the operations, flags and the
 * timespec layout are the same on every 64-bit Linux: the host kernel does the work. */
int64_t sys_futex(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_futex, GUEST_PTR(a[0]), (int)a[1], (uint32_t)a[2],
                             GUEST_PTR(a[3]), GUEST_PTR(a[4]), (uint32_t)a[5]));
}
