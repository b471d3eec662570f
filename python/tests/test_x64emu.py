"""Tests of the Python binding (python/x64emu) over libx64emu.so: every method, its
errors as X64EmuError, hooks, stepping against running. Run by the test command through
ctest (api.python), with X64EMU_LIBRARY naming the built library and X64EMU_TEST_HELLO a
static guest program."""
import os
import signal
import unittest

import x64emu
from x64emu import Machine, X64EmuError

CODE, STACK, PAGE = 0x10000000, 0x20000000, 4096

# The walk of tests/api/test_api.c: a loop (rax = 6), REP MOVSB of "hello", call fn
# (rax = 7), then a load from page 0 that faults; 22 steps before the fault.
WALK = bytes.fromhex(
    "b90300000031c04801c848ffc975f8488d352a000000488d3d33000000b905000000f3a4e808000000"
    "488b1c251000000048ffc0c36666" "2e0f1f840000000000" "68656c6c6f")
WALK_STEPS, WALK_FAULT_AT, WALK_REP_AT, WALK_CALL_AT = 22, 0x29, 0x22, 0x24


def walk_machine(at=CODE):
    m = Machine()
    m.mem_map(at, PAGE)
    m.mem_map(STACK + (at - CODE) - PAGE, PAGE, x64emu.PROT_READ | x64emu.PROT_WRITE)
    m.mem_write(at, WALK)
    m.reg_write("rip", at)
    m.reg_write("rsp", STACK + (at - CODE))
    return m


def state(m):
    regs = [m.reg_read(r) for r in range(x64emu.REG_MXCSR + 1)]
    return regs, [m.reg_read("xmm%d" % i) for i in range(16)], m.mem_read(CODE, PAGE), m.icount


class Errors(unittest.TestCase):
    def test_statuses_raise_with_their_text(self):
        with Machine() as m:
            with self.assertRaises(X64EmuError) as e:
                m.mem_map(CODE + 1, PAGE)
            self.assertEqual(e.exception.status, x64emu.ERR_ARG)
            self.assertIn("invalid argument", str(e.exception))
            with self.assertRaises(X64EmuError) as e:
                m.mem_read(CODE, 1)
            self.assertEqual(e.exception.status, x64emu.ERR_UNMAPPED)
            with self.assertRaises(X64EmuError) as e:
                m.reg_read("nosuch")
            self.assertEqual(e.exception.status, x64emu.ERR_REG)
            with self.assertRaises(X64EmuError) as e:
                m.reg_write("xmm0", b"short")
            self.assertEqual(e.exception.status, x64emu.ERR_ARG)
            with self.assertRaises(X64EmuError) as e:
                m.hook_remove(12345)
            self.assertEqual(e.exception.status, x64emu.ERR_HOOK)
            with self.assertRaises(X64EmuError) as e:
                m.breakpoint_remove(CODE)
            self.assertEqual(e.exception.status, x64emu.ERR_ARG)

    def test_load_errors_say_what_is_wrong(self):
        with self.assertRaises(X64EmuError) as e:
            Machine.linux("/nonexistent/program")
        self.assertEqual(e.exception.status, x64emu.ERR_LOAD)
        self.assertIn("/nonexistent/program", str(e.exception))


class Memory(unittest.TestCase):
    def test_map_write_read_protect_unmap(self):
        with Machine() as m, Machine() as other:
            m.mem_map(CODE, 2 * PAGE, x64emu.PROT_READ | x64emu.PROT_WRITE)
            with self.assertRaises(X64EmuError) as e:
                other.mem_map(CODE, PAGE)
            self.assertEqual(e.exception.status, x64emu.ERR_MAP_IN_USE)
            m.mem_write(CODE + PAGE - 2, b"abcd")
            self.assertEqual(m.mem_read(CODE + PAGE - 2, 4), b"abcd")
            m.mem_protect(CODE, PAGE, x64emu.PROT_NONE)
            self.assertEqual(m.mem_read(CODE + PAGE - 2, 2), b"ab")  # whatever the protection
            m.mem_unmap(CODE, PAGE)
            with self.assertRaises(X64EmuError):
                m.mem_read(CODE, 1)


