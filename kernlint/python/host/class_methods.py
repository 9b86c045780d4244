"""Calls through a class rather than an object: ``Mul.apply(a, b)``, a static or class method
of a project class, and inside a class method ``cls.forward(...)``, which runs the method of
the class the call came through. Autograd-style code writes every operation so: ``Function``
defines ``apply`` once (``cls.forward(...)``), each subclass its ``forward`` (a launch), and a
tensor's operators call ``Mul.apply(self, other)``. May import ``python.project`` and
``python.syntax``.
"""

from __future__ import annotations

import ast
from typing import List, Optional, Set, Tuple

from ..project import Project
from ..syntax import FunctionNode, PyModule, Scope, tree_nodes, walk_nodes
from .classes import method_of
from .launches import LAUNCH_TEXT

MAX_DEPTH = 4  # class methods calling class methods (`apply` -> `_forward` -> `forward`)


def decorated(function: FunctionNode, name: str) -> bool:
    return any(isinstance(d, ast.Name) and d.id == name for d in function.decorator_list)


def class_receiver(function: Optional[FunctionNode], owner: Optional[str], expr: ast.expr) -> bool:
    """Whether ``expr`` is the class parameter (``cls``) of ``function``, a class method of
    the class ``owner``."""
    return (function is not None and owner is not None and decorated(function, "classmethod")
            and bool(function.args.args) and isinstance(expr, ast.Name) and expr.id == function.args.args[0].arg)


def class_called(project: Project, module: PyModule, call: ast.Call, scope: Scope,
                 function: Optional[FunctionNode], owner: Optional[str]) -> Optional[Tuple[str, str]]:
    """(file, class) a call ``Klass.method(...)`` goes through: a project class named in
    ``module`` (imports followed), or ``cls`` in a class method of ``owner``; None otherwise."""
    if not isinstance(call.func, ast.Attribute):
        return None
    value = call.func.value
    if class_receiver(function, owner, value):
        return module.path, owner
    if not isinstance(value, (ast.Name, ast.Attribute)):
        return None
    if isinstance(value, ast.Name):
        binding, local = scope.lookup(value.id)
        if local is not None or binding is None:
            return None  # a local name, or a name the module does not bind
        if binding.kind == "class":
            return module.path, value.id
    dotted = module.dotted(value, scope)
    found = project.definition(dotted, module) if dotted else None
    if found is None or found[1].kind != "class":
        return None
    return found[0].path, found[1].name


def class_method_calls(project: Project, module: PyModule, call: ast.Call, scope: Scope,
                       function: Optional[FunctionNode] = None,
                       owner: Optional[str] = None) -> List[Tuple[str, str]]:
    """(file, Class.method) of what a call through a class runs: the static or class method
    (its own class's or a base's), and, for a class method, what its own ``cls.method(...)``
    calls run on the class the call came through (``Mul.apply`` defined by ``Function``:
    ``Mul.forward``), through class methods calling class methods; empty for any other call."""
    through = class_called(project, module, call, scope, function, owner)
    if through is None:
        return []
    found: List[Tuple[str, str]] = []
    _reached(project, through, call.func.attr, found, set(), 0)
    return found


def _reached(project: Project, through: Tuple[str, str], name: str, found: List[Tuple[str, str]],
             seen: Set[Tuple[str, str]], depth: int) -> None:
    method = method_of(project, through[0], through[1], name)
    if method is None or depth > MAX_DEPTH:
        return
    defining, klass, node = method
    if not (decorated(node, "staticmethod") or decorated(node, "classmethod")):
        return  # `Base.method(self, ...)`: an object's method, read as the object's
    runs = (defining.path, f"{klass}.{name}")
    if runs in seen:
        return
    seen.add(runs)
    found.append(runs)
    if not decorated(node, "classmethod"):
        return
    for sub in walk_nodes(node):
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and class_receiver(
                node, klass, sub.func.value):
            _reached(project, through, sub.func.attr, found, seen, depth + 1)


def drives_class_methods(project: Project, module: PyModule) -> bool:
    """Whether a file calls, in a loop, a static or class method of another file's class whose
    file launches kernels (``Mul.apply(x, w)`` in a training script), where what it imports
    defines kernels: its calls are then read as code that may launch (not a loop over files
    calling ``Candidate.load``, a constructor of a class that computes on the host)."""
    def looped() -> bool:
        scope = Scope(module)
        for loop in tree_nodes(module.tree):
            if not isinstance(loop, (ast.For, ast.AsyncFor, ast.While)):
                continue
            for sub in walk_nodes(loop):
                if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and isinstance(
                        sub.func.value, (ast.Name, ast.Attribute)) and any(
                        path != module.path and _launches(project, path)
                        for path, _ in class_method_calls(project, module, sub, scope)):
                    return True
        return False

    if not project.memo("class methods called in a loop", module.tree, looped):
        return False
    imported = [project.module(path) for path in sorted(project.imports_of_file(module.path))]
    return any(m is not None and m.path != module.path and m.kernels for m in imported)


def _launches(project: Project, path: str) -> bool:
    module = project.module(path)
    return module is not None and bool(LAUNCH_TEXT.search(module.text))
