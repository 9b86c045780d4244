"""Functions wrapped by a call: ``step_ = timer(step, verbose)`` then ``step_(x)`` runs ``step``,
where ``timer`` is a project function that gives back the function it is passed, or a nested
function that calls it (a decorator applied by hand: timing, logging). Syntax only. May import
``python.syntax`` and ``python.project``.
"""

from __future__ import annotations

import ast
from typing import Optional

from ..project import Project
from ..syntax import FunctionNode, PyModule, Scope, own_nodes


def unwrapped_call(call: ast.Call, function: Optional[FunctionNode], scope: Scope, module: PyModule,
                   project: Project) -> Optional[ast.Call]:
    """``f(x)`` for a call ``f_(x)`` of a name the function (or the module) binds, every time,
    to ``w(f, ...)`` of a project function ``w`` that passes its first argument through; None
    otherwise."""
    if not isinstance(call.func, ast.Name):
        return None
    body = function if function is not None else module.tree
    bound = project.memo("wrapped names", body, lambda: _wrapped_names(body))
    wrapped = bound.get(call.func.id)
    if wrapped is None:
        return None
    wrapper, inner = wrapped
    dotted = module.dotted(wrapper, scope)
    found = project.definition(dotted, module) if dotted else None
    if found is None or found[1].kind != "def" or found[0].kernel_for(found[1].node) is not None:
        return None
    node = found[1].node
    if not project.memo("passes its function through", node, lambda: _passes_through(node)):
        return None
    return ast.copy_location(ast.Call(func=inner, args=call.args, keywords=call.keywords), call)


def _wrapped_names(body: ast.AST) -> dict:
    """Names whose every assignment in ``body`` is ``w(f, ...)``, one ``w`` and ``f`` each:
    name -> (w, f) as written."""
    seen: dict = {}
    for node in own_nodes(body):
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if not isinstance(target, ast.Name):
                continue
            value = node.value
            if isinstance(value, ast.Call) and value.args and isinstance(value.args[0], (ast.Name, ast.Attribute)) \
                    and isinstance(value.func, (ast.Name, ast.Attribute)):
                pair = (value.func, value.args[0])
                text = (ast.unparse(pair[0]), ast.unparse(pair[1]))
            else:
                pair, text = None, None
            if target.id in seen and (seen[target.id] is None or seen[target.id][1] != text):
                seen[target.id] = None  # bound to something else too
            else:
                seen[target.id] = (pair, text) if pair is not None else None
    return {name: found[0] for name, found in seen.items() if found is not None}


def _passes_through(function: FunctionNode) -> bool:
    """Whether every ``return`` of ``function`` gives back its first parameter, or a function
    nested in it that calls that parameter (and does nothing else with it)."""
    params = function.args.posonlyargs + function.args.args
    if not params:
        return False
    name = params[0].arg
    nested = {n.name: n for n in function.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    returns = [n for n in own_nodes(function) if isinstance(n, ast.Return)]
    if not returns:
        return False
    for node in returns:
        value = node.value
        if not isinstance(value, ast.Name):
            return False
        if value.id == name:
            continue
        inner = nested.get(value.id)
        if inner is None or not any(isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == name
                                    for c in ast.walk(inner)):
            return False
    return True
