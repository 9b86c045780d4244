"""Calls that cannot bind: a project function or a kernel called with arguments its
parameters do not take (``forward(w, x)`` of ``def forward(n, w, x)``). Python raises
``TypeError`` there (numba's dispatcher too, before it launches), so nothing after the
call runs and a loop that makes it on every iteration never reaches its second one."""

from __future__ import annotations

import ast
from typing import Optional


def unbindable(call: ast.Call, function: ast.AST, bound_receiver: bool = False) -> str:
    """Why ``call`` cannot bind to ``function``'s parameters (``bound_receiver``: its first
    parameter is the object the call is made on), or "" where it can or where the call's
    arguments cannot be counted (``*args``, ``**kw``) or a decorator may change the signature."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or any(
            isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return ""
    spec = function.args
    positional = [a.arg for a in spec.posonlyargs + spec.args][1 if bound_receiver else 0:]
    if bound_receiver and not (spec.posonlyargs + spec.args):
        return ""
    given = len(call.args)
    if given > len(positional) and spec.vararg is None:
        return f"passes {given} positional arguments to {len(positional)} parameters"
    taken = set(positional[:given])
    keywords = {k.arg for k in call.keywords}
    named = set(positional) | {a.arg for a in spec.kwonlyargs}
    twice = sorted(keywords & taken) or sorted(keywords & {a.arg for a in spec.posonlyargs})
    if twice:
        return f"passes `{twice[0]}` twice"
    if spec.kwarg is None and keywords - named:
        return f"passes `{sorted(keywords - named)[0]}`, which is no parameter"
    defaulted = set(positional[len(positional) - len(spec.defaults):]) if spec.defaults else set()
    missing = [name for name in positional if name not in taken and name not in keywords and name not in defaulted]
    missing += [a.arg for a, default in zip(spec.kwonlyargs, spec.kw_defaults) if default is None
                and a.arg not in keywords]
    if missing:
        return f"leaves out `{missing[0]}` ({given + len(keywords)} arguments for {len(positional)} parameters)"
    return ""


# numba-cuda's allocation and transfer functions, by the keywords each takes (a call given any
# other raises TypeError)
_KEYWORDS = {
    "numba.cuda.to_device": {"obj", "stream", "copy", "to"},
    "numba.cuda.device_array": {"shape", "dtype", "strides", "order", "stream"},
    "numba.cuda.device_array_like": {"ary", "stream"},
    "numba.cuda.pinned_array": {"shape", "dtype", "strides", "order"},
    "numba.cuda.mapped_array": {"shape", "dtype", "strides", "order", "stream", "portable", "wc"},
}


def unknown_keyword(function: str, call: ast.Call) -> str:
    """The first keyword ``call`` gives numba-cuda's ``function`` that it does not take
    (``cuda.to_device(x, dtype=np.float32)``: ``dtype``), or ""; "" where a ``**`` spread may
    hold anything."""
    known = _KEYWORDS.get(function)
    if known is None or any(k.arg is None for k in call.keywords):
        return ""
    return next((k.arg for k in call.keywords if k.arg not in known), "")


def within_try(statements) -> bool:
    """Whether the statement being read (the last of ``statements``, outermost first) is in a
    ``try`` body: a handler may catch what the call raises."""
    return any(isinstance(s, (ast.Try, getattr(ast, "TryStar", ast.Try))) for s in statements)


def plain_def(node: Optional[ast.AST]) -> bool:
    """A def whose signature is its own: no decorator (a wrapper may take other arguments)."""
    return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.decorator_list
