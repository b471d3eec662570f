/* turns.c: threads whose interleaving shows in what they print, for --deterministic's
 * schedule (turns.sh). The first lines are facts that hold however the threads are
 * scheduled (natively too): a mutex's count, a condition variable's ping-pong, a barrier,
 * a timed wait that times out, and the futex operations C libraries use less (bitsets,
 * CMP_REQUEUE, WAKE_OP) checked on their results. The lines after "schedule:" depend on
 * the interleaving: a counter the threads race on without a lock, the order in which
 * they took a mutex, which thread won a race to a flag, a spin lock's hand-overs, whether
 * a signal came during a futex wait, and what each thread printed itself, as it went. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { THREADS = 4, RACES = 200000, LOCKS = 3000, LOG = 48, PINGS = 500 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t start;
static volatile long racy;        /* incremented without a lock: the result shows the schedule */
static long locked;               /* incremented under the lock */
static char order[LOG + 1];       /* which thread took the lock, the first LOG times */
static int taken;
static int winner = -1;           /* the first thread to get here */
static volatile int spin_flag;    /* a spin lock, taken with PAUSE in the wait */
static int spin_handovers, spin_last = -1;

static long futex(uint32_t *word, int op, uint32_t val, uintptr_t val2, uint32_t *word2, uint32_t val3) {
  return syscall(SYS_futex, word, op, val, val2, word2, val3);
}

static void spin_lock(void) {
  while (__atomic_exchange_n(&spin_flag, 1, __ATOMIC_ACQUIRE))
    while (__atomic_load_n(&spin_flag, __ATOMIC_RELAXED)) __builtin_ia32_pause();
}

