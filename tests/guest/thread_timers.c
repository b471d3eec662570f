/* thread_timers.c: timers whose signals go to another thread than the one that runs into
 * them: a process's timer while the main thread blocks its signal (the kernel hands it to
 * a thread that does not), one aimed at a thread (SIGEV_THREAD_ID) that waits for it in
 * sigwaitinfo, ITIMER_VIRTUAL's SIGVTALRM the same way, and glibc's SIGEV_THREAD, whose
 * helper thread waits for the timer's signal and starts a thread for each expiry. The
 * CPU-time timers expire while the main thread spins, so that it is the one that runs
 * into them. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static pthread_t worker;
static volatile pid_t worker_tid;
static volatile sig_atomic_t done, in_worker, code, value;

static void on_signal(int sig, siginfo_t *si, void *uc) {
  (void)sig, (void)uc;
  in_worker = pthread_equal(pthread_self(), worker);
  code = si->si_code;
  value = si->si_code == SI_TIMER ? si->si_value.sival_int : 0;
  done = 1;
}

/* Waits for the signal with it unblocked in sigsuspend only, as the main thread blocks it. */
static void *suspend_until_done(void *arg) {
  (void)arg;
  worker_tid = gettid();
  sigset_t none;
  sigemptyset(&none);
  while (!done) sigsuspend(&none);
  return NULL;
}

static void *wait_for_signal(void *arg) {
  int sig = *(int *)arg;
  worker_tid = gettid();
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  siginfo_t si;
  int got = sigwaitinfo(&set, &si);
  printf("  the worker's sigwaitinfo: signal %d, si_code %d (SI_TIMER %d), value %d\n",
         got == sig, si.si_code, SI_TIMER, si.si_value.sival_int);
  done = 1;
  return NULL;
}

/* Spins on the main thread until the worker has had the signal. */
static void spin_until_done(void) {
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  volatile unsigned long spins = 0;
  while (!done) {
    spins++;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec - start.tv_sec > 10) {
      printf("  no signal in 10 s\n");
      return;
    }
  }
}

static void start_worker(void *(*fn)(void *), void *arg) {
  done = 0;
  worker_tid = 0;
  pthread_create(&worker, NULL, fn, arg);
  while (!worker_tid) sched_yield();
}

static void block(int sig) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
}

static void handle(int sig) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO;
  sigaction(sig, &sa, NULL);
}

static void arm_cpu_timer(struct sigevent *ev, timer_t *t) {
  timer_create(CLOCK_PROCESS_CPUTIME_ID, ev, t);
  struct itimerspec its = {{0, 0}, {0, 10000000}}; /* 10 ms of CPU time */
  timer_settime(*t, 0, &its, NULL);
}

static void process_timer_blocked_in_main(void) {
  printf("a process's timer, its signal blocked in the main thread:\n");
  handle(SIGUSR1);
  block(SIGUSR1);
  start_worker(suspend_until_done, NULL);
  struct sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_SIGNAL;
  ev.sigev_signo = SIGUSR1;
  ev.sigev_value.sival_int = 41;
  timer_t t;
  arm_cpu_timer(&ev, &t);
  spin_until_done();
  pthread_join(worker, NULL);
  timer_delete(t);
  printf("  handled in the worker %d, si_code %d (SI_TIMER %d), value %d\n", in_worker, code,
         SI_TIMER, value);
}

static void thread_directed_timer(void) {
  printf("a timer aimed at a thread (SIGEV_THREAD_ID):\n");
  int sig = SIGRTMIN + 2;
  block(sig);
  start_worker(wait_for_signal, &sig);
  struct sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = sig;
  ev.sigev_value.sival_int = 42;
  ev._sigev_un._tid = worker_tid;
  timer_t t;
  arm_cpu_timer(&ev, &t);
  spin_until_done();
  pthread_join(worker, NULL);
  timer_delete(t);
}

static void virtual_itimer_blocked_in_main(void) {
  printf("ITIMER_VIRTUAL, SIGVTALRM blocked in the main thread:\n");
  handle(SIGVTALRM);
  block(SIGVTALRM);
  start_worker(suspend_until_done, NULL);
  struct itimerval it = {{0, 0}, {0, 10000}};
  setitimer(ITIMER_VIRTUAL, &it, NULL);
  spin_until_done();
  pthread_join(worker, NULL);
  printf("  handled in the worker %d, si_code %d (SI_KERNEL %d)\n", in_worker, code, SI_KERNEL);
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t called = PTHREAD_COND_INITIALIZER;
static int calls, first_value;

static void on_expiry(union sigval v) {
  pthread_mutex_lock(&lock);
  if (calls++ == 0) first_value = v.sival_int;
  pthread_cond_signal(&called);
  pthread_mutex_unlock(&lock);
}

static void sigev_thread(void) {
  printf("SIGEV_THREAD, every 10 ms:\n");
  struct sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_THREAD;
  ev.sigev_notify_function = on_expiry;
  ev.sigev_value.sival_int = 43;
  timer_t t;
  if (timer_create(CLOCK_MONOTONIC, &ev, &t) != 0) {
    perror("  timer_create");
    return;
  }
  struct itimerspec its = {{0, 10000000}, {0, 10000000}};
  timer_settime(t, 0, &its, NULL);
  pthread_mutex_lock(&lock);
  while (calls < 3) pthread_cond_wait(&called, &lock);
  pthread_mutex_unlock(&lock);
  timer_delete(t);
  printf("  three calls at least, the first with value %d\n", first_value);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  process_timer_blocked_in_main();
  thread_directed_timer();
  virtual_itimer_blocked_in_main();
  sigev_thread();
  return 0;
}
