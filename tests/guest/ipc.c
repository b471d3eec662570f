/* ipc.c: System V IPC and POSIX message queues, each call with what it returns and the
 * state it leaves, printed so that a native run and one under x64emu can be compared: a
 * System V message queue (types, truncation, a child that waits for a message, the
 * queue's status), a semaphore set (every semctl command, operations that would wait, a
 * timed one, undo), shared memory (attached where the kernel chooses and where the
 * program says, seen by a child, read-only, rounded with SHM_RND, the status and
 * detaching), and a POSIX queue (priorities, sizes, timeouts, a child that waits), with
 * the errors of bad arguments (its notifications: mq_notify.c), and waits a handler
 * interrupts, which are not restarted. Identifiers and times
 * differ between runs: only their relations print. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A call's result: the value, or the errno's name. */
static void show(const char *what, long r) {
  if (r < 0) printf("%-40s -1 %s\n", what, strerrorname_np(errno));
  else printf("%-40s %ld\n", what, r);
}

static void *bad_ptr(void) { return (void *)(uintptr_t)8; }

struct message {
  long type;
  char text[32];
};

static void message_queues(void) {
  int q = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
  show("msgget(PRIVATE)", q >= 0);
  struct message m = {2, "second type"}, got;
  show("  msgsnd(type 2)", msgsnd(q, &m, 12, 0));
  m = (struct message){1, "type one"};
  show("  msgsnd(type 1)", msgsnd(q, &m, 9, 0));
  struct msqid_ds ds;
  show("  msgctl(IPC_STAT)", msgctl(q, IPC_STAT, &ds));
  printf("  qnum %lu cbytes %lu mode %o lspid-is-self %d qbytes>0 %d\n", ds.msg_qnum,
         ds.__msg_cbytes, ds.msg_perm.mode, ds.msg_lspid == getpid(), ds.msg_qbytes > 0);
  show("  msgrcv(type 1)", msgrcv(q, &got, sizeof got.text, 1, 0));
  printf("  got %ld '%s'\n", got.type, got.text);
  show("  msgrcv(4 bytes, E2BIG)", msgrcv(q, &got, 4, 0, IPC_NOWAIT));
  memset(&got, 0, sizeof got);
  show("  msgrcv(4 bytes, MSG_NOERROR)", msgrcv(q, &got, 4, 0, IPC_NOWAIT | MSG_NOERROR));
  printf("  got %ld '%.4s'\n", got.type, got.text);
  show("  msgrcv(empty, NOWAIT)", msgrcv(q, &got, sizeof got.text, 0, IPC_NOWAIT));
  show("  msgsnd(type 0)", msgsnd(q, &(struct message){0, "x"}, 1, 0));
  show("  msgsnd(bad buffer)", msgsnd(q, bad_ptr(), 4, 0));
  show("  msgrcv(bad buffer)", syscall(SYS_msgrcv, q, bad_ptr(), 4, 0, IPC_NOWAIT));
  show("  msgsnd(size -1)", syscall(SYS_msgsnd, q, &m, -1L, 0));
  /* A buffer that ends in an unmapped page: what is needed of it counts. */
  char *two = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  munmap(two + 4096, 4096);
  struct message *edge = (struct message *)(two + 4096 - sizeof *edge);
  *edge = (struct message){3, "edge"};
  show("  msgsnd(past the mapping)", msgsnd(q, edge, 1000, 0));
  show("  msgsnd(up to the mapping)", msgsnd(q, edge, sizeof edge->text, 0));
  memset(edge, 0, sizeof *edge);
  show("  msgrcv(into a short mapping)", msgrcv(q, edge, 1000, 0, IPC_NOWAIT));
  printf("  got %ld '%s'\n", edge->type, edge->text);
  show("  msgsnd(type 4)", msgsnd(q, &(struct message){4, "lost"}, 5, 0));
  show("  msgrcv(type 4, bad buffer)", msgrcv(q, bad_ptr(), 5, 4, IPC_NOWAIT));
  show("  msgrcv(type 4 again)", msgrcv(q, &got, sizeof got.text, 4, IPC_NOWAIT));
  munmap(two, 4096);

  pid_t child = fork();
  if (child == 0) {
    struct message in;
    ssize_t n = msgrcv(q, &in, sizeof in.text, 7, 0); /* waits for the parent */
    _exit(n == 5 && strcmp(in.text, "wake") == 0 ? 11 : 12);
  }
  usleep(20000);
  m = (struct message){7, "wake"};
  show("  msgsnd(to the waiting child)", msgsnd(q, &m, 5, 0));
  int status;
  waitpid(child, &status, 0);
  printf("  child exited %d\n", WEXITSTATUS(status));

  ds.msg_perm.mode = 0640;
  show("  msgctl(IPC_SET 0640)", msgctl(q, IPC_SET, &ds));
  show("  msgctl(IPC_STAT)", msgctl(q, IPC_STAT, &ds));
  printf("  mode %o qnum %lu\n", ds.msg_perm.mode, ds.msg_qnum);
  struct msginfo info;
  show("  msgctl(IPC_INFO) >= 0", msgctl(0, IPC_INFO, (struct msqid_ds *)&info) >= 0);
  printf("  msgmax>0 %d msgmnb>0 %d\n", info.msgmax > 0, info.msgmnb > 0);
  show("  msgctl(IPC_STAT, bad buffer)", msgctl(q, IPC_STAT, bad_ptr()));
  show("  msgctl(bad command)", msgctl(q, 99, NULL));
  show("  msgctl(IPC_RMID)", msgctl(q, IPC_RMID, NULL));
  show("  msgsnd(removed)", msgsnd(q, &m, 1, IPC_NOWAIT));
  show("msgget(key, no CREAT)", msgget(0x7e57ab1e, 0600));
}

