"""A statement's place in its innermost loop, from the branches on the way to it:
``every`` iteration (an arm guarding the work's collection against being empty too, a phase
of a time loop: ``if t < t_stim:`` on each step of its run),
``periodic`` (a modulo or counter gate), ``event`` (a flag or state test
the branch itself flips, a test that holds once, an exception handler) or ``unknown``."""

from __future__ import annotations

import ast
from functools import cached_property
from typing import Optional, Sequence, Tuple

from .changes import Changes
from .syntax import assigned_names, calls_in, dotted_name, ends_with_exit, names_read, own_nodes, short_text
from ...syntax import walk_nodes


class Guard:
    """One arm of an ``if`` between a loop (or a body) and a statement, and the place it
    gives. ``arm``: the statements the arm guards where they are not the ``if``'s own (after
    ``if step % every != 0: continue``, the rest of the block is the test's false arm)."""

    def __init__(self, node: Optional[ast.If], body_arm: bool, other: Sequence[ast.stmt],
                 changes: Optional[Changes], fixed: Optional[Tuple[str, str]] = None,
                 arm: Optional[Sequence[ast.stmt]] = None, whole: bool = False):
        """``whole``: the ``if`` (without ``else``) is the whole body of its loop."""
        self.node, self.body_arm, self.other, self.changes = node, body_arm, other, changes
        self.whole = whole
        self._fixed = fixed
        self._arm = arm

    @classmethod
    def fixed(cls, place: str, reason: str) -> "Guard":
        return cls(None, True, (), None, (place, reason))

    @cached_property
    def place(self) -> Tuple[str, str]:
        if self._fixed is not None:
            return self._fixed
        assert self.node is not None and self.changes is not None
        test, changes = self.node.test, self.changes
        text = short_text(test)
        arm = self._arm if self._arm is not None else self.node.body if self.body_arm else self.node.orelse
        rare = _rare_modulo_arm(test)
        if rare is self.body_arm and (changes.varying(test) or not changes.in_loop):
            return "periodic", f"every few iterations: `{text}`" + ("" if rare else " is false")
        if not self.body_arm and self.other and isinstance(self.other[-1], ast.Raise):
            # `if state is None: raise ValueError(...)`: an error guard; the rest is the normal path
            return "every", "the other branch raises: this one runs each time the code goes on"
        flipped = _flips_own_test(test, arm)
        if flipped:
            return "event", f"the branch switches its own test off (`{flipped}`): once"
        flipped = _flips_own_test(test, self.node.body) if not self.body_arm and self.node.orelse else ""
        if flipped:
            # `if learn: ...; learn = False` / `else: recognize(...)`: the arm the rare one returns to
            return "every", f"the other branch switches its own test off (`{flipped}`): this one is the usual path"
        if self.body_arm and _lazily_made(test):
            # `if self._container is None: self._create_container()`: made the first time it is missing
            return "event", f"made once, the first time it is missing: `{text}`"
        if self.body_arm:
            reset = _counter_reset(test, arm, changes)
            if reset:
                return "periodic", f"a counter gate: `{text}`, `{reset}` in the branch"
            moved = _moves_own_threshold(test, arm, changes)
            if moved:
                return "periodic", f"the branch moves its own threshold (`{moved}`): `{text}`"
            if _once_equality(test, changes):
                return "event", f"holds once: `{text}`"
            if _once_equality(test, changes, ast.NotEq):
                return "every", f"all iterations but one: `{text}` fails once"
            counted = _work_guard(test, changes)
            if counted:
                return "every", f"a guard for work to do (`{text}`, `{counted}` has items whenever there is any)"
            got = _got_something(test, arm, changes) if changes.in_loop else ""
            if got:
                # `sample = sink.pull()` / `if sample:`; `ok, frame = cap.read()` / `if ok:`: the work on what came
                return "every", f"the iteration's attempt got something (`{text}`, `{got}`): this runs on each one that did"
        else:
            if _once_equality(test, changes):  # `if layer == 0: continue`: the rest runs on all the others
                return "every", f"all iterations but one: `{text}` holds once"
            nonempty = _nonempty(test)  # `if n == 0: continue`: what follows is `if n > 0:`
            counted = _work_guard(nonempty, changes) if nonempty is not None else ""
            if counted:
                return "every", f"the other branch skips an empty piece (`{text}`, `{counted}` has items whenever " \
                                f"there is any)"
            if _nothing_found(test):  # `if qs is None: continue`: an attempt that found nothing
                return "every", f"the other branch skips an attempt that found nothing (`{text}`): the rest runs " \
                                f"on each one that did"
        phase = _phase(test, changes, self.body_arm)
        if phase:
            return "every", phase
        if self.other and ends_with_exit(self.other):
            return "every", "the other branch leaves: this one runs each time the code goes on"
        if _kind_question(test):
            return "every", f"a question about what kind of value it is given (`{text}`): each time or never"
        if not changes.varying(test) and not _impure_calls(test):
            kept = _kept_for_the_caller(arm, changes) if changes.in_loop else ""
            if kept:
                # a mode the caller switches on (debug output): when on, the host wants the value then
                return "event", f"an option the loop does not change (`{text}`) adds output kept for the caller " \
                                f"(`{kept}`), which nothing in the loop reads"
            return "every", f"a test that does not change here (`{text}`): each time or never"
        modes = [value for value in test.values if not changes.varying(value) and not _impure_calls(value)] if (
            self.body_arm and isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or)) else []
        if modes:
            # `if check_error or it == last:`: an option the loop does not change; where it holds, the
            # branch runs on every iteration (the other operand adds an iteration or a few)
            kept = _kept_for_the_caller(arm, changes) if changes.in_loop else ""
            if kept:
                return "event", f"an option the loop does not change (`{short_text(modes[0])}`) adds output kept " \
                                f"for the caller (`{kept}`), which nothing in the loop reads"
            return "every", f"`{short_text(modes[0])}` does not change here: where it holds, each time (`{text}`)"
        if self.whole and self.body_arm and not changes.varying(test):
            # `while True: if not frames.full(): ...`: an iteration whose test fails does nothing,
            # so the loop's work is the iterations where it holds (a producer waiting on its queue)
            return "every", f"the loop's whole body, under `{text}`: each iteration that does any work runs it"
        return "unknown", f"a test of what changes here: `{text}`"



