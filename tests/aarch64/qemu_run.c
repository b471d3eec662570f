/* qemu_run.c: runs an aarch64 program under qemu-aarch64 with the environment it was
 * given, in that order: qemu-user (7.2) builds the program's environment in reverse, so
 * this passes it reversed (a shell script in between would reorder it and add PWD).
 * Built with PROGRAM (x64emu's aarch64 build), it is the tests' runner, "qemu_run ARGS"
 * for "qemu-aarch64 [-p PAGE_SIZE_OPTION] PROGRAM ARGS"; without, the binfmt_misc
 * interpreter for aarch64 programs (binfmt.sh), which the kernel gives the program's
 * path and its arguments after it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv) {
  size_t n = 0;
  while (environ[n]) n++;
  char **env = calloc(n + 1, sizeof *env), **args = calloc((size_t)argc + 4, sizeof *args);
  if (!env || !args) return 127;
  for (size_t i = 0; i < n; i++) env[i] = environ[n - 1 - i];
  int at = 0;
  args[at++] = QEMU;
#ifdef PAGE_SIZE_OPTION /* a kernel with pages this large */
  args[at++] = "-p";
  args[at++] = PAGE_SIZE_OPTION;
#endif
#ifdef PROGRAM
  args[at++] = PROGRAM;
#endif
  for (int i = 1; i < argc; i++) args[at++] = argv[i];
  execve(QEMU, args, env);
  fprintf(stderr, "qemu_run: cannot run %s: %s\n", QEMU, strerror(errno));
  return 127;
}
