"""How often each host event of a Python file runs: ``frequency``'s reading put on the facts.

The host reader finds what the code does (launches, allocations, copies, clock reads); this
gives each event its :class:`~kernlint.analysis.host.Rate` (the loops around it in its
function, their kinds and trip counts, and its place in each), each loop its kind, and a
copy (or a call) whose value the code tests right away (``if d.copy_to_host().sum() > 0:
raise``, or a name it assigns read by a test of the same loop) the mark ``decides``.
"""

from __future__ import annotations

import ast
import copy
from typing import Dict, Iterator, List, Set, Tuple

from ...analysis.host import Event, HostFacts, Launch, Level, Rate
from . import devices, frequency, new_data
from .frequency.syntax import SCOPES, assigned_names, dotted_name, names_read, short_text, tree_nodes
from .launches import configured_kernel
from .uses import (RETURNED, computed_with, copy_outputs, deferred_total, handed_on, kept_in, read_after, receivers,
                   reduced_for_launch, round_trip, uploaded_straight)
from ..syntax import walk_nodes

_TESTS = (ast.If, ast.While, ast.Assert)
_ASSIGNS = (ast.Assign, ast.AnnAssign, ast.AugAssign)


def attach(facts: HostFacts, tree: ast.Module, memo=None, executed_elsewhere: bool = False) -> None:
    """Fill ``facts``' events' rates and loops' kinds from ``tree`` (the file they were read from).
    ``memo(kind, node, compute)``: what is derived from the tree alone, kept (``Project.memo``);
    ``executed_elsewhere``: another file of the project runs this one in its namespace."""
    if not facts.events and not facts.loops:
        return  # (a reading for another file's types: nothing runs, nothing to rate)
    bodies = frequency.analyse_module(tree, facts.path, {e.function for e in facts.events}, executed_elsewhere, memo)
    _iterated_streams(facts, bodies)
    # a function read again for a call's types (`variants`) reads its loops again, as loops of their
    # own that no event is in: a line's loop is the one the events are in
    held = {number for event in facts.events for number in event.loops}
    loop_ids: Dict[tuple, int] = {}
    for loop in facts.loops.values():
        key = (loop.function, loop.place.line)
        if loop.kind != "comprehension" and (key not in loop_ids or loop.id in held and loop_ids[key] not in held):
            loop_ids[key] = loop.id
    for qualname, body in bodies.items():
        for loop in body.loops:
            number = loop_ids.get((qualname, loop.line))
            if number is not None:
                facts.loops[number].frequency, facts.loops[number].trips = loop.kind, loop.trips
    trips = {(qualname, loop.line): loop.trips for qualname, body in bodies.items() for loop in body.loops}
    for qualname, body in bodies.items():
        spans = [(loop.line, loop.node.end_lineno or loop.line) for loop in body.loops if qualname and any(
            isinstance(node, (ast.Yield, ast.YieldFrom)) for node in frequency.syntax.own_nodes(loop.node.body))]
        if spans:
            facts.yielding[qualname] = spans  # a generator's loops that yield
    functions = memo("functions and methods", tree, lambda: _functions(tree)) if memo else _functions(tree)
    functions_by_line = functions[0]
    for event in facts.events:
        body = bodies.get(event.function)
        rate = body.rate_at(event.place.line, bool(event.detail.get("advances"))) if body is not None else None
        if rate is None:
            continue
        event.rate = Rate(tuple(Level(level.kind, level.place, level.line,
                                      None if level.kind == "body" else trips.get((event.function, level.line)),
                                      None if level.kind == "body" else loop_ids.get((event.function, level.line)))
                                for level in rate.levels))
        function = functions_by_line.get(body.line) if body.line else None
        needs = frequency.required_parameters(function, event.place.line) if function is not None else ()
        if needs:
            event.detail["needs"] = needs  # (a call leaving them out raises first: `HostFacts.expand`)
        if event.kind in ("copy-back", "sync", "call") and not event.detail.get("setitem") and _decides(body, event):
            # (a device setitem's wait is for no value: what its statement stores decides nothing)
            event.detail["decides"] = True
    _mark_reads(facts, functions, bodies, tree)
    _mark_launch_reads(facts, functions, bodies)
    _mark_awaited(facts, tree, functions, bodies)
    new_data.mark(facts, tree, bodies)
    devices.mark(facts, tree, functions[0], bodies)


