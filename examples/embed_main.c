/* embed_main.c: x64emu as a library. Loads a static x86-64 program, runs it up to its
 * `main` (found in the ELF symbol table), shows the arguments main receives, then lets
 * it finish and reports its exit status and how many guest instructions ran. */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "decoder/decode.h"
#include "interp/access.h"
#include "interp/fault.h"
#include "interp/run.h"
#include "loader/elf.h"
#include "linux-user/linux_run.h"
#include "linux-user/process.h"

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

static Process proc;

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
  char err[512] = "cannot initialise Capstone or reserve the code cache";
  if (!process_init(&proc, argv[1]) ||
      elf_load(&proc, argv[1], argv + 1, environ, err, sizeof err) != 0) {
    fprintf(stderr, "%s\n", err);
    return 2;
  }
  fault_install();
  Cpu *c = &proc.main.cpu;
  if (linux_run(c, main_at) == STOP_ADDRESS) {
    printf("stopped at main (0x%llx) after %llu instructions: argc=%llu argv[0]=\"%s\"\n",
           (unsigned long long)main_at, (unsigned long long)c->icount,
           (unsigned long long)c->r[RDI], (const char *)(uintptr_t)ld64(c->r[RSI]));
    fflush(stdout);
    linux_run(c, 0);
  }
  printf("exit status %d%s after %llu guest instructions\n", c->exit_status,
         c->term_signal ? " (killed by a signal)" : "", (unsigned long long)c->icount);
  return 0;
}
