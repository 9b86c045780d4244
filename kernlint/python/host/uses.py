"""Whether the host reads what a blocking copy brings back on the same iteration: the copy's
result (a name or ``self.<attr>`` it assigns, the array ``d.copy_to_host(out)`` fills) read
later in its loop's body (or, in a function with no loop of its own, later in the function and
then after its call in the caller's loop), directly, as a call's argument, or by a method of the
class called there; stored into an attribute of a container's items (``for i, b in
enumerate(self.bodies): b.acc = a[i]``), read where the region reads that attribute of those
items or calls a method on them (``for b in self.bodies: b.step(dt)``). Storing it whole or in part into another array (``hist[i] = x``,
``self.out[:, 0] = x``, ``hist.append(x)``) is not a read: that array is followed instead, so a copy kept for later
(a history read after the loop) is still a copy nothing reads; arithmetic on it stored there
(``centres[j] = sums[j] / counts[j]``) is. A copy whose value the host only
computes with to upload again (``round_trip``) is not read either: the device could compute it.
Syntax only.
"""

from __future__ import annotations

import ast
from typing import Dict, FrozenSet, Iterator, List, Optional, Sequence, Set, Tuple

from ..syntax import child_nodes, walk_nodes

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
    for node in walk_nodes(statement):
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


def kept_in(statement: ast.stmt, line: int) -> Set[str]:
    """The list a statement keeps the copy on ``line`` in (``rows.append(d.copy_to_host())``)."""
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) and isinstance(
            statement.value.func, ast.Attribute) and statement.value.func.attr in _KEEPS):
        return set()
    call = statement.value
    if not any(isinstance(node, ast.Call) and getattr(node, "lineno", 0) == line and isinstance(
            node.func, ast.Attribute) and node.func.attr == "copy_to_host" for a in call.args for node in walk_nodes(a)):
        return set()
    return _stored(call.func.value)


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
    for node in walk_nodes(statement):
        for child in child_nodes(node):
            parents[id(child)] = node
        # (the copy is a call, or one element of a device array read: `d[0]`)
        if isinstance(node, (ast.Call, ast.Subscript)) and node.lineno == line and node.col_offset + 1 == column:
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
        if isinstance(argument, (ast.Call, ast.Subscript)) and argument.lineno == line and \
                argument.col_offset + 1 == column:
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
    return {n.id for n in walk_nodes(node) if isinstance(n, ast.Name)} | {
        t for n in walk_nodes(node) if isinstance(n, ast.Attribute) for t in [_text(n)] if t}


