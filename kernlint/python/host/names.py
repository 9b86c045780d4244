"""Names in Python syntax, as the host reader needs them: what a target binds, what an
expression reads (whole, bare through arithmetic, or as an object), what a statement rebinds.
Imports nothing of kernlint."""

from __future__ import annotations

import ast
from typing import List, Optional, Set

from ..syntax import walk_nodes
from .frequency.syntax import capture_read


def target_names(target: ast.AST) -> List[str]:
    return [n.id for n in walk_nodes(target) if isinstance(n, ast.Name)]


def names_read(expr: ast.AST) -> List[str]:
    return [n.id for n in walk_nodes(expr) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]


def whole_targets(target: ast.AST) -> Set[str]:
    """What an assignment target rebinds as a whole: names and ``obj.attr`` (not ``x[i]``,
    which writes into the array ``x`` is bound to)."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
        return {f"{target.value.id}.{target.attr}"}
    if isinstance(target, (ast.Tuple, ast.List)):
        return set().union(*(whole_targets(e) for e in target.elts)) if target.elts else set()
    if isinstance(target, ast.Starred):
        return whole_targets(target.value)
    return set()


def rebinds(node: ast.AST) -> Set[str]:
    """Names and attributes one node rebinds (``setattr(self, "x", ...)`` included)."""
    if isinstance(node, ast.Assign):
        return set().union(*(whole_targets(t) for t in node.targets))
    if isinstance(node, (ast.AnnAssign, ast.For, ast.AsyncFor, ast.comprehension, ast.NamedExpr)):
        return whole_targets(node.target)
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return set().union(*(whole_targets(i.optional_vars) for i in node.items if i.optional_vars is not None))
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr"
            and len(node.args) == 3 and isinstance(node.args[0], ast.Name)
            and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
        return {f"{node.args[0].id}.{node.args[1].value}"}
    return set()


def rebound(body) -> Set[str]:
    """Names and attributes that statements rebind."""
    return set().union(*(rebinds(n) for statement in body for n in walk_nodes(statement)))


def bound_once_at_module(tree: ast.Module) -> Set[str]:
    """The names a module's own code (its top level, ``if __name__ == "__main__":`` blocks
    included) binds exactly once, and no function rebinds through ``global``: whenever a
    function of the module runs after that binding, the name holds that one value's type."""
    counts: dict = {}
    declared: Set[str] = set()
    pending = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            counts[getattr(node, "name", "")] = 2 if getattr(node, "name", "") in counts else 1
            declared.update(n for sub in walk_nodes(node) if isinstance(sub, ast.Global) for n in sub.names)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                name = (alias.asname or alias.name).split(".")[0]
                counts[name] = counts.get(name, 0) + 1
        elif isinstance(node, ast.AugAssign):
            for name in whole_targets(node.target):
                counts[name] = 2
        else:
            for name in rebinds(node):
                counts[name] = counts.get(name, 0) + 1
        pending.extend(child for child in ast.iter_child_nodes(node) if isinstance(child, (ast.stmt, ast.expr,
                                                                                           ast.excepthandler)))
    return {name for name, count in counts.items() if count == 1 and "." not in name} - declared


def bare_names(expr: ast.AST) -> Set[str]:
    """Names an expression is made of through arithmetic and tuples alone (``n``, ``2 * n``,
    ``(n, m)``), not read through an attribute, an index or a call (``frame.size``)."""
    if isinstance(expr, ast.Name):
        return {expr.id}
    if isinstance(expr, ast.BinOp):
        return bare_names(expr.left) | bare_names(expr.right)
    if isinstance(expr, ast.UnaryOp):
        return bare_names(expr.operand)
    if isinstance(expr, (ast.Tuple, ast.List)):
        return set().union(*(bare_names(e) for e in expr.elts)) if expr.elts else set()
    return set()


def names_in(expr: ast.AST) -> Set[str]:
    return {n.id for n in walk_nodes(expr) if isinstance(n, ast.Name)}


def element_reads(expr: Optional[ast.AST]) -> Set[str]:
    """Names a size reads as a whole object (``frame.size``, ``frame.shape[0]``, ``len(frame)``,
    ``frame[0]``), not as an index into something else (``table[i]``)."""
    found: Set[str] = set()
    for sub in walk_nodes(expr) if expr is not None else ():
        if isinstance(sub, (ast.Attribute, ast.Subscript)) and isinstance(sub.value, ast.Name):
            found.add(sub.value.id)
        elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id == "len":
            found.update(a.id for a in sub.args if isinstance(a, ast.Name))
    return found


