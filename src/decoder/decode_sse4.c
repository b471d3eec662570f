/* decode_sse4.c: SSSE3, SSE4.1 and SSE4.2 forms of the 0F 38 and 0F 3A maps. */
#include "../interp/ops_sse.h"
#include "sse_forms.h"

/* Not implemented yet: every slot is empty, so these are guest SIGILLs. */
static const SseForm map_0f38[256][4];
static const SseForm map_0f3a[256][4];

const SseForm *sse4_form(unsigned map, uint8_t opcode, unsigned prefix) {
  return map == MAP_0F38 ? &map_0f38[opcode][prefix] : &map_0f3a[opcode][prefix];
}