def _passes(call: ast.Call) -> bool:
    """A conversion or a view that hands the same values on (``np.asarray(x)``, ``x.reshape(n)``)."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return name in _VIEWS


def read_after(region: List[ast.stmt], after: int, tracked: Set[str],
               methods: Dict[str, ast.AST], skip: Set[int] = frozenset(),
               wrap: Optional[int] = None) -> Tuple[bool, Set[str]]:
    """Whether the statements of ``region`` that start after line ``after`` read one of
    ``tracked`` (names, ``self.<attr>``), and what carries the value at the region's end
    (``tracked`` grown by what the value was stored into); ``methods``: the class's methods by
    name; ``skip``: the ids of nodes whose reading does not count (what does not run on the
    iteration that made the value: a periodic gate's body, the other arm of an ``if`` around it).
    ``wrap``: ``region`` is a loop's body and the value is made by the statement starting on that
    line; what the next iteration's host code does with it before that statement counts too
    (``population = d_children.copy_to_host()``, scored on the host by ``[score(p) for p in
    population]`` at the top of the next generation; handed back to the statement that made it,
    it goes round, and is not read)."""
    tracked = set(tracked)
    items = _iterated(region)
    for item in _flat(region):
        if getattr(item, "lineno", 0) <= after or id(item) in skip:
            continue
        if _reads(item, tracked, methods, 0, items):
            return True, tracked
    if wrap is not None:
        carried = {t for t in tracked if t != RETURNED}
        for item in _flat(region):
            if not carried or getattr(item, "lineno", 0) >= wrap:
                break
            if id(item) in skip:
                continue
            if _host_reads(item, carried):
                return True, tracked
            carried -= _rebound(item)
    return False, tracked


def _host_reads(node: ast.AST, tracked: Set[str]) -> bool:
    """Whether ``node`` reads a tracked value on the host: a call given it (not an upload, a
    kernel launch or a view), arithmetic or a comparison on it, an iteration over it, an item of
    it. Handing it back to the device (``cuda.to_device(x)``, ``k[g, b](x)``) is a round trip,
    not a read; nor is a copy back into it (``d.copy_to_host(x)``)."""
    for sub in _host_side(node):
        if isinstance(sub, ast.Call):
            if any(_mentions(a, tracked) for a in list(sub.args) + [k.value for k in sub.keywords]):
                return True
        elif isinstance(sub, (ast.BinOp, ast.Compare)) and any(_is_value(o, tracked) for o in _operands(sub)):
            return True
        elif isinstance(sub, ast.comprehension) and _text(sub.iter) in tracked:
            return True
        elif isinstance(sub, ast.Subscript) and isinstance(sub.ctx, ast.Load) and _text(sub.value) in tracked:
            return True
    return False


_DOWNLOADS = ("copy_to_host", "to_host", "get", "copy_to_host_async", "memcpy_dtoh", "memcpy_dtoh_async")


def _host_side(node: ast.AST) -> Iterator[ast.AST]:
    """``node`` and what it holds, leaving out what goes to or comes from the device (a launch,
    an upload, a copy back: their arguments are not read by the host), a list's keeping of a
    value, a view of it, and a lambda's body (run later, if ever)."""
    if isinstance(node, ast.Lambda):
        return
    if isinstance(node, ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if isinstance(func, ast.Subscript) or name in _UPLOADS or name in _DOWNLOADS or name in _KEEPS or \
                _passes(node):
            return
    yield node
    for child in child_nodes(node):
        yield from _host_side(child)


def _rebound(item: ast.AST) -> Set[str]:
    """The names and ``self.<attr>`` an assignment binds anew (not a store into an item of them)."""
    if not isinstance(item, (ast.Assign, ast.AnnAssign)):
        return set()
    targets = item.targets if isinstance(item, ast.Assign) else [item.target]
    found: Set[str] = set()
    for target in targets:
        for element in target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]:
            text = _text(element)
            if text:
                found.add(text)
    return found


def _iterated(region: List[ast.stmt]) -> Dict[str, str]:
    """The names ``for`` loops of the region bind to the items of a container, by name:
    ``b`` -> ``self.bodies`` for ``for b in self.bodies`` and ``for i, b in enumerate(self.bodies)``."""
    items: Dict[str, str] = {}
    for node in walk_nodes(ast.Module(body=list(region), type_ignores=[])):
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
        if any(_self_call_reads(a, tracked, methods, depth) for a in call.args):
            return True  # `history.append({"m": self.magnetisation()})`: the method reads it now
        if any(_worked_on(a, tracked) for a in call.args):
            return True  # `images.append(render(frame))`: `render` reads it now, the list keeps its result
        if any(_mentions(a, tracked) for a in call.args):
            tracked |= _stored(call.func.value)  # `history.append(x.mean())`: kept for later, like `hist[i] = x`
        return False
    if isinstance(item, _ASSIGNS):
        value = item.value
        if value is None:
            return False
        if _computes_with(value, tracked):
            return True  # `centroids[j] = sums[j] / counts[j]`: the host computes with it now
        if _mentions(value, tracked) and not _called_with(value, tracked, methods, depth):
            # stored, not read: `y = x`, `hist[i] = x`, `self.out[:, 0] = x[:n]`
            targets = item.targets if isinstance(item, ast.Assign) else [item.target]
            for target in targets:
                tracked |= _stored(target) | _into_items(target, items or {})
            return False
        return _called_with(value, tracked, methods, depth)
    return _mentions(item, tracked) or _self_call_reads(item, tracked, methods, depth)


# what computes a number or an array from its argument, as the list keeping it would keep the value
_ARITHMETIC_CALLS = ("float", "int", "bool", "abs", "min", "max", "sum", "len", "round", "complex", "list", "tuple",
                     "dict", "str", "repr", "format")


def _worked_on(node: ast.AST, tracked: Set[str]) -> bool:
    """A call in ``node`` given a tracked value that is neither a view nor NumPy's or a builtin's
    arithmetic (``render(frame)``, ``draw(ax, frame)``): a function of the code's own, or another
    library's, that works with the value now."""
    for call in walk_nodes(node):
        if not isinstance(call, ast.Call) or _passes(call) or not any(
                _mentions(a, tracked) for a in list(call.args) + [k.value for k in call.keywords]):
            continue
        func = call.func
        root = func
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(func, ast.Name) and func.id in _ARITHMETIC_CALLS or isinstance(func, ast.Attribute) and (
                isinstance(root, ast.Name) and root.id in _MODULES + ("math",)):
            continue
        return True
    return False


def _computes_with(value: ast.AST, tracked: Set[str]) -> bool:
    """Whether ``value`` is arithmetic on a tracked value (an operand that is it, an item or a
    view of it: ``sums[j] / counts[j]``, ``-x``), not the value itself stored elsewhere."""
    return any(_is_value(o, tracked, items=True) for sub in walk_nodes(value)
               if not isinstance(sub, ast.Compare) for o in _operands(sub))


def _operands(node: ast.AST) -> List[ast.expr]:
    """The operands of arithmetic or a comparison (none for anything else)."""
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.UnaryOp):
        return [node.operand]
    if isinstance(node, ast.Compare):
        return [node.left] + list(node.comparators)
    return []


