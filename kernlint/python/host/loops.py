"""Loops: a loop's facts (``analysis.host.Loop``) as its syntax gives them — what it binds and
rebinds, what decides when it ends (its kind, and how often each statement in it runs, are
``frequency``'s), and where a name a launch in it reads lives on the iterations after the first.
May import ``python.syntax``, ``python.static_types`` and ``analysis.host``.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import Mapping, Sequence, Set

from ...analysis.host import Event, Launch, Loop
from ..static_types import ArrayType
from ..syntax import PyModule, walk_nodes
from .frames import Frame, place_of
from .names import captured_frames, fixed_shapes, indexed_items, names_read, rebinds, steady_shapes, target_names, whole_targets



class LoopReader:
    """Reads the loops of one file (``module``)."""

    def __init__(self, module: PyModule):
        self.module = module

    def read(self, node: ast.AST, kind: str, frame: Frame, number: int) -> Loop:
        """The facts of loop ``number``, a ``for`` or ``while`` (``kind``) read in ``frame``."""
        parent = frame.loops[-1] if frame.loops else None
        loop = Loop(number, place_of(self.module.path, node), kind, frame.qualname, parent)
        inside = [sub for statement in getattr(node, "body", []) for sub in walk_nodes(statement)]
        if isinstance(node, (ast.For, ast.AsyncFor)):
            loop.varying.update(target_names(node.target))
            loop.targets.update(target_names(node.target))
            loop.rebound.update(whole_targets(node.target))
        for sub in inside:
            loop.rebound |= rebinds(sub)
            if isinstance(sub, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
                for target in targets:
                    loop.varying.update(target_names(target))
            elif isinstance(sub, (ast.For, ast.AsyncFor, ast.comprehension)):
                loop.varying.update(target_names(sub.target))
            elif isinstance(sub, ast.If) and any(isinstance(s, ast.Break) for s in sub.body):
                loop.deciding.update(names_read(sub.test))
        if isinstance(node, ast.While):
            loop.deciding.update(names_read(node.test))
        loop.steady = steady_shapes(getattr(node, "body", []))
        loop.fixed = fixed_shapes(getattr(node, "body", []))
        if loop.targets:
            loop.items = indexed_items(getattr(node, "body", []), loop.targets)
        loop.items |= captured_frames(getattr(node, "body", []))  # a frame loop's element: the frame read
        if frame.function is not None and frame.loops == ():
            loop.counted_by = counted_by(node, frame.function)
        return loop


def counted_by(node: ast.AST, function: ast.AST) -> str:
    """The parameter of ``function`` that is the count of loop ``node``: ``for _ in range(n)``
    (``range(1, n + 1)`` too), or a ``while`` testing a counter it increments against ``n``
    (``while it <= n: ... it += 1``), with ``n`` a parameter the function rebinds only where it
    is None (``if n is None: n = self.nsteps``): the caller chooses how many iterations run."""
    arguments = function.args
    parameters = {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
    bound = None
    if isinstance(node, (ast.For, ast.AsyncFor)):
        call = node.iter
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "range" and (
                1 <= len(call.args) <= 2) and not call.keywords:
            stop = call.args[-1]
            if isinstance(stop, ast.BinOp) and isinstance(stop.op, ast.Add) and isinstance(stop.right, ast.Constant):
                stop = stop.left  # `range(1, n + 1)`
            bound = stop
    elif isinstance(node, ast.While) and isinstance(node.test, ast.Compare) and len(node.test.ops) == 1 and (
            isinstance(node.test.ops[0], (ast.Lt, ast.LtE))) and isinstance(node.test.left, ast.Name):
        counter = node.test.left.id
        if not _skips(node.body) and any(isinstance(sub, ast.AugAssign) and isinstance(sub.op, ast.Add) and isinstance(sub.target, ast.Name)
               and sub.target.id == counter for statement in node.body for sub in walk_nodes(statement)):
            bound = node.test.comparators[0]
    if not (isinstance(bound, ast.Name) and bound.id in parameters):
        return ""
    name = bound.id
    for statement in walk_nodes(function):
        if isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and name in {
                t.id for target in (statement.targets if isinstance(statement, ast.Assign) else [statement.target])
                for t in walk_nodes(target) if isinstance(t, ast.Name)} and not _under_none_test(function, statement, name):
            return ""  # rebound to what the function computes: not what the caller passed
    return name


def _skips(body) -> bool:
    """A ``continue`` of this loop (not of one nested in it): an iteration that skips the
    counter's step, so the count no longer bounds how often the loop runs."""
    for statement in body:
        if isinstance(statement, ast.Continue):
            return True
        if isinstance(statement, (ast.For, ast.AsyncFor, ast.While)):
            if _skips(statement.orelse):
                return True
            continue
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            if _skips(getattr(statement, field, None) or []):
                return True
    return False


def _tests_none(test: ast.AST, name: str) -> bool:
    return isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == name and len(
        test.ops) == 1 and isinstance(test.ops[0], ast.Is) and isinstance(test.comparators[0], ast.Constant) and (
        test.comparators[0].value is None)


def _under_none_test(function: ast.AST, statement: ast.stmt, name: str) -> bool:
    """Whether ``statement`` is in the body of an ``if name is None:``."""
    return any(isinstance(sub, ast.If) and _tests_none(sub.test, name) and any(
        inner is statement for part in sub.body for inner in walk_nodes(part)) for sub in walk_nodes(function))


def carried_places(events: Sequence[Event], after: Mapping[str, object], rebound: Set[str]) -> None:
    """The launches a loop's body made (``events``, read once, with what each name held when
    the loop began): a name the body rebinds (``rebound``) holds on the next iteration what
    ``after`` (the names at the body's end) says. Where that is an array living elsewhere (``u_old =
    u_new`` after launching on ``u_old``, a NumPy array first and a device array from then
    on) or one whose place is not known, the argument's place is not one place: unknown."""
    for event in events:
        if not isinstance(event, Launch):
            continue
        args = tuple(_carried(arg, after) if arg.name in rebound else arg for arg in event.args)
        if args != event.args:
            event.args = args


def _carried(arg, after: Mapping[str, object]):
    if not (arg.array and arg.where and arg.name.isidentifier()):
        return arg
    later = after.get(arg.name)
    if isinstance(later, ArrayType) and later.where != arg.where:
        return replace(arg, where="", library="")
    return arg
