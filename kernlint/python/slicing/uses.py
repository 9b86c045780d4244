"""What a function's syntax says about a name it reads (used only as a number, as a flag, as
an array's shape, as a function), and the other syntax questions the slicer asks: the
parameters a nested kernel needs, the calls of a function in its file, annotations, defaults."""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..syntax import FunctionNode, KernelDef, PyModule, Scope, child_nodes, walk_nodes
from .unresolved import STANDIN_VALUE


def _attribute_chains(node: ast.AST, name: str) -> List[List[str]]:
    chains = []
    for sub in walk_nodes(node):
        if isinstance(sub, ast.Attribute):
            parts = []
            current = sub
            while isinstance(current, ast.Attribute):
                parts.append(current.attr)
                current = current.value
            if isinstance(current, ast.Name) and current.id == name:
                chains.append(list(reversed(parts)))
    return chains


def _uses(node: ast.AST, name: str) -> List[Tuple[ast.Name, List[ast.AST]]]:
    """Each load of ``name`` in a function, with its parents (innermost first)."""
    parents: Dict[int, ast.AST] = {}
    for parent in walk_nodes(node):
        for child in child_nodes(parent):
            parents[id(child)] = parent
    uses = []
    for sub in walk_nodes(node):
        if isinstance(sub, ast.Name) and sub.id == name and isinstance(sub.ctx, ast.Load):
            chain = []
            current = parents.get(id(sub))
            while current is not None and current is not node:
                chain.append(current)
                current = parents.get(id(current))
            uses.append((sub, chain))
    return uses


@dataclass(frozen=True)
class _Returns:
    """A stand-in for a function a kernel calls: a device function returning ``value`` (None for
    one called for its effects; a number, an integer (an index), a tuple of numbers it indexes)."""

    value: Any


_SHAPED = ("local.array", "shared.array")  # their first argument (or shape=) is a shape: integers


def _closure_use(module: PyModule, scope: Scope, node: FunctionNode, name: str):
    """What ``node`` does with ``name``, which it closes over: (a stand-in value, what it is)
    where that says a flag, an integer, an array or a number; else a phrase saying what it
    does instead (``"calls it"``)."""
    import numpy

    from ..signatures.inference import closure_use  # what the body shows of a name, as inference reads parameters

    loads = _uses(node, name)
    if not loads:
        return "does not read it itself"
    flag = integer = number = called = returns = False
    ndim = 0
    results: List[str] = []  # the locals a called function's result is bound to
    for use, parents in loads:
        parent = parents[0] if parents else None
        if isinstance(parent, ast.Call) and parent.func is use:
            if len(parents) > 1 and isinstance(parents[1], ast.Expr):
                called = True  # `apply_boundary(r, image, box)`: for its effects
            elif _used_as_number(parent, parents[1:]):
                returns = True  # `d2 = dist_sq(ri, rj, box)`, `if moved(r, r0, skin):`: a number
                bound = parents[1] if len(parents) > 1 and isinstance(parents[1], ast.Assign) else None
                if bound is not None and len(bound.targets) == 1 and isinstance(bound.targets[0], ast.Name):
                    results.append(bound.targets[0].id)  # what the kernel does with it says which
            else:
                return "calls it and uses what it returns as no number"
            continue
        if isinstance(parent, ast.keyword) and parent.arg == "dtype":
            return "makes arrays of it (a dtype)"
        if isinstance(parent, ast.Compare) and all(isinstance(o, ast.Constant) and o.value is None
                                                   for o in [parent.left] + parent.comparators if o is not use):
            continue  # `if action is not None:`: whatever stands in for it is not None
        if isinstance(parent, ast.Attribute):
            if parent.attr not in ("shape", "size", "ndim", "dtype"):
                return f"reads its attribute `{parent.attr}`"
            ndim = max(ndim, 1)
        elif isinstance(parent, ast.Subscript) and parent.value is use:
            depth, inner = 0, use  # `a[i][j]`: two dimensions
            for outer in parents:
                if not (isinstance(outer, ast.Subscript) and outer.value is inner):
                    break
                depth += len(outer.slice.elts) if isinstance(outer.slice, ast.Tuple) else 1
                inner = outer
            ndim = max(ndim, depth)
        elif isinstance(parent, (ast.Subscript, ast.Slice)) or (
                isinstance(parent, ast.Tuple) and len(parents) > 1 and isinstance(parents[1], ast.Subscript)):
            integer = True  # an index
        elif isinstance(parent, (ast.If, ast.While, ast.IfExp)) and parent.test is use or isinstance(
                parent, ast.BoolOp) or isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not):
            flag = True
        else:
            number = True
            shape_of = next((p for p in parents if isinstance(p, ast.Call)), None)
            if shape_of is not None and ast.unparse(shape_of.func).endswith(_SHAPED) and (
                    any(use is a or use in walk_nodes(a) for a in shape_of.args[:1]) or
                    any(k.arg == "shape" and use in walk_nodes(k.value) for k in shape_of.keywords)):
                integer = True
    if called or returns:
        if flag or integer or number or ndim:
            return "calls it and uses it otherwise too"
        kept = [closure_use(node, module, scope, local) for local in results]
        if returns and any(use.array for use in kept):
            if any(use.index for use in kept):
                return "calls it and uses what it returns as an index and as an array"
            # `p = params_of(i, j)` then `p[-1]`: a tuple of numbers, as long as its indices need
            length = max([1] + [_index_needs(node, local) for local in results])
            return _Returns((STANDIN_VALUE,) * length), f"a device function returning a tuple of {length} float64 1.0"
        if returns and any(use.index for use in kept):
            return _Returns(1), "a device function returning int 1"
        if returns:
            return _Returns(STANDIN_VALUE), "a device function returning float64 1.0"
        return _Returns(None), "a device function that does nothing"
    known = closure_use(node, module, scope, name)
    if ndim or known.array:
        ndim = max(ndim, known.ndim, 1)
        dtype = "complex128" if known.complex_elements else known.int_elements if (
            known.int_elements and not known.stored_float) else "float64"
        return numpy.zeros((1,) * ndim, dtype=dtype), f"zeros of {dtype}, {ndim}-dimensional"
    if integer or known.index:
        return 1, "int 1"
    if flag and not number:
        return True, "True"
    return STANDIN_VALUE, "float64 1.0"


