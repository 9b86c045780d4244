"""Which GPU a launch or a synchronization is on, where the code picks one: numba-cuda's
``cuda.select_device(i)`` makes device ``i`` the calling thread's current device, and
``cuda.synchronize()`` waits for the current device alone. A launch made after selecting a device
by a value the code varies (a parameter, a loop's variable: one call or one thread per GPU) may
run on any of several GPUs, so only a synchronization made where the code has selected a device
too (a synchronization per device, ``for i in ...: cuda.select_device(i); cuda.synchronize()``),
or in the launch's own function after it, is known to wait for it. Marks ``device`` (the
selecting expression, as written) on such launches and synchronizations. Syntax only.
"""

from __future__ import annotations

import ast
from typing import Dict, List, Optional

from ...analysis.host import HostFacts
from ..syntax import child_nodes, walk_nodes

_SELECTS = ("select_device",)


def mark(facts: HostFacts, tree: ast.Module, functions: Dict[int, ast.AST], bodies) -> None:
    """Mark ``device`` on the launches and synchronizations of ``facts`` (read from ``tree``;
    ``functions``: each function's node by its ``def`` line, ``bodies``: the frequency readings)
    made after a ``select_device`` of a value that is not a literal, in a block around them."""
    selects: Dict[int, List[ast.Call]] = {}  # id(a function or the module) -> its select calls
    for event in facts.events:
        if event.kind not in ("launch", "sync") or event.calls:
            continue
        body = bodies.get(event.function)
        if body is None:
            continue
        node = functions.get(body.line) if body.line else tree
        if node is None:
            continue
        if id(node) not in selects:
            selects[id(node)] = _select_calls(node)
        chosen = _selected_before(node, selects[id(node)], event.place.line)
        if chosen is not None:
            event.detail["device"] = ast.unparse(chosen)


def _select_calls(function: ast.AST) -> List[ast.Call]:
    """The function's own ``select_device(x)`` calls whose device is not a literal (not those of
    functions nested in it)."""
    found = []
    stack = list(child_nodes(function))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Call) and _name(node.func) in _SELECTS and node.args and not isinstance(
                node.args[0], ast.Constant):
            found.append(node)
        stack.extend(child_nodes(node))
    return found


def _selected_before(function: ast.AST, calls: List[ast.Call], line: int) -> Optional[ast.expr]:
    """The device of the last select call before ``line`` whose block holds ``line`` too."""
    chosen, at = None, 0
    for call in calls:
        if call.lineno >= line or call.lineno < at:
            continue
        block = _block_of(function, call)
        if block is not None and any(s.lineno <= line <= (s.end_lineno or s.lineno) for s in block):
            chosen, at = call.args[0], call.lineno
    return chosen


def _block_of(function: ast.AST, call: ast.Call) -> Optional[List[ast.stmt]]:
    """The statement list whose statement holds ``call``."""
    for node in walk_nodes(function):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and any(
                    isinstance(s, ast.stmt) and s.lineno <= call.lineno <= (s.end_lineno or s.lineno) and any(
                        sub is call for sub in walk_nodes(s)) for s in block):
                inner = [s for s in block if isinstance(s, ast.stmt) and any(sub is call for sub in walk_nodes(s))]
                if inner and not _holds_deeper(inner[0], call):
                    return block
    return None


def _holds_deeper(statement: ast.stmt, call: ast.Call) -> bool:
    """Whether ``call`` sits in a block nested inside ``statement`` (not in its own expressions)."""
    for field in ("body", "orelse", "finalbody", "handlers"):
        for part in getattr(statement, field, None) or ():
            if any(sub is call for sub in walk_nodes(part)):
                return True
    return False


def _name(func: ast.expr) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""