def _is_value(node: ast.AST, tracked: Set[str], items: bool = False) -> bool:
    """``node`` is a tracked value (with ``items``: also an item or a view of it, ``sums[j]``)."""
    while items and (isinstance(node, ast.Subscript) or isinstance(node, ast.Call) and isinstance(
            node.func, ast.Attribute) and _passes(node)):
        node = node.value if isinstance(node, ast.Subscript) else node.func.value
    return isinstance(node, (ast.Name, ast.Attribute)) and _text(node) in tracked


def _called_with(node: ast.AST, tracked: Set[str], methods: Dict[str, ast.AST], depth: int) -> bool:
    """A call in ``node`` that reads ``tracked``: as an argument, or a method of the class reading it."""
    for call in walk_nodes(node):
        if isinstance(call, ast.Call) and (
                any(_mentions(a, tracked) for a in list(call.args) + [k.value for k in call.keywords])
                or _method_reads(call, tracked, methods, depth)):
            return True
    return False


def _self_call_reads(node: ast.AST, tracked: Set[str], methods: Dict[str, ast.AST], depth: int) -> bool:
    return any(isinstance(call, ast.Call) and _method_reads(call, tracked, methods, depth) for call in walk_nodes(node))


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
    for sub in walk_nodes(node):
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


def receivers(statement: ast.stmt) -> Set[str]:
    """What an assignment statement hands its value to, as ``read_after`` tracks it: names and
    ``self.<attr>`` (``self.spins, self.energies, _ = step()``: not ``self``, whose other
    attributes hold other values), and the object whose attribute another target sets."""
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target] if isinstance(
        statement, (ast.AnnAssign, ast.AugAssign)) else []
    held: Set[str] = set()
    for target in targets:
        for element in target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]:
            stored = _stored(element)
            while not stored and isinstance(element, (ast.Attribute, ast.Subscript, ast.Starred)):
                element = element.value  # `state.spins = ...`: reading `state` reads it
                stored = {element.id} if isinstance(element, ast.Name) else set()
            held |= stored
    return held


def _stored(target: ast.expr) -> Set[str]:
    """The names and ``self.<attr>`` an assignment target stores into (the array of a subscript)."""
    while isinstance(target, (ast.Subscript, ast.Starred)):
        target = target.value
    if isinstance(target, (ast.Tuple, ast.List)):
        return {n for e in target.elts for n in _stored(e)}
    text = _text(target)
    return {text} if text else set()


