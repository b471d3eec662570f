/* gdbstub.c: gdb's remote serial protocol over TCP (gdbstub.h): `$packet#checksum`, each
 * acknowledged with '+' until gdb turns that off (QStartNoAckMode: TCP is reliable, and
 * the acknowledgements were a system call and a wake-up per packet each way). The
 * registers go in the order and sizes of the target description (gdb_target.h); runs are
 * the Linux loop's (linux_run) to a breakpoint, a watchpoint (the memory hook), a signal
 * (which gdb sees before the guest does), one instruction (an instruction budget of one),
 * or the end. */
#define _GNU_SOURCE /* accept4 */
#include "gdbstub.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "decoder/block.h"
#include "interp/access.h"
#include "interp/fault.h"
#include "interp/flags.h"
#include "interp/machine.h"
#include "interp/x87.h"
#include "gdb_target.h"
#include "interp/run.h"
#include "linux-user/linux_run.h"
#include "linux-user/own_fds.h"
#include "linux-user/process.h"

enum { PACKET_MAX = 4096, POLL_NS = 500000 };

typedef struct Watchpoint {
  int type; /* WATCH_WRITE... */
  uint64_t addr, len;
} Watchpoint;

enum { MAX_WATCH = 16 };

typedef struct Gdb {
  int fd;
  Cpu *c;
  const char *exe_path;
  Watchpoint watch[MAX_WATCH];
  unsigned n_watch;
  const Watchpoint *hit; /* the watchpoint that stopped the run */
  uint8_t auxv[512];     /* the auxiliary vector the program started with */
  size_t auxv_len;
  char in[PACKET_MAX + 1];
  char buf[PACKET_MAX]; /* what was read from gdb and not yet taken: buf[at, end) */
  size_t at, end;
  bool no_ack; /* QStartNoAckMode */
} Gdb;

static const char hexdigits[] = "0123456789abcdef";

static bool starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

static int hexval(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

static void to_hex(char *out, const uint8_t *b, size_t n) {
  for (size_t i = 0; i < n; i++) {
    out[2 * i] = hexdigits[b[i] >> 4];
    out[2 * i + 1] = hexdigits[b[i] & 15];
  }
  out[2 * n] = 0;
}

static bool from_hex(uint8_t *b, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    int hi = hexval(s[2 * i]), lo = hi < 0 ? -1 : hexval(s[2 * i + 1]);
    if (lo < 0) return false;
    b[i] = (uint8_t)(hi << 4 | lo);
  }
  return true;
}

/* Sends n bytes of data as one packet. */
static void send_bytes(Gdb *g, const char *data, size_t n) {
  char *p = malloc(n + 5);
  if (!p) return;
  unsigned sum = 0;
  for (size_t i = 0; i < n; i++) sum += (unsigned char)data[i];
  p[0] = '$';
  memcpy(p + 1, data, n);
  snprintf(p + 1 + n, 4, "#%02x", sum & 0xff);
  for (size_t done = 0; done < n + 4;) {
    ssize_t w = write(g->fd, p + done, n + 4 - done);
    if (w <= 0 && errno != EINTR) break;
    if (w > 0) done += (size_t)w;
  }
  free(p);
}

static void send_packet(Gdb *g, const char *data) { send_bytes(g, data, strlen(data)); }

/* A qXfer read of [off, off + len) of an object of n bytes: 'm' and the bytes, 'l' and the
 * last ones, in the protocol's binary form ('#', '$', '}' and '*' escaped with '}'). */
static void send_xfer(Gdb *g, const uint8_t *object, size_t n, uint64_t off, uint64_t len) {
  char out[PACKET_MAX];
  size_t at = 0;
  uint64_t i = off;
  out[at++] = 'l';
  for (; i < n && i - off < len && at + 2 < sizeof out; i++) {
    uint8_t b = object[i];
    if (b == '#' || b == '$' || b == '}' || b == '*') {
      out[at++] = '}';
      b ^= 0x20;
    }
    out[at++] = (char)b;
  }
  if (i < n) out[0] = 'm';
  send_bytes(g, out, at);
}

