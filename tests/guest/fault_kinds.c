/* fault_kinds.c: one instruction at a time, the signal the kernel answers with: I/O and
 * privileged instructions (#GP: SIGSEGV, SI_KERNEL, address 0), ICEBP and INT3 (SIGTRAP),
 * software interrupts other than the kernel's own, a non-canonical address (#GP too),
 * UD2 (SIGILL); and the NOP space as used without CET (ENDBR, RDSSP, the hint NOPs,
 * prefetches, PAUSE), which runs; LOCK on the instructions that take it, and #UD on
 * those that do not. Each runs from a page of its own; the handler prints
 * what it got and jumps back. (The register forms of 0F 0D and 0F 18, INCSSP and the other
 * shadow-stack instructions, and SYSEXIT (#UD on AMD in 64-bit mode), differ between
 * vendors and CPU generations: not here.) Left out: SGDT and friends (UMIP on the host decides), XSAVES (the CPU
 * model has no XSAVE: #UD, where this host gives #GP), the far transfers (the selector
 * on the stack decides). Instructions longer than 15 bytes are #GP too. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

static sigjmp_buf back;
static uint8_t *page;

static void on_signal(int sig, siginfo_t *si, void *ucv) {
  ucontext_t *uc = ucv;
  uint64_t addr = (uint64_t)(uintptr_t)si->si_addr, rip = uc->uc_mcontext.gregs[REG_RIP];
  uint64_t base = (uint64_t)(uintptr_t)page;
  printf("  %s si_code=%d si_addr=%s%#lx rip=+%lu trapno=%lld err=%lld\n", sigabbrev_np(sig),
         si->si_code, addr >= base && addr < base + 4096 ? "+" : "",
         (unsigned long)(addr >= base && addr < base + 4096 ? addr - base : addr),
         (unsigned long)(rip - base), (long long)uc->uc_mcontext.gregs[REG_TRAPNO],
         (long long)uc->uc_mcontext.gregs[REG_ERR]);
  siglongjmp(back, 1);
}

typedef struct Case {
  const char *name;
  uint8_t bytes[20];
  unsigned len;
} Case;

static const Case cases[] = {
    {"icebp", {0xf1}, 1},
    {"int3", {0xcc}, 1},
    {"int 3", {0xcd, 0x03}, 2},
    {"int 4 (#OF, open to user mode)", {0xcd, 0x04}, 2},
    {"int 0x41", {0xcd, 0x41}, 2},
    {"insb", {0x6c}, 1},
    {"insd", {0x6d}, 1},
    {"outsb", {0x6e}, 1},
    {"outsd", {0x6f}, 1},
    {"in al, 0x60", {0xe4, 0x60}, 2},
    {"in al, dx", {0xec}, 1},
    {"out 0x80, al", {0xe6, 0x80}, 2},
    {"out dx, al", {0xee}, 1},
    {"lgdt [rcx]", {0x0f, 0x01, 0x11}, 3},
    {"lidt [rcx]", {0x0f, 0x01, 0x19}, 3},
    {"invlpg [rcx]", {0x0f, 0x01, 0x39}, 3},
    {"lmsw ax", {0x0f, 0x01, 0xf0}, 3},
    {"lldt ax", {0x0f, 0x00, 0xd0}, 3},
    {"ltr ax", {0x0f, 0x00, 0xd8}, 3},
    {"clts", {0x0f, 0x06}, 2},
    {"sysret", {0x0f, 0x07}, 2},
    {"invd", {0x0f, 0x08}, 2},
    {"wbinvd", {0x0f, 0x09}, 2},
    {"mov rax, cr0", {0x0f, 0x20, 0xc0}, 3},
    {"mov cr0, rax", {0x0f, 0x22, 0xc0}, 3},
    {"mov rax, dr7", {0x0f, 0x21, 0xf8}, 3},
    {"wrmsr", {0x0f, 0x30}, 2},
    {"rdmsr", {0x0f, 0x32}, 2},
    {"hlt", {0xf4}, 1},
    {"cli", {0xfa}, 1},
    {"sti", {0xfb}, 1},
    {"mov eax, [r15] (non-canonical)", {0x41, 0x8b, 0x07}, 3},
    {"mov [r15], eax (non-canonical)", {0x41, 0x89, 0x07}, 3},
    {"ud2", {0x0f, 0x0b}, 2},
    {"endbr64", {0xf3, 0x0f, 0x1e, 0xfa}, 4},
    {"endbr32", {0xf3, 0x0f, 0x1e, 0xfb}, 4},
    {"rdsspd eax", {0xf3, 0x0f, 0x1e, 0xc8}, 4},
    {"rdsspq rax", {0xf3, 0x48, 0x0f, 0x1e, 0xc8}, 5},
    {"f2 0f 1e fa", {0xf2, 0x0f, 0x1e, 0xfa}, 4},
    {"0f 1e fa", {0x0f, 0x1e, 0xfa}, 3},
    {"nop dword [rcx]", {0x0f, 0x1f, 0x01}, 3},
    {"nop word [rcx+rcx*1+0]", {0x66, 0x0f, 0x1f, 0x44, 0x09, 0x00}, 6},
    {"0f 19 c0", {0x0f, 0x19, 0xc0}, 3},
    {"0f 1a [rcx]", {0x0f, 0x1a, 0x01}, 3},
    {"0f 1b [rcx]", {0x0f, 0x1b, 0x01}, 3},
    {"0f 1c [rcx]", {0x0f, 0x1c, 0x01}, 3},
    {"0f 1d c0", {0x0f, 0x1d, 0xc0}, 3},
    {"0f 1f c0", {0x0f, 0x1f, 0xc0}, 3},
    {"prefetchw [rcx]", {0x0f, 0x0d, 0x09}, 3},
    {"prefetchnta [rcx]", {0x0f, 0x18, 0x01}, 3},
    {"0f 18 /4 [rcx]", {0x0f, 0x18, 0x21}, 3},
    {"pause", {0xf3, 0x90}, 2},
    /* LOCK: only the read-modify-write instructions with a memory destination take it. */
    {"lock add [rcx], eax", {0xf0, 0x01, 0x01}, 3},
    {"lock adc dword [rcx], 1", {0xf0, 0x83, 0x11, 0x01}, 4},
    {"lock xchg [rcx], eax", {0xf0, 0x87, 0x01}, 3},
    {"lock bts dword [rcx], 1", {0xf0, 0x0f, 0xba, 0x29, 0x01}, 5},
    {"lock cmpxchg [rcx], eax", {0xf0, 0x0f, 0xb1, 0x01}, 4},
    {"lock xadd [rcx], eax", {0xf0, 0x0f, 0xc1, 0x01}, 4},
    {"lock not dword [rcx]", {0xf0, 0xf7, 0x11}, 3},
    {"lock inc dword [rcx]", {0xf0, 0xff, 0x01}, 3},
    {"lock add eax, eax (register destination)", {0xf0, 0x01, 0xc0}, 3},
    {"lock add eax, [rcx] (register destination)", {0xf0, 0x03, 0x01}, 3},
    {"lock cmp [rcx], eax", {0xf0, 0x39, 0x01}, 3},
    {"lock mov [rcx], eax", {0xf0, 0x89, 0x01}, 3},
    {"lock bt dword [rcx], 1", {0xf0, 0x0f, 0xba, 0x21, 0x01}, 5},
    {"lock nop", {0xf0, 0x90}, 2},
    {"lock test [rcx], eax", {0xf0, 0x85, 0x01}, 3},
    {"lock addps xmm0, [rcx]", {0xf0, 0x0f, 0x58, 0x01}, 4},
    {"lock fld dword [rcx]", {0xf0, 0xd9, 0x01}, 3},
    /* A misaligned operand at a non-canonical address: FXSAVE, FXRSTOR and the XSAVE
     * family check the address first (#SS through RSP: SIGBUS), as the SDM's priorities
     * say; the SSE moves and CMPXCHG16B check alignment first (#GP). The aligned
     * CMPXCHG16B cases (RSP is 8 past a multiple of 16 after the call): the non-canonical
     * address alone, #SS. */
    {"movaps xmm0, [rcx + r15 + 1]", {0x42, 0x0f, 0x28, 0x44, 0x39, 0x01}, 6},
    {"movaps xmm0, [rsp + r15 + 1]", {0x42, 0x0f, 0x28, 0x44, 0x3c, 0x01}, 6},
    {"cmpxchg16b [rsp + r15 + 1]", {0x4a, 0x0f, 0xc7, 0x4c, 0x3c, 0x01}, 6},
    {"fxsave [rsp + r15 + 1]", {0x42, 0x0f, 0xae, 0x44, 0x3c, 0x01}, 6},
    {"fxrstor [rsp + r15 + 1]", {0x42, 0x0f, 0xae, 0x4c, 0x3c, 0x01}, 6},
    {"xsave [rsp + r15 + 1]", {0x42, 0x0f, 0xae, 0x64, 0x3c, 0x01}, 6},
    {"xrstor [rsp + r15 + 1]", {0x42, 0x0f, 0xae, 0x6c, 0x3c, 0x01}, 6},
    {"xsavec [rsp + r15 + 1]", {0x42, 0x0f, 0xc7, 0x64, 0x3c, 0x01}, 6},
    {"cmpxchg16b [rsp + r15 + 8]", {0x4a, 0x0f, 0xc7, 0x4c, 0x3c, 0x08}, 6},
    {"lock cmpxchg16b [rsp + r15 + 8]", {0xf0, 0x4a, 0x0f, 0xc7, 0x4c, 0x3c, 0x08}, 7},
    /* More than 15 bytes is #GP, whatever the instruction; 15 are fine. */
