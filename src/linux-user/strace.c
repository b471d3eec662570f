/* strace.c: formatting guest system calls as strace does, driven by each call's argument kinds. */
#define _GNU_SOURCE
#include "strace.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sys_common.h"

#define STR_MAX 32  /* bytes of data shown, as strace's default -s 32 */
#define ARGV_MAX 32 /* argv entries shown */

typedef struct Out {
  char *buf;
  size_t cap, len;
  Cpu *c; /* whose memory the arguments point into */
} Out;

static void put(Out *o, const char *fmt, ...) {
  if (o->len + 1 >= o->cap) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
  va_end(ap);
  if (n > 0) o->len = o->len + (size_t)n < o->cap ? o->len + (size_t)n : o->cap - 1;
}

/* ---- names of values and flags, in x86-64 numbers ---- */

typedef struct Name {
  uint64_t v;
  const char *name;
} Name;
#define N(x) (sizeof(x) / sizeof(x)[0])

static const Name open_flags[] = {
    {00000100, "O_CREAT"},    {00000200, "O_EXCL"},     {00000400, "O_NOCTTY"},
    {00001000, "O_TRUNC"},    {00002000, "O_APPEND"},   {00004000, "O_NONBLOCK"},
    {04010000, "O_SYNC"},     {00010000, "O_DSYNC"},    {00020000, "O_ASYNC"},
    {00040000, "O_DIRECT"},   {00100000, "O_LARGEFILE"}, {020200000, "O_TMPFILE"},
    {00200000, "O_DIRECTORY"}, {00400000, "O_NOFOLLOW"}, {01000000, "O_NOATIME"},
    {02000000, "O_CLOEXEC"},  {010000000, "O_PATH"},
};
static const Name prot_flags[] = {
    {1, "PROT_READ"}, {2, "PROT_WRITE"}, {4, "PROT_EXEC"}, {8, "PROT_SEM"},
    {0x01000000, "PROT_GROWSDOWN"}, {0x02000000, "PROT_GROWSUP"},
};
static const Name map_flags[] = {
    {0x10, "MAP_FIXED"}, {0x20, "MAP_ANONYMOUS"}, {0x40, "MAP_32BIT"},
    {0x100, "MAP_GROWSDOWN"}, {0x800, "MAP_DENYWRITE"}, {0x1000, "MAP_EXECUTABLE"},
    {0x2000, "MAP_LOCKED"}, {0x4000, "MAP_NORESERVE"}, {0x8000, "MAP_POPULATE"},
    {0x10000, "MAP_NONBLOCK"}, {0x20000, "MAP_STACK"}, {0x40000, "MAP_HUGETLB"},
    {0x80000, "MAP_SYNC"}, {0x100000, "MAP_FIXED_NOREPLACE"},
};
static const Name at_flags[] = {
    {0x100, "AT_SYMLINK_NOFOLLOW"}, {0x200, "AT_REMOVEDIR"}, {0x400, "AT_SYMLINK_FOLLOW"},
    {0x800, "AT_NO_AUTOMOUNT"}, {0x1000, "AT_EMPTY_PATH"}, {0x2000, "AT_STATX_FORCE_SYNC"},
    {0x4000, "AT_STATX_DONT_SYNC"},
};
static const Name access_flags[] = {{4, "R_OK"}, {2, "W_OK"}, {1, "X_OK"}};
static const Name wait_flags[] = {
    {1, "WNOHANG"}, {2, "WUNTRACED"}, {4, "WEXITED"}, {8, "WCONTINUED"}, {0x01000000, "WNOWAIT"},
    {0x20000000, "__WNOTHREAD"}, {0x40000000, "__WALL"}, {0x80000000, "__WCLONE"},
};
static const Name clone_flags[] = {
    {0x100, "CLONE_VM"}, {0x200, "CLONE_FS"}, {0x400, "CLONE_FILES"}, {0x800, "CLONE_SIGHAND"},
    {0x1000, "CLONE_PIDFD"}, {0x2000, "CLONE_PTRACE"}, {0x4000, "CLONE_VFORK"},
    {0x8000, "CLONE_PARENT"}, {0x10000, "CLONE_THREAD"}, {0x20000, "CLONE_NEWNS"},
    {0x40000, "CLONE_SYSVSEM"}, {0x80000, "CLONE_SETTLS"}, {0x100000, "CLONE_PARENT_SETTID"},
    {0x200000, "CLONE_CHILD_CLEARTID"}, {0x400000, "CLONE_DETACHED"},
    {0x800000, "CLONE_UNTRACED"}, {0x1000000, "CLONE_CHILD_SETTID"},
    {0x2000000, "CLONE_NEWCGROUP"}, {0x4000000, "CLONE_NEWUTS"}, {0x8000000, "CLONE_NEWIPC"},
    {0x10000000, "CLONE_NEWUSER"}, {0x20000000, "CLONE_NEWPID"}, {0x40000000, "CLONE_NEWNET"},
    {0x80000000, "CLONE_IO"},
};

