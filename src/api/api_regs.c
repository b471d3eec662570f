/* api_regs.c: reading and writing the CPU's registers. */
#include <string.h>

#include "../interp/flags.h"
#include "../interp/mxcsr.h"
#include "../interp/run.h"
#include "../interp/x87.h"
#include "api.h"

size_t x64emu_reg_size(int reg) {
  if (reg < 0 || reg >= X64EMU_REG_COUNT) return 0;
  if (reg <= X64EMU_REG_GS_BASE) return 8;
  if (reg == X64EMU_REG_MXCSR) return 4;
  if (reg <= X64EMU_REG_FTW) return 2;
  if (reg <= X64EMU_REG_XMM15) return 16;
  return 10;
}

/* st(i) is physical register (top + i) & 7. */
static unsigned st_phys(const Cpu *c, int reg) { return (c->fpu.top + reg - X64EMU_REG_ST0) & 7; }

x64emu_status x64emu_reg_read(x64emu *x, int reg, void *value) {
  if (!x || !value) return X64EMU_ERR_ARG;
  Cpu *c = x->c;
  uint64_t v;
  /* Hooks read registers at every instruction: the usual ones by direct branches first
   * (an indirect jump whose target changes from call to call is mispredicted). */
  if ((unsigned)reg <= X64EMU_REG_RIP) {
    v = reg == X64EMU_REG_RIP ? c->rip : c->r[reg];
    memcpy(value, &v, 8);
    return X64EMU_OK;
  }
  if (reg >= X64EMU_REG_XMM0 && reg <= X64EMU_REG_XMM15) {
    memcpy(value, &c->xmm[reg - X64EMU_REG_XMM0], 16);
    return X64EMU_OK;
  }
  switch (reg) {
  case X64EMU_REG_RAX ... X64EMU_REG_R15: v = c->r[reg]; break;
  case X64EMU_REG_RIP: v = c->rip; break;
  case X64EMU_REG_RFLAGS: v = flags_get(c); break;
  case X64EMU_REG_FS_BASE: v = c->fs_base; break;
  case X64EMU_REG_GS_BASE: v = c->gs_base; break;
  case X64EMU_REG_MXCSR: memcpy(value, &c->mxcsr, 4); return X64EMU_OK;
  case X64EMU_REG_FCW: memcpy(value, &c->fpu.cw, 2); return X64EMU_OK;
  case X64EMU_REG_FSW: {
    uint16_t w = x87_status_word(&c->fpu);
    memcpy(value, &w, 2);
    return X64EMU_OK;
  }
  case X64EMU_REG_FTW: {
    uint16_t w = x87_tag_word(&c->fpu);
    memcpy(value, &w, 2);
    return X64EMU_OK;
  }
  case X64EMU_REG_XMM0 ... X64EMU_REG_XMM15:
    memcpy(value, &c->xmm[reg - X64EMU_REG_XMM0], 16);
    return X64EMU_OK;
  case X64EMU_REG_ST0 ... X64EMU_REG_ST7: x87_image(&c->fpu, st_phys(c, reg), value); return X64EMU_OK;
  default: return X64EMU_ERR_REG;
  }
  memcpy(value, &v, 8); /* little-endian host */
  return X64EMU_OK;
}

x64emu_status x64emu_reg_write(x64emu *x, int reg, const void *value) {
  size_t size = x64emu_reg_size(reg);
  if (!x || !value) return X64EMU_ERR_ARG;
  if (!size) return X64EMU_ERR_REG;
  if (x->in_mem_hook) return X64EMU_ERR_RUNNING;
  Cpu *c = x->c;
  if (reg >= X64EMU_REG_XMM0 && reg <= X64EMU_REG_XMM15) {
    memcpy(&c->xmm[reg - X64EMU_REG_XMM0], value, 16);
    return X64EMU_OK;
  }
  if (reg >= X64EMU_REG_ST0) {
    x87_set_image(&c->fpu, st_phys(c, reg), value);
    return X64EMU_OK;
  }
  uint64_t v = 0;
  memcpy(&v, value, size);
  if (reg <= X64EMU_REG_R15) c->r[reg] = v;
  else if (reg == X64EMU_REG_RIP) c->rip = v;
  else if (reg == X64EMU_REG_RFLAGS) flags_set(c, (v & (F_ARITH | F_DF | F_AC | F_ID)) | F_IF);
  else if (reg == X64EMU_REG_FS_BASE) c->fs_base = v;
  else if (reg == X64EMU_REG_GS_BASE) c->gs_base = v;
  else if (reg == X64EMU_REG_MXCSR) {
    if (v & ~(uint64_t)MXCSR_WRITABLE) return X64EMU_ERR_ARG;
    c->mxcsr = (uint32_t)v;
  } else if (reg == X64EMU_REG_FCW) c->fpu.cw = (uint16_t)v;
  else if (reg == X64EMU_REG_FSW) x87_set_status_word(&c->fpu, (uint16_t)v);
  else x87_set_tag_word(&c->fpu, (uint16_t)v);
  if (reg == X64EMU_REG_MXCSR || reg == X64EMU_REG_FCW) cpu_fp_controls_loaded(c);
  return X64EMU_OK;
}

x64emu_status x64emu_reg_view(x64emu *x, int reg, const void **view) {
  if (!x || !view) return X64EMU_ERR_ARG;
  const Cpu *c = x->c;
  if ((unsigned)reg <= X64EMU_REG_R15) *view = &c->r[reg];
  else if (reg == X64EMU_REG_RIP) *view = &c->rip;
  else if (reg == X64EMU_REG_FS_BASE) *view = &c->fs_base;
  else if (reg == X64EMU_REG_GS_BASE) *view = &c->gs_base;
  else if (reg == X64EMU_REG_MXCSR) *view = &c->mxcsr;
  else if (reg == X64EMU_REG_FCW) *view = &c->fpu.cw;
  else if (reg >= X64EMU_REG_XMM0 && reg <= X64EMU_REG_XMM15) *view = &c->xmm[reg - X64EMU_REG_XMM0];
  else return X64EMU_ERR_REG;
  return X64EMU_OK;
}
