/* deterministic_threads.c: the thread ids --deterministic gives (the process 1000, its
 * threads 1001 on in the order they were made, each the same in gettid, in
 * pthread_create's record and to tgkill), an ended thread's id refused (ESRCH), and
 * priority-inheritance and robust mutexes, whose futex words hold those ids, locked by
 * several threads, and the sender's id in a signal (deterministic_threads.sh). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { THREADS = 3, ROUNDS = 20000 };
static pthread_mutex_t pi, robust;
static pthread_barrier_t all_made;
static long counter;
static int tids[THREADS];
static volatile sig_atomic_t signalled_in, sender;

static void on_usr1(int sig, siginfo_t *info, void *context) {
  (void)sig;
  (void)context;
  signalled_in = (sig_atomic_t)gettid();
  sender = info->si_pid;
}

static void *worker(void *arg) {
  long i = (long)arg;
  tids[i] = gettid();
  pthread_barrier_wait(&all_made);
  for (int n = 0; n < ROUNDS; n++) {
    pthread_mutex_lock(&pi);
    counter++;
    pthread_mutex_unlock(&pi);
  }
  if (i == 0) { /* dies holding the robust mutex */
    pthread_mutex_lock(&robust);
    return NULL;
  }
  return NULL;
}

int main(void) {
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
  pthread_mutex_init(&pi, &a);
  pthread_mutexattr_init(&a);
  pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
  pthread_mutex_init(&robust, &a);
  struct sigaction act = {.sa_sigaction = on_usr1, .sa_flags = SA_SIGINFO};
  sigaction(SIGUSR1, &act, NULL);
  pthread_barrier_init(&all_made, NULL, THREADS + 1);

  printf("process %d, main thread %d\n", getpid(), gettid());
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, worker, (void *)i);
  pthread_barrier_wait(&all_made);
  for (int i = 0; i < THREADS; i++) printf("thread %d: %d\n", i, tids[i]);
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
  printf("a priority-inheritance mutex, %d threads x %d: %ld\n", THREADS, ROUNDS, counter);
  int r = pthread_mutex_lock(&robust);
  printf("a robust mutex its owner died holding: %s\n", r == EOWNERDEAD ? "EOWNERDEAD" : "?");
  pthread_mutex_consistent(&robust);
  pthread_mutex_unlock(&robust);
  long k = syscall(SYS_tgkill, getpid(), tids[1], 0);
  printf("tgkill to an ended thread: %ld (%s)\n", k, k < 0 && errno == ESRCH ? "ESRCH" : "?");
  pthread_kill(pthread_self(), SIGUSR1);
  printf("pthread_kill to itself: the handler ran in %d\n", (int)signalled_in);
  kill(getpid(), SIGUSR1);
  printf("kill to itself: the sender %d\n", (int)sender);
  return 0;
}
