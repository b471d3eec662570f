/* startup.c: runs a command N times, one after another, and prints the median wall-clock
 * time of a run in milliseconds (fork to exit); bench/run.sh uses it for start-up times,
 * which are too short to time from a shell. The first run only warms the caches.
 *
 * usage: startup N command [args...] */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* One run with its output discarded; exits the timer if the command fails. */
static double run_once(char **argv) {
  double start = now_ms();
  pid_t pid = fork();
  if (pid < 0) {
    perror("startup: fork");
    exit(1);
  }
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 1);
    execvp(argv[0], argv);
    perror("startup: exec");
    _exit(127);
  }
  int status;
  if (waitpid(pid, &status, 0) < 0) {
    perror("startup: waitpid");
    exit(1);
  }
  double taken = now_ms() - start;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "startup: %s failed (status 0x%x)\n", argv[0], status);
    exit(1);
  }
  return taken;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  int runs = argc > 2 ? atoi(argv[1]) : 0;
  if (runs < 1) {
    fprintf(stderr, "usage: startup N command [args...]\n");
    return 2;
  }
  double *times = malloc(sizeof *times * (size_t)runs);
  if (!times) return 1;
  run_once(argv + 2);
  for (int i = 0; i < runs; i++) times[i] = run_once(argv + 2);
  qsort(times, (size_t)runs, sizeof *times, by_value);
  double median = runs % 2 ? times[runs / 2] : (times[runs / 2 - 1] + times[runs / 2]) / 2;
  printf("%.3f\n", median);
  free(times);
  return 0;
}