def _nothing_found(test: ast.AST) -> bool:
    """``x is None``, or several such joined by ``or``: the iteration's attempt gave nothing."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        return all(_nothing_found(value) for value in test.values)
    return isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Is) and \
        isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None


def _got_something(test: ast.AST, arm: Sequence[ast.stmt], changes: Changes) -> str:
    """The statement of the loop that fetched what ``test`` checks, where the arm works on it:
    ``sample = sink.emit("try-pull-sample")`` then ``if sample:`` using ``sample``; ``ok, frame =
    cap.read()`` (a flag and a value) then ``if ok:`` using ``frame``. "" for any other test (a
    flag the arm does not work with, ``if converged:``, says nothing of the work)."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.IsNot) and isinstance(
            test.comparators[0], ast.Constant) and test.comparators[0].value is None:
        test = test.left
    if not isinstance(test, ast.Name):
        return ""
    read = set().union(*(names_read(statement) for statement in arm))
    for node in own_nodes(changes.statements):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call)):
            continue
        target = node.targets[0]
        if isinstance(target, ast.Name) and target.id == test.id and test.id in read:
            return short_text(node)
        if isinstance(target, ast.Tuple) and len(target.elts) == 2 and all(
                isinstance(e, ast.Name) for e in target.elts) and target.elts[0].id == test.id and \
                target.elts[1].id in read:
            return short_text(node)
    return ""


def _kept_for_the_caller(arm: Sequence[ast.stmt], changes: Changes) -> str:
    """The collection an arm does nothing but append to (``debug["flow"].append(d.copy_to_host())``),
    where the loop reads that collection nowhere else: output kept for whoever called, or ""."""
    bases = []
    for statement in arm:
        call = statement.value if isinstance(statement, ast.Expr) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in (
                "append", "extend")):
            return ""
        base = _collection(call.func.value)
        if not base:
            return ""
        bases.append(base)
    if not bases:
        return ""
    receivers = {id(node) for s in changes.statements for sub in own_nodes([s]) if isinstance(sub, ast.Call)
                 and isinstance(sub.func, ast.Attribute) and sub.func.attr in ("append", "extend")
                 for node in walk_nodes(sub.func.value)}
    for node in own_nodes(changes.statements):
        if isinstance(node, (ast.Name, ast.Attribute)) and dotted_name(node) in bases and id(node) not in receivers:
            return ""  # read (or passed on) elsewhere in the loop: part of the work
    return ast.unparse(arm[0]).strip()


def _collection(node: ast.expr) -> str:
    """The name a container is reached by: ``hist`` for ``hist`` and ``hist["flow"]``."""
    while isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        node = node.value
    return dotted_name(node)


