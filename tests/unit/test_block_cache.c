/* test_block_cache.c: blocks are decoded once, end at control transfers, chain, and are
 * dropped when their memory changes. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "decoder/block.h"
#include "decoder/decode.h"
#include "interp/fault.h"
#include "interp/ops_int.h"
#include "interp/run.h"
#include "proc_maps.h"
#include "test_machine.h"

/* Two fresh pages for code, the second with protection prot. They may reuse the address
 * of an earlier test's pages, so blocks decoded from those are dropped first. */
static uint8_t *page(int prot) {
  block_flush_all(&test_machine()->code);
  uint8_t *p = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(p != MAP_FAILED);
  mprotect(p + 4096, 4096, prot);
  return p;
}

/* The records before a block's first instruction: its code check (op_code_check), as the
 * test machine keeps no map of guest memory, so that every block may have been written. */
enum { CHECK = 1 };

/* sum = 1000 + 999 + ... + 1, then jump to code + 64 */
static const uint8_t sum_loop[] = {
    0xb9, 0xe8, 0x03, 0x00, 0x00, /* mov ecx, 1000 */
    0x31, 0xc0,                   /* xor eax, eax */
    0x48, 0x01, 0xc8,             /* loop: add rax, rcx */
    0x48, 0xff, 0xc9,             /* dec rcx */
    0x75, 0xf8,                   /* jnz loop */
    0xe9, 0x2c, 0x00, 0x00, 0x00, /* jmp code + 64 */
};

/* A loop whose SUB and JNZ end a block, then a CMP with memory and a JZ over an INC. */
static const uint8_t compare_and_jump[] = {
    0xb9, 0x05, 0x00, 0x00, 0x00, /* mov ecx, 5 */
    0x83, 0xc0, 0x02,             /* loop: add eax, 2 */
    0x83, 0xe9, 0x01,             /* sub ecx, 1 */
    0x75, 0xf8,                   /* jnz loop */
    0x39, 0x1a,                   /* cmp [rdx], ebx */
    0x74, 0x02,                   /* jz over the inc */
    0xff, 0xc0,                   /* inc eax */
    0xe9, 0x00, 0x00, 0x00, 0x00, /* jmp to the next byte: the stop address */
};

static int setup(void **state) {
  assert_true((test_machine() != NULL));
  return 0;
}

/* The arena has inaccessible pages on both sides. */
static void test_arena_is_guarded(void **state) {
  (void)state;
  const uint8_t *arena = test_machine()->code.arena;
  size_t size = test_machine()->code.arena_size;
  assert_int_equal(size, BLOCK_ARENA_DEFAULT);
  assert_string_equal(maps_perms((uint64_t)(uintptr_t)arena), "rw-p");
  assert_string_equal(maps_perms((uint64_t)(uintptr_t)arena - 1), "---p");
  assert_string_equal(maps_perms((uint64_t)(uintptr_t)arena + size - 1), "rw-p");
  assert_string_equal(maps_perms((uint64_t)(uintptr_t)arena + size), "---p");
  assert_string_equal(maps_perms((uint64_t)(uintptr_t)arena + size + BLOCK_ARENA_GUARD - 1), "---p");
}

static void test_hot_loop_is_decoded_once(void **state) {
  uint8_t *code = page(PROT_READ);
  memcpy(code, sum_loop, sizeof sum_loop);
  Cpu c;
  cpu_init(&c, test_machine());
  c.rip = (uint64_t)(uintptr_t)code;
  uint64_t before = test_machine()->code.decoded;
  assert_int_equal(cpu_run(&c, (uint64_t)(uintptr_t)code + 64), STOP_ADDRESS);
  assert_int_equal(c.r[RAX], 500500);
  assert_int_equal(c.rip, (uint64_t)(uintptr_t)code + 64);
  /* entry block, loop block, exit jump: three decodes for 1000 iterations */
  assert_int_equal(test_machine()->code.decoded - before, 3);
  munmap(code, 2 * 4096);
}

