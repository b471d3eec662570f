/* proc_self.c: the guest's /proc/self. The host's maps, smaps and mem are the emulator's
 * process, whose memory holds the decoded code, the emulator's heap and its own image
 * beside the guest's: the guest is shown its own mappings only (as QEMU's linux-user
 * shows them), and its reads and writes of mem reach only its own memory. */
#define _GNU_SOURCE
#include "proc_self.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../decoder/block.h"
#include "own_fds.h"
#include "sys_common.h"

/* ---- which entry a path names ---- */

/* The entries that must show the guest, not the emulator. */
static const char *const ENTRIES[] = {"exe", "maps", "smaps", "mem"};

static const char *entry_named(const char *name) {
  for (size_t i = 0; i < sizeof ENTRIES / sizeof ENTRIES[0]; i++)
    if (!strcmp(name, ENTRIES[i])) return ENTRIES[i];
  return NULL;
}

/* path's components after lexical normalisation ("//", ".", ".."), into comp from buf:
 * their count, or -1 for a path longer or deeper than any of the entries below. */
static int components(const char *path, char buf[4096], const char *comp[8]) {
  int n = 0;
  if (strlen(path) >= 4096) return -1;
  strcpy(buf, path);
  for (char *save = NULL, *tok = strtok_r(buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
    if (!strcmp(tok, ".")) continue;
    if (!strcmp(tok, "..")) {
      if (n) n--;
      continue;
    }
    if (n == 8) return -1;
    comp[n++] = tok;
  }
  return n;
}

/* Where the process's own directory ends in comp[0..n): the index of the first component
 * after /proc/{self,thread-self,<pid>} or /proc/{self,<pid>}/task/<this thread's id>,
 * under which the kernel would show the emulator; 0 for a path not under it. */
static int own_dir_end(const char *const comp[], int n) {
  if (n < 2 || strcmp(comp[0], "proc") != 0) return 0;
  char pid[24], tid[24];
  snprintf(pid, sizeof pid, "%d", (int)getpid());
  snprintf(tid, sizeof tid, "%d", (int)gettid());
  bool self = !strcmp(comp[1], "self") || !strcmp(comp[1], pid);
  if (self && n >= 4 && !strcmp(comp[2], "task") && !strcmp(comp[3], tid)) return 4;
  return self || !strcmp(comp[1], "thread-self") ? 2 : 0;
}

/* The entry ENTRY a path names under the process's own directory, after normalisation;
 * NULL for any other path. */
static const char *normalized_self_entry(const char *path) {
  char buf[4096];
  const char *comp[8];
  int n = components(path, buf, comp);
  const char *entry = n >= 3 ? entry_named(comp[n - 1]) : NULL;
  int end = entry ? own_dir_end(comp, n) : 0;
  return end && n == end + 1 ? entry : NULL;
}

/* path as an absolute one: itself, or after the working directory or dirfd's path. */
static bool absolute_path(int dirfd, const char *path, char *full, size_t cap) {
  if (path[0] == '/') return snprintf(full, cap, "%s", path) < (int)cap;
  char base[4096];
  if (dirfd == X64_AT_FDCWD) {
    if (!getcwd(base, sizeof base)) return false;
  } else {
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
    ssize_t len = readlink(link, base, sizeof base - 1);
    if (len <= 0) return false;
    base[len] = 0;
  }
  return snprintf(full, cap, "%s/%s", base, path) < (int)cap;
}

const char *path_self_entry(int dirfd, const char *path) {
  if (!path) return NULL;
  /* The common case, without a getcwd: the last component is none of the entries. */
  const char *last = strrchr(path, '/');
  if (!entry_named(last ? last + 1 : path)) return NULL;
  char full[8192];
  return absolute_path(dirfd, path, full, sizeof full) ? normalized_self_entry(full) : NULL;
}

/* ---- fd and fdinfo: the guest's descriptors only ---- */

/* A component as a descriptor's number, or -1. */
static int number_named(const char *name) {
  size_t len = strlen(name);
  if (len == 0 || len > 9) return -1;
  int fd = 0;
  for (size_t i = 0; i < len; i++) {
    if (name[i] < '0' || name[i] > '9') return -1;
    fd = fd * 10 + (name[i] - '0');
  }
  return fd;
}

/* Whether comp[0..n) is the process's own fd or fdinfo directory, with `more` components
 * after it. */
static bool fd_directory(const char *const comp[], int n, int more) {
  int end = own_dir_end(comp, n);
  return end && n == end + 1 + more && (!strcmp(comp[end], "fd") || !strcmp(comp[end], "fdinfo"));
}

bool path_own_fd(int dirfd, const char *path) {
  /* The common case, without a getcwd: the last component is none of x64emu's. */
  const char *last = path ? strrchr(path, '/') : NULL;
  if (!path || !own_fd(number_named(last ? last + 1 : path))) return false;
  char full[8192], buf[4096];
  const char *comp[8];
  if (!absolute_path(dirfd, path, full, sizeof full)) return false;
  int n = components(full, buf, comp);
  return n > 0 && fd_directory(comp, n, 1);
}

int64_t proc_self_fds_unlisted(int dirfd, void *records, int64_t len) {
  char link[48], dir[4096], buf[4096];
  const char *comp[8];
  if (len <= 0 || !own_fds_any()) return len;
  snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
  ssize_t n = readlink(link, dir, sizeof dir - 1);
  if (n <= 0) return len;
  dir[n] = 0;
  int parts = components(dir, buf, comp);
  if (parts <= 0 || !fd_directory(comp, parts, 0)) return len;
  /* struct linux_dirent64: d_ino, d_off, d_reclen at 16, d_type, d_name at 19. */
  uint8_t *base = records;
  int64_t kept = 0;
  for (int64_t at = 0; at < len;) {
    uint16_t reclen;
    memcpy(&reclen, base + at + 16, sizeof reclen);
    if (!own_fd(number_named((const char *)base + at + 19))) {
      memmove(base + kept, base + at, reclen);
      kept += reclen;
    }
    at += reclen;
  }
  return kept;
}

/* ---- maps and smaps ---- */

/* One line (maps) or entry (smaps) of the host's file: its range, offset and the text
 * after the permissions' field. */
typedef struct HostEntry {
  uint64_t lo, hi, offset;
  char rest[4400];  /* " dev inode   path\n" */
  char *details;    /* smaps: the lines after the header, or NULL */
} HostEntry;

static const char *pseudo_name(Process *p, uint64_t lo, uint64_t hi) {
  if (p->vdso && lo <= p->vdso && p->vdso < hi) return "[vdso]";
  if (p->stack_at && lo <= p->stack_at && p->stack_at < hi) return "[stack]";
  const uint64_t heap_end = (p->brk_cur + 4095) & ~4095ull; /* the break's page, mapped whole */
  if (lo >= p->brk_start && hi <= heap_end && p->brk_cur > p->brk_start) return "[heap]";
  return NULL;
}

/* The start of a line as the kernel's show_map_vma() prints it: range, permissions,
 * offset; its length. */
static int put_head(char *head, size_t cap, uint64_t lo, uint64_t hi, int prot, uint64_t offset) {
  return snprintf(head, cap, "%08llx-%08llx %c%c%c%c %08llx", (unsigned long long)lo,
                  (unsigned long long)hi, prot & GUEST_PROT_READ ? 'r' : '-',
                  prot & GUEST_PROT_WRITE ? 'w' : '-', prot & GUEST_PROT_EXEC ? 'x' : '-',
                  prot & GUEST_MAP_SHARED ? 's' : 'p', (unsigned long long)offset);
}

/* A whole line: then the device and inode, and the name, if any, from column 74. */
static void put_line(FILE *out, uint64_t lo, uint64_t hi, int prot, uint64_t offset,
                     const char *dev, uint64_t inode, const char *name) {
  char head[128];
  int len = put_head(head, sizeof head, lo, hi, prot, offset);
  len += snprintf(head + len, sizeof head - (size_t)len, " %s %llu", dev, (unsigned long long)inode);
  if (name) fprintf(out, "%s%*s%s\n", head, len < 73 ? 73 - len : 1, "", name);
  else fprintf(out, "%s \n", head);
}

/* The image segment (of the program or its loader) holding address a, or NULL; *next is
 * where the next one starts above a (UINT64_MAX: none). */
static const ImageSegment *segment_at(Process *p, uint64_t a, const GuestImage **file, uint64_t *next) {
  *next = UINT64_MAX;
  for (unsigned f = 0; f < sizeof p->images / sizeof p->images[0]; f++)
    for (unsigned i = 0; i < p->images[f].nseg; i++) {
      const ImageSegment *g = &p->images[f].seg[i];
      if (g->lo <= a && a < g->hi) {
        *file = &p->images[f];
        return g;
      }
      if (g->lo > a && g->lo < *next) *next = g->lo;
    }
  return NULL;
}

/* The maps file being written, and its last line while that may still grow: a segment
 * the loader put in as several host mappings (its whole pages mapped from the file, a
 * partial last page read) is one mapping of the file to the kernel, one line where its
 * permissions are the same (two segments stay two: the kernel does not merge a private
 * writable mapping, such as one RELRO made read-only, with its neighbour). */
typedef struct MapsOut {
  FILE *out;
  const GuestImage *file; /* the open line's, or NULL */
  const ImageSegment *seg;
  uint64_t lo, hi, offset;
  int prot;
  char *details; /* smaps: the entry's lines after its header (malloc'd), or NULL */
} MapsOut;

/* smaps: two entries' details as one's, the sizes in kB added, the page sizes and the
 * lines without a size (THPeligible, VmFlags) the first's. Both have the kernel's lines
 * in its order; a size line is its name and colon in 16 columns, the number in 8. */
static char *merged_details(const char *a, const char *b) {
  char *out = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&out, &len);
  if (!f) return NULL;
  while (*a) {
    size_t a_len = strcspn(a, "\n"), b_len = strcspn(b, "\n");
    char name[64];
    unsigned long long x, y;
    if (sscanf(a, "%62[^:]: %llu kB", name, &x) == 2 && !strstr(name, "PageSize") &&
        sscanf(b, "%*[^:]: %llu kB", &y) == 1)
      fprintf(f, "%-16s%8llu kB\n", strcat(name, ":"), x + y);
    else
      fprintf(f, "%.*s\n", (int)a_len, a);
    a += a_len + (a[a_len] == '\n');
    b += b_len + (b[b_len] == '\n');
  }
  fclose(f);
  return out;
}

