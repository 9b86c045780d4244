"""Where code branches: what an ``if`` test tells of names on each of its sides (``x is None``,
``mode == 'E'``, ``isinstance(x, Grid)``, a side that cannot run, a block that never goes on),
the flag it tests, the tests above a statement, and what a name holds where two sides, or two
calls, meet. May import ``python.static_types``.
"""

from __future__ import annotations

import ast
from typing import Dict, List, Optional, Tuple

from ..static_types import (NONE, ArrayType, DictType, FunctionRef, Instances, ListType, Maybe, OneOf, ScalarType,
                            StrType, TupleType, TypeReader, appended, classes_of, either_code, either_string, held_code,
                            instance_of)
from ..syntax import FunctionNode


def flag_text(expr: ast.expr) -> Optional[str]:
    """``use_cuda`` or ``self.params.use_cuda`` as written: a flag an ``if`` may test."""
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return None
    return ".".join([expr.id] + parts[::-1])


UNSET = object()


def knowledge(kind) -> int:
    """How much a type says: 0 nothing, 1 a role (an array on the host), 2 a full numba type."""
    if kind is None or kind is UNSET:
        return 0
    return 2 if getattr(kind, "text", None) else 1


def either_type(one, other, both_bind: bool):
    """What a name holds after an ``if`` whose sides leave it ``one`` and ``other``: where
    both sides agree, that; an array that lives on the host on one side and on the GPU on the
    other (``if use_cuda: r = cp...`` / ``else: r = np...``) is an array of unknown place;
    anything else unknown. A name only one side binds keeps that side's value (the code
    after reads it under the same condition, or not at all)."""
    if same_type(one, other) is not None:
        return same_type(one, other)
    if not both_bind:
        return one if one is not None else other
    if isinstance(one, ArrayType) and isinstance(other, ArrayType):
        return ArrayType(one.dtype if one.dtype == other.dtype else None, one.ndim if one.ndim == other.ndim else None,
                         one.layout if one.layout == other.layout else "A", "", "")
    return None


def agreed_type(seen: List[object]):
    """A parameter's type from what its calls pass: the one type every call that says one
    gives, where those are most of the calls (a call passing what reading cannot type, such
    as its own caller's parameter, leaves the others to say it). A Python literal and a
    variable holding one are the same type at run time."""
    known = [kind for kind in seen if kind is not None]
    if not known or 2 * len(known) <= len(seen):
        return None
    agreed = known[0]
    for kind in known[1:]:
        agreed = same_type(agreed, kind)
    return agreed


def same_type(one, other):
    """The type two values of one name or place share: the same type; a Python number and a
    variable holding one of its kind are the same at run time (numba types both alike); two
    strings, a string of either's values; ``None`` and a value, ``Maybe`` that value (a test
    of ``is None`` tells them apart); tuples of different lengths, one of them (``OneOf``).
    None where they differ."""
    if one == other:
        return one
    if isinstance(one, ScalarType) and isinstance(other, ScalarType) and one.dtype == other.dtype:
        return ScalarType(one.dtype, weak=one.weak and other.weak)
    if isinstance(one, FunctionRef) and isinstance(other, FunctionRef):  # `alloc = cuda.pinned_array` / `np.empty`
        return FunctionRef(tuple(sorted(set(one.names) | set(other.names))))
    if isinstance(one, StrType) and isinstance(other, StrType):
        return either_string(one, other)
    if held_code(one) and held_code(other):  # `A if gpu else B`, a class (or a closure) held as a value: either
        return either_code(one, other)
    if classes_of(one) and classes_of(other):  # an object of either project class: its methods run either's
        either = appended(ListType(one), other).item
        return either if isinstance(either, Instances) else None
    tuples = [kind.kinds if isinstance(kind, OneOf) else {kind} for kind in (one, other)]
    if all(isinstance(k, TupleType) and k.named is None for kinds in tuples for k in kinds) and len(
            {len(k.items) for kinds in tuples for k in kinds}) > 1:
        # shapes of different lengths (a 2-D and a 3-D run): unpacking into names picks its own
        return OneOf(frozenset(tuples[0] | tuples[1]))
    if isinstance(one, ListType) and isinstance(other, ListType):  # a list of the items of either
        return appended(one, other.item) if other.item is not None else one
    if (isinstance(one, Maybe) or isinstance(other, Maybe)) and one is not None and other is not None:
        values = [kind.value if isinstance(kind, Maybe) else kind for kind in (one, other)]
        known = [kind for kind in values if kind is not None]
        if len(known) == 2:
            shared = same_type(*known)
            return Maybe(shared) if shared is not None else None
        return Maybe(known[0]) if known else NONE
    return None