def shaped_like(call: ast.AST) -> str:
    """The name whose shape an allocation takes (``cuda.device_array(u.shape, ...)``,
    ``cuda.device_array_like(u)``, ``np.zeros_like(u)``), or ""."""
    if not isinstance(call, ast.Call) or not call.args:
        return ""
    first = call.args[0]
    if isinstance(first, ast.Attribute) and first.attr == "shape" and isinstance(first.value, ast.Name):
        return first.value.id
    name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
    if name.endswith("_like") and isinstance(first, ast.Name):
        return first.id
    return ""


def steady_shapes(body) -> Set[str]:
    """The names a loop's body rebinds only to arrays allocated in their own shape, directly
    or through a name the body binds only to such allocations (``u_new =
    cuda.device_array(u_old.shape)`` ... ``u_old = u_new``): each keeps its shape from one
    iteration to the next."""
    values: dict = {}
    for statement in body:
        for node in walk_nodes(statement):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        values.setdefault(target.id, []).append(node.value)
                    else:
                        for name in whole_targets(target):
                            values.setdefault(name, []).append(None)  # unpacked, swapped: not followed
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.comprehension,
                                   ast.NamedExpr, ast.With, ast.AsyncWith)):
                for name in rebinds(node) if not isinstance(node, ast.AugAssign) else whole_targets(node.target):
                    values.setdefault(name, []).append(None)

    def shaped(value, name: str) -> bool:
        if isinstance(value, ast.Name):
            return bool(values.get(value.id)) and all(shaped_like(v) == name for v in values[value.id])
        return shaped_like(value) == name

    return {name for name, assigned in values.items() if all(v is not None and shaped(v, name) for v in assigned)}


def indexed_items(body, variables: Set[str]) -> Set[str]:
    """The names a loop's body binds only to an item its variables index whole (``row = X[k]``,
    ``col = grid[:, k]`` in ``for k in range(n)``, and bound nowhere else in it)."""
    return set(indexed_item_values(body, variables))


def indexed_item_values(body, variables: Set[str]) -> dict:
    """:func:`indexed_items`, each with the item it stands for. Also an item of a part of the data
    picked by a constant (``xs, ys = data[0][k], data[1][k]``: one name per item, the value
    unpacked in step), and an item rebound to its own upload (``ys = cuda.to_device(ys)``: the same
    item, sent)."""
    values: dict = {}
    for statement in body:
        for node in walk_nodes(statement):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        if not _uploads_itself(node.value, target.id):
                            values.setdefault(target.id, []).append(node.value)
                    elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(node.value, (ast.Tuple, ast.List)) \
                            and len(target.elts) == len(node.value.elts):
                        for element, value in zip(target.elts, node.value.elts):
                            for name in (target_names(element) if not isinstance(element, ast.Name) else [element.id]):
                                values.setdefault(name, []).append(value if isinstance(element, ast.Name) else None)
                    else:
                        for name in target_names(target):
                            values.setdefault(name, []).append(None)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.comprehension,
                                   ast.NamedExpr, ast.With, ast.AsyncWith)):
                for name in rebinds(node) if not isinstance(node, ast.AugAssign) else whole_targets(node.target):
                    values.setdefault(name, []).append(None)

    def item(value) -> bool:
        value = _same_shape_source(value)  # `cuda.to_device(X[k])`: the item, uploaded
        if not isinstance(value, ast.Subscript):
            return False
        data = value.value
        if isinstance(data, ast.Subscript) and isinstance(data.slice, ast.Constant):
            data = data.value  # `data[1][k]`: the item of a part picked by a constant
        if not isinstance(data, (ast.Name, ast.Attribute)):
            return False
        index = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
        whole = [i for i in index if isinstance(i, ast.Name)]
        return len(whole) == 1 and whole[0].id in variables and all(
            isinstance(i, ast.Name) or isinstance(i, ast.Slice) and i.lower is i.upper is i.step is None for i in index)

    return {name: assigned[0] for name, assigned in values.items() if len(assigned) == 1 and item(assigned[0])}


def _uploads_itself(value: ast.AST, name: str) -> bool:
    """``ys = cuda.to_device(ys)``: a name rebound to its own upload (or cast)."""
    source = _same_shape_source(value)
    return source is not value and isinstance(source, ast.Name) and source.id == name


