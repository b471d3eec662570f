/* code_pages.h: which decoded blocks came from each guest page, so that a change to guest
 * memory finds the blocks it concerns without walking the whole cache (a JIT mapping,
 * filling and dropping code all the time would otherwise pay for every block it keeps). */
#ifndef X64EMU_CODE_PAGES_H
#define X64EMU_CODE_PAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct Block;

/* A block is listed under each page of the bytes that decided it: [start, end + 15), the
 * 15 for a last instruction judged on the bytes after it (two pages at most). Lists are
 * linked through the blocks (Block.page_next), so they live and go with the arena. */
typedef struct CodePages {
  struct PageList {
    uint64_t page; /* page number + 1; 0: a free slot */
    struct Block *head;
  } *slots;      /* open addressing, linear probing */
  size_t cap;    /* a power of two */
  size_t used;   /* slots with a page, kept until code_pages_clear */
} CodePages;

/* An empty index; false if there is no memory for it. */
bool code_pages_init(CodePages *cp);

/* Lists b under its pages; false if memory for a bigger index runs out (never when it
 * is empty). */
bool code_pages_add(CodePages *cp, struct Block *b);

/* Forgets every block (the arena is being emptied). */
void code_pages_clear(CodePages *cp);

void code_pages_free(CodePages *cp);

/* Takes out of the index every live block whose [start, end + 15) meets [lo, hi), calling
 * drop(arg, b) for each (which makes it dead); dead blocks met on the way are taken out
 * too. Returns the number dropped. */
size_t code_pages_drop(CodePages *cp, uint64_t lo, uint64_t hi,
                       void (*drop)(void *arg, struct Block *b), void *arg);

#endif
