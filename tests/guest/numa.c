/* numa.c: NUMA memory policy as the kernel keeps it, printed so that a native run and one
 * under x64emu can be compared: the process's policy set and read back, a policy bound to
 * a mapping and read at one of its addresses, the node a page is on (get_mempolicy and
 * move_pages), migrate_pages of this process, the home node of a bound range, and what the
 * kernel refuses: bad modes and flags, node masks too long or unreadable, misaligned or
 * wrapping ranges, holes in a range (which MPOL_DEFAULT skips), and addresses the
 * process has not mapped (under x64emu the emulator's memory is such a hole too:
 * unit.test_syscall_mem). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { DEFAULT = 0, PREFERRED = 1, BIND = 2, INTERLEAVE = 3, LOCAL = 4 };
enum { F_NODE = 1, F_ADDR = 2, F_MEMS_ALLOWED = 4, MF_STRICT = 1, MF_MOVE = 2 };

static void show(const char *what, long r) {
  if (r < 0) printf("%-50s -1 %s\n", what, strerrorname_np(errno));
  else printf("%-50s %ld\n", what, r);
}

static long set_policy(int mode, const unsigned long *mask, unsigned long maxnode) {
  return syscall(SYS_set_mempolicy, mode, mask, maxnode);
}
static long get_policy(int *mode, unsigned long *mask, unsigned long maxnode, void *addr,
                       unsigned long flags) {
  return syscall(SYS_get_mempolicy, mode, mask, maxnode, addr, flags);
}
static long bind(void *addr, unsigned long len, int mode, const unsigned long *mask,
                 unsigned long maxnode, unsigned flags) {
  return syscall(SYS_mbind, addr, len, mode, mask, maxnode, flags);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  long page = 4096;
  unsigned long node0 = 1, mask[64];
  int mode = -1;

  show("get_mempolicy", get_policy(&mode, mask, 64, NULL, 0));
  printf("  mode %d, mask %#lx\n", mode, mask[0]);
  show("get_mempolicy(MEMS_ALLOWED)", get_policy(NULL, mask, 64, NULL, F_MEMS_ALLOWED));
  printf("  nodes allowed %#lx\n", mask[0]);
  show("set_mempolicy(BIND, node 0)", set_policy(BIND, &node0, 2));
  mask[0] = 0;
  show("get_mempolicy", get_policy(&mode, mask, 64, NULL, 0));
  printf("  mode %d, mask %#lx\n", mode, mask[0]);
  show("set_mempolicy(INTERLEAVE, node 0)", set_policy(INTERLEAVE, &node0, 64));
  show("get_mempolicy(NODE) of INTERLEAVE", get_policy(&mode, NULL, 0, NULL, F_NODE));
  show("set_mempolicy(PREFERRED, none)", set_policy(PREFERRED, NULL, 0));
  show("set_mempolicy(DEFAULT)", set_policy(DEFAULT, NULL, 0));
  show("set_mempolicy(mode 99)", set_policy(99, &node0, 2));
  show("set_mempolicy(BIND, no nodes)", set_policy(BIND, NULL, 0));
  show("set_mempolicy(BIND, node 63 only)", set_policy(BIND, &(unsigned long){1ul << 63}, 64));
  show("set_mempolicy(BIND, mask unreadable)", set_policy(BIND, (void *)8, 64));
  show("set_mempolicy(mode 99, mask unreadable)", set_policy(99, (void *)8, 64));
  show("set_mempolicy(BIND, 32769 nodes)", set_policy(BIND, mask, 32770));
  show("get_mempolicy(flags 8)", get_policy(&mode, NULL, 0, NULL, 8));
  show("get_mempolicy(MEMS_ALLOWED | ADDR)", get_policy(&mode, NULL, 0, NULL, F_MEMS_ALLOWED | F_ADDR));
  show("get_mempolicy(mask of 1 node)", get_policy(&mode, mask, 1, NULL, 0));
  mode = -1;
  show("get_mempolicy(mask of 40000 nodes)", get_policy(&mode, mask, 40000, NULL, 0));
  printf("  mode %d\n", mode);
  show("get_mempolicy(mode unwritable)", get_policy((void *)8, NULL, 0, NULL, 0));
  show("get_mempolicy(mask unwritable)", get_policy(&mode, (void *)8, 64, NULL, 0));

  char *area = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  memset(area, 1, 4 * page);
  show("mbind(BIND, node 0) of 2 pages", bind(area, 2 * page, BIND, &node0, 2, MF_STRICT | MF_MOVE));
  mode = -1;
  show("get_mempolicy(ADDR) in them", get_policy(&mode, mask, 64, area + page + 5, F_ADDR));
  printf("  mode %d, mask %#lx\n", mode, mask[0]);
  show("get_mempolicy(ADDR) past them", get_policy(&mode, NULL, 0, area + 2 * page, F_ADDR));
  printf("  mode %d\n", mode);
  show("get_mempolicy(ADDR | NODE): the page's node", get_policy(&mode, NULL, 0, area, F_ADDR | F_NODE));
  printf("  node %d\n", mode);
  show("set_mempolicy_home_node(node 0)", syscall(450, area, 2 * page, 0, 0));
  show("set_mempolicy_home_node, unbound range", syscall(450, area + 2 * page, page, 0, 0));
  show("set_mempolicy_home_node, flags 1", syscall(450, area, 2 * page, 0, 1));
  show("set_mempolicy_home_node, misaligned", syscall(450, area + 1, page, 0, 0));
  show("mbind(DEFAULT) of all 4", bind(area, 4 * page, DEFAULT, NULL, 0, 0));
  show("mbind, misaligned", bind(area + 1, page, DEFAULT, NULL, 0, 0));
  show("mbind, length 0", bind(area, 0, BIND, &node0, 2, 0));
  show("mbind, misaligned, length 0", bind(area + 8, 0, BIND, &node0, 2, 0));
  show("mbind, wrapping", bind(area, (unsigned long)-page, DEFAULT, NULL, 0, 0));
  show("mbind, flags 0x100", bind(area, page, DEFAULT, NULL, 0, 0x100));
  show("mbind(mode 99)", bind(area, page, 99, NULL, 0, 0));
  munmap(area + page, page);
  show("mbind(DEFAULT) over a hole", bind(area, 3 * page, DEFAULT, NULL, 0, 0));
  show("mbind(DEFAULT) from a hole", bind(area + page, 2 * page, DEFAULT, NULL, 0, 0));
  show("mbind(DEFAULT) into a hole", bind(area, 2 * page, DEFAULT, NULL, 0, 0));
  show("mbind(BIND) over a hole", bind(area, 3 * page, BIND, &node0, 2, 0));
  show("mbind(BIND) into a hole", bind(area, 2 * page, BIND, &node0, 2, 0));
  show("mbind(BIND, no nodes) over a hole", bind(area, 3 * page, BIND, NULL, 0, 0));
  show("mbind(DEFAULT) of the hole alone", bind(area + page, page, DEFAULT, NULL, 0, 0));
  show("mbind of nothing mapped", bind((void *)0x10000, page, DEFAULT, NULL, 0, 0));
  show("set_mempolicy_home_node of nothing mapped", syscall(450, 0x10000, page, 0, 0));
  show("get_mempolicy(ADDR) in the hole", get_policy(&mode, NULL, 0, area + page, F_ADDR));
  show("get_mempolicy(ADDR) of nothing mapped", get_policy(&mode, NULL, 0, (void *)0x10000, F_ADDR));

  void *pages[4] = {area, area + page, area + 3 * page, (void *)0x10000};
  int status[4] = {9, 9, 9, 9}, nodes[4] = {0, 0, 0, 0};
  show("move_pages: where 4 pages are", syscall(SYS_move_pages, 0, 4, pages, NULL, status, 0));
  printf("  status %d %d %d %d\n", status[0], status[1], status[2], status[3]);
  status[0] = status[1] = status[2] = status[3] = 9;
  show("move_pages: to node 0", syscall(SYS_move_pages, 0, 4, pages, nodes, status, MF_MOVE));
  printf("  status %d %d %d %d\n", status[0], status[1], status[2], status[3]);
  show("move_pages of none", syscall(SYS_move_pages, 0, 0, pages, NULL, status, 0));
  show("move_pages, pages unreadable", syscall(SYS_move_pages, 0, 2, (void *)8, NULL, status, 0));
  show("move_pages, status unwritable", syscall(SYS_move_pages, 0, 2, pages, NULL, (void *)8, 0));
  show("move_pages, flags 1", syscall(SYS_move_pages, 0, 2, (void *)8, NULL, status, 1));
  show("move_pages, no such process", syscall(SYS_move_pages, 999999, 2, pages, NULL, status, 0));
  unsigned long all = 1;
  show("migrate_pages(self, node 0 to node 0)", syscall(SYS_migrate_pages, 0, 2, &all, &all));
  show("migrate_pages, mask unreadable", syscall(SYS_migrate_pages, 0, 64, (void *)8, &all));
  show("migrate_pages, no such process", syscall(SYS_migrate_pages, 999999, 2, &all, &all));
  return 0;
}
