"""Whether the host reads what a blocking copy brings back on the same iteration: the copy's
result (a name or ``self.<attr>`` it assigns, the array ``d.copy_to_host(out)`` fills) read
later in its loop's body (or, in a function with no loop of its own, later in the function and
then after its call in the caller's loop), directly, as a call's argument, or by a method of the
class called there; stored into an attribute of a container's items (``for i, b in
enumerate(self.bodies): b.acc = a[i]``), read where the region reads that attribute of those
items or calls a method on them (``for b in self.bodies: b.step(dt)``). Storing it whole or in part into another array (``hist[i] = x``,
``self.out[:, 0] = x``, ``hist.append(x)``) is not a read: that array is followed instead, so a copy kept for later
(a history read after the loop) is still a copy nothing reads. Syntax only.
"""

from __future__ import annotations

import ast
from typing import Dict, Iterator, List, Optional, Set, Tuple

_ASSIGNS = (ast.Assign, ast.AnnAssign, ast.AugAssign)
_KEEPS = ("append", "extend", "insert", "appendleft")  # a list's methods that keep a value for later
# conversions and views: what comes of them is the copy again, stored or read later as it is
_VIEWS = ("asarray", "array", "ascontiguousarray", "copy", "astype", "reshape", "ravel", "flatten", "squeeze",
          "transpose", "T", "view", "list", "tuple")
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_MODULES = ("np", "numpy", "cp", "cupy")  # `np.asarray(x)`: a call of the module, on its argument
RETURNED = "<return>"  # among what carries a copy's value: the function returns it
MAX_METHOD_DEPTH = 2  # methods calling methods, followed for the attributes they read


def copy_outputs(statement: ast.stmt, line: int) -> Set[str]:
    """What the copy on ``line`` of ``statement`` fills: the names and ``self.<attr>`` it is
    assigned to, and the array a ``copy_to_host(out)`` writes into."""
    found: Set[str] = set()
    if isinstance(statement, _ASSIGNS):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        for target in targets:
            found |= _stored(target)
    for node in ast.walk(statement):
        if isinstance(node, ast.Call) and getattr(node, "lineno", 0) == line and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "copy_to_host":
            out = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "ary"), None)
            if out is not None:
                found |= _stored(out)
        # `self.history.append(d.copy_to_host())`: the list keeps the copy, so the list is followed
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _KEEPS and any(
                _is_copy_at(a, line) for a in node.args):
            found |= _stored(node.func.value)
    return found


def _is_copy_at(argument: ast.expr, line: int) -> bool:
    """``argument`` is, through views (``.astype(...)``, ``np.asarray(...)``), the copy on ``line``."""
    while isinstance(argument, ast.Call):
        if isinstance(argument.func, ast.Attribute) and argument.func.attr == "copy_to_host":
            return argument.lineno == line
        if not _passes(argument):
            return False
        func = argument.func
        if isinstance(func, ast.Attribute) and not (isinstance(func.value, ast.Name) and func.value.id in _MODULES):
            argument = func.value  # `x.astype(np.uint8)`: the array is the object
        elif argument.args:
            argument = argument.args[0]  # `np.asarray(x)`
        else:
            return False
    return False


def computed_with(statement: ast.stmt, line: int, column: int) -> bool:
    """Whether the statement updates host state by computing with the copy at ``line``/``column``
    itself: ``loss += f(d.copy_to_host(), y)``, ``w = w - lr * d.copy_to_host()``, the copy an
    operand, a call's argument or a method's object and no list keeping what comes of it. A
    value only shown (``ax.set_title(...)``) or assigned (``m = d.copy_to_host().max()``: its
    name is followed) is left to what reads it later."""
    if not (isinstance(statement, ast.AugAssign) or isinstance(statement, ast.Assign) and isinstance(
            statement.value, ast.BinOp) and _stored_all(statement.targets) & _names_in(statement.value)):
        return False
    parents: Dict[int, ast.AST] = {}
    copy = None
    for node in ast.walk(statement):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
        if isinstance(node, ast.Call) and node.lineno == line and node.col_offset + 1 == column:
            copy = node
    if copy is None or isinstance(statement, (ast.If, ast.While, ast.Assert)):
        return False  # not found, or a test: what decides is another fact
    computed = False
    node = copy
    while id(node) in parents and parents[id(node)] is not statement:
        parent = parents[id(node)]
        if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute) and parent.func.attr in _KEEPS:
            return False
        if isinstance(parent, (ast.BinOp, ast.UnaryOp, ast.Compare)) or isinstance(parent, ast.Call) and not _passes(
                parent) or isinstance(parent, ast.Attribute) and parent.attr not in _VIEWS and isinstance(
                parents.get(id(parent)), ast.Call) and not _passes(parents[id(parent)]):
            computed = True
        node = parent
    return computed


