"""The HIP host reader: a ``.hip`` file's host code reduced to host facts (``analysis.host``).

The host side is compiled to LLVM IR with debug locations by the same Debian ROCm toolchain
(``hipcc --cuda-host-only -emit-llvm -O0 -g``: at -O0 each function and loop of the source is
still one in the IR), and read for its calls: allocations and frees (``hipMalloc`` and its
kin, and the templates the HIP headers wrap them in), blocking operations (``hipMemcpy``,
``hipDeviceSynchronize``, ``hip*Synchronize``), launches (``<<<...>>>`` becomes
``__hipPushCallConfiguration``; ``hipLaunchKernel``, ``hipModuleLaunchKernel``), clock reads
(``std::chrono::*::now``, ``clock_gettime``, ``gettimeofday``) and the calls of the file's own
functions. Loops are the natural loops of each function's control-flow graph (back edges,
dominators: ``analysis.cfg``).
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import time
from typing import Dict, List, Optional, Tuple

from ..analysis.cfg import ControlFlow
from ..analysis.host import Event, HostFacts, Launch, Level, Loop, Place, Rate
from ..ir.reader import Function, Module, parse_module
from ..compile.toolchain import hip_command, run_hipcc

ALLOCATIONS = frozenset({"hipMalloc", "hipMallocAsync", "hipMallocManaged", "hipHostMalloc", "hipMallocHost",
                         "hipExtMallocWithFlags", "hipMallocPitch", "hipMalloc3D", "hipMallocArray",
                         "hipMallocFromPoolAsync"})
FREES = frozenset({"hipFree", "hipFreeAsync", "hipHostFree", "hipFreeHost", "hipFreeArray"})
BLOCKING_COPIES = frozenset({"hipMemcpy", "hipMemcpyHtoD", "hipMemcpyDtoH", "hipMemcpyDtoD", "hipMemcpy2D",
                             "hipMemcpy3D", "hipMemcpyToSymbol", "hipMemcpyFromSymbol"})
SYNCS = frozenset({"hipDeviceSynchronize", "hipStreamSynchronize", "hipEventSynchronize"})
LAUNCHES = frozenset({"__hipPushCallConfiguration", "hipLaunchKernel", "hipModuleLaunchKernel",
                      "hipExtLaunchKernel", "hipLaunchCooperativeKernel", "hipExtModuleLaunchKernel"})
_CLOCKS = ("clock_gettime", "gettimeofday")
_TEMPLATE = re.compile(r"<.*>$")


def command(path: str, output: str, offload_arch: str) -> List[str]:
    """-O0: each function and loop of the source is still one in the IR."""
    return hip_command(path, output, offload_arch, "--cuda-host-only", "-O0")


def compile_host(path: str, offload_arch: str, timeout: float = 120.0) -> Tuple[Optional[Module], str, float]:
    """(the host module, or None and hipcc's messages; seconds) for one .hip file."""
    from llvmlite import binding as llvm

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="kernlint-hiphost-") as scratch:
        output = os.path.join(scratch, "host.bc")
        try:
            done = run_hipcc(command(path, output, offload_arch), path, scratch, timeout)
        except subprocess.TimeoutExpired:
            return None, f"hipcc took longer than {timeout:g} s on the host code", time.perf_counter() - started
        if done.returncode != 0:  # the compiler's messages, for a located diagnostic
            return None, done.stderr or "hipcc failed", time.perf_counter() - started
        with open(output, "rb") as handle:
            text = str(llvm.parse_bitcode(handle.read()))
    return parse_module(text), "", time.perf_counter() - started


