#!/usr/bin/env python3
"""api.py: the Python binding against Unicorn's, on the guest loop of bench/api.c: run
with no hook, with a hook on every instruction that reads RIP and XMM0 (by calls, and in
x64emu also through register views), and single steps.
Prints a Markdown table in millions of guest instructions per second. A benchmark, not a
test: bench/api.sh runs it (with Debian's python3-unicorn)."""
import sys
import time

import unicorn
from unicorn import x86_const as ux

import x64emu

LOOP = bytes.fromhex("4801c8660fefc1660fd4c84831c348ffc975ee90")  # see bench/api.c
CODE, DONE, PER_ITER = 0x1000000, len(LOOP) - 1, 6


def x_rate(n, hook, steps):
    m = x64emu.Machine()
    m.mem_map(CODE, 0x1000)
    m.mem_write(CODE, LOOP)
    m.reg_write("rip", CODE)
    m.reg_write("rcx", n)
    if hook == "view":
        rip, xmm0 = m.reg_view("rip"), m.reg_view("xmm0")
        m.hook_insn(lambda mm, address, length: (rip.value, bytes(xmm0)))
    elif hook:
        m.hook_insn(lambda mm, address, length: (mm.reg_read("rip"), mm.reg_read("xmm0")))
    t0 = time.perf_counter()
    if steps:
        while m.reg_read("rip") != CODE + DONE:
            m.step()
    else:
        m.run(until=CODE + DONE)
    rate = m.icount / (time.perf_counter() - t0) / 1e6
    m.close()
    return rate


def u_rate(n, hook, steps):
    uc = unicorn.Uc(unicorn.UC_ARCH_X86, unicorn.UC_MODE_64)
    uc.mem_map(CODE, 0x1000)
    uc.mem_write(CODE, LOOP)
    uc.reg_write(ux.UC_X86_REG_RCX, n)
    if hook:
        uc.hook_add(unicorn.UC_HOOK_CODE, lambda u, address, size, user: (
            u.reg_read(ux.UC_X86_REG_RIP), u.reg_read(ux.UC_X86_REG_XMM0)))
    t0 = time.perf_counter()
    count = 0
    if steps:
        rip = CODE
        while rip != CODE + DONE:
            uc.emu_start(rip, CODE + DONE, 0, 1)
            rip = uc.reg_read(ux.UC_X86_REG_RIP)
            count += 1
    else:
        uc.emu_start(CODE, CODE + DONE)
        count = n * PER_ITER
    return count / (time.perf_counter() - t0) / 1e6


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000000
    print("| Python: guest instructions per second (millions) | x64emu | Unicorn %s | x64emu / Unicorn |"
          % unicorn.__version__)
    print("|---|---:|---:|---:|")
    for name, hook, steps, iters in (("run, no hook", 0, 0, n),
                                     ("run, hook on every instruction (reads RIP, XMM0)", 1, 0, n // 100),
                                     ("the same, x64emu reading them through reg_view", "view", 0, n // 100),
                                     ("single steps (count = 1)", 0, 1, n // 400)):
        x, u = x_rate(iters, hook, steps), u_rate(iters, hook, steps)
        print("| %s | %.2f | %.2f | %.2f |" % (name, x, u, x / u))


if __name__ == "__main__":
    main()
