"""Calls through a table of functions: ``table[key](...)``, ``self.table[key](...)``, where the
table is a literal dict, list or tuple of the module's functions (bound beside the call or at
module level), or of a class's methods written in its body (``modes = {0: run_cpu, 1:
run_gpu}``). Such a call runs one of them, picked by the key: it is no kernel launch, though
it reads like ``k[config](...)``. Syntax only. May import ``python.syntax``.
"""

from __future__ import annotations

import ast
from typing import Dict, List, Optional

from ..syntax import PyModule, Scope

_LITERALS = (ast.Dict, ast.List, ast.Tuple)


def table_callees(call: ast.Call, scope: Scope, module: PyModule, owner: Optional[str],
                  receiver: Optional[str]) -> List[str]:
    """The qualified names of the functions the call may run, each item of the table; [] where
    the call is not through such a table, or an item is not a plain project function (a kernel,
    a CUDA ufunc, anything decorated, a name it cannot follow)."""
    func = call.func
    if not isinstance(func, ast.Subscript):
        return []
    table = func.value
    if isinstance(table, ast.Attribute) and isinstance(table.value, ast.Name) and owner and (
            table.value.id == receiver):
        klass = _class(module.tree, owner)
        if klass is None:
            return []
        literal = _class_literal(klass, table.attr)
        functions = {n.name: f"{owner}.{n.name}" for n in klass.body if isinstance(n, ast.FunctionDef)}
        definitions = {n.name: n for n in klass.body if isinstance(n, ast.FunctionDef)}
    elif isinstance(table, ast.Name):
        binding, _ = scope.lookup(table.id)
        literal = getattr(binding, "value", None) if binding is not None and binding.kind == "assign" else None
        definitions = {n.name: n for n in module.tree.body if isinstance(n, ast.FunctionDef)}
        functions = {name: name for name in definitions}
    else:
        return []
    if not isinstance(literal, _LITERALS):
        return []
    items = literal.values if isinstance(literal, ast.Dict) else literal.elts
    found: List[str] = []
    for item in items:
        if not (isinstance(item, ast.Name) and item.id in functions) or definitions[item.id].decorator_list:
            return []  # something else, or a kernel, a ufunc, a wrapped function: not followed
        found.append(functions[item.id])
    return list(dict.fromkeys(found))


def _class(tree: ast.Module, qualname: str) -> Optional[ast.ClassDef]:
    body: List[ast.stmt] = tree.body
    found: Optional[ast.ClassDef] = None
    for part in qualname.split("."):
        found = next((n for n in body if isinstance(n, ast.ClassDef) and n.name == part), None)
        if found is None:
            return None
        body = found.body
    return found


def _class_literal(klass: ast.ClassDef, name: str) -> Optional[ast.expr]:
    """The literal a class body binds ``name`` to, where it binds it once."""
    values: Dict[str, List[ast.expr]] = {}
    for node in klass.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    values.setdefault(target.id, []).append(node.value)
    bound = values.get(name, [])
    return bound[0] if len(bound) == 1 else None
