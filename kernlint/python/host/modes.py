"""An object's modes: attributes whose types depend on another attribute's value.

A class may store differently typed values in an attribute depending on how it was made
(fbpic's PSATD coefficients are real arrays when ``V is None or V == 0`` and complex ones
otherwise), and the code that launches with them tests the same attribute first
(``if ps.V is None: push_standard[...](ps.d_j_coef, ...)``). Reading the ``__init__`` once per
*world* (one truth value for each such test's parts) gives the attributes' types in each;
a launch takes those of the worlds its own tests allow.

A test is read as a formula over *atoms* of the object's attributes: ``(attr, "None")`` for
``attr is None``, ``(attr, "== 0.0")`` for ``attr == 0``, ``(attr, "true")`` for ``if attr:``;
``not``, ``and`` and ``or`` of them. Any other test is no formula (both of its sides are read).
"""

from __future__ import annotations

import ast
import itertools
from typing import Dict, List, Optional, Tuple

from ..syntax import child_nodes, walk_nodes

Atom = Tuple[str, str]
World = Dict[Atom, bool]

MAX_ATOMS = 3  # an `__init__` is read 8 times at most


def formula(test: ast.expr, subject_of) -> Optional[tuple]:
    """A test as ``("atom", atom)``, ``("not", f)``, ``("and" | "or", (f, ...))``, where
    ``subject_of(expr)`` names the attribute an expression stands for (None: not one)."""
    if isinstance(test, ast.BoolOp):
        parts = tuple(formula(value, subject_of) for value in test.values)
        return None if None in parts else ("and" if isinstance(test.op, ast.And) else "or", parts)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = formula(test.operand, subject_of)
        return None if inner is None else ("not", inner)
    subject = subject_of(test)
    if subject is not None:
        return ("atom", (subject, "true"))
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.comparators[0], ast.Constant)):
        return None
    subject, op, value = subject_of(test.left), test.ops[0], test.comparators[0].value
    if subject is None:
        return None
    if value is None and isinstance(op, (ast.Is, ast.IsNot)):
        atom = ("atom", (subject, "None"))
        return atom if isinstance(op, ast.Is) else ("not", atom)
    if isinstance(op, (ast.Eq, ast.NotEq)) and isinstance(value, (int, float, str)) and not isinstance(value, bool):
        # `V == 0` and `V != 0.` test the same value
        atom = ("atom", (subject, "== " + repr(float(value) if not isinstance(value, str) else value)))
        return atom if isinstance(op, ast.Eq) else ("not", atom)
    return None


def attribute_of(receiver: str, aliases: Dict[str, str] = None):
    """``subject_of`` for tests written on ``receiver.<attr>`` (``self.V``, ``ps.V``), or on a
    parameter the method stores unchanged in one (``self.V = V``, then ``if V is None``)."""
    aliases = aliases or {}

    def subject_of(expr: ast.expr) -> Optional[str]:
        if isinstance(expr, ast.Attribute) and ast.unparse(expr.value) == receiver:
            return expr.attr
        if isinstance(expr, ast.Name):
            return aliases.get(expr.id)
        return None

    return subject_of


def holds(test: tuple, world: World) -> Optional[bool]:
    """Whether a formula holds in a world; None where an atom it needs is not in it."""
    kind = test[0]
    if kind == "atom":
        return world.get(test[1])
    if kind == "not":
        inner = holds(test[1], world)
        return None if inner is None else not inner
    values = [holds(part, world) for part in test[1]]
    if kind == "and":
        return False if False in values else (None if None in values else True)
    return True if True in values else (None if None in values else False)


def atoms(test: tuple, found: List[Atom]) -> List[Atom]:
    """The formula's atoms, added to ``found`` in the order they are written."""
    if test[0] == "atom":
        if test[1] not in found:
            found.append(test[1])
    else:
        for part in (test[1] if test[0] in ("and", "or") else (test[1],)):
            atoms(part, found)
    return found


def worlds(of: List[Atom]) -> List[World]:
    """Every truth assignment of the atoms that one object can have at once: an attribute
    equals one value at most, and one that is None equals none and is false."""
    found = []
    for bits in itertools.product((True, False), repeat=len(of)):
        world = dict(zip(of, bits))
        equal: Dict[str, int] = {}
        for (attr, what), held in world.items():
            if held and what.startswith("=="):
                equal[attr] = equal.get(attr, 0) + 1
        if any(n > 1 for n in equal.values()) or any(
                held and what == "None" and (equal.get(attr) or world.get((attr, "true")))
                for (attr, what), held in world.items()):
            continue
        found.append(world)
    return found


def stored_aliases(function: ast.FunctionDef, receiver: str) -> Dict[str, str]:
    """The parameters a method stores unchanged in its object (``self.V = V`` among its top-level
    statements, and not bound again): parameter -> attribute."""
    parameters = {a.arg for a in function.args.posonlyargs + function.args.args + function.args.kwonlyargs}
    stored: Dict[str, str] = {}
    for statement in function.body:
        if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Name) and (
                statement.value.id in parameters):
            for target in statement.targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and (
                        target.value.id == receiver):
                    stored.setdefault(statement.value.id, target.attr)
    rebound = {node.id for node in walk_nodes(function) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
    return {name: attr for name, attr in stored.items() if name not in rebound}


def tests(function: ast.FunctionDef, subject_of) -> Dict[int, tuple]:
    """id of each ``if`` test of a function (not of functions nested in it) -> its formula,
    in the order they are written."""
    ifs = []
    stack = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.If):
            ifs.append(node)
        stack.extend(child_nodes(node))
    found: Dict[int, tuple] = {}
    for node in sorted(ifs, key=lambda n: (n.lineno, n.col_offset)):
        read = formula(node.test, subject_of)
        if read is not None:
            found[id(node.test)] = read
    return found
