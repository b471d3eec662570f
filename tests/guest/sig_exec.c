/* sig_exec.c: what execve keeps of the signal state. The mask, ignored signals and
 * pending signals stay (also a signal taken while its handler's sa_mask blocked it);
 * handlers go back to SIG_DFL and the alternate stack goes away. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *self;

static const char *disposition(int sig) {
  struct sigaction sa;
  sigaction(sig, NULL, &sa);
  return sa.sa_handler == SIG_IGN ? "ignored" : sa.sa_handler == SIG_DFL ? "default" : "handled";
}

static int after_exec(void) {
  sigset_t mask, pending;
  sigprocmask(SIG_BLOCK, NULL, &mask);
  sigpending(&pending);
  int sigs[] = {SIGHUP, SIGUSR1, SIGUSR2, SIGFPE, SIGTERM};
  const char *names[] = {"SIGHUP", "SIGUSR1", "SIGUSR2", "SIGFPE", "SIGTERM"};
  for (int i = 0; i < 5; i++)
    printf("after exec: %-7s %s, %s, %s\n", names[i], disposition(sigs[i]),
           sigismember(&mask, sigs[i]) ? "blocked" : "not blocked",
           sigismember(&pending, sigs[i]) ? "pending" : "not pending");
  stack_t ss;
  sigaltstack(NULL, &ss);
  printf("after exec: alternate stack %s\n", ss.ss_flags & SS_DISABLE ? "disabled" : "kept");
  return 0;
}

static void on_hup(int sig) {
  (void)sig;
  /* SIGUSR1 arrived with SIGHUP but waits: this handler's sa_mask blocks it. */
  char *argv[] = {self, "after", NULL};
  execv(self, argv);
  _exit(127);
}

static void on_other(int sig) { (void)sig; }

int main(int argc, char **argv) {
  if (argc > 1) return after_exec();
  self = argv[0];

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_other;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGUSR1, &sa, NULL);
  signal(SIGUSR2, SIG_IGN);
  sa.sa_handler = on_hup;
  sigaddset(&sa.sa_mask, SIGUSR1);
  sigaction(SIGHUP, &sa, NULL);

  stack_t ss = {.ss_sp = malloc(65536), .ss_size = 65536};
  sigaltstack(&ss, NULL);

  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGHUP);
  sigaddset(&block, SIGUSR1);
  sigaddset(&block, SIGFPE);
  sigprocmask(SIG_BLOCK, &block, NULL);
  raise(SIGUSR1);
  raise(SIGHUP);
  printf("before exec: SIGHUP and SIGUSR1 pending, unblocking both\n");
  fflush(stdout);
  sigdelset(&block, SIGFPE);
  sigprocmask(SIG_UNBLOCK, &block, NULL);
  printf("not reached\n");
  return 1;
}