def _text(node: ast.expr) -> Optional[str]:
    """``x``, ``self.x`` or ``self.data.x`` (an attribute of an object an attribute holds)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _text(node.value)
        return f"{inner}.{node.attr}" if inner is not None and inner.startswith("self") else None
    return None


# host-to-device copies by method name, and the position of the host data each sends
# (`cuda.to_device(x, to=d)`, `d.copy_to_device(x)`, PyCUDA's `drv.memcpy_htod(d, x)`, `gpuarray.to_gpu(x)`)
_UPLOADS = {"to_device": 0, "copy_to_device": 0, "to_gpu": 0, "to_gpu_async": 0, "memcpy_htod": 1,
            "memcpy_htod_async": 1}
_LEAVES = (ast.Return, ast.Break, ast.Continue, ast.Raise, ast.Yield, ast.YieldFrom)


def round_trip(region: List[ast.stmt], after: int, outputs: Set[str],
               before: List[ast.stmt] = ()) -> Tuple[List[ast.Call], List[ast.Call]]:
    """The upload, if any, that is all the host does with a copy's value: what the statements
    of ``region`` after line ``after`` compute from ``outputs`` (local names; through
    assignments, and branches whose tests read it only to pick how a name is computed) ends in
    host-to-device copies and nothing else reads it: no other call, no attribute, no return,
    no branch that leaves, no test of a loop (``costs = d.copy_to_host()``, ``w = np.exp(-costs)``,
    ``w /= w.sum()``, ``cuda.to_device(w, to=d_w)``). The wait serves nothing the host decides:
    the device could compute that value itself. ``before``: the statements of the loop body
    before the copy; a value they read is carried to the next iteration, a round trip only where
    they upload it as it is and read nothing else of it but its metadata (``img.shape``).
    Returns (the uploads of what the host computed from it, the uploads of it as it is); both
    empty where the value is read otherwise."""
    tainted = {name for name in outputs if "." not in name}
    if not tainted or tainted != set(outputs):
        return [], []
    uploads: List[ast.Call] = []
    if not _follow(region, after, tainted, uploads, False, frozenset(tainted)):  # (`tainted` grows: what is computed from it)
        return [], []
    carried = [call for call in uploads if _upload_of(call, outputs)]  # (uploaded as it is, on this iteration)
    uploads = [call for call in uploads if not _upload_of(call, outputs)]
    if any(_loads(statement) & tainted for statement in before):
        # the next iteration reads it before the copy: `img = d_out.copy_to_host()` at the end,
        # `d_img = cuda.to_device(img)` at the start (the device's own result, sent back)
        sent_back = _sent_back_as_is(before, tainted)
        if not sent_back:
            return [], []
        carried = sent_back + carried
    return (uploads, carried) if uploads or carried else ([], [])


def uploaded_straight(node: ast.AST, line: int, column: int) -> Optional[ast.Call]:
    """The upload in ``node`` whose data is the copy back at ``line``/``column`` itself
    (``cuda.to_device(d.copy_to_host())``): the host's copy goes straight back to the device."""
    for sub in walk_nodes(node):
        if isinstance(sub, ast.Call):
            data = _uploaded_data(sub)
            if isinstance(data, ast.Call) and data.lineno == line and data.col_offset + 1 == column:
                return sub
    return None


def _sent_back_as_is(statements: Sequence[ast.stmt], names: Set[str]) -> List[ast.Call]:
    """The uploads of ``names`` themselves in ``statements``, where those statements read them
    for nothing else but their metadata (``img.shape``) and rebind none of them; [] otherwise."""
    uploads: List[ast.Call] = []
    sent: Set[int] = set()
    metadata: Set[int] = set()
    for statement in statements:
        for node in walk_nodes(statement):
            if isinstance(node, ast.Call) and _upload_of(node, names):
                uploads.append(node)
                sent.add(id(_uploaded_data(node)))
            elif isinstance(node, ast.Attribute) and node.attr in _METADATA:
                metadata.add(id(node.value))
    for statement in statements:
        for node in walk_nodes(statement):
            if isinstance(node, ast.Name) and node.id in names and (
                    not isinstance(node.ctx, ast.Load) or id(node) not in sent | metadata):
                return []
    return uploads


