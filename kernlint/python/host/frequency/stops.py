"""Code that cannot run: where a module's top level stops with a ``NameError``.

A module-level statement that reads, wherever it runs at all, a name the module never binds
(no assignment, import, ``def``/``class``, ``global`` write or builtin gives it) raises there
when the script runs or the module is imported: the statements after it never run, nor do the
functions and classes defined after it, nor the functions only that code calls. The reading is
pyflakes' kind and errs towards "runs":

- a name the module binds anywhere at its top level counts, before or after the read, in a
  branch, a loop, a ``try`` or under ``if TYPE_CHECKING:`` (a notebook's exported cells may have
  run in any order, a loop binds on one iteration what the next reads);
- only what the statement surely evaluates is read: a loop's or a branch's header, not its body;
  the first operand of ``and``/``or``, the test of ``a if t else b``, a comprehension's first
  iterable; nothing in a ``try`` (an ``except NameError`` may catch it), an ``assert`` (``-O``
  drops it), a ``def``, a ``class`` or a ``lambda``;
- a module that can bind names out of sight (a star import, ``globals()``, ``exec``, ``vars()``,
  ``builtins``, ``sys.modules``) is never read as stopping;
- a function defined before the stop runs unless every reference to it is in code that never
  runs (one reference at least; a decorator may register it, so a decorated one runs).
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional, Set

from .syntax import SCOPES, tree_nodes
from ...syntax import child_nodes, walk_nodes

# names every module has, and those of builtins that other Pythons (and platforms) add: a read of
# one of them is no NameError wherever the code was written to run
_MODULE_NAMES = {"__name__", "__file__", "__doc__", "__spec__", "__loader__", "__package__", "__path__",
                 "__builtins__", "__annotations__", "__cached__", "__dict__", "__debug__", "__qualname__",
                 "__module__", "__class__", "WindowsError", "ExceptionGroup", "BaseExceptionGroup", "aiter", "anext",
                 "EncodingWarning", "PythonFinalizationError"}
# Python 2's builtins (a script written for it runs with them) and what IPython and Jupyter put in
# a notebook's namespace (exported notebooks call them at the top level)
_OTHER_RUNTIMES = {"xrange", "raw_input", "unicode", "basestring", "long", "reduce", "file", "execfile", "unichr",
                   "cmp", "buffer", "apply", "intern", "coerce", "reload", "StandardError",
                   "get_ipython", "display", "In", "Out", "_", "__", "___", "_i", "_ii", "_iii", "_oh", "_dh",
                   "__IPYTHON__", "exit", "quit"}
_KNOWN = set(dir(builtins)) | _MODULE_NAMES | _OTHER_RUNTIMES
# what can bind a module's names out of sight of its syntax
_OUT_OF_SIGHT = {"globals", "locals", "vars", "exec", "eval", "execfile", "builtins", "__builtin__",
                 "__builtins__"}


@dataclass
class Stop:
    """Where a module's top level stops: the statement that raises, the name it reads, and what
    never runs because of it (statements by ``id``, functions and classes by their ``def``)."""

    statement: ast.stmt
    name: str
    line: int  # the read's line
    never: Set[int] = field(default_factory=set)  # ids of top-level statements (and the raising one's body) never run
    functions: Dict[int, str] = field(default_factory=dict)  # id of a def/class -> why it never runs

    def reason(self) -> str:
        return f"the module stops at line {self.line}: `{self.name}` is bound nowhere at its top level (NameError)"


def module_stop(tree: ast.Module) -> Optional[Stop]:
    """The first top-level statement that surely raises ``NameError``, with what never runs
    after it; None where the module runs to its end or the reading cannot tell."""
    if _binds_out_of_sight(tree):
        return None
    bound = _module_bindings(tree)
    for index, statement in enumerate(tree.body):
        read = next((n for n in _surely_read(statement) if n.id not in bound and n.id not in _KNOWN), None)
        if read is None:
            continue
        stop = Stop(statement, read.id, read.lineno)
        after = tree.body[index + 1:]
        stop.never.update(id(s) for s in after)
        if isinstance(statement, (ast.For, ast.AsyncFor, ast.While, ast.If, ast.With, ast.AsyncWith)):
            # the header raised: neither its body nor its `else` runs
            skipped = statement.body + getattr(statement, "orelse", [])
            stop.never.update(id(s) for s in skipped)
            _never_defined(stop, skipped)
        _never_defined(stop, after)
        _never_called(stop, tree)
        return stop
    return None


def _binds_out_of_sight(tree: ast.Module) -> bool:
    for node in tree_nodes(tree):
        if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names):
            return True
        if isinstance(node, ast.Name) and node.id in _OUT_OF_SIGHT:
            return True
        if isinstance(node, ast.alias) and node.name.split(".")[0] in ("builtins", "__builtin__"):
            return True
        if isinstance(node, ast.Attribute) and node.attr == "modules" and isinstance(node.value, ast.Name) and \
                node.value.id == "sys":
            return True
    return False


def _module_bindings(tree: ast.Module) -> Set[str]:
    """Every name the module's top level binds anywhere (a comprehension's variables too, where
    a walrus may bind), and those a function declares ``global``."""
    bound: Set[str] = set()
    stack: List[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
            stack.extend(node.decorator_list)  # (a walrus there binds at the top level)
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif type(node).__name__ in ("MatchAs", "MatchStar") and node.name:
            bound.add(node.name)  # (a `case` capture)
        elif type(node).__name__ == "MatchMapping" and node.rest:
            bound.add(node.rest)
        stack.extend(child_nodes(node))
    for node in tree_nodes(tree):
        if isinstance(node, ast.Global):
            bound.update(node.names)
    return bound


def _surely_read(statement: ast.stmt) -> Iterator[ast.Name]:
    """The names a top-level statement reads whenever it runs, in no particular order."""
    if isinstance(statement, (ast.Expr, ast.Assign, ast.AugAssign)):
        yield from _evaluated(statement.value)
        if isinstance(statement, ast.AugAssign):
            yield from _evaluated(statement.target)
        for target in getattr(statement, "targets", ()):
            yield from _evaluated_targets(target)
    elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
        yield from _evaluated(statement.value)  # (the annotation may be a string or postponed)
    elif isinstance(statement, (ast.For, ast.AsyncFor)):
        yield from _evaluated(statement.iter)
    elif isinstance(statement, (ast.While, ast.If)):
        yield from _evaluated(statement.test)
    elif isinstance(statement, (ast.With, ast.AsyncWith)) and statement.items:
        yield from _evaluated(statement.items[0].context_expr)
    elif type(statement).__name__ == "Match":
        yield from _evaluated(statement.subject)
    elif isinstance(statement, ast.Delete):
        for target in statement.targets:
            yield from _evaluated_targets(target)


def _evaluated_targets(target: ast.AST) -> Iterator[ast.Name]:
    """What an assignment's target reads (``a[i] = v`` reads ``a`` and ``i``)."""
    if isinstance(target, (ast.Attribute, ast.Subscript)):
        yield from _evaluated(target)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _evaluated_targets(element)
    elif isinstance(target, ast.Starred):
        yield from _evaluated_targets(target.value)


