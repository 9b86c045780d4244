"""Which host-to-device transfers in a loop carry the step's new data: the iteration's input
(a batch or a frame the loop picks out of host data, ``cuda.to_device(frames[i])``, or one a
capture has just read, ``ok, frame = capture.read()``), or an
array the host itself updates in the loop (``self.w += -lr * grad`` after ``cuda.to_device(self.w)``),
or one it computes in the iteration from the loop's variable, carried state or random draws
(``np.full(n, drive(t) * gain)``, ``np.random.rand(n) < rate``).
Such an upload is the work's data path, not a cost one transfer before the loop would remove.

What is not new data stays a transfer per step: an array filled with a constant on the host
(``x.fill(0)``, ``np.zeros``, ``np.full(n, 0.5)``, or filled with constants a branch on the
step's time picks) and uploaded, one the loop never changes, one the device already
holds (uploaded whole before the loop), the same data sent a second time in one iteration
(``cuda.to_device(batch.T)`` after ``cuda.to_device(batch)``), and the slice a copy back fills
(``d.copy_to_host(out[:, j])``). Through a call, a function's upload of its own parameter is new
data where the call in the loop passes it a selection of the loop's input, or where the calls on
the way hand it what the loop computes in the iteration (``computed_from``, ``computed_args``,
``arg_params``). An upload of what an in-place method returns (``cuda.to_device(x.fill(0))``:
None) raises, and is marked so. Syntax only.
"""

from __future__ import annotations

import ast
from typing import Dict, Iterator, List, Optional, Set

from ...analysis.host import Event, HostFacts
from .frequency.syntax import assigned_names, dotted_name
from .names import captured_frames, indexed_item_values, target_names
from ..syntax import child_nodes, walk_nodes

_CONSTANT_FILLS = {"zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like", "full_like"}
# methods and attributes that give a view or a copy of an array's own data
_VIEWS = {"ravel", "flatten", "reshape", "astype", "copy", "transpose", "squeeze", "view"}
# array modules: `np.reshape(x)` is a call of the module, not a view of `np`
_MODULES = {"np", "numpy", "cp", "cupy"}
# methods that change their array (or list) in place and return None
_IN_PLACE = {"fill", "sort", "shuffle"}
# each body's bindings, read once (`_bindings`), by id of the body (kept with it, to tell a
# reused id); cleared past this many bodies
_BINDINGS: Dict[int, tuple] = {}
_KEPT = 256
# (id of a body, a name) -> (the body, what it reaches there); a loop's own iteration values too
_REACH: Dict[tuple, tuple] = {}
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def mark(facts: HostFacts, tree: ast.Module, bodies) -> None:
    """Mark ``new_data`` on the transfers of ``facts`` (read from ``tree``, ``bodies`` its
    functions' frequency readings) that carry a step's new data; mark ``handed_in`` on a
    function's upload of what it is handed (``parameter``: the parameter a first
    upload outside its loops sends; ``only``: it reads nothing but parameters, see
    ``_mark_handed_in``), and ``fresh`` (the parameters) on a call in a loop that passes a
    selection of the loop's input to them."""
    functions = _functions(tree)
    for event in facts.events:
        if event.kind == "alloc" and not event.detail.get("shape_based", True):
            _mark_transfer(facts, event, bodies, functions)
    for event in facts.events:
        if event.kind == "alloc" and not event.detail.get("shape_based", True):
            _mark_handed_in(facts, event)
    for event in facts.events:
        if event.kind == "call" and not event.detail.get("path") and event.loops:
            _mark_call(facts, event, bodies, functions)
    for event in facts.events:
        if event.kind == "call":
            _mark_arguments(event, bodies, functions)