/* Reads what gdb has sent into g->buf; false when gdb is gone. It polls for a short
 * while before sleeping: gdb answers a stop at once (memory at the new PC), and waking a
 * process that sleeps on another CPU costs more than the exchange itself (stepping
 * measured 2.5 times faster on a 2-CPU virtual machine). */
static bool fill_buffer(Gdb *g) {
  struct timespec t0, now;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (;;) {
    ssize_t r = recv(g->fd, g->buf, sizeof g->buf, MSG_DONTWAIT);
    if (r < 0 && errno == EAGAIN) {
      clock_gettime(CLOCK_MONOTONIC, &now);
      if ((now.tv_sec - t0.tv_sec) * 1000000000L + (now.tv_nsec - t0.tv_nsec) >= POLL_NS)
        r = read(g->fd, g->buf, sizeof g->buf);
    }
    if (r > 0) {
      g->at = 0;
      g->end = (size_t)r;
      return true;
    }
    if (r == 0 || (errno != EINTR && errno != EAGAIN)) return false;
  }
}

/* The next byte from gdb, read a buffer at a time (a packet in one system call, not one
 * a byte); false when gdb is gone. */
static bool next_byte(Gdb *g, char *ch) {
  if (g->at == g->end && !fill_buffer(g)) return false;
  *ch = g->buf[g->at++];
  return true;
}

/* The next packet's data into g->in; false when gdb is gone. */
static bool receive_packet(Gdb *g) {
  char ch;
  for (;;) {
    if (!next_byte(g, &ch)) return false;
    if (ch == '$') break;
    if (ch == 0x03) { /* an interrupt between runs: nothing is running */
      strcpy(g->in, "?");
      return true;
    }
  }
  size_t n = 0;
  for (;;) {
    if (!next_byte(g, &ch)) return false;
    if (ch == '#') break;
    if (n < PACKET_MAX) g->in[n++] = ch;
  }
  g->in[n] = 0;
  char sum[2];
  if (!next_byte(g, &sum[0]) || !next_byte(g, &sum[1])) return false;
  if (!g->no_ack) (void)!write(g->fd, "+", 1);
  return true;
}

/* ---- registers, as gdb's amd64 target has them ---- */

static const unsigned gpr_order[16] = {RAX, RBX, RCX, RDX, RSI, RDI, RBP, RSP,
                                       R8,  R9,  R10, R11, R12, R13, R14, R15};
enum { REG_RIP_N = 16, REG_EFLAGS_N = 17, REG_CS_N = 18, REG_ST0_N = 24, REG_FCTRL_N = 32,
       REG_XMM0_N = 40, REG_MXCSR_N = 56, REG_FS_BASE_N = 57, REG_GS_BASE_N = 58,
       REG_ORIG_RAX_N = 59, REGS = GDB_REGS };

/* Register n's bytes, little-endian; its size. */
static unsigned reg_read(const Cpu *c, unsigned n, uint8_t *out) {
  uint64_t v = 0;
  unsigned size = 4;
  if (n < 16) v = c->r[gpr_order[n]], size = 8;
  else if (n == REG_RIP_N) v = c->rip, size = 8;
  else if (n == REG_EFLAGS_N) v = flags_get(c);
  else if (n < REG_ST0_N) v = c->sreg[(const unsigned[]){1, 2, 3, 0, 4, 5}[n - REG_CS_N]];
  else if (n < REG_FCTRL_N) {
    x87_image(&c->fpu, (c->fpu.top + n - REG_ST0_N) & 7, out);
    return 10;
  } else if (n == REG_FCTRL_N) v = c->fpu.cw;
  else if (n == REG_FCTRL_N + 1) v = x87_status_word(&c->fpu);
  else if (n == REG_FCTRL_N + 2) v = x87_tag_word(&c->fpu);
  else if (n < REG_XMM0_N) v = 0; /* the last instruction and operand pointers: not kept */
  else if (n < REG_MXCSR_N) {
    memcpy(out, &c->xmm[n - REG_XMM0_N], 16);
    return 16;
  } else if (n == REG_MXCSR_N) v = c->mxcsr;
  else if (n == REG_FS_BASE_N) v = c->fs_base, size = 8;
  else if (n == REG_GS_BASE_N) v = c->gs_base, size = 8;
  else v = UINT64_MAX, size = 8; /* orig_rax: never stopped inside a system call */
  memcpy(out, &v, size);
  return size;
}