/* smaps: an entry's details for [lo, hi), which may be part of the host's entry: its own
 * size (the other figures are the host entry's). */
static void put_details(FILE *out, const char *details, uint64_t lo, uint64_t hi) {
  unsigned long long host_size;
  if (sscanf(details, "Size: %llu kB", &host_size) != 1) {
    fputs(details, out);
    return;
  }
  fprintf(out, "%-16s%8llu kB\n%s", "Size:", (unsigned long long)((hi - lo) >> 10),
          details + strcspn(details, "\n") + 1);
}

static void close_line(MapsOut *m) {
  if (!m->file) return;
  char dev[32];
  snprintf(dev, sizeof dev, "%02x:%02x", major(m->file->dev), minor(m->file->dev));
  put_line(m->out, m->lo, m->hi, m->prot, m->offset, dev, m->file->ino, m->file->path);
  if (m->details) put_details(m->out, m->details, m->lo, m->hi);
  free(m->details);
  m->details = NULL;
  m->file = NULL;
}

static void put_image_line(MapsOut *m, const GuestImage *file, const ImageSegment *seg,
                           uint64_t lo, uint64_t hi, int prot, const char *details) {
  if (m->file && m->seg == seg && m->hi == lo && m->prot == prot) {
    m->hi = hi;
    if (details) {
      char *both = m->details ? merged_details(m->details, details) : NULL;
      free(m->details);
      m->details = both;
    }
    return;
  }
  close_line(m);
  *m = (MapsOut){m->out, file, seg, lo, hi, seg->offset + (lo - seg->lo), prot,
                 details ? strdup(details) : NULL};
}