static void test_blocks_end_at_control_transfers(void **state) {
  uint8_t *code = page(PROT_READ);
  memcpy(code, sum_loop, sizeof sum_loop);
  Block *b = block_get(&test_machine()->code, (uint64_t)(uintptr_t)code);
  assert_int_equal(b->start, (uint64_t)(uintptr_t)code);
  assert_int_equal(b->n, CHECK + 5); /* mov, xor, add, dec, jnz */
  assert_ptr_equal(b->insns[0].fn, op_code_check);
  assert_int_equal(b->end, (uint64_t)(uintptr_t)code + 15);
  assert_ptr_equal(block_get(&test_machine()->code, (uint64_t)(uintptr_t)code), b);
  munmap(code, 2 * 4096);
}

static void test_invalidation_drops_only_overlapping_code(void **state) {
  uint8_t *code = page(PROT_READ);
  memcpy(code, sum_loop, sizeof sum_loop);
  block_get(&test_machine()->code, (uint64_t)(uintptr_t)code);
  uint64_t gen = test_machine()->code.generation;
  assert_int_equal(block_invalidate_range(&test_machine()->code, (uint64_t)(uintptr_t)code + 1024 * 1024 * 1024ull, 4096), 0);
  assert_int_equal(test_machine()->code.generation, gen);
  assert_int_equal(block_invalidate_range(&test_machine()->code, (uint64_t)(uintptr_t)code, 4096), 1);
  assert_true(test_machine()->code.generation != gen);
  /* Changed bytes are decoded afresh: nop; jmp */
  static const uint8_t nop_jmp[] = {0x90, 0xeb, 0x00};
  memcpy(code, nop_jmp, sizeof nop_jmp);
  uint64_t before = test_machine()->code.decoded;
  Block *b = block_get(&test_machine()->code, (uint64_t)(uintptr_t)code);
  assert_int_equal(test_machine()->code.decoded - before, 1);
  assert_int_equal(b->n, CHECK + 2);
  munmap(code, 2 * 4096);
}

/* Dropping one page's code keeps the rest decoded, and a chain into what went is not
 * followed. */
static void test_invalidation_keeps_other_pages_decoded(void **state) {
  BlockCache *bc = &test_machine()->code;
  uint8_t *one = page(PROT_READ), *two = page(PROT_READ);
  memcpy(one, sum_loop, sizeof sum_loop);
  memcpy(two, sum_loop, sizeof sum_loop);
  Block *a = block_get(bc, (uint64_t)(uintptr_t)one), *b = block_get(bc, (uint64_t)(uintptr_t)two);
  a->fall = b; /* as if a's code ran on into b's */
  assert_int_equal(block_invalidate_range(bc, (uint64_t)(uintptr_t)two, 4096), 1);
  assert_true(b->dead);
  assert_false(block_live(a->fall));
  uint64_t before = bc->decoded;
  assert_ptr_equal(block_get(bc, (uint64_t)(uintptr_t)one), a); /* still there */
  assert_int_equal(bc->decoded, before);
  assert_ptr_not_equal(block_get(bc, (uint64_t)(uintptr_t)two), b); /* decoded again */
  assert_int_equal(bc->decoded, before + 1);
  munmap(one, 2 * 4096);
  munmap(two, 2 * 4096);
}

/* A block whose bytes cross into the next page goes when either page changes, and so do
 * the blocks of a range wider than the pages holding code (the index is walked instead). */
static void test_invalidation_finds_blocks_by_each_of_their_pages(void **state) {
  BlockCache *bc = &test_machine()->code;
  uint8_t *code = page(PROT_READ | PROT_WRITE);
  uint8_t *across = code + 4096 - 4; /* 4 NOPs, then the page boundary, then a RET */
  memset(across, 0x90, 4);
  code[4096] = 0xc3;
  uint8_t *near_end = code + 4096 - 48; /* a block ending 16 bytes before the boundary */
  memset(near_end, 0x90, 31);
  near_end[31] = 0xc3;
  for (int pass = 0; pass < 3; pass++) {
    Block *b = block_get(bc, (uint64_t)(uintptr_t)across), *e = block_get(bc, (uint64_t)(uintptr_t)near_end);
    assert_int_equal(b->end, (uint64_t)(uintptr_t)code + 4097);
    uint64_t lo = pass == 0   ? (uint64_t)(uintptr_t)code + 4096 /* the second page */
                  : pass == 1 ? (uint64_t)(uintptr_t)code        /* the first */
                              : 0;                               /* all memory below 2^47 */
    uint64_t len = pass == 2 ? 1ull << 47 : 4096;
    assert_int_equal(block_invalidate_range(bc, lo, len), 1);
    assert_true(b->dead);
    assert_true(e->dead == (pass != 0)); /* its bytes, and the 15 after, are in the first page */
  }
  munmap(code, 2 * 4096);
}

