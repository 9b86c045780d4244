"""How often a statement runs: the fact the host rules stand on.

A host finding says "on every iteration of the loop"; it is true only where the loop
repeats the same work and the statement runs on each of its iterations. This module reads
a function's (or a module's) syntax tree and gives

- every loop its **kind**: ``step`` (time steps, frames, batches, solver iterations: the
  same work again), ``search`` (retry, convergence: a value computed in the loop decides
  whether to go on, so the loop normally runs once or a few times and its host reads are
  the point), ``sweep`` (sizes, parameters, devices, files, parts, chunks, test cases:
  pieces of the work), ``setup`` (construction, warm-up: once before the work), ``few`` (a
  small literal count of pieces, a reduction tree) or ``unknown``;
- every statement its **place** in its innermost loop: ``every`` iteration, ``periodic``
  (a modulo or counter gate), ``event`` (a flag or state test the branch itself flips, a
  test that holds on one iteration, an exception handler), ``leaving`` (followed by
  ``return``/``break``/``raise``) or ``unknown``;
- through calls, a :class:`Rate` that composes: a callee's statement runs at its call
  site's rate followed by its own (``site.through(inner)``).

What the code does decides: a test is what pytest collects (functions named ``test*``,
methods of ``Test*`` classes without ``__init__`` or of ``unittest.TestCase`` subclasses,
in ``test_*.py``/``*_test.py`` files), a loop over devices is one that selects the device
its variable names (``cuda.select_device(k)``, ``cuda.gpus[k]``) or iterates ``cuda.gpus``;
a variable's name (``gpus``, ``n_layers``) never counts. The one name read is a warm-up
method's (``compile``, ``warmup``), and only where no loop of the module calls it. Unknown
is silent: a rule reports only :attr:`Rate.every_step`.

Nothing here imports kernlint: it is a pure reading of Python's ``ast``.
"""

from __future__ import annotations

import ast
import fnmatch
import os
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Set, Tuple, Union

LOOP_KINDS = ("step", "search", "sweep", "setup", "few", "unknown")
PLACES = ("every", "periodic", "event", "leaving", "unknown")

# a literal count up to this is a few pieces of one computation (layers, chunks), not steps
FEW = 16
# the clock reads that end a loop by time, not by what it computes
CLOCKS = {"time", "perf_counter", "monotonic", "process_time", "perf_counter_ns", "time_ns", "monotonic_ns",
          "default_timer", "now", "utcnow"}
# calls whose result depends only on their arguments' values: a counter stays a counter through them
_ARITHMETIC = {"min", "max", "int", "float", "abs", "round", "len", "divmod", "pow"}
# ... and the math of NumPy, CuPy and `math` (`int(np.ceil(n / threads))`)
_MATH = {"ceil", "floor", "trunc", "sqrt", "log", "log2", "log10", "exp", "int32", "int64", "float32", "float64"}
_MATH_MODULES = {"np", "numpy", "math", "cp", "cupy"}
# array attributes and methods: the loop's item used through them is still the item (data)
_ARRAY_ATTRIBUTES = {"size", "shape", "ndim", "dtype", "nbytes", "T", "ravel", "flatten", "reshape", "astype",
                     "copy", "view", "transpose", "squeeze", "item", "tolist", "sum", "mean", "max", "min"}
# allocations whose first argument (or `shape=`) is a size: a loop variable there sweeps sizes
_SIZED = {"device_array", "pinned_array", "mapped_array", "managed_array", "zeros", "ones", "empty", "full", "rand",
          "randn", "random", "random_sample", "standard_normal", "arange", "linspace", "eye", "identity"}
# calls that put data on a device or allocate there (a loop sending each item is a stream)
_TO_DEVICE = {"to_device", "asarray", "array", "copy_to_device", "device_array", "device_array_like", "empty",
              "zeros", "ones", "empty_like", "zeros_like", "from_numpy", "pinned_array", "mapped_array"}
# iterating these visits files
_FILES = {"glob", "iglob", "rglob", "listdir", "scandir", "walk", "iterdir"}
# calls that split one array into pieces: `np.array_split(x, 8)`
_SPLITS = {"array_split", "split", "hsplit", "vsplit", "dsplit"}
# calls that select a GPU: a loop whose variable reaches one is a loop over devices
_SELECT_DEVICE = {"select_device", "set_device", "Device", "use_device"}
# the GPUs there are: `cuda.list_devices()`, CuPy's and PyTorch's device counts
_DEVICE_COUNTS = {"list_devices", "getDeviceCount", "device_count"}
# constructors and test fixtures' set-up: run once, before the work
_CONSTRUCTORS = {"__init__", "__post_init__", "__new__", "__enter__", "setUp", "setUpClass", "setup_method",
                 "setup_class", "setup_module", "setup_function"}
# methods whose name says warm-up; they count as set-up only where no loop of the module calls them
_WARM_UP = {"compile", "warmup", "warm_up", "precompile", "prepare", "setup", "initialize", "allocate"}

Body = Union[ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, Sequence[ast.stmt]]
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


@dataclass(frozen=True)
class Context:
    """What is known about the code around the body read: its file, its name and what
    the rest of the module says about it (:func:`analyse_module` fills it)."""

    path: str = ""
    qualname: str = ""  # "Class.method", "function", "" for a module's top level
    test: str = ""  # why pytest collects it as a test ("" if it does not)
    setup: str = ""  # why it runs once before the work ("" if not known to)
    constants: Tuple[Tuple[str, int], ...] = ()  # module-level integer constants (`N = 1 << 20`)


@dataclass(eq=False)
class Loop:
    """One ``for``/``while`` loop: its kind and why, its known trip count, the loop around it."""

    node: ast.stmt
    kind: str
    reason: str
    parent: Optional["Loop"] = None
    trips: Optional[int] = None  # how many iterations the code states (a literal, a constant, a default)
    _facts: Optional["_Changes"] = field(default=None, repr=False)

    @property
    def line(self) -> int:
        return self.node.lineno


@dataclass(frozen=True)
class Level:
    """One loop on the way to a statement: the loop's kind and the place in it of what it
    runs (the statement, or the next loop inward). Kind ``body`` is a function's (or a
    module's) own level: the place there is relative to one call."""

    kind: str
    place: str
    line: int


