/* fault.c: the host signal handler that catches faults in guest memory accesses. */
#define _GNU_SOURCE /* REG_ERR */
#include "fault.h"

#include "../host/a64_access.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

__thread sigjmp_buf *fault_landing;
__thread uint64_t fault_addr;
__thread int fault_code;
__thread uint64_t fault_err;
__thread int fault_write = -1;
__thread bool fault_probing_write;
void (*fault_user_signal)(int sig, siginfo_t *si, void *uc);

#if defined(__aarch64__)
/* Whether the data abort behind a fault was a write: the WnR bit of the exception
 * syndrome, which the kernel leaves in the signal frame (an esr_context record among
 * those after the registers); without it (qemu-user leaves it out), what the faulting
 * instruction is; -1 when neither tells. */
static int fault_was_write(void *uc) {
  enum { ESR_RECORD = 0x45535201 /* ESR_MAGIC */, EC_DATA_ABORT_LOWER = 0x24, WNR = 1 << 6 };
  const uint8_t *at = (const uint8_t *)((ucontext_t *)uc)->uc_mcontext.__reserved;
  const uint8_t *end = at + sizeof ((ucontext_t *)uc)->uc_mcontext.__reserved;
  while (at + 8 <= end) {
    uint32_t magic, size;
    memcpy(&magic, at, 4);
    memcpy(&size, at + 4, 4);
    if (magic == 0 || size < 8) break;
    if (magic == ESR_RECORD && size >= 16) {
      uint64_t esr;
      memcpy(&esr, at + 8, 8);
      return (esr >> 26) == EC_DATA_ABORT_LOWER ? (esr & WNR) != 0 : -1;
    }
    at += size;
  }
  return a64_access_writes(*(const uint32_t *)(uintptr_t)((ucontext_t *)uc)->uc_mcontext.pc);
}
#endif

#if !defined(__x86_64__)
/* A non-canonical guest address, found before the access (access.h): the host fault's
 * way out, as the x86 host's #GP takes it (cpu_run decides #GP or #SS). */
_Noreturn void fault_noncanonical(void) {
  if (!fault_landing) abort();
  fault_code = SI_KERNEL;
  fault_addr = 0;
  siglongjmp(*fault_landing, SIGSEGV);
}
#endif

static void on_fault(int sig, siginfo_t *si, void *uc) {
  void (*user)(int, siginfo_t *, void *) = __atomic_load_n(&fault_user_signal, __ATOMIC_RELAXED);
  if (si->si_code <= 0 && user) { /* SI_USER, SI_TKILL, SI_QUEUE...: sent */
    user(sig, si, uc);
    return;
  }
  if (fault_landing) {
    fault_addr = (uint64_t)(uintptr_t)si->si_addr;
    fault_code = si->si_code;
#if defined(__x86_64__)
    fault_err = (uint64_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_ERR];
#elif defined(__aarch64__)
    fault_write = fault_probing_write ? 1 : fault_was_write(uc);
    fault_probing_write = false;
#endif
    siglongjmp(*fault_landing, sig);
  }
  static const char msg[] = "x64emu: internal error: host fault outside guest code\n";
  (void)!write(2, msg, sizeof msg - 1);
  signal(sig, SIG_DFL); /* returning re-executes the access and dies with the signal */
}

void fault_install(void) {
  static char altstack[64 * 1024];
  stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack};
  sigaltstack(&ss, NULL);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  /* NODEFER: we leave by siglongjmp without restoring the mask. */
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigaction(SIGSEGV, &sa, NULL);
  sigaction(SIGBUS, &sa, NULL);
}

/* Copies n bytes between the guest's memory, at guest, and the host's, up to the first
 * fault; returns how many it copied. A 4 KiB page at a time, since access is granted by
 * the page: a fault leaves the pages before it copied, and the count, kept where a fault
 * cannot lose it, is written once a page (written at every byte, the copy was a tenth of
 * a static hello world's start-up). Byte loads and stores, not memcpy, and not for
 * AddressSanitizer to judge: decoding reads up to 15 bytes ahead, as the CPU's fetch may,
 * and a sanitizer's memcpy would judge the guest's addresses. The addresses are integers
 * until each access, as a guest's may be 0. */
__attribute__((no_sanitize_address)) static unsigned copy_guarded(uintptr_t to, uintptr_t from,
                                                                  unsigned n, uint64_t guest) {
  enum { PAGE = 4096 };
  sigjmp_buf here, *saved = fault_landing;
  volatile unsigned copied = 0;
  if (sigsetjmp(here, 0) == 0) {
    fault_landing = &here;
    for (unsigned done = 0; done < n; copied = done) {
      unsigned end = done + PAGE - (unsigned)((guest + done) & (PAGE - 1));
      if (end > n) end = n;
      for (; done < end; done++)
        *(volatile uint8_t *)(to + done) = *(const volatile uint8_t *)(from + done);
    }
  }
  fault_landing = saved;
  return copied;
}

unsigned fault_copy_in(void *dst, uint64_t src, unsigned n) {
  return copy_guarded((uintptr_t)dst, (uintptr_t)src, n, src);
}

unsigned fault_copy_out(uint64_t dst, const void *src, unsigned n) {
  return copy_guarded((uintptr_t)dst, (uintptr_t)src, n, dst);
}
