"""The project's modules imported by name (``import mypkg.consts``), read through the project
and never imported: their attributes are resolved as globals of their own slices, and they
become module objects holding what a kernel reads of them."""

from __future__ import annotations

import ast
import importlib
import os
import types
from typing import Any, Optional, Sequence

from ..syntax import FunctionNode, PyModule
from .class_constants import fill, holder, is_holder, is_static
from .unresolved import Unresolved
from .uses import _attribute_chains, _uses


class UserModule:
    """A user module or package imported by name: its attributes are resolved in its slice."""

    read_as_module = True  # a holder's attribute that is one becomes a holder itself (``fill``)

    def __init__(self, resolver, module: Optional[PyModule], dotted: str, importer: PyModule):
        self.resolver = resolver  # the GlobalResolver that reads the module's globals
        self.module = module
        self.dotted = dotted
        self.importer = importer

    def attribute(self, name: str, line: int = 0) -> Any:
        if self.module is not None and name in self.module.history:
            return self.resolver.global_value(self.module, name, line)
        child = f"{self.dotted}.{name}"
        project = self.resolver.project
        found = project.module_named(child, self.importer)
        if found is not None or project.find(child, self.importer):
            return UserModule(self.resolver, found, child, self.importer)
        raise Unresolved(child, self.importer.path, line, "is not defined in the project")

    def as_module(self, chains: Sequence[Sequence[str]], line: int = 0) -> types.ModuleType:
        """A real module object with the attribute chains a kernel reads (numba types it as a
        module); another function of the importer that reads more of it adds to it (``refill``)."""
        return holder(self, self.dotted, chains, line)


def realise(value: Any, node: FunctionNode, name: str, line: int = 0) -> Any:
    """What goes into a namespace for ``name``: user modules, and classes and objects read
    one attribute at a time, become module objects."""
    if is_static(value) and any(not parents or not isinstance(parents[0], ast.Attribute)
                                for _, parents in _uses(node, name)):
        # called or passed whole (`Params()` in the kernel): only attributes are held
        raise Unresolved(name, value.path, line,
                         "is a class, or an object of one, that the kernel uses whole; kernlint reads only "
                         "its attributes", "check the file with --import-modules")
    if isinstance(value, UserModule) or is_static(value):
        return value.as_module(_attribute_chains(node, name), line)
    return value


def refill(value: Any, node: FunctionNode, name: str, line: int = 0) -> None:
    """A class's or object's holder already in the namespace: add what this function reads of it."""
    if is_holder(value):
        fill(value, _attribute_chains(node, name), line)


def _source_of(dotted: str) -> Optional[str]:
    """The source file of a module of an installed package, found from the deepest package
    that imports (its parents' own imports may fail here: they need a GPU), not imported."""
    parts = dotted.split(".")
    for depth in range(len(parts) - 1, 0, -1):
        try:
            package = importlib.import_module(".".join(parts[:depth]))
        except Exception:  # noqa: BLE001 - any failure at import: try a shallower package
            continue
        for directory in getattr(package, "__path__", []):
            base = os.path.join(directory, *parts[depth:])
            for candidate in (base + ".py", os.path.join(base, "__init__.py")):
                if os.path.isfile(candidate):
                    return candidate
        return None
    return None
