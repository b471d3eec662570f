/* sig_mask.c: blocked and pending signals. sigprocmask and sigpending, delivery on
 * unblocking, the handler's sa_mask and SA_NODEFER, sigsuspend, real-time signals queued
 * in order with their values, sigwaitinfo, SIG_IGN discarding a pending signal, the
 * refusals for SIGKILL and SIGSTOP; SA_RESETHAND ends the program by its second signal. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Handlers append to a log, printed later: the order of delivery is what is checked. */
static volatile char log_buf[512];
static volatile size_t log_len;

static void note(const char *s) {
  for (; *s && log_len + 1 < sizeof log_buf; s++) log_buf[log_len++] = *s;
}

static void show_log(const char *what) {
  printf("%s: ", what);
  for (size_t i = 0; i < log_len; i++) putchar(log_buf[i]);
  putchar('\n');
  log_len = 0;
}

static void on_usr2(int sig) {
  (void)sig;
  note("[usr2]");
}

static void on_usr1(int sig) {
  (void)sig;
  note("[usr1");
  raise(SIGUSR2); /* blocked by sa_mask while here */
  note(" raised-usr2]");
}

static volatile int depth;
static void on_nodefer(int sig) {
  (void)sig;
  char s[32];
  snprintf(s, sizeof s, "(in %d", ++depth);
  note(s);
  if (depth < 3) raise(SIGUSR1); /* SA_NODEFER: runs at once, nested */
  note(")");
  depth--;
}

static void on_rt(int sig, siginfo_t *si, void *uc) {
  (void)uc;
  char s[48];
  snprintf(s, sizeof s, "[rt+%d value %d code %d]", sig - SIGRTMIN, si->si_value.sival_int,
           si->si_code);
  note(s);
}

static void handle(int sig, void (*fn)(int), int flags, int also_block) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = fn;
  sa.sa_flags = flags;
  sigemptyset(&sa.sa_mask);
  if (also_block) sigaddset(&sa.sa_mask, also_block);
  sigaction(sig, &sa, NULL);
}

static int pending(int sig) {
  sigset_t p;
  sigpending(&p);
  return sigismember(&p, sig);
}

static void block(int how, int sig) {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, sig);
  sigprocmask(how, &s, NULL);
}

int main(void) {
  handle(SIGUSR2, on_usr2, 0, 0);
  handle(SIGUSR1, on_usr1, 0, SIGUSR2);

  block(SIG_BLOCK, SIGUSR1);
  raise(SIGUSR1);
  note("raised;");
  printf("blocked SIGUSR1 raised: pending %d, SIGUSR2 pending %d\n", pending(SIGUSR1),
         pending(SIGUSR2));
  block(SIG_UNBLOCK, SIGUSR1);
  note("unblocked");
  printf("pending after unblocking: %d\n", pending(SIGUSR1));
  show_log("order");

  /* Two raises of a blocked standard signal: delivered once. */
  block(SIG_BLOCK, SIGUSR2);
  raise(SIGUSR2);
  raise(SIGUSR2);
  block(SIG_UNBLOCK, SIGUSR2);
  show_log("standard signal raised twice while blocked");

  handle(SIGUSR1, on_nodefer, SA_NODEFER, 0);
  raise(SIGUSR1);
  show_log("SA_NODEFER");

  /* sigsuspend: the wait unblocks, the handler runs, the mask comes back. */
  handle(SIGUSR1, on_usr2, 0, 0);
  block(SIG_BLOCK, SIGUSR1);
  raise(SIGUSR1);
  sigset_t none;
  sigemptyset(&none);
  int r = sigsuspend(&none);
  int e = errno;
  note("returned");
  show_log("sigsuspend");
  printf("sigsuspend: %d %s, SIGUSR1 still blocked after %d\n", r, e == EINTR ? "EINTR" : "?",
         (sigprocmask(SIG_BLOCK, NULL, &none), sigismember(&none, SIGUSR1)));
  block(SIG_UNBLOCK, SIGUSR1);

  /* Real-time signals queue, with their values, lowest number first. */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_rt;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGRTMIN, &sa, NULL);
  sigaction(SIGRTMIN + 1, &sa, NULL);
  sigset_t rt;
  sigemptyset(&rt);
  sigaddset(&rt, SIGRTMIN);
  sigaddset(&rt, SIGRTMIN + 1);
  sigprocmask(SIG_BLOCK, &rt, NULL);
  for (int i = 1; i <= 3; i++) {
    sigqueue(getpid(), SIGRTMIN + 1, (union sigval){.sival_int = 10 * i});
    sigqueue(getpid(), SIGRTMIN, (union sigval){.sival_int = i});
  }
  sigprocmask(SIG_UNBLOCK, &rt, NULL);
  show_log("queued real-time signals");

  /* sigwaitinfo takes a blocked signal without its handler. */
  block(SIG_BLOCK, SIGUSR2);
  sigqueue(getpid(), SIGUSR2, (union sigval){.sival_int = 77});
  siginfo_t si;
  memset(&si, 0, sizeof si);
  sigset_t want;
  sigemptyset(&want);
  sigaddset(&want, SIGUSR2);
  int got = sigwaitinfo(&want, &si);
  printf("sigwaitinfo: signal %d value %d code %d, handler ran: %s\n", got, si.si_value.sival_int,
         si.si_code, log_len ? "yes" : "no");

  /* Ignoring a pending signal discards it. */
  raise(SIGUSR2);
  printf("pending before SIG_IGN %d", pending(SIGUSR2));
  signal(SIGUSR2, SIG_IGN);
  printf(", after %d\n", pending(SIGUSR2));
  block(SIG_UNBLOCK, SIGUSR2);

  r = sigaction(SIGKILL, &sa, NULL);
  printf("sigaction(SIGKILL): %d %s\n", r, r ? strerror(errno) : "");
  r = sigaction(SIGSTOP, &sa, NULL);
  printf("sigaction(SIGSTOP): %d %s\n", r, r ? strerror(errno) : "");
  sigset_t all;
  sigfillset(&all);
  sigprocmask(SIG_SETMASK, &all, NULL);
  sigprocmask(SIG_SETMASK, NULL, &all);
  printf("blocking everything blocks SIGKILL %d, SIGSTOP %d\n", sigismember(&all, SIGKILL),
         sigismember(&all, SIGSTOP));
  sigemptyset(&all);
  sigprocmask(SIG_SETMASK, &all, NULL);

  /* SA_RESETHAND: the handler runs once, then the default action ends the program. */
  handle(SIGUSR1, on_usr2, (int)SA_RESETHAND, 0);
  raise(SIGUSR1);
  show_log("SA_RESETHAND, first");
  fflush(stdout);
  raise(SIGUSR1);
  printf("not reached\n");
  return 0;
}