/* [lo, hi) of one guest range with protection prot, in one host entry e: named as the
 * kernel would name it: the segments the loader copied from a file by that file, the
 * heap, stack and vDSO by their names, the rest as the host shows it. */
static void put_piece(MapsOut *m, Process *p, uint64_t lo, uint64_t hi, int prot, const HostEntry *e) {
  FILE *out = m->out;
  while (lo < hi) {
    const GuestImage *file;
    uint64_t next, end;
    const ImageSegment *g = segment_at(p, lo, &file, &next);
    char dev[32] = "00:00";
    unsigned long long inode = 0;
    sscanf(e->rest, " %31s %llu", dev, &inode);
    if (g) {
      end = g->hi < hi ? g->hi : hi;
      put_image_line(m, file, g, lo, end, prot, e->details);
    } else {
      close_line(m);
      end = next < hi ? next : hi;
      const char *name = pseudo_name(p, lo, end);
      uint64_t offset = e->offset + (lo - e->lo);
      if (name || inode == 0) {
        put_line(out, lo, end, prot, name || !inode ? 0 : offset, dev, inode, name);
      } else { /* a file the guest mapped itself: the host's line names it */
        char head[96];
        put_head(head, sizeof head, lo, end, prot, offset);
        fprintf(out, "%s%s", head, e->rest);
      }
      if (e->details) put_details(out, e->details, lo, end);
    }
    lo = end;
  }
}

/* The guest's part of one host entry: a piece for each guest range in it. */
static void put_guest_parts(MapsOut *m, Process *p, const Range *r, size_t n, const HostEntry *e) {
  for (size_t i = 0; i < n; i++) {
    uint64_t lo = r[i].lo > e->lo ? r[i].lo : e->lo, hi = r[i].hi < e->hi ? r[i].hi : e->hi;
    if (lo < hi && !(r[i].prot & GUEST_PROT_RESERVED)) put_piece(m, p, lo, hi, r[i].prot, e);
  }
}

