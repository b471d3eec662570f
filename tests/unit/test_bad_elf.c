/* test_bad_elf.c: files the kernel's execve refuses get ELF_REFUSED and a precise message;
 * those it gives up the old image for and then cannot map get ELF_FATAL (the process then
 * dies of SIGSEGV); those it runs load (fs/binfmt_elf.c is the reference for each case). */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "loader/elf.h"

/* A minimal static executable: code at 0x10000000 (R X), a bss-only segment (RW), a
 * non-executable stack, and room for an interpreter name. */
#define TINY_BASE 0x10000000ull
#define TINY_BSS 0x10010000ull
typedef struct __attribute__((packed)) Tiny {
  Elf64_Ehdr eh;
  Elf64_Phdr ph[3];
  uint8_t code[16];
  char interp[32];
} Tiny;

static Tiny tiny(void) {
  Tiny t;
  memset(&t, 0, sizeof t);
  memcpy(t.eh.e_ident, ELFMAG, SELFMAG);
  t.eh.e_ident[EI_CLASS] = ELFCLASS64;
  t.eh.e_ident[EI_DATA] = ELFDATA2LSB;
  t.eh.e_ident[EI_VERSION] = EV_CURRENT;
  t.eh.e_type = ET_EXEC;
  t.eh.e_machine = EM_X86_64;
  t.eh.e_version = EV_CURRENT;
  t.eh.e_entry = TINY_BASE + offsetof(Tiny, code);
  t.eh.e_phoff = offsetof(Tiny, ph);
  t.eh.e_ehsize = sizeof(Elf64_Ehdr);
  t.eh.e_phentsize = sizeof(Elf64_Phdr);
  t.eh.e_phnum = 3;
  t.ph[0] = (Elf64_Phdr){.p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 0,
                         .p_vaddr = TINY_BASE, .p_paddr = TINY_BASE, .p_filesz = sizeof t,
                         .p_memsz = sizeof t, .p_align = 0x1000};
  t.ph[1] = (Elf64_Phdr){.p_type = PT_LOAD, .p_flags = PF_R | PF_W, .p_offset = 0,
                         .p_vaddr = TINY_BSS, .p_paddr = TINY_BSS, .p_filesz = 0,
                         .p_memsz = 0x2000, .p_align = 0x1000};
  t.ph[2] = (Elf64_Phdr){.p_type = PT_GNU_STACK, .p_flags = PF_R | PF_W, .p_align = 16};
  /* mov eax, 60; xor edi, edi; syscall */
  static const uint8_t code[] = {0xb8, 0x3c, 0, 0, 0, 0x31, 0xff, 0x0f, 0x05};
  memcpy(t.code, code, sizeof code);
  strcpy(t.interp, "/lib64/ld-linux-x86-64.so.2");
  return t;
}

static char dir[64];
static int case_no;

/* Writes bytes to a fresh executable file in the temporary directory. */
static const char *write_file(const void *bytes, size_t len) {
  static char path[128];
  snprintf(path, sizeof path, "%s/case%d", dir, ++case_no);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, bytes, len), (ssize_t)len);
  close(fd);
  return path;
}

static const char *write_tiny(const Tiny *t) { return write_file(t, sizeof *t); }

typedef struct Outcome {
  int rc;
  char err[1024];
} Outcome;

/* elf_load in a child process, so that a mapping made by one case cannot disturb the next
 * and a crash is seen as one. */
static Outcome load_in_child(const char *path) {
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    static Process proc;
    static Outcome out;
    char *const argv[] = {"prog", NULL};
    char *const envp[] = {"A=1", NULL};
    out.rc = process_init(&proc, path) ? elf_load(&proc, path, argv, envp, out.err, sizeof out.err)
                                       : -99;
    (void)!write(fds[1], &out, sizeof out);
    _exit(0);
  }
  close(fds[1]);
  Outcome out;
  memset(&out, 0, sizeof out);
  ssize_t got = read(fds[0], &out, sizeof out);
  close(fds[0]);
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  if (WIFSIGNALED(status)) fail_msg("%s: the loader crashed with signal %d", path, WTERMSIG(status));
  assert_int_equal(got, (ssize_t)sizeof out);
  return out;
}

/* The load gives rc, and the one-line message names the file and says each of the words. */
static void expect_rc(int rc, const char *path, va_list ap) {
  Outcome o = load_in_child(path);
  if (o.rc != rc) fail_msg("%s: rc %d (%s), should be %d", path, o.rc, o.err, rc);
  assert_null(strchr(o.err, '\n'));
  size_t plen = strlen(path);
  if (strncmp(o.err, path, plen) != 0 || strncmp(o.err + plen, ": ", 2) != 0)
    fail_msg("message does not start with the path: \"%s\"", o.err);
  for (const char *word; (word = va_arg(ap, const char *));)
    if (!strstr(o.err, word)) fail_msg("message \"%s\" lacks \"%s\"", o.err, word);
}