def _mark_transfer(facts: HostFacts, event: Event, bodies, functions) -> None:
    found = _statement(bodies, functions, event)
    if found is None:
        return
    statement, function, owner = found
    call = _call_at(statement.node, event)
    source = _source(call)
    if source is None:
        return
    nothing = _returns_none(source)
    if nothing and not _in_try(function, call):
        # `cuda.to_device(x.fill(0))` uploads None: numba raises, and nothing after it runs
        event.detail["raises"] = f"`{ast.unparse(source)}` returns None, which `{ast.unparse(call.func)}` cannot take"
    if statement.loop is None:
        if _draws_in(source, function.body):
            event.detail["new_data"] = True  # new random numbers on every call
            return
        if _computed_into_before(function.body, _text(_base(source)), call):
            event.detail["new_data"] = True  # the call has just computed new values into it
            return
        computed_from = _parameters_read(source, function)
        if computed_from:
            event.detail["computed_from"] = computed_from
        data = _unviewed(source)
        name = data.id if isinstance(data, ast.Name) else ""
        if name in _parameters(function) and _first_upload(function.body, name, call):
            # a view of a parameter (`x0.astype(np.float32)`) reads nothing but it: what the caller hands in
            event.detail["handed_in"] = {"parameter": name, "only": data is not source}
        elif _updated_after(function.body, data, call):
            event.detail["new_data"] = True  # state the host updates on each call, uploaded on the next
        return
    loop = statement.loop.node
    varying = _varying(facts, event, loop)
    source = _item_bound(loop, source)
    base = _text(_base(source))
    if not base:  # an array made in the upload's own expression (`np.full(n, drive(t))`)
        if _computed_in_iteration(source, loop):
            event.detail["new_data"] = True
        return
    if not _first_upload(loop.body, base, call):
        return  # sent again in the same iteration: the device already has it
    if _host_updated(loop, base) or _selected_input(source, varying, loop, function, owner) or (
            _computed_in_iteration(source, loop)) or base in _frames(loop) or _iterated_item(
            source, loop, function, owner):
        event.detail["new_data"] = True  # (a frame a capture has just read: the input of this iteration)


def _mark_handed_in(facts: HostFacts, event: Event) -> None:
    """``handed_in["only"]``: the transfer reads nothing but its function's parameters (an item
    of one, picked by the function's own loop: ``received[i]``), and is the first upload of
    them there: it uploads what its caller hands it on each call, not data it keeps. (The
    same parameter uploaded again further down, ``to_device(batch.T)`` after
    ``to_device(batch)``, is on the device already: that second upload is a cost.)"""
    spec = facts.parameters.get(event.function)
    reads = set(event.detail.get("reads", ())) - {"self", "cls"}  # (the object's own state is not handed in)
    if spec is None or not reads:
        return
    positional, vararg, every = spec
    counters = {name for number in event.loops if number in facts.loops for name in facts.loops[number].targets}
    if not (reads - counters) or not reads <= set(positional) | set(every) | ({vararg} if vararg else set()) | counters:
        return
    if any(other.kind == "alloc" and not other.detail.get("shape_based", True)
           and other.place.line < event.place.line and (set(other.detail.get("reads", ())) - counters) & reads
           for other in facts.of_function(event.function)):
        return
    handed = event.detail.get("handed_in") or {"parameter": ""}
    event.detail["handed_in"] = {**handed, "only": True}


def _mark_call(facts: HostFacts, event: Event, bodies, functions) -> None:
    """A call in a loop passing a selection of the loop's input to a parameter of a function
    of this file whose first upload is that parameter."""
    found = _statement(bodies, functions, event)
    if found is None or found[0].loop is None:
        return
    statement, function, owner = found
    call = next((c for c in walk_nodes(statement.node) if isinstance(c, ast.Call) and c.lineno == event.place.line
                 and c.col_offset + 1 == event.place.column), None)
    callee = functions.get(str(event.detail.get("callee", "")))
    if call is None or callee is None or any(isinstance(a, ast.Starred) for a in call.args):
        return
    names = [a.arg for a in callee[0].args.posonlyargs + callee[0].args.args]
    if isinstance(call.func, ast.Attribute) and names and names[0] in ("self", "cls"):
        names = names[1:]
    varying = _varying(facts, event, statement.loop.node)
    fresh = [name for name, arg in zip(names, call.args)
             if _selected_input(arg, varying, statement.loop.node, function, owner)]
    fresh += [k.arg for k in call.keywords if k.arg in names and _selected_input(
        k.value, varying, statement.loop.node, function, owner)]
    if fresh:
        event.detail["fresh"] = sorted(fresh)