class Registers(unittest.TestCase):
    def test_every_register(self):
        with Machine() as m:
            self.assertEqual(m.reg_read("rflags"), 0x202)
            self.assertEqual(m.reg_read("mxcsr"), 0x1F80)
            for name in x64emu._GPRS + ["RIP", "FS_BASE", "GS_BASE"]:
                m.reg_write(name, 0x0123456789ABCDEF ^ x64emu.REG[name])
                self.assertEqual(m.reg_read(name), 0x0123456789ABCDEF ^ x64emu.REG[name])
            for i in range(16):
                m.reg_write("xmm%d" % i, bytes(range(i, i + 16)))
                self.assertEqual(m.reg_read("xmm%d" % i), bytes(range(i, i + 16)))
            one = bytes([0] * 7 + [0x80, 0xFF, 0x3F])  # 1.0 as 80-bit extended
            for i in range(8):
                m.reg_write("st%d" % i, one)
                self.assertEqual(m.reg_read("st%d" % i), one)
            m.reg_write("fcw", 0x27F)
            self.assertEqual(m.reg_read("fcw"), 0x27F)
            with self.assertRaises(X64EmuError):
                m.reg_write("mxcsr", 0x10000)


class Running(unittest.TestCase):
    def test_run_to_the_fault(self):
        with walk_machine() as m:
            stop = m.run()
            self.assertEqual(stop.reason, x64emu.STOP_FAULT)
            self.assertEqual((stop.signal, stop.address), (signal.SIGSEGV, 0x10))
            self.assertEqual(m.reg_read("rip"), CODE + WALK_FAULT_AT)
            self.assertEqual(m.reg_read("rax"), 7)
            self.assertEqual(m.icount, WALK_STEPS)
            self.assertEqual(m.mem_read(CODE + 0x50, 5), b"hello")

    def test_stepping_n_times_equals_running_n(self):
        for n in range(1, WALK_STEPS + 2):
            a = walk_machine()
            for _ in range(n):
                if a.step().reason != x64emu.STOP_COUNT:
                    break
            stepped = state(a)
            a.close()
            b = walk_machine()
            b.run(count=n)
            self.assertEqual(stepped, state(b), "after %d" % n)
            b.close()

    def test_until_breakpoint_and_rep_steps(self):
        with walk_machine() as m:
            self.assertEqual(m.run(until=CODE + WALK_REP_AT).reason, x64emu.STOP_UNTIL)
            for left in (4, 3, 2, 1):
                m.step()
                self.assertEqual((m.reg_read("rip"), m.reg_read("rcx")), (CODE + WALK_REP_AT, left))
            m.breakpoint_add(CODE + 0x31)
            self.assertEqual(m.run().reason, x64emu.STOP_BREAKPOINT)
            self.assertEqual(m.reg_read("rip"), CODE + 0x31)
            self.assertEqual(m.disasm(CODE + 0x31), ("inc rax", 3))
            m.breakpoint_remove(CODE + 0x31)
            self.assertEqual(m.run().reason, x64emu.STOP_FAULT)


