/* symbols.c: a guest program's function symbols (symbols.h), read with libelf. */
#include "symbols.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int by_start(const void *a, const void *b) {
  const Symbol *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

static bool add(Symbols *s, uint64_t start, uint64_t size, const char *name) {
  Symbol *more = realloc(s->v, (s->n + 1) * sizeof *more);
  char *copy = strdup(name);
  if (!more || !copy) {
    free(copy);
    if (more) s->v = more;
    return false;
  }
  s->v = more;
  s->v[s->n++] = (Symbol){start, size, copy};
  return true;
}

bool symbols_read(Symbols *s, const char *path, uint64_t entry) {
  *s = (Symbols){0};
  int fd = open(path, O_RDONLY);
  if (fd < 0) return false;
  elf_version(EV_CURRENT);
  Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
  GElf_Ehdr eh;
  bool ok = elf && gelf_getehdr(elf, &eh);
  uint64_t bias = ok && eh.e_type == ET_DYN ? entry - eh.e_entry : 0;
  for (Elf_Scn *scn = NULL; ok && (scn = elf_nextscn(elf, scn));) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize) continue;
    Elf_Data *data = elf_getdata(scn, NULL);
    size_t n = sh.sh_size / sh.sh_entsize;
    for (size_t i = 0; data && ok && i < n; i++) {
      GElf_Sym sym;
      if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_value) continue;
      const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
      if (name && *name) ok = add(s, sym.st_value + bias, sym.st_size, name);
    }
  }
  if (elf) elf_end(elf);
  close(fd);
  qsort(s->v, s->n, sizeof *s->v, by_start);
  return ok;
}

void symbols_free(Symbols *s) {
  for (size_t i = 0; i < s->n; i++) free(s->v[i].name);
  free(s->v);
  *s = (Symbols){0};
}

const Symbol *symbols_at(const Symbols *s, uint64_t a) {
  size_t lo = 0, hi = s->n;
  while (lo < hi) { /* the first symbol after a */
    size_t mid = (lo + hi) / 2;
    if (s->v[mid].start <= a) lo = mid + 1;
    else hi = mid;
  }
  for (size_t i = lo; i-- > 0;) { /* the nearest before, or an earlier one that holds a */
    const Symbol *f = &s->v[i];
    if (a < f->start + (f->size ? f->size : 1)) return f;
    if (f->size) break;
  }
  return NULL;
}

const Symbol *symbols_named(const Symbols *s, const char *name) {
  for (size_t i = 0; i < s->n; i++)
    if (strcmp(s->v[i].name, name) == 0) return &s->v[i];
  return NULL;
}