static const Name fcntl_cmds[] = {
    {0, "F_DUPFD"}, {1, "F_GETFD"}, {2, "F_SETFD"}, {3, "F_GETFL"}, {4, "F_SETFL"},
    {5, "F_GETLK"}, {6, "F_SETLK"}, {7, "F_SETLKW"}, {8, "F_SETOWN"}, {9, "F_GETOWN"},
    {10, "F_SETSIG"}, {11, "F_GETSIG"}, {15, "F_SETOWN_EX"}, {16, "F_GETOWN_EX"},
    {36, "F_OFD_GETLK"}, {37, "F_OFD_SETLK"}, {38, "F_OFD_SETLKW"}, {1024, "F_SETLEASE"},
    {1025, "F_GETLEASE"}, {1026, "F_NOTIFY"}, {1030, "F_DUPFD_CLOEXEC"},
    {1031, "F_SETPIPE_SZ"}, {1032, "F_GETPIPE_SZ"}, {1033, "F_ADD_SEALS"}, {1034, "F_GET_SEALS"},
};
static const Name whences[] = {
    {0, "SEEK_SET"}, {1, "SEEK_CUR"}, {2, "SEEK_END"}, {3, "SEEK_DATA"}, {4, "SEEK_HOLE"},
};
static const Name clocks[] = {
    {0, "CLOCK_REALTIME"}, {1, "CLOCK_MONOTONIC"}, {2, "CLOCK_PROCESS_CPUTIME_ID"},
    {3, "CLOCK_THREAD_CPUTIME_ID"}, {4, "CLOCK_MONOTONIC_RAW"}, {5, "CLOCK_REALTIME_COARSE"},
    {6, "CLOCK_MONOTONIC_COARSE"}, {7, "CLOCK_BOOTTIME"}, {8, "CLOCK_REALTIME_ALARM"},
    {9, "CLOCK_BOOTTIME_ALARM"}, {11, "CLOCK_TAI"},
};
static const Name arch_codes[] = {
    {0x1001, "ARCH_SET_GS"}, {0x1002, "ARCH_SET_FS"}, {0x1003, "ARCH_GET_FS"},
    {0x1004, "ARCH_GET_GS"}, {0x1011, "ARCH_GET_CPUID"}, {0x1012, "ARCH_SET_CPUID"},
    {0x3001, "ARCH_CET_STATUS"},
};
static const Name sighows[] = {{0, "SIG_BLOCK"}, {1, "SIG_UNBLOCK"}, {2, "SIG_SETMASK"}};
static const Name rlimits[] = {
    {0, "RLIMIT_CPU"}, {1, "RLIMIT_FSIZE"}, {2, "RLIMIT_DATA"}, {3, "RLIMIT_STACK"},
    {4, "RLIMIT_CORE"}, {5, "RLIMIT_RSS"}, {6, "RLIMIT_NPROC"}, {7, "RLIMIT_NOFILE"},
    {8, "RLIMIT_MEMLOCK"}, {9, "RLIMIT_AS"}, {10, "RLIMIT_LOCKS"}, {11, "RLIMIT_SIGPENDING"},
    {12, "RLIMIT_MSGQUEUE"}, {13, "RLIMIT_NICE"}, {14, "RLIMIT_RTPRIO"}, {15, "RLIMIT_RTTIME"},
};
static const Name prctls[] = {
    {1, "PR_SET_PDEATHSIG"}, {2, "PR_GET_PDEATHSIG"}, {3, "PR_GET_DUMPABLE"},
    {4, "PR_SET_DUMPABLE"}, {7, "PR_GET_KEEPCAPS"}, {8, "PR_SET_KEEPCAPS"}, {15, "PR_SET_NAME"},
    {16, "PR_GET_NAME"}, {22, "PR_SET_SECCOMP"}, {23, "PR_CAPBSET_READ"},
    {29, "PR_SET_TIMERSLACK"}, {30, "PR_GET_TIMERSLACK"}, {36, "PR_SET_CHILD_SUBREAPER"},
    {37, "PR_GET_CHILD_SUBREAPER"}, {38, "PR_SET_NO_NEW_PRIVS"}, {39, "PR_GET_NO_NEW_PRIVS"},
    {40, "PR_GET_TID_ADDRESS"}, {0x53564d41, "PR_SET_VMA"},
};
static const char *const signames[32] = {
    NULL, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS", "SIGFPE",
    "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM", "SIGSTKFLT",
    "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGXCPU",
    "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR", "SIGSYS",
};

