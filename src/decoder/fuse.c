/* fuse.c: runs of register-form AESENCs, as OpenSSL's CTR and ECB loops issue them for
 * every block of a batch, into one record that runs the host's AESENCs back to back
 * (ops_crypto.h, op_aesenc_run): a dispatch for the run instead of one each, and the
 * host overlaps the independent rounds. OpenSSL's loop over one block's rounds into one
 * record that keeps the state in host registers (op_aesenc_loop). The compare and
 * conditional jump that end most loops' blocks into one dispatch (ops_fast.h,
 * FastPairing.fused_jcc). And a register copy with the register operation after it
 * (FastPairing.after_move). */
#include "fuse.h"

#include <stddef.h>

#include "../interp/ops_crypto.h"
#include "../interp/ops_fast.h"
#include "../interp/ops_sse.h"

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

/* The fused round loop of this tier's register-form AESENC or AESDEC, or NULL. */
static Handler loop_handler(Handler fn) {
  if (fn == op_aesenc) return op_aesenc_loop;
  if (fn == op_aesenc_portable) return op_aesenc_loop_portable;
  if (fn == op_aesdec) return op_aesdec_loop;
  if (fn == op_aesdec_portable) return op_aesdec_loop_portable;
  return NULL;
}

/* A plain address: base + disp, no index, segment or 32-bit arithmetic. */
static bool base_disp(const Insn *in) {
  return in->base != REG_NONE && in->index == REG_NONE && in->seg == SEG_NONE && !in->addr32;
}

void fuse_round_loop(Insn *records, unsigned n) {
  if (n != 5) return;
  const Insn *round = &records[0], *dec = &records[1], *load = &records[2], *lea = &records[3],
             *jnz = &records[4];
  Handler fused = loop_handler(round->fn);
  if (!fused || round->mem || round->reg == round->rm) return;
  if (!fast_is_dec32(dec->fn) || !fast_is_jnz(jnz->fn) || jnz->imm != round->rip) return;
  if (load->fn != op_movu_load_m || !base_disp(load) || load->reg != round->rm) return;
  if (!fast_is_lea64_base_disp(lea->fn) || !base_disp(lea) || lea->reg != load->base ||
      lea->base != load->base || dec->rm == load->base)
    return;
  records[0].fn = fused;
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
