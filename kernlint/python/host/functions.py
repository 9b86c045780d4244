"""A function as the host reader sees it from outside: the positional parameters its callers
pass, the name it calls its object, the parameters it shows to be numbers or reads attributes
of, and what its ``return`` statements give together. May import ``python.static_types``.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import Dict, FrozenSet, List, Optional, Set, Tuple

from ..static_types import ArrayType, DictType, ListType, Maybe, TupleType
from ..syntax import FunctionNode, PyModule, Scope, own_nodes, tree_nodes, walk_nodes
from .branches import same_type
from .frames import Frame
from .launches import gpu_compiled


# a parameter annotated with a Python number: its numba type
_ANNOTATED = {"int": "int64", "float": "float64", "bool": "boolean", "complex": "complex128"}
# operators that make a name with a literal int an integer by use (`(n + 255) // 256`)
_INTEGER_OPS = (ast.FloorDiv, ast.Mod, ast.LShift, ast.RShift)


def positional_parameters(function: FunctionNode, outer: Optional[Frame]) -> list:
    """A function's positional parameters as its callers pass them (a method's ``self`` or
    ``cls`` left out); ``outer``: the frame it is defined in."""
    positional = function.args.posonlyargs + function.args.args
    if outer is not None and outer.owner is not None and outer.function is None and positional and not any(
            isinstance(d, ast.Name) and d.id == "staticmethod" for d in function.decorator_list):
        return positional[1:]  # self / cls
    return positional


def receiver_of(function: FunctionNode, outer: Frame) -> Optional[str]:
    """The name a method calls its object (``self``); None for functions, static and class
    methods."""
    if outer.owner is None or outer.function is not None or any(
            isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod") for d in function.decorator_list):
        return None
    positional = function.args.posonlyargs + function.args.args
    return positional[0].arg if positional else None


def call_parameters(function: FunctionNode, outer: Frame) -> Tuple[Tuple[str, ...], str, Tuple[str, ...]]:
    """The parameters a call binds: (the positional ones as callers pass them, the name of its
    ``*args`` or "", every one a keyword may name)."""
    arguments = function.args
    return (tuple(a.arg for a in positional_parameters(function, outer)),
            arguments.vararg.arg if arguments.vararg is not None else "",
            tuple(a.arg for a in arguments.args + arguments.kwonlyargs))


def evident_scalars(function: FunctionNode) -> Dict[str, str]:
    """Parameters the function itself shows to be Python numbers: annotated ``n: int``, or an
    integer by use (``range(n)``, ``(n + 255) // 256``) and never indexed or asked for an
    attribute (so not an array). A size parameter makes ``np.ones(n)`` one-dimensional."""
    arguments = function.args
    names = {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
    found: Dict[str, str] = {}
    for arg in arguments.posonlyargs + arguments.args + arguments.kwonlyargs:
        if isinstance(arg.annotation, ast.Name) and arg.annotation.id in _ANNOTATED:
            found[arg.arg] = _ANNOTATED[arg.annotation.id]
    counted: Set[str] = set()
    containers: Set[str] = set()
    for node in walk_nodes(function):
        if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.value, ast.Name):
            containers.add(node.value.id)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
            counted.update(a.id for a in node.args if isinstance(a, ast.Name))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, _INTEGER_OPS):
            constant = next((side for side in (node.left, node.right) if isinstance(side, ast.Constant)
                             and type(side.value) is int), None)
            if constant is not None:
                other = node.right if constant is node.left else node.left
                counted.update(n.id for n in walk_nodes(other) if isinstance(n, ast.Name))
    for name in (counted & names) - containers:
        found.setdefault(name, "int64")
    return found


def attributes_read(function: FunctionNode) -> Dict[str, FrozenSet[str]]:
    """For each parameter, the attributes the function reads or sets on it (``species.x``,
    ``species.sort_particles(...)``), dunders aside."""
    arguments = function.args
    names = {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
    found: Dict[str, Set[str]] = {}
    for node in walk_nodes(function):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in names \
                and not node.attr.startswith("__"):
            found.setdefault(node.value.id, set()).add(node.attr)
    return {name: frozenset(attrs) for name, attrs in found.items()}


def returned_type(kinds: List[object]):
    """What a function returns, from its ``return`` statements' types: one they all give (an
    array the same but where it lives, of unknown place); a tuple's item that only some of
    them say takes their type, without where it lives (``return n, x`` with ``x`` unknown,
    ``return 0, np.empty(0)`` where nothing was found)."""
    if not kinds:
        return None
    same = kinds[0]
    for kind in kinds[1:]:
        same = same_type(same, kind) if same is not None else None
    if same is not None:
        return same
    if all(isinstance(k, ArrayType) for k in kinds) and len(
            {replace(k, where="", library="") for k in kinds}) == 1:  # `return cupy.empty(...)` / `np.empty(...)`
        return replace(kinds[0], where="", library="")
    tuples = [k for k in kinds if isinstance(k, TupleType)]
    if len(tuples) != len(kinds) or len({len(t.items) for t in tuples}) != 1:
        return None
    items = []
    for column in zip(*(t.items for t in tuples)):
        known = [item for item in column if item is not None]
        if not known or any(item != known[0] for item in known):
            if known and all(isinstance(i, ArrayType) for i in known) and all(
                    replace(i, where="", library="") == replace(known[0], where="", library="") for i in known):
                items.append(replace(known[0], where="", library=""))  # the same array, in different places
                continue
            items.append(None)
            continue
        partial = len(known) < len(column)
        items.append(replace(known[0], where="", library="") if partial and isinstance(known[0], ArrayType)
                     else known[0])
    return TupleType(tuple(items))


def memoized_returns(function: FunctionNode) -> Set[int]:
    """ids of a function's ``return cache[key]`` statements where it fills that cache itself,
    only with values it also returns (``cache[key] = energies`` ... ``return energies``): they
    return what its other returns do."""
    nodes = list(own_nodes(function))
    returned = {n.value.id for n in nodes if isinstance(n, ast.Return) and isinstance(n.value, ast.Name)}
    filled: Dict[str, Set[str]] = {}
    for node in nodes:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                    stored = node.value.id if isinstance(node.value, ast.Name) else ""
                    filled.setdefault(target.value.id, set()).add(stored)
    return {id(node) for node in nodes if isinstance(node, ast.Return) and isinstance(node.value, ast.Subscript)
            and isinstance(node.value.value, ast.Name) and filled.get(node.value.value.id)
            and filled[node.value.value.id] <= returned}


def default_of(function: ast.AST, name: str) -> Optional[ast.expr]:
    """The default value a function's parameter ``name`` has; None where it has none."""
    arguments = function.args
    positional = arguments.posonlyargs + arguments.args
    pairs = list(zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults)) + [
        (arg, default) for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults) if default is not None]
    return next((default for arg, default in pairs if arg.arg == name), None)


