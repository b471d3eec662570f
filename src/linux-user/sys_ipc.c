/* sys_ipc.c: System V IPC: message queues, semaphore sets and the control of shared
 * memory segments, all the host's own objects (shmat and shmdt, which map memory, are in
 * sys_mem.c). The commands' structures are the asm-generic ones on x86-64 and on the
 * other 64-bit hosts, except struct semid64_ds, whose times x86-64 keeps with a padding
 * word after each. The kernel ignores IPC_64 in a command on every 64-bit host, so the
 * guest's command goes to the host as it is. The process ids in a status read as the
 * guest's (--deterministic); the objects' ids are the host's, as other processes' are. */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "determinism.h"
#include "sys_common.h"
#include "virtual_time.h"

enum { IPC_64_FLAG = 0x100 };
/* The commands (linux/ipc.h, linux/sem.h, linux/msg.h, linux/shm.h), the same on every
 * Linux architecture. */
enum { RMID = 0, SET = 1, STAT = 2, INFO = 3 };
enum { SHM_LOCK_ = 11, SHM_UNLOCK_ = 12, SHM_STAT_ = 13, SHM_INFO_ = 14, SHM_STAT_ANY_ = 15 };
enum { MSG_STAT_ = 11, MSG_INFO_ = 12, MSG_STAT_ANY_ = 13 };
enum {
  GETPID_ = 11, GETVAL_ = 12, GETALL_ = 13, GETNCNT_ = 14, GETZCNT_ = 15, SETVAL_ = 16,
  SETALL_ = 17, SEM_STAT_ = 18, SEM_INFO_ = 19, SEM_STAT_ANY_ = 20,
};

/* The sizes of what the commands read or write: struct ipc64_perm is 48 bytes, then
 * shmid64_ds, msqid64_ds, semid64_ds (x86-64's), shminfo64, shm_info, msginfo, seminfo. */
enum {
  SHMID_DS_SIZE = 112, MSQID_DS_SIZE = 120, X64_SEMID_DS_SIZE = 104,
  SHMINFO_SIZE = 72, SHM_INFO_SIZE = 48, MSGINFO_SIZE = 32, SEMINFO_SIZE = 40,
};

/* A host buffer for any of them, aligned for the kernel's longs. */
typedef union IpcBuf {
  uint64_t words[16];
  uint8_t bytes[128];
} IpcBuf;

/* The two process ids in a queue's or a segment's status (the last sender and receiver;
 * the creator and the last to attach), as the guest sees them (--deterministic's). */
enum { MSQID_DS_PIDS = 96, SHMID_DS_PIDS = 80 };

static void pids_out(Cpu *c, IpcBuf *buf, size_t at) {
  for (int i = 0; i < 2; i++) {
    int32_t pid;
    memcpy(&pid, buf->bytes + at + 4 * i, sizeof pid);
    pid = (int32_t)det_pid_out(c, pid);
    memcpy(buf->bytes + at + 4 * i, &pid, sizeof pid);
  }
}

/* A command that reads a structure from the guest (IPC_SET) copies it in first, and one
 * that writes one copies it out after the host's call succeeded, as the kernel does; pids
 * is where a status's process ids are, or 0. */
static int64_t ctl_through(Cpu *c, long nr, int id, int cmd, uint64_t at, size_t in, size_t out,
                           size_t pids) {
  IpcBuf buf = {{0}};
  if (in && guest_copy_in(c, &buf, at, in) < 0) return -EFAULT;
  int64_t r = host_result(syscall(nr, id, cmd, &buf));
  if (r >= 0 && pids) pids_out(c, &buf, pids);
  if (r >= 0 && out && guest_copy_out(c, at, &buf, out) < 0) return -EFAULT;
  return r;
}

/* ---- message queues ---- */

int64_t sys_msgget(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_msgget, (key_t)a[0], (int)a[1]));
}

/* The largest message the host takes (msgmax), or 0. */
static size_t msg_max(void) {
  IpcBuf info; /* struct msginfo: msgpool, msgmap, msgmax... ints */
  int max;
  if (syscall(SYS_msgctl, 0, INFO, &info) < 0) return 0;
  memcpy(&max, info.bytes + 2 * sizeof(int), sizeof max);
  return max < 0 ? 0 : (size_t)max;
}

/* A message is a long (its type) and msgsz bytes, read in place when they are all the
 * guest's. Otherwise the kernel's order of checks is kept: the type's word (EFAULT), the
 * size, the queue's id and the type (EINVAL), then the text (EFAULT). */