/* The cache is bounded: decoding more than it holds empties it and uses the same memory
 * again, and what was dropped is decoded afresh. */
static void test_cache_is_bounded_and_recycled(void **state) {
  /* Decoding near the end of the mapping reads past it, into whatever follows: a fault
   * there must end the read (fault_copy_in), not the test. cmocka installs its own
   * SIGSEGV handler around each test. */
  fault_install();
  BlockCache *bc = &test_machine()->code;
  assert_true(block_cache_set_size(bc, BLOCK_ARENA_MIN));
  assert_int_equal(bc->arena_size, BLOCK_ARENA_MIN);
  size_t size = 1 << 20;
  uint8_t *code = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(code != MAP_FAILED);
  memset(code, 0xc3, size); /* a RET at every byte: a block at each */
  uint64_t flushes = bc->flushes;
  for (size_t i = 0; i < size; i++) {
    Block *b = block_get(bc, (uint64_t)(uintptr_t)code + i);
    assert_true((uint8_t *)b >= bc->arena && (uint8_t *)b + b->size <= bc->arena + bc->arena_size);
  }
  assert_true(bc->flushes - flushes >= (size * sizeof(Block)) / BLOCK_ARENA_MIN);
  assert_true(bc->arena_touched <= bc->arena + bc->arena_size);
  Block *first = block_get(bc, (uint64_t)(uintptr_t)code);
  assert_int_equal(first->start, (uint64_t)(uintptr_t)code);
  munmap(code, size);
  assert_true(block_cache_set_size(bc, BLOCK_ARENA_DEFAULT));
}

static void test_instruction_running_into_unmapped_page_faults_when_reached(void **state) {
  fault_install(); /* cmocka installs its own SIGSEGV handler around each test */
  uint8_t *code = page(PROT_NONE);
  uint8_t *at = code + 4096 - 3;
  at[0] = 0x90; /* nop */
  at[1] = 0x48; /* add rax, rcx, cut short by the page end */
  at[2] = 0x01;
  Block *b = block_get(&test_machine()->code, (uint64_t)(uintptr_t)at);
  assert_int_equal(b->n, CHECK + 2);
  assert_ptr_equal(b->insns[CHECK].fn, op_nop);
  assert_ptr_equal(b->insns[CHECK + 1].fn, op_fetch_fault);
  assert_int_equal((uint64_t)b->insns[CHECK + 1].disp, (uint64_t)(uintptr_t)(code + 4096));
  munmap(code, 2 * 4096);
}

static void test_unimplemented_instruction_decodes_to_sigill_handler(void **state) {
  uint8_t *code = page(PROT_READ);
  static const uint8_t vaddps_zmm[] = {0x62, 0xf1, 0x7c, 0x48, 0x58, 0xc1}; /* AVX-512: not in the model */
  memcpy(code, vaddps_zmm, sizeof vaddps_zmm);
  Insn in;
  uint64_t fault = 0;
  assert_int_equal(decode_insn(&test_machine()->dec, (uint64_t)(uintptr_t)code, &in, &fault), -1);
  assert_ptr_equal(in.fn, op_undefined);
  assert_int_equal(in.len, 6);
  munmap(code, 2 * 4096);
}

/* Encodings Capstone 4.0.2 rejects though the CPU runs them: fences with any ModRM.rm
 * and the CET hint register forms (NOPs while shadow stacks are off). */
