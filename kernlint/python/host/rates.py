"""How often each host event of a Python file runs: ``frequency``'s reading put on the facts.

The host reader finds what the code does (launches, allocations, copies, clock reads); this
gives each event its :class:`~kernlint.analysis.host.Rate` (the loops around it in its
function, their kinds and trip counts, and its place in each), each loop its kind, and a
copy (or a call) whose value the code tests right away (``if d.copy_to_host().sum() > 0:
raise``, or a name it assigns read by a test of the same loop) the mark ``decides``.
"""

from __future__ import annotations

import ast
from typing import Dict, Set

from ...analysis.host import Event, HostFacts, Level, Rate
from . import frequency

_TESTS = (ast.If, ast.While, ast.Assert)


def attach(facts: HostFacts, tree: ast.Module) -> None:
    """Fill ``facts``' events' rates and loops' kinds from ``tree`` (the file they were read from)."""
    bodies = frequency.analyse_module(tree, facts.path, {e.function for e in facts.events})
    loop_ids: Dict[tuple, int] = {(loop.function, loop.place.line): loop.id for loop in facts.loops.values()
                                  if loop.kind != "comprehension"}
    for qualname, body in bodies.items():
        for loop in body.loops:
            number = loop_ids.get((qualname, loop.line))
            if number is not None:
                facts.loops[number].frequency, facts.loops[number].trips = loop.kind, loop.trips
    trips = {(qualname, loop.line): loop.trips for qualname, body in bodies.items() for loop in body.loops}
    for event in facts.events:
        body = bodies.get(event.function)
        rate = body.rate_at(event.place.line) if body is not None else None
        if rate is None:
            continue
        event.rate = Rate(tuple(Level(level.kind, level.place, level.line,
                                      None if level.kind == "body" else trips.get((event.function, level.line)),
                                      None if level.kind == "body" else loop_ids.get((event.function, level.line)))
                                for level in rate.levels))
        if event.kind in ("copy-back", "sync", "call") and _decides(body, event):
            event.detail["decides"] = True


def _decides(body: frequency.Frequency, event: Event) -> bool:
    """Whether the value a copy brings back decides what its loop's iteration does next: the
    copy is in an ``if``/``while`` test, or assigns a name that a test of the loop reads."""
    statement = body.at(event.place.line)
    if statement is None or statement.loop is None:
        return False
    node = statement.node
    if isinstance(node, _TESTS) and node.test.lineno <= event.place.line <= (node.test.end_lineno or node.lineno):
        return True
    assigned = _assigned(node)
    if not assigned:
        return False
    for inner in ast.walk(statement.loop.node):
        if isinstance(inner, _TESTS) and assigned & {n.id for n in ast.walk(inner.test) if isinstance(n, ast.Name)}:
            return True
    return False


def _assigned(node: ast.stmt) -> Set[str]:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
        node, (ast.AnnAssign, ast.AugAssign)) else []
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
