/* args_auxv.c: the initial process stack: argc, argv, envp and the auxiliary vector. */
#include <cpuid.h>
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

extern char **environ;
extern void _start(void);
extern const Elf64_Ehdr __ehdr_start; /* the linker's name for our own ELF header */

/* Entries the kernel always gives a static x86-64 program. Others (AT_SYSINFO_EHDR,
 * AT_MINSIGSTKSZ, AT_HWCAP2, AT_RSEQ_*...) depend on the kernel version, so are not printed. */
static const struct {
  unsigned long type;
  const char *name;
} required[] = {
    {AT_PHDR, "AT_PHDR"},     {AT_PHENT, "AT_PHENT"},   {AT_PHNUM, "AT_PHNUM"},
    {AT_PAGESZ, "AT_PAGESZ"}, {AT_ENTRY, "AT_ENTRY"},   {AT_UID, "AT_UID"},
    {AT_EUID, "AT_EUID"},     {AT_GID, "AT_GID"},       {AT_EGID, "AT_EGID"},
    {AT_SECURE, "AT_SECURE"}, {AT_CLKTCK, "AT_CLKTCK"}, {AT_RANDOM, "AT_RANDOM"},
    {AT_HWCAP, "AT_HWCAP"},   {AT_PLATFORM, "AT_PLATFORM"}, {AT_EXECFN, "AT_EXECFN"},
};

static const char *yes(int b) { return b ? "yes" : "NO"; }

static unsigned long auxv_value(const Elf64_auxv_t *auxv, unsigned long type) {
  for (const Elf64_auxv_t *a = auxv; a->a_type != AT_NULL; a++)
    if (a->a_type == type) return a->a_un.a_val;
  return 0;
}

int main(int argc, char **argv, char **envp) {
  printf("argc=%d\n", argc);
  for (int i = 0; i < argc; i++) printf("argv[%d]=\"%s\"\n", i, argv[i]);
  printf("argv[argc] is NULL: %s\n", yes(argv[argc] == NULL));
  printf("envp follows argv: %s\n", yes(envp == argv + argc + 1));
  printf("environ == envp: %s\n", yes(environ == envp));
  int envc = 0;
  for (char **e = envp; *e; e++) printf("envp[%d]=\"%s\"\n", envc++, *e);

  /* The auxiliary vector starts right after envp's NULL. */
  Elf64_auxv_t *auxv = (Elf64_auxv_t *)(envp + envc + 1);
  int count[sizeof required / sizeof required[0]] = {0};
  int total = 0;
  for (Elf64_auxv_t *a = auxv; a->a_type != AT_NULL; a++, total++)
    for (unsigned i = 0; i < sizeof required / sizeof required[0]; i++)
      if (a->a_type == required[i].type) count[i]++;
  /* Static glibc replaces AT_HWCAP with its own bits, so getauxval is not asked for it. */
  for (unsigned i = 0; i < sizeof required / sizeof required[0]; i++)
    printf("%s present %d time(s)%s\n", required[i].name, count[i],
           required[i].type == AT_HWCAP ? ""
           : getauxval(required[i].type) == auxv_value(auxv, required[i].type)
               ? ", getauxval agrees"
               : ", getauxval DISAGREES");
  printf("auxv has at most 64 entries: %s\n", yes(total <= 64));

  printf("AT_PAGESZ=%lu (sysconf %ld)\n", getauxval(AT_PAGESZ), sysconf(_SC_PAGESIZE));
  printf("AT_CLKTCK=%lu AT_SECURE=%lu\n", getauxval(AT_CLKTCK), getauxval(AT_SECURE));
  printf("AT_UID=%lu AT_EUID=%lu AT_GID=%lu AT_EGID=%lu\n", getauxval(AT_UID), getauxval(AT_EUID),
         getauxval(AT_GID), getauxval(AT_EGID));
  printf("ids match getuid/geteuid/getgid/getegid: %s\n",
         yes(getauxval(AT_UID) == getuid() && getauxval(AT_EUID) == geteuid() &&
             getauxval(AT_GID) == getgid() && getauxval(AT_EGID) == getegid()));
  const char *platform = (const char *)getauxval(AT_PLATFORM);
  printf("AT_PLATFORM=\"%s\"\n", platform ? platform : "(null)");
  const char *execfn = (const char *)getauxval(AT_EXECFN);
  printf("AT_EXECFN equals argv[0]: %s\n", yes(execfn && strcmp(execfn, argv[0]) == 0));

  /* Addresses differ between runs; their relations do not. */
  const Elf64_Phdr *phdr = (const Elf64_Phdr *)getauxval(AT_PHDR);
  printf("AT_PHDR is our program header table: %s\n",
         yes(phdr == (const Elf64_Phdr *)((const char *)&__ehdr_start + __ehdr_start.e_phoff)));
  printf("AT_PHENT=%lu AT_PHNUM equals e_phnum: %s\n", getauxval(AT_PHENT),
         yes(getauxval(AT_PHNUM) == __ehdr_start.e_phnum));
  int loads = 0, tls = 0;
  for (unsigned i = 0; i < getauxval(AT_PHNUM); i++) {
    loads += phdr[i].p_type == PT_LOAD;
    tls += phdr[i].p_type == PT_TLS;
  }
  printf("PT_LOAD segments: %d, PT_TLS: %d\n", loads, tls);
  printf("ELF type: %s\n", __ehdr_start.e_type == ET_EXEC ? "ET_EXEC" : "ET_DYN");
  printf("AT_ENTRY is _start: %s\n", yes(getauxval(AT_ENTRY) == (unsigned long)&_start));

  const unsigned char *rnd = (const unsigned char *)getauxval(AT_RANDOM);
  unsigned nonzero = 0;
  for (int i = 0; i < 16; i++) nonzero |= rnd[i];
  printf("AT_RANDOM: 16 readable bytes, not all zero: %s\n", yes(nonzero != 0));

  /* The kernel gives its own copy of CPUID.1:EDX as AT_HWCAP, less the features it
   * turned off (a VM's kernel clears MTRR, bit 12, which CPUID still reports); an
   * emulator must give its own CPUID's, so the bits are those of CPUID, the baseline's
   * among them (FPU, TSC, CX8, CMOV, CLFSH, MMX, FXSR, SSE, SSE2: every x86-64 CPU has
   * them, and programs check them, the JVM for CLFLUSH). */
  unsigned eax, ebx, ecx, edx;
  __cpuid(1, eax, ebx, ecx, edx);
  unsigned long hwcap = auxv_value(auxv, AT_HWCAP), baseline = 0x07888111;
  printf("AT_HWCAP within CPUID.1:EDX, with the baseline: %s\n",
         yes((hwcap & ~(unsigned long)edx) == 0 && (hwcap & baseline) == baseline));
  printf("CPUID.1:EBX's CLFLUSH line: %u bytes\n", (ebx >> 8 & 0xff) * 8);

  /* Stack strings lie above the vectors, near the top of the stack. */
  printf("argv[0] lies above auxv: %s\n", yes((uintptr_t)argv[0] > (uintptr_t)auxv));
  return 0;
}
