"""Signature text: the argument types a kernel's written signature gives (``"void(int32[:],
float64)"``, ``(int32[:], float64)``, ``k.specialize(float32[::1])``), spelled as numba's
signature strings spell them. Imports nothing of kernlint but ``python.syntax``.
"""

from __future__ import annotations

import ast
from typing import Dict, List, Optional

from ..syntax import PyModule, Scope


def signature_arguments(text: str) -> Optional[List[str]]:
    """``"void(int32[:], float64)"`` -> ``["int32[:]", "float64"]`` (commas inside brackets
    and parentheses kept); None for what is no kernel's signature."""
    text = text.strip()
    if text.startswith("void("):
        text = text[len("void"):]
    if not (text.startswith("(") and text.endswith(")")):
        return None
    inner, depth, parts, current = text[1:-1], 0, [], ""
    for character in inner:
        depth += character in "([" and 1 or character in ")]" and -1 or 0
        if character == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += character
    if current.strip():
        parts.append(current.strip())
    return parts


# numba's scalar types as its signature strings spell them
NUMBA_SCALAR_TYPES = {name: name for name in (
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "intp", "uintp", "float16", "float32",
    "float64", "complex64", "complex128", "boolean")}
NUMBA_SCALAR_TYPES.update({"bool_": "boolean", "double": "float64", "single": "float32", "int_": "int64"})


def signature_types(expr: ast.expr, module: PyModule, scope: Scope, parameters: Dict[str, tuple],
                    depth: int = 0) -> Optional[List[Optional[str]]]:
    """The argument types a written signature gives: ``"void(int32[:], float64)"``, a tuple
    of numba types, or a name bound to one (in ``module``'s ``scope``), or a parameter:
    what the call being read passed, ``parameters[name]`` = (the expression, the frame of
    the caller it is read in)."""
    if depth > 4:
        return None
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return signature_arguments(expr.value)
    if isinstance(expr, (ast.Tuple, ast.List)):
        return [numba_type_text(element, module, scope) for element in expr.elts]
    if isinstance(expr, ast.Name):
        if expr.id in parameters:
            passed, caller = parameters[expr.id]
            return signature_types(passed, module, caller.scope, parameters, depth + 1)
        binding, function = scope.lookup(expr.id)
        if binding is not None and binding.kind == "assign" and not binding.path and isinstance(
                binding.value, (ast.Constant, ast.Tuple, ast.List)):
            return signature_types(binding.value, module, scope, parameters, depth + 1)
    return None


def numba_type_text(expr: ast.expr, module: PyModule, scope: Scope) -> Optional[str]:
    """``int32[:]``, ``types.float32[:, ::1]``, ``numba.float64``: the type as numba's
    signature strings spell it; None for anything else."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return expr.value
    dims = ""
    if isinstance(expr, ast.Subscript):
        elements = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
        spelled = []
        for element in elements:
            if not isinstance(element, ast.Slice) or element.lower is not None or element.upper is not None:
                return None
            if element.step is None:
                spelled.append(":")
            elif isinstance(element.step, ast.Constant) and element.step.value == 1:
                spelled.append("::1")
            else:
                return None
        dims = f"[{', '.join(spelled)}]"
        expr = expr.value
    dotted = module.dotted(expr, scope) or ""
    package, _, name = dotted.rpartition(".")
    if not package.startswith("numba") or name not in NUMBA_SCALAR_TYPES:
        return None
    return NUMBA_SCALAR_TYPES[name] + dims
