/* gdb_target.c: the target description (gdb_target.h), made once from the register
 * table: gdb's x86-64 features, whose names and register names gdb's amd64 and
 * amd64-linux support look for. */
#include "gdb_target.h"

#include <stdio.h>
#include <string.h>

/* Register n's name, size and type, in the stub's numbering; the feature each group of
 * them starts. */
static const struct {
  const char *feature; /* when not NULL, a new feature begins here */
  const char *name;
  unsigned bits;
  const char *type, *group;
} regs[GDB_REGS] = {
    {"core", "rax", 64, "int64", NULL}, {NULL, "rbx", 64, "int64", NULL},
    {NULL, "rcx", 64, "int64", NULL},   {NULL, "rdx", 64, "int64", NULL},
    {NULL, "rsi", 64, "int64", NULL},   {NULL, "rdi", 64, "int64", NULL},
    {NULL, "rbp", 64, "data_ptr", NULL}, {NULL, "rsp", 64, "data_ptr", NULL},
    {NULL, "r8", 64, "int64", NULL},    {NULL, "r9", 64, "int64", NULL},
    {NULL, "r10", 64, "int64", NULL},   {NULL, "r11", 64, "int64", NULL},
    {NULL, "r12", 64, "int64", NULL},   {NULL, "r13", 64, "int64", NULL},
    {NULL, "r14", 64, "int64", NULL},   {NULL, "r15", 64, "int64", NULL},
    {NULL, "rip", 64, "code_ptr", NULL}, {NULL, "eflags", 32, "i386_eflags", NULL},
    {NULL, "cs", 32, "int32", NULL},    {NULL, "ss", 32, "int32", NULL},
    {NULL, "ds", 32, "int32", NULL},    {NULL, "es", 32, "int32", NULL},
    {NULL, "fs", 32, "int32", NULL},    {NULL, "gs", 32, "int32", NULL},
    {NULL, "st0", 80, "i387_ext", NULL}, {NULL, "st1", 80, "i387_ext", NULL},
    {NULL, "st2", 80, "i387_ext", NULL}, {NULL, "st3", 80, "i387_ext", NULL},
    {NULL, "st4", 80, "i387_ext", NULL}, {NULL, "st5", 80, "i387_ext", NULL},
    {NULL, "st6", 80, "i387_ext", NULL}, {NULL, "st7", 80, "i387_ext", NULL},
    {NULL, "fctrl", 32, "int", "float"}, {NULL, "fstat", 32, "int", "float"},
    {NULL, "ftag", 32, "int", "float"}, {NULL, "fiseg", 32, "int", "float"},
    {NULL, "fioff", 32, "int", "float"}, {NULL, "foseg", 32, "int", "float"},
    {NULL, "fooff", 32, "int", "float"}, {NULL, "fop", 32, "int", "float"},
    {"sse", "xmm0", 128, "vec128", NULL}, {NULL, "xmm1", 128, "vec128", NULL},
    {NULL, "xmm2", 128, "vec128", NULL}, {NULL, "xmm3", 128, "vec128", NULL},
    {NULL, "xmm4", 128, "vec128", NULL}, {NULL, "xmm5", 128, "vec128", NULL},
    {NULL, "xmm6", 128, "vec128", NULL}, {NULL, "xmm7", 128, "vec128", NULL},
    {NULL, "xmm8", 128, "vec128", NULL}, {NULL, "xmm9", 128, "vec128", NULL},
    {NULL, "xmm10", 128, "vec128", NULL}, {NULL, "xmm11", 128, "vec128", NULL},
    {NULL, "xmm12", 128, "vec128", NULL}, {NULL, "xmm13", 128, "vec128", NULL},
    {NULL, "xmm14", 128, "vec128", NULL}, {NULL, "xmm15", 128, "vec128", NULL},
    {NULL, "mxcsr", 32, "i386_mxcsr", "vector"},
    {"segments", "fs_base", 64, "int", NULL}, {NULL, "gs_base", 64, "int", NULL},
    {"linux", "orig_rax", 64, "int", NULL},
};