def handed_on(statement: ast.stmt, line: int, column: int) -> bool:
    """Whether the copy at ``line``/``column`` is, as it is (through views), an argument of a
    call made for its effect alone (a statement of its own: ``np.save(path, d.copy_to_host())``,
    ``frames.put(d.copy_to_host())`` for the thread that shows it): the host reads the value
    there. A list's ``append`` keeps it for later instead (not a read)."""
    if not isinstance(statement, (ast.Expr, ast.Return)):
        return False
    # `return ax.imshow(d.copy_to_host()),`: a frame callback handing what it drew to its driver
    value = statement.value
    calls = [c for c in (value.elts if isinstance(value, ast.Tuple) else [value]) if isinstance(c, ast.Call)]
    return any(_hands(call, line, column) for call in calls)


def _hands(call: ast.Call, line: int, column: int) -> bool:
    if isinstance(call.func, ast.Attribute) and call.func.attr in _KEEPS:
        return False
    arguments = list(call.args) + [k.value for k in call.keywords]
    # `frames.put((t, d.copy_to_host()))`: a tuple or list of values handed on together
    arguments += [e for a in arguments if isinstance(a, (ast.Tuple, ast.List)) for e in a.elts]
    for argument in arguments:
        while isinstance(argument, ast.Call) and _passes(argument) and isinstance(argument.func, ast.Attribute) \
                and getattr(argument.func.value, "lineno", 0) == line:
            argument = argument.func.value  # `d.copy_to_host().ravel()`: the copy itself
        if isinstance(argument, ast.Call) and argument.lineno == line and argument.col_offset + 1 == column:
            return True
    return False


# reductions of an array to a count or a total: what a kernel (or an atomic add) does on the device
_REDUCTIONS = ("sum", "nansum", "count_nonzero")


def deferred_total(region: List[ast.stmt], statement: ast.stmt, line: int, column: int) -> str:
    """The accumulator a copy's only use adds a reduction of it to, where the loop (``region``,
    its body) reads that accumulator nowhere else: ``total += np.sum(d.copy_to_host())``, or
    ``spikes = d.copy_to_host()`` read only by ``total += np.sum(spikes)``. The host needs the
    total after the loop, not the copy on this iteration: the count can be kept on the device
    and read once. Gives the accumulator's name, or ""."""
    if _total_of_copy(statement, line, column):
        total = _accumulator(statement)
    else:
        outputs = copy_outputs(statement, line)
        if not (isinstance(statement, ast.Assign) and len(outputs) == 1 and all(
                isinstance(t, ast.Name) for t in statement.targets)):
            return ""
        copy = next(iter(outputs))
        uses = [item for item in _flat(region) if item is not statement and _mentions(item, {copy})]
        if not uses or not all(isinstance(u, ast.AugAssign) and _reduces(u.value, lambda n: (
                isinstance(n, ast.Name) and n.id == copy)) for u in uses):
            return ""
        totals = {_accumulator(u) for u in uses}
        total = totals.pop() if len(totals) == 1 else ""
    if not total:
        return ""
    for item in _flat(region):
        if isinstance(item, ast.AugAssign) and _accumulator(item) == total:
            if _mentions(item.value, {total}):
                return ""
            continue
        if _mentions(item, {total}) or isinstance(item, _ASSIGNS) and total in _stored_all(
                item.targets if isinstance(item, ast.Assign) else [item.target]):
            return ""  # read (printed, tested, passed on) or reset in the loop: the iteration uses it
    return total


def _accumulator(statement: ast.stmt) -> str:
    """``total`` of ``total += ...`` (a name or ``self.<attr>``), or ""."""
    if isinstance(statement, ast.AugAssign) and isinstance(statement.op, ast.Add):
        return _text(statement.target) or ""
    return ""


def _total_of_copy(statement: ast.stmt, line: int, column: int) -> bool:
    """``total += np.sum(d.copy_to_host())`` (or ``.sum()`` of the copy) with the copy at ``line``/``column``."""
    return isinstance(statement, ast.AugAssign) and isinstance(statement.op, ast.Add) and _reduces(
        statement.value, lambda n: isinstance(n, ast.Call) and n.lineno == line and n.col_offset + 1 == column)


