"""Error paths, per function.

An *error path* is a block from which every path ends in an error sink (``unreachable``, a trap,
a throw, an abort, an exception signal or status return: ``runtime`` classifies them).
Like AllocCheck.jl, sinks are found by classification (``runtime``) and the rest is
a fixed point over the CFG, not special cases: a block is on an error path when it
holds a sink, or when it has successors and all of them are on error paths.

A second kind of error path is the *report path*: the side of a conditional branch
that calls printf or the host on every path and skips work the other side does
(``if v != v: print(...); return`` — or ``continue`` in a grid-stride loop).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Dict, FrozenSet, List, Optional, Protocol, Set

from ..ir.reader import Block, Function, Instruction
from . import runtime
from .values import ValueFacts


class Callees(Protocol):
    """What a function's facts need to know about the functions it calls (``program.Program``)."""

    def always_errors(self, name: str) -> bool: ...

    def function_reports(self, name: str) -> bool: ...


# Intrinsics that read state or hint the optimizer: no work a caller could observe.
_PURE_INTRINSICS = ("llvm.nvvm.read.ptx.sreg.", "llvm.lifetime.", "llvm.expect.", "llvm.assume",
                    "llvm.amdgcn.workitem.id.", "llvm.amdgcn.workgroup.id.", "llvm.amdgcn.dispatch.ptr",
                    "llvm.amdgcn.implicitarg.ptr", "NRT_incref", "NRT_decref")


@dataclass(frozen=True)
class ErrorBranch:
    """A conditional branch one of whose sides is an error path."""

    guard: Block
    condition: str  # the i1 value the branch tests
    failing: str  # the successor on the error path
    passing: str  # the other successor
    kind: str  # "raise" (ends in a sink) or "report" (prints/hostcalls and skips work)


def is_numba_abi(function: Function) -> bool:
    """numba's calling convention: ``i32 status f(ret_slot*, args...)``."""
    return (
        function.return_type == "i32"
        and bool(function.params)
        and function.params[0][1] in (".ret", "excinfo")
    )


