"""x64emu: run and inspect x86-64 code from Python, over libx64emu.so (ctypes).

It mirrors include/x64emu/x64emu.h: a Machine is one x86-64 CPU and the guest memory it
owns, bare (you map memory, write code and registers, run; system calls and faults come
back as stops) or running a static Linux program (Machine.linux). Every failing call
raises X64EmuError with the library's status and text.

The library is $X64EMU_LIBRARY, else the one installed beside this module (cmake
--install puts the module in <libdir>/python3/dist-packages), else the system's.
"""
import ctypes
import ctypes.util
import os

__all__ = ["Machine", "Stop", "X64EmuError", "library"]


def _load():
    beside = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                          "libx64emu.so.0")
    path = os.environ.get("X64EMU_LIBRARY")
    if not path:
        path = beside if os.path.exists(beside) else ctypes.util.find_library("x64emu")
    return ctypes.CDLL(path or "libx64emu.so.0")


library = _load()
_u64, _int, _ptr, _sz = ctypes.c_uint64, ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t

# Statuses, protections, registers, stop reasons: the header's numbers.
(OK, ERR_ARG, ERR_NOMEM, ERR_INIT, ERR_MAP_IN_USE, ERR_UNMAPPED, ERR_REG, ERR_LOAD,
 ERR_LINUX_IN_USE, ERR_RUNNING, ERR_HOOK, ERR_DECODE) = range(12)
PROT_NONE, PROT_READ, PROT_WRITE, PROT_EXEC = 0, 1, 2, 4
MEM_READ, MEM_WRITE = 1, 2
_GPRS = ["RAX", "RCX", "RDX", "RBX", "RSP", "RBP", "RSI", "RDI",
         "R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15"]
REG = {name: i for i, name in enumerate(
    _GPRS + ["RIP", "RFLAGS", "FS_BASE", "GS_BASE", "MXCSR", "FCW", "FSW", "FTW"])}
REG.update({"XMM%d" % i: REG["FTW"] + 1 + i for i in range(16)})
REG.update({"ST%d" % i: REG["XMM15"] + 1 + i for i in range(8)})
globals().update({"REG_" + name: number for name, number in REG.items()})
(STOP_SYSCALL, STOP_FAULT, STOP_UNTIL, STOP_BREAKPOINT, STOP_COUNT, STOP_REQUESTED,
 STOP_EXIT) = range(1, 8)
STOP_NAMES = {STOP_SYSCALL: "syscall", STOP_FAULT: "fault", STOP_UNTIL: "until",
              STOP_BREAKPOINT: "breakpoint", STOP_COUNT: "count", STOP_REQUESTED: "requested",
              STOP_EXIT: "exit"}


class Stop(ctypes.Structure):
    """Why a run stopped: reason (STOP_*), and for a fault its signal, code and address,
    for an exit its exit_status (or the signal that killed the program)."""
    _fields_ = [("reason", _int), ("signal", _int), ("code", _int), ("address", _u64),
                ("exit_status", _int)]

    def __repr__(self):
        return "Stop(%s, signal=%d, code=%d, address=%#x, exit_status=%d)" % (
            STOP_NAMES.get(self.reason, self.reason), self.signal, self.code, self.address,
            self.exit_status)


_INSN_HOOK = ctypes.CFUNCTYPE(None, _ptr, _u64, ctypes.c_uint, _ptr)
_BLOCK_HOOK = ctypes.CFUNCTYPE(None, _ptr, _u64, _u64, _ptr)
_EVENT_HOOK = ctypes.CFUNCTYPE(ctypes.c_bool, _ptr, ctypes.POINTER(Stop), _ptr)
_MEM_HOOK = ctypes.CFUNCTYPE(None, _ptr, _int, _u64, ctypes.c_uint, _ptr, _ptr)

