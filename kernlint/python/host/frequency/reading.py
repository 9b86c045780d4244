"""One walk of a body (a function, a method, a module's top level) in statement order:
each loop's kind (``kinds``) and each statement's place (``places``), the loops around it kept;
and a whole module's bodies with what the module says about them (tests, set-up, constants)."""

from __future__ import annotations

import ast
import fnmatch
import os
from functools import cached_property
from dataclasses import replace
from typing import Dict, Iterator, List, Mapping, Optional, Sequence, Set, Tuple, Union

from .changes import Changes
from .facts import Context, Frequency, Loop, Statement
from .kinds import LoopKinds, trips
from .places import Guard, catch_up
from .stops import Stop, module_stop
from .syntax import LOOPS, SCOPES, dotted_name, ends_with_exit, int_value, own_nodes, short_text, tree_nodes
from ...syntax import child_nodes

# constructors and test fixtures' set-up: run once, before the work
_CONSTRUCTORS = {"__init__", "__post_init__", "__new__", "__enter__", "setUp", "setUpClass", "setup_method",
                 "setup_class", "setup_module", "setup_function"}
# methods whose name says warm-up; they count as set-up only where no loop of the module calls them
_WARM_UP = {"compile", "warmup", "warm_up", "precompile", "prepare", "setup", "initialize", "allocate"}

Body = Union[ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, Sequence[ast.stmt]]


def analyse(body: Body, context: Context = Context(), stop: Optional[Stop] = None) -> Frequency:
    """Loops and statement places of a function, a module or a list of statements; a function
    an animation or window driver calls once per frame (``context.frame``) is the body of a
    step loop of its own, at its ``def`` line. ``stop``: where a module's top level stops
    (``stops.module_stop``): what follows never runs. A body that never runs
    (``context.never``) has every statement ``never``."""
    function = body if isinstance(body, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
    whole = isinstance(body, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef))
    statements = list(body.body) if whole else list(body)  # type: ignore[union-attr]
    constants = dict(context.constants)
    if function is not None:
        defaults = _defaults(function.args, constants)
        constants.update(defaults)
        context = replace(context, called_counts=tuple(sorted(name for name, value in defaults.items() if value <= 1)))
        constants.update(_comprehensions(statements, constants))
    reader = _Reader(context, constants, function.lineno if function is not None else 0, statements)
    if stop is not None and function is None:
        reader.never = {number: stop.reason() for number in stop.never}
    if function is not None and context.frame:
        frames = Loop(function, "step", context.frame)
        reader.frequency.add_loop(frames)
        reader.frequency.add(Statement(function, None, "every", "runs on every call"))
        reader.block(statements, frames, (), None, Changes(statements, function))
    else:
        reader.block(statements, None, (), None, Changes(statements))
    return reader.frequency


# what calls a function once per frame, and which argument (or keyword) hands it over:
# matplotlib's animations, GLUT's display and idle callbacks, pyglet's and Kivy's clocks
# (`schedule` on every tick, `schedule_interval` every interval; `schedule_once` runs it once),
# vispy's `app.Timer(interval, connect=update)`, a Qt timer's `timeout.connect(update)`
_FRAME_DRIVERS = {"FuncAnimation": (1, "func"), "glutDisplayFunc": (0, "func"), "glutIdleFunc": (0, "func"),
                  "schedule_interval": (0, "func"), "clock.schedule": (0, "func"), "Timer": (-1, "connect"),
                  "timeout.connect": (0, "slot")}


def _frame_driver(call: ast.Call) -> str:
    """The key of ``_FRAME_DRIVERS`` a call is (``pyglet.clock.schedule``: ``clock.schedule``), or ""."""
    name = dotted_name(call.func)
    parts = name.split(".")
    for key in (parts[-1], ".".join(parts[-2:]).lower() if parts[-1] == "schedule" else ".".join(parts[-2:])):
        if key in _FRAME_DRIVERS and (key != "Timer" or any(k.arg == "connect" for k in call.keywords)):
            return key
    return ""


