"""dtype names: NumPy's, CuPy's and Python's spellings of a dtype as numba names it, which
dtypes an operation between two gives (NumPy's promotion, datetime arithmetic), and
``evaluate_type_text``, a signature's text as numba's types."""

from __future__ import annotations

import ast
import collections
import functools
import re
from typing import Optional, Tuple


# numpy / cupy / Python dtype spellings -> numba's names
_DTYPE_NAMES = {
    "float16": "float16", "float32": "float32", "float64": "float64", "double": "float64",
    "single": "float32", "half": "float16", "float_": "float64", "longdouble": None,
    "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64", "intc": "int32", "intp": "int64",
    "int_": "int64", "short": "int16", "byte": "int8", "longlong": "int64",
    "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64", "uintc": "uint32",
    "uintp": "uint64", "ubyte": "uint8", "ushort": "uint16", "ulonglong": "uint64",
    "bool_": "boolean", "bool": "boolean", "complex64": "complex64", "complex128": "complex128",
    "csingle": "complex64", "cdouble": "complex128", "complex_": "complex128",
    "f2": "float16", "f4": "float32", "f8": "float64", "i1": "int8", "i2": "int16", "i4": "int32",
    "i8": "int64", "u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64", "?": "boolean",
    "c8": "complex64", "c16": "complex128", "b1": "boolean",
    "float": "float64", "int": "int64", "complex": "complex128",
}
_ARRAY_MODULES = ("numpy", "cupy")
_FLOAT_ORDER = ["float16", "float32", "float64"]

# numba-cuda's random generator states: the record dtype ``xoroshiro128p_dtype``, by this name in
# signatures (``numba_cuda.parse_signature`` knows it)
XOROSHIRO = "xoroshiro128p"
_INT_ORDER = ["int8", "int16", "int32", "int64"]
_NUMERIC = frozenset(name for name in _DTYPE_NAMES.values() if name)


def evaluate_type_text(text: str):
    """A signature or type as kernlint's signatures spell it, evaluated the way numba's own
    signature parser does (in numba's types), with the names numba's lack: ``xoroshiro128p``
    and ``GridGroup`` (what ``cuda.cg.this_grid()`` is). Imports numba: called where it runs."""
    from numba.core import types

    extra = {}
    if XOROSHIRO in text:
        from numba import from_dtype
        from numba.cuda.random import xoroshiro128p_dtype

        extra[XOROSHIRO] = from_dtype(xoroshiro128p_dtype)
    if "GridGroup" in text:
        from numba.cuda import types as cuda_types

        extra["GridGroup"] = getattr(cuda_types, "grid_group", None) or types.grid_group
    if "namedtuple(" in text:
        extra["namedtuple"] = _named_tuple
    return eval(text, {"__builtins__": {}}, {**vars(types), **extra})  # noqa: S307 - as numba evaluates it


@functools.lru_cache(maxsize=None)
def _named_tuple(name: str, fields: Tuple[str, ...]):
    """One class per name and fields: equal signature texts give equal numba types."""
    return collections.namedtuple(name, fields)


# NumPy's dates, durations and fixed-size strings, spelled as numba's types are evaluated
# (``NPDatetime('D')[::1]`` is numba's ``array(datetime64[D], 1d, C)``)
_FLEXIBLE = re.compile(r"(?:(?P<time>datetime64|timedelta64|M8|m8)\[(?P<unit>Y|M|W|D|h|m|s|ms|us|ns|ps|fs|as)\]"
                       r"|(?P<chars>[US])(?P<size>[1-9][0-9]*))")


def dtype_name(text: str) -> Optional[str]:
    text = text.strip().lstrip("<>=|")
    known = _DTYPE_NAMES.get(text)
    match = _FLEXIBLE.fullmatch(text) if known is None else None
    if match is None:
        return known
    if match["time"]:
        kind = "NPDatetime" if match["time"] in ("datetime64", "M8") else "NPTimedelta"
        return f"{kind}('{match['unit']}')"
    return f"{'UnicodeCharSeq' if match['chars'] == 'U' else 'CharSeq'}({match['size']})"


