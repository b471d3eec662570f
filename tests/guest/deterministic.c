/* deterministic.c: what --deterministic makes the same from run to run: AT_RANDOM,
 * getrandom, /dev/urandom, the clocks, gettimeofday, time, RDTSC, the process id (and
 * the one System V IPC records), how far a loop gets before a timer's SIGALRM stops it,
 * a sleep that a timer interrupts, and the timeouts of select, ppoll, rt_sigtimedwait,
 * futex waits, semtimedop and mq_timedreceive (deterministic.sh). */
#define _GNU_SOURCE /* semtimedop */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <mqueue.h>
#include <poll.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/random.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>
static volatile sig_atomic_t stop;

/* The pid a message queue, a semaphore and a shared memory segment record for their last
 * sender, operation and creator, if all three agree; else -1. Not inlined: the objects'
 * ids are the host's, which the trace of main would show. */
static __attribute__((noinline)) int ipc_pids(void) {
  int q = msgget(IPC_PRIVATE, 0600), s = semget(IPC_PRIVATE, 1, 0600);
  int m = shmget(IPC_PRIVATE, 4096, 0600);
  struct { long type; char text[1]; } msg = {1, {0}};
  struct sembuf post = {0, 1, 0};
  struct msqid_ds qs;
  struct shmid_ds ms;
  int ok = msgsnd(q, &msg, 1, 0) == 0 && semop(s, &post, 1) == 0 &&
           msgctl(q, IPC_STAT, &qs) == 0 && shmctl(m, IPC_STAT, &ms) == 0;
  int sem_pid = semctl(s, 0, GETPID);
  msgctl(q, IPC_RMID, NULL), semctl(s, 0, IPC_RMID), shmctl(m, IPC_RMID, NULL);
  return ok && qs.msg_lspid == sem_pid && ms.shm_cpid == sem_pid ? sem_pid : -1;
}

static void on_alarm(int sig) {
  (void)sig;
  stop = 1;
}

/* Kept out of main, so that a trace of main alone leaves its million steps out. */
static __attribute__((noinline)) unsigned long spin(void) {
  unsigned long spins = 0;
  while (!stop) spins++;
  return spins;
}

static void hex(const char *what, const unsigned char *b, int n) {
  printf("%s ", what);
  for (int i = 0; i < n; i++) printf("%02x", b[i]);
  printf("\n");
}
/* The monotonic clock's seconds since *from, to the millisecond. */
static double since(const struct timespec *from) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - from->tv_sec) + (now.tv_nsec - from->tv_nsec) / 1e9;
}

/* semtimedop and mq_timedreceive waiting out their timeouts (apart: the objects' ids are
 * the host's, and --trace=main sees only main's own instructions). */
static __attribute__((noinline)) void ipc_timeouts(void) {
  struct timespec m, wait = {0, 700000000}, deadline;
  long n;
  int set_id = semget(IPC_PRIVATE, 1, 0600);
  struct sembuf take = {0, -1, 0};
  clock_gettime(CLOCK_MONOTONIC, &m);
  n = semtimedop(set_id, &take, 1, &wait);
  printf("semtimedop(0.7 s) on a semaphore at 0: %ld (%s), %.3f s on\n", n,
         n < 0 && errno == EAGAIN ? "EAGAIN" : "?", since(&m));
  semctl(set_id, 0, IPC_RMID);
  struct mq_attr attr = {.mq_maxmsg = 1, .mq_msgsize = 8};
  mqd_t q = mq_open("/x64emu-deterministic", O_RDWR | O_CREAT | O_EXCL, 0600, &attr);
  mq_unlink("/x64emu-deterministic");
  char text[8];
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_nsec += 500000000;
  if (deadline.tv_nsec >= 1000000000) deadline.tv_sec++, deadline.tv_nsec -= 1000000000;
  clock_gettime(CLOCK_MONOTONIC, &m);
  n = mq_timedreceive(q, text, sizeof text, NULL, &deadline);
  printf("mq_timedreceive(real time + 0.5 s) on an empty queue: %ld (%s), %.3f s on\n", n,
         n < 0 && errno == ETIMEDOUT ? "ETIMEDOUT" : "?", since(&m));
  mq_close(q);
}

/* The other waits with timeouts, each on nothing that comes: the time passes at once on
 * the virtual clock, and what can end them early still does. */