def _single_frame(call: ast.Call) -> bool:
    """An animation of one literal frame (``FuncAnimation(fig, draw, frames=1)``): its callback
    runs once."""
    frames = next((k.value for k in call.keywords if k.arg == "frames"), None)
    if frames is None and _frame_driver(call) == "FuncAnimation" and len(call.args) > 2:
        frames = call.args[2]
    return isinstance(frames, ast.Constant) and isinstance(frames.value, int) and frames.value <= 1


# what calls a function once, later: a function that hands itself to one of these in its own body
# runs again and again, one frame each (Tk's `widget.after(10, self.update)`, Qt's
# `QTimer.singleShot(10, self.tick)`, `threading.Timer(0.1, poll).start()`, asyncio's
# `loop.call_later(0.1, self.tick)`); the index of the argument that hands it over
_RESCHEDULERS = {"after": 1, "after_idle": 0, "singleShot": -1, "Timer": 1, "call_later": 1, "call_soon": 0,
                 "call_at": 1}


def _rescheduled(function: ast.AST, call: ast.Call) -> bool:
    """``call``, in ``function``'s own body, hands ``function`` itself to a one-shot timer
    (``self.after(10, self.update)`` in ``update``, ``Timer(1.0, poll)`` in ``poll``)."""
    parts = dotted_name(call.func).split(".")
    if parts[-1] not in _RESCHEDULERS or (parts[-1] == "Timer" and any(k.arg == "connect" for k in call.keywords)):
        return False
    index = _RESCHEDULERS[parts[-1]]
    handed = call.args[index] if -len(call.args) <= index < len(call.args) else next(
        (k.value for k in call.keywords if k.arg in ("function", "callback", "func")), None)
    name = getattr(function, "name", "")
    return (isinstance(handed, ast.Name) and handed.id == name) or (
        isinstance(handed, ast.Attribute) and isinstance(handed.value, ast.Name) and handed.value.id == "self"
        and handed.attr == name)


def frame_callbacks(tree: ast.Module) -> Dict[int, str]:
    """The functions (by ``id`` of their ``def``) a driver calls once per frame, and why:
    ``FuncAnimation(fig, update, frames=n)`` (not ``frames=1``), ``glutDisplayFunc(draw)``,
    ``pyglet.clock.schedule(update)``, with the function a
    name defined beside the call or a method of the class the call is in (``self.draw``); and a
    function that reschedules itself with a one-shot timer (``self.after(10, self.update)`` in
    ``update``). A function handed to a one-shot timer by another runs once."""
    found: Dict[int, str] = {}
    for scope in [tree] + [n for n in tree_nodes(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]:
        for call in _own_calls(scope):
            if _rescheduled(scope, call):
                found[id(scope)] = (f"`{scope.name}` reschedules itself (`{short_text(call.func)}`, line "
                                    f"{call.lineno}): its body runs once per frame")
                continue
            driver = _frame_driver(call)
            if not driver or _single_frame(call):
                continue
            index, keyword = _FRAME_DRIVERS[driver]
            handed = call.args[index] if 0 <= index < len(call.args) else next(
                (k.value for k in call.keywords if k.arg == keyword), None)
            for definition in _handed_definitions(tree, scope, handed):
                found[id(definition)] = f"`{driver}` calls `{definition.name}` once per frame (line {call.lineno})"
    return found


def _own_calls(scope: ast.AST) -> Iterator[ast.Call]:
    """The calls of a body, those of the functions and classes it defines left out."""
    stack = list(getattr(scope, "body", []))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Call):
            yield node
        stack.extend(child_nodes(node))


def _handed_definitions(tree: ast.Module, scope: ast.AST, handed: Optional[ast.AST]) -> Iterator[ast.AST]:
    if isinstance(handed, ast.Name):
        yield from (d for d in _definitions(scope) if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and d.name == handed.id)
    elif isinstance(handed, ast.Attribute) and isinstance(handed.value, ast.Name) and handed.value.id == "self":
        for klass in (n for n in tree_nodes(tree) if isinstance(n, ast.ClassDef)):
            if any(m is scope for m in klass.body):
                yield from (m for m in klass.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
                            and m.name == handed.attr)



