/* self_modify.c: code written over after it ran runs as written: by the program's own
 * stores (a JIT reusing its buffer, no system call in between), by the kernel (read()
 * from a pipe into the code), a patched immediate in a loop that has run hot, and code
 * in a read-only executable view of a memfd written through a second, writable view (the
 * dual-mapping JITs) or with pwrite(). */
#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int call(uint8_t *code) { return ((int (*)(void))code)(); }

/* mov eax, imm32; ret */
static void emit(uint8_t *at, uint32_t value) {
  at[0] = 0xb8;
  memcpy(at + 1, &value, 4);
  at[5] = 0xc3;
}

int main(void) {
  uint8_t *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
  emit(code, 1);
  int a = call(code);
  emit(code, 2);
  int b = call(code);
  code[1] = 42; /* just the immediate */
  int c = call(code);
  int d = call(code);
  printf("stores: %d %d %d %d\n", a, b, c, d);

  int fds[2];
  if (pipe(fds) != 0) return 1;
  uint8_t fresh[6];
  emit(fresh, 7);
  if (write(fds[1], fresh, sizeof fresh) != sizeof fresh) return 1;
  if (read(fds[0], code, sizeof fresh) != sizeof fresh) return 1;
  printf("read(): %d\n", call(code));

  /* A loop that has run many times, patched between runs. */
  long sum = 0;
  for (int round = 0; round < 4; round++) {
    emit(code + 64, (uint32_t)round * 10);
    for (int i = 0; i < 1000; i++) sum += call(code + 64);
  }
  printf("patched loop: %ld\n", sum);

  int fd = memfd_create("jit", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, 4096) != 0) return 1;
  uint8_t *rw = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  uint8_t *rx = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
  if (rw == MAP_FAILED || rx == MAP_FAILED) return 1;
  printf("second view:");
  for (int i = 1; i <= 3; i++) {
    emit(rw, (uint32_t)i * 100);
    printf(" %d", call(rx));
  }
  emit(fresh, 555);
  if (pwrite(fd, fresh, sizeof fresh, 0) != sizeof fresh) return 1;
  printf(", pwrite(): %d\n", call(rx));
  return 0;
}
