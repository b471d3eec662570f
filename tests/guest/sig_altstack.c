/* sig_altstack.c: sigaltstack. SA_ONSTACK handlers run on the alternate stack (others on
 * the normal one), nest on it, see SS_ONSTACK and cannot change it (EPERM); SS_DISABLE,
 * SS_AUTODISARM, the size and flag checks; a stack overflow caught on the alternate stack. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define ALT_SIZE (64 * 1024)
#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1u << 31) /* linux/signal.h; glibc does not define it */
#endif
static char *alt;

static struct {
  int on_alt, flags_inside, change_errno, nested_on_alt, nested_deeper;
  uintptr_t local;
} seen;

static int on_alt(const void *p) {
  return (const char *)p >= alt && (const char *)p < alt + ALT_SIZE;
}

static void on_hup(int sig) {
  (void)sig;
  char local;
  seen.nested_on_alt = on_alt(&local);
  seen.nested_deeper = (uintptr_t)&local < seen.local;
}

static void on_usr1(int sig) {
  (void)sig;
  char local;
  seen.on_alt = on_alt(&local);
  seen.local = (uintptr_t)&local;
  stack_t cur, other = {.ss_sp = malloc(ALT_SIZE), .ss_size = ALT_SIZE};
  sigaltstack(NULL, &cur);
  seen.flags_inside = cur.ss_flags;
  seen.change_errno = sigaltstack(&other, NULL) == 0 ? 0 : errno;
  raise(SIGHUP);
}

static sigjmp_buf out;
static volatile int overflow_on_alt;

static void on_segv(int sig) {
  (void)sig;
  char local;
  overflow_on_alt = on_alt(&local);
  siglongjmp(out, 1);
}

static int recurse(int depth) {
  volatile char frame[1024];
  frame[0] = frame[1023] = (char)depth;
  if (depth > 1000000) return 0;
  return recurse(depth + 1) + frame[0];
}

static void handle(int sig, void (*fn)(int), int flags) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = fn;
  sa.sa_flags = flags;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, NULL);
}

static void show_stack(const char *when) {
  stack_t ss;
  sigaltstack(NULL, &ss);
  printf("%s: sp %s, size %zu, flags %#x\n", when,
         ss.ss_sp == alt ? "the buffer" : ss.ss_sp ? "other" : "NULL", ss.ss_size,
         (unsigned)ss.ss_flags);
}

int main(void) {
  alt = malloc(ALT_SIZE);
  show_stack("at start");
  handle(SIGUSR1, on_usr1, SA_ONSTACK);
  handle(SIGHUP, on_hup, SA_ONSTACK);

  raise(SIGUSR1);
  printf("SA_ONSTACK without an alternate stack: on it %d\n", seen.on_alt);

  stack_t ss = {.ss_sp = alt, .ss_size = 1024};
  int r = sigaltstack(&ss, NULL);
  printf("too small: %s\n", r == -1 && errno == ENOMEM ? "ENOMEM" : "accepted");
  ss.ss_size = ALT_SIZE;
  ss.ss_flags = 7;
  r = sigaltstack(&ss, NULL);
  printf("bad flags: %s\n", r == -1 && errno == EINVAL ? "EINVAL" : "accepted");
  ss.ss_flags = 0;
  printf("set: %d\n", sigaltstack(&ss, NULL));
  show_stack("after setting");

  memset(&seen, 0, sizeof seen);
  raise(SIGUSR1);
  printf("SA_ONSTACK handler: on the alternate stack %d, flags inside %#x, changing it: %s\n",
         seen.on_alt, (unsigned)seen.flags_inside,
         seen.change_errno == EPERM ? "EPERM" : strerror(seen.change_errno));
  printf("nested SA_ONSTACK handler: on the alternate stack %d, below the first %d\n",
         seen.nested_on_alt, seen.nested_deeper);

  handle(SIGUSR1, on_usr1, 0);
  memset(&seen, 0, sizeof seen);
  raise(SIGUSR1);
  printf("handler without SA_ONSTACK: on the alternate stack %d; its nested SA_ONSTACK one %d\n",
         seen.on_alt, seen.nested_on_alt);

  handle(SIGUSR1, on_usr1, SA_ONSTACK);
  ss.ss_flags = SS_AUTODISARM;
  sigaltstack(&ss, NULL);
  show_stack("SS_AUTODISARM");
  memset(&seen, 0, sizeof seen);
  raise(SIGUSR1);
  printf("SS_AUTODISARM handler: on it %d, flags inside %#x, changing it: %s\n", seen.on_alt,
         (unsigned)seen.flags_inside, seen.change_errno ? strerror(seen.change_errno) : "allowed");
  show_stack("after the handler");

  ss.ss_flags = SS_DISABLE;
  sigaltstack(&ss, NULL);
  show_stack("SS_DISABLE");
  memset(&seen, 0, sizeof seen);
  raise(SIGUSR1);
  printf("SA_ONSTACK with the stack disabled: on it %d\n", seen.on_alt);

  /* A stack overflow can only be handled on another stack. */
  struct rlimit lim = {8 << 20, RLIM_INFINITY};
  getrlimit(RLIMIT_STACK, &lim);
  if (lim.rlim_cur == RLIM_INFINITY || lim.rlim_cur > (8 << 20)) {
    lim.rlim_cur = 8 << 20;
    setrlimit(RLIMIT_STACK, &lim);
  }
  ss.ss_flags = 0;
  sigaltstack(&ss, NULL);
  handle(SIGSEGV, on_segv, SA_ONSTACK);
  if (sigsetjmp(out, 1) == 0) recurse(0);
  printf("stack overflow caught, on the alternate stack %d\n", overflow_on_alt);
  show_stack("after leaving it with siglongjmp");
  return 0;
}