@dataclass(frozen=True)
class Rate:
    """How often a statement runs relative to the work: the loops around it, outermost
    first, each with the place in it of what leads to the statement."""

    levels: Tuple[Level, ...] = ()

    def through(self, inner: "Rate") -> "Rate":
        """A callee's statement called from here: this rate's loops around the callee's."""
        return Rate(self.levels + inner.levels)

    @property
    def step_loop(self) -> Optional[Level]:
        """The step loop on each of whose iterations the statement runs, if there is one:
        from the innermost loop outwards every level must be ``every``; loops of pieces
        (``sweep``, ``few``) inside a step run on each step; ``search``, ``setup`` and
        ``unknown`` stop the walk (unknown is silent)."""
        for level in reversed(self.levels):
            if level.place != "every":
                return None
            if level.kind == "step":
                return level
            if level.kind not in ("sweep", "few", "body"):
                return None
        return None

    @property
    def every_step(self) -> bool:
        return self.step_loop is not None


@dataclass(frozen=True)
class Statement:
    """A statement's place in its innermost loop (``loop`` None: outside every loop)."""

    node: ast.stmt
    loop: Optional[Loop]
    place: str
    reason: str


@dataclass
class Frequency:
    """The loops of one body and the place of each of its statements (nested functions and
    classes are bodies of their own)."""

    context: Context
    line: int = 0  # the function's `def` line (0: a module)
    loops: List[Loop] = field(default_factory=list)
    _statements: Dict[int, Statement] = field(default_factory=dict, repr=False)
    _of_loop: Dict[int, Loop] = field(default_factory=dict, repr=False)

    def of(self, node: ast.stmt) -> Statement:
        """The place of a statement of this body (KeyError for one of another body)."""
        return self._statements[id(node)]

    def loop(self, node: ast.stmt) -> Loop:
        """The loop a ``for``/``while`` statement of this body is."""
        return self._of_loop[id(node)]

    def statements(self) -> Iterator[Statement]:
        return iter(self._statements.values())

    def at(self, line: int) -> Optional[Statement]:
        """The innermost statement of this body whose lines hold ``line`` (where a host
        fact's location points: a call inside it), None for a line outside the body."""
        found: Optional[Statement] = None
        for statement in self._statements.values():
            node = statement.node
            if node.lineno <= line <= (node.end_lineno or node.lineno) and (
                    found is None or node.lineno >= found.node.lineno and
                    (node.end_lineno or node.lineno) <= (found.node.end_lineno or found.node.lineno)):
                found = statement
        return found

    def rate_at(self, line: int) -> Optional[Rate]:
        """The :class:`Rate` of what runs at ``line``: its innermost statement's, and for a
        ``while``'s own test, one more level (the test runs on each of its iterations)."""
        statement = self.at(line)
        if statement is None:
            return None
        rate = self.rate(statement.node)
        node = statement.node
        if isinstance(node, ast.While) and node.test.lineno <= line <= (node.test.end_lineno or node.test.lineno):
            loop = self.loop(node)
            rate = Rate(rate.levels + (Level(loop.kind, "every", loop.line),))
        return rate

    def rate(self, node: ast.stmt) -> Rate:
        """The statement's :class:`Rate` within this body, from the body's own level in."""
        statement = self.of(node)
        levels: List[Level] = []
        while statement.loop is not None:
            loop = statement.loop
            levels.append(Level(loop.kind, statement.place, loop.line))
            statement = self.of(loop.node)
        levels.append(Level("body", statement.place, self.line))
        return Rate(tuple(reversed(levels)))


def analyse(body: Body, context: Context = Context()) -> Frequency:
    """Loops and statement places of a function, a module or a list of statements."""
    function = body if isinstance(body, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
    whole = isinstance(body, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef))
    statements = list(body.body) if whole else list(body)  # type: ignore[union-attr]
    constants = dict(context.constants)
    if function is not None:
        constants.update(_defaults(function.args, constants))
    reader = _Reader(context, constants, function.lineno if function is not None else 0, statements)
    reader.block(statements, None, (), None, _Changes(statements))
    return reader.frequency


def analyse_module(tree: ast.Module, path: str = "", qualnames: Optional[Set[str]] = None) -> Dict[str, Frequency]:
    """Every body of a module: its top level ("") and each function and method by qualified
    name (``Class.method``, ``outer.inner``), with what the module says about them: which
    ones pytest collects, which ones run once before the work, its integer constants.
    ``qualnames``: only these bodies."""
    constants = _module_constants(tree)
    in_loops: List[Set[str]] = []  # read once, where a warm-up name asks
    test_file = any(fnmatch.fnmatch(os.path.basename(path), pattern) for pattern in ("test_*.py", "*_test.py"))
    found: Dict[str, Frequency] = {}

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
                    context = Context(path, name, why, setup, tuple(sorted(constants.items())))
                    found[name] = analyse(child, context)
                visit(child, name, why, False)

    if qualnames is None or "" in qualnames:
        found[""] = analyse(tree, Context(path, "", "", "", tuple(sorted(constants.items()))))
    visit(tree, "", "", False)
    return found