def _mark_arguments(event: Event, bodies, functions) -> None:
    """On a call: ``computed_args`` (positions, ``=name`` for keywords), the arguments its loop
    computes in the iteration (``capture(step * dt)``); ``returned_args``, those the call's own
    result is assigned back to (``self.u, _ = gpu.step(self.u)``); ``arg_params``, by the same keys, the
    calling function's parameters each argument is computed from (``helper(angle=2 * t)`` in
    ``def view(t)``). Positions after a spread (``*args``) are not told."""
    found = _statement(bodies, functions, event)
    if found is None:
        return
    statement, function, _ = found
    call = _call_at(statement.node, event)
    if call is None:
        return
    given: List[tuple] = []
    for position, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            break
        given.append((str(position), arg))
    given += [(f"={k.arg}", k.value) for k in call.keywords if k.arg]
    computed = _iteration_values(statement.loop.node) if statement.loop is not None else None
    fresh = [key for key, arg in given if computed is not None and _reads_computed(arg, computed)]
    if fresh:
        event.detail["computed_args"] = fresh
    steady = _steady_args(statement, given)
    if steady:
        event.detail["steady_args"] = steady
    if isinstance(statement.node, ast.Assign) and statement.node.value is call:
        # the names the call's result is bound to (`d_points = compact(d_img)`)
        targets = {name for target in statement.node.targets for name in assigned_names(target)}
        event.detail["result_names"] = sorted(targets)
        # `self.spins, _ = gpu.step(self.spins)` in a loop: what it was given is what it gave back the step before
        returned = [key for key, arg in given if ast.unparse(arg) in targets] if statement.loop is not None else []
        if returned:
            event.detail["returned_args"] = returned
    parameters = _parameters(function)
    reads = {key: sorted(_computed_from_parameters(arg, function, parameters)) for key, arg in given}
    reads = {key: names for key, names in reads.items() if names}
    if reads:
        event.detail["arg_params"] = reads


def _steady_args(statement, given: List[tuple]) -> List[str]:
    """The keys of ``given`` (a call's arguments in a loop) that pass the same array on every
    iteration: a name, or a view of one (``gx.astype(np.float32)``), that no loop around the
    call binds. What a function uploads of it is the same data each time."""
    loop = statement.loop
    if loop is None:
        return []
    while loop.parent is not None:
        loop = loop.parent
    bound: Set[str] = set()
    if isinstance(loop.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        # a function a driver calls once per frame: what it is given changes from call to call
        bound |= {a.arg for a in walk_nodes(loop.node.args) if isinstance(a, ast.arg)}
    for node in walk_nodes(loop.node):
        for target in _targets_of(node):
            while isinstance(target, (ast.Subscript, ast.Attribute)):
                target = target.value  # (`gx[i] = v`, `gx.flat = v`: the array changes in place)
            bound |= set(assigned_names(target))
        if isinstance(node, ast.Call):
            # changed in place by its own method (`gx.fill(0)`) or written through `out=`
            if isinstance(node.func, ast.Attribute) and node.func.attr not in _VIEWS and isinstance(
                    node.func.value, ast.Name):
                bound.add(node.func.value.id)
            bound |= {k.value.id for k in node.keywords if k.arg == "out" and isinstance(k.value, ast.Name)}
    steady = []
    for key, arg in given:
        base = _unviewed(arg)
        if base is not arg or isinstance(arg, ast.Name):
            if isinstance(base, ast.Name) and base.id not in bound:
                steady.append(key)
    return steady


def _targets_of(node: ast.AST) -> List[ast.expr]:
    """What a statement (or a ``with`` item, a walrus) binds."""
    if isinstance(node, (ast.For, ast.AsyncFor, ast.AugAssign, ast.AnnAssign, ast.NamedExpr)):
        return [node.target]
    if isinstance(node, ast.Assign):
        return list(node.targets)
    if isinstance(node, ast.withitem) and node.optional_vars is not None:
        return [node.optional_vars]
    return []


def _unviewed(source: ast.expr) -> ast.expr:
    """The array a chain of views is of (``x0.astype(np.float32)``, ``self.u.ravel()``: ``x0``, ``self.u``)."""
    while isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute) and source.func.attr in _VIEWS and \
            not (isinstance(source.func.value, ast.Name) and source.func.value.id in _MODULES):
        source = source.func.value
    return source


def _updated_after(body: List[ast.stmt], data: ast.expr, call: ast.Call) -> bool:
    """Whether a function (with no loop around the upload) assigns the attribute it uploads
    (``self.u_nominal``), whole or in part, after the upload, with something other than a
    constant fill or the device's result copied back: the host computes the object's state on each call and the next call uploads it."""
    if not (isinstance(data, ast.Attribute) and isinstance(data.value, ast.Name) and data.value.id == "self"):
        return False
    text = ast.unparse(data)
    for node in _own(body):
        if not isinstance(node, (ast.Assign, ast.AugAssign)) or node.lineno <= call.lineno:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if any(_text(_base(t)) == text for t in targets) and not _filled_with_constant(node.value) and not (
                _copied_back(node.value)):
            return True
    return False


