/* ops_fast.h: specialised handlers for the hottest instruction forms. */
#ifndef X64EMU_OPS_FAST_H
#define X64EMU_OPS_FAST_H

#include "insn.h"

/* Replaces in->fn, a generic handler, with its specialised copy when there is one. The
 * copy behaves exactly like the generic handler on this Insn; the differential tests
 * reach the copies through the decoder, which always installs them. */
void fast_specialize(Insn *in);

#endif
