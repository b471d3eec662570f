/* host_traits.c: run natively by compare.sh (--traits), prints what of the host, besides
 * its vendor, decides how a guest test's native run behaves, as VAR=VALUE lines that both
 * runs then get in their environment; a program leaves out the cases that depend on a
 * trait the host lacks and the CPU model has (docs/cpu-model.md). Under a hypervisor that
 * runs the guest kernel paravirtualised, both were seen missing:
 *   X64EMU_TEST_HOST_UMIP       1 when the kernel runs with UMIP (its "umip" flag), so
 *                               that SGDT, SIDT, SLDT, STR and SMSW reach its emulation
 *   X64EMU_TEST_HOST_USER32_CS  1 when the GDT holds Linux's 32-bit user code segment
 *                               (LAR accepts selector 0x23)
 *   X64EMU_TEST_HOST_INT_QUIRKS the vectors n, in hex, for which INT n is not what the
 *                               kernel makes of the CPU's #GP (SIGSEGV, SI_KERNEL, at the
 *                               instruction), INT3, INTO and INT 0x80 aside: empty on a
 *                               CPU of its own; 17 19 1a 1b were seen under one such
 *                               hypervisor (trap-like signals, one that returns)
 *   X64EMU_TEST_HOST_TSD        1 when prctl(PR_SET_TSC, PR_TSC_SIGSEGV) makes RDTSC fault
 *                               (CR4.TSD); such a hypervisor let it run */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <ucontext.h>

static int kernel_has_umip(void) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[8192];
  int found = 0;
  while (f && !found && fgets(line, sizeof line, f))
    if (!strncmp(line, "flags", 5)) found = strstr(line, " umip") ? 1 : 0;
  if (f) fclose(f);
  return found;
}

static int gdt_has_user32_cs(void) {
  unsigned selector = 0x23, rights = 0;
  unsigned char valid;
  __asm__ volatile("lar %2, %0; setz %1" : "=r"(rights), "=q"(valid) : "r"(selector) : "cc");
  return valid;
}

static sigjmp_buf back;
static int caught, caught_code;
static uintptr_t caught_rip;

static void on_signal(int sig, siginfo_t *si, void *ucv) {
  ucontext_t *uc = ucv;
  caught = sig;
  caught_code = si->si_code;
  caught_rip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
  siglongjmp(back, 1);
}

/* Prints the vectors whose INT n, run from a page of its own, is not #GP at the INT. */
static void print_int_quirks(void) {
  struct sigaction sa = {.sa_sigaction = on_signal, .sa_flags = SA_SIGINFO | SA_NODEFER};
  for (int sig = 1; sig < 32; sig++)
    if (sig != SIGKILL && sig != SIGSTOP) sigaction(sig, &sa, NULL);
  uint8_t *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  printf("X64EMU_TEST_HOST_INT_QUIRKS=");
  const char *sep = "";
  for (int n = 0; code != MAP_FAILED && n < 256; n++) {
    if (n == 3 || n == 4 || n == 0x80) continue;
    memcpy(code, (uint8_t[]){0xCD, (uint8_t)n, 0xC3}, 3);
    caught = 0;
    if (!sigsetjmp(back, 1)) ((void (*)(void))code)();
    if (caught != SIGSEGV || caught_code != SI_KERNEL || caught_rip != (uintptr_t)code) {
      printf("%s%02x", sep, n);
      sep = " ";
    }
  }
  printf("\n");
  struct sigaction dfl = {.sa_handler = SIG_DFL};
  for (int sig = 1; sig < 32; sig++)
    if (sig != SIGKILL && sig != SIGSTOP) sigaction(sig, &dfl, NULL);
}

/* Whether RDTSC faults once the thread asks for it to (PR_TSC_SIGSEGV). */
static int rdtsc_can_fault(void) {
  struct sigaction sa = {.sa_sigaction = on_signal, .sa_flags = SA_SIGINFO | SA_NODEFER}, old;
  sigaction(SIGSEGV, &sa, &old);
  caught = 0;
  if (prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0) == 0 && !sigsetjmp(back, 1)) {
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
  }
  prctl(PR_SET_TSC, PR_TSC_ENABLE, 0, 0, 0);
  sigaction(SIGSEGV, &old, NULL);
  return caught == SIGSEGV;
}

int main(void) {
  printf("X64EMU_TEST_HOST_UMIP=%d\n", kernel_has_umip());
  printf("X64EMU_TEST_HOST_TSD=%d\n", rdtsc_can_fault());
  printf("X64EMU_TEST_HOST_USER32_CS=%d\n", gdt_has_user32_cs());
  print_int_quirks();
  return 0;
}