static void reg_write(Cpu *c, unsigned n, const uint8_t *in) {
  uint64_t v = 0;
  memcpy(&v, in, n < REG_EFLAGS_N || n >= REG_FS_BASE_N ? 8 : 4);
  if (n < 16) c->r[gpr_order[n]] = v;
  else if (n == REG_RIP_N) c->rip = v;
  else if (n == REG_EFLAGS_N) flags_set(c, (v & (F_ARITH | F_DF | F_AC | F_TF | F_ID)) | F_IF);
  else if (n >= REG_ST0_N && n < REG_FCTRL_N) x87_set_image(&c->fpu, (c->fpu.top + n - REG_ST0_N) & 7, in);
  else if (n == REG_FCTRL_N) c->fpu.cw = (uint16_t)v;
  else if (n == REG_FCTRL_N + 1) x87_set_status_word(&c->fpu, (uint16_t)v);
  else if (n == REG_FCTRL_N + 2) x87_set_tag_word(&c->fpu, (uint16_t)v);
  else if (n >= REG_XMM0_N && n < REG_MXCSR_N) memcpy(&c->xmm[n - REG_XMM0_N], in, 16);
  else if (n == REG_MXCSR_N && !(v & ~0xFFFFull)) c->mxcsr = (uint32_t)v;
  else if (n == REG_FS_BASE_N && canonical(v)) c->fs_base = v;
  else if (n == REG_GS_BASE_N && canonical(v)) c->gs_base = v;
  if (n == REG_FCTRL_N || n == REG_MXCSR_N) cpu_fp_controls_loaded(c);
}

static void send_registers(Gdb *g) {
  char out[2 * 600 + 1];
  size_t at = 0;
  uint8_t b[16];
  for (unsigned n = 0; n < REGS; n++) {
    unsigned size = reg_read(g->c, n, b);
    to_hex(out + at, b, size);
    at += 2 * size;
  }
  send_packet(g, out);
}

/* ---- signals: gdb numbers them its own way (its signals.def) ---- */

/* Linux's 1..31 as gdb's; SIGSTKFLT has none. */
static const uint8_t gdb_signal_of[32] = {
    0,  1,  2,  3,  4,  5,  6,  10, 8,  9,  30, 11, 31, 13, 14, 15,
    143, 20, 19, 17, 18, 21, 22, 16, 24, 25, 26, 27, 28, 23, 32, 12,
};
enum { GDB_SIGNAL_UNKNOWN = 143 };

static int to_gdb_signal(int sig) {
  if (sig < 32) return gdb_signal_of[sig];
  if (sig == 32) return 77;           /* GDB_SIGNAL_REALTIME_32 */
  return sig <= 63 ? sig + 12 : 78;   /* REALTIME_33..63 from 45; 64 is REALTIME_64 */
}

/* 0 for a number gdb has that Linux does not. */
static int from_gdb_signal(int gs) {
  for (int sig = 1; sig <= 64; sig++)
    if (to_gdb_signal(sig) == gs && gs != GDB_SIGNAL_UNKNOWN) return sig;
  return 0;
}

/* QPassSignals:A;B;...: the signals gdb passes on without stopping (hex, its numbers). */
static void pass_signals(Gdb *g, const char *list) {
  uint64_t stop = ~0ull;
  for (const char *p = list; *p;) {
    char *end;
    int sig = from_gdb_signal((int)strtol(p, &end, 16));
    if (end == p) break;
    if (sig) stop &= ~(1ull << (sig - 1));
    p = *end == ';' ? end + 1 : end;
  }
  proc_of(g->c)->opt.stop_signals = stop;
}

/* ---- watchpoints: the memory hook on the stores and loads that gdb watches ---- */

/* gdb's Z2, Z3, Z4: a write, read or access watchpoint, as its stop reply names it. */
enum { WATCH_WRITE = 2, WATCH_READ = 3, WATCH_ACCESS = 4 };
static const char *const watch_names[] = {[WATCH_WRITE] = "watch", [WATCH_READ] = "rwatch",
                                          [WATCH_ACCESS] = "awatch"};

