/* split_lock.h: the one lock of misaligned atomic instructions ("split locks"). */
#ifndef X64EMU_SPLIT_LOCK_H
#define X64EMU_SPLIT_LOCK_H

#include "cpu.h"

/* A misaligned LOCK operand takes this process-wide lock instead of a host atomic
 * (atomic.c). It lives outside the handlers, which are compiled more than once, so that
 * every copy takes the same one; c->split_locked says c holds it, so that a fault while
 * it does (another thread unmapped the operand after its probe) gives it back. */
void split_lock_take(Cpu *c);
void split_lock_give(Cpu *c);

#endif
