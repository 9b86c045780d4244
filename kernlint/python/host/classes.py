"""The project's classes as the host reader sees them: a method by name, a class's own or a
base's. May import ``python.project`` and ``python.syntax``.
"""

from __future__ import annotations

import ast

from ..project import Project
from ..syntax import Scope


def method_of(project: Project, path: str, klass: str, name: str, depth: int = 0):
    """(module, class, def) of the method ``name`` of a project class, its own or a base's."""
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