static void on_access(void *embedder, bool write, uint64_t address, unsigned size,
                      const void *data, void *user) {
  Gdb *g = user;
  for (unsigned i = 0; i < g->n_watch; i++) {
    const Watchpoint *w = &g->watch[i];
    bool kind = w->type == WATCH_ACCESS || (w->type == WATCH_WRITE) == write;
    if (kind && address < w->addr + w->len && w->addr < address + size) {
      if (!g->hit) g->hit = w; /* the first; the run stops after this instruction */
      cpu_request_stop(g->c, STOP_REQUESTED);
      return;
    }
  }
}

/* Z/z 2..4: adds or removes a watchpoint of `type` on [addr, addr + len). */
static bool watch_set(Gdb *g, int type, uint64_t addr, uint64_t len, bool on) {
  unsigned i = 0;
  while (i < g->n_watch && !(g->watch[i].type == type && g->watch[i].addr == addr &&
                             g->watch[i].len == len))
    i++;
  if (on) {
    if (i == g->n_watch) {
      if (g->n_watch == MAX_WATCH || len == 0) return false;
      g->watch[g->n_watch++] = (Watchpoint){type, addr, len};
    }
  } else if (i < g->n_watch) {
    g->watch[i] = g->watch[--g->n_watch];
  }
  Machine *m = g->c->m;
  m->hooks.mem = g->n_watch ? on_access : NULL;
  m->hooks.mem_user = g;
  machine_watch(m, WATCH_HOOKS, g->n_watch != 0);
  return true;
}

/* ---- running ---- */

/* Runs until a breakpoint, a watchpoint, a signal, the end, or (step) one instruction;
 * the stop reply. */
static void run(Gdb *g, bool step, char *reply, size_t size) {
  Cpu *c = g->c;
  if (step) c->icount_limit = c->icount + 1;
  g->hit = NULL;
  StopReason why = linux_run(c, 0);
  c->icount_limit = UINT64_MAX;
  if (why == STOP_EXIT) {
    if (c->term_signal) snprintf(reply, size, "X%02x", to_gdb_signal(c->term_signal));
    else snprintf(reply, size, "W%02x", c->exit_status & 0xff);
  } else { /* with RBP, RSP and RIP, the registers gdb reads first */
    int sig = why == STOP_SIGNAL ? proc_of(c)->stopped_signal : SIGTRAP;
    int at = snprintf(reply, size, "T%02x", to_gdb_signal(sig));
    if (why == STOP_REQUESTED && g->hit)
      at += snprintf(reply + at, size - (size_t)at, "%s:%" PRIx64 ";", watch_names[g->hit->type],
                     g->hit->addr);
    /* Naming the thread lets gdb keep the expedited registers for it: without it,
     * gdb asked for all of them ('g') after every step. */
    at += snprintf(reply + at, size - (size_t)at, "thread:1;");
    static const unsigned expedited[] = {6, 7, REG_RIP_N};
    for (unsigned i = 0; i < 3; i++) {
      uint8_t b[8];
      char hex[17];
      to_hex(hex, b, reg_read(c, expedited[i], b));
      at += snprintf(reply + at, size - (size_t)at, "%02x:%s;", expedited[i], hex);
    }
  }
}

/* The queries whose answer never changes: one process of one thread, the program's path
 * readable through qXfer (qSupported may carry gdb's features after a colon). */
static const struct {
  const char *query, *reply;
  bool prefix;
} fixed_queries[] = {
    {"qSupported", "PacketSize=1000;qXfer:features:read+;qXfer:exec-file:read+;qXfer:auxv:read+;"
                   "QPassSignals+;QStartNoAckMode+", true},
    {"qAttached", "1", false},
    {"qC", "QC1", false},
    {"qfThreadInfo", "m1", false},
    {"qsThreadInfo", "l", false},
};

