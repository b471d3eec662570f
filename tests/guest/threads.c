/* threads.c: pthreads as programs use them, compared with a native run: create and join
 * with return values, thread-local storage, a mutex, a condition variable, a read-write
 * lock and a barrier; 8 threads each adding 1,000,000 with LOCK XADD, with a LOCK CMPXCHG
 * loop, with a C11 atomic and with CMPXCHG16B, for exact totals; a message-passing litmus
 * test that a weaker memory order than x86's would break; a signal sent to one thread
 * (pthread_kill) handled on it; a thread that faults while the others run, its SIGSEGV
 * handled on it; detached threads whose exit wakes a joiner (CHILD_CLEARTID), and the
 * thread ids as the kernel gives them. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "test_env.h"

enum { THREADS = 8 };
/* Each thread's adds: a tenth where x64emu is slow (test_env.h): under qemu, which runs
 * the threads in this machine's memory order, or a sanitizer, more rounds find no more. */
static int adds = 1000000;

static __thread int tls_id = -1;

static void *returns_twice_its_id(void *arg) {
  tls_id = (int)(intptr_t)arg;
  return (void *)(intptr_t)(2 * tls_id);
}

/* ---- the atomic read-modify-writes ---- */

static long xadd_total, cmpxchg_total;
static atomic_long c11_total;
static __int128 wide_total __attribute__((aligned(16)));

static void *add_many(void *arg) {
  (void)arg;
  for (int i = 0; i < adds; i++) {
    long one = 1;
    __asm__ volatile("lock xaddq %0, %1" : "+r"(one), "+m"(xadd_total)::"memory");
    long seen = __atomic_load_n(&cmpxchg_total, __ATOMIC_RELAXED), want;
    do want = seen + 1;
    while (!__atomic_compare_exchange_n(&cmpxchg_total, &seen, want, false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_RELAXED));
    atomic_fetch_add(&c11_total, 1);
    if (i % 16 == 0) { /* CMPXCHG16B (-mcx16), less often: it is the slow one natively */
      __int128 seen = wide_total;
      while (!__sync_bool_compare_and_swap(&wide_total, seen, seen + 1)) seen = wide_total;
    }
  }
  return NULL;
}

/* ---- every other atomic form, each on its own word: a lost update shows in the total ---- */

enum { FORM_ROUNDS = 25000 };
static struct {
  long inc_dec, sub, adc;
  unsigned long xor_bits, not_word;
  uint32_t wide8[2] __attribute__((aligned(8))); /* CMPXCHG8B */
  long xchg_guarded, bts_guarded;
  int xchg_lock;
  unsigned long bts_bitmap[2]; /* the lock is bit 64 + 5: in the second word */
  /* Misaligned (within a cache line): x86 locks it all the same. */
  char pad[3];
  long misaligned __attribute__((packed));
} forms __attribute__((aligned(64)));

static void *every_form(void *arg) {
  unsigned long bit = 1ul << (intptr_t)arg;
  long lock_bit = 64 + 5;
  for (int i = 0; i < FORM_ROUNDS; i++) {
    __asm__ volatile("lock incq %0; lock incq %0; lock decq %0" : "+m"(forms.inc_dec)::"memory");
    __asm__ volatile("lock subq $3, %0" : "+m"(forms.sub)::"memory");
    __asm__ volatile("stc; lock adcq $0, %0" : "+m"(forms.adc)::"memory", "cc");
    __asm__ volatile("lock xorq %1, %0" : "+m"(forms.xor_bits) : "r"(bit) : "memory");
    __asm__ volatile("lock notq %0" : "+m"(forms.not_word)::"memory");
    __asm__ volatile("lock addq $1, %0" : "+m"(forms.misaligned)::"memory");
    uint32_t lo = forms.wide8[0], hi = forms.wide8[1];
    for (;;) { /* a 64-bit counter in two halves, by CMPXCHG8B */
      uint64_t want = ((uint64_t)hi << 32 | lo) + 1;
      unsigned char ok;
      __asm__ volatile("lock cmpxchg8b %1; sete %0"
                       : "=q"(ok), "+m"(forms.wide8), "+a"(lo), "+d"(hi)
                       : "b"((uint32_t)want), "c"((uint32_t)(want >> 32))
                       : "memory", "cc");
      if (ok) break;
    }
    int one = 1; /* a spinlock by XCHG (no LOCK prefix: it locks itself) */
    do __asm__ volatile("xchgl %0, %1" : "+r"(one), "+m"(forms.xchg_lock)::"memory");
    while (one);
    forms.xchg_guarded++;
    __atomic_store_n(&forms.xchg_lock, 0, __ATOMIC_RELEASE);
    unsigned char was; /* a spinlock by LOCK BTS and BTR with a bit offset past the word */
    do __asm__ volatile("lock btsq %2, %1; setc %0" : "=q"(was), "+m"(forms.bts_bitmap[0]) : "r"(lock_bit)
                        : "memory", "cc");
    while (was);
    forms.bts_guarded++;
    __asm__ volatile("lock btrq %1, %0" : "+m"(forms.bts_bitmap[0]) : "r"(lock_bit) : "memory", "cc");
  }
  if (FORM_ROUNDS % 2 == 0) __asm__ volatile("lock xorq %1, %0" : "+m"(forms.xor_bits) : "r"(bit) : "memory");
  return NULL;
}

