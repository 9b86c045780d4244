"""What the project's constructions of a class give one parameter of its ``__init__``
(``Solver(64, var_type="float64")``, ``Solver(64)``): where every construction passes a
literal or nothing, those values (the default for nothing) are all the objects can hold; a
construction passing anything else, a subclass, the class handed on as a value, or no
construction at all leaves the value to the run."""

from __future__ import annotations

import ast
import os
from typing import Any, List, Optional, Set, Tuple

from ..project import Project
from ..syntax import FunctionNode, PyModule, Scope, walk_nodes
from .uses import _walk_with_scope

NOT_PASSED = object()  # a construction that leaves the parameter to its default


def constructions(project: Project, module: PyModule, klass: ast.ClassDef, init: FunctionNode,
                  parameter: str) -> Tuple[List[Any], Optional[str]]:
    """(what each construction of ``klass`` passes for ``parameter``: a literal's value or
    NOT_PASSED; why the run may give another value, or None where those are all)."""
    if klass not in module.tree.body:
        return [], f"`{klass.name}` is defined inside a function"
    passed: List[Any] = []
    for path in project.files_naming(module.path, klass.name):
        other = project.module(path)
        if other is None:
            continue
        found, why = _constructions_in(project, other, module, klass, init, parameter)
        if why is not None:
            return [], why
        passed.extend(found)
    if not passed:
        return [], f"no construction of `{klass.name}` is in the project"
    return passed, None


def default_standing_in(module: PyModule, klass: ast.ClassDef, parameter: str, default: ast.expr,
                        unknown: str) -> Tuple[Tuple[str, str], str]:
    """(the ledger's key, what it stands for) of a default read in place of what the run passes."""
    return (module.path, parameter), (f"the default `{ast.unparse(default)[:40]}` of `{klass.name}.__init__`'s "
                                      f"`{parameter}`: {unknown}")


def class_of(module: PyModule, function: FunctionNode) -> Optional[ast.ClassDef]:
    """The module-level class whose body defines ``function``."""
    return next((node for node in module.tree.body if isinstance(node, ast.ClassDef)
                 and any(item is function for item in node.body)), None)


def _constructions_in(project: Project, other: PyModule, module: PyModule, klass: ast.ClassDef,
                      init: FunctionNode, parameter: str) -> Tuple[List[Any], Optional[str]]:
    names = {klass.name} | {alias.asname for node in walk_nodes(other.tree) if isinstance(node, ast.ImportFrom)
                            for alias in node.names if alias.name == klass.name and alias.asname}
    seen: List[Tuple[Tuple, ast.AST]] = [(functions, node) for functions, node in _walk_with_scope(other.tree, ())]
    # references that make no object and pass the class nowhere: a type test, an annotation,
    # a class attribute read (`Solver.WIDE`; a call of one, `Solver.create(...)`, may make one)
    harmless: Set[int] = set()
    called = {id(node.func) for node in walk_nodes(other.tree) if isinstance(node, ast.Call)}
    for node in walk_nodes(other.tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in (
                "isinstance", "issubclass") and len(node.args) == 2:
            harmless.update(id(sub) for sub in walk_nodes(node.args[1]))
        if isinstance(node, ast.Attribute) and id(node) not in called:
            harmless.add(id(node.value))
        annotations = [node.annotation] if isinstance(node, (ast.AnnAssign, ast.arg)) else []
        annotations += [node.returns] if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else []
        for annotation in annotations:
            if annotation is not None:
                harmless.update(id(sub) for sub in walk_nodes(annotation))
    passed: List[Any] = []
    for functions, node in seen:
        if isinstance(node, ast.ClassDef) and any(
                _is_class(project, other, base, Scope(other, functions), module, klass, names) for base in node.bases):
            return [], f"`{klass.name}` is subclassed by `{node.name}` ({_place(other, node)})"
        if isinstance(node, ast.Call) and _is_class(project, other, node.func, Scope(other, functions), module,
                                                    klass, names):
            harmless.add(id(node.func))
            value, why = _passed(node, init, parameter, other)
            if why is not None:
                return [], why
            passed.append(value)
    for functions, node in seen:
        if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load) and id(node) not in harmless \
                and _is_class(project, other, node, Scope(other, functions), module, klass, names):
            # handed on (`make(Solver)`, `kinds = [Solver]`): made where kernlint does not follow
            return [], f"`{klass.name}` is used as a value at {_place(other, node)}"
    return passed, None


def _is_class(project: Project, other: PyModule, expr: ast.expr, scope: Scope, module: PyModule,
              klass: ast.ClassDef, names: Set[str]) -> bool:
    """Does ``expr`` (in ``other``) name ``klass`` of ``module``?"""
    if not (isinstance(expr, ast.Name) and expr.id in names or isinstance(expr, ast.Attribute)
            and expr.attr == klass.name):
        return False
    dotted = other.dotted(expr, scope)
    if dotted is None:
        return False
    if other is module and dotted in (klass.name, f"{module.name}.{klass.name}"):
        binding, function = scope.lookup(klass.name)
        return function is None and binding is not None and binding.node is klass
    found = project.definition(dotted, other)
    return found is not None and found[1].node is klass


def _passed(call: ast.Call, init: FunctionNode, parameter: str, other: PyModule) -> Tuple[Any, Optional[str]]:
    """What one construction passes for ``parameter``: a literal's value, NOT_PASSED, or why not known."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None, f"`{_shown(call)}` ({_place(other, call)}) unpacks its arguments"
    positional = [a.arg for a in init.args.posonlyargs + init.args.args][1:]  # (less `self`)
    given: Optional[ast.expr] = None
    if parameter in positional and positional.index(parameter) < len(call.args):
        given = call.args[positional.index(parameter)]
    given = next((k.value for k in call.keywords if k.arg == parameter), given)
    if given is None:
        return NOT_PASSED, None
    if isinstance(given, ast.Constant):
        return given.value, None
    return None, f"`{_shown(call)}` ({_place(other, call)}) passes `{ast.unparse(given)[:40]}`"


def _shown(call: ast.Call) -> str:
    """A construction as written, or its class and ``(...)`` where that is long."""
    text = ast.unparse(call)
    return text if len(text) <= 50 else f"{ast.unparse(call.func)}(...)"


def _place(module: PyModule, node: ast.AST) -> str:
    return f"{os.path.basename(module.path)}:{getattr(node, 'lineno', 0)}"
