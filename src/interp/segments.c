/* segments.c: segment registers and descriptor tables as a Linux x86-64 process sees
 * them: MOV to and from a segment register, POP FS/GS, LFS/LGS/LSS, LAR, LSL, VERR, VERW,
 * and SGDT, SIDT, SLDT, STR, SMSW answered as the kernel's UMIP emulation answers them
 * (all measured; docs/cpu-model.md). */
#define _GNU_SOURCE /* getcpu */
#include <sched.h>

#include <signal.h>

#include "access.h"
#include "fault.h"
#include "flags.h"
#include "ops_int.h"
#include "run.h"

enum { SREG_ES, SREG_CS, SREG_SS, SREG_DS, SREG_FS, SREG_GS };

/* The descriptors of Linux's GDT with DPL 3, as LAR returns their access rights: the
 * 32-bit user code (0x23), user data (0x2b), 64-bit user code (0x33) and the per-CPU
 * entry whose limit is the CPU and node number (0x7b). The others are the kernel's
 * (DPL 0) or empty, and a process's LDT is empty. */
static const struct {
  uint16_t index;
  uint32_t access;
} user_gdt[] = {{4, 0x00cffb00}, {5, 0x00cff300}, {6, 0x00affb00}, {15, 0x0040f500}};
enum { GDT_CPUNODE = 15, ACCESS_CODE = 0x800, ACCESS_WRITABLE = 0x200 };

/* The access rights of the descriptor a selector names, or 0 for none user mode may use. */
static uint32_t descriptor_access(uint16_t selector) {
  if (selector & 4) return 0; /* the LDT */
  for (unsigned i = 0; i < sizeof user_gdt / sizeof *user_gdt; i++)
    if (user_gdt[i].index == selector >> 3) return user_gdt[i].access;
  return 0;
}

/* The segment limit LSL gives: 4 GiB - 1 (page granular) but for the per-CPU entry,
 * whose limit the kernel sets to (node << 12) | cpu. */
static uint32_t descriptor_limit(uint16_t selector) {
  if (selector >> 3 != GDT_CPUNODE) return 0xffffffff;
  unsigned cpu = 0, node = 0;
  getcpu(&cpu, &node);
  return (node << 12) | (cpu & 0xfff);
}

/* Loads a selector into ES, SS, DS, FS or GS, or raises #GP(selector) for one Linux's
 * GDT does not allow there: SS takes only the user data segment (0x2b, RPL 3); the
 * others a null selector or any user descriptor (all are readable). A load sets FS's or
 * GS's base to that of the descriptor, 0, a null selector's too (Intel's behaviour). */
static void sreg_load(Cpu *c, unsigned sreg, uint16_t v) {
  bool ok = sreg == SREG_SS ? v == 0x2b : (v & 0xfffc) == 0 || descriptor_access(v) != 0;
  if (!ok) guest_gp(c, v & 0xfffc);
  c->sreg[sreg] = v;
  if (sreg == SREG_FS) c->fs_base = 0;
  if (sreg == SREG_GS) c->gs_base = 0;
  if (sreg == SREG_SS) c->trap_deferred = true; /* the next instruction is in its shadow */
}

/* 8C: a selector into a register (zero-extended to the operand size) or 16 bits of memory. */
void op_mov_from_sreg(Cpu *c, const Insn *in) {
  uint16_t v = c->sreg[in->op];
  if (in->mem) st16(ea(c, in), v);
  else reg_set(c, in->rm, v, in->osz);
  DISPATCH_NEXT(c, in);
}

/* 8E */
void op_mov_to_sreg(Cpu *c, const Insn *in) {
  sreg_load(c, in->op, (uint16_t)(in->mem ? ld16(ea(c, in)) : c->r[in->rm]));
  DISPATCH_NEXT(c, in);
}

/* 0F A1, 0F A9: POP FS, POP GS; RSP moves only once the selector loaded. */
void op_pop_sreg(Cpu *c, const Insn *in) {
  uint16_t v = (uint16_t)ld(c->r[RSP], in->osz);
  sreg_load(c, in->op, v);
  c->r[RSP] += in->osz;
  DISPATCH_NEXT(c, in);
}

/* 0F B2, 0F B4, 0F B5: LSS, LFS, LGS r, m16:16/32/64 (the offset first, then the
 * selector; with REX.W an 8-byte offset, Intel's m16:64). */