def _definitions(node: ast.AST) -> Iterator[Union[ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef]]:
    """The classes and functions a body defines, in branches and loops too (``if
    __name__ == "__main__": def main(): ...``), not inside the definitions themselves."""
    stack = list(reversed(getattr(node, "body", [])))
    while stack:
        statement = stack.pop()
        if isinstance(statement, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            yield statement
        elif isinstance(statement, ast.stmt):
            stack.extend(reversed([c for c in ast.iter_child_nodes(statement) if isinstance(c, ast.stmt)]))
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
    if any(_dotted(base).rsplit(".", 1)[-1] in ("TestCase", "IsolatedAsyncioTestCase") for base in node.bases):
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

    @cached_property
    def lists(self) -> Set[str]:
        """The names the body binds to list literals (read where a loop asks)."""
        return _literal_lists(self.statements)

    def block(self, statements: Sequence[ast.stmt], loop: Optional[Loop], guards: Tuple["_Guard", ...],
              exit_after: Optional[ast.stmt], changes: "_Changes") -> None:
        """``guards``: the branches between ``loop`` (or the body) and these statements,
        outermost first; ``exit_after``: the unconditional exit that follows this block
        inside ``loop``; ``changes``: what ``loop`` (or the body) assigns."""
        for index, statement in enumerate(statements):
            following = next((s for s in statements[index + 1:] if isinstance(s, (ast.Return, ast.Break, ast.Raise))),
                             None)
            if isinstance(statement, (ast.Return, ast.Break, ast.Raise)):
                following = statement
            leaving = (following or exit_after) if loop is not None else None
            self._place(statement, loop, guards, leaving)
            if isinstance(statement, ast.While) and loop is not None:
                self._catch_up(statement, changes)
            self._inside(statement, loop, guards, leaving, changes)
            if isinstance(statement, ast.If) and not statement.orelse and _ends_with_exit(statement.body, True):
                # `if step % every != 0: continue` (or `return`): what follows is the test's false arm
                rest = statements[index + 1:]
                guards = guards + (_Guard(statement, False, statement.body, changes, arm=rest),)

    def _place(self, statement: ast.stmt, loop: Optional[Loop], guards, leaving: Optional[ast.stmt]) -> None:
        if leaving is not None:
            word = type(leaving).__name__.lower()
            place, reason = "leaving", f"followed by `{word}` at line {leaving.lineno}: once, on the way out"
        else:
            place, reason = "every", "runs on every iteration" if loop is not None else "runs on every call"
            for guard in guards:  # the rarest place any branch on the way gives wins
                guard_place, guard_reason = guard.place
                if _RANK[guard_place] > _RANK[place]:
                    place, reason = guard_place, guard_reason
        self.frequency._statements[id(statement)] = Statement(statement, loop, place, reason)

    def _catch_up(self, node: ast.While, changes: "_Changes") -> None:
        """A ``while`` inside a loop that steps a value the enclosing iteration computes back
        past a threshold (``while tip >= limit: shift(); tip -= 1``) runs only on the
        iterations where that value crossed it: an event of the enclosing loop, not its every
        iteration (an inner loop whose counter the iteration resets to a constant is not one)."""
        statement = self.frequency._statements[id(node)]
        if statement.place != "every":
            return
        moved = _catch_up(node, changes)
        if moved:
            self.frequency._statements[id(node)] = Statement(
                node, statement.loop, "event",
                f"a catch-up loop: `{_short(node.test)}` holds only when what this iteration computes has "
                f"crossed it, and the loop moves it back (`{moved}`)")

    def _inside(self, statement: ast.stmt, loop: Optional[Loop], guards, leaving, changes: "_Changes") -> None:
        if isinstance(statement, _LOOPS):
            inner = self._loop(statement, loop)
            assert inner._facts is not None
            self.block(statement.body, inner, (), None, inner._facts)
            # a loop's `else` runs each time the loop ends, unless a `break` can skip it
            skipped = _Guard.fixed("event", "a loop's `else`: when the loop ends without `break`")
            breaks = any(isinstance(sub, ast.Break) for sub in _own_statements(statement.body))
            self.block(statement.orelse, loop, guards + ((skipped,) if breaks else ()), leaving, changes)
        elif isinstance(statement, ast.If):
            for arm, other in ((statement.body, statement.orelse), (statement.orelse, statement.body)):
                guard = _Guard(statement, arm is statement.body, other, changes)
                self.block(arm, loop, guards + (guard,), leaving, changes)
        elif isinstance(statement, (ast.With, ast.AsyncWith)):
            self.block(statement.body, loop, guards, leaving, changes)
        elif isinstance(statement, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            self.block(statement.body, loop, guards, leaving, changes)
            handler_guard = _Guard.fixed("event", "an exception handler")
            for handler in statement.handlers:
                self.block(handler.body, loop, guards + (handler_guard,), leaving, changes)
            self.block(statement.orelse, loop, guards, leaving, changes)
            self.block(statement.finalbody, loop, guards, leaving, changes)
        elif isinstance(statement, ast.Match):
            case_guard = _Guard.fixed("unknown", "a `case` of a `match`")
            for case in statement.cases:
                self.block(case.body, loop, guards + (case_guard,), leaving, changes)

    def _loop(self, node: ast.stmt, parent: Optional[Loop]) -> Loop:
        changes = _Changes(node.body, node)
        kind, reason, trips = _Kinds(node, self.context, self.constants, changes, lambda: self.lists).decide()
        moved = _catch_up(node, parent._facts) if isinstance(node, ast.While) and parent is not None \
            and parent._facts is not None and not self.context.test else ""
        if moved:  # its iterations are the few cells the value crossed by, on the rare iteration it did
            kind, reason = "few", f"a catch-up loop: it moves back (`{moved}`) what the enclosing loop computes"
        loop = Loop(node, kind, reason, parent, trips, changes)
        self.frequency.loops.append(loop)
        self.frequency._of_loop[id(node)] = loop
        return loop


_RANK = {"every": 0, "unknown": 1, "periodic": 2, "event": 3, "leaving": 4}


@dataclass(frozen=True)
class _Assigned:
    changed: Set[str]  # names and `self.x` attributes assigned (a `for`'s own variables too)
    counters: Set[str]  # arithmetic over themselves and what does not change; accumulators
    clocks: Set[str]  # clock reads
    incremented: Set[str]  # `x += ...`, `x = x + ...`
    assignments: Dict[str, List[ast.AST]]  # each name's assigned values (`x += v` as `x + v`)


class _Changes:
    """What a loop's body (or a function's) assigns: the names and ``self.x`` attributes it
    changes, which of them are counters (arithmetic over themselves and what does not
    change; ``t += dt`` whatever ``dt`` is), which it increments, which are clock reads.
    Read on first use: most bodies never need it."""

    def __init__(self, statements: Sequence[ast.stmt], loop: Optional[ast.stmt] = None):
        self.statements, self.loop = statements, loop
        self.in_loop = loop is not None

    @property
    def changed(self) -> Set[str]:
        return self._assigned.changed

    @property
    def counters(self) -> Set[str]:
        return self._assigned.counters

    @property
    def clocks(self) -> Set[str]:
        return self._assigned.clocks

    @property
    def incremented(self) -> Set[str]:
        return self._assigned.incremented

    @property
    def assignments(self) -> Dict[str, List[ast.AST]]:
        return self._assigned.assignments

    @cached_property
    def _assigned(self) -> _Assigned:
        loop = self.loop
        is_for = isinstance(loop, (ast.For, ast.AsyncFor))
        targets: Set[str] = set(_target_names(loop.target)) if is_for else set()  # type: ignore[union-attr]
        assignments: Dict[str, List[ast.AST]] = {}
        incremented: Set[str] = set()
        for sub in _own_nodes(self.statements):
            if isinstance(sub, ast.Assign):
                for target in sub.targets:
                    for name in _target_names(target):
                        assignments.setdefault(name, []).append(sub.value)
                        if isinstance(sub.value, ast.BinOp) and isinstance(sub.value.op, (ast.Add, ast.Sub)) and \
                                name in _reads(sub.value.left):
                            incremented.add(name)
            elif isinstance(sub, ast.AugAssign):
                for name in _target_names(sub.target):
                    assignments.setdefault(name, []).append(ast.BinOp(ast.Name(name), sub.op, sub.value))
                    if isinstance(sub.op, (ast.Add, ast.Sub)):
                        incremented.add(name)
            elif isinstance(sub, ast.AnnAssign) and sub.value is not None:
                for name in _target_names(sub.target):
                    assignments.setdefault(name, []).append(sub.value)
            elif isinstance(sub, (ast.For, ast.AsyncFor)):
                for name in _target_names(sub.target):
                    assignments.setdefault(name, []).append(sub.iter)
            elif isinstance(sub, ast.NamedExpr):
                assignments.setdefault(sub.target.id, []).append(sub.value)
            elif isinstance(sub, (ast.With, ast.AsyncWith)):
                for item in sub.items:
                    if item.optional_vars is not None:
                        for name in _target_names(item.optional_vars):
                            assignments.setdefault(name, []).append(item.context_expr)
        changed = set(assignments) | targets
        clocks = {name for name, values in assignments.items() if all(_is_clock_expression(v) for v in values)}
        # an accumulator (`t += dt`, `t = t + dt`) advances whatever it adds: time, a position
        accumulators = {name for name in incremented
                        if all(isinstance(v, ast.BinOp) and isinstance(v.op, (ast.Add, ast.Sub)) and
                               name in _reads(v.left) for v in assignments[name])}
        counters = set(assignments) - clocks - accumulators
        while True:  # arithmetic over what does not change and over counters
            kept = {name for name in counters
                    if all(_arithmetic_over(v, lambda n: n not in changed or n in counters or n in accumulators)
                           for v in assignments[name])}
            if kept == counters:
                break
            counters = kept
        range_targets = targets if is_for and _is_range(loop.iter) else set()  # type: ignore[union-attr]
        return _Assigned(changed, counters | accumulators | range_targets, clocks, incremented, assignments)

    def varying(self, expression: ast.AST) -> Set[str]:
        return _reads(expression) & self.changed


class _Guard:
    """One arm of an ``if`` between a loop (or a body) and a statement, and the place it
    gives. ``arm``: the statements the arm guards where they are not the ``if``'s own (after
    ``if step % every != 0: continue``, the rest of the block is the test's false arm)."""

    def __init__(self, node: Optional[ast.If], body_arm: bool, other: Sequence[ast.stmt],
                 changes: Optional[_Changes], fixed: Optional[Tuple[str, str]] = None,
                 arm: Optional[Sequence[ast.stmt]] = None):
        self.node, self.body_arm, self.other, self.changes = node, body_arm, other, changes
        self._fixed = fixed
        self._arm = arm

    @classmethod
    def fixed(cls, place: str, reason: str) -> "_Guard":
        return cls(None, True, (), None, (place, reason))

    @cached_property
    def place(self) -> Tuple[str, str]:
        if self._fixed is not None:
            return self._fixed
        assert self.node is not None and self.changes is not None
        test, changes = self.node.test, self.changes
        text = _short(test)
        arm = self._arm if self._arm is not None else self.node.body if self.body_arm else self.node.orelse
        rare = _rare_modulo_arm(test)
        if rare is self.body_arm and (changes.varying(test) or not changes.in_loop):
            return "periodic", f"every few iterations: `{text}`" + ("" if rare else " is false")
        flipped = _flips_own_test(test, arm)
        if flipped:
            return "event", f"the branch switches its own test off (`{flipped}`): once"
        if self.body_arm:
            reset = _counter_reset(test, arm, changes)
            if reset:
                return "periodic", f"a counter gate: `{text}`, `{reset}` in the branch"
            moved = _moves_own_threshold(test, arm, changes)
            if moved:
                return "periodic", f"the branch moves its own threshold (`{moved}`): `{text}`"
            if _once_equality(test, changes):
                return "event", f"holds once: `{text}`"
        if self.other and _ends_with_exit(self.other):
            return "every", "the other branch leaves: this one runs each time the code goes on"
        if not changes.varying(test) and not _calls(test):
            return "every", f"a test that does not change here (`{text}`): each time or never"
        return "unknown", f"a test of what changes here: `{text}`"


class _Kinds:
    """A loop's kind, from what its code does (in this order): a test's loop, set-up,
    devices, a value computed in it deciding whether to go on, files, sizes, chunks, a few
    literal iterations, a fixed list of values, parts (objects), then the step loops."""

    def __init__(self, node: ast.stmt, context: Context, constants: Mapping[str, int], changes: _Changes,
                 lists: Callable[[], Set[str]] = set):
        self.node, self.context, self.constants, self.lists = node, context, constants, lists
        self.facts = changes
        self.is_for = isinstance(node, (ast.For, ast.AsyncFor))
        self.variables = set(_target_names(node.target)) if self.is_for else set()

    def decide(self) -> Tuple[str, str, Optional[int]]:
        trips = self._trips()
        if self.context.test:
            return "sweep", f"test cases: {self.context.test}", trips
        if self.context.setup:
            return "setup", self.context.setup, trips
        for check in (self._devices, self._search, self._files, self._sizes, self._chunks, self._consumed,
                      self._reduction, self._fixed_list, self._indexes_list):
            found = check()
            if found:
                return found[0], found[1], trips
        if self.is_for and trips is not None and trips <= FEW and not isinstance(self.node.iter, (
                ast.List, ast.Tuple, ast.Set)) and self._variable_used():
            return "few", f"{trips} iterations (`{_short(self.node.iter)}`), each on its own piece", trips
        if self.is_for and isinstance(self.node.iter, (ast.List, ast.Tuple, ast.Set)):
            return "sweep", f"a fixed list of {len(self.node.iter.elts)} values", trips
        for check in (self._parts, self._steps):
            found = check()
            if found:
                return found[0], found[1], trips
        return "unknown", self._unknown(), trips

    def _variable_used(self) -> bool:
        """Whether the body reads the loop's variable (a repeat loop, ``for _ in range(10)``,
        does the same work each time: steps, however few)."""
        return any(isinstance(sub, ast.Name) and sub.id in self.variables and isinstance(sub.ctx, ast.Load)
                   for sub in _own_nodes(self.node.body))

    def _trips(self) -> Optional[int]:
        return _trips(self.node.iter, self.constants) if self.is_for else None

    def _devices(self):
        """A loop over GPUs, by what it does: it iterates ``cuda.gpus``/``list_devices()``,
        or selects the device its variable names."""
        if not self.is_for:
            return None
        for sub in ast.walk(self.node.iter):
            if isinstance(sub, ast.Attribute) and _dotted(sub).endswith("cuda.gpus") or isinstance(
                    sub, ast.Call) and _dotted(sub.func).rsplit(".", 1)[-1] in _DEVICE_COUNTS:
                return "sweep", f"devices: iterates `{_short(self.node.iter)}`"
        for sub in _own_nodes(self.node.body):
            if isinstance(sub, ast.Call) and _dotted(sub.func).rsplit(".", 1)[-1] in _SELECT_DEVICE and any(
                    _reads(a) & self.variables for a in sub.args):
                return "sweep", f"devices: selects `{_short(sub)}` on each iteration"
            if isinstance(sub, ast.Subscript) and _dotted(sub.value).endswith(".gpus") and (
                    _reads(sub.slice) & self.variables):
                return "sweep", f"devices: `{_short(sub)}` on each iteration"
        return None

    def _deciding_tests(self) -> List[ast.AST]:
        """The tests that decide whether the loop goes on: a ``while``'s condition and the
        tests of branches that ``break`` out of it or ``return``."""
        tests: List[ast.AST] = []
        if isinstance(self.node, ast.While) and not _is_true(self.node.test):
            tests.append(self.node.test)
        for sub in _own_nodes(self.node.body):
            if isinstance(sub, ast.If) and any(_exits_loop(arm) for arm in (sub.body, sub.orelse)):
                tests.append(sub.test)
        return tests

    def _search(self):
        """A value the loop computes (not a counter, not a clock) decides whether it goes
        on: a retry, a convergence; a call in the deciding test counts the same."""
        facts = self.facts
        for test in self._deciding_tests():
            for name in _reads_in_order(test):
                if name not in facts.changed:
                    continue
                if name in facts.counters or name in facts.clocks or name in self.variables:
                    continue
                return "search", f"`{name}`, computed in the loop, decides whether it goes on (`{_short(test)}`)"
            for call in _calls(test):
                callee = _dotted(call.func).rsplit(".", 1)[-1]
                if callee not in CLOCKS and callee not in _ARITHMETIC:
                    return "search", f"`{_short(call)}` decides whether it goes on"
        return None

    def _files(self):
        if self.is_for and any(isinstance(sub, ast.Call) and _dotted(sub.func).rsplit(".", 1)[-1] in _FILES
                               for sub in ast.walk(self.node.iter)):
            return "sweep", f"files: `{_short(self.node.iter)}`"
        return None

    def _sizes(self):
        """Its variable (bare, or an item it indexes) becomes an allocation's size."""
        variables = self.variables | (self.facts.counters if not self.is_for else set())
        if not variables:
            return None
        for sub in _own_nodes(self.node.body):
            if isinstance(sub, ast.Call) and _dotted(sub.func).rsplit(".", 1)[-1] in _SIZED:
                shapes = list(sub.args[:2] if _dotted(sub.func).endswith(("rand", "randn")) else sub.args[:1])
                shapes += [k.value for k in sub.keywords if k.arg in ("shape", "size")]
                if any(_size_names(s) & variables for s in shapes):
                    return "sweep", f"sizes: `{_short(sub)}` on each iteration"
        return None

    def _chunks(self):
        """Iterations work on slices of the same data bounded by the loop's own variable
        (a ``for``'s, or the counter a ``while`` tests)."""
        variables = self.variables | (self._deciding_counters() if not self.is_for else set())
        for sub in _own_nodes(self.node.body):
            if isinstance(sub, ast.Slice) and any(
                    part is not None and _reads(part) & variables for part in (sub.lower, sub.upper)):
                return "sweep", f"chunks of one array: `{_short(sub)}`"
        return None

    def _consumed(self):
        """A ``while`` that works through one job in batches: its deciding counter shrinks by
        what an offset it passes on grows by (``offset += batch * block`` beside ``remaining -=
        batch * block``): chunks of one computation, not steps."""
        if self.is_for:
            return None
        deciding = self._deciding_counters()
        shrinks: Dict[str, str] = {}
        grows: Dict[str, str] = {}
        for sub in _own_nodes(self.node.body):
            if isinstance(sub, ast.AugAssign) and isinstance(sub.target, ast.Name):
                amount = ast.unparse(sub.value)
                if isinstance(sub.op, ast.Sub) and sub.target.id in deciding:
                    shrinks[amount] = sub.target.id
                elif isinstance(sub.op, ast.Add):
                    grows[amount] = sub.target.id
        for amount, remaining in shrinks.items():
            offset = grows.get(amount)
            if offset is not None and offset not in deciding and any(
                    isinstance(sub, ast.Call) and offset in set().union(*(_reads(a) for a in sub.args), set())
                    for sub in _own_nodes(self.node.body)):
                return "sweep", (f"chunks of one job: `{offset}` advances by what `{remaining}` shrinks by "
                                 f"(`{amount}`)")
        return None

    def _indexes_list(self):
        """A ``range`` loop whose variable picks an item of a list the function spells out
        (``attr_list[i_attr]``, the list written as a literal and appended to): one iteration
        per item of a handful, whatever bound the ``range`` is given."""
        if not (self.is_for and _is_range(self.node.iter)):
            return None
        for sub in _own_nodes(self.node.body):
            if isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Name) and sub.value.id in self.lists() \
                    and _bare_index(sub.slice) & self.variables:
                return "few", f"each iteration takes an item of the list the function spells out (`{_short(sub)}`)"
        return None

    def _deciding_counters(self) -> Set[str]:
        tests = self._deciding_tests()
        return set().union(*(_reads(t) for t in tests)) & self.facts.counters if tests else set()

    def _reduction(self):
        """A ``while`` whose deciding counter is divided on each iteration (``blocks =
        ceil(blocks / threads)``, ``n //= 2``): a reduction tree, a few iterations."""
        if self.is_for:
            return None
        names, assignments = set(self._deciding_counters()), self.facts.assignments
        while True:  # the counters they are computed from
            grown = names | {n for name in names for v in assignments.get(name, ()) for n in _reads(v)
                             if n in self.facts.counters}
            if grown == names:
                break
            names = grown
        for name in sorted(names):
            for value in assignments.get(name, ()):
                if any(isinstance(sub, ast.BinOp) and isinstance(sub.op, (ast.Div, ast.FloorDiv, ast.RShift))
                       for sub in ast.walk(value)):
                    return "few", f"`{name}` is divided on each iteration: a reduction, a few iterations"
        return None

    def _fixed_list(self):
        """A ``for`` over a list the function spells out (``attr_list = [(species, 'x'), ...]``),
        directly, by ``enumerate`` or by ``range(len(...))``."""
        if not self.is_for:
            return None
        iterable = self.node.iter
        while isinstance(iterable, ast.Call) and _dotted(iterable.func) in ("enumerate", "range", "len",
                                                                            "reversed") and iterable.args:
            iterable = iterable.args[-1] if _dotted(iterable.func) == "range" else iterable.args[0]
        if isinstance(iterable, ast.Name) and iterable.id in self.lists():
            return "sweep", f"a fixed list the function spells out (`{iterable.id}`)"
        return None

    def _parts(self):
        """A ``for`` over objects whose own attributes it works on (``part.d_state``), or
        over indices of objects whose arrays it launches on (``grid[m].Er``: modes, species)."""
        if not self.is_for:
            return None
        if _is_range(self.node.iter):
            # names bound to the piece the variable indexes (`kernel = kernels[i]`)
            pieces = {name for sub in _own_nodes(self.node.body) if isinstance(sub, ast.Assign)
                      and _indexed_by(sub.value, self.variables) for t in sub.targets for name in _target_names(t)}
            # every launch on the piece: a time loop also launches on what stays (a source term's
            # `J_SRC[n]` beside the field updates)
            indexed = []
            for sub in _own_nodes(self.node.body):
                if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Subscript):
                    parts = [sub.func.value] + list(sub.args)
                    bases = [p.value if isinstance(p, (ast.Starred, ast.Attribute)) else p for p in parts]
                    piece = next((part for part, base in zip(parts, bases) if _indexed_by(base, self.variables)
                                  or isinstance(base, ast.Name) and base.id in pieces), None)
                    if piece is None:
                        return None
                    indexed.append(piece)
            if indexed:
                return "sweep", f"parts: each iteration launches on another piece (`{_short(indexed[0])}`)"
            return None
        for sub in _own_nodes(self.node.body):
            if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id in self.variables \
                    and sub.attr not in _ARRAY_ATTRIBUTES:
                return "sweep", f"parts: each iteration works on another object (`{_short(sub)}`)"
        return None

    def _steps(self):
        """The same work again: a ``range`` of a count the code does not fix at a few, a
        ``while`` ended by a counter or a clock (or by nothing it computes), a stream of items
        each used whole as data."""
        node, facts = self.node, self.facts
        if self.is_for and _is_range(node.iter):
            return "step", f"repeats its body `{_short(node.iter)}` times"
        if isinstance(node, ast.While):
            tests = self._deciding_tests()
            names = set().union(*(_reads(t) for t in tests)) if tests else set()
            if names & (facts.counters | facts.clocks) or any(
                    _dotted(c.func).rsplit(".", 1)[-1] in CLOCKS for t in tests for c in _calls(t)):
                return "step", "a counter or a clock ends it"
            if not tests and _is_true(node.test):
                return "step", "`while True` that nothing it computes ends"
            return None
        if self.is_for:
            for sub in _own_nodes(node.body):
                if isinstance(sub, ast.Call) and _dotted(sub.func).rsplit(".", 1)[-1] in _TO_DEVICE and any(
                        _item_as_data(a, self.variables) for a in sub.args):
                    return "step", f"a stream of items, each sent to the GPU (`{_short(sub)}`)"
        return None

    def _unknown(self) -> str:
        if isinstance(self.node, ast.While):
            return f"its condition (`{_short(self.node.test)}`) reads nothing the loop changes"
        return f"nothing says what `{_short(self.node.iter)}` holds"