def _follow(statements, after: int, tainted: Set[str], uploads: List[ast.Call], chosen: bool,
            as_is: FrozenSet[str] = frozenset()) -> bool:
    """Walk ``statements`` (those after line ``after``), growing ``tainted``; False where the
    value reaches anything but a computation of a local name or an upload. ``chosen``: inside a
    branch whose test reads the value (every name assigned there is computed from it)."""
    for statement in statements:
        if (statement.end_lineno or statement.lineno) <= after:
            continue
        reads = _loads(statement)
        if isinstance(statement, _ASSIGNS):
            value = statement.value
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if isinstance(value, ast.Call) and _upload_of(value, as_is & tainted) and not chosen:
                # `d_m = cuda.to_device(m)` of the copy itself: the device array it makes is not the
                # host's value (what the host computed from it and uploads this way is its own work)
                uploads.append(value)
                continue
            carries = chosen or (value is not None and bool(reads & tainted))
            for target in targets:
                for node in (target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]):
                    base = node
                    while isinstance(base, ast.Subscript):
                        base = base.value
                    if not isinstance(base, ast.Name):
                        if carries:
                            return False  # stored into an attribute or an object: kept beyond the step
                        continue
                    if carries:
                        tainted.add(base.id)
                    elif base is node and not isinstance(statement, ast.AugAssign):
                        tainted.discard(base.id)  # rebound to another value
            continue
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            call = statement.value
            name = call.func.attr if isinstance(call.func, ast.Attribute) else ""
            if _uploaded(call, tainted):
                uploads.append(call)
                continue
            if reads & tainted or chosen:
                return False  # handed to a call: shown, saved, passed on
            continue
        if isinstance(statement, ast.If):
            test = _loads(statement.test) & tainted
            if test and any(isinstance(n, _LEAVES) for arm in (statement.body, statement.orelse)
                            for s in arm for n in walk_nodes(s)):
                return False  # the value decides whether the function or the loop goes on
            if not (_follow(statement.body, after, tainted, uploads, chosen or bool(test), as_is) and
                    _follow(statement.orelse, after, tainted, uploads, chosen or bool(test), as_is)):
                return False
            continue
        if isinstance(statement, ast.Pass):
            continue
        if reads & tainted or chosen and isinstance(statement, _LEAVES):
            return False
    return True


