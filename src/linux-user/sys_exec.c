/* sys_exec.c: execve of an x86-64 program or a #! script: x64emu runs again, on the new program. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "signals.h"
#include "strace.h"
#include "seccomp.h"
#include "sys_common.h"

#define SCRIPT_LINE_MAX 256 /* the kernel's BINPRM_BUF_SIZE: only this much of #! is read */
#define MAX_INTERP_DEPTH 4   /* a script whose interpreter is a script... */
#define MAX_ARGS (1u << 20)
#define MAX_ARG_STRLEN (32u * 4096) /* the kernel's limit on one argument or variable */

enum { EXEC_ELF, EXEC_SCRIPT };

/* Parses "#!interp [arg]" as fs/binfmt_script.c does: blanks around, one optional argument
 * that keeps inner blanks. Returns 0 or -ENOEXEC. */
static int parse_shebang(char *buf, size_t len, char **interp, char **arg) {
  char *end = memchr(buf, '\n', len);
  bool truncated = !end;
  if (!end) end = buf + len;
  *end = 0;
  char *p = buf + 2;
  while (*p == ' ' || *p == '\t') p++;
  if (!*p) return -ENOEXEC;
  char *q = p;
  while (*q && *q != ' ' && *q != '\t') q++;
  if (truncated && !*q) return -ENOEXEC; /* the interpreter's name may go on past the buffer */
  char *rest = q;
  if (*q) *q++ = 0, rest = q;
  while (*rest == ' ' || *rest == '\t') rest++;
  char *tail = rest + strlen(rest);
  while (tail > rest && (tail[-1] == ' ' || tail[-1] == '\t')) *--tail = 0;
  *interp = p;
  *arg = *rest ? rest : NULL;
  return 0;
}

/* What the file at path is, with the kernel's errors: EXEC_ELF for an x86-64 ELF,
 * EXEC_SCRIPT (line filled) for #!, else -ENOEXEC, -ENOENT, -EACCES... */
static int probe(const char *path, char *line, size_t cap) {
  if (faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) < 0) return -errno;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -errno;
  struct stat st;
  if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return -EACCES;
  }
  ssize_t n = pread(fd, line, cap - 1, 0);
  close(fd);
  if (n < 0) return -errno;
  line[n] = 0;
  if (n >= 20 && !memcmp(line, "\x7f" "ELF", 4)) {
    const unsigned char *h = (const unsigned char *)line;
    bool x86_64 = h[4] == 2 /* ELFCLASS64 */ && h[5] == 1 /* little-endian */ &&
                  (h[18] | h[19] << 8) == 62 /* EM_X86_64 */;
    return x86_64 ? EXEC_ELF : -ENOEXEC;
  }
  if (n >= 2 && line[0] == '#' && line[1] == '!') return EXEC_SCRIPT;
  return -ENOEXEC;
}

/* Reads the guest's NULL-terminated array of strings (argv, envp), each string found whole
 * in the guest's memory: its length or -errno. */
static int64_t read_guest_vector(Cpu *c, uint64_t vec, uint64_t **out) {
  size_t n = 0, cap = 16;
  uint64_t *v = malloc(cap * sizeof *v);
  if (!v) return -ENOMEM;
  for (; vec; n++) {
    if (n == MAX_ARGS) {
      free(v);
      return -E2BIG;
    }
    if (n + 1 >= cap) {
      uint64_t *bigger = realloc(v, (cap *= 2) * sizeof *v);
      if (!bigger) {
        free(v);
        return -ENOMEM;
      }
      v = bigger;
    }
    int64_t r = guest_copy_in(c, &v[n], vec + 8 * n, 8);
    if (r == 0 && v[n]) r = guest_strlen(c, v[n], MAX_ARG_STRLEN);
    if (r < 0) {
      free(v);
      return r;
    }
    if (!v[n]) break;
  }
  v[n] = 0;
  *out = v;
  return (int64_t)n;
}

/* The variables the new x64emu itself reads: its own, QEMU's sysroot, and the options of
 * the sanitizer runtimes an x64emu may be built with (tests/fuzz, tests/tsan). */
