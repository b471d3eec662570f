/* strace.h: --strace: one strace-like line per guest system call, from a table of argument kinds. */
#ifndef X64EMU_STRACE_H
#define X64EMU_STRACE_H

#include <stddef.h>
#include <stdint.h>

#include "../interp/cpu.h"

/* How an argument is shown. */
enum StraceArg {
  A_END,     /* no more arguments */
  A_INT,     /* int, signed decimal */
  A_LONG,    /* long, signed decimal */
  A_ULONG,   /* size_t, unsigned decimal */
  A_HEX,     /* a number shown in hex */
  A_PTR,     /* an address, or NULL */
  A_FD,      /* a file descriptor */
  A_FDNUM,   /* a descriptor's number that need not be open (dup2's target, close_range's) */
  A_DIRFD,   /* a directory descriptor, AT_FDCWD */
  A_PATH,    /* a NUL-terminated string, shown whole */
  A_STR,     /* the same, but not a path (the sysroot never applies): a queue's name */
  A_BUF_IN,  /* data the call reads: the next argument is its length */
  A_BUF_OUT, /* data the call wrote: the result is its length */
  A_OFLAGS,  /* open(2) flags */
  A_FDFLAGS, /* O_CLOEXEC, O_NONBLOCK... without an access mode (pipe2, dup3) */
  A_OMODE,   /* the mode of open(2), shown only when the flags create a file */
  A_MODE,    /* a file mode, octal */
  A_PROT,    /* PROT_* */
  A_MAPF,    /* MAP_* */
  A_ATF,     /* AT_* flags */
  A_SIG,     /* a signal number */
  A_SIGHOW,  /* SIG_BLOCK... */
  A_IOCTL,   /* an ioctl request */
  A_FCNTL,   /* an fcntl command */
  A_WHENCE,  /* SEEK_* */
  A_CLOCK,   /* CLOCK_* */
  A_ARCH,    /* arch_prctl's code */
  A_ARGV,    /* a NULL-terminated array of strings */
  A_ENVP,    /* the same, summarised */
  A_CLONEF,  /* clone's flags and exit signal */
  A_ACCESS,  /* F_OK, R_OK... */
  A_RLIMIT,  /* RLIMIT_* */
  A_WAITF,   /* WNOHANG... */
  A_PRCTL,   /* PR_* */
};

/* How the result is shown (errors always as -1 ENAME (text)). */
enum StraceRet { R_DEC, R_HEX, R_NONE, R_OCT };

typedef struct StraceSig {
  uint8_t ret;    /* enum StraceRet */
  uint8_t arg[6]; /* enum StraceArg, A_END after the last */
} StraceSig;

/* Notes c's call about to run; sig is NULL when the shim does not provide it. */
void strace_begin(Cpu *c, uint64_t nr, const StraceSig *sig, const uint64_t *args);
/* Prints the noted call with its result. */
void strace_end(int64_t ret);
/* execve is about to replace the process: prints the noted call as successful now. */
void strace_exec_now(void);

/* The line strace_end would print (without the newline). */
int strace_format(Cpu *c, char *out, size_t cap, uint64_t nr, const StraceSig *sig,
                  const uint64_t *args, int64_t ret);

#endif
