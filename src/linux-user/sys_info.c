/* sys_info.c: what the guest learns about the machine (uname says x86_64) and its limits. */
#define _GNU_SOURCE
#include <sched.h>
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
  int64_t room = guest_transfer(c, a[0], a[1], GUEST_PROT_WRITE);
  if (room < 0) return room;
  return host_result(getrandom(GUEST_PTR(a[0]), (size_t)room, (unsigned)a[2]));
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
  if (!a[2] || !guest_area(c, a[2], a[1], GUEST_PROT_WRITE, &mask)) return -EFAULT;
  return host_result(syscall(SYS_sched_getaffinity, (pid_t)det_pid_in(c, (pid_t)a[0]), (size_t)a[1], mask));
}

int64_t sys_sched_setaffinity(Cpu *c, const uint64_t *a) {
  void *mask;
  if (!a[2] || !guest_area(c, a[2], a[1], GUEST_PROT_READ, &mask)) return -EFAULT;
  return host_result(syscall(SYS_sched_setaffinity, (pid_t)det_pid_in(c, (pid_t)a[0]), (size_t)a[1], mask));
}

int64_t sys_sched_yield(Cpu *c, const uint64_t *a) { return host_result(sched_yield()); }

/* The scheduling policies: their numbers, and struct sched_param (one int), are the same
 * on every host; a null parameter is EINVAL, as the kernel has it. */
int64_t sys_sched_getscheduler(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_sched_getscheduler, (pid_t)det_pid_in(c, (pid_t)a[0])));
}

int64_t sys_sched_setscheduler(Cpu *c, const uint64_t *a) {
  void *param;
  if (!a[2]) return -EINVAL;
  if (!guest_area(c, a[2], sizeof(struct sched_param), GUEST_PROT_READ, &param)) return -EFAULT;
  pid_t pid = (pid_t)det_pid_in(c, (pid_t)a[0]);
  return host_result(syscall(SYS_sched_setscheduler, pid, (int)a[1], param));
}

int64_t sys_sched_getparam(Cpu *c, const uint64_t *a) {
  void *param;
  if (!a[1]) return -EINVAL;
  if (!guest_area(c, a[1], sizeof(struct sched_param), GUEST_PROT_WRITE, &param)) return -EFAULT;
  return host_result(syscall(SYS_sched_getparam, (pid_t)det_pid_in(c, (pid_t)a[0]), param));
}

int64_t sys_sched_setparam(Cpu *c, const uint64_t *a) {
  void *param;
  if (!a[1]) return -EINVAL;
  if (!guest_area(c, a[1], sizeof(struct sched_param), GUEST_PROT_READ, &param)) return -EFAULT;
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

int64_t sys_getcpu(Cpu *c, const uint64_t *a) {
  void *cpu, *node;
  if (!guest_area(c, a[0], 4, GUEST_PROT_WRITE, &cpu) || !guest_area(c, a[1], 4, GUEST_PROT_WRITE, &node))
    return -EFAULT;
  return host_result(syscall(SYS_getcpu, cpu, node, NULL));
}
