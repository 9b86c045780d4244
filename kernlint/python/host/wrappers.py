"""Functions wrapped by a call: ``step_ = timer(step, verbose)`` then ``step_(x)`` runs ``step``,
where ``timer`` is a project function that gives back the function it is passed, or a nested
function that calls it (a decorator applied by hand: timing, logging); and kernels configured by
a call: ``launcher(k, n)(x)`` launches ``k``, where ``launcher`` is a project function that
returns its kernel parameter configured (``return kernel[blocks, threads]``). Syntax only. May
import ``python.syntax``, ``python.project`` and ``launches`` (what a launch configuration is).
"""

from __future__ import annotations

import ast
from typing import Optional

from ..project import Project
from ..syntax import FunctionNode, PyModule, Scope, own_nodes, walk_nodes
from .launches import configured_kernel


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
    nested in it that calls that parameter (and does nothing else with it), or one of the two
    as a condition picks (``return run if enabled else func``)."""
    params = function.args.posonlyargs + function.args.args
    if not params:
        return False
    name = params[0].arg
    nested = {n.name: n for n in function.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    returns = [n for n in own_nodes(function) if isinstance(n, ast.Return)]
    if not returns:
        return False
    values = [node.value for node in returns]
    while any(isinstance(value, ast.IfExp) for value in values):
        values = [part for value in values for part in (
            (value.body, value.orelse) if isinstance(value, ast.IfExp) else (value,))]
    for value in values:
        if not isinstance(value, ast.Name):
            return False
        if value.id == name:
            continue
        inner = nested.get(value.id)
        if inner is None or not any(isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == name
                                    for c in walk_nodes(inner)):
            return False
    return True


def configured_call(call: ast.Call, scope: Optional[Scope], module: PyModule, project: Project) -> Optional[ast.Call]:
    """``k[grid, block](x)`` for a call ``launcher(k, n)(x)`` of what a project function returns,
    where its every ``return`` gives back one parameter configured for launch (``kernel[grid,
    block]``, ``kernel[grid, block, stream]``, ``kernel.forall(n)``): the kernel the call passes
    there, configured as the function writes it, a parameter it configures with (a stream)
    replaced by what the call passes; also ``run = launcher(k, n)`` then ``run(x)``, where the
    name is bound once, to that call; None otherwise."""
    inner = call.func
    if isinstance(inner, ast.Name) and scope is not None:
        binding, function = scope.lookup(inner.id)
        if binding is None or binding.kind != "assign" or binding.path or not isinstance(
                binding.value, ast.Call) or len(module.bindings_of(inner.id, function)) != 1:
            return None  # bound to something else too: which one the call runs depends on the path
        inner = binding.value
    if not isinstance(inner, ast.Call) or not isinstance(inner.func, (ast.Name, ast.Attribute)) or any(
            isinstance(a, ast.Starred) for a in inner.args) or any(k.arg is None for k in inner.keywords):
        return None
    dotted = module.dotted(inner.func, scope)
    found = project.definition(dotted, module) if dotted else None
    if found is None or found[1].kind != "def" or found[0].kernel_for(found[1].node) is not None:
        return None
    node = found[1].node
    returned = project.memo("returns a parameter configured", node, lambda: _configured_return(node))
    if returned is None:
        return None
    params = [a.arg for a in node.args.posonlyargs + node.args.args]
    passed = dict(zip(params, inner.args))
    passed.update((k.arg, k.value) for k in inner.keywords)
    kernel = passed.get(returned.value.id if isinstance(returned, ast.Subscript) else returned.func.value.id)
    if kernel is None:
        return None

    def given(expr: ast.expr) -> ast.expr:  # the helper's parameter as the call passes it
        return passed.get(expr.id, expr) if isinstance(expr, ast.Name) else expr

    if isinstance(returned, ast.Subscript):
        config = returned.slice
        slice_ = ast.Tuple(elts=[given(e) for e in config.elts], ctx=ast.Load()) if isinstance(
            config, ast.Tuple) else given(config)
        func: ast.expr = ast.Subscript(value=kernel, slice=slice_, ctx=ast.Load())
    else:
        func = ast.Call(func=ast.Attribute(value=kernel, attr="forall", ctx=ast.Load()),
                        args=[given(a) for a in returned.args],
                        keywords=[ast.keyword(arg=k.arg, value=given(k.value)) for k in returned.keywords])
    return ast.copy_location(ast.Call(func=ast.copy_location(func, inner), args=call.args, keywords=call.keywords),
                             call)


def _configured_return(function: FunctionNode) -> Optional[ast.expr]:
    """What every ``return`` of ``function`` gives back, where each is one parameter configured
    for launch the same way (``p[a, b]`` with two to four items, ``p.forall(n)``); None otherwise."""
    params = {a.arg for a in function.args.posonlyargs + function.args.args + function.args.kwonlyargs}
    returns = [n for n in own_nodes(function) if isinstance(n, ast.Return)]
    texts = {ast.unparse(n.value) for n in returns if n.value is not None}
    if not returns or len(texts) != 1 or any(n.value is None for n in returns):
        return None
    value = returns[0].value
    target = configured_kernel(value)
    if target is None or not isinstance(target[0], ast.Name) or target[0].id not in params:
        return None
    if isinstance(value, ast.Subscript):
        items = value.slice.elts if isinstance(value.slice, ast.Tuple) else []
        # `m[a:-a, a:-a]` crops an array: a launch configuration has no slices
        return value if items and not any(isinstance(i, ast.Slice) for i in items) else None
    return value
