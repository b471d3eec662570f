/* seccomp.c: the guest's seccomp (seccomp.h): classic BPF programs checked as the kernel
 * checks them at attach time (kernel/seccomp.c, net/core/filter.c) and run by an
 * interpreter of their own on each guest system call. */
#define _GNU_SOURCE
#include "seccomp.h"

#include <errno.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "determinism.h"
#include "process.h"
#include "signals.h"
#include "sys_common.h"
#include "threads.h"

enum { MODE_STRICT = 1, MODE_FILTER = 2 };
enum { SET_MODE_STRICT = 0, SET_MODE_FILTER = 1, GET_ACTION_AVAIL = 2, GET_NOTIF_SIZES = 3 };
enum { FLAG_TSYNC = 1, FLAG_LOG = 2, FLAG_SPEC_ALLOW = 4, FLAG_TSYNC_ESRCH = 16 };
#define RET_KILL_PROCESS 0x80000000u
#define RET_KILL_THREAD 0x00000000u
#define RET_TRAP 0x00030000u
#define RET_ERRNO 0x00050000u
#define RET_USER_NOTIF 0x7fc00000u
#define RET_TRACE 0x7ff00000u
#define RET_LOG 0x7ffc0000u
#define RET_ALLOW 0x7fff0000u
#define RET_ACTION_FULL 0xffff0000u
#define RET_DATA 0x0000ffffu
#define AUDIT_ARCH_X86_64 0xc000003eu
enum { SYS_SECCOMP = 1, MAX_ERRNO = 4095 };

/* Classic BPF (linux/filter.h, linux/bpf_common.h). */
typedef struct BpfInsn {
  uint16_t code;
  uint8_t jt, jf;
  uint32_t k;
} BpfInsn;
enum { BPF_MAXINSNS = 4096, MAX_INSNS_PER_PATH = 32768, MEMWORDS = 16 };
enum { LD = 0x00, LDX = 0x01, ST = 0x02, STX = 0x03, ALU = 0x04, JMP = 0x05, RET = 0x06,
       MISC = 0x07 };
enum { W = 0x00, IMM = 0x00, ABS = 0x20, MEM = 0x60, LEN = 0x80 };
enum { ADD = 0x00, SUB = 0x10, MUL = 0x20, DIV = 0x30, OR = 0x40, AND = 0x50, LSH = 0x60,
       RSH = 0x70, NEG = 0x80, MOD = 0x90, XOR = 0xa0 };
enum { JA = 0x00, JEQ = 0x10, JGT = 0x20, JGE = 0x30, JSET = 0x40 };
enum { K = 0x00, X = 0x08, RET_A = 0x10, TAX = 0x00, TXA = 0x80 };
#define CLASS(c) ((c) & 0x07)
#define OP(c) ((c) & 0xf0)
#define SRC(c) ((c) & 0x08)

/* struct seccomp_data: nr, arch, instruction_pointer, args[6]. */
enum { DATA_SIZE = 64 };

struct SeccompFilter {
  SeccompFilter *prev;
  SeccompFilter *kept; /* the process's filter attached before it */
  uint32_t len, path_len; /* its instructions; with those before it, as the kernel counts */
  BpfInsn insns[];
};

/* ---- checking a program, as the kernel does before it attaches one ---- */

/* Whether code is an instruction seccomp takes (seccomp_check_filter's list): the loads
 * of struct seccomp_data's aligned words, every ALU operation (NEG without a source), the
 * jumps, the returns, the scratch memory and the moves between A and X. */
static bool allowed_code(uint16_t code, uint32_t k) {
  switch (code) {
  case LD | W | ABS: return k < DATA_SIZE && (k & 3) == 0;
  case LD | W | LEN: case LDX | W | LEN: case RET | K: case RET | RET_A:
  case LD | IMM: case LDX | IMM: case MISC | TAX: case MISC | TXA:
  case LD | MEM: case LDX | MEM: case ST: case STX: case JMP | JA:
    return true;
  default:
    break;
  }
  if (code > 0xff) return false;
  if (CLASS(code) == ALU) return code == (ALU | NEG) || (OP(code) <= XOR && OP(code) != NEG);
  if (CLASS(code) == JMP) return OP(code) >= JEQ && OP(code) <= JSET;
  return false;
}

/* bpf_check_classic and check_load_and_stores: jumps that stay inside the program, no
 * division or shift by a constant out of range, scratch memory stored before it is
 * loaded on every path, and a RET last. */
