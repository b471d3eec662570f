/* mq_notify.c: a POSIX message queue's notifications, printed so that a native run and
 * one under x64emu can be compared: by signal (its si_code and value), by a thread
 * (glibc's helper thread, which the kernel tells through a netlink socket and a cookie
 * it reads from the caller's memory), a second registration, and bad arguments. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void show(const char *what, long r) {
  if (r < 0) printf("%-40s -1 %s\n", what, strerrorname_np(errno));
  else printf("%-40s %ld\n", what, r);
}

static void *bad_ptr(void) { return (void *)(uintptr_t)8; }

static struct timespec in_ms(int ms) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  t.tv_nsec += ms * 1000000L;
  t.tv_sec += t.tv_nsec / 1000000000L;
  t.tv_nsec %= 1000000000L;
  return t;
}

static volatile sig_atomic_t mq_signal_code, mq_signal_value;
static void on_mq_signal(int sig, siginfo_t *si, void *uc) {
  (void)sig, (void)uc;
  mq_signal_code = si->si_code;
  mq_signal_value = si->si_value.sival_int;
}

static pthread_mutex_t notified_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t notified_cond = PTHREAD_COND_INITIALIZER;
static int notified_value;
static void on_mq_thread(union sigval v) {
  pthread_mutex_lock(&notified_lock);
  notified_value = v.sival_int;
  pthread_cond_signal(&notified_cond);
  pthread_mutex_unlock(&notified_lock);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  char name[64], buf[64];
  snprintf(name, sizeof name, "/x64emu-notify-%d", getpid());
  struct mq_attr attr = {.mq_maxmsg = 4, .mq_msgsize = 64};
  mqd_t q = mq_open(name, O_CREAT | O_EXCL | O_RDWR, 0600, &attr);
  show("mq_open", q >= 0);
  struct sigaction sa = {.sa_sigaction = on_mq_signal, .sa_flags = SA_SIGINFO}, old_sa;
  sigaction(SIGUSR1, &sa, &old_sa);
  struct sigevent ev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1,
                        .sigev_value.sival_int = 42};
  show("  mq_notify(SIGUSR1)", mq_notify(q, &ev));
  show("  mq_notify(again)", mq_notify(q, &ev));
  mq_send(q, "ping", 5, 0);
  for (int i = 0; i < 5000 && !mq_signal_code; i++) usleep(1000); /* 5 s at most */
  printf("  signal code %d value %d\n", mq_signal_code, mq_signal_value);
  sigaction(SIGUSR1, &old_sa, NULL);
  mq_receive(q, buf, sizeof buf, NULL);

  ev = (struct sigevent){.sigev_notify = SIGEV_THREAD, .sigev_notify_function = on_mq_thread,
                         .sigev_value.sival_int = 77};
  show("  mq_notify(SIGEV_THREAD)", mq_notify(q, &ev));
  mq_send(q, "pong", 5, 0);
  pthread_mutex_lock(&notified_lock);
  struct timespec limit = in_ms(5000);
  while (!notified_value && pthread_cond_timedwait(&notified_cond, &notified_lock, &limit) == 0) {
  }
  pthread_mutex_unlock(&notified_lock);
  printf("  thread notified with %d\n", notified_value);
  mq_receive(q, buf, sizeof buf, NULL);
  show("  mq_notify(bad sigevent)", syscall(SYS_mq_notify, q, bad_ptr()));
  struct sigevent bad_cookie = {.sigev_notify = SIGEV_THREAD, .sigev_value.sival_ptr = bad_ptr()};
  show("  mq_notify(THREAD, bad cookie)", syscall(SYS_mq_notify, q, &bad_cookie));
  mq_close(q);
  show("mq_unlink", mq_unlink(name));
  return 0;
}