def _reduces(value: ast.expr, is_copy) -> bool:
    """Whether ``value`` is a reduction (``np.sum(x)``, ``x.sum()``, ``int(...)`` of one) of what
    ``is_copy`` accepts, seen through views."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in (
            "int", "float") and len(value.args) == 1:
        value = value.args[0]
    if not isinstance(value, ast.Call):
        return False
    name = value.func.attr if isinstance(value.func, ast.Attribute) else value.func.id if isinstance(
        value.func, ast.Name) else ""
    if name not in _REDUCTIONS:
        return False
    if value.args:
        subject = value.args[0]  # `np.sum(x)`, `sum(x)`
    elif isinstance(value.func, ast.Attribute):
        subject = value.func.value  # `x.sum()`
    else:
        return False
    while isinstance(subject, ast.Call) and _passes(subject) and isinstance(subject.func, ast.Attribute):
        subject = subject.func.value  # `x.ravel().sum()`
    return bool(is_copy(subject))


def _stored_all(targets: List[ast.expr]) -> Set[str]:
    return {name for target in targets for name in _stored(target)}


def _names_in(node: ast.AST) -> Set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | {
        t for n in ast.walk(node) if isinstance(n, ast.Attribute) for t in [_text(n)] if t}


def _passes(call: ast.Call) -> bool:
    """A conversion or a view that hands the same values on (``np.asarray(x)``, ``x.reshape(n)``)."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return name in _VIEWS


def read_after(region: List[ast.stmt], after: int, tracked: Set[str],
               methods: Dict[str, ast.AST]) -> Tuple[bool, Set[str]]:
    """Whether the statements of ``region`` that start after line ``after`` read one of
    ``tracked`` (names, ``self.<attr>``), and what carries the value at the region's end
    (``tracked`` grown by what the value was stored into); ``methods``: the class's methods by name."""
    tracked = set(tracked)
    items = _iterated(region)
    for item in _flat(region):
        if getattr(item, "lineno", 0) <= after:
            continue
        if _reads(item, tracked, methods, 0, items):
            return True, tracked
    return False, tracked


def _iterated(region: List[ast.stmt]) -> Dict[str, str]:
    """The names ``for`` loops of the region bind to the items of a container, by name:
    ``b`` -> ``self.bodies`` for ``for b in self.bodies`` and ``for i, b in enumerate(self.bodies)``."""
    items: Dict[str, str] = {}
    for node in ast.walk(ast.Module(body=list(region), type_ignores=[])):
        if not isinstance(node, (ast.For, ast.AsyncFor)):
            continue
        source, target = node.iter, node.target
        if isinstance(source, ast.Call) and isinstance(source.func, ast.Name) and source.func.id == "enumerate" \
                and source.args and isinstance(target, ast.Tuple) and len(target.elts) == 2:
            source, target = source.args[0], target.elts[1]
        container = _text(source)
        if container and isinstance(target, ast.Name):
            items[target.id] = container
    return items


def _into_items(target: ast.expr, items: Dict[str, str]) -> Set[str]:
    """What storing into an attribute of a container's item (``b.acc = a[i]`` in ``for i, b in
    enumerate(self.bodies)``) makes carry the value: that attribute, and each method called,
    on the items of every loop of the region over the same container (``body.acc``,
    ``body.()`` for ``for body in self.bodies: body.update(dt)``)."""
    if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id in items):
        return set()
    container = items[target.value.id]
    return {f"{name}{suffix}" for name, held in items.items() if held == container
            for suffix in (f".{target.attr}", ".()")}