def numeric(dtype: str) -> bool:
    """A number's dtype (not a date, a duration, a string or a record)."""
    return dtype in _NUMERIC


def _literal_ints(expr: ast.expr) -> Optional[Tuple[int, ...]]:
    """``3`` or ``(3, 2)`` written out: that shape; None otherwise."""
    items = expr.elts if isinstance(expr, ast.Tuple) else [expr]
    if items and all(isinstance(i, ast.Constant) and type(i.value) is int and i.value > 0 for i in items):
        return tuple(i.value for i in items)
    return None


def _numpy_spelling(dtype: str) -> Optional[str]:
    """NumPy's name for a dtype kernlint spells as numba does; None for a record."""
    if dtype in _NUMERIC:
        return "bool" if dtype == "boolean" else dtype
    match = re.fullmatch(r"(NPDatetime|NPTimedelta)\('(\w+)'\)|(UnicodeCharSeq|CharSeq)\((\d+)\)", dtype)
    if match is None:
        return None
    if match[1]:
        return f"{'M8' if match[1] == 'NPDatetime' else 'm8'}[{match[2]}]"
    return f"{'U' if match[3] == 'UnicodeCharSeq' else 'S'}{match[4]}"


def _time_kind(dtype: str) -> str:
    """'M' a date, 'm' a duration, 'i' an integer, '' anything else (NumPy's kind letters)."""
    if dtype.startswith("NPDatetime("):
        return "M"
    if dtype.startswith("NPTimedelta("):
        return "m"
    return "i" if dtype in _INT_ORDER or dtype.startswith("uint") else ""


def _unit(dtype: str) -> str:
    return dtype.partition("'")[2].partition("'")[0]


def _time_arithmetic(op: ast.operator, left: str, right: str) -> Optional[str]:
    """NumPy's result dtype of ``+``/``-``/``*`` where one side is a date or a duration of
    one unit: a date and a number of its units is a date, two dates a duration; None for what
    NumPy refuses or reading does not follow (units that differ, division)."""
    kinds = _time_kind(left) + _time_kind(right)
    units = {_unit(d) for d in (left, right) if _time_kind(d) in ("M", "m")}
    if len(kinds) != 2 or len(units) != 1:
        return None
    (unit,) = units
    if isinstance(op, ast.Add):
        results = {"Mi": "M", "iM": "M", "Mm": "M", "mM": "M", "mm": "m", "mi": "m", "im": "m"}
    elif isinstance(op, ast.Sub):
        results = {"Mi": "M", "Mm": "M", "MM": "m", "mm": "m", "mi": "m"}
    elif isinstance(op, ast.Mult):
        results = {"mi": "m", "im": "m"}
    else:
        return None
    kind = results.get(kinds)
    return None if kind is None else f"{'NPDatetime' if kind == 'M' else 'NPTimedelta'}('{unit}')"


def _promote(left: str, right: str) -> str:
    if left == right:
        return left
    if "complex" in (left[:7], right[:7]):
        return "complex128"
    if left in _FLOAT_ORDER or right in _FLOAT_ORDER:
        floats = [d for d in (left, right) if d in _FLOAT_ORDER]
        width = max(_FLOAT_ORDER.index(d) for d in floats)
        if len(floats) == 1:  # int with float: at least float64 for 32/64-bit ints
            return "float64"
        return _FLOAT_ORDER[width]
    ranks = [(_INT_ORDER + ["uint8", "uint16", "uint32", "uint64"]).index(d) % 4 for d in (left, right)
             if d in _INT_ORDER or d.startswith("uint")]
    return _INT_ORDER[max(ranks)] if len(ranks) == 2 else "int64"


def _same_kind(left: str, right: str) -> bool:
    kinds = [("float" if d.startswith("float") else "complex" if d.startswith("complex")
              else "int") for d in (left, right)]
    return kinds[0] == kinds[1] or (kinds[0] == "int" and kinds[1] == "float")
