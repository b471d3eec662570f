/* syscall_misc.c: system calls outside the big families, each with what it returns and
 * the state it leaves, printed so that a native run and one under x64emu can be compared:
 * eventfd, timerfd, signalfd, inotify, pidfds, the scheduling policy calls, capabilities,
 * I/O priority, personality, setting the clocks, mlock2, mlockall, syncfs,
 * sync_file_range, readahead, the old getdents, splice/tee/vmsplice, sendmmsg/recvmmsg
 * (which glibc's DNS resolver sends its queries with), an epoll_wait that returns 1,500
 * events, membarrier, kcmp, pidfd_getfd, sched_setattr, syslog,
 * adjtimex, PR_SET_TSC, and fexecve of a descriptor that closes on exec (the new image must have the
 * descriptors the kernel leaves it). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/timex.h>
#include <sys/utsname.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A call's result: the value, or the errno's name. */
static void show(const char *what, long r) {
  if (r < 0) printf("%-36s -1 %s\n", what, strerrorname_np(errno));
  else printf("%-36s %ld\n", what, r);
}

static void eventfds(void) {
  int fd = eventfd(5, EFD_CLOEXEC);
  show("eventfd(5, EFD_CLOEXEC)", fd);
  show("  FD_CLOEXEC", fcntl(fd, F_GETFD) & FD_CLOEXEC);
  uint64_t v = 7;
  show("  write 7", write(fd, &v, sizeof v));
  show("  read", read(fd, &v, sizeof v));
  printf("  counter %llu\n", (unsigned long long)v);
  close(fd);
  fd = eventfd(2, EFD_SEMAPHORE | EFD_NONBLOCK);
  for (int i = 0; i < 3; i++) {
    v = 0;
    show("  semaphore read", read(fd, &v, sizeof v));
    printf("  value %llu\n", (unsigned long long)v);
  }
  close(fd);
  show("eventfd(0, bad flags)", eventfd(0, 0x40));
  fd = (int)syscall(SYS_eventfd, 3);
  show("eventfd (the old call)", fd);
  close(fd);
}

static void timerfds(void) {
  int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
  show("timerfd_create(MONOTONIC)", fd >= 0);
  struct itimerspec t = {{0, 0}, {0, 20 * 1000 * 1000}}, cur;
  show("  timerfd_settime(20 ms)", timerfd_settime(fd, 0, &t, NULL));
  show("  timerfd_gettime", timerfd_gettime(fd, &cur));
  printf("  armed %d\n", cur.it_value.tv_sec > 0 || cur.it_value.tv_nsec > 0);
  uint64_t expirations = 0;
  show("  read (waits for it)", read(fd, &expirations, sizeof expirations));
  printf("  expirations %llu\n", (unsigned long long)expirations);
  show("  timerfd_settime(bad)", syscall(SYS_timerfd_settime, fd, 0, (void *)8, NULL));
  close(fd);
  show("timerfd_create(bad clock)", timerfd_create(99, 0));
}

/* A signalfd reads what the thread blocks: signals sent to it, queued with a value, a
 * child's SIGCHLD; a handler installed for a blocked signal does not run. */
static volatile sig_atomic_t handled;
static void on_usr2(int sig) { handled = sig; }

static void read_signal(int fd, const char *what) {
  struct signalfd_siginfo si;
  ssize_t n = read(fd, &si, sizeof si);
  show(what, n);
  if (n == (ssize_t)sizeof si)
    printf("  signo %u code %d from-self %d int %d status %d\n", si.ssi_signo, si.ssi_code,
           si.ssi_pid == (uint32_t)getpid(), si.ssi_int, si.ssi_signo == SIGCHLD ? si.ssi_status : 0);
}