union semun {
  int val;
  struct semid_ds *buf;
  unsigned short *array;
  struct seminfo *info;
};

static void semaphores(void) {
  int s = semget(IPC_PRIVATE, 3, IPC_CREAT | 0600);
  show("semget(PRIVATE, 3)", s >= 0);
  unsigned short vals[3] = {1, 2, 3};
  show("  semctl(SETALL 1 2 3)", semctl(s, 0, SETALL, (union semun){.array = vals}));
  show("  semctl(SETVAL #2 = 7)", semctl(s, 2, SETVAL, (union semun){.val = 7}));
  memset(vals, 0, sizeof vals);
  show("  semctl(GETALL)", semctl(s, 0, GETALL, (union semun){.array = vals}));
  printf("  values %u %u %u\n", vals[0], vals[1], vals[2]);
  struct sembuf ops[2] = {{0, -1, 0}, {1, 2, SEM_UNDO}};
  show("  semop(#0 -1, #1 +2 undo)", semop(s, ops, 2));
  show("  semctl(GETVAL #0)", semctl(s, 0, GETVAL));
  show("  semctl(GETVAL #1)", semctl(s, 1, GETVAL));
  show("  semctl(GETPID) is self", semctl(s, 0, GETPID) == getpid());
  show("  semctl(GETNCNT #0)", semctl(s, 0, GETNCNT));
  show("  semctl(GETZCNT #0)", semctl(s, 0, GETZCNT));
  struct sembuf wait0 = {0, -1, IPC_NOWAIT};
  show("  semop(#0 -1, NOWAIT)", semop(s, &wait0, 1));
  wait0.sem_flg = 0;
  struct timespec ten_ms = {0, 10 * 1000 * 1000};
  show("  semtimedop(#0 -1, 10 ms)", semtimedop(s, &wait0, 1, &ten_ms));
  show("  semtimedop(bad timeout)", semtimedop(s, &wait0, 1, bad_ptr()));
  show("  semop(bad operations)", semop(s, bad_ptr(), 1));
  show("  semop(no operations)", semop(s, ops, 0));
  show("  semop(100000 operations)", syscall(SYS_semop, s, ops, 100000));
  show("  semop(semaphore 5)", semop(s, &(struct sembuf){5, 1, 0}, 1));

  pid_t child = fork();
  if (child == 0) {
    struct sembuf take = {0, -1, 0};
    _exit(semop(s, &take, 1) == 0 ? 21 : 22); /* waits until the parent posts */
  }
  /* Until the child waits (ten seconds at most: a loaded machine is slow to start it). */
  for (int tries = 0; tries < 1000 && semctl(s, 0, GETNCNT) == 0; tries++) usleep(10000);
  show("  semctl(GETNCNT #0), child waits", semctl(s, 0, GETNCNT));
  show("  semop(#0 +1)", semop(s, &(struct sembuf){0, 1, 0}, 1));
  int status;
  waitpid(child, &status, 0);
  printf("  child exited %d\n", WEXITSTATUS(status));

  struct semid_ds ds;
  show("  semctl(IPC_STAT)", semctl(s, 0, IPC_STAT, (union semun){.buf = &ds}));
  printf("  nsems %lu mode %o otime-set %d ctime-set %d\n", ds.sem_nsems, ds.sem_perm.mode,
         ds.sem_otime > 0, ds.sem_ctime > 0);
  ds.sem_perm.mode = 0640;
  show("  semctl(IPC_SET 0640)", semctl(s, 0, IPC_SET, (union semun){.buf = &ds}));
  memset(&ds, 0, sizeof ds);
  show("  semctl(IPC_STAT)", semctl(s, 0, IPC_STAT, (union semun){.buf = &ds}));
  printf("  nsems %lu mode %o\n", ds.sem_nsems, ds.sem_perm.mode);
  struct seminfo info;
  show("  semctl(SEM_INFO) >= 0", semctl(s, 0, SEM_INFO, (union semun){.info = &info}) >= 0);
  printf("  semmsl>0 %d semopm>0 %d\n", info.semmsl > 0, info.semopm > 0);
  show("  semctl(IPC_STAT, bad buffer)", semctl(s, 0, IPC_STAT, (union semun){.buf = bad_ptr()}));
  show("  semctl(GETALL, bad buffer)", semctl(s, 0, GETALL, (union semun){.array = bad_ptr()}));
  show("  semctl(IPC_RMID)", semctl(s, 0, IPC_RMID));
  show("  semctl(GETVAL, removed)", semctl(s, 0, GETVAL));
  show("semget(3, 100000 semaphores)", semget(IPC_PRIVATE, 100000, IPC_CREAT | 0600));
}

