/* sig_timers.c: timers and their signals. alarm() and setitimer share ITIMER_REAL, whose
 * SIGALRM handler stops a busy loop; setitimer's periodic signals are counted;
 * getitimer; a POSIX timer signals with its value; ITIMER_VIRTUAL measures CPU time;
 * clock_nanosleep, clock_getres, sigwaitinfo for a timer's signal, times and getrusage. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/times.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop, ticks, vticks;
static volatile int timer_value, timer_code, timer_signo;

static void on_alarm(int sig) {
  (void)sig;
  stop = 1;
}

static void on_tick(int sig) {
  (void)sig;
  if (++ticks == 5) {
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
  }
}

static void on_vtalrm(int sig) {
  (void)sig;
  vticks++;
}

static void on_timer(int sig, siginfo_t *si, void *uc) {
  (void)uc;
  timer_signo = sig;
  timer_code = si->si_code;
  timer_value = si->si_value.sival_int;
}

static void handle(int sig, void (*fn)(int)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = fn;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, NULL);
}

int main(void) {
  handle(SIGALRM, on_alarm);
  unsigned none_left = alarm(1);
  printf("alarm(1) with none pending: %u\n", none_left);
  /* alarm's timer is ITIMER_REAL: a 20 ms one replaces it (and the loop spins 20 ms, not
   * a second: --deterministic's clock moves a nanosecond an instruction). */
  struct itimerval short_one = {{0, 0}, {0, 20000}}, replaced;
  setitimer(ITIMER_REAL, &short_one, &replaced);
  const struct timeval pending = replaced.it_value;
  printf("setitimer(ITIMER_REAL) finds alarm(1)'s second pending: %d\n",
         replaced.it_interval.tv_sec == 0 && replaced.it_interval.tv_usec == 0 &&
             (pending.tv_sec == 1 ? pending.tv_usec == 0
                                  : pending.tv_sec == 0 && pending.tv_usec > 900000));
  unsigned long spins = 0;
  while (!stop) spins++;
  printf("busy loop stopped by the SIGALRM handler after spinning: %s\n", spins ? "yes" : "no");

  alarm(10);
  printf("alarm(0) after alarm(10): %u seconds were left\n", alarm(0));

  handle(SIGALRM, on_tick);
  struct itimerval every = {{0, 20000}, {0, 20000}}, now;
  setitimer(ITIMER_REAL, &every, NULL);
  getitimer(ITIMER_REAL, &now);
  printf("getitimer: interval %ld us, first in at most 20 ms %d\n", (long)now.it_interval.tv_usec,
         now.it_value.tv_sec == 0 && now.it_value.tv_usec <= 20000);
  /* Blocked except while waiting, so that no tick falls between the test and the wait. */
  sigset_t blocked, waiting;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGALRM);
  sigaddset(&blocked, SIGRTMIN);
  sigprocmask(SIG_BLOCK, &blocked, &waiting);
  while (ticks < 5) sigsuspend(&waiting);
  getitimer(ITIMER_REAL, &now);
  printf("periodic SIGALRM: %d ticks, then stopped (%ld.%06ld left)\n", ticks,
         (long)now.it_value.tv_sec, (long)now.it_value.tv_usec);

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_timer;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGRTMIN, &sa, NULL);
  struct sigevent sev;
  memset(&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_SIGNAL;
  sev.sigev_signo = SIGRTMIN;
  sev.sigev_value.sival_int = 1234;
  timer_t timer;
  printf("timer_create: %d\n", timer_create(CLOCK_MONOTONIC, &sev, &timer));
  struct itimerspec spec = {{0, 0}, {0, 50000000}}, left;
  printf("timer_settime: %d\n", timer_settime(timer, 0, &spec, NULL));
  timer_gettime(timer, &left);
  printf("timer_gettime: due within 50 ms %d\n",
         left.it_value.tv_sec == 0 && left.it_value.tv_nsec > 0 &&
             left.it_value.tv_nsec <= 50000000);
  while (!timer_signo) sigsuspend(&waiting);
  sigprocmask(SIG_SETMASK, &waiting, NULL);
  printf("POSIX timer: signal SIGRTMIN+%d, si_code %d (SI_TIMER %d), value %d\n",
         timer_signo - SIGRTMIN, timer_code, SI_TIMER, timer_value);
  printf("timer_delete: %d\n", timer_delete(timer));

  handle(SIGVTALRM, on_vtalrm);
  struct itimerval cpu = {{0, 0}, {0, 10000}};
  setitimer(ITIMER_VIRTUAL, &cpu, NULL);
  while (!vticks) spins++;
  printf("ITIMER_VIRTUAL: SIGVTALRM after 10 ms of CPU time %d\n", vticks);

  struct timespec res, t0, t1;
  clock_getres(CLOCK_MONOTONIC, &res);
  printf("clock_getres(CLOCK_MONOTONIC): %ld.%09ld\n", (long)res.tv_sec, res.tv_nsec);
  clock_gettime(CLOCK_MONOTONIC, &t0);
  struct timespec until = t0;
  until.tv_nsec += 20000000;
  if (until.tv_nsec >= 1000000000) until.tv_sec++, until.tv_nsec -= 1000000000;
  int r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  printf("clock_nanosleep(TIMER_ABSTIME, +20 ms): %d, woke at or after it %d\n", r,
         t1.tv_sec > until.tv_sec || (t1.tv_sec == until.tv_sec && t1.tv_nsec >= until.tv_nsec));

  handle(SIGALRM, on_alarm);
  struct itimerval soon = {{0, 0}, {0, 50000}};
  setitimer(ITIMER_REAL, &soon, NULL);
  struct timespec ten = {10, 0};
  r = clock_nanosleep(CLOCK_MONOTONIC, 0, &ten, NULL);
  printf("clock_nanosleep(10 s) interrupted: %s\n", r == EINTR ? "EINTR" : strerror(r));
  /* The system call's answer (glibc's wrapper refuses this clock itself, with EINVAL). */
  r = (int)syscall(SYS_clock_nanosleep, CLOCK_THREAD_CPUTIME_ID, 0, &ten, NULL);
  printf("clock_nanosleep(CLOCK_THREAD_CPUTIME_ID): %s\n", r ? strerror(errno) : "slept");

  /* sigwaitinfo without a timeout, for a blocked signal that only a timer will send. */
  sigset_t alarm_only;
  sigemptyset(&alarm_only);
  sigaddset(&alarm_only, SIGALRM);
  sigprocmask(SIG_BLOCK, &alarm_only, NULL);
  setitimer(ITIMER_REAL, &soon, NULL);
  siginfo_t si;
  r = sigwaitinfo(&alarm_only, &si);
  printf("sigwaitinfo for an itimer's SIGALRM: %s, si_code %d (SI_KERNEL %d)\n",
         r == SIGALRM ? "SIGALRM" : strerror(errno), si.si_code, SI_KERNEL);
  sigprocmask(SIG_UNBLOCK, &alarm_only, NULL);

  /* And for a signal from another process, while a periodic timer's is ignored. */
  signal(SIGALRM, SIG_IGN);
  struct itimerval fast = {{0, 1000}, {0, 1000}};
  setitimer(ITIMER_REAL, &fast, NULL);
  sigset_t usr2;
  sigemptyset(&usr2);
  sigaddset(&usr2, SIGUSR2);
  sigprocmask(SIG_BLOCK, &usr2, NULL);
  pid_t child = fork();
  if (child == 0) {
    usleep(100000);
    kill(getppid(), SIGUSR2);
    _exit(0);
  }
  r = sigwaitinfo(&usr2, &si);
  printf("sigwaitinfo for a child's SIGUSR2, SIGALRM ignored every ms: %s\n",
         r == SIGUSR2 ? "SIGUSR2" : strerror(errno));
  waitpid(child, NULL, 0);
  /* And pause() for a handler of it. */
  handle(SIGUSR2, on_alarm);
  sigprocmask(SIG_UNBLOCK, &usr2, NULL);
  stop = 0;
  child = fork();
  if (child == 0) {
    usleep(100000);
    kill(getppid(), SIGUSR2);
    _exit(0);
  }
  while (!stop) pause();
  printf("pause until a child's SIGUSR2, SIGALRM ignored every ms: handled %d\n", stop);
  waitpid(child, NULL, 0);
  setitimer(ITIMER_REAL, &(struct itimerval){{0, 0}, {0, 0}}, NULL);

  struct tms tms;
  struct rusage ru;
  clock_t ticks_now = times(&tms);
  r = getrusage(RUSAGE_SELF, &ru);
  printf("times: %s, user ticks counted %d; getrusage: %d, user time counted %d\n",
         ticks_now == (clock_t)-1 ? "failed" : "ok", tms.tms_utime > 0, r,
         ru.ru_utime.tv_sec > 0 || ru.ru_utime.tv_usec > 0);
  return 0;
}
