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
Unsafe, both ways: inside the safe range (not NaN, in the target's range, integral
where the check demands it) the fixed kernel gives bit-identical results, but for
inputs outside it the error path no longer runs.

- ``kernlint check --fix --unsafe-fixes`` edits the Python source: it deletes the guard
  ``if`` whose test reads nothing but the converted value and whose body is a pure error
  path (``print(...)`` then ``return``/``continue``, a ``raise``, a failing ``assert``), or
  such an ``assert``; the plain ``int(v)`` left is already numba-cuda's unchecked
  ``fptosi``. From a guard that also tests other things (``v != v or i == 7``) it removes
  only the value's ``or`` terms, which are false inside the safe range; other guards are
  left alone and the finding offers no source fix. The edited file is compiled and
  checked again before it is written.
- ``kernlint rewrite`` rewrites the IR (NVVM's ``fptosi``; AMDGPU's ``fptosi`` +
  ``freeze``; ``--mode saturate``), for HIP and IR files too.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional, Set, Tuple

from ..analysis import runtime
from ..analysis.paths import ErrorBranch
from ..analysis.program import KernelAnalysis, Reached, Site
from ..analysis.values import ValueFacts
from ..findings import Finding, Fix
from ..ir.reader import Instruction
from ..source import is_conversion, is_print
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
        finding = ctx.site_finding(
            CODE,
            message,
            Site(checked.reached.function, checked.instruction, False, checked.reached.chain),
            point_at=(is_conversion,),
            fixable=FIXABLE and checked.fixable,
        )
        finding.rewritable = finding.fixable
        finding.fix = source_fix(ctx, checked, finding)
        finding.fixable = finding.fixable or finding.fix is not None
        yield finding


# -- the source fix (kernlint check --fix --unsafe-fixes) ------------------------------------

_PREDICATE_MODULES = ("math", "cmath", "numpy", "np", "numba")


def source_fix(ctx: KernelContext, checked: CheckedConversion, finding: Finding) -> Optional[Fix]:
    """Delete the guards that test nothing but the converted value and whose failing side is a
    pure error path (in numba.cuda the plain ``int(v)`` left is already the unchecked fptosi);
    from a guard that tests other things too, remove only the value's ``or`` terms (exact
    inside the safe range, where those terms are false). Unsafe: outside the safe range the
    error path no longer runs. None where the source does not show exactly that."""
    if not finding.path.endswith(".py"):
        return None  # HIP and IR sources: reported, rewritten as IR, not edited
    source = ctx.source_for(finding.path)
    if source is None or source.tree is None:
        return None
    edits_source = source.edits
    call = next((n for n in source.nodes_at(finding.line) if isinstance(n, ast.Call) and is_conversion(n)
                 and n.args), None)
    if call is None:
        return None
    value = call.args[0]
    function = edits_source.function_of(call)
    if function is None:
        return None
    local = _local_names(function)
    guards: Dict[int, List[bool]] = {}
    nodes: Dict[int, ast.stmt] = {}
    for branch in checked.guards:
        terminator = branch.guard.terminator
        frames = Site(checked.reached.function, terminator, False, checked.reached.chain).frames()
        line = next((f.line for f in frames if f.path == finding.path and f.line > 0), 0)
        node = edits_source.guard_at(line) if line else None
        if node is None or edits_source.function_of(node) is not function:
            return None
        nodes[id(node)] = node
        guards.setdefault(id(node), []).append(branch in checked.removable)
    edits = []
    for key, node in nodes.items():
        if not edits_source.owns_lines(node):
            return None
        test = node.test
        if isinstance(node, ast.If) and (node.orelse or not _pure_error_path(node.body)):
            return None
        if all(guards[key]) and _only_value(test, value, local):
            edits.append(edits_source.delete(node, finding.path))
            continue
        if isinstance(node, ast.If) and isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
            kept = [term for term in test.values if not _only_value(term, value, local)]
            if kept and len(kept) < len(test.values):
                text = " or ".join(_operand(edits_source.segment(term), term) for term in kept)
                edits.append(edits_source.replace(test, text, finding.path))
                continue
        return None
    if not edits:
        return None
    return Fix("unsafe", f"remove the guard{'s' if len(edits) > 1 else ''} of `{ast.unparse(call)}` "
                         f"(outside the safe range the error path no longer runs)", edits)


def _pure_error_path(body: List[ast.stmt]) -> bool:
    """print(...) calls ending in return/continue, a raise, or a failing assert: nothing else."""
    for statement in body[:-1]:
        if not (isinstance(statement, ast.Expr) and is_print(statement.value)):
            return False
    last = body[-1] if body else None
    if isinstance(last, (ast.Raise, ast.Continue)):
        return True
    if isinstance(last, ast.Return):
        return last.value is None or isinstance(last.value, ast.Constant)
    return isinstance(last, ast.Assert) and isinstance(last.test, ast.Constant) and not last.test.value


def _local_names(function: ast.AST) -> Set[str]:
    names = {a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)}
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
    return names


def _only_value(expr: ast.AST, value: ast.expr, local: Set[str]) -> bool:
    """Does ``expr`` read nothing but the converted value (constants, globals and math/numpy
    predicates aside)?"""
    target = ast.dump(value)
    reads_value = False

    def visit(node: ast.AST) -> bool:
        nonlocal reads_value
        if ast.dump(node) == target:
            reads_value = True
            return True
        if isinstance(node, ast.Call):
            func = node.func
            root = func
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in local:
                return False  # a local callable: not a predicate kernlint knows
            return all(visit(a) for a in node.args) and not node.keywords
        if isinstance(node, ast.Name):
            return node.id not in local  # a global constant
        if isinstance(node, ast.Attribute):
            root = node
            while isinstance(root, ast.Attribute):
                root = root.value
            return isinstance(root, ast.Name) and root.id not in local
        return all(visit(child) for child in ast.iter_child_nodes(node))

    return visit(expr) and reads_value


def _operand(text: str, node: ast.AST) -> str:
    return f"({text})" if isinstance(node, (ast.BoolOp, ast.IfExp, ast.NamedExpr, ast.Lambda)) else text
