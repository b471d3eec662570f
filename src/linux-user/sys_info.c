/* sys_info.c: what the guest learns about the machine (uname says x86_64) and its limits. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "determinism.h"
#include "sys_common.h"

/* The host's names, but the machine the guest runs on is an x86-64 one. */
int64_t sys_uname(Cpu *c, const uint64_t *a) {
  struct utsname u; /* six fields of 65 bytes, as the kernel's new_utsname */
  if (uname(&u) < 0) return -errno;
  memset(u.machine, 0, sizeof u.machine);
  strcpy(u.machine, "x86_64");
  return guest_copy_out(c, a[0], &u, sizeof u);
}

/* struct sysinfo has one layout on 64-bit hosts. */
int64_t sys_sysinfo(Cpu *c, const uint64_t *a) {
  struct sysinfo si;
  if (sysinfo(&si) < 0) return -errno;
  return guest_copy_out(c, a[0], &si, sizeof si);
}

int64_t sys_getrandom(Cpu *c, const uint64_t *a) {
  if (det_on(c)) return det_read(c, a[0], a[1]);
  size_t room;
  void *buf = guest_transfer(c, a[0], a[1], GUEST_PROT_WRITE, &room);
  return host_result(syscall(SYS_getrandom, buf, room, (unsigned)a[2]));
}

/* Resource numbers are asm-generic's on x86-64 and on the other 64-bit hosts, and
 * struct rlimit is two 64-bit words everywhere. */
int64_t sys_getrlimit(Cpu *c, const uint64_t *a) {
  struct rlimit rl;
  if (getrlimit((int)a[0], &rl) < 0) return -errno;
  return guest_copy_out(c, a[1], &rl, sizeof rl);
}

int64_t sys_setrlimit(Cpu *c, const uint64_t *a) {
  struct rlimit rl;
  int r = guest_copy_in(c, &rl, a[1], sizeof rl);
  if (r < 0) return r;
  return host_result(setrlimit((int)a[0], &rl));
}

int64_t sys_prlimit64(Cpu *c, const uint64_t *a) {
  struct rlimit new_rl, old_rl;
  if (a[2]) {
    int r = guest_copy_in(c, &new_rl, a[2], sizeof new_rl);
    if (r < 0) return r;
  }
  if (prlimit((pid_t)det_pid_in(c, (pid_t)a[0]), (int)a[1], a[2] ? &new_rl : NULL, a[3] ? &old_rl : NULL) < 0)
    return -errno;
  return a[3] ? guest_copy_out(c, a[3], &old_rl, sizeof old_rl) : 0;
}

/* The raw call returns the size of the kernel's mask, as the guest expects. */
int64_t sys_sched_getaffinity(Cpu *c, const uint64_t *a) {
  void *mask;
  guest_area(c, a[2], a[1], GUEST_PROT_WRITE, &mask); /* refused: EINVAL for the size first */
  return host_result(syscall(SYS_sched_getaffinity, (pid_t)det_pid_in(c, (pid_t)a[0]), (size_t)a[1], mask));
}

int64_t sys_sched_setaffinity(Cpu *c, const uint64_t *a) {
  void *mask;
  guest_area(c, a[2], a[1], GUEST_PROT_READ, &mask);
  return host_result(syscall(SYS_sched_setaffinity, (pid_t)det_pid_in(c, (pid_t)a[0]), (size_t)a[1], mask));
}

int64_t sys_sched_yield(Cpu *c, const uint64_t *a) { return host_result(sched_yield()); }

/* The scheduling policies: their numbers, and struct sched_param (one int), are the same
 * on every host (a null parameter is the kernel's EINVAL). */
int64_t sys_sched_getscheduler(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_sched_getscheduler, (pid_t)det_pid_in(c, (pid_t)a[0])));
}

int64_t sys_sched_setscheduler(Cpu *c, const uint64_t *a) {
  void *param;
  guest_area(c, a[2], sizeof(struct sched_param), GUEST_PROT_READ, &param);
  pid_t pid = (pid_t)det_pid_in(c, (pid_t)a[0]);
  return host_result(syscall(SYS_sched_setscheduler, pid, (int)a[1], param));
}

int64_t sys_sched_getparam(Cpu *c, const uint64_t *a) {
  void *param;
  guest_area(c, a[1], sizeof(struct sched_param), GUEST_PROT_WRITE, &param);
  return host_result(syscall(SYS_sched_getparam, (pid_t)det_pid_in(c, (pid_t)a[0]), param));
}

int64_t sys_sched_setparam(Cpu *c, const uint64_t *a) {
  void *param;
  guest_area(c, a[1], sizeof(struct sched_param), GUEST_PROT_READ, &param);
  return host_result(syscall(SYS_sched_setparam, (pid_t)det_pid_in(c, (pid_t)a[0]), param));
}

int64_t sys_sched_get_priority_max(Cpu *c, const uint64_t *a) {
  return host_result(sched_get_priority_max((int)a[0]));
}

int64_t sys_sched_get_priority_min(Cpu *c, const uint64_t *a) {
  return host_result(sched_get_priority_min((int)a[0]));
}

