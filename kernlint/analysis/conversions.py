"""Checked conversions: a float-to-int conversion and the guards that check it.

A **conversion check** rejects only inputs on which the conversion itself is undefined or
inexact: NaN, values outside the target integer's range (give or take the rounding slack
people write: ``v >= 9.2e18`` for int64, ``v >= 2**31`` for int32, ``v < 0`` for an
unsigned target), and non-integral values where the check tests exactness. A test that
also rejects values the conversion handles well (``v < 0.0 or v >= 256.0`` before an int64
conversion, ``not (0 <= v < n)``) is the program's **domain check**: it is not a checked
conversion, and nothing may remove it.

This is decided here, from the IR's comparisons, once for every user: KL101, its source
fix, ``kernlint rewrite`` and ``@no_hostcall(fix=True)``. Each comparison that feeds a guard
branch is a *leaf*; its polarity says whether its being true pushes the branch toward the
error side. The set of values a leaf rejects is probed at the points where it can change
(the safe range's ends, the constant and its neighbours): a leaf is a conversion check
only when none of them inside the safe range is rejected. Polarity that cannot be read
(a leaf feeding a ``select``'s condition, an ``xor`` of two tests) makes a leaf a domain
check: unknown is never removable.

The branches of one source guard (``if a or b:`` becomes a branch per term) share their
error path; they are judged together: one domain leaf makes the whole guard a domain check.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Set, Tuple

from ..ir.reader import Instruction, float_constant
from . import runtime
from .paths import ErrorBranch, FunctionFacts
from .program import KernelAnalysis, Reached
from .values import ValueFacts

# How far inside the integer's range a bound may sit and still be a conversion check: people
# write large limits rounded (`v >= 9.2e18`, `9.0e18`, `2.1e9`), small ones exactly (`v > 127`).
# 1/32 of the limit for 32- and 64-bit targets (`2e9` for int32, 7% in, is a domain bound), one
# unit for 8- and 16-bit ones (a 250-bin histogram's `v >= 250` into uint8 is a domain bound).
SLACK = 1.0 / 32

_NUMBA_FLOAT = {"double": "float64", "float": "float32", "half": "float16"}
_LABEL = re.compile(r"label\s+(%(?:\"(?:[^\"\\]|\\.)*\"|[-a-zA-Z$._0-9]+))")


def _int_name(llvm_type: str, signed: bool) -> str:
    bits = llvm_type.lstrip("i")
    return f"{'' if signed else 'u'}int{bits}" if bits.isdigit() else llvm_type


def conversion(ins: Instruction) -> Optional[Tuple[str, str, str]]:
    """(operand, source type, target type) of a float-to-int conversion, or None."""
    if ins.opcode in ("fptosi", "fptoui"):
        words = ins.body.split()
        operands = ins.locals()
        if not operands or len(words) < 4:
            return None
        source = _NUMBA_FLOAT.get(words[1], words[1])
        return operands[0], source, _int_name(words[-1], ins.opcode == "fptosi")
    if ins.opcode == "call" and runtime.classify(ins.callee) is runtime.Kind.CONVERT:
        args = ins.call_args()
        operands = ins.locals()
        if not operands:
            return None
        source = _NUMBA_FLOAT.get(args.split()[0], args.split()[0]) if args else "float"
        signed = "fptoui" not in ins.callee and "2u" not in ins.callee
        result_type = ins.body.split()[1]
        return operands[0], source, _int_name(result_type, signed)
    return None


def safe_range(target: str) -> Tuple[float, float]:
    """(lo, hi): the values ``lo <= v < hi`` a conversion to ``target`` (``int32``,
    ``uint8``, ...) must convert whatever its checks say. Below ``lo`` or from ``hi`` up,
    NaN and infinities, a conversion check may reject; anything it rejects inside is a
    domain check's doing."""
    match = re.fullmatch(r"(u?)int(\d+)", target)
    if not match:
        raise ValueError(f"not an integer type: {target}")
    unsigned, bits = match.group(1) == "u", int(match.group(2))
    limit = 2.0 ** bits if unsigned else 2.0 ** (bits - 1)
    slack = limit * SLACK if bits >= 32 else 1.0
    return (0.0 if unsigned else -(limit - slack)), limit - slack


# -- reading the IR's comparisons ---------------------------------------------------------

def _operand_tokens(ins: Instruction) -> List[str]:
    """The two operands of an ``fcmp`` as written (locals keep their ``%``)."""
    words = ins.body.split()
    rest = [w for w in words[1:] if w not in runtime.FAST_MATH_FLAGS]
    if len(rest) < 3 or rest[1].startswith("<"):  # no predicate/type, or a vector compare
        return []
    text = " ".join(rest[2:])
    return [part.strip() for part in text.split(",")[:2]]


_PREDICATES: Dict[str, Callable[[float, float], bool]] = {
    "oeq": lambda a, b: a == b, "ogt": lambda a, b: a > b, "oge": lambda a, b: a >= b,
    "olt": lambda a, b: a < b, "ole": lambda a, b: a <= b, "one": lambda a, b: a < b or a > b,
    "ord": lambda a, b: True,
}