# ---------------------------------------------------------------------------- syntax helpers


def _own_nodes(statements: Sequence[ast.stmt]) -> Iterator[ast.AST]:
    """Every node of these statements, nested functions, classes and lambdas left out."""
    stack: List[ast.AST] = list(reversed(statements))
    while stack:
        node = stack.pop()
        yield node
        for child in reversed(list(ast.iter_child_nodes(node))):
            if not isinstance(child, _SCOPES):
                stack.append(child)


def _dotted(node: ast.AST) -> str:
    """``a.b.c`` for a name or an attribute chain on one, else ""."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def _reads(node: ast.AST) -> Set[str]:
    """Names and ``self.x``-style attribute chains an expression reads."""
    found: Set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            found.add(sub.id)
        elif isinstance(sub, ast.Attribute):
            dotted = _dotted(sub)
            if dotted:
                found.add(dotted)
    return found


def _reads_in_order(node: ast.AST) -> List[str]:
    """What an expression reads, in the order it is written."""
    found: List[str] = []
    for sub in sorted((n for n in ast.walk(node) if isinstance(n, (ast.Name, ast.Attribute))),
                      key=lambda n: (n.lineno, n.col_offset)):
        name = sub.id if isinstance(sub, ast.Name) else _dotted(sub)
        if name and name not in found:
            found.append(name)
    return found


def _target_names(target: ast.AST) -> List[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Attribute):
        dotted = _dotted(target)
        return [dotted] if dotted else []
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for element in target.elts for n in _target_names(element)]
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    return []


def _calls(node: ast.AST) -> List[ast.Call]:
    return [sub for sub in ast.walk(node) if isinstance(sub, ast.Call)]


def _short(node: ast.AST, limit: int = 60) -> str:
    text = ast.unparse(node)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _is_true(test: ast.AST) -> bool:
    return isinstance(test, ast.Constant) and bool(test.value)


def _is_range(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and _dotted(node.func) in ("range", "builtins.range")


def _is_clock_expression(value: ast.AST) -> bool:
    calls = _calls(value)
    return bool(calls) and all(_dotted(c.func).rsplit(".", 1)[-1] in CLOCKS for c in calls)


def _arithmetic_over(value: ast.AST, unchanged) -> bool:
    """Whether an expression is arithmetic over constants and names ``unchanged`` accepts."""
    for sub in ast.walk(value):
        if isinstance(sub, ast.Call):
            if not _is_arithmetic_call(sub):
                return False
        elif isinstance(sub, (ast.Subscript, ast.Await, ast.Yield, ast.YieldFrom, ast.ListComp, ast.GeneratorExp)):
            return False
        elif isinstance(sub, ast.Name) and sub.id not in _ARITHMETIC and sub.id not in _MATH_MODULES and not unchanged(
                sub.id):
            return False
        elif isinstance(sub, ast.Attribute):
            dotted = _dotted(sub)
            math = isinstance(sub.value, ast.Name) and sub.value.id in _MATH_MODULES  # `np.ceil`, `math.pi`
            if dotted and not unchanged(dotted) and not math:
                return False
    return True


def _is_arithmetic_call(call: ast.Call) -> bool:
    name = _dotted(call.func)
    module, _, function = name.rpartition(".")
    return name in _ARITHMETIC or module in _MATH_MODULES and function in _MATH


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


def _counter_reset(test: ast.AST, arm: Sequence[ast.stmt], changes: _Changes) -> str:
    """A counter gate: the test reads a name the code increments, and the branch sets it
    back to a constant (``since += 1`` ... ``if since == every: since = 0``)."""
    for statement in arm:
        if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Constant):
            for target in statement.targets:
                for name in _target_names(target):
                    if name in _reads(test) and name in changes.incremented:
                        return ast.unparse(statement).strip()
    return ""


def _moves_own_threshold(test: ast.AST, arm: Sequence[ast.stmt], changes: _Changes) -> str:
    """The branch advances what its test compares with while something else in the test
    advances on its own (``t += dt`` ... ``if t >= next_out: ...; next_out += every``): it
    runs once per interval. A branch that advances the loop's own counter (``if k < n - 1:
    k += 1``) is not one."""
    read = _reads(test)
    for statement in arm:
        if isinstance(statement, ast.AugAssign) and isinstance(statement.op, (ast.Add, ast.Sub)):
            moved = set(_target_names(statement.target)) & read
            others = read - moved - {n.split(".", 1)[0] for n in moved}
            # in a loop the other side must change on its own; in a called body it changes between calls
            advancing = others & changes.changed if changes.in_loop else others - changes.changed
            if moved and advancing:
                return ast.unparse(statement).strip()
    return ""


def _flips_own_test(test: ast.AST, arm: Sequence[ast.stmt]) -> str:
    """The branch sets a flag its test reads to a constant (``self.burning = False``), or
    gives a value to what its test checks for ``None``: it runs once."""
    read = _reads(test)
    none_tested = {_dotted(c.left) for c in ast.walk(test) if isinstance(c, ast.Compare) and
                   any(isinstance(o, ast.Is) for o in c.ops) and
                   any(isinstance(x, ast.Constant) and x.value is None for x in c.comparators)}
    for statement in arm:
        if not isinstance(statement, ast.Assign):
            continue
        for target in statement.targets:
            for name in _target_names(target):
                if name in read and isinstance(statement.value, ast.Constant) and isinstance(
                        statement.value.value, (bool, type(None))):
                    return ast.unparse(statement).strip()
                if name in none_tested:
                    return ast.unparse(statement).strip()
    return ""


def _once_equality(test: ast.AST, facts: _Changes) -> bool:
    """``step == 0``, ``step == steps - 1``: the loop's counter equal to what it does not change."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    left, right = test.left, test.comparators[0]
    for counter, other in ((left, right), (right, left)):
        if isinstance(counter, ast.Name) and counter.id in facts.counters and not facts.varying(other):
            return True
    return False


