/* machine.c: creating and destroying a machine's core state. */
#include "machine.h"

#include <string.h>

#include "../host/host_crypto.h"

bool machine_init(Machine *m) {
  memset(m, 0, sizeof *m);
  m->fp_tier = fp_tier_best();
  m->code_crypto = host_crypto_accel;
  pthread_mutex_init(&m->lock, NULL);
  if (!decoder_open(&m->dec, &m->model)) return false;
  if (!block_cache_init(&m->code, &m->dec)) {
    decoder_close(&m->dec);
    return false;
  }
  return true;
}

void machine_watch(Machine *m, unsigned reason, bool on) {
  m->watchers = on ? m->watchers | reason : m->watchers & ~reason;
  if (m->dec.watch_memory == (m->watchers != 0)) return;
  m->dec.watch_memory = m->watchers != 0;
  block_flush_all(&m->code);
}

void machine_order_memory(Machine *m) {
#ifdef X64EMU_HAS_ORDERED_COPY
  if (m->dec.ordered_memory) return;
  m->dec.ordered_memory = true;
  block_flush_all(&m->code);
#else
  (void)m; /* x86-64: the host's order is x86's */
#endif
}

void machine_destroy(Machine *m) {
  block_cache_destroy(&m->code);
  ranges_free(&m->mem);
  decoder_close(&m->dec);
}