def analyse_module(tree: ast.Module, path: str = "", qualnames: Optional[Set[str]] = None,
                   executed_elsewhere: bool = False, memo=None) -> Dict[str, Frequency]:
    """Every body of a module: its top level ("") and each function and method by qualified
    name (``Class.method``, ``outer.inner``), with what the module says about them: which
    ones pytest collects, which ones run once before the work, its integer constants, what
    never runs because its top level stops (``stops``). ``qualnames``: only these bodies.
    ``executed_elsewhere``: another file runs it in its own namespace (``exec(open(...).read())``),
    whose names it may read: it is not read as stopping. ``memo(kind, node, compute)``: each
    body's reading kept (it depends on the tree alone: a file read at several depths reads it once)."""
    if memo is None:
        def memo(kind, node, compute):  # noqa: F811 - nothing kept between calls
            return compute()
    constants = memo("frequency: module constants", tree, lambda: _module_constants(tree))
    flags = memo("frequency: flag returns", tree, lambda: _flag_returns(tree))
    numpy_names = memo("frequency: numpy names", tree, lambda: _numpy_names(tree))
    in_loops: List[Set[str]] = []  # read once, where a warm-up name asks
    test_file = any(fnmatch.fnmatch(os.path.basename(path), pattern) for pattern in ("test_*.py", "*_test.py"))
    found: Dict[str, Frequency] = {}
    frames = memo("frame callbacks", tree, lambda: frame_callbacks(tree))

    def visit(node: ast.AST, qualname: str, test: str, collected_class: bool) -> None:
        for child in _definitions(node):
            if isinstance(child, ast.ClassDef):
                name = f"{qualname}.{child.name}" if qualname else child.name
                collected = test_file and not qualname and _collected_class(child)
                visit(child, name, test, collected)
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{qualname}.{child.name}" if qualname else child.name
                why = test
                if not why and test_file and child.name.startswith("test") and (
                        not qualname or collected_class):
                    why = f"pytest collects `{name}` from a test file"
                elif not why and collected_class:
                    why = f"a method of the test class `{qualname}`"
                setup = ""
                if child.name in _CONSTRUCTORS:
                    setup = f"construction (`{child.name}`)"
                elif child.name.lstrip("_").lower() in _WARM_UP:
                    if not in_loops:
                        in_loops.append(_called_in_loops(tree))
                    if child.name not in in_loops[0]:
                        setup = f"`{child.name}()` is warm-up: no loop of this module calls it"
                if qualnames is None or name in qualnames:
                    context = Context(path, name, why, setup, tuple(sorted(constants.items())),
                                      frames.get(id(child), ""), flag_returns=flags, numpy_names=numpy_names,
                                      never=stop.functions.get(id(child), "") if stop is not None else "")
                    found[name] = memo(f"frequency {executed_elsewhere} {name}", child,
                                       lambda: analyse(child, context))
                visit(child, name, why, False)

    stop = None if executed_elsewhere else memo("frequency: module stop", tree, lambda: module_stop(tree))
    if qualnames is None or "" in qualnames:
        found[""] = memo(f"frequency {executed_elsewhere}", tree, lambda: analyse(
            tree, Context(path, "", "", "", tuple(sorted(constants.items())), flag_returns=flags,
                    numpy_names=numpy_names), stop))
    visit(tree, "", "", False)
    return found



def _numpy_names(tree: ast.Module) -> Tuple[str, ...]:
    """The names the module binds to NumPy itself (``import numpy as np``, ``import numpy``)."""
    names = {"numpy"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.asname or alias.name for alias in node.names if alias.name == "numpy")
    return tuple(sorted(names))