static void put_value(Out *o, uint64_t v, const Name *t, size_t n, bool hex) {
  for (size_t i = 0; i < n; i++)
    if (t[i].v == v) {
      put(o, "%s", t[i].name);
      return;
    }
  put(o, hex ? "%#llx" : "%d", hex ? (unsigned long long)v : (unsigned long long)(int)v);
}

/* Names joined by '|', unknown bits in hex; lead (if any) is already printed. */
static void put_flags(Out *o, uint64_t v, const Name *t, size_t n, bool lead) {
  bool any = lead;
  for (size_t i = 0; i < n; i++) {
    if (t[i].v && (v & t[i].v) == t[i].v) {
      put(o, "%s%s", any ? "|" : "", t[i].name);
      v &= ~t[i].v;
      any = true;
    }
  }
  if (v) put(o, any ? "|%#llx" : "%#llx", (unsigned long long)v);
  else if (!any) put(o, "0");
}

static void put_signal(Out *o, uint64_t sig) {
  if (sig > 0 && sig < 32) put(o, "%s", signames[sig]);
  else if (sig == 32) put(o, "SIGRTMIN");
  else if (sig > 32 && sig <= 64) put(o, "SIGRT_%d", (int)sig - 32);
  else put(o, "%d", (int)sig);
}

/* ---- guest data ---- */

static void put_ptr(Out *o, uint64_t p) {
  if (p) put(o, "%#llx", (unsigned long long)p);
  else put(o, "NULL");
}

static void put_quoted(Out *o, const unsigned char *s, size_t n, bool more) {
  put(o, "\"");
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = s[i];
    switch (ch) {
    case '"': put(o, "\\\""); break;
    case '\\': put(o, "\\\\"); break;
    case '\n': put(o, "\\n"); break;
    case '\t': put(o, "\\t"); break;
    case '\r': put(o, "\\r"); break;
    case '\v': put(o, "\\v"); break;
    case '\f': put(o, "\\f"); break;
    default:
      if (ch >= 0x20 && ch < 0x7f) put(o, "%c", ch);
      else if (i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '7') put(o, "\\%03o", ch);
      else put(o, "\\%o", ch);
    }
  }
  put(o, more ? "\"..." : "\"");
}

static void put_data(Out *o, uint64_t p, uint64_t len) {
  unsigned char buf[STR_MAX];
  size_t n = len < STR_MAX ? (size_t)len : STR_MAX;
  if (!p || guest_copy_in(o->c, buf, p, n) < 0) {
    put_ptr(o, p);
    return;
  }
  put_quoted(o, buf, n, len > STR_MAX);
}