# builtins that only read their arguments: `len(self.dims) == 1` is as fixed as `self.dims`
# `numba.cuda.is_cuda_array(x)`, `cp.get_array_module(x)`: what the value is, the same each time
_KIND_QUERIES = frozenset({"is_cuda_array", "is_device_array", "get_array_module", "isscalar", "iscomplexobj",
                           "is_available"})
_PURE_BUILTINS = frozenset({"len", "isinstance", "abs", "bool", "int", "float", "min", "max", "type", "callable"})


def _lazily_made(test: ast.AST) -> bool:
    """``obj.attr is None``: an object's part that does not exist yet (a lazy initialisation)."""
    return isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Is) and \
        isinstance(test.left, ast.Attribute) and isinstance(test.comparators[0], ast.Constant) and \
        test.comparators[0].value is None


def _kind_question(test: ast.AST) -> bool:
    """``not numba.cuda.is_cuda_array(self._storage)``, ``isinstance(x, np.ndarray)``: a test of
    what kind of array a value is, alone or negated (a conversion guard: its arm converts it)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    return isinstance(test, ast.Call) and (
        isinstance(test.func, ast.Attribute) and test.func.attr in _KIND_QUERIES
        or isinstance(test.func, ast.Name) and test.func.id == "isinstance")


def _impure_calls(test: ast.AST) -> list:
    """The calls in a test that may return something new each time (all but pure builtins
    of a bare name and the array libraries' questions about what kind of array a value is)."""
    return [call for call in calls_in(test)
            if not (isinstance(call.func, ast.Name) and call.func.id in _PURE_BUILTINS)
            and not (isinstance(call.func, ast.Attribute) and call.func.attr in _KIND_QUERIES)]



def gated_nodes(statements: Sequence[ast.stmt]) -> set:
    """Ids of the statements in the rare arm of a modulo gate among these (``if (i + 1) % 100 ==
    0:``'s body, ``if step % every:``'s ``else``), nested gates included: what runs every N
    iterations, not on each."""
    found: set = set()
    for node in statements:
        for sub in walk_nodes(node):
            if isinstance(sub, ast.If) and id(sub) not in found:
                rare = _rare_modulo_arm(sub.test)
                if rare is not None:
                    found.update(id(n) for s in (sub.body if rare else sub.orelse) for n in walk_nodes(s))
    return found


def _rare_modulo_arm(test: ast.AST) -> Optional[bool]:
    """Which arm of a modulo test is the rare one: True the ``if``'s own (``step % every ==
    0``, ``not step % every``), False its ``else`` (``step % every != 0``, ``step % every``);
    None for a test that is not a modulo gate."""
    if isinstance(test, ast.BinOp) and isinstance(test.op, ast.Mod):
        return False  # truthy when not a multiple: the multiples are the `else`
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _rare_modulo_arm(test.operand)
        return None if inner is None else not inner
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and any(
            isinstance(side, ast.BinOp) and isinstance(side.op, ast.Mod) for side in (test.left, test.comparators[0])):
        return {ast.Eq: True, ast.NotEq: False}.get(type(test.ops[0]))
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return True if any(_rare_modulo_arm(value) is True for value in test.values) else None
    return None



def _counter_reset(test: ast.AST, arm: Sequence[ast.stmt], changes: Changes) -> str:
    """A counter gate: the test reads a name the code increments, and the branch sets it
    back to a constant (``since += 1`` ... ``if since == every: since = 0``)."""
    for statement in arm:
        if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Constant):
            for target in statement.targets:
                for name in assigned_names(target):
                    if name in names_read(test) and name in changes.incremented:
                        return ast.unparse(statement).strip()
    return ""



def _moves_own_threshold(test: ast.AST, arm: Sequence[ast.stmt], changes: Changes) -> str:
    """The branch advances what its test compares with while something else in the test
    advances on its own (``t += dt`` ... ``if t >= next_out: ...; next_out += every``): it
    runs once per interval. A branch that advances the loop's own counter (``if k < n - 1:
    k += 1``) is not one."""
    read = names_read(test)
    for statement in arm:
        if isinstance(statement, ast.AugAssign) and isinstance(statement.op, (ast.Add, ast.Sub)):
            moved = set(assigned_names(statement.target)) & read
            others = read - moved - {n.split(".", 1)[0] for n in moved}
            # in a loop the other side must change on its own; in a called body it changes between calls
            advancing = others & changes.changed if changes.in_loop else others - changes.changed
            if moved and advancing:
                return ast.unparse(statement).strip()
    return ""