static void test_register_forms_capstone_rejects_still_decode(void **state) {
  static const uint8_t forms[][4] = {
      {0x0f, 0xae, 0xe9}, /* lfence with rm = 1 */
      {0x0f, 0xae, 0xf3}, /* mfence with rm = 3 */
      {0x0f, 0xae, 0xfd}, /* sfence with rm = 5 */
      {0xf3, 0x48, 0x0f, 0x1e}, /* rdsspq rax: the ModRM byte follows */
  };
  uint8_t *code = page(PROT_READ);
  for (unsigned i = 0; i < 4; i++) {
    memset(code, 0x90, 32);
    unsigned n = i < 3 ? 3 : 4;
    memcpy(code, forms[i], n);
    if (i == 3) code[n++] = 0xc8;
    Insn in;
    uint64_t fault = 0;
    assert_int_equal(decode_insn(&test_machine()->dec, (uint64_t)(uintptr_t)code, &in, &fault), (int)n);
    assert_ptr_not_equal(in.fn, op_undefined);
  }
  munmap(code, 2 * 4096);
}

/* Threaded dispatch: handlers run the next instruction themselves, and the loop goes on
 * from wherever a chain stopped; every instruction must still run exactly once. */
/* A compare and the Jcc that ends its block run as one record (fuse.c), which jumps as
 * the two would, and whose memory fault leaves the state of the instructions before. */
static void test_compare_and_jump_fused(void **state) {
  fault_install();
  uint8_t *mem = page(PROT_NONE);
  memcpy(mem, compare_and_jump, sizeof compare_and_jump);
  uint64_t stop = (uint64_t)(uintptr_t)mem + sizeof compare_and_jump;
  uint32_t *word = (uint32_t *)(mem + 2048);
  *word = 7;
  BlockCache *code = &test_machine()->code;
  for (int equal = 0; equal < 3; equal++) { /* 0, 1: the word differs, equals; 2: it faults */
    Cpu c;
    cpu_init(&c, test_machine());
    c.rip = (uint64_t)(uintptr_t)mem;
    c.r[RBX] = equal == 1 ? 7 : 8;
    c.r[RDX] = equal == 2 ? (uint64_t)(uintptr_t)(mem + 4096) : (uint64_t)(uintptr_t)word;
    if (equal < 2) {
      assert_int_equal(cpu_run(&c, stop), STOP_ADDRESS);
      assert_int_equal(c.r[RAX], equal ? 10 : 11);
      assert_int_equal(c.icount, 1 + 5 * 3 + (equal ? 3 : 4));
    } else {
      assert_int_equal(cpu_run(&c, stop), STOP_FAULT);
      assert_int_equal(c.fault.sig, SIGSEGV);
      assert_int_equal(c.rip, (uint64_t)(uintptr_t)mem + 13); /* at the CMP */
      assert_int_equal(c.r[RAX], 10);
      assert_int_equal(c.icount, 1 + 5 * 3);
    }
  }
  /* Both pairs were fused: the SUB and the CMP records run another handler than their own.
   * The JZ jumps forward: a side exit, the block goes on to the JMP. */
  const Block *loop = block_get(code, (uint64_t)(uintptr_t)mem + 5);
  const Block *tail = block_get(code, (uint64_t)(uintptr_t)mem + 13);
  assert_int_equal(loop->n, CHECK + 3);
  assert_int_equal(tail->n, CHECK + 4);
  assert_true(tail->insns[CHECK + 1].side_exit);
  const Insn *sub = &loop->insns[CHECK + 1], *cmp = &tail->insns[CHECK];
  assert_ptr_not_equal(sub->fn, block_get_single(code, sub->rip)->insns[0].fn);
  assert_ptr_not_equal(cmp->fn, block_get_single(code, cmp->rip)->insns[0].fn);
  munmap(mem, 2 * 4096);
}

