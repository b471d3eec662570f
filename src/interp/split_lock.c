/* split_lock.c: the lock of misaligned atomic instructions (split_lock.h). */
#include "split_lock.h"

#include <pthread.h>

static pthread_mutex_t split_lock = PTHREAD_MUTEX_INITIALIZER;

void split_lock_take(Cpu *c) {
  pthread_mutex_lock(&split_lock);
  c->split_locked = true;
}

void split_lock_give(Cpu *c) {
  c->split_locked = false;
  pthread_mutex_unlock(&split_lock);
}
