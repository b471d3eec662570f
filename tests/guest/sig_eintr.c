/* sig_eintr.c: blocking calls interrupted by a handler. read on an empty pipe fails with
 * EINTR (alarm, no SA_RESTART) or restarts (SA_RESTART); waitpid the same; nanosleep,
 * pause and select fail with EINTR even with SA_RESTART; a SIGCHLD handler sees the
 * child's exit, then waitpid reaps it. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/select.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int pipe_fd[2];
static volatile sig_atomic_t alarms, feed_pipe;

static void on_alarm(int sig) {
  (void)sig;
  alarms++;
  if (feed_pipe) (void)!write(pipe_fd[1], "x", 1);
}

static void handle_alarm(int flags) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sa.sa_flags = flags;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGALRM, &sa, NULL);
}

/* SIGALRM in 100 ms. */
static void alarm_soon(void) {
  struct itimerval it = {{0, 0}, {0, 100000}};
  setitimer(ITIMER_REAL, &it, NULL);
}

static const char *result(long r, int e) {
  static char buf[64];
  if (r >= 0) snprintf(buf, sizeof buf, "%ld", r);
  else snprintf(buf, sizeof buf, "-1 %s", e == EINTR ? "EINTR" : strerror(e));
  return buf;
}

static volatile sig_atomic_t child_done, child_status, child_code, child_pid_ok;
static pid_t child;

static void on_chld(int sig, siginfo_t *si, void *uc) {
  (void)sig, (void)uc;
  child_pid_ok = si->si_pid == child;
  child_code = si->si_code;
  child_status = si->si_status;
  child_done = 1;
}

static pid_t spawn(int exit_code, int delay_ms) {
  pid_t pid = fork();
  if (pid == 0) {
    struct timespec ts = {0, delay_ms * 1000000L};
    nanosleep(&ts, NULL);
    _exit(exit_code);
  }
  return pid;
}

int main(void) {
  if (pipe(pipe_fd) < 0) return 1;
  char c = 0;

  handle_alarm(0);
  alarm(1);
  long r = read(pipe_fd[0], &c, 1);
  printf("read, alarm without SA_RESTART: %s, handler ran %d\n", result(r, errno), alarms);

  handle_alarm(SA_RESTART);
  feed_pipe = 1;
  alarm_soon();
  r = read(pipe_fd[0], &c, 1);
  printf("read, SA_RESTART handler writing the pipe: %s '%c', handler ran %d\n",
         result(r, errno), c, alarms);
  feed_pipe = 0;

  int status = 0;
  child = spawn(4, 300);
  alarm_soon();
  r = waitpid(child, &status, 0);
  printf("waitpid, SA_RESTART: %s, exit status %d, handler ran %d\n",
         r == child ? "the child" : result(r, errno), WEXITSTATUS(status), alarms);

  handle_alarm(0);
  child = spawn(5, 300);
  alarm_soon();
  r = waitpid(child, &status, 0);
  printf("waitpid, no SA_RESTART: %s", result(r, errno));
  r = waitpid(child, &status, 0);
  printf("; again: %s, exit status %d\n", r == child ? "the child" : result(r, errno),
         WEXITSTATUS(status));

  handle_alarm(SA_RESTART);
  alarm_soon();
  struct timespec ts = {10, 0}, rem = {0, 0};
  r = nanosleep(&ts, &rem);
  printf("nanosleep(10 s), SA_RESTART: %s, remaining over 9 s %d\n", result(r, errno),
         rem.tv_sec >= 9);

  alarm_soon();
  r = pause();
  printf("pause: %s\n", result(r, errno));

  alarm_soon();
  fd_set readable;
  FD_ZERO(&readable);
  FD_SET(pipe_fd[0], &readable);
  r = select(pipe_fd[0] + 1, &readable, NULL, NULL, NULL);
  printf("select, SA_RESTART: %s\n", result(r, errno));
  printf("SIGALRM handled %d times\n", alarms);

  /* SIGCHLD: blocked until sigsuspend waits for it. */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_chld;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGCHLD, &sa, NULL);
  sigset_t chld, old;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, &old);
  child = spawn(6, 50);
  while (!child_done) sigsuspend(&old);
  sigprocmask(SIG_SETMASK, &old, NULL);
  printf("SIGCHLD: from the child %d, si_code %d (CLD_EXITED %d), si_status %d\n", child_pid_ok,
         child_code, CLD_EXITED, child_status);
  r = waitpid(child, &status, 0);
  printf("waitpid after SIGCHLD: %s, exit status %d\n", r == child ? "the child" : result(r, errno),
         WEXITSTATUS(status));
  return 0;
}
