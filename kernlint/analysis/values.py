"""Which SSA values are "the same variable", and which comparisons feed a branch.

numba-cuda emits unoptimized IR: a Python variable lives in an ``alloca`` and every
use reloads it (``%a = load double, double* %"v"`` ... ``%b = load double, double* %"v"``).
A value's *keys* name what it is a copy of: its own SSA name, and the alloca slot it
was loaded from (or the slot it is the only non-constant value stored into).
Two values that share a key are the same variable.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Dict, FrozenSet, List, Optional, Set, Tuple

from ..ir.reader import LOCAL_RE, Function, Instruction, unquote
from . import runtime

Key = Tuple[str, str]

# Unary float operations whose operand is "the value it was derived from": an
# exactness test compares v with floor(v); a range test may test fabs(v).
_DERIVING_CALLS = ("llvm.fabs.", "__nv_fabs", "__ocml_fabs_")


def _is_deriving_call(callee: Optional[str]) -> bool:
    if not callee:
        return False
    return runtime.classify(callee) is runtime.Kind.ROUND or callee.startswith(_DERIVING_CALLS)


class ValueFacts:
    """Alloca-aware value identity for one function."""

    def __init__(self, function: Function):
        self.function = function
        self.defs = function.defs
        self.allocas: Set[str] = {n for n, i in self.defs.items() if i.opcode == "alloca"}
        # slot -> SSA values stored into it (constants are left out)
        self.stored: Dict[str, List[str]] = defaultdict(list)
        for ins in function.instructions():
            if ins.opcode == "store":
                refs = ins.locals()
                if refs and refs[-1] in self.allocas:
                    value_part = ins.body[len("store") :].split(",")[0]
                    value = LOCAL_RE.search(value_part)
                    if value:
                        self.stored[refs[-1]].append(unquote(value.group(0)))
        self._sole_slot: Dict[str, str] = {}
        for slot, values in self.stored.items():
            if len(set(values)) == 1:
                self._sole_slot[values[0]] = slot
        self._keys: Dict[str, FrozenSet[Key]] = {}

    def keys(self, name: str) -> FrozenSet[Key]:
        cached = self._keys.get(name)
        if cached is not None:
            return cached
        keys: Set[Key] = {("ssa", name)}
        ins = self.defs.get(name)
        if ins is not None and ins.opcode == "fpext" and ins.locals():
            keys |= self.keys(ins.locals()[0])  # widening keeps NaN-ness, order and value
        if ins is not None and ins.opcode == "load":
            refs = ins.locals()
            if refs and refs[-1] in self.allocas:
                keys.add(("slot", refs[-1]))
        slot = self._sole_slot.get(name)
        if slot is not None:
            keys.add(("slot", slot))
        result = frozenset(keys)
        self._keys[name] = result
        return result

    def derived_keys(self, name: str) -> FrozenSet[Key]:
        """Keys of a value and of what it was rounded (or fabs'ed) from."""
        keys = set(self.keys(name))
        ins = self.defs.get(name)
        if ins is not None and ins.opcode == "call" and _is_deriving_call(ins.callee):
            for arg in LOCAL_RE.findall(ins.call_args()):
                keys |= self.keys(unquote(arg))
        return frozenset(keys)

    def is_rounding_of(self, name: str, keys: FrozenSet[Key]) -> bool:
        ins = self.defs.get(name)
        if ins is None:
            return False
        if ins.opcode == "call" and runtime.classify(ins.callee) is runtime.Kind.ROUND:
            return any(self.keys(unquote(a)) & keys for a in LOCAL_RE.findall(ins.call_args()))
        if ins.opcode in ("sitofp", "uitofp"):
            # float(int(v)) == v: the round trip is an exactness test
            inner = self.defs.get(ins.locals()[0]) if ins.locals() else None
            if inner is not None and inner.opcode in ("fptosi", "fptoui") and inner.locals():
                return bool(self.keys(inner.locals()[0]) & keys)
        return False

    def comparisons_feeding(self, cond: str) -> List[Instruction]:
        """The fcmp instructions and float-class tests a branch condition is computed from."""
        return self.condition_inputs(cond)[0]

    def condition_inputs(self, cond: str) -> Tuple[List[Instruction], bool]:
        """(float tests feeding a branch condition, whether anything else feeds it too:
        an integer compare, an argument, a call result)."""
        found: List[Instruction] = []
        other = False
        seen: Set[str] = set()
        work = [cond]
        while work:
            name = work.pop()
            if name in seen:
                continue
            seen.add(name)
            ins = self.defs.get(name)
            if ins is None:
                if name not in self.function.block_map:  # phi operands name blocks too
                    other = True  # a function argument
                continue
            op = ins.opcode
            if op == "fcmp":
                found.append(ins)
            elif op == "call":
                callee = ins.callee or ""
                if runtime.classify(callee) in (runtime.Kind.NAN_TEST, runtime.Kind.RANGE_TEST):
                    found.append(ins)
                elif callee.startswith("llvm.expect"):
                    work.extend(unquote(a) for a in LOCAL_RE.findall(ins.call_args()))
                else:
                    other = True
            elif op == "load":
                refs = ins.locals()
                if refs and refs[-1] in self.allocas:
                    work.extend(self.stored.get(refs[-1], ()))
                else:
                    other = True
            elif op == "icmp" and not _is_i1_compare(ins) and not self._tests_float_class(ins):
                other = True  # an integer test: it guards something else
            elif op in ("or", "and", "xor", "select", "zext", "sext", "trunc", "freeze", "phi",
                        "icmp", "extractvalue"):
                work.extend(ins.locals())
            else:
                other = True
        return found, other

    def _tests_float_class(self, icmp: Instruction) -> bool:
        """``icmp ne i32 %r, 0`` on the result of a libdevice isnan/isinf."""
        for name in icmp.locals():
            ins = self.defs.get(name)
            if ins is not None and runtime.classify(ins.callee) in (
                runtime.Kind.NAN_TEST, runtime.Kind.RANGE_TEST
            ):
                return True
        return False


def _is_i1_compare(ins: Instruction) -> bool:
    words = ins.body.split()
    return len(words) > 2 and words[2] == "i1"