/* What a packet asks; false when the session is over. */
static bool serve_packet(Gdb *g, bool *running_on) {
  Cpu *c = g->c;
  char *in = g->in, reply[PACKET_MAX + 1];
  uint64_t addr, len;
  switch (in[0]) {
  case '?': send_packet(g, "S05"); return true;
  case 'g': send_registers(g); return true;
  case 'G':
    for (unsigned n = 0, at = 0; n < REGS; n++) {
      uint8_t b[16];
      unsigned size = reg_read(c, n, b);
      if (strlen(in + 1) < at + 2 * size || !from_hex(b, in + 1 + at, size)) break;
      reg_write(c, n, b);
      at += 2 * size;
    }
    send_packet(g, "OK");
    return true;
  case 'p': {
    unsigned n = (unsigned)strtoul(in + 1, NULL, 16);
    uint8_t b[16];
    if (n >= REGS) {
      send_packet(g, "E01");
      return true;
    }
    unsigned size = reg_read(c, n, b);
    to_hex(reply, b, size);
    send_packet(g, reply);
    return true;
  }
  case 'P': {
    char *eq = strchr(in, '=');
    unsigned n = (unsigned)strtoul(in + 1, NULL, 16);
    uint8_t b[16], old[16];
    unsigned size = n < REGS ? reg_read(c, n, old) : 0;
    if (!eq || !size || !from_hex(b, eq + 1, size)) {
      send_packet(g, "E01");
      return true;
    }
    reg_write(c, n, b);
    send_packet(g, "OK");
    return true;
  }
  case 'm':
    if (sscanf(in + 1, "%" SCNx64 ",%" SCNx64, &addr, &len) == 2) {
      uint8_t b[PACKET_MAX / 2];
      unsigned got = fault_copy_in(b, addr, (unsigned)(len < sizeof b ? len : sizeof b));
      if (!got && len) {
        send_packet(g, "E14");
        return true;
      }
      to_hex(reply, b, got);
      send_packet(g, reply);
      return true;
    }
    break;
  case 'M': {
    char *colon = strchr(in, ':');
    uint8_t b[PACKET_MAX / 2];
    if (colon && sscanf(in + 1, "%" SCNx64 ",%" SCNx64, &addr, &len) == 2 && len <= sizeof b &&
        from_hex(b, colon + 1, len)) {
      bool ok = fault_copy_out(addr, b, (unsigned)len) == len;
      block_invalidate_range(&c->m->code, addr, len);
      send_packet(g, ok ? "OK" : "E14");
      return true;
    }
    break;
  }
  case 'c': case 's': case 'C': case 'S': { /* [sig][;addr] for C and S, [addr] for c and s */
    char *at = in + 1;
    int sig = 0;
    if (in[0] == 'C' || in[0] == 'S') {
      sig = from_gdb_signal((int)strtol(in + 1, &at, 16));
      at = *at == ';' ? at + 1 : at;
    }
    if (*at) c->rip = strtoull(at, NULL, 16);
    linux_signal_resume(c, sig);
    run(g, in[0] == 's' || in[0] == 'S', reply, sizeof reply);
    send_packet(g, reply);
    *running_on = reply[0] == 'T';
    return *running_on;
  }
  case 'Z': case 'z': /* type,addr,kind: 0 a breakpoint, 2..4 watchpoints of kind bytes */
    if (in[1] == '0' && sscanf(in + 2, ",%" SCNx64, &addr) == 1) {
      bool ok = block_breakpoint_set(&c->m->code, addr, in[0] == 'Z');
      send_packet(g, ok ? "OK" : "E01");
      return true;
    }
    if (in[1] >= '2' && in[1] <= '4' && sscanf(in + 2, ",%" SCNx64 ",%" SCNx64, &addr, &len) == 2) {
      send_packet(g, watch_set(g, in[1] - '0', addr, len, in[0] == 'Z') ? "OK" : "E01");
      return true;
    }
    break;
  case 'k': return false;
  case 'D': /* the program runs on, alone */
    send_packet(g, "OK");
    return false;
  case 'H': send_packet(g, "OK"); return true;
  case 'T': send_packet(g, "OK"); return true;
  case 'q':
    for (size_t i = 0; i < sizeof fixed_queries / sizeof *fixed_queries; i++) {
      const char *q = fixed_queries[i].query;
      if (fixed_queries[i].prefix ? strncmp(in, q, strlen(q)) == 0 : strcmp(in, q) == 0) {
        send_packet(g, fixed_queries[i].reply);
        return true;
      }
    }
    if (starts(in, "qXfer:")) { /* qXfer:object:read:annex:offset,length */
      char *args = strrchr(in, ':');
      uint64_t off = 0;
      if (args && sscanf(args + 1, "%" SCNx64 ",%" SCNx64, &off, &len) == 2) {
        if (starts(in, "qXfer:exec-file:read:")) {
          send_xfer(g, (const uint8_t *)g->exe_path, strlen(g->exe_path), off, len);
          return true;
        }
        if (starts(in, "qXfer:features:read:target.xml:")) {
          const char *xml = gdb_target_xml();
          send_xfer(g, (const uint8_t *)xml, strlen(xml), off, len);
          return true;
        }
        if (starts(in, "qXfer:auxv:read:")) {
          send_xfer(g, g->auxv, g->auxv_len, off, len);
          return true;
        }
      }
    }
    break;
  case 'Q':
    if (strcmp(in, "QStartNoAckMode") == 0) {
      send_packet(g, "OK");
      g->no_ack = true;
      return true;
    }
    if (starts(in, "QPassSignals:")) {
      pass_signals(g, in + 13);
      send_packet(g, "OK");
      return true;
    }
    break;
  default: break;
  }
  send_packet(g, ""); /* not supported */
  return true;
}