def _copied_back(value: ast.expr) -> bool:
    """A device array's copy back (``d.copy_to_host()``, ``cp.asnumpy(d)``, ``d.get()``): what the
    device computed, returned to the attribute; the next call's upload sends the device its own result."""
    if not isinstance(value, ast.Call):
        return False
    name = dotted_name(value.func)
    return name.rsplit(".", 1)[-1] in ("copy_to_host", "asnumpy") or (
        isinstance(value.func, ast.Attribute) and value.func.attr == "get" and not value.args)


def _filled_with_constant(value: ast.expr) -> bool:
    if isinstance(value, ast.Constant):
        return True
    return isinstance(value, ast.Call) and dotted_name(value.func).rsplit(".", 1)[-1] in _CONSTANT_FILLS and not any(
        isinstance(a, ast.Name) for a in value.args[1:])


def _parameters_read(source: ast.expr, function: ast.AST) -> List[str]:
    """The function's parameters the uploaded data is computed from, through the names the
    function binds (``angle = step * speed`` ... ``cp.asarray(proj @ view(angle))``)."""
    data = _unviewed(source)  # `x0.astype(np.float32)`: the parameter's own data
    if isinstance(data, ast.Name) and data is not source and data.id in _parameters(function):
        return [data.id]
    return sorted(_computed_from_parameters(source, function, _parameters(function), built=True))


def _computed_from_parameters(value: ast.expr, function: ast.AST, parameters: Set[str],
                              built: bool = False) -> Set[str]:
    """The parameters ``value`` reads, through the names the function binds; ``built``: only
    those an array it builds is made from (``_made_from``)."""
    bindings = _bindings(function.body)
    found: Set[str] = set()
    for parameter in parameters:
        reach = _reach(function.body, parameter, bindings)
        if _made_from(value, reach, bindings) if built else _data_names(value) & reach:
            found.add(parameter)
    return found


def _reach(body: List[ast.stmt], name: str, bindings: List[tuple]) -> Set[str]:
    """``name`` and the names ``body`` binds to what reads it, to a fixed point (kept per body)."""
    key = (id(body), name)
    hit = _REACH.get(key)
    if hit is not None and hit[0] is body:
        return hit[1]
    if len(_REACH) > 8 * _KEPT:
        _REACH.clear()
    reach = {name}
    while True:
        grown = reach | {bound for bound, _, _, names in bindings if names & reach}
        if grown == reach:
            break
        reach = grown
    _REACH[key] = (body, reach)
    return reach


def _draws_in(source: ast.expr, body: List[ast.stmt]) -> bool:
    """The uploaded data is made of random draws: in its own expression or in what the body
    binds to the names it reads."""
    if _draws(source):
        return True
    bindings = _bindings(body)
    names, seen = set(_data_names(source)), set()
    while names - seen:
        name = (names - seen).pop()
        seen.add(name)
        for bound_name, value, _, read in bindings:
            if bound_name == name:
                if _draws(value):
                    return True
                names |= read
    return False


def _returns_none(source: ast.expr) -> bool:
    """An in-place method's call, whose result is None: ``x.fill(0)``, ``x.sort()``, ``rng.shuffle(x)``."""
    return isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute) and (
        source.func.attr in _IN_PLACE) and not (isinstance(source.func.value, ast.Name) and (
            source.func.value.id in _MODULES))


def _in_try(function: ast.AST, node: ast.AST) -> bool:
    """Whether ``node`` is in the body of a ``try`` of ``function`` (a handler may catch what it raises)."""
    return any(isinstance(t, ast.Try) and any(node in walk_nodes(part) for part in t.body)
               for t in walk_nodes(function))


def _varying(facts: HostFacts, event: Event, loop: ast.stmt) -> Set[str]:
    """What the statement's innermost loop (not a comprehension's) changes from one iteration to the next."""
    for number in reversed(event.loops):
        known = facts.loops[number]
        if known.place.line == loop.lineno and known.kind != "comprehension":
            return known.varying | known.targets
    return set()


def _selected_input(source: ast.expr, varying: Set[str], loop: ast.stmt, function: ast.AST,
                    owner: Optional[ast.ClassDef]) -> bool:
    """``data[i]``, ``data[:, batch]``: a piece of host data the loop picks by what it varies,
    where the loop does not write that data, the function did not upload it whole before the
    loop, and nothing binds it to a constant fill (zeros sent again each step)."""
    if not isinstance(source, ast.Subscript):
        return False
    picked = {n.id for n in walk_nodes(source.slice) if isinstance(n, ast.Name)}
    base = _text(_base(source))
    return bool(picked & varying) and _host_input(base, loop, function, owner)


