"""The syntax the frequency reading shares: names an expression reads or a statement
assigns, calls, integer constants, the nodes a body owns."""

from __future__ import annotations

import ast
from typing import Iterator, List, Mapping, Optional, Sequence, Set

# (tree_nodes: one walk of a file's tree, shared with the readers)
from ...syntax import child_nodes, tree_nodes, walk_nodes  # noqa: F401

# the clock reads that end a loop by time, not by what it computes
CLOCKS = {"time", "perf_counter", "monotonic", "process_time", "perf_counter_ns", "time_ns", "monotonic_ns",
          "default_timer", "now", "utcnow"}
# calls whose result depends only on their arguments' values: a counter stays a counter through them
ARITHMETIC = {"min", "max", "int", "float", "abs", "round", "len", "divmod", "pow"}

LOOPS = (ast.For, ast.AsyncFor, ast.While)
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def own_nodes(statements: Sequence[ast.stmt]) -> Iterator[ast.AST]:
    """Every node of these statements, nested functions, classes and lambdas left out."""
    stack: List[ast.AST] = list(reversed(statements))
    while stack:
        node = stack.pop()
        yield node
        for child in reversed(list(child_nodes(node))):
            if not isinstance(child, SCOPES):
                stack.append(child)



def dotted_name(node: ast.AST) -> str:
    """``a.b.c`` for a name or an attribute chain on one, else ""."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""



def names_read(node: ast.AST) -> Set[str]:
    """Names and ``self.x``-style attribute chains an expression reads."""
    found: Set[str] = set()
    for sub in walk_nodes(node):
        if isinstance(sub, ast.Name):
            found.add(sub.id)
        elif isinstance(sub, ast.Attribute):
            dotted = dotted_name(sub)
            if dotted:
                found.add(dotted)
    return found



def names_read_in_order(node: ast.AST) -> List[str]:
    """What an expression reads, in the order it is written."""
    found: List[str] = []
    for sub in sorted((n for n in walk_nodes(node) if isinstance(n, (ast.Name, ast.Attribute))),
                      key=lambda n: (n.lineno, n.col_offset)):
        name = sub.id if isinstance(sub, ast.Name) else dotted_name(sub)
        if name and name not in found:
            found.append(name)
    return found



def assigned_names(target: ast.AST) -> List[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Attribute):
        dotted = dotted_name(target)
        return [dotted] if dotted else []
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for element in target.elts for n in assigned_names(element)]
    if isinstance(target, ast.Starred):
        return assigned_names(target.value)
    return []



def capture_read(target: ast.AST, value: ast.AST) -> Optional[ast.expr]:
    """The capture of ``ok, image = capture.read()`` (OpenCV's success flag and image: a pair
    bound from a ``read()`` with no arguments); None for any other assignment."""
    if isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(value, ast.Call) and not (
            value.args or value.keywords) and isinstance(value.func, ast.Attribute) and value.func.attr == "read":
        return value.func.value
    return None


def calls_in(node: ast.AST) -> List[ast.Call]:
    return [sub for sub in walk_nodes(node) if isinstance(sub, ast.Call)]



def short_text(node: ast.AST, limit: int = 60) -> str:
    text = ast.unparse(node)
    return text if len(text) <= limit else text[:limit - 3] + "..."



def is_true(test: ast.AST) -> bool:
    return isinstance(test, ast.Constant) and bool(test.value)



def is_range_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and dotted_name(node.func) in ("range", "builtins.range")



def ends_with_exit(statements: Sequence[ast.stmt], or_continue: bool = False) -> bool:
    exits = (ast.Return, ast.Break, ast.Raise) + ((ast.Continue,) if or_continue else ())
    return bool(statements) and isinstance(statements[-1], exits)



def int_value(node: ast.AST, constants: Mapping[str, int]) -> Optional[int]:
    """An integer the expression always has: literals, constants and their arithmetic."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    if isinstance(node, ast.Call) and dotted_name(node.func) == "len" and len(node.args) == 1:
        # `len(("x", "y", "z"))`, `len(COMPONENTS)` of a module-level literal (its length kept as `len(NAME)`)
        argument = node.args[0]
        if isinstance(argument, (ast.List, ast.Tuple, ast.Set)) and not any(
                isinstance(e, ast.Starred) for e in argument.elts):
            return len(argument.elts)
        return constants.get(f"len({argument.id})") if isinstance(argument, ast.Name) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = int_value(node.operand, constants)
        return -value if value is not None else None
    if isinstance(node, ast.BinOp):
        left, right = int_value(node.left, constants), int_value(node.right, constants)
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
