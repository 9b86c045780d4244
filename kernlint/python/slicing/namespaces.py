"""The slice namespaces: one module object per user module, where the kernels and functions
made from its defs find their globals."""

from __future__ import annotations

import builtins
import os
import sys
import types
from typing import Any, Dict

from ..syntax import PyModule


class Namespaces:
    def __init__(self):
        self._namespaces: Dict[str, Dict[str, Any]] = {}

    def of(self, module: PyModule) -> Dict[str, Any]:
        namespace = self._namespaces.get(module.path)
        if namespace is None:
            stem = module.name or os.path.splitext(os.path.basename(module.path))[0]
            # a module object's namespace, known to sys.modules: numba looks functions' modules
            # up there (a typing registry's register_global)
            made = types.ModuleType(f"_kernlint_slice.{stem}")
            namespace = made.__dict__
            namespace.update({"__file__": module.path, "__builtins__": builtins, "__package__": module.package})
            sys.modules.setdefault(made.__name__, made)
            self._namespaces[module.path] = namespace
        return namespace