int64_t sys_msgsnd(Cpu *c, const uint64_t *a) {
  int id = (int)a[0];
  size_t size = (size_t)a[2];
  void *msg;
  if (size <= SIZE_MAX - 8 && guest_area(c, a[1], size + 8, GUEST_PROT_READ, &msg) && msg)
    return host_result(syscall(SYS_msgsnd, id, msg, size, (int)a[3]));
  int64_t type;
  if (guest_copy_in(c, &type, a[1], sizeof type) < 0) return -EFAULT;
  if (size > msg_max() || (int64_t)size < 0 || id < 0 || type < 1) return -EINVAL;
  return -EFAULT;
}

/* The message is received into the guest's buffer (its type and msgsz bytes) or bounced
 * (recv_buf_open); a negative msgsz is the kernel's first check. */
int64_t sys_msgrcv(Cpu *c, const uint64_t *a) {
  int id = (int)a[0];
  size_t size = (size_t)a[2];
  if (id < 0 || (int64_t)size < 0) return -EINVAL;
  size_t len = size + 8;
  RecvBuf b;
  void *buf = recv_buf_open(c, &b, a[1], &len, 8 + msg_max());
  if (!buf) return -ENOMEM;
  int64_t n = host_result(syscall(SYS_msgrcv, id, buf, len - 8, (long)a[3], (int)a[4]));
  int64_t done = recv_buf_done(c, &b, n < 0 ? n : n + 8);
  return done < 0 ? done : n;
}

int64_t sys_msgctl(Cpu *c, const uint64_t *a) {
  int cmd = (int)a[1];
  switch (cmd & ~IPC_64_FLAG) {
  case SET: return ctl_through(c, SYS_msgctl, (int)a[0], cmd, a[2], MSQID_DS_SIZE, 0, 0);
  case STAT: case MSG_STAT_: case MSG_STAT_ANY_:
    return ctl_through(c, SYS_msgctl, (int)a[0], cmd, a[2], 0, MSQID_DS_SIZE, MSQID_DS_PIDS);
  case INFO: case MSG_INFO_:
    return ctl_through(c, SYS_msgctl, (int)a[0], cmd, a[2], 0, MSGINFO_SIZE, 0);
  default: return host_result(syscall(SYS_msgctl, (int)a[0], cmd, NULL));
  }
}

/* ---- semaphore sets ---- */

int64_t sys_semget(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_semget, (key_t)a[0], (int)a[1], (int)a[2]));
}

enum { SEMBUF_SIZE = 6 }; /* struct sembuf: num, op, flags, each a short */

typedef struct SemCall {
  int id;
  void *ops;
  size_t n;
  struct timespec *timeout;
} SemCall;

static int64_t sem_look(void *arg) {
  const SemCall *s = arg;
  return host_result(syscall(SYS_semtimedop, s->id, s->ops, s->n, s->timeout));
}

/* The operations are read in place (a null pointer, the host's EFAULT, where they are not
 * the guest's); the timeout is read first, as the kernel does. Under --deterministic a
 * valid timeout passes on the virtual clock (vt_timed_call; the host's checks come first
 * with a zero one, EAGAIN where it would wait); an invalid one goes to the host, whose
 * EINVAL comes after its other checks. */
int64_t sys_semtimedop(Cpu *c, const uint64_t *a) {
  struct timespec timeout;
  if (a[3] && guest_copy_in(c, &timeout, a[3], sizeof timeout) < 0) return -EFAULT;
  void *ops;
  if ((unsigned)a[2] > UINT32_MAX / SEMBUF_SIZE ||
      !guest_area(c, a[1], (uint64_t)(unsigned)a[2] * SEMBUF_SIZE, GUEST_PROT_READ, &ops))
    ops = NULL;
  SemCall call = {(int)a[0], ops, (size_t)(unsigned)a[2], a[3] ? &timeout : NULL};
  uint64_t wait_ns = 0;
  if (a[3] && det_on(c) && vt_valid_timespec(&timeout)) {
    wait_ns = vt_ns(&timeout);
    timeout = (struct timespec){0, 0};
  }
  return vt_timed_call(c, wait_ns, -EAGAIN, sem_look, &call);
}

int64_t sys_semop(Cpu *c, const uint64_t *a) {
  uint64_t args[4] = {a[0], a[1], a[2], 0};
  return sys_semtimedop(c, args);
}

