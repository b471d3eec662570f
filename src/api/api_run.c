/* api_run.c: running, stepping, breakpoints and disassembly: a loop over the core's stop
 * reasons (and the Linux personality's, for Linux machines). */
#include <signal.h>
#include <string.h>

#include "../decoder/decode.h"
#include "../interp/run.h"
#include "../linux-user/linux_run.h"
#include "api.h"

/* One run of the core, or of the Linux personality over it, as a stop of the API; false
 * when a hook handled it and the run goes on. */
static bool stop_of(x64emu *x, StopReason why, x64emu_stop *s) {
  Cpu *c = x->c;
  memset(s, 0, sizeof *s);
  switch (why) {
  case STOP_SYSCALL:
    s->reason = X64EMU_STOP_SYSCALL;
    return !api_hooks_event(x, HOOK_SYSCALL, s);
  case STOP_FAULT:
    *s = (x64emu_stop){X64EMU_STOP_FAULT, c->fault.sig, c->fault.code, c->fault.addr, 0};
    if (c->fault.sig == SIGILL && api_hooks_event(x, HOOK_INVALID, s)) return false;
    return !api_hooks_event(x, HOOK_FAULT, s);
  case STOP_ADDRESS: s->reason = X64EMU_STOP_UNTIL; return true;
  case STOP_BREAKPOINT: s->reason = X64EMU_STOP_BREAKPOINT; return true;
  case STOP_BUDGET: s->reason = X64EMU_STOP_COUNT; return true;
  case STOP_REQUESTED: s->reason = X64EMU_STOP_REQUESTED; return true;
  case STOP_EXIT:
    *s = (x64emu_stop){.reason = X64EMU_STOP_EXIT, .signal = c->term_signal,
                       .exit_status = c->exit_status};
    return true;
  case STOP_EVENT: /* nothing of a bare machine's: a stop request beat it */
  default:
    cpu_clear_events(c, ~(uint32_t)EV_STOP);
    return false;
  }
}

x64emu_status x64emu_run(x64emu *x, uint64_t until, uint64_t count, x64emu_stop *stop) {
  if (!x || !stop) return X64EMU_ERR_ARG;
  if (x->running) return X64EMU_ERR_RUNNING;
  Cpu *c = x->c;
  c->icount_limit = count && c->icount + count > c->icount ? c->icount + count : UINT64_MAX;
  x->running = true;
  for (;;) {
    StopReason why = x->proc ? linux_run(c, until) : cpu_run(c, until);
    if (stop_of(x, why, stop)) break;
  }
  x->running = false;
  c->icount_limit = UINT64_MAX;
  return X64EMU_OK;
}

x64emu_status x64emu_step(x64emu *x, x64emu_stop *stop) { return x64emu_run(x, 0, 1, stop); }

x64emu_status x64emu_stop_run(x64emu *x) {
  if (!x) return X64EMU_ERR_ARG;
  cpu_request_stop(x->c, STOP_REQUESTED);
  return X64EMU_OK;
}

uint64_t x64emu_icount(const x64emu *x) { return x ? x->c->icount : 0; }

x64emu_status x64emu_breakpoint_add(x64emu *x, uint64_t address) {
  if (!x) return X64EMU_ERR_ARG;
  if (x->running) return X64EMU_ERR_RUNNING;
  return block_breakpoint_set(&x->m->code, address, true) ? X64EMU_OK : X64EMU_ERR_NOMEM;
}

x64emu_status x64emu_breakpoint_remove(x64emu *x, uint64_t address) {
  if (!x) return X64EMU_ERR_ARG;
  if (x->running) return X64EMU_ERR_RUNNING;
  if (!block_breakpoint_at(&x->m->code, address)) return X64EMU_ERR_ARG;
  block_breakpoint_set(&x->m->code, address, false);
  return X64EMU_OK;
}

x64emu_status x64emu_disasm(x64emu *x, uint64_t address, char *text, size_t size, unsigned *length) {
  if (!x || !text || !size) return X64EMU_ERR_ARG;
  uint8_t bytes[15];
  unsigned n = 0;
  while (n < sizeof bytes && x64emu_mem_read(x, address + n, bytes + n, 1) == X64EMU_OK) n++;
  if (!n) return X64EMU_ERR_UNMAPPED;
  unsigned len = decode_text(&x->m->dec, address, bytes, n, text, (unsigned)(size < 4096 ? size : 4096));
  if (length) *length = len;
  return len ? X64EMU_OK : X64EMU_ERR_DECODE;
}
