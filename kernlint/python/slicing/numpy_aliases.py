"""NumPy's aliases of Python builtins (``np.int``, ``np.float``, ...), deprecated in NumPy 1.20
and removed in 1.24: code written before then reads them in kernels, and numba stops on the
missing attribute. The slice gives such a function a NumPy whose removed aliases are the
builtins they always were, and the ledger says so: the kernel is checked as written and the
note tells the user that NumPy ≥ 1.24 refuses it."""

from __future__ import annotations

import ast
import builtins
import types
import warnings
from typing import Any, Dict, Optional

import numpy

from ..syntax import FunctionNode, walk_nodes

# the alias and the builtin it was (numpy/__init__.py before 1.24: `np.long` was `int`,
# `np.unicode` was `str`)
_REMOVED = {"int": "int", "float": "float", "bool": "bool", "complex": "complex", "object": "object",
            "str": "str", "long": "int", "unicode": "str"}




def _missing() -> Dict[str, str]:
    """The removed aliases this NumPy lacks (asking for `np.object` warns: NumPy may define it again)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {alias: builtin for alias, builtin in _REMOVED.items() if not hasattr(numpy, alias)}


_MISSING = _missing()


class _NumpyWithAliases(types.ModuleType):
    """NumPy itself for every attribute it has, and the removed aliases besides."""

    def __init__(self, aliases: Dict[str, Any]):
        super().__init__(numpy.__name__, numpy.__doc__)
        self.__dict__.update(aliases)

    def __getattr__(self, name: str) -> Any:
        return getattr(numpy, name)


_WITH_ALIASES: Optional[_NumpyWithAliases] = None


def removed_aliases_read(node: FunctionNode, name: str) -> Dict[str, str]:
    """The removed aliases the function reads through the global ``name`` (``np.int``), each
    with the builtin it was; empty where the installed NumPy still has them."""
    return {attribute.attr: _MISSING[attribute.attr] for attribute in walk_nodes(node)
            if isinstance(attribute, ast.Attribute) and isinstance(attribute.value, ast.Name)
            and attribute.value.id == name and attribute.attr in _MISSING}


def with_removed_aliases(value: Any) -> Any:
    """NumPy with its removed aliases where ``value`` is NumPy (or already that), else None."""
    global _WITH_ALIASES
    if value is not numpy and not isinstance(value, _NumpyWithAliases):
        return None
    if _WITH_ALIASES is None:
        _WITH_ALIASES = _NumpyWithAliases({alias: getattr(builtins, builtin) for alias, builtin in _MISSING.items()})
    return _WITH_ALIASES


def described(alias: str, builtin: str) -> str:
    return (f"the builtin `{builtin}`, which `numpy.{alias}` was until NumPy 1.24 removed it: "
            f"with NumPy >= 1.24 numba stops on it (AttributeError); write `{builtin}`")
