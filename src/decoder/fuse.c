/* fuse.c: runs of register-form AESENCs, as OpenSSL's CTR and ECB loops issue them for
 * every block of a batch, into one record that runs the host's AESENCs back to back
 * (ops_crypto.h, op_aesenc_run): a dispatch for the run instead of one each, and the
 * host overlaps the independent rounds. The compare and conditional jump that end most
 * loops' blocks into one dispatch (ops_fast.h, fast_fused_jcc). And a register copy with
 * the register operation after it (fast_after_move). */
#include "fuse.h"

#include <stddef.h>

#include "../interp/ops_crypto.h"
#include "../interp/ops_fast.h"

#define HOST_RUN(n) op_aesenc_run##n,
#define PORTABLE_RUN(n) op_aesenc_run##n##_portable,
static const Handler host_runs[] = {NULL, NULL, AESENC_RUNS(HOST_RUN)};
static const Handler portable_runs[] = {NULL, NULL, AESENC_RUNS(PORTABLE_RUN)};

#ifdef X64EMU_HAS_ORDERED_COPY
/* The ordered copy's (access.h): register forms touch no memory, so the plain runs do. */
void ordered_op_aesenc(Cpu *c, const Insn *in);
void ordered_op_aesenc_portable(Cpu *c, const Insn *in);
#endif

/* The fused handlers for runs of this tier's register-form AESENC (by length), or NULL. */
static const Handler *run_handlers(Handler fn) {
  if (fn == op_aesenc) return host_runs;
  if (fn == op_aesenc_portable) return portable_runs;
#ifdef X64EMU_HAS_ORDERED_COPY
  if (fn == ordered_op_aesenc) return host_runs;
  if (fn == ordered_op_aesenc_portable) return portable_runs;
#endif
  return NULL;
}

void fuse_runs(Insn *records, unsigned n) {
  for (unsigned i = 0; i < n;) {
    const Handler *runs = run_handlers(records[i].fn);
    unsigned k = 1;
    while (runs && k < AES_RUN_MAX && i + k < n && records[i + k].fn == records[i].fn) k++;
    if (k >= 2) {
      uint64_t pairs = 0;
      for (unsigned j = 0; j < k; j++)
        pairs |= (uint64_t)(records[i + j].reg | records[i + j].rm << 4) << (8 * j);
      records[i].fn = runs[k];
      records[i].imm = pairs;
      records[i].aux = (uint8_t)k;
    }
    i += k;
  }
}

void fuse_branch(Insn *records, unsigned n) {
  if (n < 2) return;
  Handler fused = fast_fused_jcc(records[n - 2].fn, records[n - 1].fn);
  if (fused) records[n - 2].fn = fused;
}

void fuse_moves(Insn *records, unsigned n) {
  for (unsigned i = 0; i + 1 < n; i++) {
    Handler fused = fast_after_move(records[i].fn, records[i + 1].fn);
    if (fused) {
      records[i].fn = fused;
      i++; /* the next record's work is done: it cannot start a pair of its own */
    }
  }
}
