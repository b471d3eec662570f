/* decode_x87.c: the x87 escape opcodes D8..DF. */
#include "decode.h"

bool decode_x87(DecodeCtx *d, Insn *in) { (void)d; (void)in; return false; }