def _catch_up(node: ast.While, changes: _Changes) -> str:
    """The statement by which a ``while`` moves back a value its test compares, where the
    enclosing loop computes that value anew (not arithmetic over itself: a call's result), or ""."""
    test = node.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(
            test.ops[0], (ast.Gt, ast.GtE, ast.Lt, ast.LtE))):
        return ""
    compared = _reads(test)
    for sub in _own_nodes(node.body):
        if isinstance(sub, ast.AugAssign) and isinstance(sub.op, (ast.Add, ast.Sub)) and isinstance(
                sub.value, ast.Constant):
            name, moved = _dotted(sub.target), sub
        elif isinstance(sub, ast.Assign) and len(sub.targets) == 1 and isinstance(sub.value, ast.BinOp) and \
                isinstance(sub.value.op, (ast.Add, ast.Sub)) and isinstance(sub.value.right, ast.Constant) and \
                _dotted(sub.value.left) == _dotted(sub.targets[0]):
            name, moved = _dotted(sub.targets[0]), sub
        else:
            continue
        if not name or name not in compared:
            continue
        computed = [v for v in changes.assignments.get(name, ()) if not (
            isinstance(v, ast.BinOp) and name in _reads(v.left)) and not isinstance(v, ast.Constant)]
        if computed and all(_calls(v) for v in computed):
            return ast.unparse(moved).strip()
    return ""


