/* symbols.h: the function symbols of a guest program's symbol table, where the program
 * was loaded, for the command's tracer and statistics. */
#ifndef X64EMU_SYMBOLS_H
#define X64EMU_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct Symbol {
  uint64_t start, size;
  char *name;
} Symbol;

typedef struct Symbols {
  Symbol *v; /* by address */
  size_t n;
} Symbols;

/* Reads the STT_FUNC symbols of the ELF file at path, moved to where it was loaded: its
 * entry point is `entry` now (the load bias of a PIE). False if the file cannot be read;
 * a program without symbols gives none. */
bool symbols_read(Symbols *s, const char *path, uint64_t entry);
void symbols_free(Symbols *s);

/* The function that holds address a, or NULL. */
const Symbol *symbols_at(const Symbols *s, uint64_t a);

/* The function called name, or NULL. */
const Symbol *symbols_named(const Symbols *s, const char *name);

#endif
