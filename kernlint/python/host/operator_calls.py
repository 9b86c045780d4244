"""Operators on objects of the project's classes, read as the method calls they make
(``static_types.operators``): ``x @ w + b`` on tensors whose ``__matmul__`` and ``__add__``
launch kernels runs both methods where it is written, at that statement's rate. May import the
rest of ``kernlint.python``.

A file that launches nothing itself is read for this (its objects' classes across the
project) where it writes operators in a loop and imports, directly or through others, a class
defining operator methods in a file that launches kernels, and a module defining kernels: a
training script over a tensor package (not the scripts and tests of a library whose operator
classes compute on the host)."""

from __future__ import annotations

import ast
from typing import Callable, Optional

from ..project import Project
from ..static_types import TypeReader
from ..static_types.operators import BINARY, COMPARE, UNARY, OperatorNode, operator_calls
from ..syntax import PyModule, tree_nodes, walk_nodes
from .launches import LAUNCH_TEXT

# the methods an operator calls, either operand's
OPERATOR_METHODS = frozenset(
    [f"__{name}__" for name, _ in BINARY.values()] + [f"__r{name}__" for name, _ in BINARY.values()]
    + [name for name, _ in UNARY.values()] + [name for name, _, _ in COMPARE.values()])


def operator_call(node: ast.AST, reader: TypeReader,
                  method_called: Callable[[ast.Call, TypeReader], object]) -> Optional[ast.Call]:
    """The method call an operator makes where an operand is an object of a project class
    defining it (``method_called``: the project method a call runs, or None); None otherwise
    (NumPy arrays, numbers, objects whose classes leave the operator out)."""
    for call in operator_calls(node):
        if method_called(call, reader) is not None:
            return call
    return None


def drives_operators(project: Project, module: PyModule) -> bool:
    """Whether a file writes operators in a loop on what may be objects of an imported class
    defining operator methods in a file that launches kernels, where its imports also define
    kernels."""
    def looped_operators() -> bool:
        return any(isinstance(sub, OperatorNode) for loop in tree_nodes(module.tree)
                   if isinstance(loop, (ast.For, ast.AsyncFor, ast.While)) for statement in loop.body
                   for sub in walk_nodes(statement))

    if not project.memo("operators in a loop", module.tree, looped_operators):
        return False
    imported = [project.module(path) for path in sorted(project.imports_of_file(module.path))]
    imported = [m for m in imported if m is not None and m.path != module.path]
    # the class's own file launches: a library's operator classes (a linear operator's `@` and
    # `+` over NumPy) would otherwise make every script and test of it read as GPU code
    return any(m.kernels for m in imported) and any(
        LAUNCH_TEXT.search(m.text) and project.memo("defines operators", m.tree, lambda m=m: _defines_operators(m.tree))
        for m in imported)


def _defines_operators(tree: ast.Module) -> bool:
    return any(isinstance(statement, ast.ClassDef) and any(
        isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in OPERATOR_METHODS
        for item in statement.body) for statement in tree.body)
