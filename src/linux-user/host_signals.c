/* host_signals.c: the host kernel's signal calls, for all of its 64 signals (see the
 * header for why the C library's are not enough). */
#define _GNU_SOURCE
#include "host_signals.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/single_threaded.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { KERNEL_SIGSET_SIZE = 8, KERNEL_SA_RESTORER = 0x04000000 };

/* The kernel's struct sigaction: x86-64 and aarch64 have a return path (restorer)
 * field; the generic layout (riscv64, loongarch64) has none. */
typedef struct {
  void *handler;
  unsigned long flags;
#if defined(__x86_64__) || defined(__aarch64__)
  void *restorer;
#endif
  uint64_t mask;
} KernelSigaction;

uint64_t host_sigset_bits(const sigset_t *set) {
  uint64_t mask;
  memcpy(&mask, set, sizeof mask);
  return mask;
}

void host_sigset_put(sigset_t *set, uint64_t mask) {
  sigemptyset(set);
  memcpy(set, &mask, sizeof mask);
}

void host_sigmask_set(uint64_t mask) {
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &mask, NULL, KERNEL_SIGSET_SIZE);
}

uint64_t host_sigmask_get(void) {
  uint64_t mask = 0;
  syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &mask, KERNEL_SIGSET_SIZE);
  return mask;
}

uint64_t host_sigpending(void) {
  uint64_t pending = 0;
  syscall(SYS_rt_sigpending, &pending, KERNEL_SIGSET_SIZE);
  return pending;
}

void host_sigsuspend(uint64_t mask) { syscall(SYS_rt_sigsuspend, &mask, KERNEL_SIGSET_SIZE); }

static void *nothing(void *arg) { return arg; }

/* The C library sets its two signals up when the process makes its first thread (glibc's
 * late_init), over whatever x64emu set: that must come first. */
static void libc_threads_ready(void) {
  pthread_t t;
  if (__libc_single_threaded && pthread_create(&t, NULL, nothing, NULL) == 0) pthread_join(t, NULL);
}

/* The C library's own actions for the signals it keeps, as x64emu found them: given back
 * when a guest lets the host's signal state go (a program that embeds x64emu may need
 * its library's set*id and cancellation afterwards). */
static KernelSigaction libc_action[65];
static bool libc_action_saved[65];

/* sa's disposition for sig; the C library's own two with the kernel's call. A handler
 * returns through the C library's return path (x86-64 needs one given), which its
 * sigaction gave x64emu's fault handler (fault.c, installed before any guest runs). */
static int set_action(int sig, struct sigaction *sa, uint64_t mask) {
  host_sigset_put(&sa->sa_mask, mask);
  if (sigaction(sig, sa, NULL) == 0) return 0;
  if (errno != EINVAL || sig < 1 || sig > 64) return -1;
  libc_threads_ready();
  KernelSigaction k, faults;
  if (syscall(SYS_rt_sigaction, SIGSEGV, NULL, &faults, KERNEL_SIGSET_SIZE) < 0) return -1;
  k = faults;
  k.handler = (void *)sa->sa_sigaction;
  k.flags = (unsigned long)sa->sa_flags | (faults.flags & KERNEL_SA_RESTORER);
  k.mask = mask;
  KernelSigaction *old = libc_action_saved[sig] ? NULL : &libc_action[sig];
  if (syscall(SYS_rt_sigaction, sig, &k, old, KERNEL_SIGSET_SIZE) < 0) return -1;
  if (old) libc_action_saved[sig] = true;
  return 0;
}

void host_signals_give_back(void) {
  for (int sig = 1; sig <= 64; sig++)
    if (libc_action_saved[sig]) {
      syscall(SYS_rt_sigaction, sig, &libc_action[sig], NULL, KERNEL_SIGSET_SIZE);
      libc_action_saved[sig] = false;
    }
}

int host_sigaction(int sig, void (*handler)(int, siginfo_t *, void *), int flags, uint64_t mask) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = handler;
  sa.sa_flags = flags | SA_SIGINFO;
  return set_action(sig, &sa, mask);
}

int host_sig_default(int sig, bool ignore, int flags) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = ignore ? SIG_IGN : SIG_DFL;
  sa.sa_flags = flags;
  return set_action(sig, &sa, 0);
}

bool host_sig_ignored(int sig) {
  KernelSigaction k;
  return syscall(SYS_rt_sigaction, sig, NULL, &k, KERNEL_SIGSET_SIZE) == 0 &&
         k.handler == (void *)SIG_IGN;
}