def _flips_own_test(test: ast.AST, arm: Sequence[ast.stmt]) -> str:
    """The branch sets a flag its test reads to a constant (``self.burning = False``), or
    gives a value to what its test checks for ``None``: it runs once."""
    read = names_read(test)
    none_tested = {dotted_name(c.left) for c in walk_nodes(test) if isinstance(c, ast.Compare) and
                   any(isinstance(o, ast.Is) for o in c.ops) and
                   any(isinstance(x, ast.Constant) and x.value is None for x in c.comparators)}
    for statement in arm:
        if not isinstance(statement, ast.Assign):
            continue
        for target in statement.targets:
            for name in assigned_names(target):
                if name in read and isinstance(statement.value, ast.Constant) and isinstance(
                        statement.value.value, (bool, type(None))):
                    return ast.unparse(statement).strip()
                if name in none_tested:
                    return ast.unparse(statement).strip()
    return ""



# calls that keep some items of an array or a list: their result may well be empty
_SELECTIONS = frozenset({"where", "nonzero", "argwhere", "flatnonzero", "extract", "compress", "filter"})


def _work_guard(test: ast.AST, changes: Changes) -> str:
    """``n > 0`` (``n = len(edges)``), ``len(edges)``, ``edges.size != 0``: a test that the
    collection the work runs over is not empty, where the code builds it whole (``edges =
    np.array(graph.edges())``), not by selecting some items (``np.where(x > L)``, a mask, a
    comprehension's ``if``): it holds whenever there is work, not on rare events. Gives the
    collection's name, or ""."""
    counted = _counted(test, changes)
    if not counted:
        return ""
    values = changes.assignments.get(counted, ())
    if not values or not all(isinstance(v, ast.Call) and not _selects(v) for v in values):
        return ""  # a parameter, an attribute, something selected: an event queue may be empty for long
    return counted


def _nonempty(test: ast.AST) -> Optional[ast.expr]:
    """The non-emptiness test an emptiness test is false on: ``n > 0`` for ``n == 0``,
    ``n <= 0`` or ``n < 1``; ``x`` for ``not x``; None for any other test."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if isinstance(left, ast.Constant) and not isinstance(right, ast.Constant):
        left, right = right, left
        op = {ast.Gt: ast.Lt(), ast.GtE: ast.LtE()}.get(type(op), op)
    if not (isinstance(right, ast.Constant) and type(right.value) is int):
        return None
    if isinstance(op, (ast.Eq, ast.LtE)) and right.value == 0 or isinstance(op, ast.Lt) and right.value == 1:
        return ast.Compare(left=left, ops=[ast.Gt()], comparators=[ast.Constant(0)])
    return None


def _counted(test: ast.AST, changes: Changes) -> str:
    """The collection whose size a non-emptiness test counts (``len(x) > 0``, ``x.size``,
    ``n >= 1`` with ``n = len(x)``), or ""."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, op, right = test.left, test.ops[0], test.comparators[0]
        if isinstance(left, ast.Constant) and not isinstance(right, ast.Constant):
            left, right = right, left
            op = {ast.Lt: ast.Gt(), ast.LtE: ast.GtE()}.get(type(op), op)
        if not (isinstance(right, ast.Constant) and type(right.value) is int and (
                isinstance(op, (ast.Gt, ast.NotEq)) and right.value == 0 or isinstance(op, ast.GtE) and right.value == 1)):
            return ""
        test = left
    if isinstance(test, ast.Name):
        values = changes.assignments.get(test.id, ())
        sizes = [_size_of(v) for v in values]
        return sizes[0] if sizes and all(sizes) and len(set(sizes)) == 1 else ""
    return _size_of(test)


