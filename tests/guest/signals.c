/* signals.c: guest signal handlers: raise, kill, a blocked signal left pending, a fault
 * caught and escaped with siglongjmp, SA_SIGINFO details and SIG_IGN. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t usr1_count, last_sig;
static sigjmp_buf escape;
static volatile int fault_code;
static void *volatile fault_addr;

static void on_usr1(int sig) {
  usr1_count++;
  last_sig = sig;
}

static void on_fault(int sig, siginfo_t *info, void *context) {
  (void)context;
  last_sig = sig;
  fault_code = info->si_code;
  fault_addr = info->si_addr;
  siglongjmp(escape, 1);
}

static int *volatile bad_pointer = (int *)0x10;
static volatile int zero = 0, nine = 9;

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGUSR1, &sa, NULL);
  raise(SIGUSR1);
  printf("raise: handler ran %d time(s), signal %d\n", usr1_count, last_sig);
  kill(getpid(), SIGUSR1);
  printf("kill self: handler ran %d time(s)\n", usr1_count);

  sigset_t set, pending;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  sigprocmask(SIG_BLOCK, &set, NULL);
  raise(SIGUSR1);
  sigpending(&pending);
  printf("while blocked: handler ran %d time(s), pending %d\n", usr1_count,
         sigismember(&pending, SIGUSR1));
  sigprocmask(SIG_UNBLOCK, &set, NULL);
  printf("after unblocking: handler ran %d time(s)\n", usr1_count);

  signal(SIGUSR2, SIG_IGN);
  raise(SIGUSR2);
  printf("ignored SIGUSR2: still running\n");

  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigaction(SIGSEGV, &sa, NULL);
  sigaction(SIGFPE, &sa, NULL);
  if (sigsetjmp(escape, 1) == 0) printf("%d\n", *bad_pointer);
  printf("SIGSEGV caught: signal %d, si_code %d (SEGV_MAPERR %d), si_addr %p\n", last_sig,
         fault_code, SEGV_MAPERR, fault_addr);
  if (sigsetjmp(escape, 1) == 0) printf("%d\n", nine / zero);
  printf("SIGFPE caught: signal %d, si_code %d (FPE_INTDIV %d)\n", last_sig, fault_code,
         FPE_INTDIV);
  if (sigsetjmp(escape, 1) == 0) printf("%d\n", *bad_pointer);
  printf("second SIGSEGV caught: signal %d\n", last_sig);
  return 0;
}