def _evaluated(node: ast.AST) -> Iterator[ast.Name]:
    """The names an expression surely reads: short circuits, conditional arms, lambdas and
    comprehensions' bodies (which may never run) left out."""
    if isinstance(node, ast.Name):
        if isinstance(node.ctx, ast.Load):
            yield node
        return
    if isinstance(node, ast.Lambda):
        return
    if isinstance(node, ast.BoolOp):
        yield from _evaluated(node.values[0])
        return
    if isinstance(node, ast.IfExp):
        yield from _evaluated(node.test)
        return
    if isinstance(node, ast.Compare):
        yield from _evaluated(node.left)
        yield from _evaluated(node.comparators[0])
        return
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        yield from _evaluated(node.generators[0].iter)
        return
    if isinstance(node, ast.NamedExpr):
        yield from _evaluated(node.value)
        return
    for child in child_nodes(node):
        if isinstance(child, ast.expr):
            yield from _evaluated(child)
        elif isinstance(child, ast.keyword):
            yield from _evaluated(child.value)


def _never_defined(stop: Stop, statements: List[ast.stmt]) -> None:
    """Functions and classes defined in code that never runs are never made: their bodies
    (and their methods, nested functions) never run."""
    why = f"defined where the module never gets to ({stop.reason()})"
    for statement in statements:
        if statement is stop.statement and not isinstance(statement, SCOPES):
            parts = statement.body + getattr(statement, "orelse", [])  # (only the raising header's body)
        else:
            parts = [statement]
        for part in parts:
            for node in walk_nodes(part):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    stop.functions[id(node)] = why


def _never_called(stop: Stop, tree: ast.Module) -> None:
    """Top-level functions and classes made before the stop that only code that never runs
    refers to (by name; a decorated one may be registered, so it runs): greatest fixpoint, so
    functions that only call each other there are never run either."""
    candidates = {s.name: s for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                  and id(s) not in stop.never and id(s) not in stop.functions and not s.decorator_list}
    if not candidates:
        return
    # each reference to a candidate: the top-level statement it is in and the candidate whose body holds it
    references: Dict[str, List[tuple]] = {name: [] for name in candidates}
    for statement in tree.body:
        owner = candidates.get(getattr(statement, "name", "")) if isinstance(statement, SCOPES) else None
        for node, holder in _names_with_holder(statement, owner):
            if isinstance(node.ctx, ast.Load) and node.id in references:
                references[node.id].append((statement, holder))
    rebound = {n.id for n in tree_nodes(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    never = {name for name, refs in references.items() if refs and name not in rebound}
    changed = True
    while changed:
        changed = False
        for name in sorted(never):
            for statement, holder in references[name]:
                runs = id(statement) not in stop.never and (holder is None or holder.name not in never)
                if holder is not None and id(holder) in stop.functions:
                    runs = False
                if runs:
                    never.discard(name)
                    changed = True
                    break
    for name in never:
        definition = candidates[name]
        why = f"only code that never runs calls `{name}` ({stop.reason()})"
        for node in walk_nodes(definition):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                stop.functions[id(node)] = why


def _names_with_holder(statement: ast.stmt, owner) -> Iterator[tuple]:
    """The names a top-level statement holds, each with the candidate definition whose body
    it is in (None: run at the top level, a definition's decorators and defaults included)."""
    if owner is not None:
        outside = list(getattr(owner, "decorator_list", [])) + list(getattr(owner, "bases", [])) + [
            k.value for k in getattr(owner, "keywords", [])]
        arguments = getattr(owner, "args", None)
        if arguments is not None:
            outside += list(arguments.defaults) + [d for d in arguments.kw_defaults if d is not None]
        for part in outside:
            yield from ((n, None) for n in walk_nodes(part) if isinstance(n, ast.Name))
        for part in owner.body:
            yield from ((n, owner) for n in walk_nodes(part) if isinstance(n, ast.Name))
        return
    yield from ((n, None) for n in walk_nodes(statement) if isinstance(n, ast.Name))