/* The flag bits gdb names in eflags and MXCSR ("" for a bit it leaves out). */
static const char *const eflags_bits[] = {"CF", "", "PF", "", "AF", "", "ZF", "SF",
                                          "TF", "IF", "DF", "OF", "", "", "NT", "",
                                          "RF", "VM", "AC", "VIF", "VIP", "ID"};
static const char *const mxcsr_bits[] = {"IE", "DE", "ZE", "OE", "UE", "PE", "DAZ", "IM",
                                         "DM", "ZM", "OM", "UM", "PM", "", "", "FZ"};

/* Appends to buf[*at, size), as snprintf does. */
#define PUT(...) (*at += (size_t)snprintf(buf + *at, *at < size ? size - *at : 0, __VA_ARGS__))

static void put_flags(char *buf, size_t size, size_t *at, const char *id, const char *const *bits,
                      unsigned n) {
  PUT("<flags id=\"%s\" size=\"4\">", id);
  for (unsigned i = 0; i < n; i++)
    if (*bits[i]) PUT("<field name=\"%s\" start=\"%u\" end=\"%u\"/>", bits[i], i, i);
  PUT("</flags>");
}

/* The types a feature's registers use, defined at its start. */
static void put_types(char *buf, size_t size, size_t *at, const char *feature) {
  if (strcmp(feature, "core") == 0) {
    put_flags(buf, size, at, "i386_eflags", eflags_bits, sizeof eflags_bits / sizeof *eflags_bits);
  } else if (strcmp(feature, "sse") == 0) {
    static const struct { const char *field, *id, *type; unsigned count; } lanes[] = {
        {"v4_float", "v4f", "ieee_single", 4}, {"v2_double", "v2d", "ieee_double", 2},
        {"v16_int8", "v16i8", "int8", 16},     {"v8_int16", "v8i16", "int16", 8},
        {"v4_int32", "v4i32", "int32", 4},     {"v2_int64", "v2i64", "int64", 2},
    };
    for (size_t i = 0; i < sizeof lanes / sizeof *lanes; i++)
      PUT("<vector id=\"%s\" type=\"%s\" count=\"%u\"/>", lanes[i].id, lanes[i].type, lanes[i].count);
    PUT("<union id=\"vec128\">");
    for (size_t i = 0; i < sizeof lanes / sizeof *lanes; i++)
      PUT("<field name=\"%s\" type=\"%s\"/>", lanes[i].field, lanes[i].id);
    PUT("<field name=\"uint128\" type=\"uint128\"/></union>");
    put_flags(buf, size, at, "i386_mxcsr", mxcsr_bits, sizeof mxcsr_bits / sizeof *mxcsr_bits);
  }
}

const char *gdb_target_xml(void) {
  static char buf[16384];
  static size_t len;
  if (len) return buf;
  size_t size = sizeof buf, at0 = 0, *at = &at0;
  PUT("<?xml version=\"1.0\"?><!DOCTYPE target SYSTEM \"gdb-target.dtd\"><target>"
      "<architecture>i386:x86-64</architecture><osabi>GNU/Linux</osabi>");
  for (unsigned n = 0; n < GDB_REGS; n++) {
    if (regs[n].feature) {
      if (n) PUT("</feature>");
      PUT("<feature name=\"org.gnu.gdb.i386.%s\">", regs[n].feature);
      put_types(buf, size, at, regs[n].feature);
    }
    PUT("<reg name=\"%s\" bitsize=\"%u\" type=\"%s\" regnum=\"%u\"", regs[n].name, regs[n].bits,
        regs[n].type, n);
    if (regs[n].group) PUT(" group=\"%s\"", regs[n].group);
    PUT("/>");
  }
  PUT("</feature></target>");
  len = at0 < size ? at0 : size - 1;
  return buf;
}