def _flag_returns(tree: ast.Module) -> Tuple[str, ...]:
    """The names of the module's functions and methods that return True or False and nothing
    else (``return False`` when the video ends, ``return True`` after a frame), every
    definition of the name alike."""
    verdicts: Dict[str, bool] = {}
    for node in tree_nodes(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        values = [r.value for r in own_nodes(node.body) if isinstance(r, ast.Return)]
        flag = bool(values) and all(isinstance(v, ast.Constant) and isinstance(v.value, bool) for v in values)
        verdicts[node.name] = verdicts.get(node.name, True) and flag
    return tuple(sorted(name for name, flag in verdicts.items() if flag))


def _definitions(node: ast.AST) -> Iterator[Union[ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef]]:
    """The classes and functions a body defines, in branches and loops too (``if
    __name__ == "__main__": def main(): ...``), not inside the definitions themselves."""
    stack = list(reversed(getattr(node, "body", [])))
    while stack:
        statement = stack.pop()
        if isinstance(statement, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            yield statement
        elif isinstance(statement, ast.stmt):
            stack.extend(reversed([c for c in child_nodes(statement) if isinstance(c, ast.stmt)]))
            for handler in getattr(statement, "handlers", ()):
                stack.extend(reversed(handler.body))
            for case in getattr(statement, "cases", ()):
                stack.extend(reversed(case.body))



def _collected_class(node: ast.ClassDef) -> bool:
    """pytest collects a ``Test*`` class without ``__init__`` (or a ``unittest.TestCase``),
    unless it says ``__test__ = False``."""
    for statement in node.body:
        if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__test__"
                                                     for t in statement.targets):
            return bool(isinstance(statement.value, ast.Constant) and statement.value.value)
    if any(dotted_name(base).rsplit(".", 1)[-1] in ("TestCase", "IsolatedAsyncioTestCase") for base in node.bases):
        return True
    has_init = any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init__" for s in node.body)
    return node.name.startswith("Test") and not has_init



class _Reader:
    """One walk of a body in statement order, the loops around each statement kept."""

    def __init__(self, context: Context, constants: Mapping[str, int], line: int, statements: Sequence[ast.stmt]):
        self.frequency = Frequency(context, line)
        self.context = context
        self.constants = constants
        self.statements = statements
        self.around: Dict[int, Tuple[Sequence[ast.stmt], Sequence[ast.stmt]]] = {}  # a loop's block, split at it
        self.never: Dict[int, str] = {}  # top-level statements (by id) a stop keeps from running, and why
        self.stopped = context.never  # why the statements being read never run ("" if they may)

    @cached_property
    def lists(self) -> Set[str]:
        """The names the body binds to list literals (read where a loop asks)."""
        return _literal_lists(self.statements)

    def block(self, statements: Sequence[ast.stmt], loop: Optional[Loop], guards: Tuple["Guard", ...],
              exit_after: Optional[ast.stmt], changes: "Changes") -> None:
        """``guards``: the branches between ``loop`` (or the body) and these statements,
        outermost first; ``exit_after``: the unconditional exit that follows this block
        inside ``loop``; ``changes``: what ``loop`` (or the body) assigns."""
        # a frame callback's `return` ends one frame, as `continue` does an iteration
        exits = (ast.Break, ast.Raise) if loop is not None and isinstance(loop.node, SCOPES) else (
            ast.Return, ast.Break, ast.Raise)
        for index, statement in enumerate(statements):
            outer = self.stopped
            self.stopped = self.stopped or self.never.get(id(statement), "")
            self._statement(statements, index, statement, loop, guards, exit_after, changes, exits)
            self.stopped = outer
            if isinstance(statement, ast.If) and not statement.orelse and ends_with_exit(statement.body, True):
                # `if step % every != 0: continue` (or `return`): what follows is the test's false arm
                rest = statements[index + 1:]
                guards = guards + (Guard(statement, False, statement.body, changes, arm=rest),)

    def _statement(self, statements: Sequence[ast.stmt], index: int, statement: ast.stmt, loop: Optional[Loop],
                   guards, exit_after: Optional[ast.stmt], changes: "Changes", exits) -> None:
        """One statement of a block: its place, then what it holds."""
        following = next((s for s in statements[index + 1:] if isinstance(s, exits)), None)
        if isinstance(statement, exits):
            following = statement
        leaving = (following or exit_after) if loop is not None else None
        self._place(statement, loop, guards, leaving)
        if isinstance(statement, ast.While) and loop is not None:
            self._catch_up(statement, changes)
        if isinstance(statement, LOOPS):
            self.around[id(statement)] = (statements[:index], statements[index + 1:])
        whole = loop is not None and statements is loop.node.body and len(statements) == 1
        self._inside(statement, loop, guards, leaving, changes, whole)

    def _place(self, statement: ast.stmt, loop: Optional[Loop], guards, leaving: Optional[ast.stmt]) -> None:
        if self.stopped:
            place, reason = "never", self.stopped
        elif leaving is not None:
            word = type(leaving).__name__.lower()
            place, reason = "leaving", f"followed by `{word}` at line {leaving.lineno}: once, on the way out"
        else:
            place, reason = "every", "runs on every iteration" if loop is not None else "runs on every call"
            for guard in guards:  # the rarest place any branch on the way gives wins
                guard_place, guard_reason = guard.place
                if _RANK[guard_place] > _RANK[place]:
                    place, reason = guard_place, guard_reason
        self.frequency.add(Statement(statement, loop, place, reason))

    def _catch_up(self, node: ast.While, changes: Changes) -> None:
        """A catch-up ``while`` inside a loop (``places.catch_up``) is an event of the
        enclosing loop, not its every iteration (an inner loop whose counter the iteration
        resets to a constant is not one)."""
        statement = self.frequency.of(node)
        moved = catch_up(node, changes) if statement.place == "every" else ""
        if moved:
            self.frequency.add(Statement(
                node, statement.loop, "event",
                f"a catch-up loop: `{short_text(node.test)}` holds only when what this iteration computes has "
                f"crossed it, and the loop moves it back (`{moved}`)"))

    def _inside(self, statement: ast.stmt, loop: Optional[Loop], guards, leaving, changes: "Changes",
                whole: bool = False) -> None:
        """``whole``: the statement is the whole body of ``loop``."""
        if isinstance(statement, LOOPS):
            inner, inner_changes = self._loop(statement, loop, changes)
            self.block(statement.body, inner, (), None, inner_changes)
            # a loop's `else` runs each time the loop ends, unless a `break` can skip it
            skipped = Guard.fixed("event", "a loop's `else`: when the loop ends without `break`")
            breaks = any(isinstance(sub, ast.Break) for sub in _own_statements(statement.body))
            self.block(statement.orelse, loop, guards + ((skipped,) if breaks else ()), leaving, changes)
        elif isinstance(statement, ast.If):
            # (the module's constants: a parameter's default is not one, its callers may pass others)
            every = _every_multiple(statement.test, dict(self.context.constants))
            for arm, other in ((statement.body, statement.orelse), (statement.orelse, statement.body)):
                guard = Guard(statement, arm is statement.body, other, changes,
                              whole=whole and not statement.orelse) if not every else Guard.fixed(
                    "every", f"`{short_text(statement.test)}` holds on every iteration: the interval is 1") \
                    if arm is statement.body else Guard.fixed("event", f"`{short_text(statement.test)}` never fails")
                self.block(arm, loop, guards + (guard,), leaving, changes)
        elif isinstance(statement, (ast.With, ast.AsyncWith)):
            self.block(statement.body, loop, guards, leaving, changes)
        elif isinstance(statement, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            self.block(statement.body, loop, guards, leaving, changes)
            handler_guard = Guard.fixed("event", "an exception handler")
            for handler in statement.handlers:
                self.block(handler.body, loop, guards + (handler_guard,), leaving, changes)
            self.block(statement.orelse, loop, guards, leaving, changes)
            self.block(statement.finalbody, loop, guards, leaving, changes)
        elif isinstance(statement, ast.Match):
            case_guard = Guard.fixed("unknown", "a `case` of a `match`")
            for case in statement.cases:
                self.block(case.body, loop, guards + (case_guard,), leaving, changes)

    def _loop(self, node: ast.stmt, parent: Optional[Loop], around: Changes) -> Tuple[Loop, Changes]:
        """The loop ``node`` is, and what its body assigns (its statements' places read it);
        ``around``: what the enclosing loop (or the body) assigns."""
        changes = Changes(node.body, node)
        kind, reason, trips = LoopKinds(node, self.context, self.constants, changes, lambda: self.lists,
                                        self.around.get(id(node), ((), ()))).decide()
        moved = catch_up(node, around) if isinstance(node, ast.While) and parent is not None \
            and not self.context.test else ""
        if moved:  # its iterations are the few cells the value crossed by, on the rare iteration it did
            kind, reason = "few", f"a catch-up loop: it moves back (`{moved}`) what the enclosing loop computes"
        loop = Loop(node, kind, reason, parent, trips)
        self.frequency.add_loop(loop)
        return loop, changes


_RANK = {"every": 0, "unknown": 1, "periodic": 2, "event": 3, "leaving": 4, "never": 5}


def _own_statements(statements: Sequence[ast.stmt]) -> Iterator[ast.AST]:
    """The nodes of a loop's body that belong to that loop: nested loops' bodies left out."""
    stack: List[ast.AST] = list(statements)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, LOOPS):
            stack.extend(node.orelse)
            continue
        stack.extend(c for c in child_nodes(node) if isinstance(c, ast.stmt) and not isinstance(c, SCOPES))



def _literal_lists(statements: Sequence[ast.stmt]) -> Set[str]:
    """Names a body binds to a list or tuple literal (and to nothing else but such)."""
    bound: Dict[str, bool] = {}
    for sub in own_nodes(statements):
        if isinstance(sub, ast.Assign):
            for target in sub.targets:
                if isinstance(target, ast.Name):
                    literal = isinstance(sub.value, (ast.List, ast.Tuple))
                    bound[target.id] = bound.get(target.id, True) and literal
        elif isinstance(sub, ast.AugAssign) and isinstance(sub.target, ast.Name):
            bound[sub.target.id] = bound.get(sub.target.id, False) and isinstance(sub.value, (ast.List, ast.Tuple))
    return {name for name, literal in bound.items() if literal}



def _every_multiple(test: ast.AST, constants: Mapping[str, int]) -> bool:
    """A modulo gate whose interval is the constant 1 (``step % interval == 0``, ``interval =
    1`` at the module's top): it holds on every iteration."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
        modulo = test if isinstance(test, ast.BinOp) and isinstance(test.op, ast.Mod) else None
    elif isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq) and (
            int_value(test.comparators[0], constants) == 0):
        modulo = test.left if isinstance(test.left, ast.BinOp) and isinstance(test.left.op, ast.Mod) else None
    else:
        modulo = None
    return modulo is not None and int_value(modulo.right, constants) == 1


def _module_constants(tree: ast.Module) -> Dict[str, int]:
    """Module-level names bound once to an integer constant expression."""
    bound: Dict[str, List[ast.AST]] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign):
            for target in statement.targets:
                if isinstance(target, ast.Name):
                    bound.setdefault(target.id, []).append(statement.value)
                elif isinstance(target, ast.Tuple) and isinstance(statement.value, ast.Tuple) and len(
                        target.elts) == len(statement.value.elts):
                    for element, value in zip(target.elts, statement.value.elts):
                        if isinstance(element, ast.Name):
                            bound.setdefault(element.id, []).append(value)
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.value:
            bound.setdefault(statement.target.id, []).append(statement.value)
    constants: Dict[str, int] = {}
    grown: List[Set[str]] = []  # read once, where a literal list asks
    for name, values in bound.items():  # in order: a constant may use the ones above it
        if len(values) == 1:
            value = int_value(values[0], constants)
            if value is not None:
                constants[name] = value
            elif isinstance(values[0], (ast.List, ast.Tuple)) and not any(
                    isinstance(e, ast.Starred) for e in values[0].elts):
                if not grown:
                    grown.append(_grown(tree))
                if name not in grown[0]:
                    constants[f"len({name})"] = len(values[0].elts)  # `COMPONENTS = ("x", "y", "z")`
    return constants


def constant_int(node: ast.AST, tree: ast.Module) -> Optional[int]:
    """The integer an expression always has in a module: literals, the module's integer
    constants (``N_RUNS = 1_000``) and their arithmetic; None where it is not fixed."""
    return int_value(node, _module_constants(tree))


_GROWN: Dict[int, Tuple[ast.Module, Set[str]]] = {}  # id(tree) -> (the tree, kept so the id stays its own; its names)


def _grown(tree: ast.Module) -> Set[str]:
    """The names the module appends to, extends or adds to (one walk per tree)."""
    known = _GROWN.get(id(tree))
    if known is not None and known[0] is tree:
        return known[1]
    if len(_GROWN) > 256:
        _GROWN.clear()
    found: Set[str] = set()
    _GROWN[id(tree)] = (tree, found)
    for node in tree_nodes(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
                "append", "extend", "insert"):
            found.add(dotted_name(node.func.value))
        elif isinstance(node, ast.AugAssign):
            found.add(dotted_name(node.target))
    return found



def _defaults(arguments: ast.arguments, constants: Mapping[str, int]) -> Dict[str, int]:
    """Parameters whose default is an integer constant (``n_steps=100_000``): what a call
    that does not pass them runs with."""
    found: Dict[str, int] = {}
    positional = arguments.posonlyargs + arguments.args
    for argument, default in zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults):
        value = int_value(default, constants)
        if value is not None:
            found[argument.arg] = value
    for argument, default in zip(arguments.kwonlyargs, arguments.kw_defaults):
        value = int_value(default, constants) if default is not None else None
        if value is not None:
            found[argument.arg] = value
    return found



def _called_in_loops(tree: ast.Module) -> Set[str]:
    """The names of functions and methods some loop of the module calls (``self.compile()``
    and ``compile()`` both give ``compile``), in one walk."""
    called: Set[str] = set()
    stack: List[Tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, in_loop = stack.pop()
        if in_loop and isinstance(node, ast.Call):
            name = dotted_name(node.func).rsplit(".", 1)[-1]
            if name:
                called.add(name)
        if isinstance(node, SCOPES):
            in_loop = False  # a function defined in a loop runs when it is called
        if isinstance(node, LOOPS):
            stack.extend((child, True) for child in node.body)
            stack.extend((child, in_loop) for child in node.orelse)
            stack.append((node.iter if isinstance(node, (ast.For, ast.AsyncFor)) else node.test, in_loop))
        else:
            stack.extend((child, in_loop) for child in child_nodes(node))
    return called



def _comprehensions(statements: Sequence[ast.stmt], constants: Mapping[str, int]) -> Dict[str, int]:
    """``len(NAME)`` of names a body binds once to a comprehension over a fixed count
    (``LAYERS = ((1 / 2**i, 2**i) for i in range(16))``): a loop over NAME has that many trips."""
    bound: Dict[str, List[ast.AST]] = {}
    for sub in own_nodes(statements):
        if isinstance(sub, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            for target in sub.targets if isinstance(sub, ast.Assign) else [sub.target]:
                if isinstance(target, ast.Name):
                    bound.setdefault(target.id, []).append(sub.value)
    grown = {dotted_name(sub.func.value) for sub in own_nodes(statements) if isinstance(sub, ast.Call) and
             isinstance(sub.func, ast.Attribute) and sub.func.attr in ("append", "extend", "insert")}
    found: Dict[str, int] = {}
    for name, values in bound.items():
        if len(values) == 1 and isinstance(values[0], (ast.GeneratorExp, ast.ListComp)) and name not in grown:
            count = trips(values[0], constants)
            if count is not None:
                found[f"len({name})"] = count
    return found
