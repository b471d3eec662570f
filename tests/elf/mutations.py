#!/usr/bin/env python3
"""mutations.py: x64emu accepts exactly the ELF files the kernel accepts.

Copies of real static and static-PIE programs get their headers damaged at random (a fixed
seed): ELF header fields, program header fields, the order of the program headers, the
file cut short. Each copy is run natively (execve by a forked child: refused when execve
returns an error) and under x64emu (refused when the loader says so: exit status 1 and its
"x64emu: FILE: ..." message). The two must agree on every copy; when both run it, the exit
status or signal and the output must agree too (a damaged program may still print and
exit, or die at its first instruction: natively SIGSEGV or SIGBUS, and so under x64emu).

usage: mutations.py X64EMU PROGRAM... [--cases N] [--seed S]
"""
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
PHDR = struct.Struct("<IIQQQQQQ")
PT_LOAD = 1


def interesting(rng, old):
    return rng.choice([0, 1, 2, 0x1000, 0xFFF, old ^ (1 << rng.randrange(64)),
                       old + 0x1000, old - 0x1000 if old >= 0x1000 else old + 8,
                       rng.getrandbits(64), rng.getrandbits(16), 1 << 47, (1 << 64) - 1])


def mutate(rng, data):
    b = bytearray(data)
    e = list(EHDR.unpack_from(b, 0))
    phoff, phnum = e[6], e[10]
    kind = rng.randrange(10)
    if kind == 0:  # a byte of e_ident past the magic
        b[rng.randrange(4, 16)] = rng.getrandbits(8)
    elif kind == 1:  # a field of the ELF header
        i = rng.randrange(1, len(e))
        bits = [None, 16, 16, 32, 64, 64, 64, 32, 16, 16, 16, 16, 16, 16][i]
        v = interesting(rng, e[i]) & ((1 << bits) - 1)
        e[i] = v
        EHDR.pack_into(b, 0, *e)
    elif kind in (2, 3, 4, 5) and phnum:  # a field of a program header
        k = rng.randrange(phnum)
        off = phoff + k * PHDR.size
        p = list(PHDR.unpack_from(b, off))
        i = rng.randrange(len(p))
        if i < 2:
            p[i] = rng.choice([0, 1, 2, 3, 4, 6, 0x6474E551, rng.getrandbits(32)])
        else:
            p[i] = interesting(rng, p[i]) & ((1 << 64) - 1)
        PHDR.pack_into(b, off, *p)
    elif kind == 6 and phnum > 1:  # two program headers change places
        i, j = rng.sample(range(phnum), 2)
        a = bytes(b[phoff + i * PHDR.size: phoff + (i + 1) * PHDR.size])
        b[phoff + i * PHDR.size: phoff + (i + 1) * PHDR.size] = \
            b[phoff + j * PHDR.size: phoff + (j + 1) * PHDR.size]
        b[phoff + j * PHDR.size: phoff + (j + 1) * PHDR.size] = a
    elif kind == 7:  # the file cut short
        return bytes(b[:rng.randrange(0, len(b))])
    elif kind == 8 and phnum:  # a PT_LOAD's file part cut inside its last page
        loads = [k for k in range(phnum)
                 if PHDR.unpack_from(b, phoff + k * PHDR.size)[0] == PT_LOAD]
        if loads:
            p = PHDR.unpack_from(b, phoff + rng.choice(loads) * PHDR.size)
            end = p[2] + p[5]
            if 0 < end <= len(b):
                return bytes(b[:max(end - rng.randrange(1, 0x1000), 0)])
    else:  # the program header table moved
        e[6] = interesting(rng, phoff) & ((1 << 64) - 1)
        EHDR.pack_into(b, 0, *e)
    return bytes(b)


def run(cmd, cwd):
    """(how it ended, stdout) for cmd, with a timeout."""
    try:
        r = subprocess.run(cmd, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=10, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"})
    except subprocess.TimeoutExpired:
        return "timeout", b"", b""
    end = "signal %d" % -r.returncode if r.returncode < 0 else "exit %d" % r.returncode
    return end, r.stdout, r.stderr


def native(path, cwd):
    """Refused (execve's errno, which subprocess raises in the parent) or how it ended."""
    try:
        end, out, _ = run([path], cwd)
    except OSError as err:
        return "refused %d" % err.errno, b""
    return end, out


def main():
    args, cases, seed = [], 1500, 0x5EED
    argv = sys.argv[1:]
    while argv:
        a = argv.pop(0)
        if a == "--cases":
            cases = int(argv.pop(0))
        elif a == "--seed":
            seed = int(argv.pop(0), 0)
        else:
            args.append(a)
    x64emu, programs = os.path.abspath(args[0]), [os.path.abspath(p) for p in args[1:]]
    rng = random.Random(seed)
    work = tempfile.mkdtemp(prefix="x64emu-elf-mutations-")
    counts = {"refused by both": 0, "run by both": 0}
    bad = 0
    try:
        for n in range(cases):
            program = programs[n % len(programs)]
            with open(program, "rb") as f:
                data = mutate(rng, f.read())
            path = os.path.join(work, "case%d" % n)
            with open(path, "wb") as f:
                f.write(data)
            os.chmod(path, 0o755)
            cwd = os.path.join(work, "cwd")
            os.makedirs(cwd, exist_ok=True)
            nat_end, nat_out = native(path, cwd)
            emu_end, emu_out, emu_err = run([x64emu, path], cwd)
            emu_refused = emu_end == "exit 1" and emu_err.startswith(b"x64emu: " + path.encode())
            if nat_end.startswith("refused") != emu_refused:
                bad += 1
                print("case %d (%s): native %s, x64emu %s: %s" % (
                    n, os.path.basename(program), nat_end, "refused" if emu_refused else emu_end,
                    emu_err.decode(errors="replace").strip()[:200]))
                shutil.copy(path, path + ".kept")
            elif emu_refused:
                counts["refused by both"] += 1
            elif (nat_end, nat_out) != (emu_end, emu_out):
                bad += 1
                print("case %d (%s): both ran; native %s, x64emu %s%s" % (
                    n, os.path.basename(program), nat_end, emu_end,
                    "" if nat_out == emu_out else " (output differs)"))
                shutil.copy(path, path + ".kept")
            else:
                counts["run by both"] += 1
            os.unlink(path)
            shutil.rmtree(cwd, ignore_errors=True)
    finally:
        if not bad:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print("the differing copies are kept in", work)
    print("%d mutated copies (seed %#x): %d refused by both, %d run by both alike, %d differ" % (
        cases, seed, counts["refused by both"], counts["run by both"], bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