static void signalfds(void) {
  sigset_t set, old;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  sigaddset(&set, SIGUSR2);
  sigaddset(&set, SIGCHLD);
  sigprocmask(SIG_BLOCK, &set, &old);
  signal(SIGUSR2, on_usr2);
  sigdelset(&set, SIGCHLD);
  int fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
  show("signalfd(USR1|USR2, NONBLOCK)", fd >= 0);
  read_signal(fd, "  read (none pending)");
  raise(SIGUSR2);
  sigqueue(getpid(), SIGUSR1, (union sigval){.sival_int = 77});
  struct pollfd p = {fd, POLLIN, 0};
  show("  poll", poll(&p, 1, 0));
  printf("  revents %#x\n", p.revents);
  read_signal(fd, "  read");
  read_signal(fd, "  read");
  read_signal(fd, "  read (drained)");
  printf("  handler ran %d\n", handled);
  sigaddset(&set, SIGCHLD);
  show("  signalfd(fd, +CHLD)", signalfd(fd, &set, 0) == fd);
  pid_t child = fork();
  if (child == 0) _exit(5);
  int epfd = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event ev = {.events = EPOLLIN, .data.u32 = 9}, got;
  epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
  show("  epoll_wait (child exits)", epoll_wait(epfd, &got, 1, 5000));
  read_signal(fd, "  read");
  waitpid(child, NULL, 0);
  close(epfd);
  show("  signalfd(bad size)", syscall(SYS_signalfd4, fd, &set, 4, 0));
  show("  signalfd(bad flags)", syscall(SYS_signalfd4, -1, &set, 8, 1));
  show("  signalfd(bad mask)", syscall(SYS_signalfd4, -1, (void *)8, 8, 0));
  show("  signalfd(not one)", signalfd(1, &set, 0));
  show("  signalfd (the old call)", syscall(SYS_signalfd, -1, &set, 8) >= 0);
  close(fd);
  signal(SIGUSR2, SIG_DFL);
  sigprocmask(SIG_SETMASK, &old, NULL);
}

static void inotifies(void) {
  char dir[] = "/tmp/x64emu-inotify-XXXXXX";
  if (!mkdtemp(dir)) return;
  int fd = inotify_init1(IN_NONBLOCK);
  show("inotify_init1(IN_NONBLOCK)", fd >= 0);
  int wd = inotify_add_watch(fd, dir, IN_CREATE | IN_DELETE);
  show("  inotify_add_watch", wd);
  show("  inotify_add_watch(missing)", inotify_add_watch(fd, "/nonexistent/x64emu", IN_CREATE));
  char path[sizeof dir + 16];
  snprintf(path, sizeof path, "%s/new", dir);
  close(open(path, O_CREAT | O_WRONLY, 0600));
  unlink(path);
  char buf[4096] __attribute__((aligned(8)));
  long n = read(fd, buf, sizeof buf);
  for (long at = 0; at < n;) {
    const struct inotify_event *e = (const void *)(buf + at);
    printf("  event wd %d mask %#x name %s\n", e->wd, e->mask, e->len ? e->name : "");
    at += (long)sizeof *e + e->len;
  }
  show("  read again (nothing)", read(fd, buf, sizeof buf));
  show("  inotify_rm_watch", inotify_rm_watch(fd, wd));
  show("  inotify_rm_watch again", inotify_rm_watch(fd, wd));
  close(fd);
  rmdir(dir);
}

