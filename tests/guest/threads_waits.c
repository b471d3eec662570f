/* threads_waits.c: calls that wait for another thread of the same process, which must
 * run meanwhile: a FIFO's open waits for its other end, an open file description lock
 * for its holder, a POSIX lock for another process that waits for this one; and calls
 * that wait for the disk alone. Compared with a native run (each wait ends, in this
 * order). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[] = "/tmp/threads_waits.XXXXXX";
static char fifo[64], file[64];

static void pause_ms(long ms) {
  struct timespec t = {0, ms * 1000000};
  nanosleep(&t, NULL);
}

/* ---- a FIFO opened by two threads: whichever opens first waits for the other ---- */

static void *fifo_writer(void *arg) {
  int fd = open(fifo, O_WRONLY);
  if (fd < 0 || write(fd, "through the FIFO", 16) != 16) perror("writer");
  close(fd);
  return arg;
}

static void *fifo_reader(void *arg) {
  char buf[32] = {0};
  int fd = open(fifo, O_RDONLY);
  if (fd < 0 || read(fd, buf, sizeof buf - 1) < 0) perror("reader");
  printf("reader thread read: %s\n", buf);
  close(fd);
  return arg;
}

static void fifo_opens(void) {
  pthread_t t;
  pthread_create(&t, NULL, fifo_writer, NULL);
  char buf[32] = {0};
  int fd = open(fifo, O_RDONLY); /* waits for the writer thread's open */
  if (fd < 0 || read(fd, buf, sizeof buf - 1) < 0) perror("main reader");
  printf("main thread read: %s\n", buf);
  close(fd);
  pthread_join(t, NULL);

  pthread_create(&t, NULL, fifo_reader, NULL);
  pause_ms(50); /* most often the reader thread waits in its open first */
  fd = open(fifo, O_WRONLY);
  if (fd < 0 || write(fd, "the other way", 13) != 13) perror("main writer");
  close(fd);
  pthread_join(t, NULL);
}

/* ---- an OFD lock: the second description's wait ends when the first's holder unlocks ---- */

static volatile int unlocked;

static int ofd_lock(int fd, short type, int cmd) {
  struct flock l = {.l_type = type, .l_whence = SEEK_SET};
  return fcntl(fd, cmd, &l);
}

static void *ofd_waiter(void *arg) {
  int fd = open(file, O_RDWR);
  int r = ofd_lock(fd, F_WRLCK, F_OFD_SETLKW);
  printf("waiter's OFD lock: %d, after the holder unlocked: %s\n", r, unlocked ? "yes" : "no");
  close(fd);
  return arg;
}

static void ofd_locks(void) {
  int fd = open(file, O_RDWR | O_CREAT, 0600);
  printf("holder's OFD lock: %d\n", ofd_lock(fd, F_WRLCK, F_OFD_SETLK));
  pthread_t t;
  pthread_create(&t, NULL, ofd_waiter, NULL);
  pause_ms(100);
  int other = open(file, O_RDWR);
  printf("a third description's try while held: %d\n", ofd_lock(other, F_WRLCK, F_OFD_SETLK));
  close(other);
  unlocked = 1;
  ofd_lock(fd, F_UNLCK, F_OFD_SETLK);
  pthread_join(t, NULL);
  close(fd);
}

/* ---- a POSIX lock held by a child until this process's other thread writes to it ---- */

static int to_child[2];

static void *poke_child(void *arg) {
  pause_ms(100); /* the main thread is waiting for the lock by now, most often */
  if (write(to_child[1], "go", 2) != 2) perror("poke");
  return arg;
}

static void posix_locks(void) {
  int ready[2];
  if (pipe(to_child) || pipe(ready)) return;
  pid_t child = fork();
  if (child == 0) {
    int fd = open(file, O_RDWR);
    struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    fcntl(fd, F_SETLK, &l);
    if (write(ready[1], "l", 1) != 1) _exit(1);
    char go[2];
    if (read(to_child[0], go, 2) != 2) _exit(1);
    _exit(0); /* the lock goes with the process */
  }
  char l;
  if (read(ready[0], &l, 1) != 1) return;
  pthread_t t;
  pthread_create(&t, NULL, poke_child, NULL);
  int fd = open(file, O_RDWR);
  struct flock want = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
  printf("POSIX lock after the child let go: %d\n", fcntl(fd, F_SETLKW, &want));
  int status;
  waitpid(child, &status, 0);
  printf("child exited %d\n", WEXITSTATUS(status));
  pthread_join(t, NULL);
  close(fd);
}

/* ---- calls that wait for the disk, from two threads at once ---- */

static int copy_to;

static void *disk_calls(void *arg) {
  long n = (long)arg;
  char name[80], text[32];
  snprintf(name, sizeof name, "%s/disk%ld", dir, n);
  int fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0600);
  int len = snprintf(text, sizeof text, "written by thread %ld\n", n);
  long r = fallocate(fd, 0, 0, 4096) | (write(fd, text, len) != len) | fdatasync(fd) | fsync(fd) |
           sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
  loff_t from = 0, to = n * len;
  r |= copy_file_range(fd, &from, copy_to, &to, len, 0) != len;
  close(fd);
  unlink(name);
  return (void *)r;
}

static void disk_waits(void) {
  char name[80], text[64] = {0};
  snprintf(name, sizeof name, "%s/copies", dir);
  copy_to = open(name, O_RDWR | O_CREAT | O_TRUNC, 0600);
  pthread_t t[2];
  void *r[2];
  for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, disk_calls, (void *)i);
  for (int i = 0; i < 2; i++) pthread_join(t[i], &r[i]);
  sync();
  printf("disk calls from two threads: %ld %ld, then:\n", (long)r[0], (long)r[1]);
  if (pread(copy_to, text, sizeof text - 1, 0) > 0) fputs(text, stdout);
  close(copy_to);
  unlink(name);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  if (!mkdtemp(dir)) return 1;
  snprintf(fifo, sizeof fifo, "%s/fifo", dir);
  snprintf(file, sizeof file, "%s/file", dir);
  if (mkfifo(fifo, 0600)) return 1;
  fifo_opens();
  ofd_locks();
  posix_locks();
  disk_waits();
  unlink(fifo);
  unlink(file);
  rmdir(dir);
  return 0;
}