def _ends_with_exit(statements: Sequence[ast.stmt], or_continue: bool = False) -> bool:
    exits = (ast.Return, ast.Break, ast.Raise) + ((ast.Continue,) if or_continue else ())
    return bool(statements) and isinstance(statements[-1], exits)


def _exits_loop(statements: Sequence[ast.stmt]) -> bool:
    """A ``break`` of this loop or a ``return`` in these statements (nested loops' own
    ``break`` left out)."""
    stack = list(statements)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Break, ast.Return)):
            return True
        if isinstance(node, _LOOPS):
            stack.extend(s for s in ast.walk(node) if isinstance(s, ast.Return))
            continue
        if isinstance(node, _SCOPES):
            continue
        stack.extend(child for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt))
    return False


def _size_names(shape: ast.AST) -> Set[str]:
    """Names a shape expression uses as a size: bare (``n``, ``2 * n``, ``(n, n)``) or
    indexing a table (``sizes[i]``), not through an attribute (``frame.size``)."""
    if isinstance(shape, ast.Name):
        return {shape.id}
    if isinstance(shape, (ast.Tuple, ast.List)):
        return set().union(*(_size_names(e) for e in shape.elts)) if shape.elts else set()
    if isinstance(shape, ast.BinOp):
        return _size_names(shape.left) | _size_names(shape.right)
    if isinstance(shape, ast.Subscript):
        return _reads(shape.slice)
    if isinstance(shape, ast.Call) and _dotted(shape.func) in _ARITHMETIC:
        return set().union(*(_size_names(a) for a in shape.args)) if shape.args else set()
    return set()