static void timeouts(void) {
  struct timespec m;
  struct timespec wait = {1, 0};
  clock_gettime(CLOCK_MONOTONIC, &m);
  long n = syscall(SYS_ppoll, NULL, 0, &wait, NULL, 8); /* the raw call: the time left */
  printf("ppoll(1 s) on nothing: %ld, %lld.%09ld s left, %.3f s on\n", n, (long long)wait.tv_sec,
         wait.tv_nsec, since(&m));

  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  sigaddset(&set, SIGALRM);
  sigprocmask(SIG_BLOCK, &set, NULL);
  wait = (struct timespec){1, 0};
  clock_gettime(CLOCK_MONOTONIC, &m);
  int sig = sigtimedwait(&set, NULL, &wait);
  printf("sigtimedwait(1 s) for nothing: %d (%s), %.3f s on\n", sig, sig < 0 && errno == EAGAIN ? "EAGAIN" : "?",
         since(&m));
  struct itimerval later = {{0, 0}, {0, 300000}};
  setitimer(ITIMER_REAL, &later, NULL);
  wait = (struct timespec){5, 0};
  clock_gettime(CLOCK_MONOTONIC, &m);
  sig = sigtimedwait(&set, NULL, &wait);
  printf("sigtimedwait(5 s) for a 0.3 s timer's SIGALRM: %d, %.3f s on\n", sig, since(&m));

  uint32_t word = 0;
  wait = (struct timespec){0, 500000000};
  clock_gettime(CLOCK_MONOTONIC, &m);
  n = syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, &wait, NULL, 0);
  printf("futex wait(0.5 s): %ld (%s), %.3f s on\n", n, n < 0 && errno == ETIMEDOUT ? "ETIMEDOUT" : "?",
         since(&m));
  n = syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 1, &wait, NULL, 0);
  printf("futex wait on a word that differs: %ld (%s)\n", n, n < 0 && errno == EAGAIN ? "EAGAIN" : "?");
  sem_t sem;
  sem_init(&sem, 0, 0);
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += 2;
  clock_gettime(CLOCK_MONOTONIC, &m);
  n = sem_timedwait(&sem, &deadline);
  printf("sem_timedwait(real time + 2 s): %ld (%s), %.3f s on\n", n, n < 0 && errno == ETIMEDOUT ? "ETIMEDOUT" : "?",
         since(&m));

  ipc_timeouts();
}

/* With the argument "spin", only what precedes the waits: the runs without
 * --deterministic need no more to differ, and would wait out every timeout in real time. */
int main(int argc, char **argv) {
  hex("AT_RANDOM", (const unsigned char *)getauxval(AT_RANDOM), 16);
  unsigned char b[16];
  if (getrandom(b, sizeof b, 0) == 16) hex("getrandom", b, 16);
  int fd = open("/dev/urandom", O_RDONLY);
  if (fd >= 0 && read(fd, b, 16) == 16) hex("/dev/urandom", b, 16);
  struct timespec r, m1, m2;
  clock_gettime(CLOCK_REALTIME, &r);
  clock_gettime(CLOCK_MONOTONIC, &m1);
  clock_gettime(CLOCK_MONOTONIC, &m2);
  struct timeval tv;
  gettimeofday(&tv, NULL);
  printf("realtime %lld.%09ld monotonic %lld.%09ld then %lld.%09ld\n", (long long)r.tv_sec, r.tv_nsec,
         (long long)m1.tv_sec, m1.tv_nsec, (long long)m2.tv_sec, m2.tv_nsec);
  printf("gettimeofday %lld.%06ld time %lld\n", (long long)tv.tv_sec, (long)tv.tv_usec, (long long)time(NULL));
  unsigned long long t1 = __rdtsc(), t2 = __rdtsc();
  printf("rdtsc %llu then %llu\n", t1, t2);
  printf("pid %d, and it can signal itself: %d\n", (int)getpid(), kill(getpid(), 0));
  printf("System V IPC records it as %d\n", ipc_pids());

  signal(SIGALRM, on_alarm);
  struct itimerval ms = {{0, 0}, {0, 1000}};
  setitimer(ITIMER_REAL, &ms, NULL);
  printf("spins before a 1 ms SIGALRM: %lu\n", spin());
  if (argc > 1 && strcmp(argv[1], "spin") == 0) return 0;
  struct timespec sleep_for = {5, 0}, left = {0, 0};
  alarm(2);
  int slept = nanosleep(&sleep_for, &left);
  clock_gettime(CLOCK_MONOTONIC, &m2);
  printf("nanosleep(5 s) woken by alarm(2): %d, %lld.%09ld s left, monotonic %lld.%09ld\n", slept,
         (long long)left.tv_sec, left.tv_nsec, (long long)m2.tv_sec, m2.tv_nsec);

  /* select's timeout passes on the virtual clock too, and finds what is ready at once. */
  struct timeval wait = {1, 0};
  clock_gettime(CLOCK_MONOTONIC, &m1);
  int ready = select(0, NULL, NULL, NULL, &wait);
  clock_gettime(CLOCK_MONOTONIC, &m2);
  printf("select(1 s) on nothing: %d, %ld.%06ld s left, %lld s on\n", ready, (long)wait.tv_sec,
         (long)wait.tv_usec, (long long)(m2.tv_sec - m1.tv_sec));
  int p[2];
  fd_set readable;
  if (pipe(p) != 0 || write(p[1], "x", 1) != 1) return 1;
  FD_ZERO(&readable);
  FD_SET(p[0], &readable);
  wait = (struct timeval){1, 0};
  ready = select(p[0] + 1, &readable, NULL, NULL, &wait);
  printf("select(1 s) on a readable pipe: %d, it is set: %d\n", ready, FD_ISSET(p[0], &readable) != 0);
  timeouts();
  return 0;
}