/* ---- locks ---- */

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_barrier_t barrier;
static int turn, locked_sum, rw_value, after_barrier;

/* Each thread waits for its turn on the condition variable, then passes it on. */
static void *take_turns(void *arg) {
  int id = (int)(intptr_t)arg;
  pthread_mutex_lock(&mutex);
  while (turn != id) pthread_cond_wait(&cond, &mutex);
  locked_sum = locked_sum * 10 + id;
  turn++;
  pthread_cond_broadcast(&cond);
  pthread_mutex_unlock(&mutex);
  pthread_rwlock_wrlock(&rwlock);
  rw_value += id;
  pthread_rwlock_unlock(&rwlock);
  pthread_barrier_wait(&barrier);
  pthread_rwlock_rdlock(&rwlock);
  if (rw_value == 0 + 1 + 2 + 3) __atomic_fetch_add(&after_barrier, 1, __ATOMIC_SEQ_CST);
  pthread_rwlock_unlock(&rwlock);
  return NULL;
}

/* ---- message passing: data, then a flag; the reader sees the flag, then the data ---- */

static volatile int mp_data, mp_flag;
static int mp_bad;

static void *mp_writer(void *arg) {
  int rounds = (int)(intptr_t)arg;
  for (int i = 1; i <= rounds; i++) {
    while (mp_flag) __builtin_ia32_pause(); /* a spin-wait, as cpu_relax() does */
    mp_data = i;
    mp_flag = 1; /* x86 keeps the two stores in order */
  }
  return NULL;
}

static void *mp_reader(void *arg) {
  int rounds = (int)(intptr_t)arg;
  for (int i = 1; i <= rounds; i++) {
    while (!mp_flag) __builtin_ia32_pause();
    if (mp_data != i) mp_bad++; /* and the two loads */
    mp_flag = 0;
  }
  return NULL;
}

/* ---- a robust mutex whose owner ends without unlocking it ---- */

static pthread_mutex_t robust;

static void *locks_and_ends(void *arg) {
  (void)arg;
  pthread_mutex_lock(&robust);
  return NULL; /* still holding it: the kernel marks it FUTEX_OWNER_DIED */
}

/* ---- signals to a thread, and a fault in one ---- */

static volatile pid_t usr1_on, segv_on, target_tid;
static __thread sigjmp_buf recover;

static void on_usr1(int sig) {
  (void)sig;
  usr1_on = (pid_t)syscall(SYS_gettid);
}

static void on_segv(int sig) {
  (void)sig;
  segv_on = (pid_t)syscall(SYS_gettid);
  siglongjmp(recover, 1);
}

static volatile int target_ready, target_go;

static void *signal_target(void *arg) {
  (void)arg;
  target_tid = (pid_t)syscall(SYS_gettid);
  target_ready = 1;
  while (!usr1_on) sched_yield();
  return NULL;
}

static volatile int others_ran;

static void *busy(void *arg) {
  (void)arg;
  for (int i = 0; i < 100000; i++) __atomic_fetch_add(&others_ran, 1, __ATOMIC_RELAXED);
  return NULL;
}

static int *volatile unmapped = (int *)8;

static void *faulter(void *arg) {
  (void)arg;
  if (sigsetjmp(recover, 1) == 0) *unmapped = 1;
  return (void *)(intptr_t)(segv_on == (pid_t)syscall(SYS_gettid));
}