static sigjmp_buf on_fault;
static volatile int fault_code;
static void on_segv(int sig, siginfo_t *si, void *uc) {
  (void)sig, (void)uc;
  fault_code = si->si_code;
  siglongjmp(on_fault, 1);
}

static void shared_memory(void) {
  int id = shmget(IPC_PRIVATE, 10000, IPC_CREAT | 0600);
  show("shmget(PRIVATE, 10000)", id >= 0);
  struct shmid_ds ds;
  show("  shmctl(IPC_STAT)", shmctl(id, IPC_STAT, &ds));
  printf("  segsz %zu nattch %lu mode %o cpid-is-self %d\n", ds.shm_segsz, ds.shm_nattch,
         ds.shm_perm.mode & 0777, ds.shm_cpid == getpid());
  char *a = shmat(id, NULL, 0);
  show("  shmat(NULL)", a != (void *)-1);
  printf("  page aligned %d zeroed %d\n", ((uintptr_t)a & 4095) == 0, a[0] == 0 && a[9999] == 0);
  strcpy(a, "parent");
  pid_t child = fork();
  if (child == 0) {
    int same = strcmp(a, "parent") == 0;
    strcpy(a + 100, "child");
    _exit(same ? 31 : 32);
  }
  int status;
  waitpid(child, &status, 0);
  printf("  child exited %d, wrote '%s'\n", WEXITSTATUS(status), a + 100);

  /* A second attachment, where the program says: a place it reserved, taken over. */
  char *room = mmap(NULL, 3 * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  show("  shmat(reserved place)", shmat(id, room, 0) != (void *)-1);
  show("  shmat(reserved place, SHM_REMAP)", shmat(id, room, SHM_REMAP) == room);
  printf("  both views %d\n", strcmp(room + 100, "child") == 0);
  room[200] = 'x';
  printf("  written through one, read through the other %d\n", a[200] == 'x');
  show("  shmctl(IPC_STAT)", shmctl(id, IPC_STAT, &ds));
  printf("  nattch %lu lpid-is-self %d\n", ds.shm_nattch, ds.shm_lpid == getpid());
  show("  shmdt(second)", shmdt(room));
  show("  shmdt(second, again)", shmdt(room));
  show("  shmdt(inside the first)", shmdt(a + 4096));
  show("  shmdt(unaligned)", shmdt(a + 1));
  show("  shmat(unaligned)", (long)shmat(id, a + 1, 0) == -1 ? -1 : 0);
  char *rounded = shmat(id, room + 5, SHM_RND);
  show("  shmat(room + 5, SHM_RND) is room", rounded == room);
  if (rounded != (void *)-1) shmdt(rounded);
  show("  shmat(NULL, SHM_REMAP)", (long)shmat(id, NULL, SHM_REMAP) == -1 ? -1 : 0);

  char *ro = shmat(id, NULL, SHM_RDONLY);
  show("  shmat(NULL, SHM_RDONLY)", ro != (void *)-1);
  printf("  reads '%s'\n", ro);
  struct sigaction sa = {.sa_sigaction = on_segv, .sa_flags = SA_SIGINFO}, old;
  sigaction(SIGSEGV, &sa, &old);
  if (sigsetjmp(on_fault, 1) == 0) {
    ro[0] = 'X';
    printf("  write to the read-only view: no fault\n");
  } else {
    printf("  write to the read-only view: SIGSEGV code %d\n", fault_code);
  }
  sigaction(SIGSEGV, &old, NULL);
  show("  mprotect(read-only view, RW)", mprotect(ro, 4096, PROT_READ | PROT_WRITE));
  show("  shmdt(read-only)", shmdt(ro));

  ds.shm_perm.mode = 0640;
  show("  shmctl(IPC_SET 0640)", shmctl(id, IPC_SET, &ds));
  show("  shmctl(IPC_STAT)", shmctl(id, IPC_STAT, &ds));
  printf("  mode %o nattch %lu\n", ds.shm_perm.mode & 0777, ds.shm_nattch);
  struct shminfo info;
  show("  shmctl(IPC_INFO) >= 0", shmctl(0, IPC_INFO, (struct shmid_ds *)&info) >= 0);
  printf("  shmmax>0 %d shmmni>0 %d\n", info.shmmax > 0, info.shmmni > 0);
  struct shm_info usage;
  show("  shmctl(SHM_INFO) >= 0", shmctl(0, SHM_INFO, (struct shmid_ds *)&usage) >= 0);
  printf("  used_ids>0 %d\n", usage.used_ids > 0);
  show("  shmctl(IPC_STAT, bad buffer)", shmctl(id, IPC_STAT, bad_ptr()));
  show("  shmctl(IPC_RMID)", shmctl(id, IPC_RMID, NULL));
  printf("  still attached reads '%s'\n", a);
  show("  shmctl(IPC_STAT) after RMID", shmctl(id, IPC_STAT, &ds));
  printf("  nattch %lu dest %d\n", ds.shm_nattch, (ds.shm_perm.mode & SHM_DEST) != 0);
  show("  shmdt(first)", shmdt(a));
  show("  shmat(removed)", (long)shmat(id, NULL, 0) == -1 ? -1 : 0);
  show("shmget(0 bytes)", shmget(IPC_PRIVATE, 0, IPC_CREAT | 0600));
  show("shmat(bad id)", (long)shmat(-1, NULL, 0) == -1 ? -1 : 0);
}

static struct timespec in_ms(int ms) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  t.tv_nsec += ms * 1000000L;
  t.tv_sec += t.tv_nsec / 1000000000L;
  t.tv_nsec %= 1000000000L;
  return t;
}

