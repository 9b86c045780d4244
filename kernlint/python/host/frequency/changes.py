"""What a loop's body (or a function's) assigns: the names it changes, its counters,
accumulators and clock reads."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cached_property
from typing import Dict, List, Optional, Sequence, Set

from .syntax import ARITHMETIC, CLOCKS, assigned_names, calls_in, dotted_name, is_range_call, names_read, own_nodes
from ...syntax import walk_nodes

# ... and the math of NumPy, CuPy and `math` (`int(np.ceil(n / threads))`)
_MATH = {"ceil", "floor", "trunc", "sqrt", "log", "log2", "log10", "exp", "int32", "int64", "float32", "float64"}
_MATH_MODULES = {"np", "numpy", "math", "cp", "cupy"}


@dataclass(frozen=True)
class _Assigned:
    changed: Set[str]  # names and `self.x` attributes assigned (a `for`'s own variables too)
    counters: Set[str]  # arithmetic over themselves and what does not change; accumulators
    clocks: Set[str]  # clock reads
    incremented: Set[str]  # `x += ...`, `x = x + ...`
    assignments: Dict[str, List[ast.AST]]  # each name's assigned values (`x += v` as `x + v`)



class Changes:
    """What a loop's body (or a function's) assigns: the names and ``self.x`` attributes it
    changes, which of them are counters (arithmetic over themselves and what does not
    change; ``t += dt`` whatever ``dt`` is), which it increments, which are clock reads.
    Read on first use: most bodies never need it."""

    def __init__(self, statements: Sequence[ast.stmt], loop: Optional[ast.stmt] = None):
        self.statements, self.loop = statements, loop
        self.in_loop = loop is not None

    @property
    def changed(self) -> Set[str]:
        return self._assigned.changed

    @property
    def counters(self) -> Set[str]:
        return self._assigned.counters

    @property
    def clocks(self) -> Set[str]:
        return self._assigned.clocks

    @property
    def incremented(self) -> Set[str]:
        return self._assigned.incremented

    @property
    def assignments(self) -> Dict[str, List[ast.AST]]:
        return self._assigned.assignments

    @cached_property
    def _assigned(self) -> _Assigned:
        loop = self.loop
        is_for = isinstance(loop, (ast.For, ast.AsyncFor))
        targets: Set[str] = set(assigned_names(loop.target)) if is_for else set()  # type: ignore[union-attr]
        assignments: Dict[str, List[ast.AST]] = {}
        incremented: Set[str] = set()
        for sub in own_nodes(self.statements):
            if isinstance(sub, ast.Assign):
                for target in sub.targets:
                    for name in assigned_names(target):
                        assignments.setdefault(name, []).append(sub.value)
                        if isinstance(sub.value, ast.BinOp) and isinstance(sub.value.op, (ast.Add, ast.Sub)) and \
                                name in names_read(sub.value.left):
                            incremented.add(name)
            elif isinstance(sub, ast.AugAssign):
                for name in assigned_names(sub.target):
                    assignments.setdefault(name, []).append(ast.BinOp(ast.Name(name), sub.op, sub.value))
                    if isinstance(sub.op, (ast.Add, ast.Sub)):
                        incremented.add(name)
            elif isinstance(sub, ast.AnnAssign) and sub.value is not None:
                for name in assigned_names(sub.target):
                    assignments.setdefault(name, []).append(sub.value)
            elif isinstance(sub, (ast.For, ast.AsyncFor)):
                for name in assigned_names(sub.target):
                    assignments.setdefault(name, []).append(sub.iter)
            elif isinstance(sub, ast.NamedExpr):
                assignments.setdefault(sub.target.id, []).append(sub.value)
            elif isinstance(sub, (ast.With, ast.AsyncWith)):
                for item in sub.items:
                    if item.optional_vars is not None:
                        for name in assigned_names(item.optional_vars):
                            assignments.setdefault(name, []).append(item.context_expr)
        changed = set(assignments) | targets
        clocks = {name for name, values in assignments.items() if all(_is_clock_expression(v) for v in values)}
        # an accumulator (`t += dt`, `t = t + dt`) advances whatever it adds: time, a position
        accumulators = {name for name in incremented
                        if all(isinstance(v, ast.BinOp) and isinstance(v.op, (ast.Add, ast.Sub)) and
                               name in names_read(v.left) for v in assignments[name])}
        # a flag (`build = False`) ends a loop by what the iteration found, not by counting
        flags = {name for name, values in assignments.items() if all(
            isinstance(v, ast.Constant) and isinstance(v.value, (bool, type(None))) for v in values)}
        counters = set(assignments) - clocks - accumulators - flags
        while True:  # arithmetic over what does not change and over counters
            kept = {name for name in counters
                    if all(_arithmetic_over(v, lambda n: n not in changed or n in counters or n in accumulators)
                           for v in assignments[name])}
            if kept == counters:
                break
            counters = kept
        range_targets = targets if is_for and is_range_call(loop.iter) else set()  # type: ignore[union-attr]
        return _Assigned(changed, counters | accumulators | range_targets, clocks, incremented, assignments)

    def varying(self, expression: ast.AST) -> Set[str]:
        return names_read(expression) & self.changed

    @cached_property
    def advancing(self) -> Set[str]:
        """The names that only move one way from one iteration to the next: a ``for``'s
        variable over ``range``/``arange``/``linspace``, an accumulator adding what the loop
        does not change (``t += dt``, ``step = step + 1``), and a name computed from one of
        them by scaling and shifting with what the loop does not change (``time = t_step *
        DT``): a test comparing one with a fixed value switches once, whichever way it goes."""
        if not self.in_loop:
            return set()
        loop, assignments, changed = self.loop, self.assignments, self.changed
        found: Set[str] = set()
        if isinstance(loop, (ast.For, ast.AsyncFor)) and isinstance(loop.target, ast.Name) and (
                is_range_call(loop.iter) or isinstance(loop.iter, ast.Call) and dotted_name(
                    loop.iter.func).rsplit(".", 1)[-1] in ("arange", "linspace")):
            found.add(loop.target.id)
        for name in self.incremented:
            values = assignments.get(name, ())
            if values and all(isinstance(v, ast.BinOp) and isinstance(v.op, (ast.Add, ast.Sub)) and _bare(
                    v.left) == name and not names_read(v.right) & changed for v in values):
                found.add(name)
        while True:
            grown = found | {name for name, values in assignments.items() if name not in found and values and all(
                _affine_in(v, found, changed) for v in values)}
            if grown == found:
                return found
            found = grown



def _bare(node: ast.AST) -> str:
    return dotted_name(node) if isinstance(node, (ast.Name, ast.Attribute)) else ""


# operations that keep a value's order (given a fixed other operand): scaling and shifting
_MONOTONE = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv)


def _affine_in(value: ast.AST, advancing: Set[str], changed: Set[str]) -> bool:
    """``t_step * DT``, ``(step + 1) * dt``, ``float(t)``: one advancing name, scaled and
    shifted by what the loop does not change; nothing else the loop changes."""
    uses = 0
    for sub in walk_nodes(value):
        if isinstance(sub, ast.BinOp) and not isinstance(sub.op, _MONOTONE):
            return False
        if isinstance(sub, ast.UnaryOp) and not isinstance(sub.op, (ast.USub, ast.UAdd)):
            return False
        if isinstance(sub, ast.Call) and not (isinstance(sub.func, ast.Name) and sub.func.id in ("int", "float")):
            return False
        if isinstance(sub, (ast.Subscript, ast.Compare, ast.BoolOp, ast.IfExp)):
            return False
        if isinstance(sub, (ast.Name, ast.Attribute)) and isinstance(getattr(sub, "ctx", None), ast.Load):
            name = dotted_name(sub)
            if name in advancing:
                uses += 1
            elif name in changed:
                return False
    return uses == 1


def _is_clock_expression(value: ast.AST) -> bool:
    calls = calls_in(value)
    return bool(calls) and all(dotted_name(c.func).rsplit(".", 1)[-1] in CLOCKS for c in calls)



def _arithmetic_over(value: ast.AST, unchanged) -> bool:
    """Whether an expression is arithmetic over constants and names ``unchanged`` accepts."""
    for sub in walk_nodes(value):
        if isinstance(sub, ast.Call):
            if not _is_arithmetic_call(sub):
                return False
        elif isinstance(sub, (ast.Subscript, ast.Await, ast.Yield, ast.YieldFrom, ast.ListComp, ast.GeneratorExp)):
            return False
        elif isinstance(sub, ast.Name) and sub.id not in ARITHMETIC and sub.id not in _MATH_MODULES and not unchanged(
                sub.id):
            return False
        elif isinstance(sub, ast.Attribute):
            dotted = dotted_name(sub)
            math = isinstance(sub.value, ast.Name) and sub.value.id in _MATH_MODULES  # `np.ceil`, `math.pi`
            if dotted and not unchanged(dotted) and not math:
                return False
    return True



def _is_arithmetic_call(call: ast.Call) -> bool:
    name = dotted_name(call.func)
    module, _, function = name.rpartition(".")
    return name in ARITHMETIC or module in _MATH_MODULES and function in _MATH