def _annotations(node: ast.AST) -> List[ast.expr]:
    found: List[ast.expr] = []
    for sub in walk_nodes(node):
        if isinstance(sub, ast.arg) and sub.annotation is not None:
            found.append(sub.annotation)
        elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)) and sub.returns is not None:
            found.append(sub.returns)
        elif isinstance(sub, ast.AnnAssign):
            found.append(sub.annotation)
    return found


def _annotation_names(node: ast.AST) -> set:
    """Names a function reads only in annotations (of its parameters, its return, its locals)."""
    inside = {id(n) for annotation in _annotations(node) for n in walk_nodes(annotation)}
    annotating = {n.id for annotation in _annotations(node) for n in walk_nodes(annotation) if isinstance(n, ast.Name)}
    elsewhere = {n.id for n in walk_nodes(node) if isinstance(n, ast.Name) and id(n) not in inside}
    return annotating - elsewhere


_MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "popitem", "add",
             "discard", "sort", "reverse", "__setitem__", "__delitem__"}


def _is_container(expr: ast.expr) -> bool:
    """A list, dict or set display or comprehension, or ``list()``/``dict()``/``set()``."""
    return isinstance(expr, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)) or (
        isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in ("list", "dict", "set"))


def _mutated_after(where: ast.AST, name: str, line: int) -> Optional[Tuple[int, str]]:
    """Where a container bound to ``name`` at ``line`` is changed in place after it, in
    ``where`` (``fns.append(x)`` in a loop, ``table[k] = v``, ``xs += [...]``): its line and
    the change. The binding alone then is not the value the program reads. None where
    nothing after it changes it."""
    def is_it(node: ast.AST) -> bool:
        return isinstance(node, ast.Name) and node.id == name

    def walk(node: ast.AST):  # a module's own statements: its functions change it when they run, if ever
        yield node
        for child in child_nodes(node):
            if isinstance(where, ast.Module) and isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                     ast.ClassDef, ast.Lambda)):
                continue
            yield from walk(child)

    for node in walk(where):
        at = getattr(node, "lineno", 0)
        if at <= line:
            continue
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and is_it(node.func.value) \
                and node.func.attr in _MUTATORS:
            return at, f"{name}.{node.func.attr}(...)"
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)) and is_it(node.value):
            return at, f"{name}[...] = ..."
        if isinstance(node, ast.AugAssign) and is_it(node.target):
            return at, f"{name} {type(node.op).__name__.lower()}="
    return None