static bool program_valid(const BpfInsn *p, uint32_t n) {
  uint16_t *masks = malloc(n * sizeof *masks);
  if (!masks) return false;
  memset(masks, 0xff, n * sizeof *masks);
  uint16_t memvalid = 0;
  bool ok = CLASS(p[n - 1].code) == RET;
  for (uint32_t i = 0; ok && i < n; i++) {
    const BpfInsn *in = &p[i];
    memvalid &= masks[i];
    ok = allowed_code(in->code, in->k);
    if (!ok) break;
    switch (CLASS(in->code)) {
    case ALU:
      if (SRC(in->code) == K && (OP(in->code) == DIV || OP(in->code) == MOD) && in->k == 0)
        ok = false;
      if (SRC(in->code) == K && (OP(in->code) == LSH || OP(in->code) == RSH) && in->k >= 32)
        ok = false;
      break;
    case LD: case LDX:
      if ((in->code & 0xe0) == MEM) ok = in->k < MEMWORDS && (memvalid >> in->k & 1);
      break;
    case ST: case STX:
      ok = in->k < MEMWORDS;
      if (ok) memvalid |= (uint16_t)(1u << in->k);
      break;
    case JMP:
      if (OP(in->code) == JA) {
        ok = in->k < n - i - 1;
        if (ok) masks[i + 1 + in->k] &= memvalid;
      } else {
        ok = i + 1 + in->jt < n && i + 1 + in->jf < n;
        if (ok) masks[i + 1 + in->jt] &= memvalid, masks[i + 1 + in->jf] &= memvalid;
      }
      memvalid = 0xffff;
      break;
    default:
      break;
    }
  }
  free(masks);
  return ok;
}

/* ---- running one ---- */

static uint32_t run_program(const SeccompFilter *f, const uint8_t data[DATA_SIZE]) {
  uint32_t a = 0, x = 0, mem[MEMWORDS] = {0};
  for (uint32_t pc = 0; pc < f->len; pc++) {
    const BpfInsn *in = &f->insns[pc];
    uint32_t src = SRC(in->code) == X ? x : in->k;
    switch (in->code) {
    case LD | W | ABS: memcpy(&a, data + in->k, 4); continue;
    case LD | W | LEN: a = DATA_SIZE; continue;
    case LDX | W | LEN: x = DATA_SIZE; continue;
    case LD | IMM: a = in->k; continue;
    case LDX | IMM: x = in->k; continue;
    case LD | MEM: a = mem[in->k]; continue;
    case LDX | MEM: x = mem[in->k]; continue;
    case ST: mem[in->k] = a; continue;
    case STX: mem[in->k] = x; continue;
    case MISC | TAX: x = a; continue;
    case MISC | TXA: a = x; continue;
    case RET | K: return in->k;
    case RET | RET_A: return a;
    case JMP | JA: pc += in->k; continue;
    default: break;
    }
    if (CLASS(in->code) == JMP) {
      bool taken = OP(in->code) == JEQ ? a == src : OP(in->code) == JGT ? a > src
                 : OP(in->code) == JGE ? a >= src : (a & src) != 0;
      pc += taken ? in->jt : in->jf;
      continue;
    }
    switch (OP(in->code)) { /* ALU */
    case ADD: a += src; break;
    case SUB: a -= src; break;
    case MUL: a *= src; break;
    case DIV: if (!src) return 0; a /= src; break; /* a zero divisor ends the program: 0 */
    case MOD: if (!src) return 0; a %= src; break;
    case OR: a |= src; break;
    case AND: a &= src; break;
    case XOR: a ^= src; break;
    case LSH: a <<= src & 31; break; /* a shift count in X is taken mod 32, as the kernel's */
    case RSH: a >>= src & 31; break;
    case NEG: a = -a; break;
    }
  }
  return 0; /* not reached: the program ends with a RET */
}

/* The action of the filters: the one of highest precedence (the lowest as a signed
 * number) that any of them returns. */
static uint32_t run_filters(const SeccompFilter *f, const uint8_t *data) {
  uint32_t ret = RET_ALLOW;
  for (; f; f = f->prev) {
    uint32_t cur = run_program(f, data);
    if ((int32_t)(cur & RET_ACTION_FULL) < (int32_t)(ret & RET_ACTION_FULL)) ret = cur;
  }
  return ret;
}

/* The thread ends as the kernel's do_exit(sig) ends it, or, when it is the last one, the
 * process dies of sig. */
static void end_thread(Cpu *c, int sig) {
  threads_exit(c); /* returns only for the last */
  c->term_signal = sig;
  cpu_raise_events(c, EV_EXIT);
}

/* SECCOMP_RET_KILL_PROCESS: force_sig_seccomp's SIGSYS, which no handler catches. */
static void kill_process(Cpu *c) {
  c->term_signal = SIGSYS;
  cpu_raise_events(c, EV_EXIT);
}

