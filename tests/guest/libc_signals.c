/* libc_signals.c: what the C library does with the two real-time signals it keeps for
 * itself (glibc: 32 for thread cancellation and SIGEV_THREAD timers, 33 to make set*id
 * calls on every thread), which the emulator's own C library keeps too: compared with a
 * native run. As root, the credential changes are real ones (and undone); otherwise
 * they set what is already set, which takes the same paths. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void pause_ms(long ms) {
  struct timespec t = {0, ms * 1000000};
  nanosleep(&t, NULL);
}

/* ---- setresuid in a threaded program: every thread's credentials change ---- */

static pthread_barrier_t changed, reported;
static uid_t seen_euid[3];

/* Each thread waits in a call of its own kind while the main thread changes ids (the
 * C library interrupts each wait with signal 33), then tells what its own euid is. */
static void *waits_then_reports(void *arg) {
  long n = (long)arg;
  int pipe_fds[2], ep = epoll_create1(0);
  struct epoll_event ev;
  if (pipe(pipe_fds)) return NULL;
  if (n == 0) epoll_wait(ep, &ev, 1, 200);
  else if (n == 1) pause_ms(200);
  else {
    struct timespec t = {0, 200000000};
    int word = 0;
    syscall(SYS_futex, &word, 0 /* FUTEX_WAIT */, 0, &t);
  }
  pthread_barrier_wait(&changed);
  seen_euid[n] = (uid_t)syscall(SYS_geteuid); /* this thread's own */
  pthread_barrier_wait(&reported);
  close(ep), close(pipe_fds[0]), close(pipe_fds[1]);
  return NULL;
}

static void set_ids_everywhere(void) {
  uid_t target = geteuid() == 0 ? 65534 : geteuid();
  pthread_t t[3];
  pthread_barrier_init(&changed, NULL, 4);
  pthread_barrier_init(&reported, NULL, 4);
  for (long i = 0; i < 3; i++) pthread_create(&t[i], NULL, waits_then_reports, (void *)i);
  pause_ms(50);
  printf("setresuid(-1, %s, -1): %d\n", target ? "nobody" : "itself",
         setresuid(-1, target, -1));
  pthread_barrier_wait(&changed);
  pthread_barrier_wait(&reported);
  for (int i = 0; i < 3; i++) printf("  thread %d's euid is the new one: %s\n", i, seen_euid[i] == target ? "yes" : "no");
  for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
  printf("setresuid back: %d\n", setresuid(-1, getuid(), -1));
}

/* ---- the kernel's own setresuid changes the calling thread only ---- */

static volatile int raw_done;

static void *raw_setter(void *arg) {
  uid_t target = geteuid() == 0 ? 65534 : geteuid();
  long r = syscall(SYS_setresuid, -1, target, -1);
  raw_done = 1;
  pause_ms(100); /* the main thread looks meanwhile */
  syscall(SYS_setresuid, -1, getuid(), -1);
  return arg ? arg : (void *)r;
}

static void raw_set_ids(void) {
  pthread_t t;
  uid_t before = (uid_t)syscall(SYS_geteuid);
  pthread_create(&t, NULL, raw_setter, NULL);
  while (!raw_done) pause_ms(1);
  printf("another thread's raw setresuid left this thread's euid: %s\n",
         (uid_t)syscall(SYS_geteuid) == before ? "yes" : "no");
  void *r;
  pthread_join(t, &r);
  printf("  its result: %ld\n", (long)r);
}

/* ---- pthread_cancel: in a wait, at a cancellation point, asynchronously ---- */

static int cleanups;
static void count_cleanup(void *arg) { (void)arg, cleanups++; }

static void *reads_forever(void *arg) {
  int p[2];
  char b;
  if (pipe(p)) return NULL;
  pthread_cleanup_push(count_cleanup, NULL);
  if (read(p[0], &b, 1) < 0) perror("read");
  pthread_cleanup_pop(0);
  return arg;
}

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;

static void unlock(void *arg) { pthread_mutex_unlock(arg); }

static void *waits_on_cond(void *arg) {
  pthread_mutex_lock(&m);
  pthread_cleanup_push(unlock, &m);
  pthread_cleanup_push(count_cleanup, NULL);
  for (;;) pthread_cond_wait(&never, &m);
  pthread_cleanup_pop(0);
  pthread_cleanup_pop(0);
  return arg;
}

static volatile unsigned long spins;

static void *spins_async(void *arg) {
  pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
  pthread_cleanup_push(count_cleanup, NULL);
  for (;;) spins++;
  pthread_cleanup_pop(0);
  return arg;
}

static void cancels(void) {
  void *(*bodies[])(void *) = {reads_forever, waits_on_cond, spins_async};
  const char *names[] = {"in read", "in pthread_cond_wait", "asynchronously, spinning"};
  for (int i = 0; i < 3; i++) {
    pthread_t t;
    void *result;
    pthread_create(&t, NULL, bodies[i], NULL);
    pause_ms(50);
    int r = pthread_cancel(t);
    int j = pthread_join(t, &result);
    printf("cancel %s: %d, join %d, PTHREAD_CANCELED: %s, cleanups so far %d\n", names[i], r, j,
           result == PTHREAD_CANCELED ? "yes" : "no", cleanups);
  }
  printf("the mutex is free again: %s\n", pthread_mutex_trylock(&m) == 0 ? "yes" : "no");
}

/* ---- a SIGEV_THREAD timer: the C library's helper thread waits for signal 32 ---- */

static volatile int fired;
static void on_timer(union sigval v) { fired += v.sival_int; }

static void thread_timer(void) {
  timer_t id;
  struct sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_THREAD;
  ev.sigev_notify_function = on_timer;
  ev.sigev_value.sival_int = 1;
  printf("timer_create(SIGEV_THREAD): %d\n", timer_create(CLOCK_MONOTONIC, &ev, &id));
  struct itimerspec once = {.it_value = {0, 20000000}};
  timer_settime(id, 0, &once, NULL);
  for (int i = 0; i < 200 && !fired; i++) pause_ms(5);
  printf("  fired once: %s\n", fired == 1 ? "yes" : "no");
  timer_delete(id);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  set_ids_everywhere();
  raw_set_ids();
  cancels();
  thread_timer();
  return 0;
}
