/* test_machine.h: the one core machine of a test program that decodes and runs guest
 * code without the Linux personality, made on first use. */
#ifndef TEST_MACHINE_H
#define TEST_MACHINE_H

#include <stdio.h>
#include <stdlib.h>

#include "interp/machine.h"
#include "interp/run.h"

static inline Machine *test_machine(void) {
  static Machine m;
  static bool made;
  if (!made) {
    if (!machine_init(&m)) {
      fprintf(stderr, "test: cannot make a machine (Capstone, or the code cache)\n");
      exit(1);
    }
    made = true;
  }
  return &m;
}

#endif