enum SeccompVerdict seccomp_check(Cpu *c, uint64_t nr, const uint64_t args[6], int64_t *ret) {
  const Seccomp *s = &thread_of(c)->seccomp;
  if (s->mode == 0) return SECCOMP_CALL;
  if (s->mode == MODE_STRICT) {
    if (nr == X64_NR_read || nr == X64_NR_write || nr == X64_NR_exit || nr == X64_NR_rt_sigreturn)
      return SECCOMP_CALL;
    end_thread(c, SIGKILL);
    return SECCOMP_STOPPED;
  }
  uint8_t data[DATA_SIZE];
  int32_t nr32 = (int32_t)nr;
  uint32_t arch = AUDIT_ARCH_X86_64;
  memcpy(data, &nr32, 4);
  memcpy(data + 4, &arch, 4);
  memcpy(data + 8, &c->rip, 8);
  memcpy(data + 16, args, 48);
  uint32_t action = run_filters(s->filters, data);
  uint32_t value = action & RET_DATA;
  switch (action & RET_ACTION_FULL) {
  case RET_ALLOW: case RET_LOG: return SECCOMP_CALL;
  case RET_ERRNO: *ret = -(int64_t)(value > MAX_ERRNO ? MAX_ERRNO : value); return SECCOMP_RETURN;
  case RET_TRACE: case RET_USER_NOTIF: /* no tracer, no listener */
    *ret = -ENOSYS;
    return SECCOMP_RETURN;
  case RET_TRAP: {
    X64Siginfo info = {.si_signo = SIGSYS, .si_errno = (int32_t)value, .si_code = SYS_SECCOMP};
    memcpy(info.u.bytes, &c->rip, 8);    /* si_call_addr */
    memcpy(info.u.bytes + 8, &nr32, 4);  /* si_syscall */
    memcpy(info.u.bytes + 12, &arch, 4); /* si_arch */
    c->r[RAX] = nr; /* the handler sees the registers of the call (syscall_rollback) */
    signals_deliver_forced(c, &info);
    return SECCOMP_STOPPED;
  }
  case RET_KILL_THREAD:
    if (threads_count(c) > 1) end_thread(c, SIGSYS);
    else kill_process(c);
    return SECCOMP_STOPPED;
  default: /* RET_KILL_PROCESS, and what no kernel defines */
    kill_process(c);
    return SECCOMP_STOPPED;
  }
}

/* ---- attaching ---- */

/* Whether the thread's chain of filters is `chain` or one it grew from. */
static bool ancestor(const SeccompFilter *of, const SeccompFilter *chain) {
  for (; chain; chain = chain->prev)
    if (chain == of) return true;
  return of == NULL;
}

/* SECCOMP_FILTER_FLAG_TSYNC: every thread takes c's filters, if each one's are c's or
 * ones they grew from; else the id of one that differs (ESRCH with TSYNC_ESRCH). */
static int64_t sync_threads(Cpu *c, const Seccomp *next, unsigned flags) {
  Threads *ts = &proc_of(c)->threads;
  for (unsigned i = 0; i < ts->n; i++) {
    const Seccomp *other = &ts->all[i]->seccomp;
    if (ts->all[i] == thread_of(c)) continue;
    if (other->mode == MODE_STRICT || !ancestor(other->filters, next->filters))
      return flags & FLAG_TSYNC_ESRCH ? -ESRCH : det_pid_out(c, ts->all[i]->host_tid);
  }
  return 0;
}

/* Whether the calling thread has CAP_SYS_ADMIN in its effective set, which lets a filter
 * be attached without no_new_privs. */
static bool may_admin(void) {
  struct __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
  if (syscall(SYS_capget, &head, data) != 0) return false;
  return data[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective & CAP_TO_MASK(CAP_SYS_ADMIN);
}

static int64_t attach_filter(Cpu *c, unsigned flags, uint64_t prog_at) {
  if (flags & ~(unsigned)(FLAG_TSYNC | FLAG_LOG | FLAG_SPEC_ALLOW | FLAG_TSYNC_ESRCH))
    return -EINVAL;
  struct {
    uint16_t len;
    uint16_t pad[3];
    uint64_t filter;
  } fprog;
  if (guest_copy_in(c, &fprog, prog_at, sizeof fprog) < 0) return -EFAULT;
  if (fprog.len == 0 || fprog.len > BPF_MAXINSNS) return -EINVAL;
  if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1 && !may_admin()) return -EACCES;
  SeccompFilter *f = malloc(sizeof *f + fprog.len * sizeof(BpfInsn));
  if (!f) return -ENOMEM;
  if (guest_copy_in(c, f->insns, fprog.filter, fprog.len * sizeof(BpfInsn)) < 0) {
    free(f);
    return -EFAULT;
  }
  if (!program_valid(f->insns, fprog.len)) {
    free(f);
    return -EINVAL;
  }
  Seccomp *s = &thread_of(c)->seccomp;
  if (s->mode == MODE_STRICT) {
    free(f);
    return -EINVAL;
  }
  f->prev = s->filters;
  f->len = fprog.len;
  f->path_len = fprog.len + (f->prev ? f->prev->path_len + 4 : 0);
  if (f->path_len > MAX_INSNS_PER_PATH) {
    free(f);
    return -ENOMEM;
  }
  Seccomp next = {MODE_FILTER, f};
  Process *p = proc_of(c);
  if (flags & FLAG_TSYNC) {
    int64_t other = sync_threads(c, &next, flags);
    if (other) {
      free(f);
      return other;
    }
    Threads *ts = &p->threads;
    for (unsigned i = 0; i < ts->n; i++) ts->all[i]->seccomp = next;
  }
  *s = next;
  f->kept = p->seccomp_kept;
  p->seccomp_kept = f;
  return 0;
}

