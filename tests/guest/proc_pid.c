/* proc_pid.c: the process's own /proc entries under the ids it knows (/proc/PID and
 * /proc/PID/task/TID, from getpid and gettid, which under --deterministic are 1000 and
 * 1001...), and its name there: the program's file name, as exec sets it, which a
 * thread's name starts from (PR_GET_NAME, comm, pthread_setname_np). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

static void show_file(const char *what, const char *path) {
  char text[64] = "";
  FILE *f = fopen(path, "r");
  if (!f) {
    printf("%s: cannot open\n", what);
    return;
  }
  if (fgets(text, sizeof text, f)) text[strcspn(text, "\n")] = 0;
  fclose(f);
  printf("%s: %s\n", what, text);
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t named = PTHREAD_COND_INITIALIZER, seen = PTHREAD_COND_INITIALIZER;
static pid_t worker_tid;
static int looked;

static void *worker(void *arg) {
  (void)arg;
  char name[16] = "";
  prctl(PR_GET_NAME, name);
  printf("a new thread's name: %s\n", name);
  pthread_setname_np(pthread_self(), "worker");
  pthread_mutex_lock(&lock);
  worker_tid = gettid();
  pthread_cond_signal(&named);
  while (!looked) pthread_cond_wait(&seen, &lock);
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  char path[128], name[16] = "";
  prctl(PR_GET_NAME, name);
  printf("PR_GET_NAME: %s\n", name);
  snprintf(path, sizeof path, "/proc/%d/comm", getpid());
  show_file("/proc/PID/comm", path);
  snprintf(path, sizeof path, "/proc/%d/task/%d/comm", getpid(), gettid());
  show_file("/proc/PID/task/TID/comm", path);
  struct stat st;
  snprintf(path, sizeof path, "/proc/%d", getpid());
  printf("/proc/PID is a directory: %d\n", stat(path, &st) == 0 && S_ISDIR(st.st_mode));

  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_mutex_lock(&lock);
  while (!worker_tid) pthread_cond_wait(&named, &lock);
  snprintf(path, sizeof path, "/proc/%d/task/%d/comm", getpid(), worker_tid);
  show_file("the thread's /proc/PID/task/TID/comm after pthread_setname_np", path);
  pthread_setname_np(t, "renamed"); /* another thread's: /proc/self/task/TID/comm */
  snprintf(path, sizeof path, "/proc/self/task/%d/comm", worker_tid);
  show_file("its /proc/self/task/TID/comm, renamed from the main thread", path);
  looked = 1;
  pthread_cond_signal(&seen);
  pthread_mutex_unlock(&lock);
  pthread_join(t, NULL);
  return 0;
}