static void put_string(Out *o, uint64_t p, size_t max) {
  char buf[4096];
  int64_t n = guest_read_str(o->c, buf, sizeof buf, p);
  if (n < 0) {
    put_ptr(o, p);
    return;
  }
  put_quoted(o, (const unsigned char *)buf, (size_t)n < max ? (size_t)n : max, (size_t)n > max);
}

static void put_argv(Out *o, uint64_t v, bool summary) {
  if (!v) {
    put(o, "NULL");
    return;
  }
  size_t n = 0;
  uint64_t s;
  if (!summary) put(o, "[");
  for (; n < 100000 && guest_copy_in(o->c, &s, v + 8 * n, 8) == 0 && s; n++) {
    if (summary || n > ARGV_MAX) continue;
    if (n == ARGV_MAX) {
      put(o, ", ...");
      continue;
    }
    if (n) put(o, ", ");
    put_string(o, s, STR_MAX);
  }
  if (summary) put(o, "%#llx /* %zu vars */", (unsigned long long)v, n);
  else put(o, "]");
}

/* ---- one line ---- */

static void put_arg(Out *o, uint8_t kind, const uint64_t *a, int i, int64_t ret) {
  uint64_t v = a[i];
  switch (kind) {
  case A_INT: put(o, "%d", (int)v); break;
  case A_LONG: put(o, "%lld", (long long)v); break;
  case A_ULONG: put(o, "%llu", (unsigned long long)v); break;
  case A_HEX: put(o, "%#llx", (unsigned long long)v); break;
  case A_PTR: put_ptr(o, v); break;
  case A_FD:
  case A_FDNUM: put(o, "%d", (int)v); break;
  case A_DIRFD:
    if ((int)v == X64_AT_FDCWD) put(o, "AT_FDCWD");
    else put(o, "%d", (int)v);
    break;
  case A_PATH: case A_STR: put_string(o, v, 4096); break;
  case A_BUF_IN: put_data(o, v, i < 5 ? a[i + 1] : 0); break;
  case A_BUF_OUT:
    if (ret >= 0 && (uint64_t)ret < (uint64_t)-4095) put_data(o, v, (uint64_t)ret);
    else put_ptr(o, v);
    break;
  case A_OFLAGS: {
    static const char *const modes[4] = {"O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE"};
    put(o, "%s", modes[v & 3]);
    put_flags(o, v & ~3ull, open_flags, N(open_flags), true);
    break;
  }
  case A_FDFLAGS: put_flags(o, v, open_flags, N(open_flags), false); break;
  case A_OMODE: break; /* printed with its flags, see strace_format */
  case A_MODE: put(o, "%#llo", (unsigned long long)v); break;
  case A_PROT:
    if (v == 0) put(o, "PROT_NONE");
    else put_flags(o, v, prot_flags, N(prot_flags), false);
    break;
  case A_MAPF: {
    static const char *const types[4] = {"0", "MAP_SHARED", "MAP_PRIVATE", "MAP_SHARED_VALIDATE"};
    if ((v & 0xf) < 4) put(o, "%s", types[v & 0xf]);
    else put(o, "%#llx", (unsigned long long)(v & 0xf));
    put_flags(o, v & ~0xfull, map_flags, N(map_flags), true);
    break;
  }
  case A_ATF: put_flags(o, v, at_flags, N(at_flags), false); break;
  case A_SIG: put_signal(o, v); break;
  case A_SIGHOW: put_value(o, v, sighows, N(sighows), false); break;
  case A_IOCTL: {
    const char *name = ioctl_name((uint32_t)v);
    if (name) put(o, "%s", name);
    else put(o, "%#llx", (unsigned long long)(uint32_t)v);
    break;
  }
  case A_FCNTL: put_value(o, v, fcntl_cmds, N(fcntl_cmds), false); break;
  case A_WHENCE: put_value(o, v, whences, N(whences), false); break;
  case A_CLOCK: put_value(o, v, clocks, N(clocks), false); break;
  case A_ARCH: put_value(o, v, arch_codes, N(arch_codes), true); break;
  case A_ARGV: put_argv(o, v, false); break;
  case A_ENVP: put_argv(o, v, true); break;
  case A_CLONEF:
    if (v & ~0xffull) put_flags(o, v & ~0xffull, clone_flags, N(clone_flags), false);
    if (v & 0xff) {
      if (v & ~0xffull) put(o, "|");
      put_signal(o, v & 0xff);
    }
    if (!v) put(o, "0");
    break;
  case A_ACCESS:
    if (v == 0) put(o, "F_OK");
    else put_flags(o, v, access_flags, N(access_flags), false);
    break;
  case A_RLIMIT: put_value(o, v, rlimits, N(rlimits), false); break;
  case A_WAITF: put_flags(o, v, wait_flags, N(wait_flags), false); break;
  case A_PRCTL: put_value(o, v, prctls, N(prctls), false); break;
  default: put(o, "%#llx", (unsigned long long)v); break;
  }
}