def fcmp(predicate: str, a: float, b: float) -> bool:
    """LLVM's ``fcmp`` on two values: ordered predicates are false on NaN, unordered true."""
    if predicate == "true":
        return True
    if predicate == "false":
        return False
    unordered = math.isnan(a) or math.isnan(b)
    if predicate == "uno":
        return unordered
    if predicate.startswith("u"):
        return unordered or _PREDICATES["o" + predicate[1:]](a, b)
    return not unordered and _PREDICATES[predicate](a, b)


_FPCLASS_BITS = ((0, "snan"), (1, "qnan"), (2, "-inf"), (3, "-normal"), (4, "-subnormal"), (5, "-zero"),
                 (6, "+zero"), (7, "+subnormal"), (8, "+normal"), (9, "+inf"))


def _fp_class(value: float) -> str:
    if math.isnan(value):
        return "qnan"
    sign = "-" if math.copysign(1.0, value) < 0 else "+"
    if math.isinf(value):
        return sign + "inf"
    if value == 0.0:
        return sign + "zero"
    return sign + ("subnormal" if abs(value) < 2.2250738585072014e-308 else "normal")


def _library_test(ins: Instruction) -> Optional[Callable[[float], bool]]:
    """What a float-class library predicate says of a value."""
    callee = ins.callee or ""
    if callee.startswith("llvm.is.fpclass"):
        mask_text = ins.call_args().split(",")[-1].split()
        try:
            mask = int(mask_text[-1])
        except (ValueError, IndexError):
            return None
        classes = {name for bit, name in _FPCLASS_BITS if mask & (1 << bit)}
        return lambda v: _fp_class(v) in classes or (math.isnan(v) and "snan" in classes)
    if "isnan" in callee:
        return math.isnan
    if "isinf" in callee:
        return math.isinf
    if "finite" in callee:
        return math.isfinite
    return None


def _probes(lo: float, hi: float, constants: Sequence[float] = ()) -> List[float]:
    """Points of [lo, hi) at which a comparison against ``constants`` can change its answer:
    a test that rejects none of them rejects nothing inside."""
    points = [lo, math.nextafter(hi, -math.inf), 0.0, -0.0, 5e-324, 1.0, -1.0]
    for c in constants:
        if math.isfinite(c):
            for x in (c, -c):
                points += [x, math.nextafter(x, math.inf), math.nextafter(x, -math.inf)]
    return [p for p in points if lo <= p < hi]


@dataclass(frozen=True)
class Leaf:
    """One test feeding a guard branch, judged for the converted value."""

    instruction: Instruction
    kind: str  # "NaN" | "range" | "exactness"
    conversion_check: bool  # rejects only what the conversion itself cannot take


def judge(test: Instruction, sign: int, error_on_true: bool, keys, values: ValueFacts,
          target: str) -> Optional[Leaf]:
    """The leaf ``test`` for the value with ``keys`` (None where it does not test it).
    ``sign`` is +1 where the test's being true pushes its branch's condition true, -1 where
    false, 0 where that cannot be read."""
    try:
        lo, hi = safe_range(target)
    except ValueError:
        return None  # not a conversion to an integer kernlint knows (IR it cannot read as one)
    rejects_when = (sign > 0) == error_on_true

    def judged(kind: str, rejected: Callable[[float], bool], probes: Sequence[float]) -> Leaf:
        ok = sign != 0 and not any(rejected(p) for p in probes)
        return Leaf(test, kind, ok)

    if test.opcode == "call":
        operands = test.locals()
        if not operands or not values.derived_keys(operands[0]) & keys:
            return None
        predicate = _library_test(test)
        kind = "NaN" if runtime.classify(test.callee) is runtime.Kind.NAN_TEST else "range"
        if predicate is None:
            return Leaf(test, kind, False)
        return judged(kind, lambda v: predicate(v) == rejects_when, _probes(lo, hi))
    tokens = _operand_tokens(test)
    words = [w for w in test.body.split()[1:] if w not in runtime.FAST_MATH_FLAGS]
    predicate = words[0] if words else ""
    if len(tokens) != 2 or predicate not in _PREDICATES and predicate not in (
            "uno", "ueq", "ugt", "uge", "ult", "ule", "une", "true", "false"):
        return None
    names = [values.local_name(t) for t in tokens]
    testing = [bool(n and values.derived_keys(n) & keys) for n in names]
    if not any(testing):
        return None
    rounding = [bool(n and values.is_rounding_of(n, keys)) for n in names]
    if all(t or r for t, r in zip(testing, rounding)):
        a, b = names
        if any(rounding):
            # round(v) vs v: an integral value equals its rounding, so only non-integral
            # values (and NaN) may be rejected; the integers of the safe range must pass
            integers = [float(math.ceil(lo)), 0.0, 1.0, -1.0, float(math.floor(math.nextafter(hi, -math.inf)))]
            return judged("exactness", lambda v: fcmp(predicate, v, v) == rejects_when,
                          [p for p in integers if lo <= p < hi])
        if values.keys(a) & values.keys(b):
            return judged("NaN", lambda v: fcmp(predicate, v, v) == rejects_when, _probes(lo, hi))
        return Leaf(test, "range", False)  # two different values derived from v
    side = 0 if testing[0] else 1
    other = names[1 - side]
    constant = values.constant_of(other) if other else float_constant(tokens[1 - side])
    if constant is None:
        return Leaf(test, "range", False)  # a bound known only at run time: the program's domain
    transform = values.derivation(names[side], keys)
    if transform is None:
        return Leaf(test, "range", False)

    def rejected(v: float) -> bool:
        x = transform(v)
        pair = (x, constant) if side == 0 else (constant, x)
        return fcmp(predicate, *pair) == rejects_when

    kind = "NaN" if predicate in ("uno", "ord") else "range"
    return judged(kind, rejected, _probes(lo, hi, [constant]))