static void *worker(void *arg) {
  int id = (int)(intptr_t)arg;
  pthread_barrier_wait(&start);
  int none = -1;
  __atomic_compare_exchange_n(&winner, &none, id, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  for (int i = 0; i < RACES; i++) racy = racy + 1;
  for (int i = 0; i < LOCKS; i++) {
    pthread_mutex_lock(&lock);
    locked++;
    if (taken < LOG) order[taken++] = (char)('a' + id);
    pthread_mutex_unlock(&lock);
    if (i % 1000 == 999) printf("thread %d: %d locks, the racy counter at %ld\n", id, i + 1, racy);
  }
  for (int i = 0; i < 200; i++) {
    spin_lock();
    if (spin_last != id) spin_handovers++;
    spin_last = id;
    __atomic_store_n(&spin_flag, 0, __ATOMIC_RELEASE);
    if (i % 50 == 0) sched_yield();
  }
  return NULL;
}

/* Ping-pong: each side waits for its turn on a condition variable. */
static pthread_cond_t turn_changed = PTHREAD_COND_INITIALIZER;
static int whose_turn, pings;

static void *ponger(void *arg) {
  (void)arg;
  for (int i = 0; i < PINGS; i++) {
    pthread_mutex_lock(&lock);
    while (whose_turn != 1) pthread_cond_wait(&turn_changed, &lock);
    pings++;
    whose_turn = 0;
    pthread_cond_signal(&turn_changed);
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

static uint32_t word1, word2;
static int waiter_result = -2;

/* Waits while word1 is 0 (FUTEX_WAIT_BITSET with bit 1 when arg is 0, else FUTEX_WAIT)
 * until woken by whatever main does (EAGAIN: main changed the word before the wait). */
static void *futex_waiter(void *arg) {
  int op = (int)(intptr_t)arg;
  long r;
  do r = futex(&word1, op == 0 ? FUTEX_WAIT_BITSET_PRIVATE : FUTEX_WAIT_PRIVATE, 0, 0, NULL, 2);
  while (r != 0 && (errno == EINTR || errno == EAGAIN));
  __atomic_store_n(&waiter_result, r == 0 ? 0 : errno, __ATOMIC_SEQ_CST);
  return NULL;
}

/* Calls op until it wakes or moves one waiter (the waiter may not be waiting yet). */
static long until_one(long (*op)(void)) {
  long r;
  while ((r = op()) == 0) usleep(100);
  return r;
}
static long wake_bit0(void) { return futex(&word1, FUTEX_WAKE_BITSET_PRIVATE, 1, 0, NULL, 1); }
static long wake_bit1(void) { return futex(&word1, FUTEX_WAKE_BITSET_PRIVATE, 1, 0, NULL, 2); }
static long requeue_one(void) { return futex(&word1, FUTEX_CMP_REQUEUE_PRIVATE, 0, 1, &word2, 0); }
static long wake_op(void) {
  return futex(&word2, FUTEX_WAKE_OP_PRIVATE, 1, 1, &word1, FUTEX_OP(FUTEX_OP_ADD, 5, FUTEX_OP_CMP_EQ, 0));
}

__attribute__((noinline)) static void futex_facts(void) { /* traced by turns.sh */
  pthread_t t;
  pthread_create(&t, NULL, futex_waiter, (void *)0);
  usleep(1000);
  long missed = wake_bit0(); /* the waiter's bitset is 2: bit 0 wakes nobody */
  long hit = until_one(wake_bit1);
  pthread_join(t, NULL);
  printf("futex bitsets: a wake of bit 0 woke %ld, of bit 1 %ld, and the waiter returned %d\n",
         missed, hit, waiter_result);

  pthread_create(&t, NULL, futex_waiter, (void *)1);
  long moved = until_one(requeue_one);
  long stale = futex(&word1, FUTEX_CMP_REQUEUE_PRIVATE, 0, 1, &word2, 99);
  int stale_errno = errno;
  long woken = futex(&word2, FUTEX_WAKE_PRIVATE, 1, 0, NULL, 0);
  pthread_join(t, NULL);
  printf("futex CMP_REQUEUE: moved %ld to the second word, which woke %ld; a stale value: %ld (%s)\n",
         moved, woken, stale, stale_errno == EAGAIN ? "EAGAIN" : strerror(stale_errno));

  /* WAKE_OP adds 5 to word1 and, as it was 0, wakes word1's waiter (none on word2).
   * Before the waiter waits, the add makes it see EAGAIN: word1 goes back to 0 for the
   * next try. */
  pthread_create(&t, NULL, futex_waiter, (void *)1);
  long op_woken;
  while ((op_woken = wake_op()) == 0) {
    __atomic_store_n(&word1, 0, __ATOMIC_SEQ_CST);
    usleep(100);
  }
  pthread_join(t, NULL);
  printf("futex WAKE_OP: woke %ld, the word added to: %u\n", op_woken, word1);
}

/* A thread that waits on a futex until a signal's handler has run: the wait ends with
 * EINTR when the signal comes during it. */
static volatile sig_atomic_t usr1_ran;
static uint32_t quiet_word;
static const char *signalled_wait = "none";

static void on_usr1(int sig) {
  (void)sig;
  usr1_ran = 1;
}

static void *signalled(void *arg) {
  (void)arg;
  while (!usr1_ran) {
    struct timespec limit = {0, 50000000};
    if (futex(&quiet_word, FUTEX_WAIT_PRIVATE, 0, (uintptr_t)&limit, NULL, 0) != 0 && errno == EINTR)
      signalled_wait = "EINTR";
  }
  return NULL;
}

static void signal_a_waiter(void) {
  struct sigaction act = {.sa_handler = on_usr1}; /* no SA_RESTART */
  sigaction(SIGUSR1, &act, NULL);
  pthread_t t;
  pthread_create(&t, NULL, signalled, NULL);
  usleep(10000);
  pthread_kill(t, SIGUSR1);
  pthread_join(t, NULL);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  pthread_barrier_init(&start, NULL, THREADS);
  pthread_t t[THREADS], p;
  for (int i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
  pthread_create(&p, NULL, ponger, NULL);
  for (int i = 0; i < PINGS; i++) {
    pthread_mutex_lock(&lock);
    while (whose_turn != 0) pthread_cond_wait(&turn_changed, &lock);
    whose_turn = 1;
    pthread_cond_signal(&turn_changed);
    pthread_mutex_unlock(&lock);
  }
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
  pthread_join(p, NULL);

  struct timespec before, deadline, after;
  clock_gettime(CLOCK_REALTIME, &before);
  deadline = before;
  deadline.tv_nsec += 20000000;
  if (deadline.tv_nsec >= 1000000000) deadline.tv_sec++, deadline.tv_nsec -= 1000000000;
  pthread_mutex_lock(&lock);
  int timed = pthread_cond_timedwait(&turn_changed, &lock, &deadline);
  pthread_mutex_unlock(&lock);
  clock_gettime(CLOCK_REALTIME, &after);
  bool late = after.tv_sec > deadline.tv_sec ||
              (after.tv_sec == deadline.tv_sec && after.tv_nsec >= deadline.tv_nsec);

  printf("a mutex, %d threads x %d: %ld\n", THREADS, LOCKS, locked);
  printf("a condition variable's ping-pong: %d rounds\n", pings);
  printf("pthread_cond_timedwait(20 ms) with nobody to signal: %s, the clock past the deadline: %s\n",
         timed == ETIMEDOUT ? "ETIMEDOUT" : strerror(timed), late ? "yes" : "no");
  futex_facts();
  signal_a_waiter();
  printf("schedule:\n");
  printf("the racy counter: %ld of %d\n", racy, THREADS * RACES);
  printf("the lock taken in the order %s\n", order);
  printf("the first thread past the barrier: %d\n", winner);
  printf("the spin lock changed hands %d times\n", spin_handovers);
  printf("a futex wait that pthread_kill's signal came in ended with: %s\n", signalled_wait);
  return 0;
}