def _own_statements(statements: Sequence[ast.stmt]) -> Iterator[ast.AST]:
    """The nodes of a loop's body that belong to that loop: nested loops' bodies left out."""
    stack: List[ast.AST] = list(statements)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _LOOPS):
            stack.extend(node.orelse)
            continue
        stack.extend(c for c in ast.iter_child_nodes(node) if isinstance(c, ast.stmt) and not isinstance(c, _SCOPES))


def _indexed_by(node: ast.AST, variables: Set[str]) -> bool:
    """``X[m]`` (or ``X[:, m]``) with ``m`` one of the variables, used whole."""
    return isinstance(node, ast.Subscript) and bool(_bare_index(node.slice) & variables)


def _bare_index(index: ast.AST) -> Set[str]:
    """Names used whole as an index (``m`` in ``grid[m]`` and ``d[:, m]``, not ``i % 2``)."""
    if isinstance(index, ast.Name):
        return {index.id}
    if isinstance(index, ast.Tuple):
        return {e.id for e in index.elts if isinstance(e, ast.Name)}
    return set()


def _item_as_data(argument: ast.AST, variables: Set[str]) -> bool:
    """The loop's item passed as data: bare, indexed, or through an array attribute."""
    node = argument
    while True:
        if isinstance(node, ast.Name):
            return node.id in variables
        if isinstance(node, ast.Subscript):
            if isinstance(node.value, ast.Name) and node.value.id not in variables and _reads(node.slice) & variables:
                return True  # `frames[i]`
            node = node.value
        elif isinstance(node, ast.Attribute) and node.attr in _ARRAY_ATTRIBUTES:
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
                node.func.attr in _ARRAY_ATTRIBUTES):
            node = node.func.value
        else:
            return False