def untyped(kind) -> bool:
    """Nothing said of a value's type, or only that it is an array, not of what (``data:
    np.ndarray``, which may be None)."""
    if isinstance(kind, Maybe):
        kind = kind.value
    return kind is None or isinstance(kind, ArrayType) and not kind.dtype


def left_out_side(test: ast.expr, function: Optional[FunctionNode], known: Dict[str, object]) -> Optional[bool]:
    """For ``if data is not None:`` (or ``is None``) on a parameter of ``function`` that defaults
    to None and whose type nothing here says (``untyped``): whether the ``if``'s body is the side
    a call that leaves it out runs (``is None``: True; ``is not None``: False); None for any other
    test. What that side makes (``else: grid = np.zeros(...)``) is what such a call runs with,
    where the given side binds what reading cannot type."""
    if function is None or not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(
            test.ops[0], (ast.Is, ast.IsNot)) and isinstance(test.left, ast.Name) and isinstance(
            test.comparators[0], ast.Constant) and test.comparators[0].value is None):
        return None
    name = test.left.id
    if not untyped(known.get(name)) or not any(arg.arg == name for arg in (
            function.args.posonlyargs + function.args.args + function.args.kwonlyargs)):
        return None
    default = default_of(function, name)
    if not (isinstance(default, ast.Constant) and default.value is None):
        return None
    return isinstance(test.ops[0], ast.Is)