static void posix_queues(void) {
  char name[64];
  snprintf(name, sizeof name, "/x64emu-ipc-%d", getpid());
  struct mq_attr attr = {.mq_maxmsg = 4, .mq_msgsize = 64}, now;
  mqd_t q = mq_open(name, O_CREAT | O_EXCL | O_RDWR, 0600, &attr);
  show("mq_open(CREAT, 4 x 64 bytes)", q >= 0);
  show("  mq_open(again, EXCL)", mq_open(name, O_CREAT | O_EXCL | O_RDWR, 0600, &attr));
  show("  mq_getattr", mq_getattr(q, &now));
  printf("  maxmsg %ld msgsize %ld curmsgs %ld flags %ld\n", now.mq_maxmsg, now.mq_msgsize,
         now.mq_curmsgs, now.mq_flags);
  show("  mq_send(prio 1)", mq_send(q, "low", 4, 1));
  show("  mq_send(prio 5)", mq_send(q, "high", 5, 5));
  char buf[64];
  unsigned prio = 0;
  show("  mq_receive(10 bytes)", mq_receive(q, buf, 10, &prio));
  show("  mq_receive", mq_receive(q, buf, sizeof buf, &prio));
  printf("  got '%s' prio %u\n", buf, prio);
  show("  mq_send(65 bytes)", mq_send(q, buf, 65, 0));
  show("  mq_send(bad buffer)", mq_send(q, bad_ptr(), 4, 0));
  show("  mq_receive(bad buffer)", mq_receive(q, bad_ptr(), sizeof buf, NULL));
  show("  mq_getattr", mq_getattr(q, &now));
  printf("  curmsgs %ld (the message is gone)\n", now.mq_curmsgs);

  /* A buffer that ends in an unmapped page: the message is what counts. */
  char *two = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  munmap(two + 4096, 4096);
  mq_send(q, "edge", 5, 2);
  show("  mq_receive(into a short mapping)", mq_receive(q, two + 4096 - 8, 64, &prio));
  printf("  got '%s' prio %u\n", two + 4096 - 8, prio);
  munmap(two, 4096);

  for (int i = 0; i < 4; i++) mq_send(q, "fill", 5, 0);
  struct timespec soon = in_ms(20), bad = {0, 2000000000L};
  show("  mq_timedsend(full, 20 ms)", mq_timedsend(q, "x", 2, 0, &soon));
  show("  mq_timedsend(bad timeout)", mq_timedsend(q, "x", 2, 0, &bad));
  show("  mq_timedsend(timeout not readable)", syscall(SYS_mq_timedsend, q, "x", 2, 0, bad_ptr()));
  struct mq_attr nonblock = {.mq_flags = O_NONBLOCK}, old;
  show("  mq_setattr(O_NONBLOCK)", mq_setattr(q, &nonblock, &old));
  printf("  old flags %ld\n", old.mq_flags);
  show("  mq_send(full, NONBLOCK)", mq_send(q, "x", 2, 0));
  for (int i = 0; i < 4; i++) mq_receive(q, buf, sizeof buf, NULL);
  show("  mq_receive(empty, NONBLOCK)", mq_receive(q, buf, sizeof buf, NULL));
  nonblock.mq_flags = 0;
  mq_setattr(q, &nonblock, NULL);
  soon = in_ms(20);
  show("  mq_timedreceive(empty, 20 ms)", mq_timedreceive(q, buf, sizeof buf, NULL, &soon));

  pid_t child = fork();
  if (child == 0) {
    char in[64];
    ssize_t n = mq_receive(q, in, sizeof in, NULL); /* waits for the parent */
    _exit(n == 5 && strcmp(in, "wake") == 0 ? 41 : 42);
  }
  usleep(20000);
  show("  mq_send(to the waiting child)", mq_send(q, "wake", 5, 0));
  int status;
  waitpid(child, &status, 0);
  printf("  child exited %d\n", WEXITSTATUS(status));
  mq_close(q);
  show("  mq_unlink", mq_unlink(name));
  show("  mq_unlink(again)", mq_unlink(name));
  show("mq_open(a name with a slash)", mq_open("/a/b", O_CREAT | O_RDWR, 0600, NULL));
  show("mq_open(no such queue)", mq_open("/x64emu-no-such-queue", O_RDWR));
  show("mq_open(bad name)", syscall(SYS_mq_open, bad_ptr(), O_RDWR, 0, NULL));
  attr.mq_maxmsg = 0;
  show("mq_open(maxmsg 0)", mq_open(name, O_CREAT | O_RDWR, 0600, &attr));
}