/* The kernel's execve would return an error. */
static void expect_error(const char *path, ...) {
  va_list ap;
  va_start(ap, path);
  expect_rc(ELF_REFUSED, path, ap);
  va_end(ap);
}

/* The kernel's execve would give up the old image and then kill the process. */
static void expect_fatal(const char *path, ...) {
  va_list ap;
  va_start(ap, path);
  expect_rc(ELF_FATAL, path, ap);
  va_end(ap);
}

/* The kernel would run it (whatever the program then does). */
static void expect_loads(const char *path) {
  Outcome o = load_in_child(path);
  if (o.rc != 0) fail_msg("%s: rc %d (%s), should load as the kernel loads it", path, o.rc, o.err);
}

/* ---- the control: the base file is good, so every failure below has its own cause ---- */

static void tiny_loads(void **state) {
  (void)state;
  Tiny t = tiny();
  Outcome o = load_in_child(write_tiny(&t));
  if (o.rc != 0) fail_msg("the control file failed: %s", o.err);
}

/* ---- not an ELF file at all ---- */

static void missing_path(void **state) {
  (void)state;
  char path[128];
  snprintf(path, sizeof path, "%s/no-such-prog", dir);
  expect_error(path, "No such file or directory", NULL);
}

static void directory(void **state) {
  (void)state;
  expect_error(dir, "Is a directory", NULL);
}

static void empty_file(void **state) {
  (void)state;
  expect_error(write_file("", 0), "not an ELF file", NULL);
}

static void bad_magic(void **state) {
  (void)state;
  static const char script[] = "#!/bin/sh\necho not an elf\n";
  expect_error(write_file(script, sizeof script - 1), "not an ELF file", NULL);
  Tiny t = tiny();
  t.eh.e_ident[EI_MAG1] = 'e';
  expect_error(write_tiny(&t), "not an ELF file", NULL);
}

static void not_executable(void **state) {
  (void)state;
  Tiny t = tiny();
  const char *path = write_tiny(&t);
  assert_int_equal(chmod(path, 0644), 0);
  expect_error(path, "Permission denied", NULL);
}

/* ---- ELF, but not for us ---- */

static void truncated_header(void **state) {
  (void)state;
  Tiny t = tiny();
  expect_error(write_file(&t, 20), "truncated ELF header", NULL);
  /* 63 bytes: the fields that matter are there, and the program headers are not. */
  expect_error(write_file(&t, sizeof(Elf64_Ehdr) - 1), "truncated ELF", NULL);
}

/* EI_CLASS, EI_DATA and the versions are not the kernel's business: it reads the header as
 * the 64-bit little-endian one an x86-64 executable has. A real 32-bit x86 program is
 * refused by name (the kernel would run it in its 32-bit mode, which x64emu has not). */
static void ident_fields_ignored(void **state) {
  (void)state;
  static const int fields[][2] = {{EI_CLASS, ELFCLASS32}, {EI_CLASS, 0}, {EI_CLASS, 3},
                                  {EI_CLASS, 255}, {EI_DATA, ELFDATA2MSB}, {EI_DATA, 0},
                                  {EI_VERSION, 0}, {EI_VERSION, 7}, {EI_OSABI, 97}};
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
    Tiny t = tiny();
    t.eh.e_ident[fields[i][0]] = (unsigned char)fields[i][1];
    expect_loads(write_tiny(&t));
  }
  Tiny t = tiny();
  t.eh.e_version = 0;
  expect_loads(write_tiny(&t));
  t = tiny();
  t.eh.e_ident[EI_CLASS] = ELFCLASS32;
  t.eh.e_machine = EM_386;
  expect_error(write_tiny(&t), "32-bit", NULL);
}

static void aarch64_machine(void **state) {
  (void)state;
  Tiny t = tiny();
  t.eh.e_machine = EM_AARCH64;
  expect_error(write_tiny(&t), "AArch64", "not x86-64", NULL);
  t.eh.e_machine = EM_386;
  expect_error(write_tiny(&t), "not x86-64", NULL);
}

static void not_an_executable_type(void **state) {
  (void)state;
  Tiny t = tiny();
  t.eh.e_type = ET_REL;
  expect_error(write_tiny(&t), "relocatable", NULL);
  t.eh.e_type = ET_CORE;
  expect_error(write_tiny(&t), "core", NULL);
}