void op_load_far(Cpu *c, const Insn *in) {
  uint64_t a = ea(c, in);
  uint64_t offset = ld(a, in->osz);
  access_in_order();
  uint16_t selector = ld16(a + in->osz);
  sreg_load(c, in->op, selector);
  reg_set(c, in->reg, offset, in->osz);
  DISPATCH_NEXT(c, in);
}

/* 0F 02, 0F 03: LAR and LSL of the selector in r/m16: ZF and the access rights or the
 * limit for a user descriptor, else ZF clear and the destination unchanged. */
void op_lar_lsl(Cpu *c, const Insn *in) {
  uint16_t selector = (uint16_t)rm_get(c, in, 2);
  bool ok = descriptor_access(selector) != 0;
  if (ok) {
    uint64_t v = in->op ? descriptor_limit(selector) : descriptor_access(selector) & 0x00ffff00;
    reg_set(c, in->reg, v, in->osz);
  }
  flags_update(c, F_ZF, ok ? F_ZF : 0);
  DISPATCH_NEXT(c, in);
}

/* 0F 00 /4, /5: VERR, VERW: ZF if the segment could be read (every user one) or written
 * (the data segment). */
void op_verr_verw(Cpu *c, const Insn *in) {
  uint32_t access = descriptor_access((uint16_t)rm_get(c, in, 2));
  bool ok = in->op ? access && !(access & ACCESS_CODE) && (access & ACCESS_WRITABLE) : access != 0;
  flags_update(c, F_ZF, ok ? F_ZF : 0);
  DISPATCH_NEXT(c, in);
}

/* ---- the store instructions UMIP denies user mode, as the kernel emulates them ---- */

/* The kernel writes the result to memory as a copy to user space: where that fails
 * (unmapped, read-only, not canonical) the process gets SIGSEGV, SEGV_MAPERR, at the
 * operand's address, reported as a user write's page fault (trapno 14, error 6), whatever
 * the reason. It returns from its emulation without the single-step trap: under TF the
 * next instruction traps instead. An operand address of all ones is its address
 * decoder's error value: the kernel gives up on the emulation and delivers the #GP
 * itself (measured on an Intel Xeon with UMIP). */
static void kernel_store(Cpu *c, uint64_t a, const void *bytes, unsigned n) {
  if (a == UINT64_MAX) guest_gp(c, 0);
  if (canonical(a) && canonical(a + n - 1) && fault_copy_out(a, bytes, n) == n) {
    c->trap_deferred = true;
    return;
  }
  c->trapno = 14;
  c->trap_err = 6;
  guest_trap(c, SIGSEGV, SEGV_MAPERR, a);
}

/* Stores v as SMSW, SLDT and STR do under the kernel's emulation: 16 bits to memory or
 * to a 16-bit register, the low 32 bits of a wider register (its upper half kept),
 * but SMSW's 64-bit form writes all of it. */
static void store_emulated(Cpu *c, const Insn *in, uint64_t v, bool whole_register) {
  uint16_t word = (uint16_t)v;
  if (in->mem) {
    kernel_store(c, ea(c, in), &word, 2);
    return;
  }
  if (in->osz == 8 && whole_register) c->r[in->rm] = v;
  else if (in->osz == 2) reg_set(c, in->rm, v, 2);
  else c->r[in->rm] = (c->r[in->rm] & ~0xffffffffull) | (uint32_t)v;
  c->trap_deferred = true;
}

/* 0F 00 /0, /1: SLDT (no LDT: 0), STR (the TSS's selector, 0x40). */
void op_sldt_str(Cpu *c, const Insn *in) {
  store_emulated(c, in, in->op ? 0x40 : 0, false);
  DISPATCH_NEXT(c, in);
}

/* 0F 01 /4: SMSW: the kernel's stand-in CR0 (PG AM WP NE ET MP PE). */
void op_smsw(Cpu *c, const Insn *in) {
  store_emulated(c, in, 0x80050033, true);
  DISPATCH_NEXT(c, in);
}

/* 0F 01 /0, /1 (memory): SGDT, SIDT: limit 0 and the kernel's stand-in base, 10 bytes. */
void op_sgdt_sidt(Cpu *c, const Insn *in) {
  uint8_t table[10] = {0};
  uint64_t base = in->op ? 0xffffffffffff0000ull : 0xfffffffffffe0000ull;
  memcpy(table + 2, &base, 8);
  kernel_store(c, ea(c, in), table, sizeof table);
  DISPATCH_NEXT(c, in);
}
