/* embed_main.c: the library's Linux machine (include/x64emu/x64emu.h). Loads a static
 * x86-64 program, runs it up to its `main` (found in the ELF symbol table), shows the
 * arguments main receives, then lets it finish and reports its exit status and how many
 * guest instructions ran. */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <x64emu/x64emu.h>

extern char **environ;

/* The address of `name` in the program's symbol table, or 0. */
static uint64_t symbol_address(const char *path, const char *name) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return 0;
  elf_version(EV_CURRENT);
  Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
  uint64_t found = 0;
  for (Elf_Scn *scn = NULL; elf && !found && (scn = elf_nextscn(elf, scn));) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize) continue;
    Elf_Data *data = elf_getdata(scn, NULL);
    for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
      GElf_Sym sym;
      const char *n;
      if (gelf_getsym(data, (int)i, &sym) && (n = elf_strptr(elf, sh.sh_link, sym.st_name)) &&
          strcmp(n, name) == 0 && GELF_ST_TYPE(sym.st_info) == STT_FUNC) {
        found = sym.st_value;
        break;
      }
    }
  }
  if (elf) elf_end(elf);
  close(fd);
  return found;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s STATIC-PROGRAM [ARGS...]\n", argv[0]);
    return 2;
  }
  uint64_t main_at = symbol_address(argv[1], "main");
  if (!main_at) {
    fprintf(stderr, "%s: no symbol 'main' (stripped, or static-PIE)\n", argv[1]);
    return 2;
  }
  x64emu *m;
  x64emu_status s = x64emu_open_linux(&m, argv[1], argv + 1, environ);
  if (s != X64EMU_OK) {
    fprintf(stderr, "%s\n", s == X64EMU_ERR_LOAD ? x64emu_last_error() : x64emu_strerror(s));
    return 2;
  }
  x64emu_stop stop;
  x64emu_run(m, main_at, 0, &stop);
  if (stop.reason == X64EMU_STOP_UNTIL) {
    uint64_t rdi, rsi, argv0;
    char name[256] = "";
    x64emu_reg_read(m, X64EMU_REG_RDI, &rdi);
    x64emu_reg_read(m, X64EMU_REG_RSI, &rsi);
    x64emu_mem_read(m, rsi, &argv0, sizeof argv0);
    for (size_t i = 0; i + 1 < sizeof name && x64emu_mem_read(m, argv0 + i, &name[i], 1) == X64EMU_OK && name[i]; i++) {
    }
    printf("stopped at main (0x%llx) after %llu instructions: argc=%llu argv[0]=\"%s\"\n",
           (unsigned long long)main_at, (unsigned long long)x64emu_icount(m),
           (unsigned long long)rdi, name);
    fflush(stdout);
    x64emu_run(m, 0, 0, &stop);
  }
  printf("exit status %d%s after %llu guest instructions\n", stop.exit_status,
         stop.signal ? " (killed by a signal)" : "", (unsigned long long)x64emu_icount(m));
  x64emu_close(m);
  return 0;
}
