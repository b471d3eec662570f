#!/usr/bin/env python3
"""ghash.py: runs GHASH steps written with PCLMULQDQ (ghash.s) and checks them against
the GCM specification ("The Galois/Counter Mode of Operation", test cases 2 and 3).
Uses the installed x64emu module."""
import sys

import x64emu

# ghash.s, assembled: rdi = H, rsi = X (in and out), rdx = C; `done` at DONE.
CODE_BYTES = bytes.fromhex(
    "f3440f6f3d27010000f30f6f06f3440f6f1266410fefc266410f3800c7f30f6f"
    "0f66410f3800cf660f6fd8660f3a44d900660f6fe0660f3a44e110660f6fe866"
    "0f3a44e901660f6ff0660f3a44f111660fefe5660f6fec660f73fd08660f73dc"
    "08660fefdd660feff4660f6ffb660f72d71f66440f6fc666410f72d01f660f72"
    "f301660f72f60166440f6fcf66410f73d90c66410f73f804660f73ff04660feb"
    "df66410febf066410febf1660f6ffb660f72f71f66440f6fc366410f72f01e66"
    "440f6fcb66410f72f11966410feff866410feff966440f6fc766410f73d80466"
    "0f73ff0c660fefdf660f6fd3660f72d201660f6fe3660f72d402660f6feb660f"
    "72d507660fefd4660fefd566410fefd0660fefda660feff366410f3800f7f30f"
    "7f360f0b66662e0f1f840000000000900f0e0d0c0b0a09080706050403020100"
)
CODE, DONE, DATA = 0x400000, 0x122, 0x500000


def ghash_step(m, h, x, c):
    """X = (X xor C) * H, run in the machine."""
    m.mem_write(DATA, h)
    m.mem_write(DATA + 16, x)
    m.mem_write(DATA + 32, c)
    for reg, value in (("rip", CODE), ("rdi", DATA), ("rsi", DATA + 16), ("rdx", DATA + 32)):
        m.reg_write(reg, value)
    stop = m.run(until=CODE + DONE)
    if stop.reason != x64emu.STOP_UNTIL:
        sys.exit("ghash.py: stopped: %r" % stop)
    return m.mem_read(DATA + 16, 16)


def ghash(m, h, blocks, lengths):
    """GHASH(H, no additional data, C): each block, then the lengths block."""
    x = bytes(16)
    for c in blocks + [lengths]:
        x = ghash_step(m, bytes.fromhex(h), x, bytes.fromhex(c))
    return x.hex()


def main():
    with x64emu.Machine() as m:
        m.mem_map(CODE, 0x1000, x64emu.PROT_READ | x64emu.PROT_EXEC)
        m.mem_map(DATA, 0x1000, x64emu.PROT_READ | x64emu.PROT_WRITE)
        m.mem_write(CODE, CODE_BYTES)
        cases = [
            ("test case 2: GHASH(H, {}, C)", "66e94bd4ef8a2c3b884cfa59ca342b2e",
             ["0388dace60b6a392f328c2b971b2fe78"], "00000000000000000000000000000080",
             "f38cbb1ad69223dcc3457ae5b6b0f885"),
            ("test case 3: GHASH(H, {}, C)", "b83b533708bf535d0aa6e52980d53b78",
             ["42831ec2217774244b7221b784d0d49c", "e3aa212f2c02a4e035c17e2329aca12e",
              "21d514b25466931c7d8f6a5aac84aa05", "1ba30b396a0aac973d58e091473f5985"],
             "00000000000000000000000000000200", "7f1b32b81b820d02614f8895ac1d4eac"),
        ]
        good = True
        for name, h, blocks, lengths, want in cases:
            got = ghash(m, h, blocks, lengths)
            print("%-28s %s  %s" % (name, got, "= GCM spec" if got == want else "differs from the GCM spec"))
            good = good and got == want
        print("%d instructions" % m.icount)
        return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