static void pidfds(void) {
  pid_t child = fork();
  if (child == 0) {
    pause();
    _exit(0);
  }
  int fd = (int)syscall(SYS_pidfd_open, child, 0);
  show("pidfd_open(child)", fd >= 0);
  struct pollfd p = {fd, POLLIN, 0};
  show("  poll before it exits", poll(&p, 1, 0));
  show("  pidfd_send_signal(SIGTERM)", syscall(SYS_pidfd_send_signal, fd, SIGTERM, NULL, 0));
  show("  poll after", poll(&p, 1, 5000));
  int status;
  waitpid(child, &status, 0);
  printf("  child: signal %d\n", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  close(fd);
  show("pidfd_open(-1)", syscall(SYS_pidfd_open, -1, 0));
}

static void scheduling(void) {
  show("sched_getscheduler(0)", sched_getscheduler(0));
  struct sched_param sp = {-1};
  show("sched_getparam(0)", sched_getparam(0, &sp));
  printf("  priority %d\n", sp.sched_priority);
  show("sched_getparam(0, NULL)", syscall(SYS_sched_getparam, 0, NULL));
  show("sched_setparam(0, 0)", sched_setparam(0, &sp));
  show("sched_setscheduler(0, OTHER, 0)", sched_setscheduler(0, SCHED_OTHER, &sp));
  sp.sched_priority = 5;
  show("sched_setscheduler(0, OTHER, 5)", sched_setscheduler(0, SCHED_OTHER, &sp));
  show("sched_getscheduler(-1)", sched_getscheduler(-1));
  static const int policies[] = {SCHED_OTHER, SCHED_FIFO, SCHED_RR, SCHED_BATCH, SCHED_IDLE, 99};
  for (size_t i = 0; i < sizeof policies / sizeof *policies; i++) {
    char what[48];
    snprintf(what, sizeof what, "sched_get_priority_min/max(%d)", policies[i]);
    long lo = sched_get_priority_min(policies[i]), hi = sched_get_priority_max(policies[i]);
    if (lo < 0) show(what, lo);
    else printf("%-36s %ld %ld\n", what, lo, hi);
  }
  struct timespec ts;
  show("sched_rr_get_interval(0)", sched_rr_get_interval(0, &ts));
  show("sched_rr_get_interval(0, bad)", syscall(SYS_sched_rr_get_interval, 0, (void *)8));
}

static void capabilities(void) {
  struct {
    uint32_t version;
    int pid;
  } h = {0, 0};
  uint32_t data[6];
  show("capget(version 0, NULL)", syscall(SYS_capget, &h, NULL));
  printf("  version %#x\n", h.version);
  show("capget(that version, data)", syscall(SYS_capget, &h, data));
  printf("  effective %#x %#x\n", data[0], data[3]);
  show("capset(the same sets)", syscall(SYS_capset, &h, data));
  h.version = 0x12345678;
  show("capget(bad version, data)", syscall(SYS_capget, &h, data));
  printf("  version %#x\n", h.version);
  /* The prctl options on credentials and the process's own settings (not the getters of
   * THP and speculation settings, which qemu-aarch64 7.2 answers with EINVAL itself). */
  show("prctl(PR_GET_SECUREBITS)", prctl(PR_GET_SECUREBITS, 0, 0, 0, 0));
  show("prctl(PR_CAP_AMBIENT, IS_SET, 0)", prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, 0, 0, 0));
  show("prctl(PR_CAP_AMBIENT, bad)", prctl(PR_CAP_AMBIENT, 99, 0, 0, 0));
  show("prctl(PR_SET_THP_DISABLE, bad)", prctl(PR_SET_THP_DISABLE, 0, 1, 0, 0));
  show("prctl(PR_MCE_KILL_GET)", prctl(PR_MCE_KILL_GET, 0, 0, 0, 0));
  show("prctl(PR_GET_TIMING)", prctl(PR_GET_TIMING, 0, 0, 0, 0));
  show("prctl(PR_SET_TIMING, timestamp)", prctl(PR_SET_TIMING, 1, 0, 0, 0));
  pid_t child = fork();
  if (child == 0) {
    if (getuid() == 0 && setuid(65534) != 0) _exit(1);
    show("  prctl(PR_CAPBSET_DROP) as a user", prctl(PR_CAPBSET_DROP, 1, 0, 0, 0));
    show("  prctl(PR_SET_SECUREBITS) as a user", prctl(PR_SET_SECUREBITS, 0, 0, 0, 0));
    _exit(0);
  }
  waitpid(child, NULL, 0);
}

static void io_priority(void) {
  long prio = syscall(SYS_ioprio_get, 1 /* IOPRIO_WHO_PROCESS */, 0);
  show("ioprio_get(process, 0)", prio);
  show("ioprio_set(process, 0, the same)", syscall(SYS_ioprio_set, 1, 0, prio));
  show("ioprio_get(bad which)", syscall(SYS_ioprio_get, 9, 0));
}

static void clocks(void) {
  struct timespec ts = {0, 0};
  show("clock_settime(MONOTONIC)", clock_settime(CLOCK_MONOTONIC, &ts));
  show("clock_settime(REALTIME, bad ts)", syscall(SYS_clock_settime, CLOCK_REALTIME, (void *)8));
  struct timeval tv = {0, 2000000};
  show("settimeofday(bad usec)", settimeofday(&tv, NULL));
}