/* The auxiliary vector above the initial stack's argc, argv and envp, as the program
 * starts with it (gdb finds the entry point there, and the vDSO if there were one). */
static void read_auxv(Gdb *g) {
  uint64_t at = g->c->r[RSP], word = 0;
  if (fault_copy_in(&word, at, 8) != 8) return;
  at += 8 * (word + 2); /* argc, argv, its NULL */
  while (fault_copy_in(&word, at, 8) == 8 && word) at += 8; /* envp */
  at += 8;
  size_t n = 0;
  uint64_t pair[2];
  while (n + sizeof pair <= sizeof g->auxv && fault_copy_in(pair, at + n, sizeof pair) == sizeof pair) {
    memcpy(g->auxv + n, pair, sizeof pair);
    n += sizeof pair;
    if (pair[0] == 0) break; /* AT_NULL */
  }
  g->auxv_len = n;
}

int gdb_serve(Cpu *c, int port, const char *exe_path) {
  int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), on = 1;
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) < 0 ||
      bind(s, (struct sockaddr *)&a, sizeof a) < 0 || listen(s, 1) < 0) {
    fprintf(stderr, "x64emu: -g %d: cannot listen on 127.0.0.1:%d: %s\n", port, port, strerror(errno));
    if (s >= 0) close(s);
    return -1;
  }
  Gdb g = {.c = c, .exe_path = exe_path};
  read_auxv(&g);
  proc_of(c)->opt.stop_signals = ~0ull; /* until gdb says which it passes */
  g.fd = accept4(s, NULL, NULL, SOCK_CLOEXEC);
  close(s);
  own_fd_keep(&g.fd); /* out of the guest's reach, as the trace's */
  /* Small packets each way, one after the other: no waiting to coalesce them. */
  if (g.fd >= 0) setsockopt(g.fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  if (g.fd < 0) {
    fprintf(stderr, "x64emu: -g %d: %s\n", port, strerror(errno));
    return -1;
  }
  bool running_on = true; /* the program has not ended */
  while (receive_packet(&g) && serve_packet(&g, &running_on)) {
  }
  own_fd_close(&g.fd);
  if (g.in[0] == 'k') { /* killed: as by SIGKILL */
    c->exit_status = 0;
    c->term_signal = SIGKILL;
  } else if (running_on) { /* detached, or gdb went away: the program runs to its end */
    for (unsigned i = g.n_watch; i-- > 0;) watch_set(&g, g.watch[i].type, g.watch[i].addr, g.watch[i].len, false);
    Process *p = proc_of(c);
    p->opt.stop_signals = 0;
    linux_signal_resume(c, p->stopped_signal); /* as it would have been without gdb */
    linux_run(c, 0);
  }
  return 0;
}