# -- guards --------------------------------------------------------------------------------

@dataclass
class Guard:
    """A branch toward an error path, judged for one converted value."""

    branch: ErrorBranch
    leaves: List[Leaf]
    other_inputs: bool  # it also tests something that is not this value

    @property
    def conversion_check(self) -> bool:
        return all(leaf.conversion_check for leaf in self.leaves)

    @property
    def removable(self) -> bool:
        """Cutting this branch rejects nothing the conversion could take: it tests this value
        alone, and only as a conversion check."""
        return bool(self.leaves) and self.conversion_check and not self.other_inputs


@dataclass
class CheckedConversion:
    """A conversion, the error branches that check it, and which of them the rewrite may
    remove. Guards that are domain checks are not here: they stay, whatever is done."""

    reached: Reached
    instruction: Instruction
    source: str
    target: str
    tests: List[str] = field(default_factory=list)
    failures: List[str] = field(default_factory=list)
    guards: List[ErrorBranch] = field(default_factory=list)
    removable: List[ErrorBranch] = field(default_factory=list)

    @property
    def fixable(self) -> bool:
        return bool(self.guards) and len(self.removable) == len(self.guards)


def error_on_true(branch: ErrorBranch) -> bool:
    """Is the failing side the branch's true target (``br i1 %c, label %fail, label %ok``)?"""
    labels = _LABEL.findall(branch.guard.terminator.body) if branch.guard.terminator else []
    return bool(labels) and labels[0].lstrip("%").strip('"') == branch.failing


def guard_groups(facts: FunctionFacts) -> List[List[ErrorBranch]]:
    """The error branches of one source guard: ``if a or b: raise`` is a branch per term,
    all into one error path. Branches whose error sides share an error block are one guard."""
    branches = facts.error_branches
    error_blocks = facts.error_blocks
    parent = list(range(len(branches)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: Dict[str, int] = {}
    for number, branch in enumerate(branches):
        for block in facts.region(branch.failing, branch.guard.name) & error_blocks | {branch.failing}:
            if block in owner:
                parent[root(number)] = root(owner[block])
            else:
                owner[block] = number
    groups: Dict[int, List[ErrorBranch]] = {}
    for number, branch in enumerate(branches):
        groups.setdefault(root(number), []).append(branch)
    return list(groups.values())


def judge_guard(branch: ErrorBranch, keys, values: ValueFacts, target: str) -> Guard:
    tests, other = values.condition_leaves(branch.condition)
    on_true = error_on_true(branch)
    leaves = [leaf for test, sign in tests
              if (leaf := judge(test, sign, on_true, keys, values, target)) is not None]
    # a test of something else (an index, another value) is another input of this branch
    other = other or len(leaves) < len(tests)
    return Guard(branch, leaves, other)


def checked_conversions(analysis: KernelAnalysis) -> Iterator[CheckedConversion]:
    for reached in analysis.functions():
        facts = analysis.facts(reached.function)
        if not facts.error_branches:
            continue
        values = facts.values
        groups = guard_groups(facts)
        regions: Dict[Tuple[str, str], Set[str]] = {}
        for block in reached.function.blocks:
            if block.name in facts.error_blocks:
                continue
            for ins in block.instructions:
                conv = conversion(ins)
                if conv is None:
                    continue
                operand, source, target = conv
                keys = values.derived_keys(operand)
                checked = CheckedConversion(reached, ins, source, target)
                for group in groups:
                    judged = [judge_guard(branch, keys, values, target) for branch in group]
                    testing = [g for g in judged if g.leaves]
                    if not testing or not all(g.conversion_check for g in testing):
                        continue  # not a test of this value, or the program's domain check
                    for guard in testing:
                        branch = guard.branch
                        key = (branch.passing, branch.guard.name)
                        if key not in regions:
                            regions[key] = facts.region(branch.passing, branch.guard.name)
                        if block.name not in regions[key]:
                            continue  # its passing side never reaches this conversion
                        checked.tests.extend(leaf.kind for leaf in guard.leaves)
                        checked.failures.append(branch.kind)
                        checked.guards.append(branch)
                        if guard.removable:
                            checked.removable.append(branch)
                if checked.guards:
                    yield checked