int main(void) {
  pthread_t t[THREADS];
  if (fewer_rounds()) adds /= 10;

  for (int i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, returns_twice_its_id, (void *)(intptr_t)i);
  int sum = 0;
  for (int i = 0; i < THREADS; i++) {
    void *r;
    pthread_join(t[i], &r);
    sum += (int)(intptr_t)r;
  }
  printf("create/join: return values sum to %d; main's own TLS is still %d\n", sum, tls_id);

  for (int i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, add_many, NULL);
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
  printf("lock xadd %ld, lock cmpxchg %ld, C11 atomic %ld (of %d each), cmpxchg16b %lld\n",
         xadd_total, cmpxchg_total, (long)c11_total, THREADS * adds, (long long)wide_total);

  for (int i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, every_form, (void *)(intptr_t)i);
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
  printf("lock inc/dec %ld, sub %ld, adc %ld, xor %#lx, not %#lx, misaligned add %ld, cmpxchg8b %llu\n",
         forms.inc_dec, forms.sub, forms.adc, forms.xor_bits, forms.not_word, forms.misaligned,
         (unsigned long long)((uint64_t)forms.wide8[1] << 32 | forms.wide8[0]));
  printf("counted under an xchg spinlock %ld, under a lock bts spinlock %ld (of %d)\n",
         forms.xchg_guarded, forms.bts_guarded, THREADS * FORM_ROUNDS);

  pthread_barrier_init(&barrier, NULL, 4);
  for (int i = 3; i >= 0; i--) pthread_create(&t[i], NULL, take_turns, (void *)(intptr_t)i);
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
  printf("condition variable order %d, rwlock sum %d, all past the barrier %d\n", locked_sum,
         rw_value, after_barrier);

  enum { ROUNDS = 5000 };
  pthread_create(&t[0], NULL, mp_writer, (void *)(intptr_t)ROUNDS);
  pthread_create(&t[1], NULL, mp_reader, (void *)(intptr_t)ROUNDS);
  pthread_join(t[0], NULL);
  pthread_join(t[1], NULL);
  printf("message passing: %d rounds, %d seen out of order\n", ROUNDS, mp_bad);

  pthread_mutexattr_t robust_attr;
  pthread_mutexattr_init(&robust_attr);
  pthread_mutexattr_setrobust(&robust_attr, PTHREAD_MUTEX_ROBUST);
  pthread_mutex_init(&robust, &robust_attr);
  pthread_create(&t[0], NULL, locks_and_ends, NULL);
  pthread_join(t[0], NULL);
  int owner_dead = pthread_mutex_lock(&robust) == EOWNERDEAD;
  int consistent = pthread_mutex_consistent(&robust) == 0;
  pthread_mutex_unlock(&robust);
  printf("robust mutex of a thread that ended: EOWNERDEAD %d, made consistent %d, locks again %d\n",
         owner_dead, consistent, pthread_mutex_trylock(&robust) == 0);
  pthread_mutex_unlock(&robust);

  signal(SIGUSR1, on_usr1);
  pthread_create(&t[0], NULL, signal_target, NULL);
  while (!target_ready) sched_yield();
  pthread_kill(t[0], SIGUSR1);
  pthread_join(t[0], NULL);
  printf("pthread_kill: SIGUSR1 handled on its thread %d, not on main %d\n", usr1_on == target_tid,
         usr1_on == (pid_t)syscall(SYS_gettid));

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_segv;
  sigaction(SIGSEGV, &sa, NULL);
  pthread_create(&t[1], NULL, busy, NULL);
  pthread_create(&t[0], NULL, faulter, NULL);
  void *own = NULL;
  pthread_join(t[0], &own);
  pthread_join(t[1], NULL);
  printf("a fault in one thread: handled on it %d, the others ran on %d\n", (int)(intptr_t)own,
         others_ran == 100000);

  pthread_attr_t detached;
  pthread_attr_init(&detached);
  pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
  for (int i = 0; i < THREADS; i++) pthread_create(&t[i], &detached, busy, NULL);
  pthread_t last;
  pthread_create(&last, NULL, busy, NULL);
  pthread_join(last, NULL);
  printf("detached threads and a joined one: done\n");
  printf("thread ids: main's is the process id %d\n", (pid_t)syscall(SYS_gettid) == getpid());
  return 0;
}
