#!/usr/bin/env python3
"""aes128_step.py: single-steps one AES-128 block encryption written with AES-NI
(aes128.s), prints the state after every AESENC and AESENCLAST, and checks each round
against FIPS-197 Appendix B ("Cipher Example"). Uses the installed x64emu module."""
import sys

import x64emu

# aes128.s, assembled: rdi = key, rsi = input, rdx = output; `done` at DONE.
CODE_BYTES = bytes.fromhex(
    "f30f6f0ff30f6f06660fefc1660f3adfd101e89b000000660f38dcc1660f3adf"
    "d102e88b000000660f38dcc1660f3adfd104e87b000000660f38dcc1660f3adf"
    "d108e86b000000660f38dcc1660f3adfd110e85b000000660f38dcc1660f3adf"
    "d120e84b000000660f38dcc1660f3adfd140e83b000000660f38dcc1660f3adf"
    "d180e82b000000660f38dcc1660f3adfd11be81b000000660f38dcc1660f3adf"
    "d136e80b000000660f38ddc1f30f7f020f0b660f70d2ff660f6fd9660f73fb04"
    "660fefcb660f73fb04660fefcb660f73fb04660fefcb660fefcac3"
)
CODE, DONE, DATA = 0x400000, 0xB0, 0x500000

# FIPS-197 Appendix B: key, input, the state at the start of rounds 2..10 (after rounds
# 1..9), and the output.
KEY = "2b7e151628aed2a6abf7158809cf4f3c"
INPUT = "3243f6a8885a308d313198a2e0370734"
AFTER_ROUND = [
    "a49c7ff2689f352b6b5bea43026a5049", "aa8f5f0361dde3ef82d24ad26832469a",
    "486c4eee671d9d0d4de3b138d65f58e7", "e0927fe8c86363c0d9b1355085b8be01",
    "f1006f55c1924cef7cc88b325db5d50c", "260e2e173d41b77de86472a9fdd28b25",
    "5a4142b11949dc1fa3e019657a8c040c", "ea835cf00445332d655d98ad8596b0c5",
    "eb40f21e592e38848ba113e71bc342d2", "3925841d02dc09fbdc118597196a0b32",
]


def main():
    with x64emu.Machine() as m:
        m.mem_map(CODE, 0x1000, x64emu.PROT_READ | x64emu.PROT_EXEC)
        m.mem_map(DATA, 0x1000, x64emu.PROT_READ | x64emu.PROT_WRITE)
        m.mem_write(CODE, CODE_BYTES)
        m.mem_write(DATA, bytes.fromhex(KEY))
        m.mem_write(DATA + 16, bytes.fromhex(INPUT))
        for reg, value in (("rip", CODE), ("rsp", DATA + 0x1000), ("rdi", DATA),
                           ("rsi", DATA + 16), ("rdx", DATA + 32)):
            m.reg_write(reg, value)
        rounds = wrong = 0
        while m.reg_read("rip") != CODE + DONE:
            text, _ = m.disasm(m.reg_read("rip"))
            stop = m.step()
            if stop.reason != x64emu.STOP_COUNT:
                sys.exit("aes128_step.py: stopped: %r" % stop)
            if text.startswith("aesenc"):
                state = m.reg_read("xmm0").hex()
                ok = state == AFTER_ROUND[rounds]
                print("round %2d  %-22s %s  %s" % (rounds + 1, text, state,
                                                 "= FIPS-197" if ok else "differs from FIPS-197"))
                wrong += not ok
                rounds += 1
        good = rounds == 10 and not wrong and m.mem_read(DATA + 32, 16).hex() == AFTER_ROUND[-1]
        print("%d rounds in %d single steps: %s" % (
            rounds, m.icount, "every round as FIPS-197 Appendix B" if good else "MISMATCH"))
        return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
