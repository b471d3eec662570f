/* process.c: making and ending a guest process's state. */
#include "process.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../interp/run.h"

bool process_init(Process *p, const char *exe_path) {
  memset(p, 0, sizeof *p);
  if (!machine_init(&p->machine)) return false;
  cpu_init(&p->main.cpu, &p->machine);
  p->main.cpu.owner = &p->main;
  p->main.proc = p;
  p->vfork_fd = -1;
  p->self_fd = -1;
  threads_init(&p->main.cpu);
  snprintf(p->exe_path, sizeof p->exe_path, "%s", exe_path);
  return true;
}

void process_destroy(Process *p) {
  threads_destroy(&p->threads);
  machine_destroy(&p->machine);
  free(p->shm);
  seccomp_free_all(p->seccomp_kept);
}