static void test_each_instruction_of_a_block_runs_once(void **state) {
  static const uint8_t code[] = {
      0x0f, 0xa2,                   /* cpuid: EAX, EBX, ECX, EDX */
      0x31, 0xdb,                   /* xor ebx, ebx */
      0xff, 0xc3,                   /* inc ebx */
      0x0f, 0x01, 0xf9,             /* rdtscp: EDX:EAX, ECX */
      0xff, 0xc3,                   /* inc ebx */
      0x48, 0x83, 0xc3, 0x10,       /* add rbx, 16 */
      0x66, 0x0f, 0xd4, 0xc0,       /* paddq xmm0, xmm0 */
      0xd9, 0xe8,                   /* fld1 */
      0xd8, 0xc0,                   /* fadd st0, st0 */
      0xff, 0xc3,                   /* inc ebx */
      0xe9, 0x00, 0x00, 0x00, 0x00, /* jmp to the next byte: the stop address */
  };
  uint8_t *mem = page(PROT_READ);
  memcpy(mem, code, sizeof code);
  Cpu c;
  cpu_init(&c, test_machine());
  c.rip = (uint64_t)(uintptr_t)mem;
  c.xmm[0].q[0] = 3;
  assert_int_equal(cpu_run(&c, (uint64_t)(uintptr_t)mem + sizeof code), STOP_ADDRESS);
  assert_int_equal(c.r[RBX], 3 + 16);  /* three INCs and one ADD, once each */
  assert_int_equal(c.xmm[0].q[0], 6); /* one PADDQ */
  assert_int_equal(c.fpu.top, 7);     /* one FLD */
  assert_int_equal(c.icount, 11);
  munmap(mem, 2 * 4096);
}

/* Register forms go on without recording themselves as the running record (insn.h:
 * DISPATCH_LEAN): a fault or trap after a run of them is still reported at its own
 * instruction, with those before it counted and their results kept. */
static void test_fault_after_lean_records_is_at_its_instruction(void **state) {
  static const uint8_t code[] = {
      0x48, 0x89, 0xd8,             /* mov rax, rbx */
      0x48, 0x83, 0xc0, 0x01,       /* add rax, 1 */
      0x48, 0x8d, 0x48, 0x08,       /* lea rcx, [rax + 8] */
      0x48, 0xc1, 0xe1, 0x02,       /* shl rcx, 2 */
      0x66, 0x0f, 0xef, 0xc1,       /* pxor xmm0, xmm1 */
      0x66, 0x0f, 0x38, 0xdc, 0xc1, /* aesenc xmm0, xmm1 */
      0x48, 0x8b, 0x11,             /* mov rdx, [rcx]: faults on the second page */
      0x48, 0xff, 0xc0,             /* inc rax */
      0x48, 0xf7, 0xf6,             /* div rsi: #DE when RSI is 0 */
      0xe9, 0x00, 0x00, 0x00, 0x00, /* jmp to the next byte: the stop address */
  };
  fault_install();
  uint8_t *mem = page(PROT_NONE);
  memcpy(mem, code, sizeof code);
  uint64_t start = (uint64_t)(uintptr_t)mem, readable = start + 2048, unreadable = start + 4096;
  for (int fault = 0; fault < 2; fault++) { /* the load faults, then the division does */
    Cpu c;
    cpu_init(&c, test_machine());
    c.rip = start;
    c.r[RBX] = (fault == 0 ? unreadable : readable) / 4 - 9;
    c.r[RSI] = 0;
    assert_int_equal(cpu_run(&c, start + sizeof code), STOP_FAULT);
    assert_int_equal(c.fault.sig, fault == 0 ? SIGSEGV : SIGFPE);
    assert_int_equal(c.rip, start + (fault == 0 ? 24 : 30));
    assert_int_equal(c.icount, fault == 0 ? 6 : 8);
    assert_int_equal(c.r[RCX], fault == 0 ? unreadable : readable);
    assert_int_equal(c.r[RAX], c.r[RBX] + 1 + fault);
  }
  munmap(mem, 2 * 4096);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_arena_is_guarded),
      cmocka_unit_test(test_hot_loop_is_decoded_once),
      cmocka_unit_test(test_blocks_end_at_control_transfers),
      cmocka_unit_test(test_invalidation_drops_only_overlapping_code),
      cmocka_unit_test(test_invalidation_keeps_other_pages_decoded),
      cmocka_unit_test(test_invalidation_finds_blocks_by_each_of_their_pages),
      cmocka_unit_test(test_cache_is_bounded_and_recycled),
      cmocka_unit_test(test_instruction_running_into_unmapped_page_faults_when_reached),
      cmocka_unit_test(test_unimplemented_instruction_decodes_to_sigill_handler),
      cmocka_unit_test(test_register_forms_capstone_rejects_still_decode),
      cmocka_unit_test(test_each_instruction_of_a_block_runs_once),
      cmocka_unit_test(test_compare_and_jump_fused),
      cmocka_unit_test(test_fault_after_lean_records_is_at_its_instruction),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
