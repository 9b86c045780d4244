"""What the reading of a body gives: each loop's kind, each statement's place in its
innermost loop, and the :class:`Rate` that composes them through calls."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional, Tuple

LOOP_KINDS = ("step", "search", "sweep", "setup", "few", "benchmark", "verify", "unknown")
PLACES = ("every", "periodic", "event", "leaving", "unknown", "never")


@dataclass(frozen=True)
class Context:
    """What is known about the code around the body read: its file, its name and what
    the rest of the module says about it (:func:`analyse_module` fills it)."""

    path: str = ""
    qualname: str = ""  # "Class.method", "function", "" for a module's top level
    test: str = ""  # why pytest collects it as a test ("" if it does not)
    setup: str = ""  # why it runs once before the work ("" if not known to)
    constants: Tuple[Tuple[str, int], ...] = ()  # module-level integer constants (`N = 1 << 20`)
    frame: str = ""  # why a driver calls it once per frame ("" if none does: `frame_callbacks`)
    # parameters whose default is a count of 0 or 1 (`time_steps=1`): a count callers pass, not a
    # handful the code states
    called_counts: Tuple[str, ...] = ()
    # the module's functions and methods (by name) whose every `return` gives True or False: what
    # such a call says in a `while`'s test is whether there is more to do (`while video.update():`)
    flag_returns: Tuple[str, ...] = ()
    never: str = ""  # why the body never runs ("" if it may: `stops`)
    # the names the module binds to NumPy (`import numpy as np`): `np.array(item)` makes a host
    # array, it sends nothing to the GPU
    numpy_names: Tuple[str, ...] = ("numpy",)



@dataclass(eq=False)
class Loop:
    """One ``for``/``while`` loop: its kind and why, its known trip count, the loop around it."""

    node: ast.stmt
    kind: str
    reason: str
    parent: Optional["Loop"] = None
    trips: Optional[int] = None  # how many iterations the code states (a literal, a constant, a default)

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
        (``sweep``, ``few``) inside a step run on each step; ``search``, ``setup``, ``verify``
        and ``unknown`` stop the walk (unknown is silent); code that never runs (a level
        ``never``, at any depth: the call that leads to the loop) has none."""
        if not self.runs:
            return None
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

    @property
    def runs(self) -> bool:
        """False for what never runs (a level ``never`` on the way)."""
        return all(level.place != "never" for level in self.levels)



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

    def add(self, statement: Statement) -> None:
        """The reading found a statement's place."""
        self._statements[id(statement.node)] = statement

    def add_loop(self, loop: Loop) -> None:
        """The reading found a loop (outer loops before inner ones)."""
        self.loops.append(loop)
        self._of_loop[id(loop.node)] = loop

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

    def rate_at(self, line: int, advances: bool = False) -> Optional[Rate]:
        """The :class:`Rate` of what runs at ``line``: its innermost statement's, and for a
        ``while``'s own test, one more level (the test runs on each of its iterations), as for
        what advances a ``for``'s iterator (``advances``: its ``__next__``)."""
        statement = self.at(line)
        if statement is None:
            return None
        rate = self.rate(statement.node)
        node = statement.node
        if advances and isinstance(node, (ast.For, ast.AsyncFor)):
            loop = self.loop(node)
            rate = Rate(rate.levels + (Level(loop.kind, "every", loop.line),))
        elif isinstance(node, ast.While) and node.test.lineno <= line <= (node.test.end_lineno or node.test.lineno):
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
