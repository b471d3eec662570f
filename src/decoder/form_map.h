/* form_map.h: the instruction table as a decoder holds it (table.h has the rows). */
#ifndef X64EMU_FORM_MAP_H
#define X64EMU_FORM_MAP_H

#include <stdbool.h>
#include <stdint.h>

typedef struct Form Form;

/* One table per opcode map, numbered as DecodeCtx.map (the x87 rows are the one-byte
 * map's). */
enum { TABLE_ONEBYTE, TABLE_0F, TABLE_0F38, TABLE_0F3A, TABLES };

/* The rows of one opcode map, and the rows that may fit each opcode, in file order. */
typedef struct FormMap {
  const Form *rows;
  const Form *watched; /* the same rows, with the handlers that report memory accesses */
  const Form *ordered; /* and with those that keep x86's memory order on a weaker host
                          (the plain rows where the host's own order is x86's) */
  uint16_t first[257]; /* rows fitting opcode o: order[first[o] .. first[o + 1]) */
  uint16_t *order;
} FormMap;

/* Builds the per-opcode lists of every table; false when out of memory. */
bool form_maps_build(FormMap maps[TABLES]);
void form_maps_free(FormMap maps[TABLES]);

#endif