def _trips(iterable: ast.AST, constants: Mapping[str, int]) -> Optional[int]:
    """How many items an iterable the code spells out has: a literal list, ``range`` of
    constants, ``np.array_split(x, 8)``; through ``enumerate`` and ``reversed``."""
    if isinstance(iterable, (ast.List, ast.Tuple, ast.Set)):
        return len(iterable.elts)
    if not isinstance(iterable, ast.Call):
        return None
    name = _dotted(iterable.func).rsplit(".", 1)[-1]
    if name == "range" and 1 <= len(iterable.args) <= 3:
        values = [_int_value(a, constants) for a in iterable.args]
        if any(v is None for v in values):
            return None
        start, stop, step = (0, values[0], 1) if len(values) == 1 else tuple((values + [1])[:3])
        return len(range(start, stop, step)) if step else None  # type: ignore[arg-type]
    if name in _SPLITS and len(iterable.args) >= 2:
        return _int_value(iterable.args[1], constants)
    if name in ("enumerate", "reversed") and iterable.args:
        return _trips(iterable.args[0], constants)
    return None


def _int_value(node: ast.AST, constants: Mapping[str, int]) -> Optional[int]:
    """An integer the expression always has: literals, constants and their arithmetic."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    if isinstance(node, ast.Call) and _dotted(node.func) == "len" and len(node.args) == 1:
        # `len(("x", "y", "z"))`, `len(COMPONENTS)` of a module-level literal (its length kept as `len(NAME)`)
        argument = node.args[0]
        if isinstance(argument, (ast.List, ast.Tuple, ast.Set)) and not any(
                isinstance(e, ast.Starred) for e in argument.elts):
            return len(argument.elts)
        return constants.get(f"len({argument.id})") if isinstance(argument, ast.Name) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = _int_value(node.operand, constants)
        return -value if value is not None else None
    if isinstance(node, ast.BinOp):
        left, right = _int_value(node.left, constants), _int_value(node.right, constants)
        if left is None or right is None:
            return None
        operations = {ast.Add: lambda: left + right, ast.Sub: lambda: left - right, ast.Mult: lambda: left * right,
                      ast.FloorDiv: lambda: left // right if right else None,
                      ast.Pow: lambda: left ** right if 0 <= right <= 64 else None,
                      ast.LShift: lambda: left << right if 0 <= right <= 64 else None,
                      ast.RShift: lambda: left >> right if right >= 0 else None}
        operation = operations.get(type(node.op))
        return operation() if operation else None
    return None


def _literal_lists(statements: Sequence[ast.stmt]) -> Set[str]:
    """Names a body binds to a list or tuple literal (and to nothing else but such)."""
    bound: Dict[str, bool] = {}
    for sub in _own_nodes(statements):
        if isinstance(sub, ast.Assign):
            for target in sub.targets:
                if isinstance(target, ast.Name):
                    literal = isinstance(sub.value, (ast.List, ast.Tuple))
                    bound[target.id] = bound.get(target.id, True) and literal
        elif isinstance(sub, ast.AugAssign) and isinstance(sub.target, ast.Name):
            bound[sub.target.id] = bound.get(sub.target.id, False) and isinstance(sub.value, (ast.List, ast.Tuple))
    return {name for name, literal in bound.items() if literal}


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
            value = _int_value(values[0], constants)
            if value is not None:
                constants[name] = value
            elif isinstance(values[0], (ast.List, ast.Tuple)) and not any(
                    isinstance(e, ast.Starred) for e in values[0].elts):
                if not grown:
                    grown.append(_grown(tree))
                if name not in grown[0]:
                    constants[f"len({name})"] = len(values[0].elts)  # `COMPONENTS = ("x", "y", "z")`
    return constants


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
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
                "append", "extend", "insert"):
            found.add(_dotted(node.func.value))
        elif isinstance(node, ast.AugAssign):
            found.add(_dotted(node.target))
    return found


def _defaults(arguments: ast.arguments, constants: Mapping[str, int]) -> Dict[str, int]:
    """Parameters whose default is an integer constant (``n_steps=100_000``): what a call
    that does not pass them runs with."""
    found: Dict[str, int] = {}
    positional = arguments.posonlyargs + arguments.args
    for argument, default in zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults):
        value = _int_value(default, constants)
        if value is not None:
            found[argument.arg] = value
    for argument, default in zip(arguments.kwonlyargs, arguments.kw_defaults):
        value = _int_value(default, constants) if default is not None else None
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
            name = _dotted(node.func).rsplit(".", 1)[-1]
            if name:
                called.add(name)
        if isinstance(node, _SCOPES):
            in_loop = False  # a function defined in a loop runs when it is called
        if isinstance(node, _LOOPS):
            stack.extend((child, True) for child in node.body)
            stack.extend((child, in_loop) for child in node.orelse)
            stack.append((node.iter if isinstance(node, (ast.For, ast.AsyncFor)) else node.test, in_loop))
        else:
            stack.extend((child, in_loop) for child in ast.iter_child_nodes(node))
    return called


def constant_int(node: ast.AST, tree: ast.Module) -> Optional[int]:
    """The integer an expression always has in a module: literals, the module's integer
    constants (``N_RUNS = 1_000``) and their arithmetic; None where it is not fixed."""
    return _int_value(node, _module_constants(tree))