for name, result, args in [
        ("strerror", ctypes.c_char_p, [_int]),
        ("open", _int, [ctypes.POINTER(_ptr)]),
        ("open_linux", _int, [ctypes.POINTER(_ptr), ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p),
                              ctypes.POINTER(ctypes.c_char_p)]),
        ("last_error", ctypes.c_char_p, []),
        ("close", None, [_ptr]),
        ("mem_map", _int, [_ptr, _u64, _u64, _int]),
        ("mem_unmap", _int, [_ptr, _u64, _u64]),
        ("mem_protect", _int, [_ptr, _u64, _u64, _int]),
        ("mem_read", _int, [_ptr, _u64, _ptr, _sz]),
        ("mem_write", _int, [_ptr, _u64, ctypes.c_char_p, _sz]),
        ("reg_size", _sz, [_int]),
        ("reg_read", _int, [_ptr, _int, _ptr]),
        ("reg_write", _int, [_ptr, _int, _ptr]),
        ("reg_view", _int, [_ptr, _int, ctypes.POINTER(_ptr)]),
        ("run", _int, [_ptr, _u64, _u64, ctypes.POINTER(Stop)]),
        ("step", _int, [_ptr, ctypes.POINTER(Stop)]),
        ("stop_run", _int, [_ptr]),
        ("icount", _u64, [_ptr]),
        ("breakpoint_add", _int, [_ptr, _u64]),
        ("breakpoint_remove", _int, [_ptr, _u64]),
        ("disasm", _int, [_ptr, _u64, ctypes.c_char_p, _sz, ctypes.POINTER(ctypes.c_uint)]),
        ("hook_insn", _int, [_ptr, _u64, _u64, _INSN_HOOK, _ptr, ctypes.POINTER(_int)]),
        ("hook_block", _int, [_ptr, _u64, _u64, _BLOCK_HOOK, _ptr, ctypes.POINTER(_int)]),
        ("hook_mem", _int, [_ptr, _int, _u64, _u64, _MEM_HOOK, _ptr, ctypes.POINTER(_int)]),
        ("hook_syscall", _int, [_ptr, _EVENT_HOOK, _ptr, ctypes.POINTER(_int)]),
        ("hook_fault", _int, [_ptr, _EVENT_HOOK, _ptr, ctypes.POINTER(_int)]),
        ("hook_invalid", _int, [_ptr, _EVENT_HOOK, _ptr, ctypes.POINTER(_int)]),
        ("hook_remove", _int, [_ptr, _int])]:
    f = getattr(library, "x64emu_" + name)
    f.restype, f.argtypes = result, args


_reg_read = library.x64emu_reg_read


def strerror(status):
    return library.x64emu_strerror(status).decode()


class X64EmuError(Exception):
    """A call of the library failed: .status is its x64emu_status."""

    def __init__(self, status, detail=""):
        self.status = status
        super().__init__(strerror(status) + (": " + detail if detail else ""))


def _check(status, detail=""):
    if status != OK:
        raise X64EmuError(status, detail)


def _reg_number(reg):
    if isinstance(reg, str):
        if reg.upper() not in REG:
            raise X64EmuError(ERR_REG, reg)
        return REG[reg.upper()]
    return reg


