"""Which SSA values are "the same variable", and which comparisons feed a branch.

numba-cuda emits unoptimized IR: a Python variable lives in an ``alloca`` and every
use reloads it (``%a = load double, double* %"v"`` ... ``%b = load double, double* %"v"``).
A value's *keys* name what it is a copy of: its own SSA name, and the alloca slot it
was loaded from (or the slot it is the only non-constant value stored into).
Two values that share a key are the same variable.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Callable, Dict, FrozenSet, List, Optional, Set, Tuple

from ..ir.reader import LOCAL_RE, Function, Instruction, float_constant, unquote
from . import runtime

Key = Tuple[str, str]

# Unary float operations whose operand is "the value it was derived from": an
# exactness test compares v with floor(v); a range test may test fabs(v).
_DERIVING_CALLS = ("llvm.fabs.", "__nv_fabs", "__ocml_fabs_")
_CONSTANT_CASTS = ("fpext", "fptrunc", "sitofp", "uitofp")


def _rounding(callee: str) -> Callable[[float], float]:
    """What a rounding call does to a finite value (NaN and infinities pass through)."""
    name = callee.lower()
    if "floor" in name:
        how = math.floor
    elif "ceil" in name:
        how = math.ceil
    elif "trunc" in name:
        how = math.trunc
    elif "round" in name and "even" not in name:
        how = lambda v: math.copysign(math.floor(abs(v) + 0.5), v)  # noqa: E731 (half away from zero)
    else:
        how = round  # rint, nearbyint, roundeven: half to even
    return lambda v: float(how(v)) if math.isfinite(v) else v


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

    def local_name(self, token: str) -> Optional[str]:
        """The name of a local operand as written (``%".97"`` -> ``.97``); None for a constant."""
        match = LOCAL_RE.fullmatch(token.strip())
        return unquote(match.group(0)) if match else None

    def constant_of(self, name: str) -> Optional[float]:
        """The float constant a local holds: a cast of a literal, or a slot that only ever
        holds one literal. None where it is known only at run time."""
        ins = self.defs.get(name)
        if ins is None:
            return None
        if ins.opcode in _CONSTANT_CASTS and not ins.locals():
            words = ins.body.split()
            return float_constant(words[2]) if len(words) > 2 else None
        if ins.opcode == "load":
            refs = ins.locals()
            if not refs or refs[-1] not in self.allocas or self.stored.get(refs[-1]):
                return None
            literals = set()
            for other in self.function.instructions():
                if other.opcode == "store" and other.locals()[-1:] == [refs[-1]]:
                    literals.add(other.body[len("store"):].split(",")[0].split()[-1])
            if len(literals) == 1:
                return float_constant(literals.pop())
        return None

    def derivation(self, name: str, keys: FrozenSet[Key]) -> Optional[Callable[[float], float]]:
        """How ``name`` is computed from the value with ``keys``: the value itself, its
        absolute value or its rounding. None for anything else."""
        if self.keys(name) & keys:
            return lambda v: v
        ins = self.defs.get(name)
        if ins is None or ins.opcode != "call" or not _is_deriving_call(ins.callee):
            return None
        if not any(self.keys(unquote(a)) & keys for a in LOCAL_RE.findall(ins.call_args())):
            return None
        if runtime.classify(ins.callee) is runtime.Kind.ROUND:
            return _rounding(ins.callee or "")
        return abs

    def condition_leaves(self, cond: str) -> Tuple[List[Tuple[Instruction, int]], bool]:
        """(the float tests a branch condition is computed from, each with its polarity:
        +1 where the test's being true makes the condition true, -1 where it makes it false,
        0 where that cannot be read; whether anything else feeds the condition too)."""
        found: List[Tuple[Instruction, int]] = []
        other = False
        seen: Set[Tuple[str, int]] = set()
        work: List[Tuple[str, int]] = [(cond, 1)]
        while work:
            name, sign = work.pop()
            if (name, sign) in seen:
                continue
            seen.add((name, sign))
            ins = self.defs.get(name)
            if ins is None:
                if name not in self.function.block_map:  # phi operands name blocks too
                    other = True  # a function argument
                continue
            op = ins.opcode
            operands = ins.locals()
            if op == "fcmp":
                found.append((ins, sign))
            elif op == "call":
                callee = ins.callee or ""
                if runtime.classify(callee) in (runtime.Kind.NAN_TEST, runtime.Kind.RANGE_TEST):
                    found.append((ins, sign))
                elif callee.startswith("llvm.expect"):
                    work.extend((unquote(a), sign) for a in LOCAL_RE.findall(ins.call_args())[:1])
                else:
                    other = True
            elif op == "load":
                if operands and operands[-1] in self.allocas:
                    work.extend((value, sign) for value in self.stored.get(operands[-1], ()))
                else:
                    other = True
            elif op == "icmp":
                if not _is_i1_compare(ins) and not self._tests_float_class(ins):
                    other = True  # an integer test: it guards something else
                else:
                    work.extend((value, sign * _truth_sign(ins)) for value in operands)
            elif op == "xor":
                flips = _is_negation(ins)
                work.extend((value, -sign if flips else 0) for value in operands)
            elif op == "select":
                tokens = _constant_operands(ins)
                arms = operands
                if tokens and tokens[0].startswith("%"):
                    work.append((operands[0], sign * _select_sign(ins)))
                    arms = operands[1:]
                work.extend((value, sign) for value in arms)
            elif op in ("or", "and", "zext", "sext", "trunc", "freeze", "phi", "extractvalue"):
                work.extend((value, sign) for value in operands)
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


def _constant_operands(ins: Instruction) -> List[str]:
    """The operands of a binary instruction or ``select`` as written, type words dropped."""
    words = ins.body.split(None, 1)
    if len(words) < 2:
        return []
    parts = [part.strip().split() for part in words[1].split(",")]
    return [part[-1] for part in parts if part]


def _truth_sign(icmp: Instruction) -> int:
    """+1 where ``icmp`` is true exactly when its tested operand is (``ne %x, 0``, ``eq %x, 1``),
    -1 where it is its negation, 0 otherwise."""
    words = icmp.body.split()
    predicate = words[1] if len(words) > 1 else ""
    constants = [c for c in _constant_operands(icmp)[-2:] if not c.startswith("%")]
    if len(constants) != 1 or predicate not in ("eq", "ne"):
        return 0
    zero = constants[0] in ("0", "false", "zeroinitializer", "null")
    one = constants[0] in ("1", "true", "-1")
    if not (zero or one):
        return 0
    return 1 if (predicate == "ne") == zero else -1


def _is_negation(xor: Instruction) -> bool:
    """``xor i1 %x, true`` (or ``-1``): a not."""
    return any(c in ("true", "-1") for c in _constant_operands(xor)[-2:])


def _select_sign(select: Instruction) -> int:
    """The polarity of a ``select``'s condition in its result: ``select %c, true, %b``
    (``c or b``) and ``select %c, %b, false`` (``c and b``) follow ``c``; with ``false`` /
    ``true`` the other way round they negate it; between two values, unknown."""
    arms = _constant_operands(select)[1:3]
    if len(arms) != 2:
        return 0
    if arms[0] in ("true", "1") or arms[1] in ("false", "0"):
        return 1
    if arms[0] in ("false", "0") or arms[1] in ("true", "1"):
        return -1
    return 0


def _is_i1_compare(ins: Instruction) -> bool:
    words = ins.body.split()
    return len(words) > 2 and words[2] == "i1"