class Hooks(unittest.TestCase):
    def test_instruction_block_and_stop(self):
        with walk_machine() as m:
            seen, blocks = [], []

            def insn(machine, address, length):
                seen.append(address)
                self.assertEqual(machine.reg_read("rip"), address)
                if address == CODE + WALK_CALL_AT:
                    machine.stop()

            hook = m.hook_insn(insn)
            m.hook_block(lambda machine, address, length: blocks.append(address))
            self.assertEqual(m.run().reason, x64emu.STOP_REQUESTED)
            self.assertEqual(m.reg_read("rip"), CODE + WALK_CALL_AT)
            self.assertEqual(m.icount, 19)
            m.hook_remove(hook)
            self.assertEqual(m.run().reason, x64emu.STOP_FAULT)
            self.assertEqual(len(seen), 20)  # 19 run, and the call it stopped before
            self.assertEqual(blocks[0], CODE)

    def test_register_views(self):
        with walk_machine() as m:
            rip = m.reg_view("rip")
            seen = []
            m.hook_insn(lambda machine, address, length: seen.append(rip.value == address))
            m.reg_write("xmm3", bytes(range(16)))
            self.assertEqual(bytes(m.reg_view("xmm3")), bytes(range(16)))
            self.assertEqual(m.run().reason, x64emu.STOP_FAULT)
            self.assertTrue(seen and all(seen))
            self.assertEqual(m.reg_view("rax").value, 7)
            self.assertEqual(m.reg_view("mxcsr").value, 0x1F80)
            with self.assertRaises(X64EmuError) as e:
                m.reg_view("rflags")
            self.assertEqual(e.exception.status, x64emu.ERR_REG)

    def test_memory_hooks(self):
        with walk_machine() as m:
            seen, refused = [], []

            def access(machine, kind, address, data):
                seen.append((kind, address - CODE, data))
                self.assertEqual(machine.reg_read("rip"), CODE + WALK_REP_AT)
                try:
                    machine.reg_write("rax", 0)
                except X64EmuError as e:
                    refused.append(e.status)
                if kind == x64emu.MEM_WRITE and address == CODE + 0x52:
                    machine.stop()

            # REP MOVSB copies "hello" from +0x40 to +0x50, a byte an iteration.
            m.hook_mem(access, begin=CODE + 0x40, end=CODE + 0x58)
            self.assertEqual(m.run().reason, x64emu.STOP_REQUESTED)
            self.assertEqual(m.reg_read("rcx"), 2)  # after the third iteration
            self.assertEqual(m.run().reason, x64emu.STOP_FAULT)
            expected = []
            for k, byte in enumerate(b"hello"):
                expected += [(x64emu.MEM_READ, 0x40 + k, bytes([byte])),
                             (x64emu.MEM_WRITE, 0x50 + k, bytes([byte]))]
            self.assertEqual(seen, expected)
            self.assertEqual(refused, [x64emu.ERR_RUNNING] * 10)
            self.assertEqual(m.reg_read("rax"), 7)  # untouched by the refused writes

    def test_event_hooks(self):
        code = bytes.fromhex("b83c000000bf070000000f0589c30f0b")  # exit(7); mov ebx, eax; ud2
        with Machine() as m:
            m.mem_map(CODE, PAGE)
            m.mem_write(CODE, code)
            m.reg_write("rip", CODE)
            self.assertEqual(m.run().reason, x64emu.STOP_SYSCALL)

            def syscall(machine, stop):
                machine.reg_write("rax", 42)
                return True

            def invalid(machine, stop):
                self.assertEqual(stop.signal, signal.SIGILL)
                machine.reg_write("rip", machine.reg_read("rip") + 2)
                return True

            m.reg_write("rip", CODE)
            m.hook_syscall(syscall)
            m.hook_invalid(invalid)
            faults = []
            m.hook_fault(lambda machine, stop: faults.append(stop.address) and False)
            stop = m.run()
            self.assertEqual((stop.reason, stop.address), (x64emu.STOP_FAULT, 42))
            self.assertEqual(faults, [42])
            self.assertEqual(m.reg_read("rbx"), 42)


class Linux(unittest.TestCase):
    def test_a_program_runs_to_its_exit(self):
        hello = os.environ["X64EMU_TEST_HELLO"]
        with Machine.linux(hello, ["hello"], ["LANG=C"]) as m:
            with self.assertRaises(X64EmuError) as e:
                Machine.linux(hello)
            self.assertEqual(e.exception.status, x64emu.ERR_LINUX_IN_USE)
            stop = m.run()
            self.assertEqual((stop.reason, stop.exit_status), (x64emu.STOP_EXIT, 0))


if __name__ == "__main__":
    unittest.main()
