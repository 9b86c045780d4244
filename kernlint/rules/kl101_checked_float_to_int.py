"""KL101 checked-float-to-int

## What it does
Finds a float-to-int conversion (``fptosi``/``fptoui``, or a libdevice/ocml
conversion call such as ``__nv_double2ll_rz``, or ``llvm.fptosi.sat``) guarded by a
*conversion check* whose failing branch leads to an error path (a ``raise``, an
``assert``, a ``print`` followed by ``return``/``continue``, a boxed exception, a trap).

A conversion check rejects only what the conversion itself cannot take: NaN, values
past the target integer's limits (as people write them: ``v >= 9.2e18`` or ``9.0e18``
for int64, ``2**31`` or ``2.1e9`` for int32 — within 1/32 of a 32- or 64-bit limit, one
unit of an 8- or 16-bit one; ``v < 0`` for an unsigned target), and non-integral values
where the check tests exactness. A guard that also rejects values the conversion handles
well is the program's **domain check** — a histogram's ``v < 0.0 or v >= 256.0`` before
an int64 conversion, an index's ``not (0 <= x < n)``, a sign test before a signed
conversion — and is not reported: the program needs it. (Its ``print`` or ``raise`` is
still KL301 or KL401.)

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
output array), and convert unchecked: in numba-cuda ``int(v)`` already is the
unchecked ``fptosi`` (on NVPTX it saturates and maps NaN to 0), so the fix is to
remove the guard. ``kernlint rewrite`` rewrites the IR the same way (``fptosi`` +
``freeze`` on AMDGPU), for HIP and IR files too. ``kernlint.unchecked_int(v,
numba.int64)`` is for a conversion whose check is not in your code.

## Fix safety
Unsafe: inside the conversion's safe range (not NaN, within the target's limits less
the slack above, integral where exactness is tested) the fixed kernel gives
bit-identical results, but for inputs outside it the error path no longer runs.
Domain checks are never removed: they are not findings.

- ``kernlint check --fix --unsafe-fixes`` edits the Python source: it deletes the guard
  ``if`` whose test reads nothing but the converted value and whose body is a pure error
  path (``print(...)`` then ``return``/``continue``, a ``raise``, a failing ``assert``), or
  such an ``assert``. From a guard that also tests other things (``v != v or i == 7``) it
  removes only the value's ``or`` terms, which are false inside the safe range; other
  guards are left alone and the finding offers no source fix. The edited file is
  compiled and checked again before it is written.
- ``kernlint rewrite`` and ``@no_hostcall(fix=True)`` rewrite the IR (NVVM's ``fptosi``;
  AMDGPU's ``fptosi`` + ``freeze``; ``--mode saturate``): they cut only branches that test
  nothing but the converted value, as a conversion check.
"""

from __future__ import annotations

import ast
from typing import Dict, Iterator, List, Optional, Set

from ..analysis.conversions import CheckedConversion, checked_conversions
from ..analysis.program import Site
from ..findings import Finding, Fix
from ..source import is_conversion, is_print
from .base import KernelContext

CODE = "KL101"
NAME = "checked-float-to-int"
FIXABLE = True  # by `kernlint rewrite` (kernlint/rewrite)

def check(ctx: KernelContext) -> Iterator[Finding]:
    for checked in checked_conversions(ctx.analysis):
        what = " and ".join(sorted(set(checked.tests), key=["NaN", "range", "exactness"].index))
        failures = set(checked.failures)
        how = {
            frozenset(["report"]): "prints and skips the work",
            frozenset(["raise"]): "raises",
        }.get(frozenset(failures), "raises or prints")
        finding = ctx.site_finding(
            CODE,
            "",
            Site(checked.reached.function, checked.instruction, False, checked.reached.chain),
            point_at=(is_conversion,),
            fixable=FIXABLE and checked.fixable,
        )
        finding.rewritable = finding.fixable
        finding.fix = source_fix(ctx, checked, finding)
        finding.fixable = finding.fixable or finding.fix is not None
        finding.message = (
            f"{checked.source} -> {checked.target} conversion is checked for {what}, and the "
            f"failing branch {how}: the never-taken error path costs registers, stack and "
            f"occupancy on every launch; {_advice(ctx, checked, finding, what)}"
        )
        yield finding


def _advice(ctx: KernelContext, checked: CheckedConversion, finding: Finding, what: str) -> str:
    """What to do, in the kernel's own language."""
    if not finding.path.endswith(".py"):
        return "convert unchecked (`kernlint rewrite`)"
    lines = _guard_lines(checked, finding.path)
    call = _conversion_call(ctx, finding)
    if not lines:
        # the check is not in the user's code (a library's or numba's own implementation):
        # write the conversion that nothing checks
        return (f"convert with `kernlint.unchecked_int(v, numba.{checked.target})`, which nothing checks"
                + (" (or `kernlint rewrite`)" if checked.fixable else ""))
    where = f"line{'s' if len(lines) > 1 else ''} {_and(str(n) for n in lines)}"
    plain = f"`{ast.unparse(call)}`" if call is not None else "the plain conversion"
    if len(checked.removable) < len(checked.guards):  # a guard that also tests something else stays
        advice = f"remove the {what} test{'s' if ' and ' in what else ''} from the guard at {where}"
    else:
        advice = f"remove the guard{'s' if len(lines) > 1 else ''} at {where}"
    advice += f" ({plain} is already unchecked in numba-cuda)"
    if finding.fix is not None:
        advice += ": `--fix --unsafe-fixes` does it"
    return advice


def _and(items) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _guard_line(checked: CheckedConversion, branch, path: str) -> int:
    """The line of ``path`` where one of the conversion's guards branches (0: none there)."""
    frames = Site(checked.reached.function, branch.guard.terminator, False, checked.reached.chain).frames()
    return next((f.line for f in frames if f.path == path and f.line > 0), 0)


def _guard_lines(checked: CheckedConversion, path: str) -> List[int]:
    """The lines of ``path`` where the conversion's guards branch."""
    return sorted({line for branch in checked.guards if (line := _guard_line(checked, branch, path))})


def _conversion_call(ctx: KernelContext, finding: Finding) -> Optional[ast.Call]:
    source = ctx.source_for(finding.path)
    if source is None or source.tree is None:
        return None
    return next((n for n in source.nodes_at(finding.line) if isinstance(n, ast.Call) and is_conversion(n)
                 and n.args), None)


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
    call = _conversion_call(ctx, finding)
    if call is None:
        return None
    edits_source = ctx.source_for(finding.path).edits
    value = call.args[0]
    function = edits_source.function_of(call)
    if function is None:
        return None
    local = _local_names(function)
    guards: Dict[int, List[bool]] = {}
    nodes: Dict[int, ast.stmt] = {}
    for branch in checked.guards:
        line = _guard_line(checked, branch, finding.path)
        node = edits_source.guard_at(line) if line else None
        if node is None or edits_source.function_of(node) is not function:
            return None
        nodes[id(node)] = node
        guards.setdefault(id(node), []).append(branch in checked.removable)
    edits = []
    partial = False
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
                partial = True
                continue
        return None
    if not edits:
        return None
    if partial:
        return Fix("unsafe", f"remove the value's tests of `{ast.unparse(call)}` from its guard "
                             f"(outside the safe range the error path no longer runs)", edits)
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