def _size_of(node: ast.AST) -> str:
    """``len(x)``, ``x.size``, ``x.shape[0]``: the name ``x`` they count, or ""."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and len(
            node.args) == 1 and isinstance(node.args[0], ast.Name):
        return node.args[0].id
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        node = node.value
        if not (isinstance(node, ast.Attribute) and node.attr == "shape"):
            return ""
    if isinstance(node, ast.Attribute) and node.attr in ("size", "shape") and isinstance(node.value, ast.Name):
        return node.value.id
    return ""


def _selects(value: ast.AST) -> bool:
    """Whether an expression keeps some items only: a selection call, a comparison (a mask),
    a comprehension with a condition, a subscript."""
    for sub in walk_nodes(value):
        if isinstance(sub, (ast.Compare, ast.Subscript)):
            return True
        if isinstance(sub, ast.comprehension) and sub.ifs:
            return True
        if isinstance(sub, ast.Call) and dotted_name(sub.func).rsplit(".", 1)[-1] in _SELECTIONS:
            return True
    return False


def _phase(test: ast.AST, changes: Changes, body_arm: bool) -> str:
    """A phase of a loop over time: the test compares a name that only moves one way (the
    loop's step or time, ``changes.advancing``) with what the loop does not change (``if time
    < t_stim:``, ``if step >= n_warm:``, ``t_on <= t < t_off``), so each arm holds on a run
    of consecutive iterations, and on each of them: the work of that phase, not an event. Only
    the ``if``'s own arm of a window (its ``else`` is two runs); none where the step itself is
    compared with a small literal (``if step < 3:``: a few iterations, not a phase), nor for
    ``==`` (one iteration: ``_once_equality``)."""
    if not changes.in_loop:
        return ""
    comparisons = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    if len(comparisons) > 1 and not body_arm:
        return ""
    for comparison in comparisons:
        if not (isinstance(comparison, ast.Compare) and all(
                isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) for op in comparison.ops)):
            return ""
        if len(comparison.ops) > 1 and not body_arm:
            return ""
        sides = [comparison.left] + list(comparison.comparators)
        moving = [side for side in sides if changes.varying(side)]
        if len(moving) != 1 or not isinstance(moving[0], ast.Name) or moving[0].id not in changes.advancing:
            return ""
        fixed = [side for side in sides if side is not moving[0]]
        if any(_impure_calls(side) for side in fixed):
            return ""
        small = [side for side in fixed if isinstance(side, ast.Constant) and type(side.value) is int
                 and abs(side.value) <= _FEW_STEPS]
        if small and (_counted_directly(moving[0].id, changes) or moving[0].id in changes.incremented):
            return ""
    arm = "" if body_arm else " is false"
    return (f"a phase of the loop: `{short_text(test)}`{arm} on a run of consecutive iterations "
            f"(`{moving[0].id}` only moves one way), and on each of them")


# a step bound up to this is a few iterations at the start (warm-up), not a phase
_FEW_STEPS = 16


def _counted_directly(name: str, changes: Changes) -> bool:
    """Whether ``name`` is the loop's own ``for`` variable (it counts iterations one by one)."""
    loop = changes.loop
    return isinstance(loop, (ast.For, ast.AsyncFor)) and isinstance(loop.target, ast.Name) and loop.target.id == name


def _once_equality(test: ast.AST, facts: Changes, operator: type = ast.Eq) -> bool:
    """``step == 0``, ``step == steps - 1``: the loop's counter equal to what it does not change
    (``operator``: ``ast.NotEq`` for the test that fails once)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], operator)):
        return False
    left, right = test.left, test.comparators[0]
    for counter, other in ((left, right), (right, left)):
        if isinstance(counter, ast.Name) and counter.id in facts.counters and not facts.varying(other):
            return True
    return False


def catch_up(node: ast.While, changes: Changes) -> str:
    """The statement by which a ``while`` moves back a value its test compares, where the
    enclosing loop (``changes``: what it assigns) computes that value anew (not arithmetic
    over itself: a call's result), or "": a catch-up loop (``while tip >= limit: shift();
    tip -= 1``) runs only on the iterations where that value crossed its threshold."""
    test = node.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(
            test.ops[0], (ast.Gt, ast.GtE, ast.Lt, ast.LtE))):
        return ""
    compared = names_read(test)
    for sub in walk_nodes(node):
        if isinstance(sub, ast.AugAssign) and isinstance(sub.op, (ast.Add, ast.Sub)) and isinstance(
                sub.value, ast.Constant):
            name = dotted_name(sub.target)
        elif isinstance(sub, ast.Assign) and len(sub.targets) == 1 and isinstance(sub.value, ast.BinOp) and \
                isinstance(sub.value.op, (ast.Add, ast.Sub)) and isinstance(sub.value.right, ast.Constant) and \
                dotted_name(sub.value.left) == dotted_name(sub.targets[0]):
            name = dotted_name(sub.targets[0])
        else:
            continue
        if not name or name not in compared:
            continue
        computed = [v for v in changes.assignments.get(name, ()) if not (
            isinstance(v, ast.BinOp) and name in names_read(v.left)) and not isinstance(v, ast.Constant)]
        if computed and all(calls_in(v) for v in computed):
            return ast.unparse(sub).strip()
    return ""