def _default_names(module_tree: ast.Module, node: FunctionNode) -> List[str]:
    """The globals a module-level def's default values read (``def k(a, xp=np)``): Python
    evaluates them where the def statement runs, so the function's own table omits them. A def
    inside a function or class reads its defaults there, and gets none here."""
    def at_top(body) -> bool:
        for statement in body:
            if statement is node:
                return True
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            if any(at_top(getattr(statement, field, None) or []) for field in ("body", "orelse", "finalbody")) or \
                    any(at_top(handler.body) for handler in getattr(statement, "handlers", [])):
                return True
        return False

    defaults = [d for d in node.args.defaults + node.args.kw_defaults if d is not None]
    if not defaults or not at_top(module_tree.body):
        return []
    bound = {n.id for d in defaults for n in walk_nodes(d) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    bound |= {a.arg for d in defaults for n in walk_nodes(d) if isinstance(n, ast.Lambda) for a in walk_nodes(n.args)
              if isinstance(a, ast.arg)}
    names: List[str] = []
    for default in defaults:
        for found in walk_nodes(default):
            if isinstance(found, ast.Name) and isinstance(found.ctx, ast.Load) and found.id not in bound \
                    and found.id not in names:
                names.append(found.id)
    return names


def _without_annotations(node: FunctionNode) -> FunctionNode:
    """A copy of a def with no annotations on its parameters, its return or its locals."""
    class Strip(ast.NodeTransformer):
        def visit_arg(self, arg):
            arg.annotation = None
            return arg

        def visit_FunctionDef(self, function):
            function.returns = None
            return self.generic_visit(function)

        visit_AsyncFunctionDef = visit_FunctionDef

        def visit_AnnAssign(self, statement):
            if statement.value is None:
                return None  # `x: int` binds nothing
            return ast.copy_location(ast.Assign(targets=[statement.target], value=statement.value), statement)

    stripped = Strip().visit(copy.deepcopy(node))
    return ast.fix_missing_locations(stripped)


def _index_needs(node: FunctionNode, name: str) -> int:
    """How long a tuple ``name`` must be for the constant indices the body reads it at
    (``p[2]``: 3, ``p[-1]``: 1); 1 where it has none."""
    needs = 1
    for sub in walk_nodes(node):
        if isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Name) and sub.value.id == name:
            index = sub.slice
            negative = isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub)
            constant = index.operand if negative else index
            if isinstance(constant, ast.Constant) and type(constant.value) is int:
                needs = max(needs, constant.value if negative else constant.value + 1)
    return needs


def _used_as_number(expr: ast.AST, parents: Sequence[ast.AST]) -> bool:
    """A value a kernel computes with, stores or tests: an operand, what a plain assignment or
    a store binds, a condition, an argument of a call."""
    parent = parents[0] if parents else None
    return _numeric_use(expr, parents) or (
        isinstance(parent, ast.Assign) and not any(isinstance(t, (ast.Tuple, ast.List)) for t in parent.targets)) or (
        isinstance(parent, (ast.If, ast.While, ast.IfExp)) and parent.test is expr) or isinstance(parent, ast.BoolOp) or (
        isinstance(parent, ast.Call) and expr in parent.args)


def _numeric_use(expr: ast.AST, parents: Sequence[ast.AST]) -> bool:
    """An operand of arithmetic or of a comparison."""
    parent = parents[0] if parents else None
    return isinstance(parent, (ast.BinOp, ast.UnaryOp, ast.Compare)) or (
        isinstance(parent, ast.AugAssign) and parent.value is expr)