class _Reader:
    def __init__(self, module: Module, path: str):
        self.module = module
        self.path = path
        self.facts = HostFacts(path, language="hip")
        self.user: Dict[str, str] = {}  # IR name -> source name, for the file's own functions
        for name, function in module.functions.items():
            where = module.subprogram_location(function.dbg) if function.blocks else None
            if where and where[0] == path:
                self.user[name] = where[2] or name
        self._loops = 0

    def callee_name(self, name: str) -> str:
        """What a callee is called in the source: its DISubprogram name without template
        arguments (``hipMalloc<float>`` -> ``hipMalloc``), else its (C) name."""
        function = self.module.functions.get(name)
        if function is not None and function.dbg is not None:
            where = self.module.subprogram_location(function.dbg)
            if where and where[2]:
                return _TEMPLATE.sub("", where[2])
        return name

    def read(self) -> HostFacts:
        self.facts.names = dict(self.user)
        for name in self.user:
            self._function(self.module.functions[name])
        return self.facts

    def _place(self, instruction, function: Function) -> Place:
        location = self.module.location(instruction.dbg)
        if location is not None and location.path == self.path:
            return Place(self.path, location.line, max(location.column, 1))
        where = self.module.subprogram_location(function.dbg)
        return Place(self.path, where[1] if where else 1, 1)

    def _function(self, function: Function) -> None:
        flow = ControlFlow(function)
        qualname = function.name
        loop_of: Dict[str, List[int]] = {}
        natural = flow.loops()
        numbers: Dict[str, int] = {}
        for loop in natural:  # largest first: parents before the loops inside them
            self._loops += 1
            number = self._loops
            numbers[loop.header] = number
            header = function.block_map[loop.header]
            first = next((i for i in header.instructions if i.dbg is not None), header.instructions[0])
            parent = next((numbers[other.header] for other in natural
                           if other is not loop and other.size > loop.size and loop.header in other.body), None)
            facts_loop = Loop(number, self._place(first, function), "loop", qualname, parent)
            facts_loop.deciding = self._deciding(function, loop)
            self.facts.loops[number] = facts_loop
            for block in loop.body:
                loop_of.setdefault(block, []).append(number)
        exits = flow.exits()
        for block in function.blocks:
            loops = tuple(sorted(loop_of.get(block.name, [])))
            for instruction in block.instructions:
                if instruction.opcode not in ("call", "invoke") or not instruction.callee:
                    continue
                event = self._event(instruction, function, loops)
                if event is None:
                    continue
                inner = [l for l in natural if numbers[l.header] == (loops[-1] if loops else None)]
                # executed on every call / every iteration (not only when a buffer must grow)
                every = all(flow.dominates(block.name, e) for e in exits) if not loops else all(
                    flow.dominates(block.name, latch) for latch in inner[0].latches)
                event.detail["every_time"] = every
                event.rate = self._rate(loops, every)
                self.facts.events.append(event)

    def _rate(self, loops: Tuple[int, ...], every: bool) -> Rate:
        """What the CFG tells of how often an event runs: its natural loops, outermost first,
        taken as step loops (their trip counts are not read), and its block's place in the
        innermost (or in the function): on every pass where it dominates the latches (the
        exits), once in a while otherwise (``if (bytes > capacity) hipMalloc(...)``)."""
        place = "every" if every else "event"
        levels = [Level("body", place if not loops else "every", 0)]
        for index, number in enumerate(loops):
            inner = index == len(loops) - 1
            levels.append(Level("step", place if inner else "every", self.facts.loops[number].place.line,
                                loop=number))
        return Rate(tuple(levels))

    def _event(self, instruction, function: Function, loops) -> Optional[Event]:
        callee = instruction.callee
        name = self.callee_name(callee)
        place = self._place(instruction, function)
        qualname = function.name
        if callee in self.user:
            return Event("call", place, qualname, loops, what=self.user[callee], detail={"callee": callee})
        if name in LAUNCHES:
            return Launch("launch", place, qualname, loops, what="<<<...>>>" if name.startswith("__hip") else name)
        if name in ALLOCATIONS:
            return Event("alloc", place, qualname, loops, what=name, detail={"shape_based": False})
        if name in FREES:
            return Event("free", place, qualname, loops, what=name)
        if name in SYNCS:
            return Event("sync", place, qualname, loops, what=f"{name}()")
        if name in BLOCKING_COPIES:
            return Event("copy-back", place, qualname, loops, what=f"{name}()",
                         detail={"assigned": self._destination(instruction)})
        if name in _CLOCKS or ("chrono" in callee and "now" in callee):
            return Event("clock", place, qualname, loops, what="clock")
        return None

    def _destination(self, instruction) -> List[str]:
        """The local variable a copy writes into (its first argument's alloca), if any."""
        operands = instruction.locals()
        return operands[:1]

    def _deciding(self, function: Function, loop) -> set:
        """Locals loaded in the blocks that decide whether the loop goes on: a copy into one
        of them feeds the loop's condition (``do { ...; hipMemcpy(&err, ...); } while (err > tol)``)."""
        read = set()
        for name in loop.exits:
            for instruction in function.block_map[name].instructions:
                if instruction.opcode == "load":
                    read.update(instruction.locals())
        # a copy may go through a pointer held in a local (float *p = &err; hipMemcpy(p, ...)):
        # what was stored into a local the exits read counts too
        stored_into: Dict[str, set] = {}
        for block in function.blocks:
            for instruction in block.instructions:
                operands = instruction.locals() if instruction.opcode == "store" else []
                if len(operands) >= 2:
                    stored_into.setdefault(operands[1], set()).add(operands[0])
        return read.union(*(stored_into.get(pointer, set()) for pointer in read))


def read_host(module: Module, path: str) -> HostFacts:
    return _Reader(module, path).read()