def _loads(node: ast.AST) -> Set[str]:
    return {n.id for n in walk_nodes(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


# what an array tells without its data: reading it needs no copy of the elements
_METADATA = ("shape", "dtype", "size", "ndim", "itemsize", "nbytes")


def _uploaded_data(call: ast.Call) -> Optional[ast.expr]:
    """What a host-to-device copy sends (``w`` of ``cuda.to_device(w)``, ``d.copy_to_device(w)``,
    ``drv.memcpy_htod(d, w)``); None for any other call."""
    name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
    at = _UPLOADS.get(name)
    return call.args[at] if at is not None and len(call.args) > at else None


def _upload_of(call: ast.Call, names) -> bool:
    """An upload whose data is one of ``names`` itself (``cuda.to_device(m)``), not a value computed from it."""
    data = _uploaded_data(call)
    return isinstance(data, ast.Name) and data.id in names


def _uploaded(call: ast.Call, tainted: Set[str]) -> bool:
    """A host-to-device copy of a tainted name (``cuda.to_device(w)``, ``d.copy_to_device(w)``)."""
    data = _uploaded_data(call)
    return data is not None and bool(_loads(data) & tainted)


# what reduces a whole array to one number (no `axis`: `np.abs(u).max()`, `np.max(u)`)
_TO_SCALAR = ("max", "min", "amax", "amin", "nanmax", "nanmin", "sum", "nansum", "mean", "nanmean", "norm", "ptp")
# element-wise maps on the way to the reduction: the reduction still sees every element
_ELEMENTWISE = ("abs", "absolute", "fabs", "square", "sqrt")


def reduced_for_launch(scope: ast.AST, statement: ast.stmt, tracked: Set[str]) -> str:
    """Whether everything ``scope`` (the function) does with the names ``tracked`` that
    ``statement`` assigns (a copy back) is reduce them whole to one number that only a kernel
    launch is given (``print_frame[g, b](d_u, np.abs(u).max())``, or ``scale = u.max()`` then
    ``k[g, b](..., scale)``): the host needs no element of the array, and a reduction on the
    device, passed to the kernel as a device array, needs no copy at all. The reduction's text,
    or ""."""
    if not tracked or any(not name.isidentifier() for name in tracked):
        return ""
    parents: Dict[int, ast.AST] = {}
    for node in walk_nodes(scope):
        for child in child_nodes(node):
            parents[id(child)] = node
    found = ""
    for node in walk_nodes(scope):
        if not (isinstance(node, ast.Name) and node.id in tracked):
            continue
        if isinstance(node.ctx, ast.Store):
            if not _inside(node, statement, parents):
                return ""  # bound elsewhere too: not this copy's value alone
            continue
        reduction = _reduction_of(node, parents)
        if reduction is None or not _only_launched(reduction, scope, parents):
            return ""
        found = found or ast.unparse(reduction)
    return found


def _inside(node: ast.AST, ancestor: ast.AST, parents: Dict[int, ast.AST]) -> bool:
    while node is not None and node is not ancestor:
        node = parents.get(id(node))
    return node is ancestor


def _reduction_of(node: ast.AST, parents: Dict[int, ast.AST]) -> Optional[ast.Call]:
    """The whole-array reduction ``node`` (the array) is read through, element-wise maps on the way."""
    while True:
        parent = parents.get(id(node))
        if isinstance(parent, (ast.UnaryOp, ast.BinOp)):
            node = parent
            continue
        if isinstance(parent, ast.Attribute) and parent.value is node:
            parent = parents.get(id(parent))  # `u.max()`: the call whose method it is
            if not (isinstance(parent, ast.Call) and parent.func.value is node):
                return None
        if not isinstance(parent, ast.Call):
            return None
        name = parent.func.attr if isinstance(parent.func, ast.Attribute) else parent.func.id if isinstance(
            parent.func, ast.Name) else ""
        if name in _ELEMENTWISE and parent.args and parent.args[0] is node and len(parent.args) == 1:
            node = parent
            continue
        whole = not parent.keywords and (
            isinstance(parent.func, ast.Attribute) and parent.func.value is node and not parent.args
            or len(parent.args) == 1 and parent.args[0] is node and not isinstance(parent.func, ast.Attribute)
            or len(parent.args) == 1 and parent.args[0] is node and isinstance(parent.func, ast.Attribute) and
            _is_module(parent.func.value))
        return parent if name in _TO_SCALAR and whole else None


def _is_module(node: ast.AST) -> bool:
    """``np``, ``numpy``, ``np.linalg``: a module the reduction is called on, not an array."""
    text = ast.unparse(node)
    return text in ("np", "numpy", "np.linalg", "numpy.linalg", "math")


def _only_launched(value: ast.AST, scope: ast.AST, parents: Dict[int, ast.AST], depth: int = 0) -> bool:
    """Whether a number reaches nothing but kernel launches' arguments (``k[g, b](..., value)``),
    through scalar arithmetic and a name it is assigned to, every read of that name the same."""
    node = value
    while True:
        parent = parents.get(id(node))
        if isinstance(parent, (ast.UnaryOp, ast.BinOp)) or isinstance(parent, ast.Call) and isinstance(
                parent.func, ast.Name) and parent.func.id in ("float", "int") and node in parent.args:
            node = parent
            continue
        break
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Subscript) and node in parent.args:
        return True  # `kernel[grid, block](..., value)`
    if depth == 0 and isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(
            parent.targets[0], ast.Name) and parent.value is node:
        name = parent.targets[0].id
        reads = [n for n in walk_nodes(scope) if isinstance(n, ast.Name) and n.id == name]
        loads = [n for n in reads if isinstance(n.ctx, ast.Load)]
        return len(reads) == len(loads) + 1 and bool(loads) and all(
            _only_launched(n, scope, parents, depth + 1) for n in loads)
    return False
