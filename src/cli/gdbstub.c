/* gdbstub.c: gdb's remote serial protocol over TCP (gdbstub.h): `$packet#checksum`, each
 * acknowledged with '+'. The registers go in the order and sizes of gdb's amd64 target
 * (general registers, eflags and the segments as 32 bits, ST0-7 as 10 bytes, the x87
 * control words, XMM0-15, MXCSR); runs are the Linux loop's (linux_run) to a breakpoint,
 * one instruction (an instruction budget of one), or the end. */
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
#include <unistd.h>

#include "decoder/block.h"
#include "interp/fault.h"
#include "interp/flags.h"
#include "interp/machine.h"
#include "interp/x87.h"
#include "linux-user/linux_run.h"

enum { PACKET_MAX = 4096 };

typedef struct Gdb {
  int fd;
  Cpu *c;
  const char *exe_path;
  char in[PACKET_MAX + 1];
  char buf[PACKET_MAX]; /* what was read from gdb and not yet taken: buf[at, end) */
  size_t at, end;
} Gdb;

static const char hexdigits[] = "0123456789abcdef";

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

static void send_packet(Gdb *g, const char *data) {
  size_t n = strlen(data);
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

/* The next byte from gdb, read a buffer at a time (a packet in one system call, not one
 * a byte); false when gdb is gone. */
static bool next_byte(Gdb *g, char *ch) {
  while (g->at == g->end) {
    ssize_t r = read(g->fd, g->buf, sizeof g->buf);
    if (r <= 0 && !(r < 0 && errno == EINTR)) return false;
    g->at = 0;
    g->end = r > 0 ? (size_t)r : 0;
  }
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
  (void)!write(g->fd, "+", 1);
  return true;
}

/* ---- registers, as gdb's amd64 target has them ---- */

static const unsigned gpr_order[16] = {RAX, RBX, RCX, RDX, RSI, RDI, RBP, RSP,
                                       R8,  R9,  R10, R11, R12, R13, R14, R15};
enum { REG_RIP_N = 16, REG_EFLAGS_N = 17, REG_CS_N = 18, REG_ST0_N = 24, REG_FCTRL_N = 32,
       REG_XMM0_N = 40, REG_MXCSR_N = 56, REGS = 57 };

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
  } else v = c->mxcsr;
  memcpy(out, &v, size);
  return size;
}

static void reg_write(Cpu *c, unsigned n, const uint8_t *in) {
  uint64_t v = 0;
  memcpy(&v, in, n < REG_EFLAGS_N ? 8 : 4);
  if (n < 16) c->r[gpr_order[n]] = v;
  else if (n == REG_RIP_N) c->rip = v;
  else if (n == REG_EFLAGS_N) flags_set(c, (v & (F_ARITH | F_DF | F_AC | F_TF | F_ID)) | F_IF);
  else if (n >= REG_ST0_N && n < REG_FCTRL_N) x87_set_image(&c->fpu, (c->fpu.top + n - REG_ST0_N) & 7, in);
  else if (n == REG_FCTRL_N) c->fpu.cw = (uint16_t)v;
  else if (n == REG_FCTRL_N + 1) x87_set_status_word(&c->fpu, (uint16_t)v);
  else if (n == REG_FCTRL_N + 2) x87_set_tag_word(&c->fpu, (uint16_t)v);
  else if (n >= REG_XMM0_N && n < REG_MXCSR_N) memcpy(&c->xmm[n - REG_XMM0_N], in, 16);
  else if (n == REG_MXCSR_N && !(v & ~0xFFFFull)) c->mxcsr = (uint32_t)v;
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

/* ---- running ---- */

/* Runs until a breakpoint, the end, or (step) one instruction; the stop reply. */
static void run(Gdb *g, bool step, char *reply, size_t size) {
  Cpu *c = g->c;
  if (step) c->icount_limit = c->icount + 1;
  StopReason why = linux_run(c, 0);
  c->icount_limit = UINT64_MAX;
  if (why == STOP_EXIT) {
    if (c->term_signal) snprintf(reply, size, "X%02x", c->term_signal);
    else snprintf(reply, size, "W%02x", c->exit_status & 0xff);
  } else { /* with RBP, RSP and RIP, so that gdb need not ask for every register */
    int at = snprintf(reply, size, "T%02x", SIGTRAP);
    static const unsigned expedited[] = {6, 7, REG_RIP_N};
    for (unsigned i = 0; i < 3; i++) {
      uint8_t b[8];
      char hex[17];
      reg_read(c, expedited[i], b);
      to_hex(hex, b, 8);
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
    {"qSupported", "PacketSize=1000;qXfer:exec-file:read+", true},
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
  case 'c': case 's':
    if (in[1]) c->rip = strtoull(in + 1, NULL, 16);
    run(g, in[0] == 's', reply, sizeof reply);
    send_packet(g, reply);
    *running_on = reply[0] == 'T';
    return *running_on;
  case 'Z': case 'z':
    if (in[1] == '0' && sscanf(in + 2, ",%" SCNx64, &addr) == 1) {
      bool ok = block_breakpoint_set(&c->m->code, addr, in[0] == 'Z');
      send_packet(g, ok ? "OK" : "E01");
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
    if (strncmp(in, "qXfer:exec-file:read:", 21) == 0) {
      char *args = strrchr(in, ':');
      uint64_t off = 0;
      if (args && sscanf(args + 1, "%" SCNx64 ",%" SCNx64, &off, &len) == 2) {
        size_t n = strlen(g->exe_path);
        if (off >= n) snprintf(reply, sizeof reply, "l");
        else snprintf(reply, sizeof reply, "%c%.*s", off + len >= n ? 'l' : 'm',
                      (int)(len < n - off ? len : n - off), g->exe_path + off);
        send_packet(g, reply);
        return true;
      }
    }
    break;
  default: break;
  }
  send_packet(g, ""); /* not supported */
  return true;
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
  g.fd = accept4(s, NULL, NULL, SOCK_CLOEXEC);
  close(s);
  /* Small packets each way, one after the other: no waiting to coalesce them. */
  if (g.fd >= 0) setsockopt(g.fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  if (g.fd < 0) {
    fprintf(stderr, "x64emu: -g %d: %s\n", port, strerror(errno));
    return -1;
  }
  bool running_on = true; /* the program has not ended */
  while (receive_packet(&g) && serve_packet(&g, &running_on)) {
  }
  close(g.fd);
  if (g.in[0] == 'k') { /* killed: as by SIGKILL */
    c->exit_status = 0;
    c->term_signal = SIGKILL;
  } else if (running_on) {
    linux_run(c, 0); /* detached, or gdb went away: the program runs to its end */
  }
  return 0;
}