def captured_frames(body) -> Set[str]:
    """The names a loop's body binds only to the image a capture reads (``ok, frame =
    capture.read()``, OpenCV's success flag and image, the capture not rebound in the body):
    the element of a frame loop, each frame the size of the last."""
    values: dict = {}
    for statement in body:
        for node in walk_nodes(statement):
            if isinstance(node, ast.Assign):
                for target in node.targets:  # (`frame[y0:y1] = ...` writes into the frame: no rebinding)
                    for name in whole_targets(target):
                        values.setdefault(name, []).append((target, node.value))
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.comprehension,
                                   ast.NamedExpr, ast.With, ast.AsyncWith)):
                for name in rebinds(node) if not isinstance(node, ast.AugAssign) else whole_targets(node.target):
                    values.setdefault(name, []).append((None, None))
    rebound = {name.split(".")[0] for name in values}

    def image(name: str, target, value) -> bool:
        capture = capture_read(target, value)
        if capture is None or not (isinstance(target.elts[1], ast.Name) and target.elts[1].id == name):
            return False
        while isinstance(capture, ast.Attribute):
            capture = capture.value
        return isinstance(capture, ast.Name) and capture.id not in rebound

    return {name for name, bound in values.items() if all(image(name, t, v) for t, v in bound)}


# functions that make an array of their first argument's shape (an upload, a copy), and methods
# that give one of their object's shape (a copy, a cast)
_SAME_SHAPE_FUNCTIONS = frozenset({"to_device", "asarray", "ascontiguousarray", "array", "copy"})
_SAME_SHAPE_METHODS = frozenset({"copy", "astype"})


def _same_shape_source(value: ast.AST) -> ast.AST:
    """What an array made in the shape of another is made from, through uploads, copies and
    casts (``cuda.to_device(X[k])``, ``X[k].astype(np.float32)``): ``X[k]``; else ``value``."""
    while isinstance(value, ast.Call):
        func = value.func
        if isinstance(func, ast.Attribute) and func.attr in _SAME_SHAPE_METHODS and isinstance(
                func.value, ast.Subscript):
            value = func.value
        elif (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")) in _SAME_SHAPE_FUNCTIONS \
                and value.args and not isinstance(value.args[0], ast.Starred):
            value = value.args[0]
        else:
            break
    return value


# what allocates an array of a shape it is given, or of the shape of an array it is given (`_like`)
_SHAPED_ALLOCATIONS = frozenset({"device_array", "pinned_array", "mapped_array", "managed_array", "empty", "zeros",
                                 "ones", "full"})
_LIKE_ALLOCATIONS = frozenset({"device_array_like", "pinned_array_like", "mapped_array_like", "empty_like",
                               "zeros_like", "ones_like", "full_like"})


def fixed_shapes(body) -> Set[str]:
    """The names a loop's body binds only to arrays it allocates in a shape that is the same on
    every iteration: a shape of literals and of names the body does not rebind (``sum_ =
    cuda.device_array(1)``, ``x_1 = cuda.device_array((batch, 32))``), or made like such an
    array or like one the body does not rebind (``mse = cuda.device_array_like(sum_)``)."""
    values: dict = {}
    for statement in body:
        for node in walk_nodes(statement):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                values.setdefault(node.targets[0].id, []).append(node.value)
            else:
                for name in rebinds(node) if not isinstance(node, ast.AugAssign) else whole_targets(node.target):
                    values.setdefault(name, []).append(None)
    rebound_here = set(values)

    def invariant(expr: ast.AST) -> bool:
        """Literals, names the body leaves alone, their ``.shape``/``.size``/``len``, arithmetic."""
        for node in walk_nodes(expr):
            if isinstance(node, ast.Name) and node.id in rebound_here:
                return False
            if isinstance(node, ast.Attribute) and node.attr not in ("shape", "size", "ndim"):
                return False
            if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id == "len"):
                return False
        return True

    fixed: Set[str] = set()

    def allocated_fixed(value) -> bool:
        if not isinstance(value, ast.Call) or not value.args:
            return False
        func = value.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        first = value.args[0]
        if name in _SHAPED_ALLOCATIONS:
            return invariant(first)
        if name in _LIKE_ALLOCATIONS and isinstance(first, ast.Name):
            return first.id in fixed or first.id not in rebound_here
        return False

    changed = True
    while changed:  # names made like other fixed names: until nothing more is added
        changed = False
        for name, assigned in values.items():
            if name not in fixed and all(v is not None and allocated_fixed(v) for v in assigned):
                fixed.add(name)
                changed = True
    return fixed