/* struct semid64_ds as the guest has it, and as the host's kernel does. */
static void semid_ds_out(IpcBuf *buf) {
#ifndef __x86_64__
  /* asm-generic: otime at 48, ctime at 56, nsems at 64; x86-64 adds a word after each time. */
  uint64_t otime = buf->words[6], ctime = buf->words[7], nsems = buf->words[8];
  buf->words[6] = otime, buf->words[7] = 0, buf->words[8] = ctime, buf->words[9] = 0;
  buf->words[10] = nsems, buf->words[11] = buf->words[12] = 0;
#else
  (void)buf;
#endif
}

static void semid_ds_in(IpcBuf *buf) {
#ifndef __x86_64__
  uint64_t otime = buf->words[6], ctime = buf->words[8], nsems = buf->words[10];
  buf->words[6] = otime, buf->words[7] = ctime, buf->words[8] = nsems;
  buf->words[9] = buf->words[10] = 0;
#else
  (void)buf;
#endif
}

/* GETALL and SETALL: the set's semaphore values, an unsigned short each, in place. */
static int64_t sem_all(Cpu *c, int id, int cmd, uint64_t at) {
  IpcBuf ds;
  void *vals = NULL;
  if (syscall(SYS_semctl, id, 0, STAT, &ds) == 0) {
    semid_ds_out(&ds);
    uint64_t nsems = ds.words[10];
    int access = (cmd & ~IPC_64_FLAG) == GETALL_ ? GUEST_PROT_WRITE : GUEST_PROT_READ;
    if (!guest_area(c, at, nsems * 2, access, &vals))
      vals = NULL;
  }
  return host_result(syscall(SYS_semctl, id, 0, cmd, vals));
}

/* semctl(id, num, cmd, arg): arg is the union semun, by value. */
int64_t sys_semctl(Cpu *c, const uint64_t *a) {
  int id = (int)a[0], num = (int)a[1], cmd = (int)a[2];
  IpcBuf buf = {{0}};
  int64_t r;
  switch (cmd & ~IPC_64_FLAG) {
  case SET:
    if (guest_copy_in(c, &buf, a[3], X64_SEMID_DS_SIZE) < 0) return -EFAULT;
    semid_ds_in(&buf);
    return host_result(syscall(SYS_semctl, id, num, cmd, &buf));
  case STAT: case SEM_STAT_: case SEM_STAT_ANY_:
    r = host_result(syscall(SYS_semctl, id, num, cmd, &buf));
    if (r < 0) return r;
    semid_ds_out(&buf);
    return guest_copy_out(c, a[3], &buf, X64_SEMID_DS_SIZE) < 0 ? -EFAULT : r;
  case INFO: case SEM_INFO_:
    r = host_result(syscall(SYS_semctl, id, num, cmd, &buf));
    if (r < 0) return r;
    return guest_copy_out(c, a[3], &buf, SEMINFO_SIZE) < 0 ? -EFAULT : r;
  case GETALL_: case SETALL_: return sem_all(c, id, cmd, a[3]);
  case GETPID_:
    r = host_result(syscall(SYS_semctl, id, num, cmd, 0ul));
    return r < 0 ? r : det_pid_out(c, r);
  default: return host_result(syscall(SYS_semctl, id, num, cmd, (unsigned long)a[3]));
  }
}

/* ---- shared memory segments ---- */

int64_t sys_shmget(Cpu *c, const uint64_t *a) {
  return host_result(syscall(SYS_shmget, (key_t)a[0], (size_t)a[1], (int)a[2]));
}

int64_t sys_shmctl(Cpu *c, const uint64_t *a) {
  int cmd = (int)a[1];
  switch (cmd & ~IPC_64_FLAG) {
  case SET: return ctl_through(c, SYS_shmctl, (int)a[0], cmd, a[2], SHMID_DS_SIZE, 0, 0);
  case STAT: case SHM_STAT_: case SHM_STAT_ANY_:
    return ctl_through(c, SYS_shmctl, (int)a[0], cmd, a[2], 0, SHMID_DS_SIZE, SHMID_DS_PIDS);
  case INFO: return ctl_through(c, SYS_shmctl, (int)a[0], cmd, a[2], 0, SHMINFO_SIZE, 0);
  case SHM_INFO_: return ctl_through(c, SYS_shmctl, (int)a[0], cmd, a[2], 0, SHM_INFO_SIZE, 0);
  default: return host_result(syscall(SYS_shmctl, (int)a[0], cmd, NULL));
  }
}
