/* minsigstksz.c: AT_MINSIGSTKSZ is given (as Linux 5.14+ does on x86-64), and a handler on
 * an alternate stack of just that size (plus what the handler itself uses) runs and
 * returns. The values differ from the kernel's (its frame holds the host CPU's XSAVE
 * state), so only the outcome is printed. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <unistd.h>

static volatile sig_atomic_t handled;
static void on_usr1(int sig) { handled = sig; }

int main(void) {
  unsigned long min = getauxval(AT_MINSIGSTKSZ);
  printf("AT_MINSIGSTKSZ given: %d, at least the 512-byte FXSAVE image: %d\n", min != 0, min > 512);
  size_t size = min + 1024; /* the handler's own frame, and printf's in the kernel's case */
  char *mem = malloc(size + 4096);
  stack_t ss = {.ss_sp = mem + 4096, .ss_size = size};
  sigaltstack(&ss, NULL);
  struct sigaction sa = {.sa_handler = on_usr1, .sa_flags = SA_ONSTACK};
  sigaction(SIGUSR1, &sa, NULL);
  raise(SIGUSR1);
  printf("handler on a stack of AT_MINSIGSTKSZ + 1 KiB ran: %d\n", handled == SIGUSR1);
  return 0;
}
