"""What a statement needs its callers to pass: parameters that default to None and that the
function uses as a value on every way to the statement (indexes them, reads an attribute of
them, calls or iterates them, computes with them). A call that leaves such a parameter out
raises a ``TypeError`` first: what lies behind never runs from that call
(``def action(self, config, deformation=None): if deformation[1] is not None: ...launch...``
called as ``self.action(config)`` on every step launches nothing).

Only what surely runs counts: a ``try`` body, the sides of ``and``/``or`` and of a
conditional expression after the first, lambdas and the bodies of branches and loops other
than the one leading to the statement are left out; a parameter the function assigns is
never needed."""

from __future__ import annotations

import ast
from typing import Iterator, List, Sequence, Set, Tuple

from .syntax import own_nodes

def required_parameters(function: ast.AST, line: int) -> Tuple[str, ...]:
    """The None-defaulting parameters of ``function`` used as values on every way from its
    start to what runs at ``line`` (the statement holding it included: its arguments are
    evaluated before its call), sorted; () where there are none or ``line`` is not in it."""
    optional = _none_defaults(function)
    if not optional:
        return ()
    assigned = {node.id for node in own_nodes(function.body)
                if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del))}
    optional -= assigned
    if not optional:
        return ()
    used: Set[str] = set()
    for expr in _evaluated_on_the_way(function.body, line):
        used |= _used_as_value(expr, optional)
    return tuple(sorted(used))


def _none_defaults(function: ast.AST) -> Set[str]:
    arguments = function.args
    positional = arguments.posonlyargs + arguments.args
    found = {a.arg for a, d in zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults)
             if isinstance(d, ast.Constant) and d.value is None}
    found |= {a.arg for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults)
              if isinstance(d, ast.Constant) and d.value is None}
    return found


def _evaluated_on_the_way(block: Sequence[ast.stmt], line: int) -> Iterator[ast.AST]:
    """The expressions surely evaluated before what runs at ``line``: whole simple statements
    before it in its block and the blocks around it, the tests and iterables of the compound
    statements on the way, and the statement holding ``line`` itself."""
    for statement in block:
        inside = statement.lineno <= line <= (statement.end_lineno or statement.lineno)
        if not inside:
            if statement.lineno > line:
                return
            yield from _headers(statement)
            continue
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Try)) or \
                type(statement).__name__ == "TryStar":
            return  # (a handler may catch the error; a nested body runs when it is called)
        yield from _headers(statement)
        yield from _evaluated_on_the_way(_inner_block(statement, line), line)
        return


def _inner_block(statement: ast.stmt, line: int) -> Sequence[ast.stmt]:
    """The block of a compound statement that holds ``line`` and runs whenever the statement
    does reach it: an ``if``'s side, a loop's body, a ``with``'s body; [] for the others."""
    if isinstance(statement, ast.If):
        return _side(statement, line)
    if isinstance(statement, (ast.For, ast.AsyncFor, ast.While)):
        return statement.body if _holds(statement.body, line) else []
    if isinstance(statement, (ast.With, ast.AsyncWith)):
        return statement.body
    return []


def _headers(statement: ast.stmt) -> List[ast.AST]:
    """What of a statement before the one sought surely runs: all of a simple statement, the
    test or iterable of a compound one (its bodies may not run)."""
    if isinstance(statement, (ast.If, ast.While)):
        return [statement.test]
    if isinstance(statement, (ast.For, ast.AsyncFor)):
        return [_iterated(statement)]
    if isinstance(statement, (ast.With, ast.AsyncWith)):
        return [item.context_expr for item in statement.items]
    if isinstance(statement, ast.Match):
        return [statement.subject]
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Try)) or \
            type(statement).__name__ == "TryStar":
        return []
    return [statement]


def _iterated(loop: ast.stmt) -> ast.AST:
    """A ``for`` loop's iterable as the use it is: iterated, as a spread (``*parts``) iterates it."""
    return ast.Starred(value=loop.iter, ctx=ast.Load())


def _side(statement: ast.If, line: int) -> Sequence[ast.stmt]:
    return statement.body if _holds(statement.body, line) else statement.orelse if _holds(statement.orelse, line) else []


def _holds(block: Sequence[ast.stmt], line: int) -> bool:
    return bool(block) and block[0].lineno <= line <= (block[-1].end_lineno or block[-1].lineno)


def _used_as_value(node: ast.AST, names: Set[str]) -> Set[str]:
    """The names of ``names`` that ``node`` surely uses as a value None does not have."""
    found: Set[str] = set()

    def named(expr: ast.AST) -> str:
        return expr.id if isinstance(expr, ast.Name) and expr.id in names else ""

    def visit(expr: ast.AST) -> None:
        if isinstance(expr, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return
        if isinstance(expr, ast.BoolOp):
            visit(expr.values[0])
            return
        if isinstance(expr, ast.IfExp):
            visit(expr.test)
            return
        if isinstance(expr, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            first = expr.generators[0].iter
            found.add(named(first))
            visit(first)
            return
        if isinstance(expr, (ast.Subscript, ast.Attribute, ast.Starred)):
            found.add(named(expr.value))
        elif isinstance(expr, ast.Call):
            found.add(named(expr.func))
        elif isinstance(expr, ast.BinOp):
            found.update((named(expr.left), named(expr.right)))
        elif isinstance(expr, ast.UnaryOp) and not isinstance(expr.op, ast.Not):
            found.add(named(expr.operand))
        for child in ast.iter_child_nodes(expr):
            visit(child)

    visit(node)
    found.discard("")
    return found
