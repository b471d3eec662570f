/* decode_sse.c: SSE forms of the 0F, 0F 38 and 0F 3A maps. */
#include "decode.h"

bool decode_sse(DecodeCtx *d, Insn *in) { (void)d; (void)in; return false; }
