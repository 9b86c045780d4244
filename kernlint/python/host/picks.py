"""Which kernel the code picks, as its syntax says: the item a literal key takes from a literal
dict or list, the attribute ``getattr`` names with a literal, what a method assigns to
``self.<attr>``, and the ``if`` branches around a statement (to tell which bindings of a name
can reach a launch). Syntax only; ``kernels`` resolves what these give. May import
``python.syntax``.
"""

from __future__ import annotations

import ast
from typing import Iterable, List, Optional, Sequence, Tuple

from ..syntax import FunctionNode, walk_nodes

# (if-test, branch) pairs around a statement, as `PyModule` records them for bindings
Conditions = Tuple[Tuple[Optional[ast.expr], bool], ...]


def literal_getattr(call: ast.Call) -> Optional[str]:
    """The name ``getattr(obj, "name")`` takes (no default); None for any other call."""
    if isinstance(call.func, ast.Name) and call.func.id == "getattr" and len(call.args) == 2 and not \
            call.keywords and isinstance(call.args[1], ast.Constant) and isinstance(call.args[1].value, str):
        return call.args[1].value
    return None


def assigned_to_self(method: FunctionNode, receiver: str, attr: str) -> List[ast.expr]:
    """The values ``self.<attr> = value`` (``self.a, self.b = ka, kb``, ``setattr(self, "attr", value)``
    too) assigns in a method."""
    found = []
    for node in walk_nodes(method):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" and len(
                node.args) == 3 and isinstance(node.args[0], ast.Name) and node.args[0].id == receiver and \
                isinstance(node.args[1], ast.Constant) and node.args[1].value == attr:
            found.append(node.args[2])  # `setattr(self, "kernel", collide)`
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            pairs = [(target, node.value)]
            if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple) and len(
                    target.elts) == len(node.value.elts):
                pairs = list(zip(target.elts, node.value.elts))
            for one, value in pairs:
                if isinstance(one, ast.Attribute) and one.attr == attr and isinstance(
                        one.value, ast.Name) and one.value.id == receiver:
                    found.append(value)
    return found


def literal_item(literal: ast.expr, key) -> Optional[ast.expr]:
    """The item ``key`` takes from a literal ``{...}``, ``dict(a=...)``, ``[...]`` or ``(...)``."""
    if isinstance(literal, ast.Dict):
        for name, value in zip(literal.keys, literal.values):
            if isinstance(name, ast.Constant) and name.value == key and type(name.value) is type(key):
                return value
    if isinstance(literal, ast.Call) and isinstance(literal.func, ast.Name) and literal.func.id == "dict" and not \
            literal.args and isinstance(key, str):
        return next((k.value for k in literal.keywords if k.arg == key), None)
    if isinstance(literal, (ast.List, ast.Tuple)) and isinstance(key, int) and not any(
            isinstance(e, ast.Starred) for e in literal.elts) and -len(literal.elts) <= key < len(literal.elts):
        return literal.elts[key]
    return None


def stored_at(nodes: Iterable[ast.AST], name: str, attr: Optional[str], key) -> List[ast.expr]:
    """The values ``name[key] = value`` (``attr``: ``name.attr[key] = value``) stores, among
    ``nodes``, with ``key`` a literal."""
    found = []
    for node in nodes:
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if not (isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant)
                    and target.slice.value == key and type(target.slice.value) is type(key)):
                continue
            holder = target.value
            if attr is not None:
                if not (isinstance(holder, ast.Attribute) and holder.attr == attr):
                    continue
                holder = holder.value
            if isinstance(holder, ast.Name) and holder.id == name:
                found.append(node.value)
    return found


def conditions_at(body: Sequence[ast.stmt], node: ast.AST, conditions: Conditions = ()) -> Conditions:
    """The (if-test, branch) pairs around ``node`` in ``body``, as ``PyModule`` records them
    for bindings (a try's body ``(None, True)``, its handlers ``(None, False)``)."""
    line = node.lineno
    for statement in body:
        if not statement.lineno <= line <= (statement.end_lineno or statement.lineno):
            continue
        if isinstance(statement, ast.If):
            for branch, inner in ((True, statement.body), (False, statement.orelse)):
                if any(s.lineno <= line <= (s.end_lineno or s.lineno) for s in inner):
                    return conditions_at(inner, node, conditions + ((statement.test, branch),))
        elif isinstance(statement, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            parts = [((None, True), statement.body)] + [((None, False), h.body) for h in statement.handlers] + [
                ((None, True), statement.orelse), (None, statement.finalbody)]
            for pair, inner in parts:
                if any(s.lineno <= line <= (s.end_lineno or s.lineno) for s in inner):
                    return conditions_at(inner, node, conditions + ((pair,) if pair else ()))
        elif isinstance(statement, (ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While)):
            inner = statement.body + list(getattr(statement, "orelse", []))
            if any(s.lineno <= line <= (s.end_lineno or s.lineno) for s in inner):
                return conditions_at(inner, node, conditions)
        return conditions
    return conditions


def excluded(bound: Conditions, at: Conditions) -> bool:
    """Whether a binding under ``bound`` is on the other side of an ``if`` the place ``at`` is in."""
    return any(test is not None and test is other and branch != side
               for test, branch in bound for other, side in at)