# methods that change a dict's keys or a list's items in place
CONTAINER_CHANGES = frozenset({"update", "pop", "popitem", "setdefault", "clear",
                               "append", "extend", "insert", "remove", "sort", "reverse"})


def changed_containers(function: ast.AST) -> Tuple[FrozenSet[str], FrozenSet[str]]:
    """Names whose dict or list the function (or module) changes otherwise than by storing
    at a literal string key (``state["x"] = v``, read in order): a method that changes it
    (``state.update(...)``, ``parts.insert(0, x)``), an item stored at a computed key (or a
    list's index), added to or deleted; and, apart, names handed to a call (which may change
    a dict's keys; a list's items keep their places but for what a callee rarely does). What
    such a dict holds at each key, or such a list at each index, is not known."""
    changed: Set[str] = set()
    handed: Set[str] = set()
    for node in own_nodes(function):
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute) and node.func.attr in CONTAINER_CHANGES and isinstance(
                    node.func.value, ast.Name):
                changed.add(node.func.value.id)
            handed.update(a.id for a in list(node.args) + [k.value for k in node.keywords] if isinstance(a, ast.Name))
        elif isinstance(node, (ast.Delete, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Delete) else [node.target]
            changed.update(t.value.id for t in targets if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name))
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name) \
                and not (isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
            changed.add(node.value.id)
    return frozenset(changed), frozenset(handed)


def unknown_items(kind, name: str, changes: Tuple[FrozenSet[str], FrozenSet[str]]):
    """``kind`` bound to ``name``, less what ``changes`` (:func:`changed_containers`) leaves
    unknown: a literal dict's keys where it is changed or handed to a call, a list display's
    items where it is changed in place."""
    changed, handed = changes
    if isinstance(kind, DictType) and kind.keys and (name in changed or name in handed):
        return replace(kind, keys=())
    if isinstance(kind, ListType) and kind.items and name in changed:
        return replace(kind, items=())
    return kind


def jitted_only(module: PyModule, function: FunctionNode, called: Set[str]) -> bool:
    """Whether a plain def is device code only: ``cuda.jit(sig)(f)`` makes kernels of it, and
    nothing in its module calls it as a Python function (``called``: the names its module
    calls; a solver's kernels compiled into a dict in ``__init__``: their arithmetic is no host
    code)."""
    return function.name not in called and any(kernel.node is function for kernel in module.kernels)


def names_called(tree: ast.AST) -> Set[str]:
    """The names a module calls as functions (``f(x)``)."""
    return {node.func.id for node in tree_nodes(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}


def returned_closure(function: FunctionNode, module: PyModule) -> str:
    """The name of the function nested in ``function`` (not a kernel; not decorated, or a CUDA
    ufunc: ``@guvectorize(..., target='cuda')``, whose calls launch) that every ``return`` of
    it gives back; "" otherwise."""
    nested = {n.name: n for n in function.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    returns = [n for n in own_nodes(function) if isinstance(n, ast.Return)]
    names = {r.value.id if isinstance(r.value, ast.Name) else None for r in returns}
    if len(names) != 1:
        return ""
    name = names.pop()
    inner = nested.get(name) if name else None
    if inner is None or module.kernel_for(inner) is not None:
        return ""
    if inner.decorator_list and gpu_compiled(inner, module, Scope(module).inner(function)) != "ufunc":
        return ""
    return name


def bound_methods(klass: ast.ClassDef) -> Dict[str, str]:
    """Attributes of ``klass``'s objects that hold one of its own bound methods: attr -> method,
    where the class defines no method of that name and every ``self.<attr> = self.<method>``
    of its methods names the same one (other values, another object's method, do not count)."""
    methods = {f.name for f in klass.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
    held: Dict[str, Set[str]] = {}
    for node in walk_nodes(klass):
        if not isinstance(node, ast.Assign):
            continue
        value = node.value
        if not (isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id == "self"
                and value.attr in methods):
            continue
        for target in node.targets:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and (
                    target.value.id == "self") and target.attr not in methods:
                held.setdefault(target.attr, set()).add(value.attr)
    return {attr: next(iter(names)) for attr, names in held.items() if len(names) == 1}

