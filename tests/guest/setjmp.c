/* setjmp.c: setjmp/longjmp and sigsetjmp/siglongjmp across frames (glibc mangles the saved
 * pointers with a guard kept in the thread block at %fs). */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>

static jmp_buf env;
static sigjmp_buf senv;
static int depth_reached;

static void dive(int depth) {
  volatile char pad[64];
  pad[0] = (char)depth;
  depth_reached = depth + pad[0] - pad[0];
  if (depth == 50) longjmp(env, depth);
  if (depth < 100) dive(depth + 1);
}

static void jump_with_zero(void) { longjmp(env, 0); }

static int blocked(int sig) {
  sigset_t now;
  sigprocmask(SIG_BLOCK, NULL, &now);
  return sigismember(&now, sig);
}

int main(void) {
  volatile int counter = 0;
  int r = setjmp(env);
  counter++;
  printf("setjmp returned %d, counter %d\n", r, counter);
  if (r == 0) dive(0);
  printf("came back from depth %d\n", depth_reached);

  r = setjmp(env);
  if (r == 0) jump_with_zero();
  printf("longjmp(env, 0) makes setjmp return %d\n", r);

  /* A loop driven by longjmp. */
  volatile int loops = 0;
  if (setjmp(env) < 10) {
    loops++;
    longjmp(env, loops);
  }
  printf("longjmp loop ran %d times\n", loops);

  /* sigsetjmp with savemask restores the signal mask; without, it leaves it. */
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  if (sigsetjmp(senv, 1) == 0) {
    sigprocmask(SIG_BLOCK, &usr1, NULL);
    printf("SIGUSR1 blocked before siglongjmp: %d\n", blocked(SIGUSR1));
    siglongjmp(senv, 1);
  }
  printf("after siglongjmp with saved mask, blocked: %d\n", blocked(SIGUSR1));
  if (sigsetjmp(senv, 0) == 0) {
    sigprocmask(SIG_BLOCK, &usr1, NULL);
    siglongjmp(senv, 1);
  }
  printf("after siglongjmp without saved mask, blocked: %d\n", blocked(SIGUSR1));

  volatile double d = 1.5;
  if (setjmp(env) == 0) {
    d *= 2;
    longjmp(env, 1);
  }
  printf("volatile double kept: %g\n", d);
  return 0;
}
