/* fuse.c: runs of register-form AESENCs, as OpenSSL's CTR and ECB loops issue them for
 * every block of a batch, into one record that runs the host's AESENCs back to back
 * (ops_crypto.h, op_aesenc_run): a dispatch for the run instead of one each, and the
 * host overlaps the independent rounds. OpenSSL's loop over one block's rounds into one
 * record that keeps the state in host registers (op_aesenc_loop). The compare and
 * conditional jump that end most loops' blocks into one dispatch (ops_fast.h,
 * FastPairing.fused_jcc). And a register copy with the register operation after it
 * (FastPairing.after_move). Which handlers fuse, the records' copy of the handlers says
 * (its FastPairing). */
#include "fuse.h"

#include <stddef.h>

#include "../interp/ops_crypto.h"

void fuse_runs(Insn *records, unsigned n, const FastPairing *pairing) {
  for (unsigned i = 0; i < n;) {
    unsigned k = 1;
    while (k < AES_RUN_MAX && i + k < n && records[i + k].fn == records[i].fn) k++;
    Handler run = k >= 2 ? pairing->aesenc_run(records[i].fn, k) : NULL;
    if (run) {
      uint64_t pairs = 0;
      for (unsigned j = 0; j < k; j++)
        pairs |= (uint64_t)(records[i + j].reg | records[i + j].rm << 4) << (8 * j);
      records[i].fn = run;
      records[i].imm = pairs;
      records[i].aux = (uint8_t)k;
    }
    i += k;
  }
}

void fuse_round_loop(Insn *records, unsigned n, const FastPairing *pairing) {
  Handler loop = pairing->round_loop(records, n);
  if (loop) records[0].fn = loop;
}

void fuse_branch(Insn *records, unsigned n, const FastPairing *pairing) {
  for (unsigned i = 0; i + 1 < n; i++) {
    if (i + 2 < n && !records[i + 1].side_exit) continue;
    Handler fused = pairing->fused_jcc(records[i].fn, records[i + 1].fn);
    if (fused) records[i].fn = fused;
  }
}

void fuse_moves(Insn *records, unsigned n, const FastPairing *pairing) {
  for (unsigned i = 0; i + 1 < n; i++) {
    Handler fused = pairing->after_move(records[i].fn, records[i + 1].fn);
    if (fused) {
      records[i].fn = fused;
      i++; /* the next record's work is done: it cannot start a pair of its own */
    }
  }
}