/* A memory file with the guest's maps (smaps: with each entry's details as the host's
 * entry has them), read from the start: the descriptor, or -errno. */
static int64_t guest_maps(Cpu *c, bool smaps) {
  Process *p = proc_of(c);
  FILE *in = fopen(smaps ? "/proc/self/smaps" : "/proc/self/maps", "re");
  if (!in) return -errno;
  int fd = memfd_create("x64emu-maps", MFD_CLOEXEC);
  FILE *out = fd < 0 ? NULL : fdopen(dup(fd), "w");
  Range *r = NULL;
  size_t n = ranges_snapshot(&c->m->mem, &r);
  if (!out || (n && !r)) {
    int err = fd < 0 ? errno : ENOMEM;
    fclose(in);
    if (out) fclose(out);
    if (fd >= 0) close(fd);
    free(r);
    return -err;
  }
  static __thread HostEntry e;
  MapsOut m = {.out = out};
  char line[4608], *details = NULL;
  size_t details_len = 0;
  FILE *details_out = NULL;
  bool have = false;
  for (;;) {
    bool more = fgets(line, sizeof line, in) != NULL;
    unsigned long long lo, hi, off;
    int rest_at = 0;
    bool header = more && sscanf(line, "%llx-%llx %*s %llx%n", &lo, &hi, &off, &rest_at) == 3;
    if (have && (header || !more)) { /* the entry before is complete */
      if (details_out) fclose(details_out);
      details_out = NULL;
      e.details = details;
      put_guest_parts(&m, p, r, n, &e);
      free(details);
      details = NULL;
      have = false;
    }
    if (!more) break;
    if (header) {
      e.lo = lo, e.hi = hi, e.offset = off;
      snprintf(e.rest, sizeof e.rest, "%s", line + rest_at);
      have = true;
      if (smaps) details_out = open_memstream(&details, &details_len);
    } else if (have && details_out) {
      fputs(line, details_out);
    }
  }
  close_line(&m);
  /* The legacy vsyscall page, which the kernel lists last on x86-64. */
  put_line(out, 0xffffffffff600000ull, 0xffffffffff601000ull, GUEST_PROT_EXEC, 0, "00:00", 0,
           "[vsyscall]");
  free(r);
  fclose(in);
  fclose(out);
  lseek(fd, 0, SEEK_SET);
  return fd;
}

/* ---- mem ---- */

bool proc_self_open(Cpu *c, int dirfd, const char *path, int host_flags, int mode, int64_t *ret) {
  const char *entry = path_self_entry(dirfd, path);
  if (!entry) return false;
  if (!strcmp(entry, "exe")) {
    *ret = host_result(open(proc_of(c)->exe_path, host_flags, (mode_t)mode));
    return true;
  }
  if (strcmp(entry, "mem")) { /* maps, smaps */
    if ((host_flags & O_ACCMODE) != O_RDONLY) {
      *ret = -EACCES;
      return true;
    }
    *ret = guest_maps(c, !strcmp(entry, "smaps"));
    if (*ret >= 0 && !(host_flags & O_CLOEXEC)) fcntl((int)*ret, F_SETFD, 0);
    return true;
  }
  *ret = host_result(openat(dirfd, path, host_flags));
  struct stat st;
  if (*ret >= 0 && fstat((int)*ret, &st) == 0) {
    Process *p = proc_of(c);
    p->mem_file_dev = st.st_dev;
    p->mem_file_ino = st.st_ino;
  }
  return true;
}

/* Whether fd is a /proc/self/mem the guest opened: the same file, whatever descriptor. */
bool proc_mem_file(Cpu *c, int fd) {
  Process *p = proc_of(c);
  struct stat st;
  return p->mem_file_ino && fstat(fd, &st) == 0 && st.st_ino == p->mem_file_ino &&
         st.st_dev == p->mem_file_dev;
}

int64_t proc_mem_room(Cpu *c, int fd, int64_t off, uint64_t len) {
  if (!len || !proc_mem_file(c, fd)) return (int64_t)len;
  if (off < 0) off = lseek(fd, 0, SEEK_CUR);
  /* The kernel's access to another process's memory goes past page protections (it
   * writes code), but not past the end of what is mapped. */
  uint64_t room = (uint64_t)off == 0 ? 0 : guest_prefix(c, (uint64_t)off, len, 0);
  return room ? (int64_t)room : -EIO;
}

void proc_mem_written(Cpu *c, int fd, int64_t off, uint64_t len) {
  if (!len || !proc_mem_file(c, fd)) return;
  if (off < 0) off = lseek(fd, 0, SEEK_CUR) - (int64_t)len;
  block_invalidate_range(&c->m->code, (uint64_t)off, len);
}