int64_t sys_sched_rr_get_interval(Cpu *c, const uint64_t *a) {
  struct timespec ts;
  if (sched_rr_get_interval((pid_t)det_pid_in(c, (pid_t)a[0]), &ts) < 0) return -errno;
  return guest_copy_out(c, a[1], &ts, sizeof ts);
}

/* sched_setattr(pid, attr, flags): struct sched_attr says its own size in its first word
 * (0 for the first version's 48 bytes); the kernel reads that much, up to a page, and on
 * E2BIG writes its own size back there, so the whole of it must be the guest's. */
enum { SCHED_ATTR_SIZE_VER0 = 48, SCHED_ATTR_MAX = 4096 };

int64_t sys_sched_setattr(Cpu *c, const uint64_t *a) {
  uint32_t size;
  if (guest_copy_in(c, &size, a[1], sizeof size) < 0) return -EFAULT;
  if (size == 0) size = SCHED_ATTR_SIZE_VER0;
  void *attr;
  /* a size out of range: E2BIG, with only the size word written */
  uint32_t reach = size < SCHED_ATTR_SIZE_VER0 || size > SCHED_ATTR_MAX ? sizeof size : size;
  if (!guest_area(c, a[1], reach, GUEST_PROT_READ | GUEST_PROT_WRITE, &attr)) return -EFAULT;
  return host_result(syscall(SYS_sched_setattr, (pid_t)det_pid_in(c, (pid_t)a[0]), attr, (unsigned)a[2]));
}

/* sched_getattr(pid, attr, size, flags): a size out of range is the host's EINVAL. */
int64_t sys_sched_getattr(Cpu *c, const uint64_t *a) {
  unsigned size = (unsigned)a[2];
  void *attr = NULL;
  if (size >= SCHED_ATTR_SIZE_VER0 && size <= SCHED_ATTR_MAX &&
      !guest_area(c, a[1], size, GUEST_PROT_WRITE, &attr))
    return -EFAULT;
  return host_result(syscall(SYS_sched_getattr, (pid_t)det_pid_in(c, (pid_t)a[0]),
                             attr ? attr : GUEST_PTR(a[1]), size, (unsigned)a[3]));
}

/* sethostname/setdomainname(name, len): the length is checked first, as the kernel does,
 * then the host checks the privilege before it reads; a name that is not the guest's
 * reaches it as a null pointer. */
enum { UTS_NAME_MAX = 64 };

static int64_t set_uts_name(Cpu *c, const uint64_t *a, long nr) {
  int len = (int)a[1];
  if (len < 0 || len > UTS_NAME_MAX) return -EINVAL;
  void *name;
  if (!guest_area(c, a[0], (unsigned)len, GUEST_PROT_READ, &name)) name = NULL;
  return host_result(syscall(nr, name, (size_t)len));
}

int64_t sys_sethostname(Cpu *c, const uint64_t *a) { return set_uts_name(c, a, SYS_sethostname); }
int64_t sys_setdomainname(Cpu *c, const uint64_t *a) { return set_uts_name(c, a, SYS_setdomainname); }

/* syslog(type, buf, len), the kernel's log: the reading types (2, 3 and 4) read into a
 * buffer of the emulator's, no larger than the log, then copied out; EFAULT there
 * loses what was read, as the kernel's copy does. */
enum { SYSLOG_READ = 2, SYSLOG_READ_ALL = 3, SYSLOG_READ_CLEAR = 4, SYSLOG_SIZE_BUFFER = 10 };

int64_t sys_syslog(Cpu *c, const uint64_t *a) {
  int type = (int)a[0], len = (int)a[2];
  if (type != SYSLOG_READ && type != SYSLOG_READ_ALL && type != SYSLOG_READ_CLEAR)
    return host_result(syscall(SYS_syslog, type, NULL, len)); /* no buffer */
  /* No buffer, or an empty one: the host's EPERM (asked with an empty one) comes first. */
  char none;
  if (!a[1] || len <= 0) {
    int64_t allowed = host_result(syscall(SYS_syslog, type, &none, 0));
    return allowed < 0 || (a[1] && len == 0) ? allowed : -EINVAL;
  }
  long log_size = syscall(SYS_syslog, SYSLOG_SIZE_BUFFER, NULL, 0);
  int room = log_size > 0 && log_size < len ? (int)log_size : len;
  char *bounce = malloc((size_t)room);
  if (!bounce) return -ENOMEM;
  int64_t n = host_result(syscall(SYS_syslog, type, bounce, room));
  if (n > 0 && guest_copy_out(c, a[1], bounce, (size_t)n) < 0) n = -EFAULT;
  free(bounce);
  return n;
}

int64_t sys_getcpu(Cpu *c, const uint64_t *a) {
  void *cpu, *node;
  if (!guest_area(c, a[0], 4, GUEST_PROT_WRITE, &cpu) || !guest_area(c, a[1], 4, GUEST_PROT_WRITE, &node))
    return -EFAULT;
  return host_result(syscall(SYS_getcpu, cpu, node, NULL));
}