static void on_alarm(int sig) { (void)sig; }

/* Arms a one-shot SIGALRM 50 ms from now. */
static void alarm_soon(void) {
  struct itimerval soon = {{0, 0}, {0, 50000}};
  setitimer(ITIMER_REAL, &soon, NULL);
}

/* A wait in msgrcv, msgsnd or semop that a handler interrupts is EINTR even with
 * SA_RESTART: the kernel never restarts them after a handler (signal(7)). */
static void interrupted_waits(void) {
  struct sigaction sa = {.sa_handler = on_alarm, .sa_flags = SA_RESTART};
  sigaction(SIGALRM, &sa, NULL);
  int q = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
  struct message m = {.type = 1};
  alarm_soon();
  show("msgrcv, interrupted (SA_RESTART)", msgrcv(q, &m, sizeof m.text, 1, 0));
  struct msqid_ds ds;
  msgctl(q, IPC_STAT, &ds);
  ds.msg_qbytes = sizeof m.text;
  msgctl(q, IPC_SET, &ds);
  msgsnd(q, &m, sizeof m.text, 0); /* the queue is full */
  alarm_soon();
  show("msgsnd, interrupted (SA_RESTART)", msgsnd(q, &m, sizeof m.text, 0));
  msgctl(q, IPC_RMID, NULL);
  int set = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
  struct sembuf down = {0, -1, 0};
  alarm_soon();
  show("semop, interrupted (SA_RESTART)", semop(set, &down, 1));
  alarm_soon();
  show("semtimedop, interrupted (SA_RESTART)", semtimedop(set, &down, 1, &(struct timespec){5, 0}));
  semctl(set, 0, IPC_RMID);
  signal(SIGALRM, SIG_DFL);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  message_queues();
  semaphores();
  shared_memory();
  posix_queues();
  interrupted_waits();
  return 0;
}