/* A program whose dynamic loader cannot be loaded, or whose PT_INTERP is no path. */
static void dynamic_loader_missing(void **state) {
  (void)state;
  Tiny t = tiny();
  strcpy(t.interp, "/nonexistent/ld-x64.so");
  t.ph[2] = (Elf64_Phdr){.p_type = PT_INTERP, .p_flags = PF_R, .p_offset = offsetof(Tiny, interp),
                         .p_vaddr = TINY_BASE + offsetof(Tiny, interp),
                         .p_filesz = strlen(t.interp) + 1, .p_memsz = strlen(t.interp) + 1,
                         .p_align = 1};
  expect_error(write_tiny(&t), "its dynamic loader", "/nonexistent/ld-x64.so",
               "No such file", NULL);
  /* The name outside the file, or not ended by its NUL. */
  t.ph[2].p_offset = 1u << 30;
  expect_error(write_tiny(&t), "PT_INTERP is not a path", NULL);
  t.ph[2].p_offset = offsetof(Tiny, interp);
  t.ph[2].p_filesz = 4;
  expect_error(write_tiny(&t), "PT_INTERP is not a path", NULL);
}

/* ---- inconsistent or truncated ELF ---- */

static void phdrs_past_eof(void **state) {
  (void)state;
  Tiny t = tiny();
  t.eh.e_phoff = sizeof t - 10;
  expect_error(write_tiny(&t), "truncated ELF", "program header table", "past the end", NULL);
  t.eh.e_phoff = UINT64_MAX - 8; /* offset + size overflows */
  expect_error(write_tiny(&t), "program header table", "past the end", NULL);
  /* The table is cut by truncating the file. */
  t = tiny();
  expect_error(write_file(&t, offsetof(Tiny, ph) + 70), "program header table", NULL);
}

static void bad_phdr_table_shape(void **state) {
  (void)state;
  Tiny t = tiny();
  t.eh.e_phentsize = 32;
  expect_error(write_tiny(&t), "program header size", NULL);
  t = tiny();
  t.eh.e_phnum = 0;
  expect_error(write_tiny(&t), "no program headers", NULL);
  t = tiny();
  t.eh.e_phnum = 0xffff;
  expect_error(write_tiny(&t), "program header", NULL);
}

static void filesz_above_memsz(void **state) {
  (void)state;
  Tiny t = tiny();
  t.ph[0].p_memsz = 16;
  expect_fatal(write_tiny(&t), "inconsistent ELF", "p_filesz", "p_memsz", NULL);
}

/* The kernel maps file bytes the file does not have (touching them is SIGBUS); a file
 * offset it cannot map at all fails the mmap, past the point of no return. */
static void segment_past_eof(void **state) {
  (void)state;
  Tiny t = tiny();
  t.ph[0].p_filesz = t.ph[0].p_memsz = sizeof t + 1; /* cut inside its last page */
  expect_loads(write_tiny(&t));
  t = tiny();
  t.ph[1].p_offset = 0x100000;
  t.ph[1].p_vaddr = TINY_BSS + 0x100000;
  t.ph[1].p_filesz = 0x10;
  /* Writable, with bss starting in that page: the kernel cannot clear the page's rest
   * (measured: the process dies of SIGSEGV); read-only, it does not try, and runs. */
  expect_fatal(write_tiny(&t), "bss", "past the end of the file", NULL);
  t.ph[1].p_flags = PF_R;
  expect_loads(write_tiny(&t));
  t = tiny();
  t.ph[1].p_offset = UINT64_MAX - 0xfff; /* offset + size overflows */
  t.ph[1].p_vaddr = TINY_BSS;
  t.ph[1].p_filesz = 0x1000;
  expect_fatal(write_tiny(&t), "segment 1", NULL);
}

static void real_binary_cut_short(void **state) {
  (void)state;
  /* The first 64 KiB of busybox: headers intact, segments cut off (natively: SIGSEGV). */
  int fd = open("/bin/busybox", O_RDONLY);
  if (fd < 0) skip();
  static uint8_t head[64 * 1024];
  assert_int_equal(read(fd, head, sizeof head), (ssize_t)sizeof head);
  close(fd);
  /* Its data segment's bss begins in a page the file no longer has: SIGSEGV at exec. */
  expect_fatal(write_file(head, sizeof head), "bss", NULL);
}

