/* capstone_lib.c: Capstone opened on first use (capstone_lib.h). */
#include "capstone_lib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/* The library's file name, as the build found it (its SONAME). */
#ifndef X64EMU_CAPSTONE_SONAME
#error "the build names Capstone's shared library in X64EMU_CAPSTONE_SONAME"
#endif

static CapstoneLib lib;
static bool loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
  void *h = dlopen(X64EMU_CAPSTONE_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (h) {
    lib.open = (typeof(cs_open) *)dlsym(h, "cs_open");
    lib.close = (typeof(cs_close) *)dlsym(h, "cs_close");
    lib.malloc = (typeof(cs_malloc) *)dlsym(h, "cs_malloc");
    lib.free = (typeof(cs_free) *)dlsym(h, "cs_free");
    lib.disasm_iter = (typeof(cs_disasm_iter) *)dlsym(h, "cs_disasm_iter");
    lib.version = (typeof(cs_version) *)dlsym(h, "cs_version");
    loaded = lib.open && lib.close && lib.malloc && lib.free && lib.disasm_iter && lib.version;
  }
  if (!loaded)
    fprintf(stderr, "x64emu: cannot load Capstone (%s): %s; instructions outside x64emu's "
                    "table are reported undefined, without their disassembly\n",
            X64EMU_CAPSTONE_SONAME, h ? "a function is missing" : dlerror());
}

const CapstoneLib *capstone_lib(void) {
  pthread_once(&once, load);
  return loaded ? &lib : NULL;
}
