/* deterministic.c: what --deterministic makes the same from run to run: AT_RANDOM,
 * getrandom, /dev/urandom, the clocks, gettimeofday, time, RDTSC, the process id, how
 * far a loop gets before a timer's SIGALRM stops it, a sleep that a timer interrupts,
 * and select's timeout (deterministic.sh). */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/auxv.h>
#include <sys/random.h>
#include <sys/select.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>
static volatile sig_atomic_t stop;

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
int main(void) {
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

  signal(SIGALRM, on_alarm);
  struct itimerval ms = {{0, 0}, {0, 1000}};
  setitimer(ITIMER_REAL, &ms, NULL);
  printf("spins before a 1 ms SIGALRM: %lu\n", spin());
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
  return 0;
}
