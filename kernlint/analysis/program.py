"""The call graph of one compiled kernel, walked from its entry point.

A kernel's IR may span several modules (numba-cuda keeps each device function in
its own). The walk visits every function reachable from the entry once per
context ("reached on an error path" or not) and records each call site with the
chain of calls that led to it, so rules can say where a device function was
reached from and whether it was reached only on an error path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from ..findings import Frame
from ..ir.reader import Function, Instruction, IRSyntaxError, Module, SourceLocation
from . import runtime
from .paths import FunctionFacts


class Program:
    """Functions of all modules of one compilation, by name, with their summaries."""

    def __init__(self, modules: Sequence[Module]):
        self.modules = list(modules)
        self.functions: Dict[str, Function] = {}
        for module in self.modules:
            for name, function in module.functions.items():
                # linkonce_odr copies of the same device function are identical
                self.functions.setdefault(name, function)
        self._facts: Dict[str, FunctionFacts] = {}
        self._always_errors: Dict[str, bool] = {}
        self._reports: Dict[str, bool] = {}

    @property
    def triple(self) -> str:
        return next((m.triple for m in self.modules if m.triple), "")

    def facts(self, name: str) -> FunctionFacts:
        facts = self._facts.get(name)
        if facts is None:
            facts = self._facts[name] = FunctionFacts(self.functions[name], self)
        return facts

    def always_errors(self, name: str) -> bool:
        """A defined function whose every path ends in an error sink."""
        if name not in self.functions:
            return False
        if name not in self._always_errors:
            self._always_errors[name] = False  # recursion: assume it returns
            facts = self.facts(name)
            self._always_errors[name] = facts.function.entry.name in facts.raising_blocks
        return self._always_errors[name]

    def function_reports(self, name: str) -> bool:
        """A defined function that may print or call the host."""
        if name not in self.functions:
            return False
        if name not in self._reports:
            self._reports[name] = False  # recursion: assume it does not
            facts = self.facts(name)
            self._reports[name] = any(
                facts.reports(ins) for ins in facts.function.instructions()
            )
        return self._reports[name]


@dataclass(frozen=True)
class Site:
    """An instruction reached from the kernel entry."""

    function: Function
    instruction: Instruction
    on_error_path: bool
    chain: Tuple[Instruction, ...]  # the calls that led here, outermost first

    @property
    def what(self) -> str:
        """The callee, or the hostcall global a load sets up."""
        ins = self.instruction
        if ins.opcode == "load":
            return next((g for g in ins.globals() if g in runtime.HOSTCALL_GLOBALS), "")
        return ins.callee or ""

    def frames(self) -> List[Frame]:
        """Source frames, innermost first: inlinedAt chains and then the call chain."""
        frames: List[Frame] = []
        for ins in (self.instruction,) + tuple(reversed(self.chain)):
            module = ins.block.function.module
            for loc in module.location_chain(ins.dbg):
                frames.append(_frame(loc))
        return frames


def _frame(loc: SourceLocation) -> Frame:
    return Frame(loc.path, loc.line, loc.column, loc.function)


@dataclass
class Reached:
    function: Function
    on_error_path: bool
    chain: Tuple[Instruction, ...]


class KernelAnalysis:
    """Everything the rules ask about one kernel (one entry point, one signature)."""

    def __init__(self, program: Program, entry: str):
        if entry not in program.functions:
            raise IRSyntaxError(f"entry point @{entry} is not defined in the IR", 0)
        self.program = program
        self.entry = entry
        self.reached: List[Reached] = []
        self.sites: List[Site] = []
        self._walk()

    def _walk(self) -> None:
        visited = set()
        stack: List[Tuple[str, bool, Tuple[Instruction, ...]]] = [(self.entry, False, ())]
        while stack:
            name, ctx_error, chain = stack.pop()
            if (name, ctx_error) in visited:
                continue
            visited.add((name, ctx_error))
            if ctx_error and (name, False) in visited:
                continue  # already reached on the normal path: that context wins
            facts = self.program.facts(name)
            self.reached.append(Reached(facts.function, ctx_error, chain))
            error_blocks = facts.error_blocks
            for block in facts.function.blocks:
                on_error = ctx_error or block.name in error_blocks
                for ins in block.instructions:
                    if ins.opcode in ("call", "invoke", "callbr"):
                        callee = ins.callee
                        if runtime.is_debug_intrinsic(callee):
                            continue
                        self.sites.append(Site(facts.function, ins, on_error, chain))
                        # a runtime function's body (ROCm links __assert_fail, __ockl_dm_alloc in)
                        # is the implementation of what its call is reported as: not walked
                        if callee in self.program.functions and runtime.classify(callee) is None:
                            stack.append((callee, on_error, chain + (ins,)))
                    elif ins.opcode == "load" and any(
                        g in runtime.HOSTCALL_GLOBALS for g in ins.globals()
                    ):
                        self.sites.append(Site(facts.function, ins, on_error, chain))
        # An instruction reached on the normal path in any context is on the normal path.
        normal = {id(s.instruction) for s in self.sites if not s.on_error_path}
        self.sites = [
            s for s in self.sites if not (s.on_error_path and id(s.instruction) in normal)
        ]

    def facts(self, function: Function) -> FunctionFacts:
        return self.program.facts(function.name)

    def calls(self, *kinds: runtime.Kind) -> Iterator[Tuple[Site, runtime.Kind]]:
        """Reached calls (and hostcall setups) that do one of ``kinds`` (runtime.site_kind)."""
        for site in self.sites:
            ins = site.instruction
            loaded = ins.globals() if ins.opcode == "load" else ()
            args = ins.call_args() if ins.opcode != "load" and ins.callee == "__ockl_hostcall_internal" else ""
            kind = runtime.site_kind(ins.opcode, ins.callee, args, loaded)
            if kind in kinds:
                yield site, kind

    def functions(self) -> Iterator[Reached]:
        """Each reached function once, in its normal-path context where it has one."""
        normal = {r.function.name for r in self.reached if not r.on_error_path}
        for reached in self.reached:
            if reached.on_error_path and reached.function.name in normal:
                continue
            yield reached


UserPath = Callable[[str], bool]


def user_frame(frames: List[Frame], is_user_path: UserPath) -> Tuple[Optional[Frame], List[Frame]]:
    """The innermost frame in the user's code, and the frames it was reached through."""
    for index, frame in enumerate(frames):
        if frame.path and frame.line > 0 and is_user_path(frame.path):
            outer = [f for f in frames[index + 1 :] if f.line > 0]
            return frame, outer
    return None, []