def _host_input(base: str, loop: ast.stmt, function: ast.AST, owner: Optional[ast.ClassDef]) -> bool:
    """Whether host data ``base`` that the loop picks pieces of is input: the loop does not write
    it, the function did not upload it whole before the loop, and nothing binds it to a constant
    fill (zeros sent again each step)."""
    if not base or _written(loop, base) or _uploaded_before(function, loop, base):
        return False
    return not _constant_fill(function, owner, base)


def _iterated_item(source: ast.expr, loop: ast.stmt, function: ast.AST, owner: Optional[ast.ClassDef]) -> bool:
    """``for rx in rx_pos: cuda.to_device(rx)`` (also through ``enumerate`` and ``zip``): the item
    the loop takes from host data is the piece ``rx_pos[i]`` would pick, on the same terms
    (``_host_input``)."""
    if not (isinstance(source, ast.Name) and isinstance(loop, (ast.For, ast.AsyncFor))):
        return False
    sequence = _sequence_of(loop.target, loop.iter, source.id)
    return sequence is not None and _host_input(_text(_base(sequence)), loop, function, owner)


def _sequence_of(target: ast.expr, iterated: ast.expr, name: str) -> Optional[ast.expr]:
    """The sequence whose items ``name`` takes in ``for target in iterated``: ``xs`` in ``for x in
    xs``, ``for i, x in enumerate(xs)``, ``for a, x in zip(ys, xs)``; None for anything else (a
    range, a name unpacked from each item)."""
    if isinstance(target, ast.Name):
        return iterated if target.id == name and not isinstance(iterated, ast.Call) else None
    if not isinstance(target, (ast.Tuple, ast.List)) or not isinstance(iterated, ast.Call) or iterated.keywords:
        return None
    function = dotted_name(iterated.func)
    if function == "enumerate" and len(target.elts) == 2 and len(iterated.args) == 1:
        return _sequence_of(target.elts[1], iterated.args[0], name)
    if function == "zip" and len(target.elts) == len(iterated.args):
        found = [_sequence_of(t, a, name) for t, a in zip(target.elts, iterated.args)]
        return next((f for f in found if f is not None), None)
    return None


def _computed_in_iteration(source: ast.expr, loop: ast.stmt) -> bool:
    """The host makes the uploaded array in the iteration from what the iteration computes: the
    loop's variable or time (``np.full(n, drive(t) * gain)``), state it carries, or new random
    draws (``np.random.rand(n) < rate``), directly or through names the iteration binds to them
    (``_made_from``). A fill's shape is not its data (``np.zeros(n)``), a piece picked by an index
    is a selection (``_selected_input`` decides it), a value chosen by a branch among constants
    (``inp[:k] = 30.0`` while ``t < t_on``) is the same data again, and an array the host already
    has scaled by the step (``x * scale``) could be sent once and scaled on the device: none counts."""
    return _made_from(source, _iteration_values(loop), _bindings(loop.body, call_line=source.lineno))


def _made_from(value: ast.expr, computed: Set[str], bindings: List[tuple], seen: Optional[Set[str]] = None) -> bool:
    """Whether ``value`` is an array built from ``computed`` names: random draws, or a call
    (a constructor, a project function) given them as data (``np.full(n, v)``, ``np.logspace(lo,
    hi)``, ``camera(t)``), there or in what ``bindings`` bind the names it combines to. Views
    (``.ravel()``, ``.astype(...)``, ``.T``) are their array's data; a bare name only through
    its bindings."""
    seen = set() if seen is None else seen
    if _draws(value):
        return True
    if isinstance(value, ast.Call):
        func = value.func
        if isinstance(func, ast.Attribute) and func.attr in _VIEWS and not (
                isinstance(func.value, ast.Name) and func.value.id in _MODULES):
            return _made_from(func.value, computed, bindings, seen)
        return bool(_data_names(value) & computed)
    if isinstance(value, ast.Attribute) and value.attr in ("T", "real", "imag"):
        return _made_from(value.value, computed, bindings, seen)
    if isinstance(value, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp)):
        return any(_made_from(part, computed, bindings, seen) for part in child_nodes(value)
                   if isinstance(part, ast.expr))
    if isinstance(value, ast.Name) and value.id not in seen:
        seen.add(value.id)
        return any(_made_from(bound, computed, bindings, seen) for name, bound, _, _ in bindings if name == value.id)
    return False