def _iterated_streams(facts: HostFacts, bodies: Dict[str, frequency.Frequency]) -> None:
    """A ``for`` over an iterator object whose ``__next__`` changes the object's own state
    (``self.current_state = strategy.compute_next_state(...)``; the reader's ``advances``) is a
    loop of steps where its own code said nothing: each iteration produces the next state."""
    for event in facts.events:
        advanced = event.detail.get("advances")
        body = bodies.get(event.function)
        if not isinstance(advanced, str) or body is None:
            continue
        statement = body.at(event.place.line)
        if statement is not None and isinstance(statement.node, (ast.For, ast.AsyncFor)):
            loop = body.loop(statement.node)
            if loop.kind == "unknown":
                loop.kind = "step"
                loop.reason = f"each iteration advances an iterator that keeps its state ({advanced})"


def _mark_reads(facts: HostFacts, functions, bodies: Dict[str, frequency.Frequency], tree: ast.Module) -> None:
    """Mark a blocking copy whose value the host reads later in the same iteration ``read``; one in
    a function with no loop of its own, whose value outlives the function (``self.<attr>``,
    returned), ``carried`` (what holds it); and a call in a loop after which the loop reads what
    the callee's copy carried ``uses_copy`` (the copies' places). ``functions``: ``_functions``
    of the file's tree."""
    functions, methods = functions
    for event in facts.events:
        if event.kind != "copy-back" or event.detail.get("per_element"):
            continue
        found = _region(bodies, functions, event)
        if found is None:
            continue
        region, after, node, in_loop = found
        total = deferred_total(region, node, event.place.line, event.place.column) if in_loop else ""
        if total:
            # the host only adds it up into a total the loop does not read: not a value it needs now
            event.detail.setdefault("reason", f"is a blocking copy the host only adds up into `{total}`, which the loop "
                                              f"does not read (count on the device and read the total once after the "
                                              f"loop)")
            continue
        straight = uploaded_straight(node, event.place.line, event.place.column)
        if straight is not None:
            event.detail.pop("decides", None)
            event.detail["round_trip"] = f"`{short_text(straight)}`, line {straight.lineno}"
            event.detail.setdefault("reason", f"is a blocking copy the host uploads again at once "
                                              f"({event.detail['round_trip']}): the device has the data, it needs no "
                                              f"wait (copy it on the device, `d_copy.copy_to_device(d)` into a buffer "
                                              f"made once)")
            continue
        outputs = copy_outputs(node, event.place.line)
        if outputs and isinstance(node, _ASSIGNS):
            before = [s for s in region if (s.end_lineno or s.lineno) < node.lineno] if in_loop else []
            computed, as_is = round_trip(region, after, outputs, before)
            if computed or as_is:
                # all the host does with it is compute what it uploads again, or upload it again as
                # it is: nothing waits on the value (an upload of it as it is stays a transfer per step)
                upload = (computed or as_is)[0]
                _mark_uploaded(facts, event.function, computed)
                event.detail.pop("decides", None)
                event.detail["round_trip"] = f"`{short_text(upload)}`, line {upload.lineno}"
                if computed:
                    event.detail.setdefault("reason", f"is a blocking copy whose value the host only computes with "
                                                      f"to upload it again ({event.detail['round_trip']}): computed on "
                                                      f"the device, it needs no wait")
                else:
                    event.detail.setdefault("reason", f"is a blocking copy whose value the host only uploads "
                                                      f"again as it is ({event.detail['round_trip']}; reading its shape "
                                                      f"needs no data): the device has it, it needs no wait")
                continue
        if computed_with(node, event.place.line, event.place.column):
            event.detail["read"] = True  # the host computes with it right there (a loss, an update)
            continue
        if handed_on(node, event.place.line, event.place.column):
            event.detail["read"] = True  # written out, shown or handed to another thread right there
            continue
        if isinstance(node, ast.Return) and not in_loop:
            event.detail["carried"] = [RETURNED]  # `return int(np.argmax(d.copy_to_host()))`: the result
            continue
        own = _class_methods(methods, event.function)
        if not outputs:
            kept = kept_in(node, event.place.line)
            if kept and in_loop and _read_after_pieces(bodies, event, kept, own):
                event.detail["read"] = True  # each piece's copy kept in a list the step reads after the pieces
            continue
        scope = (functions.get(bodies[event.function].line) if event.function else tree) if in_loop else None
        reduced = reduced_for_launch(scope, node, outputs) if scope is not None else ""
        if reduced:
            # the host needs one number, for a kernel: a reduction on the device needs no copy
            event.detail.setdefault("reason", f"is a blocking copy of a whole array the host only reduces to one "
                                              f"number that it passes to a kernel (`{reduced}`): reduce on the "
                                              f"device and pass the result to the kernel as a device array")
            continue
        read, tracked = read_after(region, after, outputs, own, _not_read_on_its_iteration(bodies, event) if in_loop else frozenset(),
                                   wrap=node.lineno if in_loop else None)
        if not read and in_loop:
            read = _read_after_pieces(bodies, event, tracked, own)
            if not read:
                read, tracked = _kept_past_pieces(bodies, functions, event, tracked, own)
        if read:
            event.detail["read"] = True
        else:
            carried = {t for t in tracked if t.startswith("self.") or t == RETURNED}
            if carried:
                event.detail["carried"] = sorted(carried)
    carried_by = {}
    for event in facts.events:
        if event.detail.get("carried"):
            carried_by.setdefault(event.function, []).append(event)
    for call in facts.events:
        copies = carried_by.get(str(call.detail.get("callee", ""))) if call.kind == "call" and not call.detail.get(
            "path") else None
        if not copies:
            continue
        found = _region(bodies, functions, call)
        if found is None or not found[3]:
            continue
        region, after, node, _ = found
        own = _class_methods(methods, call.function)
        skip = _not_read_on_its_iteration(bodies, call)
        used = []
        owner = _receiver(node, call)
        for copy_back in copies:
            carried = set(copy_back.detail["carried"])
            tracked = {t for t in carried if t != RETURNED} | (receivers(node) if RETURNED in carried else set())
            # `fluid.step()` keeping its copy in `self.density`: the caller reads it as `fluid.density`
            tracked |= {f"{owner}.{t[len('self.'):]}" for t in tracked if owner and t.startswith("self.")}
            if tracked and read_after(region, after, tracked, own, skip, wrap=node.lineno)[0]:
                used.append(copy_back.place)
        if used:
            call.detail["uses_copy"] = used
    for call in facts.events:
        # a call into another file (whose copies this file's facts do not hold) in a loop: whether the
        # iteration reads its result (`img = camera.render()`, shown: a copy it returns is read) and
        # which attributes of its receiver it reads after it (`fluid.step()`, then `fluid.density`
        # drawn: a copy the method keeps in `self.density` is read)
        if call.kind != "call" or not call.detail.get("path"):
            continue
        found = _region(bodies, functions, call)
        if found is None or not found[3]:
            continue
        region, after, node, _ = found
        own = _class_methods(methods, call.function)
        skip = _not_read_on_its_iteration(bodies, call)
        outputs = copy_outputs(node, -1) if isinstance(node, ast.Assign) else set()  # (line -1: the targets alone)
        if outputs and read_after(region, after, outputs, own, skip, wrap=node.lineno)[0]:
            call.detail["result_read"] = True
        owner = _receiver(node, call)
        if owner:
            named = sorted({sub.attr for item in region for sub in walk_nodes(item) if isinstance(sub, ast.Attribute)
                            and isinstance(sub.value, ast.Name) and sub.value.id == owner})
        elif _on_self(node, call) and own:
            # `self.update()` run by a subclass's override in another file, then `self.render()`
            # reading `self.state`: what the class's own methods read of the object
            owner = "self"
            named = sorted({sub.attr for method in own.values() for sub in walk_nodes(method) if isinstance(
                sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "self"})
        else:
            named = []
        read = [attr for attr in named if read_after(region, after, {f"{owner}.{attr}"}, own, skip)[0]]
        if read:
            call.detail["attributes_read"] = read
    _mark_results_kept(facts, (functions, methods), bodies)


def _receiver(statement: ast.AST, call) -> str:
    """The name of the object whose method the call event at ``call.place`` calls in
    ``statement`` (``fluid`` for ``fluid.step()``), or "" (a function, a method of ``self``)."""
    for sub in walk_nodes(statement):
        if isinstance(sub, ast.Call) and (sub.lineno, sub.col_offset + 1) == (call.place.line, call.place.column) \
                and isinstance(sub.func, ast.Attribute) and isinstance(sub.func.value, ast.Name) and (
                sub.func.value.id not in ("self", "cls")):
            return sub.func.value.id
    return ""


def _on_self(statement: ast.AST, call) -> bool:
    """Whether the call event at ``call.place`` in ``statement`` is a method called on ``self``."""
    return any(isinstance(sub, ast.Call) and (sub.lineno, sub.col_offset + 1) == (call.place.line, call.place.column)
               and isinstance(sub.func, ast.Attribute) and isinstance(sub.func.value, ast.Name)
               and sub.func.value.id == "self" for sub in walk_nodes(statement))


def _mark_results_kept(facts: HostFacts, functions, bodies: Dict[str, frequency.Frequency]) -> None:
    """Mark ``result_read`` a call outside any loop of its function whose result the host reads
    later: in that function (``next_states = tool.calculate_next(s)``, then used), or, where
    the function keeps it in ``self.<attr>`` (or returns it), after a call of that function
    elsewhere in the file (``self.update_grid()`` then ``self.update_current_states()``, which
    reads ``self.next_states``): a copy the callee returns is then a value the host needs."""
    functions, methods = functions
    callers: Dict[str, list] = {}  # a function of this file -> the calls of it here
    for event in facts.events:
        if event.kind == "call" and not event.detail.get("path"):
            callers.setdefault(str(event.detail.get("callee", "")), []).append(event)
    for call in facts.events:
        if call.kind != "call" or call.detail.get("result_read"):
            continue
        found = _region(bodies, functions, call)
        if found is None or found[3] or not isinstance(found[2], ast.Assign):
            continue
        region, after, node, _ = found
        outputs = copy_outputs(node, -1)
        if not outputs:
            continue
        read, tracked = read_after(region, after, outputs, _class_methods(methods, call.function))
        if read:
            call.detail["result_read"] = True
            continue
        kept = {t for t in tracked if t.startswith("self.") or t == RETURNED}
        if not kept:
            continue
        for caller in callers.get(call.function, ()):
            where = _region(bodies, functions, caller)
            if where is None:
                continue
            region, after, node, _ = where
            tracked = {t for t in kept if t != RETURNED} | (receivers(node) if RETURNED in kept else set())
            if tracked and read_after(region, after, tracked, _class_methods(methods, caller.function))[0]:
                call.detail["result_read"] = True
                break


def _mark_uploaded(facts: HostFacts, function: str, uploads) -> None:
    """The uploads of a round trip carry what the host computed on this step from the copy back:
    no transfer before the loop could replace them (the copy is the cost, reported as a wait)."""
    places = {(call.lineno, call.col_offset + 1) for call in uploads}
    for event in facts.events:
        if event.kind == "alloc" and event.function == function and (event.place.line, event.place.column) in places:
            event.detail["new_data"] = True


def _mark_launch_reads(facts: HostFacts, functions, bodies: Dict[str, frequency.Frequency]) -> None:
    """Mark ``read`` a launch on host arrays, outside any loop of its function (a function the
    step loop calls), after which the host reads, in the same call, an array the kernel writes
    (``Launch.detail["writes"]``): numba-cuda's copy back brings that value, and the wait after
    the launch is for it. Another launch handed the array does not read it on the host. A launch
    in a loop of its own function waits on each of that loop's iterations, and is left as it is."""
    functions, methods = functions
    stripped: Dict[int, list] = {}  # id(a region) -> it without its launches (made once per region)
    for event in facts.events:
        written = set(event.detail.get("writes", ())) if isinstance(event, Launch) else set()
        outputs = {arg.name for arg in event.host_arrays} & written if written else set()
        if not outputs:
            continue
        found = _region(bodies, functions, event)
        if found is None:
            continue
        region, after, node, in_loop = found
        if id(region) not in stripped:
            stripped[id(region)] = _without_launches(region)
        if in_loop:
            # in a step loop: what the host reads of the kernel's output later in the iteration, or
            # at the next one's start (`io.imshow(grids[a])` shows the grid the launch wrote); a
            # wait per iteration of another loop (the layers of one call) stays reported
            statement = bodies[event.function].at(event.place.line)
            if statement is None or statement.loop is None or statement.loop.kind != "step":
                continue
            held = {_container(name) for name in outputs} - {""}
            loop_node = statement.loop.node
            if held and (isinstance(loop_node, ast.While) and held & names_read(loop_node.test) or read_after(
                    stripped[id(region)], after, held, _class_methods(methods, event.function), wrap=node.lineno)[0]):
                event.detail["read"] = True  # (`while err[0] > tol:` reads it before the next iteration, too)
            continue
        region = stripped[id(region)]
        if _computed_after(region, after, outputs) or read_after(
                region, after, outputs, _class_methods(methods, event.function))[0]:
            event.detail["read"] = True


def _container(name: str) -> str:
    """The array or list an argument's text names (``grids`` of ``grids[int(b)]``)."""
    try:
        node = ast.parse(name, mode="eval").body
    except SyntaxError:
        return ""
    while isinstance(node, ast.Subscript):
        node = node.value
    return ast.unparse(node) if isinstance(node, (ast.Name, ast.Attribute)) else ""


def _computed_after(region, after: int, tracked: Set[str]) -> bool:
    """Whether a statement of ``region`` after line ``after`` computes with one of ``tracked``
    (names, ``self.<attr>``): an operand of arithmetic or a comparison (``255 * self.image``),
    or the object of a method call (``image.mean(axis=0)``), not just stored elsewhere."""
    def is_tracked(node) -> bool:
        while isinstance(node, ast.Subscript):
            node = node.value
        text = node.id if isinstance(node, ast.Name) else ast.unparse(node) if isinstance(
            node, ast.Attribute) and isinstance(node.value, ast.Name) else ""
        return text in tracked and isinstance(getattr(node, "ctx", None), ast.Load)

    for statement in region:
        for node in walk_nodes(statement):
            if getattr(node, "lineno", 0) <= after:
                continue
            operands = [node.left, node.right] if isinstance(node, ast.BinOp) else [node.operand] if isinstance(
                node, ast.UnaryOp) else [node.left] + node.comparators if isinstance(node, ast.Compare) else []
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr not in (
                    "copy", "append"):
                operands.append(node.func.value)
            if any(is_tracked(operand) for operand in operands):
                return True
    return False


def _without_launches(region):
    """``region`` with its statements that only launch a kernel (``k[g, b](x)``) left out, and
    its ``return``s (what they hand back is the caller's to read or keep)."""
    class Strip(ast.NodeTransformer):
        def visit_Expr(self, node):
            call = node.value
            return None if isinstance(call, ast.Call) and configured_kernel(call.func) is not None else node

        def visit_Return(self, node):
            return ast.copy_location(ast.Pass(), node)

        def generic_visit(self, node):
            node = super().generic_visit(node)
            if isinstance(getattr(node, "body", None), list) and not node.body:
                node.body = [ast.Pass()]  # (a block whose launches were left out stays a block)
            return node

    return [Strip().visit(copy.deepcopy(statement)) or ast.Pass() for statement in region]


def _functions(tree: ast.Module):
    """Each function's node by its ``def`` line, and each class's methods by name (by class name)."""
    functions: Dict[int, ast.AST] = {}
    methods: Dict[str, Dict[str, ast.AST]] = {}
    for node in tree_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions[node.lineno] = node
            for decorator in node.decorator_list:
                functions.setdefault(decorator.lineno, node)
        elif isinstance(node, ast.ClassDef):
            methods[node.name] = {f.name: f for f in node.body
                                  if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
    return functions, methods


def _class_methods(methods, qualname: str) -> Dict[str, ast.AST]:
    """The methods of the class a method (``Class.method``) belongs to; none for a function."""
    owner = qualname.rsplit(".", 1)[0] if "." in qualname else ""
    return methods.get(owner.rsplit(".", 1)[-1], {}) if owner else {}


def _read_after_pieces(bodies, event: Event, tracked: Set[str], methods) -> bool:
    """Whether a copy made in a loop of pieces (``sweep``, ``few``: each row of one array) and
    kept in what ``tracked`` names at that loop's end (``rows.append(d_row.copy_to_host())``)
    is read after it in the iteration of a loop around it: the host needs it on that iteration."""
    statement = bodies[event.function].at(event.place.line)
    loop = statement.loop
    while loop is not None and loop.kind in ("sweep", "few") and loop.parent is not None:
        read, tracked = read_after(loop.parent.node.body, loop.node.end_lineno or loop.line, tracked, methods)
        if read:
            return True
        loop = loop.parent
    return False


def _kept_past_pieces(bodies, functions, event: Event, tracked: Set[str], methods) -> Tuple[bool, Set[str]]:
    """For a copy made in loops of pieces only (``sweep``, ``few``): whether its function reads it
    after the outermost loop, and what carries it out of the function (``read_after``'s pair).
    A copy into the loop's item (``d.copy_to_host(out)`` over ``zip(..., outputs)``) fills the
    list the loop iterates (``return [s * r for s, r in zip(sums, outputs)]`` reads it)."""
    body = bodies[event.function]
    statement = body.at(event.place.line)
    loop = statement.loop
    tracked = set(tracked)
    while loop is not None:
        if loop.kind not in ("sweep", "few"):
            return False, set()
        tracked |= _iterated_for(loop.node, tracked)
        if loop.parent is None:
            break
        tracked = read_after(loop.parent.node.body, loop.node.end_lineno or loop.line, tracked, methods)[1]
        loop = loop.parent
    function = functions.get(body.line)
    if loop is None or function is None:
        return False, set()
    return read_after(function.body, loop.node.end_lineno or loop.line, tracked, methods)


def _iterated_for(node: ast.AST, items: Set[str]) -> Set[str]:
    """The names of the lists a ``for`` takes ``items`` from: ``outputs`` for ``out`` in
    ``for x, out in zip(inputs, outputs)`` or ``for out in outputs``."""
    if not isinstance(node, (ast.For, ast.AsyncFor)):
        return set()
    target, iterable = node.target, node.iter
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "enumerate" \
            and iterable.args and isinstance(target, ast.Tuple) and len(target.elts) == 2:
        target, iterable = target.elts[1], iterable.args[0]
    if isinstance(target, ast.Name):
        return {iterable.id} if target.id in items and isinstance(iterable, ast.Name) else set()
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "zip" \
            and isinstance(target, ast.Tuple) and len(target.elts) == len(iterable.args):
        return {source.id for item, source in zip(target.elts, iterable.args)
                if isinstance(item, ast.Name) and item.id in items and isinstance(source, ast.Name)}
    return set()


def _region(bodies, functions, event: Event):
    """The statements that run after ``event`` in the same iteration (its innermost loop's
    body, or its function's where it has none there), the line they start after, the
    statement holding the event, and whether that statement is in a loop."""
    body = bodies.get(event.function)
    statement = body.at(event.place.line) if body is not None else None
    if statement is None:
        return None
    node = statement.node
    simple = not hasattr(node, "body")
    after = (node.end_lineno or node.lineno) if simple else event.place.line
    if statement.loop is not None:
        return statement.loop.node.body, after, node, True
    function = functions.get(body.line)
    if function is None:
        return None
    return function.body, after, node, False


def _decides(body: frequency.Frequency, event: Event) -> bool:
    """Whether the value a copy brings back decides what its loop's iteration does next: the
    copy is in an ``if``/``while`` test, or assigns a name that a test of the loop reads."""
    statement = body.at(event.place.line)
    if statement is None:
        return False
    node = statement.node
    in_test = isinstance(node, _TESTS) and node.test.lineno <= event.place.line <= (node.test.end_lineno or node.lineno)
    if in_test and isinstance(node, ast.While):
        return True  # `while d_err[0] > tol:`: the loop's own test
    if statement.loop is None:
        return False
    if in_test:
        return True
    assigned = _stored(node)
    if not assigned:
        return False
    for inner in walk_nodes(statement.loop.node):
        if isinstance(inner, _TESTS) and assigned & names_read(inner.test):
            return True
    return False


def _stored(node: ast.stmt) -> Set[str]:
    """What an assignment stores into: names, attribute chains (``self.spins``, not the object
    ``self`` a test may read another attribute of) and the containers it stores items in."""
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
        node, (ast.AnnAssign, ast.AugAssign)) else []
    stored = {name for target in targets for name in assigned_names(target)}
    for target in targets:
        for sub in walk_nodes(target):
            if isinstance(sub, ast.Subscript) and isinstance(sub.ctx, ast.Store):
                container = sub.value
                while isinstance(container, ast.Subscript):  # `flags[k][0] = ...`
                    container = container.value
                stored.add(dotted_name(container))
    return stored - {""}


def _not_read_on_its_iteration(bodies, event: Event) -> Set[int]:
    """The ids of the nodes of the statements that run only every few iterations (behind a
    modulo or counter gate) of the loop that runs ``event`` on each of its own: a value the
    host reads only there is not one it needs on every iteration (a copy made every sweep,
    read by the measurement every 100 sweeps); and of the arms of an ``if`` that an
    iteration running ``event`` does not take."""
    body = bodies.get(event.function)
    statement = body.at(event.place.line) if body is not None else None
    if statement is None or statement.loop is None:
        return frozenset()
    skipped = _other_arms(statement.loop.node.body, event.place.line)
    if statement.place == "periodic":
        return skipped
    return skipped | {id(node) for other in body.statements() if other.loop is statement.loop and
                      other.place == "periodic" for node in walk_nodes(other.node)}


def _other_arms(region, line: int) -> Set[int]:
    """The ids of the nodes of the arms an ``if`` around ``line`` does not take when it takes
    the one holding it (``if self.use_gpu: <the copy> else: <the CPU update>``): they do not
    run on an iteration that runs the line."""
    skipped: Set[int] = set()
    for node in walk_nodes(ast.Module(body=list(region), type_ignores=[])):
        if not isinstance(node, ast.If):
            continue
        for arm, other in ((node.body, node.orelse), (node.orelse, node.body)):
            if arm and arm[0].lineno <= line <= (arm[-1].end_lineno or arm[-1].lineno):
                skipped |= {id(sub) for statement in other for sub in walk_nodes(statement)}
    return skipped


def _mark_awaited(facts: HostFacts, tree: ast.Module, functions, bodies: Dict[str, frequency.Frequency]) -> None:
    """Mark ``read`` a synchronization that waits for an asynchronous copy back the host reads
    later in the same iteration: ``with stream.auto_synchronize(): ...; d.to_host(stream)``
    before the host reads the array ``d`` was made from, or ``d.copy_to_host(out, stream=s)``
    then ``s.synchronize()`` before it reads ``out``. The wait is for the value, as a blocking
    copy's would be. ``functions``: ``_functions`` of ``tree``."""
    functions, methods = functions
    for event in facts.events:
        if event.kind != "sync":
            continue
        found = _region(bodies, functions, event)
        if found is None:
            continue
        region, after, node, in_loop = found
        if not in_loop and not event.function:
            continue  # (a module's own wait outside loops: nothing reads it on an iteration)
        synced = event.what[:-len("()")].rsplit(".", 1)[0] if "." in event.what else ""
        device_wide = event.what.endswith("cuda.synchronize()")
        if event.detail.get("on_exit") and isinstance(node, (ast.With, ast.AsyncWith)):
            waited, after = node.body, node.end_lineno or node.lineno  # the block's work, waited for on leaving it
        else:
            waited = list(_ended_before(region, event.place.line))
        line = bodies[event.function].line
        function = functions.get(line) if line else tree  # (a module's own code: its top level)
        filled = _copied_back(waited, synced, device_wide, function)
        # the lists a loop before the wait took the filled items from (`copy_to_host(out, stream=s)`
        # over `zip(..., outputs)`), read after it: `return np.sum(outputs, axis=0)`
        filled |= {name for statement in waited for loop in walk_nodes(statement)
                   for name in _iterated_for(loop, filled)}
        if filled and read_after(region, after, filled, _class_methods(methods, event.function))[0]:
            event.detail["read"] = True


def _ended_before(statements: List[ast.stmt], line: int) -> Iterator[ast.stmt]:
    """The statements of a block that end before ``line``, and those ending before it in the
    blocks of the statement that holds it (a ``with cuda.defer_cleanup():`` around the loop
    and the wait after it)."""
    for statement in statements:
        if (statement.end_lineno or statement.lineno) < line:
            yield statement
        elif statement.lineno <= line and not isinstance(statement, SCOPES):
            for field in ("body", "orelse", "handlers", "finalbody"):
                yield from _ended_before(getattr(statement, field, None) or [], line)


def _copied_back(statements, stream: str, any_stream: bool, function) -> Set[str]:
    """The host arrays asynchronous copies back in ``statements`` fill on ``stream`` (on any
    stream where ``any_stream``): ``out`` of ``d.copy_to_host(out, stream=s)`` (or the name it
    is assigned to), the array ``d`` was made from for numba's ``d.to_host(stream)``."""
    filled: Set[str] = set()
    for statement in statements:
        for node in walk_nodes(statement):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
                    "copy_to_host", "to_host")):
                continue
            at = 1 if node.func.attr == "copy_to_host" else 0
            given = node.args[at] if len(node.args) > at else next(
                (k.value for k in node.keywords if k.arg == "stream"), None)
            if given is None or not (any_stream or ast.unparse(given) == stream):
                continue
            if node.func.attr == "to_host":
                filled |= _made_from(function, node.func.value)
                continue
            out = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "ary"), None)
            if out is not None:
                filled |= {ast.unparse(out)} if isinstance(out, (ast.Name, ast.Attribute)) else set()
            elif isinstance(statement, ast.Assign):
                filled |= {ast.unparse(t) for t in statement.targets if isinstance(t, (ast.Name, ast.Attribute))}
    return filled


def _made_from(function, device: ast.expr) -> Set[str]:
    """The host array a numba device array was uploaded from (``d = cuda.to_device(h, ...)``):
    what ``d.to_host()`` copies back into."""
    text = ast.unparse(device)
    found: Set[str] = set()
    for node in walk_nodes(function) if function is not None else ():
        if isinstance(node, ast.Assign) and any(ast.unparse(t) == text for t in node.targets) and isinstance(
                node.value, ast.Call) and isinstance(node.value.func, (ast.Attribute, ast.Name)) and (
                getattr(node.value.func, "attr", getattr(node.value.func, "id", "")) == "to_device") and \
                node.value.args and isinstance(node.value.args[0], (ast.Name, ast.Attribute)):
            found.add(ast.unparse(node.value.args[0]))
    return found