/* A file's bytes spliced into a pipe from an offset, teed to a second pipe, and memory
 * vmspliced into the first and back out. */
static void splices(void) {
  char name[] = "/tmp/x64emu-splice-XXXXXX", buf[64];
  int file = mkstemp(name), p[2], q[2];
  unlink(name);
  write(file, "0123456789abcdef", 16);
  pipe(p);
  pipe(q);
  loff_t off = 4;
  show("splice(file @4 -> pipe, 6)", splice(file, &off, p[1], NULL, 6, 0));
  printf("  offset now %lld\n", (long long)off);
  show("tee(pipe -> pipe, 6)", tee(p[0], q[1], 6, 0));
  memset(buf, 0, sizeof buf);
  show("  read the tee'd copy", read(q[0], buf, sizeof buf));
  printf("  '%s'\n", buf);
  char gift[] = "from memory";
  struct iovec v = {gift, sizeof gift - 1};
  show("vmsplice(memory -> pipe)", vmsplice(p[1], &v, 1, 0));
  memset(buf, 0, sizeof buf);
  show("  read the pipe", read(p[0], buf, sizeof buf));
  printf("  '%s'\n", buf);
  write(p[1], "back out", 8);
  char out[16] = {0};
  struct iovec w = {out, sizeof out - 1};
  show("vmsplice(pipe -> memory)", vmsplice(p[0], &w, 1, 0));
  printf("  '%s'\n", out);
  show("splice(bad offset pointer)", syscall(SYS_splice, file, (void *)8, p[1], NULL, 1, 0));
  show("splice(two files)", splice(file, NULL, file, NULL, 1, 0));
  close(file), close(p[0]), close(p[1]), close(q[0]), close(q[1]);
}

/* ADDR_NO_RANDOMIZE set, then seen by a query and by the image an exec runs. */
static void persona(void) {
  long was = syscall(SYS_personality, 0xffffffffUL);
  show("personality(query)", was);
  unsigned long no_randomize = (unsigned long)was | 0x0040000;
  show("personality(| ADDR_NO_RANDOMIZE)", syscall(SYS_personality, no_randomize));
  show("personality(query)", syscall(SYS_personality, 0xffffffffUL));
  show("personality(back)", syscall(SYS_personality, (unsigned long)was));
}

/* VmLck of /proc/self/status: the kilobytes the process has locked. */
static long locked_kb(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmLck: %ld", &kb) == 1) break;
  if (f) fclose(f);
  return kb;
}