static void put_result(Out *o, const StraceSig *sig, int64_t ret) {
  if (sig && sig->ret == R_NONE) {
    put(o, " = ?");
  } else if ((uint64_t)ret >= (uint64_t)-4095) {
    int e = (int)-ret;
    const char *name = strerrorname_np(e);
    if (name) put(o, " = -1 %s (%s)", name, strerror(e));
    else put(o, " = -1 E%d (%s)", e, strerror(e));
  } else if (sig && sig->ret == R_HEX) {
    put(o, " = %#llx", (unsigned long long)ret);
  } else if (sig && sig->ret == R_OCT) {
    put(o, " = %#llo", (unsigned long long)ret);
  } else {
    put(o, " = %lld", (long long)ret);
  }
}

int strace_format(Cpu *c, char *buf, size_t cap, uint64_t nr, const StraceSig *sig,
                  const uint64_t *a, int64_t ret) {
  Out o = {buf, cap, 0, c};
  if (cap) buf[0] = 0;
  const char *name = x64_syscall_name(nr);
  if (name) put(&o, "%s(", name);
  else put(&o, "syscall_%#llx(", (unsigned long long)nr);
  if (!sig) {
    put(&o, "...)");
  } else {
    for (int i = 0; i < 6 && sig->arg[i] != A_END; i++) {
      uint8_t kind = sig->arg[i];
      if (kind == A_OMODE) {
        /* only with O_CREAT or O_TMPFILE in the flags before it */
        if (i == 0 || !(a[i - 1] & (00000100 | 020000000))) continue;
        put(&o, ", %#llo", (unsigned long long)a[i]);
        continue;
      }
      if (i) put(&o, ", ");
      put_arg(&o, kind, a, i, ret);
    }
    put(&o, ")");
  }
  put_result(&o, sig, ret);
  return (int)o.len;
}

/* ---- the call in flight ---- */

static struct {
  Cpu *c;
  uint64_t nr;
  const StraceSig *sig;
  uint64_t args[6];
  bool active, printed;
} pending;

static void emit(int64_t ret) {
  char line[8192];
  int n = strace_format(pending.c, line, sizeof line - 1, pending.nr, pending.sig, pending.args, ret);
  line[n++] = '\n';
  /* One write per line, so that lines of several processes do not mix. */
  (void)!write(2, line, (size_t)n);
}

void strace_begin(Cpu *c, uint64_t nr, const StraceSig *sig, const uint64_t *args) {
  pending.c = c;
  pending.nr = nr;
  pending.sig = sig;
  memcpy(pending.args, args, sizeof pending.args);
  pending.active = true;
  pending.printed = false;
}

void strace_end(int64_t ret) {
  emit(ret);
  pending.active = false;
}

void strace_exec_now(void) {
  if (!pending.active || pending.printed) return;
  pending.printed = true;
  emit(0);
}