class Machine:
    """One x86-64 machine: Machine() is bare, Machine.linux(path, argv) runs a program."""

    def __init__(self, _handle=None):
        if _handle is None:
            _handle = _ptr()
            _check(library.x64emu_open(ctypes.byref(_handle)))
        self._m = _handle
        self._hooks = {}  # id -> the ctypes callback, kept alive while the hook is set
        self._reads = {}  # register name or number -> its number, size and read buffer

    @classmethod
    def linux(cls, path, argv=None, envp=None):
        """A machine running the static x86-64 Linux program at path, at its entry point."""
        argv = [path] if argv is None else list(argv)
        envp = ["%s=%s" % kv for kv in os.environ.items()] if envp is None else list(envp)
        c_argv = (ctypes.c_char_p * (len(argv) + 1))(*[a.encode() for a in argv], None)
        c_envp = (ctypes.c_char_p * (len(envp) + 1))(*[e.encode() for e in envp], None)
        handle = _ptr()
        status = library.x64emu_open_linux(ctypes.byref(handle), path.encode(), c_argv, c_envp)
        _check(status, library.x64emu_last_error().decode() if status == ERR_LOAD else "")
        return cls(handle)

    def close(self):
        if self._m:
            library.x64emu_close(self._m)
            self._m = None
            self._hooks.clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    # ---- memory ----
    def mem_map(self, address, size, prot=PROT_READ | PROT_WRITE | PROT_EXEC):
        _check(library.x64emu_mem_map(self._m, address, size, prot))

    def mem_unmap(self, address, size):
        _check(library.x64emu_mem_unmap(self._m, address, size))

    def mem_protect(self, address, size, prot):
        _check(library.x64emu_mem_protect(self._m, address, size, prot))

    def mem_read(self, address, size):
        buf = ctypes.create_string_buffer(size)
        _check(library.x64emu_mem_read(self._m, address, buf, size))
        return buf.raw

    def mem_write(self, address, data):
        data = bytes(data)
        _check(library.x64emu_mem_write(self._m, address, data, len(data)))

    # ---- registers: an int for up to 8 bytes, bytes for XMM (16) and ST (10) ----
    def reg_read(self, reg):
        """An int (RAX..FTW), or bytes (XMM: 16, ST: 10)."""
        found = self._reads.get(reg)
        if found is None:  # a buffer per register, made once: hooks read at every instruction
            number = _reg_number(reg)
            size = library.x64emu_reg_size(number)
            buf = ctypes.c_uint64() if 0 < size <= 8 else ctypes.create_string_buffer(max(size, 1))
            found = self._reads[reg] = (number, size, buf, ctypes.byref(buf))
        number, size, buf, ref = found
        status = _reg_read(self._m, number, ref)
        if status != OK:
            raise X64EmuError(status)
        if size <= 8:
            return buf.value & ((1 << (8 * size)) - 1)
        return buf.raw[:size]

    def reg_write(self, reg, value):
        reg = _reg_number(reg)
        size = library.x64emu_reg_size(reg)
        if isinstance(value, int):
            value = (value & ((1 << (8 * max(size, 1))) - 1)).to_bytes(max(size, 1), "little")
        if len(value) != size:
            raise X64EmuError(ERR_ARG, "%d bytes for a %d-byte register" % (len(value), size))
        _check(library.x64emu_reg_write(self._m, reg, ctypes.create_string_buffer(bytes(value), size)))

    def reg_view(self, reg):
        """A ctypes object over the register's own storage (c_uint64, c_uint32 for MXCSR,
        c_uint16 for FCW, 16 c_ubyte for an XMM register): its .value, or its bytes, is
        the register's value whenever a hook runs or the machine is stopped. For RAX..R15,
        RIP, FS/GS base, MXCSR, FCW and XMM0..15."""
        reg = _reg_number(reg)
        view = _ptr()
        _check(library.x64emu_reg_view(self._m, reg, ctypes.byref(view)))
        size = library.x64emu_reg_size(reg)
        kind = {8: ctypes.c_uint64, 4: ctypes.c_uint32, 2: ctypes.c_uint16}.get(size, ctypes.c_ubyte * 16)
        return kind.from_address(view.value)

    # ---- running ----
    def run(self, until=0, count=0):
        """Runs to a stop: `until` reached, `count` instructions run, a breakpoint, a hook's
        stop, a fault, a system call (bare) or the exit (Linux). Returns the Stop."""
        stop = Stop()
        _check(library.x64emu_run(self._m, until, count, ctypes.byref(stop)))
        return stop

    def step(self):
        stop = Stop()
        _check(library.x64emu_step(self._m, ctypes.byref(stop)))
        return stop

    def stop(self):
        _check(library.x64emu_stop_run(self._m))

    @property
    def icount(self):
        return library.x64emu_icount(self._m)

    def breakpoint_add(self, address):
        _check(library.x64emu_breakpoint_add(self._m, address))

    def breakpoint_remove(self, address):
        _check(library.x64emu_breakpoint_remove(self._m, address))

    def disasm(self, address):
        """(text, length) of the instruction at address."""
        text, length = ctypes.create_string_buffer(160), ctypes.c_uint()
        _check(library.x64emu_disasm(self._m, address, text, len(text), ctypes.byref(length)))
        return text.value.decode(), length.value

    # ---- hooks: each returns an id for hook_remove ----
    def _add(self, add, callback, *args):
        hook_id = _int()
        _check(add(self._m, *args, callback, None, ctypes.byref(hook_id)))
        self._hooks[hook_id.value] = callback
        return hook_id.value

    def hook_insn(self, fn, begin=0, end=0):
        """fn(machine, address, length) before each instruction in [begin, end) (end 0:
        everywhere)."""
        return self._add(library.x64emu_hook_insn, _INSN_HOOK(lambda m, a, n, u: fn(self, a, n)),
                         begin, end)

    def hook_block(self, fn, begin=0, end=0):
        """fn(machine, address, length) before each basic block starting in [begin, end)."""
        return self._add(library.x64emu_hook_block, _BLOCK_HOOK(lambda m, a, n, u: fn(self, a, n)),
                         begin, end)

    def hook_mem(self, fn, access=MEM_READ | MEM_WRITE, begin=0, end=0):
        """fn(machine, access, address, data) after each load (MEM_READ) and store
        (MEM_WRITE) of an instruction that overlaps [begin, end), with the bytes read or
        written. It runs in the middle of the instruction: writing registers or changing
        mappings there raises X64EmuError (ERR_RUNNING); a stop comes after the
        instruction."""
        def call(m, kind, address, size, data, u):
            fn(self, kind, address, ctypes.string_at(data, size))
        return self._add(library.x64emu_hook_mem, _MEM_HOOK(call), access, begin, end)

    def _event(self, add, fn):
        return self._add(add, _EVENT_HOOK(lambda m, e, u: bool(fn(self, e.contents))))

    def hook_syscall(self, fn):
        """fn(machine, stop) for each SYSCALL of a bare machine: True if it handled it."""
        return self._event(library.x64emu_hook_syscall, fn)

    def hook_fault(self, fn):
        """fn(machine, stop) for each fault: True if it handled it (RIP moved past)."""
        return self._event(library.x64emu_hook_fault, fn)

    def hook_invalid(self, fn):
        """fn(machine, stop) for each invalid instruction (#UD, SIGILL)."""
        return self._event(library.x64emu_hook_invalid, fn)

    def hook_remove(self, hook_id):
        _check(library.x64emu_hook_remove(self._m, hook_id))
        self._hooks.pop(hook_id, None)