def narrowable(expr: ast.expr) -> bool:
    """A name, or an attribute of one (``ps.V``), which an ``if`` test can narrow."""
    return isinstance(expr, ast.Name) or isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name)


def narrowed(test: ast.expr, reader: TypeReader) -> Tuple[Dict[str, object], Dict[str, object]]:
    """What an ``if`` test tells of names, on the side it is true and on the side it is false:
    ``x is None`` / ``is not None`` of a name or attribute (``ps.V``) that may be None;
    ``x in ('E', 'B')`` and ``x == 'E'`` of a string whose values are known (or any string);
    ``type(x) is tuple`` and ``isinstance(x, tuple)`` of a value whose type is known; through
    ``and``, ``or`` and ``not``. A side the test rules out for what a name holds (``type(n) is
    not tuple`` false where ``n`` is an int) is marked ``DEAD``: what it binds never happens."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        when_true, when_false = narrowed(test.operand, reader)
        return when_false, when_true
    if isinstance(test, ast.BoolOp):
        # `a and b` true: both are; `a or b` false: neither is (the other side learns nothing)
        told = [narrowed(value, reader)[0 if isinstance(test.op, ast.And) else 1] for value in test.values]
        merged: Dict[str, object] = {}
        for side in told:
            for name, kind in side.items():
                merged[name] = kind if name not in merged else None
        known = {name: kind for name, kind in merged.items() if kind is not None}
        if any(DEAD in side for side in told):
            known[DEAD] = True
        return (known, {}) if isinstance(test.op, ast.And) else ({}, known)
    typed = type_test(test, reader)
    if typed is not None:
        return typed
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and narrowable(test.left)):
        return {}, {}
    name, op, against = ast.unparse(test.left), test.ops[0], test.comparators[0]
    held = reader.type_of(test.left)
    if isinstance(op, (ast.Is, ast.IsNot)) and isinstance(against, ast.Constant) and against.value is None:
        if not isinstance(held, Maybe):
            # never None: the side where it is never runs
            none = {DEAD: True} if held is not None and knowledge(held) else {}
            return (none, {}) if isinstance(op, ast.Is) else ({}, none)
        # the constant None itself (`timestep=None` passed by every call): the other side never runs
        none, value = {name: NONE}, ({name: held.value} if held.value is not None else {DEAD: True})
        return (none, value) if isinstance(op, ast.Is) else (value, none)
    if isinstance(op, (ast.Eq, ast.NotEq)):
        literals = [against]
    elif isinstance(op, (ast.In, ast.NotIn)) and isinstance(against, (ast.Tuple, ast.List, ast.Set)):
        literals = against.elts
    else:
        return {}, {}
    if not isinstance(held, StrType) or not all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in literals):
        return {}, {}
    listed = frozenset(e.value for e in literals)
    inside = StrType(held.values & listed if held.values else listed)
    outside = {name: StrType(held.values - listed)} if held.values else {}
    return ({name: inside}, outside) if isinstance(op, (ast.Eq, ast.In)) else (outside, {name: inside})


# the key of a side of an `if` that cannot run (`narrowed`)
DEAD = "<dead>"


# what a value of each type is for `type(x) is T` and `isinstance(x, T)`
_PYTHON_TYPES = {"int": (ScalarType,), "float": (ScalarType,), "bool": (ScalarType,), "complex": (ScalarType,),
                 "tuple": (TupleType,), "list": (ListType,), "dict": (DictType,), "str": (StrType,)}


def type_test(test: ast.expr, reader: TypeReader) -> Optional[Tuple[Dict[str, object], Dict[str, object]]]:
    """``type(x) is [not] tuple``, ``isinstance(x, (int, float))`` of a name whose type reading
    knows: the side the test rules out is ``DEAD``; ``isinstance(x, Grid)`` of a class of the
    project: ``x`` an object of it where the test holds; None for any other test."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (
            ast.Is, ast.IsNot, ast.Eq, ast.NotEq)) and isinstance(test.left, ast.Call) and reader.dotted(
            test.left.func) == "builtins.type" and len(test.left.args) == 1:
        subject, names, positive = test.left.args[0], [test.comparators[0]], isinstance(test.ops[0], (ast.Is, ast.Eq))
    elif isinstance(test, ast.Call) and reader.dotted(test.func) == "builtins.isinstance" and len(test.args) == 2:
        subject, positive = test.args[0], True
        names = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
    else:
        return None
    python = [(reader.dotted(n) or "").partition("builtins.")[2] for n in names]
    held = reader.type_of(subject) if narrowable(subject) else None
    array = reader.array_test(test) if not python[0] else None  # `isinstance(a, np.ndarray)` of a known array
    if array is not None:
        true_side, false_side = ({}, {DEAD: True}) if array else ({DEAD: True}, {})
        return (true_side, false_side) if positive else (false_side, true_side)
    if positive and len(names) == 1 and not python[0] and narrowable(subject):
        # `isinstance(self.injector, BallisticBeforePlane)`: an object of that project class there
        made = reader.construct(ast.Call(func=names[0], args=[], keywords=[]))
        return ({ast.unparse(subject): made}, {}) if instance_of(made) is not None else ({}, {})
    if held is None or not knowledge(held) or isinstance(held, Maybe) or not all(p in _PYTHON_TYPES for p in python):
        return {}, {}
    matches = any(isinstance(held, _PYTHON_TYPES[p]) and (not isinstance(held, ScalarType) or _scalar_is(held, p))
                  for p in python)
    true_side, false_side = ({}, {DEAD: True}) if matches else ({DEAD: True}, {})
    return (true_side, false_side) if positive else (false_side, true_side)