static void memory_lock(void) {
  static char page[4096] __attribute__((aligned(4096)));
  show("mlock2(a page)", mlock2(page, sizeof page, 0));
  show("munlock", munlock(page, sizeof page));
  show("mlock2(bad flags)", mlock2(page, sizeof page, 0x80));
  show("mlockall(0)", mlockall(0));
  show("mlockall(MCL_ONFAULT)", mlockall(MCL_ONFAULT));
  show("mlockall(8)", mlockall(8));
  long before = locked_kb();
  show("mlockall(MCL_CURRENT)", mlockall(MCL_CURRENT));
  long current = locked_kb();
  printf("  locked more %d\n", current > before);
  size_t mib = 1 << 20;
  char *m = mmap(NULL, mib, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  printf("  a later mmap locked: %ld kB\n", locked_kb() - current);
  munmap(m, mib);
  show("munlockall", munlockall());
  printf("  locked now %ld kB\n", locked_kb());
  show("mlockall(MCL_FUTURE)", mlockall(MCL_FUTURE));
  printf("  locked now %ld kB\n", locked_kb());
  m = mmap(NULL, mib, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  printf("  a later mmap locked: %ld kB\n", locked_kb());
  long with_mmap = locked_kb();
  char *brk0 = sbrk(0);
  sbrk(64 << 10);
  printf("  the break grown by 64 kB locked: %ld kB\n", locked_kb() - with_mmap);
  brk(brk0);
  pid_t child = fork();
  if (child == 0) {
    long had = locked_kb();
    char *more = mmap(NULL, mib, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    printf("  in a child: %ld kB locked, after its mmap %ld kB\n", had, locked_kb());
    munmap(more, mib);
    _exit(0);
  }
  waitpid(child, NULL, 0);
  munmap(m, mib);
  printf("  after munmap %ld kB\n", locked_kb());
  show("munlockall", munlockall());
  m = mmap(NULL, mib, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  printf("  a later mmap locked: %ld kB\n", locked_kb());
  munmap(m, mib);
  /* Without CAP_IPC_LOCK, under a 4 MiB RLIMIT_MEMLOCK: a small program's mappings fit,
   * its stack counted as far as it has grown, not as far as it may. */
  child = fork();
  if (child == 0) {
    struct rlimit four = {4 << 20, 4 << 20};
    setrlimit(RLIMIT_MEMLOCK, &four);
    if (getuid() == 0 && setuid(65534) != 0) _exit(1);
    show("  mlockall(MCL_CURRENT) as a user", mlockall(MCL_CURRENT));
    munlockall();
    _exit(0);
  }
  waitpid(child, NULL, 0);
}

/* The old getdents: struct linux_dirent, d_type in the record's last byte. */
static int by_name(const void *x, const void *y) { return strcmp(x, y); }

static void old_getdents(void) {
  char dir[64], path[96];
  snprintf(dir, sizeof dir, "/tmp/x64emu-getdents-%d", getpid());
  mkdir(dir, 0700);
  const char *files[] = {"a", "bb", "a-rather-longer-name-than-the-others"};
  for (int i = 0; i < 3; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, files[i]);
    close(open(path, O_CREAT | O_WRONLY, 0600));
  }
  snprintf(path, sizeof path, "%s/sub", dir);
  mkdir(path, 0700);
  snprintf(path, sizeof path, "%s/ln", dir);
  symlink("a", path);
  int fd = open(dir, O_RDONLY | O_DIRECTORY);
  char names[16][64];
  int n = 0;
  long got;
  uint8_t buf[72] __attribute__((aligned(8))); /* a few records a call */
  while ((got = syscall(SYS_getdents, fd, buf, sizeof buf)) > 0) {
    for (long at = 0; at < got;) {
      uint16_t reclen;
      memcpy(&reclen, buf + at + 16, 2);
      if (n < 16) snprintf(names[n++], 64, "%s type %d", (char *)buf + at + 18, buf[at + reclen - 1]);
      at += reclen;
    }
  }
  show("getdents (the old call), at the end", got);
  qsort(names, (size_t)n, sizeof names[0], by_name);
  for (int i = 0; i < n; i++) printf("  %s\n", names[i]);
  lseek(fd, 0, SEEK_SET);
  show("  getdents(10-byte buffer)", syscall(SYS_getdents, fd, buf, 10));
  show("  getdents(bad buffer)", syscall(SYS_getdents, fd, (void *)8, 4096));
  close(fd);
  for (int i = 0; i < 3; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, files[i]);
    unlink(path);
  }
  snprintf(path, sizeof path, "%s/ln", dir);
  unlink(path);
  snprintf(path, sizeof path, "%s/sub", dir);
  rmdir(path);
  rmdir(dir);
}

/* Process relations: membarrier, kcmp, pidfd_getfd, the host's name, the scheduling
 * attributes, the kernel's log and the clock's discipline (process_vm_readv and
 * namespaces: other_processes.c). */
static void processes(void) {
  show("membarrier(QUERY) > 0", syscall(SYS_membarrier, 0, 0, 0) > 0);
  show("membarrier(REGISTER_PRIVATE_EXPEDITED)", syscall(SYS_membarrier, 1 << 4, 0, 0));
  show("membarrier(PRIVATE_EXPEDITED)", syscall(SYS_membarrier, 1 << 3, 0, 0));
  show("membarrier(bad)", syscall(SYS_membarrier, 1 << 30, 0, 0));
  /* The rseq commands exactly where rseq itself is (natively glibc has registered it and
   * a second registration is refused; x64emu has none, as a kernel without CONFIG_RSEQ). */
  int has_rseq = syscall(SYS_rseq, NULL, 0, 0, 0) == 0 || errno != ENOSYS;
  long query = syscall(SYS_membarrier, 0, 0, 0);
  show("membarrier(QUERY) has RSEQ iff rseq", ((query & (3 << 7)) == 3 << 7) == has_rseq);
  long reg_rseq = syscall(SYS_membarrier, 1 << 8, 0, 0);
  show("membarrier(REGISTER_..._RSEQ) iff rseq", (reg_rseq == 0) == has_rseq);
  show("membarrier(PRIVATE_EXPEDITED_RSEQ) iff rseq",
       (syscall(SYS_membarrier, 1 << 7, 0, 0) == 0) == has_rseq);

  /* ptrace: x64emu refuses tracing as a kernel may (Yama's ptrace_scope 3); natively a
   * child may ask to be traced. Either way, nobody else's process is a tracee. */
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    long me = syscall(SYS_ptrace, 0 /* TRACEME */, 0, 0, 0);
    show("ptrace(TRACEME) allowed or EPERM", me == 0 || errno == EPERM);
    show("ptrace(PEEKDATA, parent)", syscall(SYS_ptrace, 2, getppid(), 0, 0));
    show("ptrace(CONT, no such process)", syscall(SYS_ptrace, 7, 999999999, 0, 0));
    fflush(stdout);
    _exit(0);
  }
  waitpid(child, NULL, 0);

  int dup_out = dup(1);
  show("kcmp(self, self, VM)", syscall(SYS_kcmp, getpid(), getpid(), 1, 0, 0));
  show("kcmp(self, self, FILE 1 and its dup)", syscall(SYS_kcmp, getpid(), getpid(), 0, 1, dup_out));
  int ep = epoll_create1(EPOLL_CLOEXEC), watched[2];
  if (pipe(watched) != 0) return;
  struct epoll_event ev = {.events = EPOLLIN};
  epoll_ctl(ep, EPOLL_CTL_ADD, watched[0], &ev);
  uint32_t slot[3] = {(uint32_t)ep, (uint32_t)watched[0], 0};
  show("kcmp(EPOLL_TFD, the watched pipe)", syscall(SYS_kcmp, getpid(), getpid(), 7, watched[0], slot));
  show("kcmp(EPOLL_TFD, bad slot)", syscall(SYS_kcmp, getpid(), getpid(), 7, watched[0], (void *)8));
  close(ep), close(watched[0]), close(watched[1]);

  int pfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
  int got = (int)syscall(SYS_pidfd_getfd, pfd, dup_out, 0);
  show("pidfd_getfd(self, the dup)", got >= 0);
  show("  kcmp(FILE, it and the dup)", syscall(SYS_kcmp, getpid(), getpid(), 0, got, dup_out));
  show("pidfd_getfd(bad fd)", syscall(SYS_pidfd_getfd, pfd, 999, 0));
  close(got), close(pfd), close(dup_out);

  static const char long_name[80] = "x";
  show("sethostname(length -1)", syscall(SYS_sethostname, long_name, -1));
  show("sethostname(length 65)", sethostname(long_name, 65));
  show("setdomainname(length 65)", setdomainname(long_name, 65));

  uint32_t attr[14] = {0};
  show("sched_getattr(self)", syscall(SYS_sched_getattr, 0, attr, sizeof attr, 0));
  printf("  size %u policy %u\n", attr[0], attr[1]);
  show("sched_getattr(size 10)", syscall(SYS_sched_getattr, 0, attr, 10, 0));
  attr[0] = 48;
  show("sched_setattr(self, as it is)", syscall(SYS_sched_setattr, 0, attr, 0));
  attr[0] = 8;
  show("sched_setattr(size 8)", syscall(SYS_sched_setattr, 0, attr, 0));
  printf("  the kernel's size written back %u\n", attr[0]);
  show("sched_setattr(bad)", syscall(SYS_sched_setattr, 0, (void *)8, 0));

  char log[64];
  long size = syscall(SYS_syslog, 10, NULL, 0);
  show("syslog(SIZE_BUFFER) > 0", size < 0 ? size : size > 0);
  long n = syscall(SYS_syslog, 3, log, sizeof log);
  show("syslog(READ_ALL, 64)", n);
  show("syslog(READ_ALL, bad buffer)", syscall(SYS_syslog, 3, (void *)8, 64));
  show("syslog(READ_ALL, null)", syscall(SYS_syslog, 3, NULL, 64));
  show("syslog(READ_ALL, 0 bytes)", syscall(SYS_syslog, 3, log, 0));
  show("syslog(READ_ALL, null, 0 bytes)", syscall(SYS_syslog, 3, NULL, 0));
  show("syslog(bad type)", syscall(SYS_syslog, 99, NULL, 0));

  struct timex tx = {.modes = 0};
  long state = adjtimex(&tx);
  show("adjtimex(query)", state);
  printf("  its time is now's %d\n", labs(tx.time.tv_sec - time(NULL)) <= 1);
  show("clock_adjtime(bad clock)", syscall(SYS_clock_adjtime, 99, &tx));
  show("adjtimex(bad)", syscall(SYS_adjtimex, (void *)8));
}

static void file_sync(void) {
  int fd = open("/proc/self/exe", O_RDONLY);
  show("syncfs", syncfs(fd));
  show("sync_file_range", sync_file_range(fd, 0, 4096, SYNC_FILE_RANGE_WAIT_BEFORE));
  show("sync_file_range(bad flags)", sync_file_range(fd, 0, 4096, 0x80));
  show("readahead", readahead(fd, 0, 65536));
  show("readahead(bad fd)", readahead(-1, 0, 1));
  close(fd);
}

static void many_messages(void) {
  int sv[2];
  socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
  char a[3][4] = {"one", "two", "six"}, b[3][8] = {"-first", "-second", "-third"};
  struct iovec out_iov[3][2];
  struct mmsghdr out[3];
  memset(out, 0, sizeof out);
  for (int i = 0; i < 3; i++) {
    out_iov[i][0] = (struct iovec){a[i], 3};
    out_iov[i][1] = (struct iovec){b[i], strlen(b[i])};
    out[i].msg_hdr.msg_iov = out_iov[i];
    out[i].msg_hdr.msg_iovlen = 2;
  }
  show("sendmmsg(3 messages)", sendmmsg(sv[0], out, 3, 0));
  for (int i = 0; i < 3; i++) printf("  sent %u bytes\n", out[i].msg_len);
  show("sendmmsg(none)", sendmmsg(sv[0], out, 0, 0));
  show("sendmmsg(bad vector)", syscall(SYS_sendmmsg, sv[0], (void *)8, 2, 0));
  char in_buf[4][16];
  struct iovec in_iov[4];
  struct mmsghdr in[4];
  memset(in, 0, sizeof in);
  memset(in_buf, 0, sizeof in_buf);
  for (int i = 0; i < 4; i++) {
    in_iov[i] = (struct iovec){in_buf[i], i == 2 ? 5 : sizeof in_buf[i]};
    in[i].msg_hdr.msg_iov = &in_iov[i];
    in[i].msg_hdr.msg_iovlen = 1;
  }
  show("recvmmsg(4, MSG_DONTWAIT)", recvmmsg(sv[1], in, 4, MSG_DONTWAIT, NULL));
  for (int i = 0; i < 4; i++)
    printf("  got %u bytes '%.16s' flags %#x\n", in[i].msg_len, in_buf[i], in[i].msg_hdr.msg_flags);
  show("recvmmsg(nothing left)", recvmmsg(sv[1], in, 4, MSG_DONTWAIT, NULL));
  close(sv[0]);
  close(sv[1]);
}

/* 1,500 pipes whose write ends are all ready: one epoll_wait returns every one. */
static void many_events(void) {
  enum { PIPES = 1500 };
  struct rlimit rl = {4 * PIPES, 4 * PIPES};
  getrlimit(RLIMIT_NOFILE, &rl);
  if (rl.rlim_max < 4 * PIPES) {
    printf("epoll: descriptor limit too low\n");
    return;
  }
  rl.rlim_cur = 4 * PIPES;
  setrlimit(RLIMIT_NOFILE, &rl);
  int ep = epoll_create1(0), fds[PIPES][2];
  for (int i = 0; i < PIPES; i++) {
    if (pipe(fds[i]) < 0) return;
    struct epoll_event e = {EPOLLOUT, {.u32 = (uint32_t)i}};
    epoll_ctl(ep, EPOLL_CTL_ADD, fds[i][1], &e);
  }
  static struct epoll_event got[2 * PIPES];
  long n = epoll_wait(ep, got, 2 * PIPES, 0);
  long sum = 0;
  for (long i = 0; i < n; i++) sum += got[i].data.u32;
  printf("epoll_wait(%d pipes ready)              %ld events, data summing to %ld\n", PIPES, n,
         sum);
  for (int i = 0; i < PIPES; i++) close(fds[i][0]), close(fds[i][1]);
  close(ep);
}

/* PR_SET_TSC: with PR_TSC_SIGSEGV the thread's RDTSC is #GP, SIGSEGV with SI_KERNEL. */
static sigjmp_buf tsc_back;
static volatile int tsc_signal, tsc_code;

static void on_tsc_fault(int sig, siginfo_t *si, void *uc) {
  (void)uc;
  tsc_signal = sig;
  tsc_code = si->si_code;
  siglongjmp(tsc_back, 1);
}

static void rdtsc_once(void) {
  if (sigsetjmp(tsc_back, 1) == 0) {
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    printf("  rdtsc ran\n");
  } else {
    printf("  rdtsc: signal %d, si_code %d\n", tsc_signal, tsc_code);
  }
}

static void tsc_mode(void) {
  int mode = 0;
  show("prctl(PR_GET_TSC)", prctl(PR_GET_TSC, &mode, 0, 0, 0));
  printf("  mode %d\n", mode);
  show("prctl(PR_SET_TSC, 3)", prctl(PR_SET_TSC, 3, 0, 0, 0));
  struct sigaction sa = {.sa_sigaction = on_tsc_fault, .sa_flags = SA_SIGINFO}, old;
  sigaction(SIGSEGV, &sa, &old);
  show("prctl(PR_SET_TSC, PR_TSC_SIGSEGV)", prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0));
  /* A hypervisor may let it run natively (host_traits.c); unit.test_syscall_proc shows it. */
  const char *tsd = getenv("X64EMU_TEST_HOST_TSD");
  if (!tsd || strcmp(tsd, "0") != 0) rdtsc_once();
  prctl(PR_GET_TSC, &mode, 0, 0, 0);
  printf("  mode %d\n", mode);
  show("prctl(PR_SET_TSC, PR_TSC_ENABLE)", prctl(PR_SET_TSC, PR_TSC_ENABLE, 0, 0, 0));
  rdtsc_once();
  sigaction(SIGSEGV, &old, NULL);
  /* The mode is the thread's, kept across execve (the new image prints it). */
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0);
    execl("/proc/self/exe", "syscall_misc", "tsc-mode", (char *)NULL);
    _exit(127);
  }
  int status;
  waitpid(child, &status, 0);
  printf("  exit status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* Runs this program again through a descriptor that closes on exec; the new image lists
 * which descriptors from 3 on it has. */
static void exec_through_descriptor(const char *self_arg) {
  int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  int kept = open("/dev/null", O_RDONLY);
  printf("fexecve: close-on-exec fd %d, open fd %d\n", fd, kept);
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    char *argv[] = {"syscall_misc", (char *)self_arg, NULL}, *envp[] = {NULL};
    fexecve(fd, argv, envp);
    _exit(127);
  }
  int status;
  waitpid(child, &status, 0);
  printf("  exit status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  close(fd);
  close(kept);
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "list-fds") == 0) {
    for (int fd = 3; fd < 12; fd++)
      if (fcntl(fd, F_GETFD) >= 0) printf("  the new image has fd %d\n", fd);
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "tsc-mode") == 0) {
    int mode = 0;
    prctl(PR_GET_TSC, &mode, 0, 0, 0);
    printf("  after execve: mode %d\n", mode);
    return 0;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  eventfds();
  timerfds();
  signalfds();
  inotifies();
  pidfds();
  scheduling();
  capabilities();
  io_priority();
  clocks();
  persona();
  memory_lock();
  splices();
  file_sync();
  old_getdents();
  processes();
  many_messages();
  many_events();
  tsc_mode();
  exec_through_descriptor("list-fds");
  return 0;
}
