/* model.h: the integer instructions where an x86-64 host of another vendor disagrees with
 * x64emu's CPU model (docs/cpu-model.md), and the model's rule for each. On such a host
 * run_native runs them by the rule: each one starts with INT3 for that run, and the trap
 * applies the rule to the registers and resumes after the instruction. */
#ifndef X64EMU_DIFF_MODEL_H
#define X64EMU_DIFF_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <ucontext.h>

/* The instructions of the code about to run natively (offsets into the code page and
 * lengths). Those a rule may govern are noted; the rest run on the host as they are. */
void model_sites_set(const uint16_t *at, const uint8_t *len, unsigned n);

/* Called by run_native around the native run: puts INT3 where a rule may apply (when the
 * tests judge by the model), and takes it away again. */
void model_arm(void);
void model_disarm(void);
/* True when a rule was applied during the last armed run. */
bool model_applied(void);

/* The SIGTRAP of an armed site: applies its rule to the context (or, when the rule does
 * not cover the registers at hand, restores the instruction to run on the host). False
 * when the trap is not at a site. */
bool model_trap(ucontext_t *uc);

/* Cases judged by a rule so far, and the rules' disagreements with the CPU (counted when
 * the host is taken as another vendor but is the model's). */
extern uint64_t model_judged_total, model_disagreements;
/* Prints what the rules judged, one line per rule, after cpu_model_print_path's line. */
void model_print_summary(const char *test);

#endif