static int64_t set_strict(Cpu *c) {
  Seccomp *s = &thread_of(c)->seccomp;
  if (s->mode == MODE_FILTER) return -EINVAL;
  s->mode = MODE_STRICT;
  return 0;
}

int64_t sys_seccomp(Cpu *c, const uint64_t *a) {
  unsigned op = (unsigned)a[0], flags = (unsigned)a[1];
  switch (op) {
  case SET_MODE_STRICT: return flags || a[2] ? -EINVAL : set_strict(c);
  case SET_MODE_FILTER: return attach_filter(c, flags, a[2]);
  case GET_ACTION_AVAIL: {
    uint32_t action;
    if (flags) return -EINVAL;
    if (guest_copy_in(c, &action, a[2], sizeof action) < 0) return -EFAULT;
    switch (action) {
    case RET_KILL_PROCESS: case RET_KILL_THREAD: case RET_TRAP: case RET_ERRNO:
    case RET_USER_NOTIF: case RET_TRACE: case RET_LOG: case RET_ALLOW:
      return 0;
    default:
      return -EOPNOTSUPP;
    }
  }
  case GET_NOTIF_SIZES: {
    uint16_t sizes[3] = {80, 24, DATA_SIZE}; /* seccomp_notif, _resp, seccomp_data */
    if (flags) return -EINVAL;
    return guest_copy_out(c, a[2], sizes, sizeof sizes);
  }
  default:
    return -EINVAL;
  }
}

int64_t seccomp_prctl_set(Cpu *c, uint64_t mode, uint64_t prog) {
  if (mode == MODE_STRICT) return set_strict(c);
  if (mode == MODE_FILTER) return attach_filter(c, 0, prog);
  return -EINVAL;
}

int64_t seccomp_prctl_get(Cpu *c) { return thread_of(c)->seccomp.mode; }

/* ---- across execve ---- */

/* The descriptor holds the mode, then the filters oldest first, each as its length, a
 * word kept 0, and its instructions. */
int seccomp_pass(const Cpu *c) {
  const Seccomp *s = &thread_of((Cpu *)c)->seccomp;
  if (s->mode == 0) return -1;
  int fd = memfd_create("x64emu-seccomp", 0);
  if (fd < 0) return -1;
  const SeccompFilter *chain[MAX_INSNS_PER_PATH / 5 + 1];
  unsigned n = 0;
  for (const SeccompFilter *f = s->filters; f; f = f->prev) chain[n++] = f;
  bool ok = write(fd, &s->mode, sizeof s->mode) == sizeof s->mode;
  while (ok && n--) {
    const SeccompFilter *f = chain[n];
    uint32_t head[2] = {f->len, 0};
    size_t body = f->len * sizeof(BpfInsn);
    ok = write(fd, head, sizeof head) == sizeof head && write(fd, f->insns, body) == (ssize_t)body;
  }
  if (!ok || lseek(fd, 0, SEEK_SET) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

bool seccomp_restore(Cpu *c, int fd) {
  Seccomp s = {0, NULL};
  bool ok = read(fd, &s.mode, sizeof s.mode) == sizeof s.mode;
  uint32_t head[2];
  while (ok && read(fd, head, sizeof head) == sizeof head) {
    bool fits = head[0] && head[0] <= BPF_MAXINSNS;
    SeccompFilter *f = fits ? malloc(sizeof *f + head[0] * sizeof(BpfInsn)) : NULL;
    size_t body = head[0] * sizeof(BpfInsn);
    ok = f && read(fd, f->insns, body) == (ssize_t)body;
    if (!ok) {
      free(f);
      break;
    }
    f->prev = s.filters, f->len = head[0];
    f->kept = proc_of(c)->seccomp_kept;
    proc_of(c)->seccomp_kept = f;
    f->path_len = f->len + (f->prev ? f->prev->path_len + 4 : 0);
    s.filters = f;
  }
  close(fd);
  if (ok) thread_of(c)->seccomp = s;
  return ok;
}

void seccomp_free_all(SeccompFilter *kept) {
  while (kept) {
    SeccompFilter *before = kept->kept;
    free(kept);
    kept = before;
  }
}