static bool for_emulator(const char *var) {
  static const char *const names[] = {"X64EMU_", "QEMU_LD_PREFIX=", "ASAN_OPTIONS=",
                                      "UBSAN_OPTIONS=", "TSAN_OPTIONS=", "LSAN_OPTIONS="};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strncmp(var, names[i], strlen(names[i])) == 0) return true;
  return false;
}

static int64_t exec_guest(Cpu *c, int dirfd, uint64_t guest_path, uint64_t guest_argv,
                          uint64_t guest_envp, int flags) {
  char path[4200];
  const char *given = PATH_ARG(guest_path);
  int through = -1; /* the descriptor the path goes through, /proc/self/fd/N */
  /* The kernel's order: the flags, the path's address, then the lookup. */
  if (flags & ~(X64_AT_SYMLINK_NOFOLLOW | X64_AT_EMPTY_PATH)) return -EINVAL;
  if (!given) return -EFAULT;
  if (!given[0]) {
    if (!(flags & X64_AT_EMPTY_PATH)) return -ENOENT;
    if (dirfd == X64_AT_FDCWD) return -EACCES; /* the directory itself, not executable */
    if (dirfd < 0 || fcntl(dirfd, F_GETFD) < 0) return -EBADF;
    snprintf(path, sizeof path, "/proc/self/fd/%d", through = dirfd);
  } else if (path_names_self_exe(dirfd, given)) {
    snprintf(path, sizeof path, "%s", proc_of(c)->exe_path);
  } else if (given[0] != '/' && dirfd != X64_AT_FDCWD) {
    snprintf(path, sizeof path, "/proc/self/fd/%d/%s", through = dirfd, given);
  } else {
    snprintf(path, sizeof path, "%s", given);
  }

  struct stat st;
  if ((flags & X64_AT_SYMLINK_NOFOLLOW) && given[0] &&
      fstatat(dirfd, given, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
    return -ELOOP; /* the last component may not be a symbolic link */

  uint64_t *gargs;
  int64_t argc = read_guest_vector(c, guest_argv, &gargs);
  if (argc < 0) return argc;

  /* args: the new program's argv, built the way the kernel rewrites it for scripts; the
   * strings stay where they are (guest strings are host strings, found the guest's). */
  size_t n_args = (size_t)argc + 2 * MAX_INTERP_DEPTH + 2;
  char **args = calloc(n_args + 1, sizeof *args);
  char(*lines)[SCRIPT_LINE_MAX + 1] = calloc(MAX_INTERP_DEPTH + 1, sizeof *lines);
  if (!args || !lines) {
    free(gargs);
    free(args);
    free(lines);
    return -ENOMEM;
  }
  size_t nargs = 0;
  for (int64_t i = 0; i < argc; i++) args[nargs++] = GUEST_PTR(gargs[i]);
  free(gargs);

  const char *file = path;
  int kind;
  for (int depth = 0;; depth++) {
    kind = probe(file, lines[depth], sizeof lines[depth]);
    if (kind != EXEC_SCRIPT) break;
    if (depth == MAX_INTERP_DEPTH) {
      kind = -ELOOP;
      break;
    }
    char *interp, *arg;
    kind = parse_shebang(lines[depth], strlen(lines[depth]), &interp, &arg);
    if (kind < 0) break;
    /* argv becomes: interp [arg] file argv[1..] */
    size_t keep = nargs ? nargs - 1 : 0, head = arg ? 3 : 2;
    memmove(args + head, args + (nargs ? 1 : 0), keep * sizeof *args);
    args[0] = interp;
    if (arg) args[1] = arg;
    args[head - 1] = (char *)file;
    nargs = keep + head;
    file = interp;
  }

  uint64_t *genv = NULL;
  int64_t envc = kind == EXEC_ELF ? read_guest_vector(c, guest_envp, &genv) : 0;
  if (envc < 0) kind = (int)envc;
  if (kind == EXEC_ELF) {
    /* x64emu [options] --guest-env N VAR=VALUE... -0 argv[0] -- file argv[1..]: the
     * guest's environment goes to the new guest whole, in its order, as arguments; x64emu
     * itself gets only the part meant for it (for_emulator), so that the
     * guest's LD_PRELOAD, LD_LIBRARY_PATH, GLIBC_TUNABLES... reach the guest's loader and
     * libc, never the host's loading x64emu (which would put guest code in it). */
    char **reexec = proc_of(c)->opt.reexec_argv;
    size_t n_re = 0;
    while (reexec && reexec[n_re]) n_re++;
    char count[24], kept_fd[24], seccomp_fd[24], self_fd[24];
    snprintf(count, sizeof count, "%lld", (long long)envc);
    /* A descriptor the path goes through that closes on exec (fexecve of an fd Python or
     * glibc opened with O_CLOEXEC) would be gone before the new x64emu opens the file:
     * it gets a copy that stays open, and closes that once it has loaded the program, so
     * that the new image has the descriptors the kernel leaves it. */
    int kept = -1;
    if (file == path && through >= 0 && (fcntl(through, F_GETFD) & FD_CLOEXEC) &&
        (kept = fcntl(through, F_DUPFD, 3)) >= 0) {
      snprintf(kept_fd, sizeof kept_fd, "%d", kept);
      if (given[0]) snprintf(path, sizeof path, "/proc/self/fd/%d/%s", kept, given);
      else snprintf(path, sizeof path, "/proc/self/fd/%d", kept);
    }
    char **host_argv = calloc(n_re + 13 + (size_t)envc + nargs + 1, sizeof *host_argv);
    char **host_env = calloc((size_t)envc + 1, sizeof *host_env);
    if (!reexec) {
      kind = -ENOSYS; /* an embedded machine (the library) has no x64emu to run */
    } else if (!host_argv || !host_env) {
      kind = -ENOMEM;
    } else {
      size_t k = 0, e = 0;
      for (size_t i = 0; i < n_re; i++) host_argv[k++] = reexec[i];
      if (kept >= 0) {
        host_argv[k++] = "--exec-fd";
        host_argv[k++] = kept_fd;
      }
      /* After a chroot, x64emu's own file for the new image's execve too. */
      int self = proc_of(c)->self_fd >= 0 ? fcntl(proc_of(c)->self_fd, F_DUPFD, 512) : -1;
      if (self >= 0) {
        snprintf(self_fd, sizeof self_fd, "%d", self);
        host_argv[k++] = "--self-fd";
        host_argv[k++] = self_fd;
      }
      /* The filters the new image keeps, as the kernel keeps them across execve. */
      int filters = seccomp_pass(c);
      if (filters >= 0) {
        snprintf(seccomp_fd, sizeof seccomp_fd, "%d", filters);
        host_argv[k++] = "--seccomp-fd";
        host_argv[k++] = seccomp_fd;
      }
      /* RDTSC refused (PR_SET_TSC), which the kernel keeps across execve. */
      if (c->tsc_denied) host_argv[k++] = "--tsc-sigsegv";
      host_argv[k++] = "--guest-env";
      host_argv[k++] = count;
      for (int64_t i = 0; i < envc; i++) {
        char *var = GUEST_PTR(genv[i]);
        host_argv[k++] = var;
        if (for_emulator(var)) host_env[e++] = var;
      }
      host_argv[k++] = "-0";
      host_argv[k++] = nargs ? args[0] : "";
      host_argv[k++] = "--";
      host_argv[k++] = (char *)file;
      for (size_t i = 1; i < nargs; i++) host_argv[k++] = args[i];
      host_argv[k] = NULL;
      strace_exec_now();
      fflush(NULL); /* what the command buffered (a trace) is not lost with this image */
      vfork_child_sync(c);
      signals_before_exec();
      if (proc_of(c)->self_fd >= 0)
        syscall(SYS_execveat, proc_of(c)->self_fd, "", host_argv, host_env, AT_EMPTY_PATH);
      else
        execve(reexec[0], host_argv, host_env);
      kind = -errno;
      if (filters >= 0) close(filters);
      if (self >= 0) close(self);
    }
    if (kept >= 0) close(kept);
    free(host_argv);
    free(host_env);
  }
  free(genv);
  free(args);
  free(lines);
  return kind;
}

int64_t sys_execve(Cpu *c, const uint64_t *a) {
  return exec_guest(c, X64_AT_FDCWD, a[0], a[1], a[2], 0);
}

int64_t sys_execveat(Cpu *c, const uint64_t *a) {
  return exec_guest(c, arg_fd(a[0]), a[1], a[2], a[3], (int)a[4]);
}