class FunctionFacts:
    def __init__(self, function: Function, program: Callees):
        self.function = function
        self.program = program
        self.blocks: Dict[str, Block] = function.block_map
        self.successors: Dict[str, List[str]] = {
            b.name: [s for s in b.successors if s in self.blocks] for b in function.blocks
        }
        self.numba_abi = is_numba_abi(function)

    @cached_property
    def values(self) -> ValueFacts:
        return ValueFacts(self.function)

    @cached_property
    def predecessors(self) -> Dict[str, List[str]]:
        preds: Dict[str, List[str]] = {name: [] for name in self.blocks}
        for name, succs in self.successors.items():
            for s in succs:
                preds[s].append(name)
        return preds

    # -- sinks ------------------------------------------------------------------

    def sink_kind(self, ins: Instruction) -> Optional[str]:
        """Why an instruction ends execution in an error, or None."""
        op = ins.opcode
        if op == "unreachable":
            return "unreachable"
        if op == "ret" and self.numba_abi:
            status = ins.body.split()[-1] if len(ins.body.split()) >= 3 else "0"
            return None if status == "0" else "exception status return"
        if op in ("call", "invoke"):
            callee = ins.callee
            kind = runtime.classify(callee)
            if kind in (runtime.Kind.SINK, runtime.Kind.ASSERT):
                return callee
            if runtime.is_debug_exception_helper(callee):
                return None if ins.call_args().strip().endswith(" 0") else "exception record"
            if callee and self.program.always_errors(callee):
                return f"call to {callee}, which always fails"
        if op in ("store", "cmpxchg", "atomicrmw") and any(
            g.endswith("__errcode__") for g in ins.globals()
        ):
            return "exception record"
        return None

    @cached_property
    def sink_blocks(self) -> Dict[str, str]:
        sinks = {}
        for block in self.function.blocks:
            for ins in block.instructions:
                why = self.sink_kind(ins)
                if why:
                    sinks[block.name] = why
                    break
        return sinks

    @cached_property
    def raising_blocks(self) -> FrozenSet[str]:
        """Blocks from which every path ends in a sink (least fixed point)."""
        err: Set[str] = set(self.sink_blocks)
        pending = {name: len(s) for name, s in self.successors.items()}
        work = list(err)
        while work:
            name = work.pop()
            for pred in self.predecessors[name]:
                if pred in err:
                    continue
                pending[pred] -= 1
                if pending[pred] == 0:
                    err.add(pred)
                    work.append(pred)
        return frozenset(err)

    # -- report paths -------------------------------------------------------------

    def reports(self, ins: Instruction) -> bool:
        """Does this instruction print or call the host (directly or in a callee)?"""
        if ins.opcode == "call":
            callee = ins.callee
            kind = runtime.classify(callee)
            if kind in (runtime.Kind.PRINTF, runtime.Kind.HOSTCALL):
                return True
            return bool(callee) and self.program.function_reports(callee)
        if ins.opcode == "load":
            return any(g in runtime.HOSTCALL_GLOBALS for g in ins.globals())
        return False

    @cached_property
    def reporting_blocks(self) -> FrozenSet[str]:
        return frozenset(
            b.name for b in self.function.blocks if any(self.reports(i) for i in b.instructions)
        )

    def region(self, start: str, barrier: str) -> Set[str]:
        """Blocks reachable from ``start`` without passing through ``barrier``."""
        seen = {start}
        work = [start]
        while work:
            for s in self.successors[work.pop()]:
                if s != barrier and s not in seen:
                    seen.add(s)
                    work.append(s)
        return seen

    def _always_reports(self, start: str, barrier: str, region: Set[str]) -> bool:
        """Every path from ``start`` prints/hostcalls (or raises) before it leaves or
        re-enters the guard."""
        must: Set[str] = set()
        changed = True
        while changed:
            changed = False
            for name in region:
                if name in must:
                    continue
                succs = self.successors[name]
                if name in self.reporting_blocks or name in self.raising_blocks or (
                    succs and barrier not in succs and all(s in must for s in succs)
                ):
                    must.add(name)
                    changed = True
        return start in must

    def _pointer_root(self, name: str) -> str:
        defs = self.function.defs
        seen = set()
        while name in defs and name not in seen:
            seen.add(name)
            ins = defs[name]
            if ins.opcode not in ("getelementptr", "bitcast", "addrspacecast"):
                break
            refs = ins.locals()
            if not refs:
                break
            name = refs[0]
        return name

    def has_effect(self, ins: Instruction) -> bool:
        """Work a caller can observe: memory writes outside the frame, calls that are
        not reports. A report side of a branch that has none only reports and leaves."""
        op = ins.opcode
        if op in ("store", "atomicrmw", "cmpxchg"):
            refs = ins.locals()
            if not refs:
                return True  # a store to a global
            root = self._pointer_root(refs[-1])
            root_def = self.function.defs.get(root)
            local = (
                root in self.values.allocas
                or (self.numba_abi and root == self.function.params[0][1])
                # filling a freshly allocated box is building the report, not work
                or (root_def is not None and runtime.classify(root_def.callee) is runtime.Kind.ALLOC)
            )
            return not local
        if op in ("call", "invoke"):
            callee = ins.callee or ""
            if self.reports(ins) or runtime.is_debug_intrinsic(callee):
                return False
            if runtime.classify(callee) is runtime.Kind.ALLOC:
                return False  # boxing a value for the report
            return not callee.startswith(_PURE_INTRINSICS)
        return op in ("fptosi", "fptoui")

    def _does_work(self, blocks: Set[str]) -> bool:
        return any(
            self.has_effect(ins) for name in blocks for ins in self.blocks[name].instructions
        )

    @cached_property
    def _can_reach_report(self) -> FrozenSet[str]:
        seen = set(self.reporting_blocks)
        work = list(seen)
        while work:
            for pred in self.predecessors[work.pop()]:
                if pred not in seen:
                    seen.add(pred)
                    work.append(pred)
        return frozenset(seen)

    # -- the result ---------------------------------------------------------------

    @cached_property
    def _classified(self):
        raising = self.raising_blocks
        error_blocks: Set[str] = set(raising)
        branches: List[ErrorBranch] = []
        for block in self.function.blocks:
            term = block.terminator
            succs = self.successors[block.name]
            if term is None or term.opcode != "br" or len(succs) != 2:
                continue
            refs = term.locals()
            if not refs:
                continue
            condition = refs[0]
            for failing, passing in ((succs[0], succs[1]), (succs[1], succs[0])):
                if block.name in raising:
                    break
                if failing in raising and passing not in raising:
                    branches.append(ErrorBranch(block, condition, failing, passing, "raise"))
                    continue
                if failing not in self._can_reach_report or failing in raising or passing in raising:
                    continue  # (opposite a raising side, the reporting side is the normal path)
                failing_region = self.region(failing, block.name)
                passing_region = self.region(passing, block.name)
                only_passing = passing_region - failing_region
                if not self._does_work(only_passing):
                    continue  # the reporting side rejoins, or skips nothing: a warning, not an error
                if self._always_reports(failing, block.name, failing_region):
                    branches.append(ErrorBranch(block, condition, failing, passing, "report"))
        error_blocks |= self._entered_only_by(
            [b for b in branches if b.kind == "report"], error_blocks
        )
        return frozenset(error_blocks), branches

    def _entered_only_by(self, branches: List[ErrorBranch], known: Set[str]) -> Set[str]:
        """Blocks that run only after a report branch's failing edge (edge dominance, as a
        greatest fixed point so loops inside the report, such as printf's, stay in it):
        the failing successor when every edge into it is such an edge, then every block it
        reaches all of whose predecessors are in the set. A loop that rejoins the normal
        path through its header drops out: the header has other predecessors."""
        failing_edges: Dict[str, Set[str]] = {}
        for branch in branches:
            failing_edges.setdefault(branch.failing, set()).add(branch.guard.name)
        marked: Set[str] = set()
        for target, guards in failing_edges.items():
            if not set(self.predecessors[target]) <= guards:
                continue
            candidates = {target}
            work = [target]
            while work:
                for succ in self.successors[work.pop()]:
                    if succ not in guards and succ not in candidates:
                        candidates.add(succ)
                        work.append(succ)
            changed = True
            while changed:
                changed = False
                for name in list(candidates - {target}):
                    if any(p not in candidates and p not in known for p in self.predecessors[name]):
                        candidates.discard(name)
                        changed = True
            marked |= candidates
        return marked

    @property
    def error_blocks(self) -> FrozenSet[str]:
        return self._classified[0]

    @property
    def error_branches(self) -> List[ErrorBranch]:
        return self._classified[1]

    def reachable_from(self, start: str) -> Set[str]:
        return self.region(start, barrier="")