def _reads(item: ast.AST, tracked: Set[str], methods: Dict[str, ast.AST], depth: int,
           items: Optional[Dict[str, str]] = None) -> bool:
    """Whether one flat item (a simple statement, or a compound statement's header expression)
    reads ``tracked``; an assignment of a tracked value adds its targets to ``tracked``."""
    if isinstance(item, ast.Return):
        if item.value is not None and _called_with(item.value, tracked, methods, depth):
            return True  # `return ax.imshow(image),`: read by the call, whatever the caller does
        if item.value is not None and _mentions(item.value, tracked):
            tracked.add(RETURNED)  # given back to the caller: its reading decides
        return False
    if isinstance(item, ast.Expr) and isinstance(item.value, ast.Call) and isinstance(item.value.func, ast.Attribute) \
            and item.value.func.attr in _KEEPS and not _mentions(item.value.func.value, tracked):
        call = item.value
        if any(_mentions(a, tracked) for a in call.args):
            tracked |= _stored(call.func.value)  # `history.append(x.mean())`: kept for later, like `hist[i] = x`
        return False
    if isinstance(item, _ASSIGNS):
        value = item.value
        if value is None:
            return False
        if _mentions(value, tracked) and not _called_with(value, tracked, methods, depth):
            # stored, not read: `y = x`, `hist[i] = x`, `self.out[:, 0] = x[:n]`
            targets = item.targets if isinstance(item, ast.Assign) else [item.target]
            for target in targets:
                tracked |= _stored(target) | _into_items(target, items or {})
            return False
        return _called_with(value, tracked, methods, depth)
    return _mentions(item, tracked) or _self_call_reads(item, tracked, methods, depth)


def _called_with(node: ast.AST, tracked: Set[str], methods: Dict[str, ast.AST], depth: int) -> bool:
    """A call in ``node`` that reads ``tracked``: as an argument, or a method of the class reading it."""
    for call in ast.walk(node):
        if isinstance(call, ast.Call) and (
                any(_mentions(a, tracked) for a in list(call.args) + [k.value for k in call.keywords])
                or _method_reads(call, tracked, methods, depth)):
            return True
    return False


def _self_call_reads(node: ast.AST, tracked: Set[str], methods: Dict[str, ast.AST], depth: int) -> bool:
    return any(isinstance(call, ast.Call) and _method_reads(call, tracked, methods, depth) for call in ast.walk(node))


def _method_reads(call: ast.Call, tracked: Set[str], methods: Dict[str, ast.AST], depth: int) -> bool:
    """``self.m(...)``, ``m`` a method of the class, reading one of the tracked ``self.<attr>``."""
    func = call.func
    attrs = {t for t in tracked if t.startswith("self.")}
    if not attrs or depth >= MAX_METHOD_DEPTH or not (
            isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"):
        return False
    method = methods.get(func.attr)
    if method is None:
        return False
    inside = set(attrs)
    found = any(_reads(item, inside, methods, depth + 1) for item in _flat(method.body))
    # `self.current = self.next.copy()` in the method: that attribute carries the value on
    tracked |= {t for t in inside if t.startswith("self.")}
    return found


def _flat(body: List[ast.stmt]) -> Iterator[ast.AST]:
    """The simple statements of a body in the order they are written, each compound
    statement's header expressions (test, iterable, context managers) before its bodies."""
    for statement in body:
        if isinstance(statement, _SCOPES):
            continue
        if isinstance(statement, (ast.If, ast.While)):
            yield statement.test
        elif isinstance(statement, (ast.For, ast.AsyncFor)):
            yield statement.iter
        elif isinstance(statement, (ast.With, ast.AsyncWith)):
            yield from (item.context_expr for item in statement.items)
        elif not isinstance(statement, ast.Try):
            yield statement
            continue
        for field in ("body", "orelse", "handlers", "finalbody"):
            for part in getattr(statement, field, ()):
                yield from _flat(part.body if isinstance(part, ast.ExceptHandler) else [part])


def _mentions(node: ast.AST, tracked: Set[str]) -> bool:
    """``node`` reads a tracked name or ``self.<attr>`` (an assignment's targets are not reads)."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load) and sub.id in tracked:
            return True
        if isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Load) and _text(sub) in tracked:
            return True
        # an item of a container the value was stored into (`_into_items`): its attribute read, or
        # a method of its own called (`body.update(dt)`, whose object holds the value)
        if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and isinstance(sub.ctx, ast.Load) and (
                f"{sub.value.id}.{sub.attr}" in tracked):
            return True
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and isinstance(
                sub.func.value, ast.Name) and sub.func.attr not in _KEEPS and f"{sub.func.value.id}.()" in tracked:
            return True
    return False


def _stored(target: ast.expr) -> Set[str]:
    """The names and ``self.<attr>`` an assignment target stores into (the array of a subscript)."""
    while isinstance(target, (ast.Subscript, ast.Starred)):
        target = target.value
    if isinstance(target, (ast.Tuple, ast.List)):
        return {n for e in target.elts for n in _stored(e)}
    text = _text(target)
    return {text} if text else set()


def _text(node: ast.expr) -> Optional[str]:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return f"self.{node.attr}"
    return None
