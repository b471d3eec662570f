/* jit_probe.c: a guest shaped like a JIT that runs most of its code once. It writes MB
 * megabytes of fresh straight-line code in chunks of CHUNK KiB (a mix of the short
 * integer instructions compilers emit, about 5 bytes each, then RET: copied from a
 * template as a JIT copies its stubs, with the immediates of its MOVs patched for each
 * chunk), calls each chunk once, and either unmaps it ("drop", as a JIT discarding cold
 * code) or keeps it mapped ("keep", a JIT that never frees code). "hot" is a JIT's code
 * run again and again instead: one routine of the same mix, 64 bytes, written once into
 * memory that stays writable and executable (as the JVM's code cache does) and called
 * MILLIONS million times. Prints the generated instructions run and a checksum of the
 * registers the code computed, so that runs under different runners can be compared.
 *
 * usage: jit_probe drop|keep [MB] [CHUNK_KIB]   (defaults 200 MB, 64 KiB)
 *        jit_probe hot [MILLIONS]               (default 20) */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The instruction mix, cycled through; each leaves rax..rdx mixed. */
static const struct {
  uint8_t len, bytes[7];
} mix[] = {
    {3, {0x48, 0x01, 0xd8}},                   /* add rax, rbx */
    {5, {0xb9, 0x11, 0x22, 0x33, 0x04}},       /* mov ecx, imm32 */
    {3, {0x48, 0x31, 0xca}},                   /* xor rdx, rcx */
    {4, {0x48, 0xc1, 0xe2, 0x03}},             /* shl rdx, 3 */
    {7, {0x48, 0x69, 0xc0, 0x0d, 0x66, 0x19, 0x00}}, /* imul rax, rax, 0x19660d */
    {3, {0x48, 0x29, 0xd3}},                   /* sub rbx, rdx */
    {5, {0x48, 0x8d, 0x5c, 0x18, 0x07}},       /* lea rbx, [rax+rbx+7] */
    {4, {0x48, 0x83, 0xf1, 0x5a}},             /* xor rcx, 0x5a */
    {6, {0x05, 0x0f, 0xbe, 0x1a, 0x00, 0x90}}, /* add eax, 0x1abe0f; nop */
    {3, {0x48, 0x09, 0xc8}},                   /* or rax, rcx */
};

/* Fills code with instructions up to size - 1 bytes and a RET; returns their count and
 * sets patch[0..*npatch) to the offsets of the MOVs' immediates. */
static uint64_t fill(uint8_t *code, size_t size, uint32_t *patch, size_t *npatch) {
  size_t at = 0;
  uint64_t n = 0;
  *npatch = 0;
  for (unsigned next = 0;; next++) {
    unsigned k = next % (sizeof mix / sizeof mix[0]);
    if (at + mix[k].len + 1 > size) break;
    memcpy(code + at, mix[k].bytes, mix[k].len);
    if (k == 1) patch[(*npatch)++] = (uint32_t)(at + 1);
    at += mix[k].len;
    n += k == 8 ? 2 : 1;
  }
  code[at] = 0xc3;
  return n + 1;
}

/* Runs the chunk at code with rax..rdx from and into state. */
static void run(const uint8_t *code, uint64_t state[4]) {
  __asm__ volatile("call *%4"
                   : "+a"(state[0]), "+b"(state[1]), "+c"(state[2]), "+d"(state[3])
                   : "r"(code)
                   : "memory", "cc");
}

static void print(uint64_t insns, const uint64_t state[4]) {
  printf("%llu instructions, state %016llx %016llx %016llx %016llx\n", (unsigned long long)insns,
         (unsigned long long)state[0], (unsigned long long)state[1], (unsigned long long)state[2],
         (unsigned long long)state[3]);
}

/* The "hot" mode: one routine, written once, called again and again. */
static int hot(long millions) {
  uint8_t *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED) {
    perror("jit_probe: mmap");
    return 1;
  }
  uint32_t patch[64];
  size_t npatch;
  uint64_t per_call = fill(code, 64, patch, &npatch), state[4] = {1, 2, 3, 4};
  for (long i = 0; i < millions * 1000000; i++) run(code, state);
  print(per_call * (uint64_t)millions * 1000000, state);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "hot") == 0) return hot(argc > 2 ? atol(argv[2]) : 20);
  if (argc < 2 || (strcmp(argv[1], "drop") && strcmp(argv[1], "keep"))) {
    fprintf(stderr, "usage: %s drop|keep [MB] [CHUNK_KIB] | hot [MILLIONS]\n", argv[0]);
    return 2;
  }
  int keep = strcmp(argv[1], "keep") == 0;
  size_t total = (size_t)(argc > 2 ? atoi(argv[2]) : 200) << 20;
  size_t chunk = (size_t)(argc > 3 ? atoi(argv[3]) : 64) << 10;
  if (total == 0 || chunk == 0) {
    fprintf(stderr, "jit_probe: MB and CHUNK_KIB must be positive\n");
    return 2;
  }
  uint8_t *template = malloc(chunk);
  uint32_t *patch = malloc(chunk / 3 * sizeof *patch);
  if (!template || !patch) {
    perror("jit_probe: malloc");
    return 1;
  }
  size_t npatch;
  uint64_t per_chunk = fill(template, chunk, patch, &npatch);
  uint64_t state[4] = {1, 2, 3, 4}, insns = 0;
  uint32_t serial = 0;
  for (size_t done = 0; done < total; done += chunk) {
    uint8_t *code = mmap(NULL, chunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (code == MAP_FAILED) {
      perror("jit_probe: mmap");
      return 1;
    }
    memcpy(code, template, chunk);
    for (size_t i = 0; i < npatch; i++) {
      uint32_t imm = 0x04332211u + serial++;
      memcpy(code + patch[i], &imm, sizeof imm);
    }
    insns += per_chunk;
    if (mprotect(code, chunk, PROT_READ | PROT_EXEC) != 0) {
      perror("jit_probe: mprotect");
      return 1;
    }
    run(code, state);
    if (!keep) munmap(code, chunk);
  }
  print(insns, state);
  return 0;
}