def _scalar_is(kind: ScalarType, python: str) -> bool:
    """Whether a number of this dtype is a Python ``int``/``float``/``bool``/``complex``."""
    return {"int": kind.dtype.startswith(("int", "uint")), "float": kind.dtype.startswith("float"),
            "bool": kind.dtype == "boolean", "complex": kind.dtype.startswith("complex")}[python]


def leaves(body: List[ast.stmt]) -> bool:
    """Whether a block never goes on to the statement after it: it ends in ``raise``,
    ``return``, ``continue`` or ``break``, or in an ``if`` both of whose sides do."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, (ast.Raise, ast.Return, ast.Continue, ast.Break)):
        return True
    return isinstance(last, ast.If) and leaves(last.body) and leaves(last.orelse)


def tests_above(function: FunctionNode) -> Dict[int, Tuple[Tuple[ast.expr, bool], ...]]:
    """id of each statement of a function's body under an ``if`` -> the tests above it, each
    with whether it sits in that ``if``'s body (True) or its ``else`` (False)."""
    found: Dict[int, Tuple[Tuple[ast.expr, bool], ...]] = {}

    def walk(body, above):
        for statement in body:
            if above:
                found[id(statement)] = above
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if isinstance(statement, ast.If):
                walk(statement.body, above + ((statement.test, True),))
                walk(statement.orelse, above + ((statement.test, False),))
                continue
            for field_name in ("body", "orelse", "finalbody"):
                walk(getattr(statement, field_name, []), above)
            for handler in getattr(statement, "handlers", []):
                walk(handler.body, above)

    walk(function.body, ())
    return found
