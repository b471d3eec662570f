/* fuse.h: instruction runs that one record does faster than a record each. */
#ifndef X64EMU_FUSE_H
#define X64EMU_FUSE_H

#include "../interp/insn.h"
#include "../interp/ops_fast.h"

/* Fuses the runs of AESENCs among the n decoded records of a block that the pairing of
 * their copy of the handlers (ops_fast.h) fuses (before their chain bits are set): a
 * fused run's first record does the work of all, the others stay behind it, skipped. */
void fuse_runs(Insn *records, unsigned n, const FastPairing *pairing);

/* When a specialised flag setter is followed by a Jcc that the pairing of the records'
 * copy of the handlers (ops_fast.h) fuses with it, the block's last two records or a
 * side exit, the first does both; the Jcc's record stays, for its target and link (and
 * as the block's last). Only in blocks run whole: a lone instruction is not fused. */
void fuse_branch(Insn *records, unsigned n, const FastPairing *pairing);

/* When a record is a register copy and the next one a specialised register operation
 * that the pairing (ops_fast.h) does after it, the copy's record does both; the other
 * stays, skipped. Run once the handlers are final (after the flags nothing reads are
 * dropped), and only in blocks run whole. */
void fuse_moves(Insn *records, unsigned n, const FastPairing *pairing);

/* When a block is exactly OpenSSL's loop over one block's AES rounds (ops_crypto.h,
 * op_aesenc_loop), its first record runs the passes (the pairing's round loop). Run once
 * the handlers are final, and only in blocks run whole. */
void fuse_round_loop(Insn *records, unsigned n, const FastPairing *pairing);

#endif
