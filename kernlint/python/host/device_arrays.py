"""Objects numba launches as arrays: an object of a project class whose
``__cuda_array_interface__`` property hands on the interface of an array it holds
(``return self.data.__cuda_array_interface__``) or writes the interface out
(``{"shape": (self.n,), "typestr": "<f4", ...}``). numba-cuda types such an argument as the
array the interface describes. (A class that exposes the array its constructor is given is read
where it is constructed, ``calls.interface_array``.) May import ``python.project``,
``python.syntax`` and ``python.static_types``.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import Callable, Optional

from ..project import Project
from ..static_types import ArrayType, instance_of
from ..static_types.dtypes import dtype_name
from ..syntax import walk_nodes


def exposed_array(project: Project, kind, member: Callable[[object, str], object]) -> Optional[ArrayType]:
    """The array an object of a project class stands for at a launch, through its
    ``__cuda_array_interface__`` property; None for anything else. ``member(obj, attr)``:
    the type an attribute of the object holds."""
    where = instance_of(kind)
    module = project.module(where[0]) if where is not None else None
    binding = module.bindings.get(where[1]) if module is not None and "." not in where[1] else None
    if binding is None or binding.kind != "class":
        return None
    prop = next((s for s in binding.node.body if isinstance(s, ast.FunctionDef)
                 and s.name == "__cuda_array_interface__" and s.args.args), None)
    if prop is None or not any(isinstance(d, ast.Name) and d.id == "property" for d in prop.decorator_list):
        return None
    returns = [s for s in walk_nodes(prop) if isinstance(s, ast.Return) and s.value is not None]
    if len(returns) != 1:
        return None
    value, receiver = returns[0].value, prop.args.args[0].arg
    if isinstance(value, ast.Attribute) and value.attr == "__cuda_array_interface__" and isinstance(
            value.value, ast.Attribute) and isinstance(value.value.value, ast.Name) and \
            value.value.value.id == receiver:
        held = member(kind, value.value.attr)
        return replace(held, where="device") if isinstance(held, ArrayType) else None
    if isinstance(value, ast.Dict):
        return _described(value)
    return None


def _described(interface: ast.Dict) -> Optional[ArrayType]:
    """The array a literal interface describes: its ``typestr``'s elements, as many dimensions as
    its ``shape`` tuple has; C-contiguous unless it gives ``strides`` other than None."""
    fields = {k.value: v for k, v in zip(interface.keys, interface.values)
              if isinstance(k, ast.Constant) and isinstance(k.value, str)}
    typestr, shape, strides = fields.get("typestr"), fields.get("shape"), fields.get("strides")
    if not (isinstance(typestr, ast.Constant) and isinstance(typestr.value, str) and isinstance(shape, ast.Tuple)):
        return None
    dtype = dtype_name(typestr.value)
    if dtype is None or any(isinstance(e, ast.Starred) for e in shape.elts):
        return None
    contiguous = strides is None or isinstance(strides, ast.Constant) and strides.value is None
    return ArrayType(dtype, len(shape.elts), "C" if contiguous else "A", where="device")