/* Segments may overlap and come in any order: the kernel maps them as they come. */
static void overlapping_segments(void **state) {
  (void)state;
  Tiny t = tiny();
  t.ph[1].p_vaddr = TINY_BASE + 0x100; /* inside segment 0, same offset modulo the page */
  t.ph[1].p_offset = 0x100;
  expect_loads(write_tiny(&t));
  t = tiny();
  t.ph[1].p_vaddr = TINY_BASE - 0x10000;
  expect_loads(write_tiny(&t));
}

/* A file part whose offset and address differ modulo the page cannot be mapped; a segment
 * with no file part has nothing to map (its address is free); p_align that is not a power
 * of two is ignored. */
static void unaligned_segment(void **state) {
  (void)state;
  Tiny t = tiny();
  t.ph[0].p_vaddr = TINY_BASE + 0x10;
  t.eh.e_entry += 0x10;
  expect_fatal(write_tiny(&t), "inconsistent ELF", "unaligned", NULL);
  t = tiny();
  t.ph[1].p_vaddr = TINY_BSS + 0x10;
  expect_loads(write_tiny(&t));
  t = tiny();
  t.ph[0].p_align = 0x3000;
  expect_loads(write_tiny(&t));
}

/* The kernel starts the program wherever e_entry says: not executable or not mapped, the
 * first instruction faults (SIGSEGV), in the program. */
static void entry_outside_code(void **state) {
  (void)state;
  Tiny t = tiny();
  t.eh.e_entry = TINY_BSS + 8; /* a mapped but non-executable segment */
  expect_loads(write_tiny(&t));
  t.eh.e_entry = 0x1234; /* nowhere */
  expect_loads(write_tiny(&t));
}

static void no_loadable_segment(void **state) {
  (void)state;
  Tiny t = tiny();
  t.ph[0].p_type = PT_NOTE;
  t.ph[1].p_type = PT_NOTE;
  expect_fatal(write_tiny(&t), "no loadable segment", NULL);
}

static void outside_user_space(void **state) {
  (void)state;
  Tiny t = tiny();
  t.ph[1].p_vaddr = 0xffff800000000000ull;
  expect_fatal(write_tiny(&t), "outside the user address space", NULL);
  t = tiny();
  t.ph[1].p_memsz = UINT64_MAX - 0x1000; /* vaddr + memsz overflows */
  expect_fatal(write_tiny(&t), "outside the user address space", NULL);
}

/* ---- whatever the bytes, no crash ---- */

static void random_header_damage_never_crashes(void **state) {
  (void)state;
  const Tiny good = tiny();
  srand(12345);
  for (int round = 0; round < 400; round++) {
    Tiny t = good;
    uint8_t *b = (uint8_t *)&t;
    int flips = 1 + rand() % 4;
    for (int k = 0; k < flips; k++)
      b[rand() % (int)offsetof(Tiny, code)] = (uint8_t)rand();
    size_t len = rand() % 8 ? sizeof t : (size_t)(rand() % (int)sizeof t);
    const char *path = write_file(&t, len);
    Outcome o = load_in_child(path); /* fails the test if the child died of a signal */
    if (o.rc != 0) {
      assert_true(o.rc == ELF_REFUSED || o.rc == ELF_FATAL);
      assert_true(strlen(o.err) > strlen(path) + 2);
    }
    unlink(path);
  }
}

static int make_dir(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/x64emu-bad-elf-XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state) {
  (void)state;
  char path[128];
  for (int i = 1; i <= case_no; i++) {
    snprintf(path, sizeof path, "%s/case%d", dir, i);
    unlink(path);
  }
  return rmdir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(tiny_loads),
      cmocka_unit_test(missing_path),
      cmocka_unit_test(directory),
      cmocka_unit_test(empty_file),
      cmocka_unit_test(bad_magic),
      cmocka_unit_test(not_executable),
      cmocka_unit_test(truncated_header),
      cmocka_unit_test(ident_fields_ignored),
      cmocka_unit_test(aarch64_machine),
      cmocka_unit_test(not_an_executable_type),
      cmocka_unit_test(dynamic_loader_missing),
      cmocka_unit_test(phdrs_past_eof),
      cmocka_unit_test(bad_phdr_table_shape),
      cmocka_unit_test(filesz_above_memsz),
      cmocka_unit_test(segment_past_eof),
      cmocka_unit_test(real_binary_cut_short),
      cmocka_unit_test(overlapping_segments),
      cmocka_unit_test(unaligned_segment),
      cmocka_unit_test(entry_outside_code),
      cmocka_unit_test(no_loadable_segment),
      cmocka_unit_test(outside_user_space),
      cmocka_unit_test(random_header_damage_never_crashes),
  };
  return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