#define CS8 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e
    {"cs x14 nop (15 bytes)", {CS8, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x90}, 15},
    {"cs x15 nop (16 bytes)", {CS8, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x90}, 16},
    {"cs x14 ud2 (16 bytes)", {CS8, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x0f, 0x0b}, 16},
    {"cs x8 mov dword [rcx+0], 0 (18 bytes)", {CS8, 0xc7, 0x81, 0, 0, 0, 0, 0, 0, 0, 0}, 18},
    {"cs x4 mov dword [rcx+0], 0 (14 bytes)", {0x2e, 0x2e, 0x2e, 0x2e, 0xc7, 0x81, 0, 0, 0, 0, 0, 0, 0, 0}, 14},
    {"cs x8 c7 /7 [rcx+0] (undefined, 18 bytes)", {CS8, 0xc7, 0xb9, 0, 0, 0, 0, 0, 0, 0, 0}, 18},
    {"cs x4 c7 /7 [rcx+0] (undefined, 14 bytes)", {0x2e, 0x2e, 0x2e, 0x2e, 0xc7, 0xb9, 0, 0, 0, 0, 0, 0, 0, 0}, 14},
    {"cs x14 c7 (its ModRM the 16th byte)", {CS8, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0xc7, 0x01}, 16},
    {"cs x11 mov eax, imm32 (16 bytes)", {CS8, 0x2e, 0x2e, 0x2e, 0xb8, 1, 2, 3, 4}, 16},
#undef CS8
};

/* Runs code with rcx at a scratch buffer (zeroes: a far pointer to selector 0) and r15
 * non-canonical. */
static void run(void *code, void *scratch) {
  asm volatile("mov %0, %%rcx\n"
               "movabs $0x8000000000000000, %%r15\n"
               "call *%1\n"
               :
               : "r"(scratch), "r"(code)
               : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "r15", "memory", "cc");
}

int main(void) {
  static uint64_t scratch[64];
  struct sigaction sa = {.sa_sigaction = on_signal, .sa_flags = SA_SIGINFO | SA_NODEFER};
  for (int sig = 1; sig < 32; sig++) sigaction(sig, &sa, NULL);
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    printf("%s:\n", cases[i].name);
    /* A fresh page each time: code is written once, then run. */
    page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    memcpy(page, cases[i].bytes, cases[i].len);
    page[cases[i].len] = 0xc3; /* ret */
    fflush(stdout);
    if (!sigsetjmp(back, 1)) {
      run(page, scratch);
      printf("  ran\n");
    }
    munmap(page, 4096);
  }
  return 0;
}
