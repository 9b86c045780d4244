"""NumPy's removed names: the aliases of Python builtins (``np.int``, ``np.float``, ...),
removed in 1.24, and the aliases NumPy 2.0 removed (``np.Infinity``, ``np.NaN``, ``np.float_``,
``np.product``, ...). Code written before then reads them in kernels, and numba stops on the
missing attribute. The slice gives such a function a NumPy that has them again, each the value
it always was, and the ledger says so: the kernel is checked as written and the note tells the
user which NumPy refuses it and what to write instead."""

from __future__ import annotations

import ast
import builtins
import types
import warnings
from typing import Any, Dict, NamedTuple, Optional

import numpy

from ..syntax import FunctionNode, walk_nodes


class Removed(NamedTuple):
    """A removed name: what to write instead, the NumPy that removed it, and what it was."""
    instead: str
    version: str
    value: Any


def _builtin(name: str) -> Removed:
    return Removed(name, "1.24", getattr(builtins, name))


def _numpy_2(spelled: str) -> Removed:
    """``np.<name>`` or a number, as NumPy 2.0's release notes spell the replacement."""
    name = spelled.lstrip("-").removeprefix("np.")
    value = getattr(numpy, name) if spelled.lstrip("-").startswith("np.") else float(name)
    return Removed(spelled, "2.0", -value if spelled.startswith("-") else value)


# numpy/__init__.py before 1.24 (`np.long` was `int`, `np.unicode` was `str`); NEP 52's list of
# what NumPy 2.0 removed from the main namespace, each with the spelling its release notes give
_REMOVED = {
    "int": _builtin("int"), "float": _builtin("float"), "bool": _builtin("bool"), "complex": _builtin("complex"),
    "object": _builtin("object"), "str": _builtin("str"), "long": _builtin("int"), "unicode": _builtin("str"),
    "Inf": _numpy_2("np.inf"), "Infinity": _numpy_2("np.inf"), "infty": _numpy_2("np.inf"),
    "PINF": _numpy_2("np.inf"), "NINF": _numpy_2("-np.inf"), "NaN": _numpy_2("np.nan"),
    "PZERO": _numpy_2("0.0"), "NZERO": _numpy_2("-0.0"),
    "float_": _numpy_2("np.float64"), "complex_": _numpy_2("np.complex128"), "cfloat": _numpy_2("np.complex128"),
    "singlecomplex": _numpy_2("np.complex64"), "longfloat": _numpy_2("np.longdouble"),
    "clongfloat": _numpy_2("np.clongdouble"), "longcomplex": _numpy_2("np.clongdouble"),
    "string_": _numpy_2("np.bytes_"), "unicode_": _numpy_2("np.str_"),
    "round_": _numpy_2("np.round"), "product": _numpy_2("np.prod"), "cumproduct": _numpy_2("np.cumprod"),
    "sometrue": _numpy_2("np.any"), "alltrue": _numpy_2("np.all"),
}


def _missing() -> Dict[str, Removed]:
    """The removed names this NumPy lacks (asking for `np.object` warns: NumPy may define it again)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {alias: removed for alias, removed in _REMOVED.items() if not hasattr(numpy, alias)}


_MISSING = _missing()


class _NumpyWithAliases(types.ModuleType):
    """NumPy itself for every attribute it has, and the removed aliases besides."""

    def __init__(self, aliases: Dict[str, Any]):
        super().__init__(numpy.__name__, numpy.__doc__)
        self.__dict__.update(aliases)

    def __getattr__(self, name: str) -> Any:
        return getattr(numpy, name)


_WITH_ALIASES: Optional[_NumpyWithAliases] = None


def removed_aliases_read(node: FunctionNode, name: str) -> Dict[str, Removed]:
    """The removed names the function reads through the global ``name`` (``np.int``,
    ``np.Infinity``), each with what it was; empty where the installed NumPy still has them."""
    return {attribute.attr: _MISSING[attribute.attr] for attribute in walk_nodes(node)
            if isinstance(attribute, ast.Attribute) and isinstance(attribute.value, ast.Name)
            and attribute.value.id == name and attribute.attr in _MISSING}


def with_removed_aliases(value: Any) -> Any:
    """NumPy with its removed names where ``value`` is NumPy (or already that), else None."""
    global _WITH_ALIASES
    if value is not numpy and not isinstance(value, _NumpyWithAliases):
        return None
    if _WITH_ALIASES is None:
        _WITH_ALIASES = _NumpyWithAliases({alias: removed.value for alias, removed in _MISSING.items()})
    return _WITH_ALIASES


def described(alias: str, removed: Removed) -> str:
    was = f"the builtin `{removed.instead}`" if removed.version == "1.24" else f"`{removed.instead}`"
    return (f"{was}, which `numpy.{alias}` was until NumPy {removed.version} removed it: "
            f"with NumPy >= {removed.version} numba stops on it (AttributeError); write `{removed.instead}`")