def _iteration_values(loop: ast.stmt) -> Set[str]:
    """Names whose value the iteration computes anew: the ``for``'s variables, names the loop
    advances from themselves (``t += dt``, ``x = f(x)``), the frames a capture reads, and names
    bound to what reads them or to random draws, to a fixed point."""
    key = (id(loop.body), "<iteration>")
    hit = _REACH.get(key)
    if hit is not None and hit[0] is loop.body:
        return hit[1]
    computed: Set[str] = set()
    if isinstance(loop, (ast.For, ast.AsyncFor)):
        computed |= {n.id for n in walk_nodes(loop.target) if isinstance(n, ast.Name)}
    bindings = _bindings(loop.body)
    computed |= _self_advanced(bindings)
    drawn = {name for name, value, _, _ in bindings if _draws(value)}
    computed |= drawn
    computed |= _frames(loop)  # each frame a capture reads
    while True:
        grown = computed | {name for name, _, _, names in bindings if names & computed}
        if grown == computed:
            _REACH[key] = (loop.body, computed)
            return computed
        computed = grown


def _frames(loop: ast.stmt) -> Set[str]:
    """``names.captured_frames`` of the loop's body, read once per body (each transfer asks)."""
    key = (id(loop.body), "<frames>")
    hit = _REACH.get(key)
    if hit is None or hit[0] is not loop.body:
        hit = _REACH[key] = (loop.body, captured_frames(loop.body))
    return hit[1]


# calls that move data between host and device: a value that went through one was not computed
# on the host (`a = d.copy_to_host()` after `d = cuda.to_device(a)` is the device's result)
_TRANSFERS = {"copy_to_host", "to_host", "asnumpy", "get", "to_device", "copy_to_device", "to_gpu"}


def _self_advanced(bindings: List[tuple]) -> Set[str]:
    """Names each iteration computes from their own last value, directly (``x = f(x)``) or
    through other names the host computes (``x_next = f(x, u)`` ... ``x = x_next``): the state
    a loop carries. A cycle through a transfer (``d = cuda.to_device(a)`` ... ``a =
    d.copy_to_host()``) is the device's work, not the host's."""
    found = {name for name, _, _, names in bindings if name in names}
    reads: Dict[str, Set[str]] = {}
    for name, value, _, names in bindings:
        if not (isinstance(value, ast.Call) and dotted_name(value.func).rsplit(".", 1)[-1] in _TRANSFERS):
            reads.setdefault(name, set()).update(names)
    for name in reads:
        seen, frontier = set(), set(reads[name])
        while frontier and name not in seen:
            current = frontier.pop()
            if current in seen:
                continue
            seen.add(current)
            frontier |= reads.get(current, set()) - seen
        if name in seen:
            found.add(name)
    return found


def _bindings(body: List[ast.stmt], call_line: int = 0) -> List[tuple]:
    """``(name, value, line, data names)`` for each name the statements bind (``x = v``, ``x +=
    v``, ``x[i] = v`` into ``x``), read once per body; with ``call_line``, only those written
    before that line."""
    hit = _BINDINGS.get(id(body))
    if hit is None or hit[0] is not body:
        if len(_BINDINGS) > _KEPT:
            _BINDINGS.clear()
        found = []
        for node in _own(body):
            if isinstance(node, ast.Assign):
                for target in (t for each in node.targets for t in _elements(each)):
                    base = _base(target)
                    if isinstance(base, ast.Name) and (base is target or not isinstance(node.value, ast.Constant)):
                        found.append((base.id, node.value, node.lineno, _data_names(node.value)))
            elif isinstance(node, ast.AugAssign) and isinstance(_base(node.target), ast.Name):
                value = ast.BinOp(_base(node.target), node.op, node.value)
                found.append((_base(node.target).id, value, node.lineno, _data_names(value)))
        hit = _BINDINGS[id(body)] = (body, found)
    return [b for b in hit[1] if b[2] < call_line] if call_line else hit[1]


def _reads_computed(value: ast.expr, computed: Set[str]) -> bool:
    """Whether ``value``'s data reads a computed name or draws random numbers."""
    return bool(_data_names(value) & computed) or _draws(value)


def _data_names(value: ast.expr) -> Set[str]:
    """The names ``value``'s data is made of: an index picks (not read as data), a constant
    fill's shape is no data (``np.full``'s fill value is)."""
    found: Set[str] = set()
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Subscript):
            stack.append(node.value)
        elif isinstance(node, ast.Call) and _fill_name(node) in _CONSTANT_FILLS:
            if _fill_name(node) in ("full", "full_like"):
                stack.extend(node.args[1:2] + [k.value for k in node.keywords if k.arg == "fill_value"])
        elif not isinstance(node, _SCOPES):
            stack.extend(child_nodes(node))
    return found


