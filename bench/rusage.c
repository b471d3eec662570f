/* rusage.c: runs a command (its output thrown away) and prints what it cost: CPU seconds
 * (user + system) and its peak resident memory in MB, as "SECONDS MB". Fails with the
 * command. For bench/run.sh: bash's `time` gives no memory figure.
 *
 * usage: rusage COMMAND [ARG...] */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s COMMAND [ARG...]\n", argv[0]);
    return 2;
  }
  pid_t pid = fork();
  if (pid < 0) {
    perror("rusage: fork");
    return 1;
  }
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
      dup2(null, 1);
      dup2(null, 2);
    }
    execvp(argv[1], argv + 1);
    _exit(127);
  }
  int status;
  struct rusage ru;
  if (wait4(pid, &status, 0, &ru) < 0) {
    perror("rusage: wait4");
    return 1;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 1;
  double cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
               ru.ru_stime.tv_usec / 1e6;
  printf("%.3f %.1f\n", cpu, ru.ru_maxrss / 1024.0);
  return 0;
}
