"""KL101 checked-float-to-int

## What it does
Finds a float-to-int conversion (``fptosi``/``fptoui``, or a libdevice/ocml
conversion call such as ``__nv_double2ll_rz``) whose operand — or the value it was
rounded from — is tested for NaN, range or exactness, where the failing branch
leads to an error path: a ``raise``, an ``assert``, a ``print`` followed by
``return``/``continue``, a boxed exception, a trap.

## Why is this bad?
The failing branch never runs on good data, but the GPU pays for it on every
launch: the formatting buffer, the boxed value and the host call keep registers
and stack live across the kernel. Measured on an H200 (2^26 float64 -> int64): a
never-taken ``print`` guard makes the kernel 2.0x slower (24 vs 14 registers, 24 B
vs 0 B stack). On gfx90a a ``printf`` guard takes the same conversion from 6 to 33
VGPRs and 160 B of scratch. Julia's ``Int(x)`` boxes an InexactError through a
``malloc`` hostcall (AMDGPU.jl measured 4 -> 126 VGPRs).

## Example
```python
@cuda.jit("void(int64[::1], float64[::1])")
def convert(y, x):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        if v != v or v >= 9.2e18 or v < -9.2e18:
            print("bad value at", i, v)
            return
        y[i] = int(v)  # KL101
```

Use instead: validate the data before the launch (or count bad values into an
output array), and convert unchecked. ``kernlint rewrite`` rewrites the
conversion into the target's unchecked form (``fptosi`` on NVPTX, where it
saturates and maps NaN to 0; ``fptosi`` + ``freeze`` on AMDGPU).

## Fix safety
Unsafe: inside the safe range (not NaN, in the target's range, integral where the
check demands it) the rewritten kernel gives bit-identical results, but for
inputs outside it the error path no longer runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional, Set, Tuple

from ..analysis import runtime
from ..analysis.paths import ErrorBranch
from ..analysis.program import KernelAnalysis, Reached, Site
from ..analysis.values import ValueFacts
from ..findings import Finding
from ..ir.reader import Instruction
from ..source import is_conversion
from .base import KernelContext

CODE = "KL101"
NAME = "checked-float-to-int"
FIXABLE = True  # by `kernlint rewrite` (kernlint/rewrite)

_NUMBA_FLOAT = {"double": "float64", "float": "float32", "half": "float16"}


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


def test_kind(test: Instruction, keys, values: ValueFacts) -> Optional[str]:
    """What a comparison checks about the converted value: NaN, range or exactness."""
    operands = test.locals()
    if test.opcode == "call":  # isnan / isinf / is.fpclass
        if not any(values.derived_keys(o) & keys for o in operands[:1]):
            return None
        return "NaN" if runtime.classify(test.callee) is runtime.Kind.NAN_TEST else "range"
    matched = [o for o in operands if values.derived_keys(o) & keys]
    if not matched:
        return None
    words = [w for w in test.body.split()[1:] if w not in runtime.FAST_MATH_FLAGS]
    predicate = words[0] if words else ""
    if predicate in ("uno", "ord"):
        return "NaN"
    if len(operands) == 2:
        a, b = operands
        if values.is_rounding_of(a, keys) or values.is_rounding_of(b, keys):
            return "exactness"
        if values.keys(a) & values.keys(b):
            return "NaN"
    return "range"


@dataclass
class CheckedConversion:
    """A conversion, the error branches that test its value, and which of them the
    rewrite may remove (those that test nothing but this value)."""

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


def checked_conversions(analysis: KernelAnalysis) -> Iterator[CheckedConversion]:
    for reached in analysis.functions():
        facts = analysis.facts(reached.function)
        branches = facts.error_branches
        if not branches:
            continue
        values = facts.values
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
                for branch in branches:
                    key = (branch.passing, branch.guard.name)
                    if key not in regions:
                        regions[key] = facts.region(branch.passing, branch.guard.name)
                    if block.name not in regions[key]:
                        continue
                    comparisons, other_inputs = values.condition_inputs(branch.condition)
                    kinds = [test_kind(c, keys, values) for c in comparisons]
                    if not any(kinds):
                        continue
                    checked.tests.extend(k for k in kinds if k)
                    checked.failures.append(branch.kind)
                    checked.guards.append(branch)
                    if all(kinds) and not other_inputs:
                        checked.removable.append(branch)
                if checked.guards:
                    yield checked


def check(ctx: KernelContext) -> Iterator[Finding]:
    for checked in checked_conversions(ctx.analysis):
        what = " and ".join(sorted(set(checked.tests), key=["NaN", "range", "exactness"].index))
        failures = set(checked.failures)
        how = {
            frozenset(["report"]): "prints and skips the work",
            frozenset(["raise"]): "raises",
        }.get(frozenset(failures), "raises or prints")
        in_source = (
            f", or kernlint.unchecked_int(v, numba.{checked.target}) in the kernel"
            if ctx.kernel.path.endswith(".py") else ""
        )
        message = (
            f"{checked.source} -> {checked.target} conversion is checked for {what}, and the "
            f"failing branch {how}: the never-taken error path costs registers, stack and "
            f"occupancy on every launch; convert unchecked (`kernlint rewrite`{in_source})"
        )
        yield ctx.site_finding(
            CODE,
            message,
            Site(checked.reached.function, checked.instruction, False, checked.reached.chain),
            point_at=(is_conversion,),
            fixable=FIXABLE and checked.fixable,
        )