def _draws(value: ast.expr) -> bool:
    """A random draw in ``value``: ``np.random.rand(n)``, ``cp.random.normal(...)``, ``random.random()``."""
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and
               "random" in dotted_name(node.func).split(".")[:-1] for node in walk_nodes(value))


def _item_bound(loop: ast.stmt, source: ast.expr) -> ast.expr:
    """What a name the loop binds only to an item its variable indexes stands for (``row`` in
    ``row = X[k]`` ... ``cuda.to_device(row)``): that item; anything else as it is."""
    if not (isinstance(source, ast.Name) and isinstance(loop, (ast.For, ast.AsyncFor))):
        return source
    return indexed_item_values(loop.body, set(target_names(loop.target))).get(source.id, source)


def _computed_into_before(body: List[ast.stmt], base: str, call: ast.Call) -> bool:
    """Whether ``body`` stores values it computes into ``base`` before ``call``: ``x += v * dt``,
    ``pos[:] = moved`` or ``x[i] = x_new[i]`` where ``moved`` and ``x_new`` are updated by
    arithmetic there (``x_new[i] += v[i] * dt``). Values copied in as they are (``arr[k] =
    lane.length``: data the host already had) are not computed."""
    if not base:
        return False
    before = [node for node in _own(body) if isinstance(node, (ast.Assign, ast.AugAssign)) and (
        node.lineno, node.col_offset) < (call.lineno, call.col_offset)]
    computed = set()
    for node in before:
        if isinstance(node, ast.AugAssign) and not isinstance(node.value, ast.Constant) or isinstance(
                node, ast.Assign) and isinstance(node.value, (ast.BinOp, ast.UnaryOp)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            computed |= {_text(_base(t)) for each in targets for t in _elements(each)} - {""}
    for node in before:
        if isinstance(node, ast.AugAssign) and _text(_base(node.target)) == base and not isinstance(
                node.value, ast.Constant):
            return True  # `x += v * dt`, `x[i] += ...`
        if not isinstance(node, ast.Assign) or not any(
                isinstance(t, ast.Subscript) and _text(_base(t)) == base for each in node.targets
                for t in _elements(each)):
            continue
        reads = {_text(n) for n in walk_nodes(node.value) if isinstance(n, (ast.Name, ast.Attribute))}
        if isinstance(node.value, (ast.BinOp, ast.UnaryOp)) or reads & computed:
            return True  # computed values stored into it
    return False


def _host_updated(loop: ast.stmt, base: str) -> bool:
    """The loop's host code computes new values into ``base``: ``base += expr``, ``base[i] =
    expr`` or ``base = base - expr`` with arithmetic (not a constant fill, not a call's result)."""
    for node in _own(loop.body):
        if isinstance(node, ast.AugAssign) and _text(_base(node.target)) == base and not isinstance(
                node.value, ast.Constant):
            return True
        if isinstance(node, ast.Assign) and isinstance(node.value, (ast.BinOp, ast.UnaryOp)) and any(
                _text(_base(t)) == base for t in node.targets):
            return True
    return False


def _written(loop: ast.stmt, base: str) -> bool:
    """Whether the loop stores into ``base``, rebinds it, calls a method on it (``fill``, ``sort``)
    or fills it with a copy back (``d.copy_to_host(base[:, j])``)."""
    for node in _own(loop.body):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(_text(_base(t)) == base for target in targets for t in _elements(target)):
                return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if _text(_base(node.func.value)) == base:
                return True
            if node.func.attr == "copy_to_host" and any(_text(_base(a)) == base for a in node.args):
                return True
    return False


def _uploaded_before(function: ast.AST, loop: ast.stmt, base: str) -> bool:
    """Whether the function uploads ``base`` (or a view or piece of it) outside the loop, before
    it: the device may hold it already. (An upload after the loop, or one in an earlier loop
    beside it, each of its batches, holds nothing for this one.)"""
    inside = {id(n) for n in walk_nodes(loop)}
    for other in _own(function.body):
        if isinstance(other, (ast.For, ast.AsyncFor, ast.While)) and id(other) not in inside and id(
                loop) not in {id(n) for n in walk_nodes(other)}:
            inside.update(id(n) for n in walk_nodes(other))
    return any(id(node) not in inside and node.lineno < loop.lineno and _text(_base(source)) == base
               for node in _own(function.body) if isinstance(node, ast.Call)
               for source in [_source(node)] if source is not None)


def _constant_fill(function: ast.AST, owner: Optional[ast.ClassDef], base: str) -> bool:
    """An assignment of a constant fill (``np.zeros``) to ``base`` in the function or, for
    ``self.<attr>``, in any method of its class, and nothing written into it there after
    (``targets[label, i] = 1`` makes a data set of the zeros)."""
    bodies = [function.body]
    if base.startswith("self.") and owner is not None:
        bodies = [m.body for m in owner.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
    filled = False
    for body in bodies:
        for node in _own(body):
            if isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in (t for each in targets for t in _elements(each)):
                    if _text(_base(target)) != base:
                        continue
                    if not isinstance(target, ast.Subscript) and not isinstance(node, ast.AugAssign):
                        filled = filled or _fill_name(node.value) in _CONSTANT_FILLS
                    elif not isinstance(node.value, ast.Constant) or isinstance(node, ast.AugAssign):
                        return False  # values written into it: data, not a fill
                    elif isinstance(node.value, ast.Constant) and node.value.value != 0:
                        return False  # `targets[label, i] = 1`: a one-hot table, made once
    return filled


def _fill_name(value: ast.expr) -> str:
    if not isinstance(value, ast.Call):
        return ""
    func = value.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _first_upload(body: List[ast.stmt], base: str, call: ast.Call) -> bool:
    """No upload of ``base`` (whole, a piece or a view of it) before ``call`` in ``body``."""
    for node in _own(body):
        if isinstance(node, ast.Call) and node is not call and (node.lineno, node.col_offset) < (
                call.lineno, call.col_offset):
            source = _source(node)
            if source is not None and _text(_base(source)) == base:
                return False
    return True


def _source(call: Optional[ast.Call]) -> Optional[ast.expr]:
    """What an upload sends: ``cuda.to_device(x)``, ``cp.asarray(x)``, ``cp.array(x)``, ``d.copy_to_device(x)``."""
    if call is None or not call.args:
        return None
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return call.args[0] if name in ("to_device", "asarray", "array", "copy_to_device") else None


def _call_at(node: ast.AST, event: Event) -> Optional[ast.Call]:
    return next((c for c in walk_nodes(node) if isinstance(c, ast.Call) and c.lineno == event.place.line
                 and c.col_offset + 1 == event.place.column), None)


def _statement(bodies, functions, event: Event):
    """The statement holding ``event``, its function's node and the class it belongs to."""
    body = bodies.get(event.function)
    statement = body.at(event.place.line) if body is not None else None
    found = functions.get(event.function)
    if statement is None or found is None:
        return None
    return statement, found[0], found[1]


def _functions(tree: ast.Module) -> Dict[str, tuple]:
    """Each function's node and its class (None for a plain function) by qualified name."""
    found: Dict[str, tuple] = {}

    def visit(body, prefix: str, owner) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found[prefix + node.name] = (node, owner)
                visit(node.body, f"{prefix}{node.name}.", None)
            elif isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.", node)

    visit(tree.body, "", None)
    found[""] = (tree, None)  # the module's own code (a script's loop)
    return found


def _parameters(function: ast.AST) -> Set[str]:
    args = getattr(function, "args", None)
    if args is None:
        return set()  # the module's own code
    return {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs} - {"self", "cls"}


def _own(body: List[ast.stmt]) -> Iterator[ast.AST]:
    """The nodes of ``body``, leaving out nested functions and classes."""
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _SCOPES):
            stack.extend(reversed(list(child_nodes(node))))


def _elements(target: ast.expr) -> List[ast.expr]:
    if isinstance(target, (ast.Tuple, ast.List)):
        return [e for t in target.elts for e in _elements(t)]
    return [target.value if isinstance(target, ast.Starred) else target]


def _base(node: ast.expr) -> ast.expr:
    """The array a piece or a view is of: ``x`` of ``x[i]``, ``x.T``, ``x[:, j].T``."""
    while isinstance(node, ast.Subscript) or isinstance(node, ast.Attribute) and node.attr in ("T", "real", "imag"):
        node = node.value
    return node


def _text(node: ast.expr) -> str:
    """``x``, ``self.x`` or ``self.data.x`` (an attribute of an object an attribute holds); ""
    for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _text(node.value)
        return f"{inner}.{node.attr}" if inner.startswith("self") else ""
    return ""
