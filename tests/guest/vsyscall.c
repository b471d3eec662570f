/* vsyscall.c: the legacy vsyscall page, as old static programs (dietlibc's) call it:
 * gettimeofday at 0xffffffffff600000, time at ...400, getcpu at ...800, each returning to
 * its caller as the kernel's vsyscall=emulate does; a call elsewhere in the page, and a
 * buffer that cannot be written, are SIGSEGV. */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static sigjmp_buf back;

static void on_segv(int sig, siginfo_t *si, void *uc) {
  (void)sig, (void)uc;
  printf("  SIGSEGV si_code=%d si_addr=%#lx\n", si->si_code, (unsigned long)(uintptr_t)si->si_addr);
  siglongjmp(back, 1);
}

typedef long (*gettimeofday_fn)(struct timeval *, void *);
typedef long (*time_fn)(long *);
typedef long (*getcpu_fn)(unsigned *, unsigned *, void *);

int main(void) {
  gettimeofday_fn vgettimeofday = (gettimeofday_fn)0xffffffffff600000ul;
  time_fn vtime = (time_fn)0xffffffffff600400ul;
  getcpu_fn vgetcpu = (getcpu_fn)0xffffffffff600800ul;

  struct timeval tv = {0, 0};
  long r = vgettimeofday(&tv, NULL);
  printf("gettimeofday: %ld, near time(): %d, usec in range: %d\n", r,
         labs(tv.tv_sec - time(NULL)) <= 2, tv.tv_usec >= 0 && tv.tv_usec < 1000000);
  printf("gettimeofday(NULL, NULL): %ld\n", vgettimeofday(NULL, NULL));

  long t2 = 0, t = vtime(&t2);
  printf("time: near time(): %d, stored: %d\n", labs(t - time(NULL)) <= 2, t == t2);
  printf("time(NULL) near time(): %d\n", labs(vtime(NULL) - time(NULL)) <= 2);

  unsigned cpu = ~0u, node = ~0u;
  r = vgetcpu(&cpu, &node, NULL);
  printf("getcpu: %ld, cpu set: %d, node set: %d\n", r, cpu < 4096, node < 4096);

  struct sigaction sa = {.sa_sigaction = on_segv, .sa_flags = SA_SIGINFO | SA_NODEFER};
  sigaction(SIGSEGV, &sa, NULL);
  printf("a call into the middle of the page:\n");
  if (!sigsetjmp(back, 1)) ((time_fn)0xffffffffff600100ul)(NULL);
  printf("gettimeofday into an unmapped buffer:\n");
  if (!sigsetjmp(back, 1)) vgettimeofday((struct timeval *)8, NULL);
  printf("time into an unmapped buffer:\n");
  if (!sigsetjmp(back, 1)) vtime((long *)16);
  printf("getcpu into a kernel address:\n");
  if (!sigsetjmp(back, 1)) vgetcpu((unsigned *)0xffff800000001000ul, NULL, NULL);
  return 0;
}
