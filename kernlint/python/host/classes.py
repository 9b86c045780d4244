"""The project's classes as the host reader sees them: a method by name (a class's own or a
base's), the attributes a class's objects have as its code writes them, the attribute a
``setattr`` sets. May import ``python.project`` and ``python.syntax``.
"""

from __future__ import annotations

import ast
from typing import Dict, FrozenSet, List, Optional, Set

from ..project import Project
from ..syntax import PyModule, Scope, walk_nodes
from .names import target_names


def method_of(project: Project, path: str, klass: str, name: str, depth: int = 0):
    """(module, class, def) of the method ``name`` of a project class, its own or a base's."""
    # asked millions of times while a project's host code is read, always with the same answer
    return project.derived(("method", path, klass, name, depth),
                           lambda: _method_of(project, path, klass, name, depth))


def _method_of(project: Project, path: str, klass: str, name: str, depth: int):
    module = project.module(path)
    binding = module.bindings.get(klass) if module is not None else None
    if binding is None or binding.kind != "class" or depth > 4:
        return None
    for statement in binding.node.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name == name:
            return None if module.kernel_for(statement) is not None else (module, klass, statement)
    for base in binding.node.bases:
        dotted = module.dotted(base, Scope(module))
        found = project.definition(dotted, module) if dotted else None
        if found is not None and found[1].kind == "class":
            method = method_of(project, found[0].path, found[1].name, name, depth + 1)
            if method is not None:
                return method
    return None


def property_attribute(project: Project, path: str, klass: str, name: str) -> Optional[str]:
    """The attribute a read-only property hands out as it is (``@property def c(self): return
    self._c``), of the class or a base; None for anything else."""
    found = method_of(project, path, klass, name)
    if found is None:
        return None
    function = found[2]
    if not any(isinstance(d, ast.Name) and d.id == "property" for d in function.decorator_list) or len(
            function.args.args) != 1:
        return None
    body = [s for s in function.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Return):
        return None
    value = body[0].value
    if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and \
            value.value.id == function.args.args[0].arg and value.attr != name:
        return value.attr
    return None


def set_on(call: ast.Call, receiver: Optional[str]) -> Optional[str]:
    """The attribute ``setattr(receiver, 'x', ...)`` sets by a literal name; None for any other call."""
    if isinstance(call.func, ast.Name) and call.func.id == "setattr" and len(call.args) >= 2 and isinstance(
            call.args[0], ast.Name) and call.args[0].id == receiver and isinstance(call.args[1], ast.Constant) \
            and isinstance(call.args[1].value, str):
        return call.args[1].value
    return None


def class_attributes(module: PyModule) -> Dict[str, FrozenSet[str]]:
    """For each module-level class: the attributes its objects have as its code writes them
    (``self.x = ...`` in any method, ``setattr(self, 'x', ...)``, its methods, its class-level
    names), with those of its bases defined in the same module."""
    own: Dict[str, Set[str]] = {}
    bases: Dict[str, List[str]] = {}
    for klass in module.tree.body:
        if not isinstance(klass, ast.ClassDef):
            continue
        have = own.setdefault(klass.name, set())
        bases[klass.name] = [b.id for b in klass.bases if isinstance(b, ast.Name)]
        for statement in klass.body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                have.add(statement.name)
                receiver = statement.args.args[0].arg if statement.args.args else None
                for node in walk_nodes(statement):
                    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and isinstance(
                            node.value, ast.Name) and node.value.id == receiver:
                        have.add(node.attr)
                    elif isinstance(node, ast.Call) and set_on(node, receiver) is not None:
                        have.add(set_on(node, receiver))
            elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
                for target in statement.targets if isinstance(statement, ast.Assign) else [statement.target]:
                    have.update(target_names(target))

    def inherited(name: str, seen: Set[str]) -> Set[str]:
        have = set(own.get(name, ()))
        for base in bases.get(name, ()):
            if base in own and base not in seen:
                have |= inherited(base, seen | {base})
        return have

    return {name: frozenset(inherited(name, {name})) for name in own}