def _parameters_needed(module: PyModule, node: FunctionNode, scope: Scope, seen=None):
    """Parameters of the enclosing functions a nested def reads, directly or through the
    other defs of those functions it reads (a factory's device functions): (name, function)."""
    seen = set() if seen is None else seen
    if id(node) in seen:
        return []
    seen.add(id(node))
    found = []
    _, frees = module.outside_names(node)
    for name in frees:
        binding, function = scope.lookup(name)
        if binding is None or function is None:
            continue
        if binding.kind in ("param", "loop"):
            if (name, function) not in found:
                found.append((name, function))
        elif binding.kind == "def":
            inner = scope.within(function)
            for pair in _parameters_needed(module, binding.node, inner, seen):
                if pair not in found:
                    found.append(pair)
    return found


def _names_a_type(node: ast.ClassDef) -> bool:
    """A numba type's ``__init__`` (if it has one) only calls its base's with arguments and
    stores its parameters: ``super().__init__(name=f"Interval({dtype})")``, ``self.dtype = dtype``."""
    init = next((item for item in node.body if isinstance(item, ast.FunctionDef) and item.name == "__init__"), None)
    if init is None:
        return True
    simple = (ast.Name, ast.Constant, ast.Attribute, ast.JoinedStr, ast.FormattedValue, ast.Tuple, ast.BinOp,
              ast.Load, ast.operator, ast.keyword, ast.Subscript, ast.Slice)
    for statement in init.body:
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue  # a docstring
        if isinstance(statement, ast.Assign) and all(
                isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
                for t in statement.targets) and all(isinstance(n, simple) for n in walk_nodes(statement.value)):
            continue
        call = statement.value if isinstance(statement, ast.Expr) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "__init__" \
                and all(isinstance(n, simple) or n is call.func.value or (isinstance(call.func.value, ast.Call)
                        and n in (call.func.value, call.func.value.func)) or n is call
                        for n in walk_nodes(call)):
            continue
        return False
    return True


def _changed_in(owner: ast.ClassDef, attr: str) -> bool:
    """Whether a class's methods may change ``self.<attr>``'s value after assigning it:
    ``self.sid[k] = v``, ``self.sid += ...``, ``self.sid.update(...)`` (any method called on it)."""
    def is_it(node: ast.AST) -> bool:
        return isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.value, ast.Name) \
            and node.value.id == "self"

    for node in walk_nodes(owner):
        if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)) \
                and is_it(node.value):
            return True
        if isinstance(node, ast.AugAssign) and (is_it(node.target) or isinstance(
                node.target, (ast.Subscript, ast.Attribute)) and is_it(node.target.value)):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and is_it(node.func.value):
            return True
    return False


def _made_in(kernel: KernelDef) -> Scope:
    """Where a kernel is made: its def's scope, or, for ``cuda.jit(sig)(helper)`` in a function,
    the scope of that call (whose signature may read the function's parameters)."""
    if kernel.nested or kernel.applied is None:
        return kernel.scope
    for arg in list(kernel.jit.args) + list(kernel.jit.keywords.values()):
        if arg.scope.functions:
            return arg.scope
    return kernel.scope


def _calls_of(module: PyModule, function: FunctionNode):
    """Calls of a function in its module: ``make(...)``, and ``self.make(...)`` for methods."""
    for scope_functions, node in _walk_with_scope(module.tree, ()):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if (isinstance(func, ast.Name) and func.id == function.name) or (
                isinstance(func, ast.Attribute) and func.attr == function.name
                and isinstance(func.value, ast.Name) and func.value.id in ("self", "cls")):
            yield node, Scope(module, scope_functions)


def _walk_with_scope(node: ast.AST, functions: Tuple):
    for child in child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield from _walk_with_scope(child, functions + (child,))
        else:
            yield functions, child
            yield from _walk_with_scope(child, functions)


def _defaults(function: FunctionNode) -> Dict[str, ast.expr]:
    arguments = function.args
    positional = arguments.posonlyargs + arguments.args
    found = {a.arg: d for a, d in zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults)}
    found.update({a.arg: d for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None})
    return found


def _statements_in(body) -> List[ast.stmt]:
    """The statements of one scope's body, branches and handlers included, not the bodies
    of the functions and classes it defines."""
    found = []
    for statement in body:
        found.append(statement)
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field_name in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(statement, field_name, None)
            if isinstance(inner, list):
                found.extend(_statements_in(inner))
    return found
