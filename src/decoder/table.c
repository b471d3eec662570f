/* table.c: the rows of the .def files as arrays, and per-opcode lists of the rows that
 * may fit, so that decoding an instruction tries a handful of rows, not a map's all. */
#include "table.h"

#include <stdlib.h>

#include "../interp/cpuid.h"
#include "../interp/ops_avx.h"
#include "../interp/ops_crypto.h"
#include "../interp/ops_fast.h"
#include "../interp/ops_int.h"
#include "../interp/ops_mmx.h"
#include "../interp/ops_sse4.h"
#include "../interp/ops_x87.h"
#include "../interp/sse_fp.h"
#include "../interp/x87_host.h"

/* The shorthands in a row expand to several columns, so they must be expanded before
 * the columns are counted: hence the indirection. */
#define FORM(...) FORM_(__VA_ARGS__)
#define FORM_(opc, opc_mask, pfx, modrm, modrm_mask, shape, width, reg, mem, op, aux, attrs, \
              feature, use, def, fast)                                                     \
  {reg, mem, fast, feature, attrs, opc, opc_mask, modrm, modrm_mask, pfx, shape, width, op,   \
   aux, use, def},

static const Form onebyte[] = {
#include "table_onebyte.def"
#include "table_x87.def"
};
static const Form map_0f[] = {
#include "table_0f.def"
};
static const Form map_0f38[] = {
#include "table_0f38.def"
};
static const Form map_0f3a[] = {
#include "table_0f3a.def"
};

#define COUNT(a) (sizeof(a) / sizeof(a)[0])
static const struct {
  const Form *rows;
  unsigned n;
} tables[TABLES] = {
    {onebyte, COUNT(onebyte)},
    {map_0f, COUNT(map_0f)},
    {map_0f38, COUNT(map_0f38)},
    {map_0f3a, COUNT(map_0f3a)},
};

const Form *form_rows(unsigned t, unsigned *n) {
  *n = tables[t].n;
  return tables[t].rows;
}

/* The opcodes row f fits, into out: its opcode with any of the bits outside its mask. */
static unsigned opcodes_of(const Form *f, uint8_t out[256]) {
  unsigned free = ~f->opcode_mask & 0xFFu, n = 0, subset = 0;
  do {
    out[n++] = (uint8_t)(f->opcode | subset);
    subset = (subset - free) & free;
  } while (subset);
  return n;
}

/* A counting sort by opcode that keeps file order among the rows of one opcode. */
static bool build(FormMap *m, const Form *rows, unsigned n) {
  uint16_t next[256] = {0};
  uint8_t ops[256];
  m->rows = rows;
  for (unsigned i = 0; i < n; i++)
    for (unsigned k = 0, count = opcodes_of(&rows[i], ops); k < count; k++) next[ops[k]]++;
  unsigned total = 0;
  for (unsigned o = 0; o < 256; o++) {
    m->first[o] = (uint16_t)total;
    total += next[o];
    next[o] = m->first[o];
  }
  m->first[256] = (uint16_t)total;
  m->order = malloc((total ? total : 1) * sizeof *m->order);
  if (!m->order) return false;
  for (unsigned i = 0; i < n; i++)
    for (unsigned k = 0, count = opcodes_of(&rows[i], ops); k < count; k++)
      m->order[next[ops[k]]++] = (uint16_t)i;
  return true;
}

bool form_maps_build(FormMap maps[TABLES]) {
  for (unsigned t = 0; t < TABLES; t++) maps[t].order = NULL;
  for (unsigned t = 0; t < TABLES; t++) {
    if (!build(&maps[t], tables[t].rows, tables[t].n)) {
      form_maps_free(maps);
      return false;
    }
  }
  return true;
}

void form_maps_free(FormMap maps[TABLES]) {
  for (unsigned t = 0; t < TABLES; t++) {
    free(maps[t].order);
    maps[t].order = NULL;
  }
}
