"""The numba types of host-side values, read off the syntax tree.

What a kernel launch passes is known statically far more often than not:
``np.zeros(n, dtype=np.float32)``, ``cuda.to_device(a)``, ``a.astype(np.int32)``,
``cp.asarray(x)``, a literal. This module gives such expressions the type numba's
``typeof`` would give their values at run time (``float32[::1]``, ``int64``), and
``None`` wherever it cannot tell: a launch with one unknown argument gives no
signature rather than a guessed one.

Slicing gives layout ``A`` (numba's general layout; a slice may or may not be
contiguous). Arrays also remember where they live (host, device, mapped), which the
host rules use.
"""

from __future__ import annotations

import ast
import collections
import functools
import json
import re
from dataclasses import dataclass, replace
from typing import Dict, FrozenSet, List, Optional, Sequence, Tuple, Union

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
_TORCH_FACTORIES = ("zeros", "ones", "empty", "rand", "randn", "full", "arange", "tensor", "as_tensor",
                    "zeros_like", "ones_like", "empty_like", "rand_like", "randn_like", "full_like", "linspace")
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


@dataclass(frozen=True)
class ArrayType:
    """An array; its dtype and rank may be unknown (None) while where it lives is known
    (``np.zeros(n)`` with ``n`` a parameter is a host array of unknown rank)."""

    dtype: Optional[str]
    ndim: Optional[int]
    layout: str = "C"  # C | F | A
    where: str = "host"  # host | device | mapped (pinned host memory counts as host)
    library: str = ""  # numpy | cupy | torch | numba ("" unknown): whose array object it is

    @property
    def text(self) -> Optional[str]:
        if not self.dtype or self.ndim is None:
            return None
        if self.ndim == 0:  # np.array(2.5), a CuPy reduction: numba's [...] spelling has no 0-d form
            return f"Array({self.dtype}, 0, '{'C' if self.layout in ('C', 'F') else 'A'}')"
        dims = [":"] * self.ndim
        if self.layout == "C":
            dims[-1] = "::1"
        elif self.layout == "F":
            dims[0] = "::1"
        return f"{self.dtype}[{', '.join(dims)}]"


@dataclass(frozen=True)
class ScalarType:
    dtype: str  # always a numba name: an unknown scalar is None, not a ScalarType
    weak: bool = False  # a Python literal: numpy arithmetic takes the other operand's type

    def __post_init__(self):
        if not isinstance(self.dtype, str):
            raise TypeError(f"a scalar's dtype is a numba name, not {self.dtype!r}")

    @property
    def text(self) -> str:
        return self.dtype


@dataclass(frozen=True)
class TupleType:
    items: Tuple["Type", ...]
    named: Optional["NamedTupleClass"] = None  # a named tuple's class (``Point(1, 2)``)

    @property
    def text(self) -> Optional[str]:
        texts = [item.text if item is not None else None for item in self.items]
        if any(t is None for t in texts):
            return None
        uniform = bool(texts) and all(t == texts[0] for t in texts)
        sequence = f"({', '.join(texts)}{',' if len(texts) == 1 else ''})"  # numba's Tuple takes a sequence
        if self.named is not None:  # numba types a named tuple by its class: spelled as it is made
            if uniform:
                return f"NamedUniTuple({texts[0]}, {len(texts)}, {self.named.spelling})"
            return f"NamedTuple({sequence}, {self.named.spelling})"
        if uniform:
            return f"UniTuple({texts[0]}, {len(texts)})"
        return f"Tuple({sequence})"


class _HostOnly:
    """A host value numba launches no kernel with: it has no signature text."""

    @property
    def text(self) -> None:
        return None


@dataclass(frozen=True)
class Opaque(_HostOnly):
    """A value with a known role but no numba type: a random generator, a stream, a module."""

    kind: str


@dataclass(frozen=True)
class ListType(_HostOnly):
    """A Python list whose items share one type (``[Grid(n) for m in range(k)]``, or one that
    ``append`` fills); ``item`` None: unknown. Numba launches no list: its items are read
    (``grids[m].E``)."""

    item: "Type"


@dataclass(frozen=True)
class DictType(_HostOnly):
    """A Python dict whose values share one type (``{'E': np.empty(...), 'B': ...}``, or a
    comprehension); its keys are not read. ``value`` None: unknown. Numba launches no dict:
    its values are (``buffers[kind]``)."""

    value: "Type"


@dataclass(frozen=True)
class StrType(_HostOnly):
    """A string, with the literal values it may hold where reading knows them (``'E'``, a
    parameter every call passes a literal to, ``fldtype + 'r'``); empty: any string."""

    values: FrozenSet[str] = frozenset()


@dataclass(frozen=True)
class FunctionRef(_HostOnly):
    """An array library's function named, not called (``alloc = cuda.pinned_array``); more
    than one where the branches of an ``if`` bind different ones (each is tried at the call)."""

    names: Tuple[str, ...]


@dataclass(frozen=True)
class NamedTupleClass(_HostOnly):
    """A named tuple's class (``namedtuple('Point', 'x y')``, ``class Point(NamedTuple)``):
    calling it makes a tuple numba types by this class's name and fields. ``defaults``: the
    types of the last fields' defaults."""

    name: str
    fields: Tuple[str, ...]
    defaults: Tuple["Type", ...] = ()

    @property
    def spelling(self) -> str:
        return f"namedtuple({self.name!r}, {self.fields!r})"

    def made(self, call: ast.Call, reader: "TypeReader") -> Optional["TupleType"]:
        """The tuple ``Point(1, y=2.5)`` makes; None where its arguments are not all read."""
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return None
        given: Dict[str, Type] = {field: reader.type_of(a) for field, a in zip(self.fields, call.args)}
        for keyword in call.keywords:
            if keyword.arg not in self.fields or keyword.arg in given:
                return None
            given[keyword.arg] = reader.type_of(keyword.value)
        defaults = dict(zip(self.fields[len(self.fields) - len(self.defaults):], self.defaults))
        if len(call.args) > len(self.fields) or any(f not in given and f not in defaults for f in self.fields):
            return None
        return TupleType(tuple(given[f] if f in given else defaults[f] for f in self.fields), named=self)


def named_tuple_class(call: ast.Call, function: str) -> Optional[NamedTupleClass]:
    """``collections.namedtuple('Point', 'x y')`` (fields as one string, or a list or tuple of
    strings) or ``typing.NamedTuple('Point', [('x', int), ...])`` with literal names."""
    if not call.args or not isinstance(call.args[0], ast.Constant) or not isinstance(call.args[0].value, str):
        return None
    name = call.args[0].value
    given = call.args[1] if len(call.args) > 1 else next(
        (k.value for k in call.keywords if k.arg in ("field_names", "fields")), None)
    if function == "namedtuple":
        if isinstance(given, ast.Constant) and isinstance(given.value, str):
            fields = tuple(given.value.replace(",", " ").split())
        elif isinstance(given, (ast.List, ast.Tuple)) and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in given.elts):
            fields = tuple(e.value for e in given.elts)
        else:
            return None
        if any(k.arg in ("defaults", "rename") for k in call.keywords):
            return None  # defaults of run-time values, or renamed fields: not read
    elif isinstance(given, (ast.List, ast.Tuple)) and all(
            isinstance(e, ast.Tuple) and len(e.elts) == 2 and isinstance(e.elts[0], ast.Constant)
            and isinstance(e.elts[0].value, str) for e in given.elts):
        fields = tuple(e.elts[0].value for e in given.elts)
    else:
        return None
    if not name.isidentifier() or not all(f.isidentifier() and not f.startswith("_") for f in fields) \
            or len(set(fields)) != len(fields):
        return None  # namedtuple itself would refuse them
    return NamedTupleClass(name, fields)


def named_tuple_subclass(node: ast.ClassDef, bases: Sequence[Optional[str]]) -> Optional[NamedTupleClass]:
    """``class Point(NamedTuple): x: int; y: float = 0.0`` (``bases``: the dotted names of its
    bases): its fields, in order, and the types of their literal defaults."""
    if "typing.NamedTuple" not in bases:
        return None
    fields, defaults = [], []
    for statement in node.body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            fields.append(statement.target.id)
            if statement.value is not None:
                defaults.append(TypeReader(lambda e: None, lambda n: None).type_of(statement.value)
                                if isinstance(statement.value, ast.Constant) else None)
            elif defaults:
                return None  # Python refuses a field without a default after one with
    if not fields:
        return None
    return NamedTupleClass(node.name, tuple(fields), tuple(defaults))


@dataclass(frozen=True)
class Maybe(_HostOnly):
    """``None`` or a value of a type (``pml = [...]`` on one side of an ``if``, ``pml = None``
    on the other); ``value`` None: the constant ``None`` itself. A test of ``x is None``
    narrows it."""

    value: "Type" = None


NONE = Maybe(None)


@dataclass(frozen=True)
class OneOf(_HostOnly):
    """One of a few tuples of different types: the items of a list of pairs such as
    ``[(species, 'x'), (species.ionizer, 'w')]``. Read as a whole it is unknown; a
    ``getattr(pair[0], pair[1])`` of one of them is what every alternative gives."""

    kinds: FrozenSet["TupleType"]


# the tuples of different types a list's items may be (more: mixed)
MAX_ALTERNATIVES = 16

# a list's items of more than one type: unknown, and staying so however it is filled later
MIXED = Opaque("mixed")
_INSTANCE = "instance "


def instance(path: str, klass: str) -> Opaque:
    """An object of a class of the project (``path``: its file; ``klass``: its qualified name)."""
    return Opaque(f"{_INSTANCE}{path}::{klass}")


def instance_of(kind) -> Optional[Tuple[str, str]]:
    """(file, class) of an object of a project class; None for any other type."""
    if isinstance(kind, Opaque) and kind.kind.startswith(_INSTANCE):
        path, _, klass = kind.kind[len(_INSTANCE):].rpartition("::")
        return path, klass
    return None


def appended(kind: "ListType", item: "Type") -> "ListType":
    """The list after ``append(item)``: items of one type keep it; any other makes it mixed."""
    if kind.item is None:
        return ListType(item if item is not None else MIXED)
    if isinstance(kind.item, StrType) and isinstance(item, StrType):  # ['x', 'y']: a string of either
        return ListType(either_string(kind.item, item))
    if kind.item != item and isinstance(kind.item, (TupleType, OneOf)) and isinstance(item, (TupleType, OneOf)):
        # [(species, 'x'), (species.ionizer, 'w')]: pairs of either kind
        kinds = frozenset().union(*(k.kinds if isinstance(k, OneOf) else {k} for k in (kind.item, item)))
        return ListType(OneOf(kinds) if len(kinds) <= MAX_ALTERNATIVES else MIXED)
    return kind if kind.item == item else ListType(MIXED)


Type = Union[ArrayType, ScalarType, TupleType, ListType, DictType, StrType, FunctionRef, NamedTupleClass, Maybe,
             OneOf, Opaque, None]


# how many literal values a string keeps (more: any string)
MAX_STRINGS = 64


def strings(values: Optional[FrozenSet[str]]) -> StrType:
    """A string of these literal values; None or too many of them: any string."""
    return StrType(values if values is not None and len(values) <= MAX_STRINGS else frozenset())


def either_string(one: StrType, other: StrType) -> StrType:
    """A string that is one or the other (any string where either is)."""
    return strings(one.values | other.values if one.values and other.values else None)


# what numpy/cupy functions named as values make when called (``alloc = np.empty``)
_MADE_BY_NAME = frozenset({"zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like", "full_like",
                           "array", "asarray", "ascontiguousarray", "asfortranarray"})
_CUDA_ALLOCATORS = frozenset({"device_array", "pinned_array", "mapped_array", "managed_array", "to_device",
                              "device_array_like", "pinned_array_like", "mapped_array_like"})


def _not_none(kind: "Type") -> "Type":
    """What a value that may be None is where it is indexed or its attribute read: not None
    (there it would raise), so the value (``pml_t[m]`` under a test of ``pml_r is None`` only)."""
    return kind.value if isinstance(kind, Maybe) else kind


def _indexed_layout(layout: str, indices: List[ast.expr], ndim: int) -> str:
    """The layout of ``a[indices]`` (integers and slices), by numba's rule: a C array stays C
    where integers come first and only the innermost index given may be a slice without a
    step (``a[i]``, ``a[i, :]``, ``a[i, 2:5]``); an F array, mirrored, with every index given
    (``a[:, j]``)."""
    if layout not in ("C", "F") or layout == "F" and len(indices) != ndim:
        return "A"
    given = list(indices) if layout == "C" else list(reversed(indices))
    for at, index in enumerate(given):
        if isinstance(index, ast.Slice) and (at != len(given) - 1 or index.step is not None):
            return "A"
    return layout


def _items_of_one(first: ast.expr, second: ast.expr) -> Optional[Tuple[ast.expr, int, int]]:
    """(the tuple, index, index) where both are items of one tuple (``pair[0]``, ``pair[1]``)."""
    if not all(isinstance(e, ast.Subscript) and isinstance(e.slice, ast.Constant)
               and type(e.slice.value) is int and e.slice.value >= 0 for e in (first, second)):
        return None
    if ast.dump(first.value) != ast.dump(second.value):
        return None
    return first.value, first.slice.value, second.slice.value


def unpacked(target: ast.expr, kind: "Type"):
    """(name, type) for each name an assignment or loop binds (``n, x = 0, np.empty(0)``)."""
    if isinstance(target, ast.Name):
        yield target.id, kind
    elif isinstance(target, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in target.elts):
        items = kind.items if isinstance(kind, TupleType) and len(kind.items) == len(target.elts) else None
        for index, element in enumerate(target.elts):
            yield from unpacked(element, items[index] if items else None)
    elif isinstance(target, (ast.Subscript, ast.Attribute)):
        return  # `energies[i] = v`, `obj.x = v`: an item or an attribute; no name is bound
    else:
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                yield node.id, None


def loop_bindings(target: ast.expr, iterable: ast.expr, reader: "TypeReader") -> List[Tuple[str, "Type"]]:
    """(name, type) a ``for`` loop or a comprehension binds: ``range(n)`` an int; a list of
    one type its items (``for m, grid in enumerate(grids)``, ``zip(grids, coefs)``); a dict's
    ``items()`` / ``values()`` its values (keys not read); anything else unknown."""
    call = iterable if isinstance(iterable, ast.Call) and not iterable.keywords else None
    called = reader.dotted(call.func) if call is not None else None
    if called == "builtins.range":
        return list(unpacked(target, ScalarType("int64")))
    if called == "builtins.enumerate" and len(call.args) == 1 and isinstance(target, ast.Tuple) and len(
            target.elts) == 2:
        return [*unpacked(target.elts[0], ScalarType("int64")),
                *loop_bindings(target.elts[1], call.args[0], reader)]
    if called == "builtins.zip" and isinstance(target, ast.Tuple) and len(target.elts) == len(call.args):
        return [bound for element, items in zip(target.elts, call.args)
                for bound in loop_bindings(element, items, reader)]
    if call is not None and isinstance(call.func, ast.Attribute) and not call.args and call.func.attr in (
            "items", "values", "keys"):
        mapping = reader.type_of(call.func.value)
        value = mapping.value if isinstance(mapping, DictType) and mapping.value is not MIXED else None
        if call.func.attr == "items":
            return list(unpacked(target, TupleType((None, value))))
        return list(unpacked(target, value if call.func.attr == "values" else None))
    kind = reader.type_of(iterable)
    item = kind.item if isinstance(kind, ListType) and kind.item is not MIXED else None
    if isinstance(kind, ArrayType) and kind.dtype and kind.ndim and kind.where == "host":
        # a NumPy array gives its rows (a 1-D one its elements, NumPy scalars)
        item = ScalarType(kind.dtype) if kind.ndim == 1 else replace(kind, ndim=kind.ndim - 1, layout=(
            "C" if kind.layout == "C" else "A"))
    return list(unpacked(target, item))


_FLOAT_CONSTANTS = frozenset({"pi", "e", "inf", "nan", "tau", "euler_gamma", "NINF", "PINF", "NAN", "NaN", "Inf"})


# scipy.constants: every public name is a Python float but these (functions, tables, modules)
_SCIPY_CONSTANTS_OTHER = frozenset({
    "physical_constants", "value", "unit", "precision", "find", "convert_temperature", "lambda2nu",
    "nu2lambda", "ConstantWarning", "codata", "constants", "test"})


# scipy.constants.physical_constants: name -> (value, unit, uncertainty)
_PHYSICAL_CONSTANTS = DictType(TupleType((ScalarType("float64", weak=True), StrType(), ScalarType("float64", weak=True))))


def _physical_constant(name: Optional[str]) -> bool:
    """``scipy.constants.c`` (``from scipy.constants import c, e``): a float."""
    module, _, attr = (name or "").rpartition(".")
    return module == "scipy.constants" and not attr.startswith("_") and attr not in _SCIPY_CONSTANTS_OTHER


def signature(types: Sequence[Type]) -> Optional[str]:
    """``void(...)`` for a launch whose every argument's type is known; else None."""
    texts = []
    for value in types:
        text = value.text if value is not None else None
        if text is None:
            return None
        texts.append(text)
    return f"void({', '.join(texts)})"


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


class TypeReader:
    """Types of expressions inside one function (or the module's top level).

    ``dotted(expr)`` names what an expression refers to (imports and aliases resolved);
    ``lookup(name)`` gives a local or module-level name's type; both come from the host
    reader, which walks the statements in order."""

    def __init__(self, dotted, lookup, attribute=None, member=None, construct=None):
        self.dotted = dotted
        self.lookup = lookup
        self.attribute = attribute or (lambda expr: None)  # self.x -> its type
        # (an object of a project class, attribute name) -> the attribute's type
        self.member = member or (lambda obj, attr: None)
        # a call -> the object it makes, where it constructs a class of the project
        self.construct = construct or (lambda call: None)

    # -- dtypes -----------------------------------------------------------------

    def dtype(self, expr: Optional[ast.expr]) -> Optional[str]:
        if expr is None:
            return None
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            return dtype_name(expr.value)
        if isinstance(expr, ast.Call) and (self.dotted(expr.func) or "") in (
                "numpy.dtype", "cupy.dtype", "builtins.str") and len(expr.args) == 1:
            if isinstance(expr.args[0], ast.List):
                return self._record(expr.args[0], expr.keywords)
            return self.dtype(expr.args[0])  # np.dtype("float32"), str(np.float32), str(numba.int16)
        name = self.dotted(expr)
        if name:
            module, _, attr = name.rpartition(".")
            if module in _ARRAY_MODULES or module in ("builtins", "torch") or module.startswith("numba"):
                return dtype_name(attr)
        if isinstance(expr, ast.Attribute) and expr.attr == "dtype":
            inner = self.type_of(expr.value)
            return inner.dtype if isinstance(inner, ArrayType) else None
        if isinstance(expr, ast.Name):
            value = self.lookup(expr.id, want_dtype=True)
            if isinstance(value, str):
                return value
            held = self.lookup(expr.id)  # a parameter every call passes one dtype's name to
            if isinstance(held, StrType) and len(held.values) == 1:
                return dtype_name(next(iter(held.values)))
        return None

    def _record(self, fields: ast.List, keywords: List[ast.keyword]) -> Optional[str]:
        """``np.dtype([("x", np.int32), ("y", "<U12")], align=True)``: numba's Record type of
        that dtype, spelled as its constructor (as ``kernlint record`` writes it), the offsets
        and size NumPy gives the fields; None where a field or option is not read."""
        import numpy  # lays out the fields read here: runs nothing of the user's

        align = False
        for keyword in keywords:
            if keyword.arg != "align" or not isinstance(keyword.value, ast.Constant):
                return None
            align = bool(keyword.value.value)
        names, specs, types = [], [], []
        for field in fields.elts:
            if not (isinstance(field, ast.Tuple) and len(field.elts) in (2, 3) and isinstance(
                    field.elts[0], ast.Constant) and isinstance(field.elts[0].value, str)):
                return None
            dtype = self.dtype(field.elts[1])
            if dtype is None or _numpy_spelling(dtype) is None:
                return None
            names.append(field.elts[0].value)
            if len(field.elts) == 3:  # ("array", np.int16, (3,)): a nested array of that shape
                shape = _literal_ints(field.elts[2])
                if not shape:
                    return None
                specs.append((field.elts[0].value, _numpy_spelling(dtype), shape))
                types.append(f"NestedArray({dtype}, {shape})")
            else:
                specs.append((field.elts[0].value, _numpy_spelling(dtype)))
                types.append(dtype)
        if not names:
            return None
        try:
            laid_out = numpy.dtype(specs, align=align)
        except (TypeError, ValueError):  # a dtype NumPy refuses (a name twice): no type
            return None
        # the names NumPy gives (an empty one is `f<position>`)
        spelled = ", ".join(f"({json.dumps(n)}, {{'type': {t}, 'offset': {laid_out.fields[n][1]}}})"
                            for n, t in zip(laid_out.names, types))
        return f"Record([{spelled}], {laid_out.itemsize}, {laid_out.isalignedstruct})"

    # -- values -------------------------------------------------------------------

    def type_of(self, expr: Optional[ast.expr]) -> Type:
        if expr is None:
            return None
        if isinstance(expr, ast.Constant):
            value = expr.value
            if isinstance(value, bool):
                return ScalarType("boolean", weak=True)
            if isinstance(value, int):
                return ScalarType("int64", weak=True)
            if isinstance(value, float):
                return ScalarType("float64", weak=True)
            if isinstance(value, complex):
                return ScalarType("complex128", weak=True)
            if isinstance(value, str):
                return StrType(frozenset({value}))
            return NONE if value is None else None
        if isinstance(expr, ast.Name):
            value = self.lookup(expr.id)
            if value is None and _physical_constant(self.dotted(expr)):
                return ScalarType("float64", weak=True)  # a Python float
            if value is None and self.dotted(expr) == "scipy.constants.physical_constants":
                return _PHYSICAL_CONSTANTS
            if value is None:
                return self._library_function(expr)
            return value if not isinstance(value, str) else None
        if isinstance(expr, ast.Tuple):
            return TupleType(tuple(self.type_of(e) for e in expr.elts))
        if isinstance(expr, ast.List) and not any(isinstance(e, ast.Starred) for e in expr.elts):
            made = ListType(None)
            for element in expr.elts:
                made = appended(made, self.type_of(element))
            return made
        if isinstance(expr, ast.Dict) and None not in expr.keys:  # (`**other` spreads unknown values)
            made = DictType(None)
            for value in expr.values:
                made = DictType(appended(ListType(made.value), self.type_of(value)).item)
            return made
        if isinstance(expr, (ast.ListComp, ast.DictComp)):
            return self._comprehension(expr)
        if isinstance(expr, ast.UnaryOp):
            inner = self.type_of(expr.operand)
            if isinstance(expr.op, ast.Not):
                return ScalarType("boolean")
            if isinstance(inner, ArrayType) and inner.library != "numba":  # -a: a new array like a
                return replace(inner, layout="C" if inner.layout == "A" else inner.layout)
            return inner if isinstance(inner, ScalarType) else None
        if isinstance(expr, ast.BinOp):
            return self._binary(expr)
        if isinstance(expr, ast.Compare):
            return self._compare(expr)
        if isinstance(expr, ast.BoolOp):
            return None
        if isinstance(expr, ast.Subscript):
            return self._subscript(expr)
        if isinstance(expr, ast.Attribute):
            return self._attribute(expr)
        if isinstance(expr, ast.Call):
            return self._call(expr)
        if isinstance(expr, ast.IfExp):
            body, orelse = self.type_of(expr.body), self.type_of(expr.orelse)
            return body if body == orelse else None
        return None

    def _compare(self, expr: ast.Compare) -> Type:
        """A comparison of numbers is a boolean; of an array, an array of booleans (``i < n``
        with ``i = np.arange(n)``); unknown where an operand is."""
        if any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in expr.ops):
            return ScalarType("boolean")
        operands = [self.type_of(o) for o in [expr.left, *expr.comparators]]
        arrays = [o for o in operands if isinstance(o, ArrayType)]
        if not arrays:
            return ScalarType("boolean")  # also what an unknown object's comparison gives, as before
        if len(expr.ops) > 1 or any(a.ndim is None or a.library == "numba" for a in arrays) or any(
                not isinstance(o, (ArrayType, ScalarType)) for o in operands):
            return None
        return ArrayType("boolean", max(a.ndim for a in arrays), "C", arrays[0].where, arrays[0].library)

    def _binary(self, expr: ast.BinOp) -> Type:
        left, right = _not_none(self.type_of(expr.left)), _not_none(self.type_of(expr.right))
        if isinstance(left, StrType) and isinstance(right, StrType) and isinstance(expr.op, ast.Add):
            return strings(frozenset(a + b for a in left.values for b in right.values)
                           if left.values and right.values else None)
        if isinstance(left, (ScalarType, ArrayType)) and isinstance(right, (ScalarType, ArrayType)) and \
                left.dtype and right.dtype and not (numeric(left.dtype) and numeric(right.dtype)):
            dtype = _time_arithmetic(expr.op, left.dtype, right.dtype)
            arrays = [k for k in (left, right) if isinstance(k, ArrayType)]
            if dtype is None or not arrays:
                return ScalarType(dtype) if dtype else None
            if any(a.library == "numba" for a in arrays):
                return None
            ndim = None if any(a.ndim is None for a in arrays) else max(a.ndim for a in arrays)
            return ArrayType(dtype, ndim, "C", arrays[0].where, arrays[0].library)
        if isinstance(left, ScalarType) and isinstance(right, ScalarType):
            if isinstance(expr.op, ast.Div):
                dtype = _promote(left.dtype, right.dtype)
                return ScalarType(dtype if dtype in _FLOAT_ORDER or dtype.startswith("complex") else "float64",
                                  weak=left.weak and right.weak)
            if left.weak and not right.weak and _same_kind(left.dtype, right.dtype):
                return ScalarType(right.dtype)
            if right.weak and not left.weak and _same_kind(left.dtype, right.dtype):
                return ScalarType(left.dtype)
            return ScalarType(_promote(left.dtype, right.dtype), weak=left.weak and right.weak)
        if isinstance(left, ArrayType) or isinstance(right, ArrayType):
            return _array_arithmetic(expr.op, left, right)
        return None

    def _comprehension(self, expr: Union[ast.ListComp, ast.DictComp]) -> Type:
        """``[getattr(grids[m], name) for m in range(nm)]``: a list of what the element gives
        with the names its loops bind typed (``{k: cupy.asarray(v) for k, v in d.items()}``:
        a dict of what the value gives)."""
        reader: TypeReader = self
        for generator in expr.generators:
            reader = reader.binding(dict(loop_bindings(generator.target, generator.iter, reader)))
        if isinstance(expr, ast.DictComp):
            return DictType(reader.type_of(expr.value))
        return ListType(reader.type_of(expr.elt))

    def binding(self, names: Dict[str, "Type"]) -> "TypeReader":
        """This reader with ``names`` bound to these types (a comprehension's variables, which
        hide the outer names they share)."""
        if not names:
            return self
        outer = self.lookup

        def lookup(name: str, want_dtype: bool = False):
            if name in names:
                value = names[name]
                return value if value is not None and isinstance(value, str) == want_dtype else None
            return outer(name, want_dtype=want_dtype)

        return TypeReader(self.dotted, lookup, self.attribute, self.member, self.construct)

    def _library_function(self, expr: ast.expr) -> Type:
        """``cuda.pinned_array`` or ``np.empty`` named, not called: the function, where calling
        it makes an array kernlint types (not a dtype such as ``np.float32``)."""
        name = self.dotted(expr) or ""
        module, _, function = name.rpartition(".")
        if dtype_name(function) or not (module in _ARRAY_MODULES or module == "numba.cuda"):
            return None
        if function in _MADE_BY_NAME or module == "numba.cuda" and function in _CUDA_ALLOCATORS:
            return FunctionRef((name,))
        return None

    def _subscript(self, expr: ast.Subscript) -> Type:
        base = _not_none(self.type_of(expr.value))
        if isinstance(base, DictType):
            return base.value if base.value is not MIXED else None
        if isinstance(base, ListType):
            if isinstance(expr.slice, ast.Slice):
                return base
            return base.item if base.item is not MIXED else None
        if isinstance(base, TupleType) and isinstance(expr.slice, ast.Constant) and isinstance(
                expr.slice.value, int):
            try:
                return base.items[expr.slice.value]
            except IndexError:
                return None
        if not isinstance(base, ArrayType):
            return None
        indices = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
        if base.ndim is None:
            return replace(base, layout="A") if all(isinstance(i, ast.Slice) for i in indices) else None
        if any(isinstance(i, ast.Constant) and i.value is Ellipsis for i in indices):
            return None
        removed = 0
        for index in indices:
            if isinstance(index, ast.Slice):
                continue
            kind = self.type_of(index)
            if isinstance(kind, ScalarType) and kind.dtype.startswith(("int", "uint")):
                removed += 1
            else:
                return None  # fancy or unknown indexing
        ndim = base.ndim - removed
        if ndim < 0:
            return None
        if ndim == 0:
            return ScalarType(base.dtype) if base.dtype else None
        return replace(base, ndim=ndim, layout=_indexed_layout(base.layout, indices, base.ndim))

    def _attribute(self, expr: ast.Attribute) -> Type:
        if isinstance(expr.value, ast.Name):  # narrowed by an `if` around (`if ps.V is not None:`)
            narrowed = self.lookup(f"{expr.value.id}.{expr.attr}")
            if narrowed is not None:
                return narrowed
        if isinstance(expr.value, ast.Name) and expr.value.id in ("self", "cls"):
            value = self.attribute(expr)
            if value is not None:
                return value  # else what the object's class stores (`member`), or a count
        if expr.attr in ("size", "ndim", "nbytes", "itemsize"):
            return ScalarType("int64")  # whatever holds it: a count
        if expr.attr in _FLOAT_CONSTANTS and (self.dotted(expr) or "").rpartition(".")[0] in (
                "numpy", "cupy", "math") or _physical_constant(self.dotted(expr)):
            return ScalarType("float64", weak=True)  # np.pi, math.inf, scipy.constants.c: Python floats
        if self.dotted(expr) == "scipy.constants.physical_constants":
            return _PHYSICAL_CONSTANTS
        base = _not_none(self.type_of(expr.value))
        if instance_of(base) is not None:
            return self.member(base, expr.attr)
        if isinstance(base, TupleType) and base.named is not None and expr.attr in base.named.fields:
            return base.items[base.named.fields.index(expr.attr)]
        if isinstance(base, ArrayType):
            if expr.attr == "T":
                if base.ndim is None:
                    return replace(base, layout="A")
                layout = {"C": "F", "F": "C"}.get(base.layout, "A") if base.ndim > 1 else base.layout
                return replace(base, layout=layout)
            if expr.attr == "shape" and base.ndim is not None:
                return TupleType(tuple(ScalarType("int64") for _ in range(base.ndim)))
            if expr.attr in ("real", "imag") and base.dtype and base.dtype.startswith("complex"):
                return replace(base, dtype="float32" if base.dtype == "complex64" else "float64", layout="A")
        if base is None:
            return self._library_function(expr)
        return None

    def _call(self, expr: ast.Call) -> Type:
        named = self.type_of(expr.func) if isinstance(expr.func, ast.Name) else None
        if isinstance(named, FunctionRef):  # `alloc(shape, dtype=...)`: what each function it may be makes
            made = [self._call_named(name, expr) for name in named.names]
            return made[0] if all(m == made[0] for m in made) else None
        if isinstance(named, NamedTupleClass):
            return named.made(expr, self)
        return self._call_named(self.dotted(expr.func) or "", expr)

    def _call_named(self, name: str, expr: ast.Call) -> Type:
        keywords = {k.arg: k.value for k in expr.keywords if k.arg}
        module, _, function = name.rpartition(".")
        if module in _ARRAY_MODULES or module in ("numpy.random", "cupy.random"):
            where = "device" if module.startswith("cupy") else "host"
            made = self._array_constructor(module, function, expr, keywords, where)
            return replace(made, library="cupy" if where == "device" else "numpy") if isinstance(
                made, ArrayType) and made.where == where else made
        if module in ("numpy.linalg", "cupy.linalg") and function in ("inv", "pinv") and len(expr.args) == 1:
            return self._inverse(expr.args[0], "device" if module.startswith("cupy") else "host")
        if module == "scipy.special" and not expr.keywords:
            return self._special(function, expr)
        if module == "torch" and function in _TORCH_FACTORIES:
            return self._torch_factory(function, expr, keywords)
        if name.startswith("numba.cuda."):
            made = self._cuda_call(function, expr, keywords)
            if made is None:
                return self.construct(expr)  # numba-cuda's own classes, read (an array wrapper)
            return replace(made, library="numba" if made.where != "host" else "numpy") if isinstance(
                made, ArrayType) else made
        if name in ("collections.namedtuple", "typing.NamedTuple"):
            return named_tuple_class(expr, function)
        if module == "builtins":
            if function in ("float",):
                return ScalarType("float64")
            if function in ("int", "len", "round") and not (function == "round" and len(expr.args) > 1):
                return ScalarType("int64")
            if function == "bool":
                return ScalarType("boolean")
            if function == "complex":
                return ScalarType("complex128")
            if function == "str":
                return StrType()
            if function == "tuple" and not expr.keywords and len(expr.args) <= 1:  # `tuple()`, `tuple(t)`
                made = self.type_of(expr.args[0]) if expr.args else TupleType(())
                return TupleType(made.items) if isinstance(made, TupleType) else None  # a named one: plain
            if function == "getattr" and len(expr.args) == 2:
                return self._getattr(expr)
            return None
        if module in _ARRAY_MODULES and dtype_name(function):
            return ScalarType(dtype_name(function))
        if isinstance(expr.func, ast.Attribute):
            made = self._method(expr, keywords)
            if made is not None:
                return made
        return self.construct(expr)

    def _getattr(self, expr: ast.Call) -> Type:
        """``getattr(grid, fld + 'r')`` where the name is one of known strings: the attribute
        they all give (``Er``, ``Br``, ``Jr`` of the same kind). ``getattr(pair[0], pair[1])``
        of a pair from a list of pairs (``[(species, 'x'), (species.ionizer, 'w')]``): what
        every pair the list holds gives, object and name taken together."""
        obj, name = expr.args
        pair = _items_of_one(obj, name)
        if pair is not None:
            base = self.type_of(pair[0])
            alternatives = base.kinds if isinstance(base, OneOf) else [base]
            if not all(isinstance(k, TupleType) and max(pair[1:]) < len(k.items) for k in alternatives):
                return None
            found = [self._attribute_named(k.items[pair[1]], k.items[pair[2]]) for k in alternatives]
        else:
            found = [self._attribute_named(self.type_of(obj), self.type_of(name))]
        return found[0] if all(f == found[0] for f in found) else None

    def _attribute_named(self, obj: Type, name: Type) -> Type:
        if instance_of(obj) is None or not isinstance(name, StrType) or not name.values:
            return None
        found = [self.member(obj, attr) for attr in sorted(name.values)]
        return found[0] if all(f == found[0] for f in found) else None

    def _array_constructor(self, module: str, function: str, expr: ast.Call, keywords, where: str) -> Type:
        args = expr.args
        scalar = dtype_name(function)
        if scalar and module in _ARRAY_MODULES and function not in ("bool", "int", "float", "complex"):
            return ScalarType(scalar)  # np.float32(1.5)
        explicit = self.dtype(keywords.get("dtype"))
        order = keywords.get("order")
        layout = "F" if isinstance(order, ast.Constant) and order.value == "F" else "C"
        if function in ("zeros", "ones", "empty", "recarray"):  # a recarray is a record array to numba
            dtype = explicit or (self.dtype(args[1]) if len(args) > 1 else None) or (
                None if "dtype" in keywords or len(args) > 1 else "float64")
            ndim = self._ndim_of_shape(args[0] if args else keywords.get("shape"))
            return ArrayType(dtype, ndim, layout, where)
        if function == "full":
            fill = args[1] if len(args) > 1 else keywords.get("fill_value")
            dtype = explicit or (self.dtype(args[2]) if len(args) > 2 else None)
            if dtype is None and "dtype" not in keywords and len(args) <= 2:
                fill_type = self.type_of(fill)
                dtype = fill_type.dtype if isinstance(fill_type, ScalarType) else None
            ndim = self._ndim_of_shape(args[0] if args else keywords.get("shape"))
            return ArrayType(dtype, ndim, layout, where)
        if function in ("zeros_like", "ones_like", "empty_like", "full_like"):
            base = self.type_of(args[0]) if args else None
            if not isinstance(base, ArrayType):
                return ArrayType(explicit, None, "C", where)
            dtype = explicit if "dtype" in keywords else base.dtype
            layout = base.layout if base.layout in ("C", "F") else "C"
            return ArrayType(dtype, base.ndim, layout, where)
        if function == "arange":
            if "dtype" in keywords:
                return ArrayType(explicit, 1, "C", where) if explicit else None
            kinds = [self.type_of(a) for a in args[:3]]
            if not kinds or any(not isinstance(k, ScalarType) for k in kinds):
                return ArrayType(None, 1, "C", where)
            floating = any(k.dtype.startswith("float") for k in kinds)
            return ArrayType("float64" if floating else "int64", 1, "C", where)
        if function == "argsort" and args:  # indices (intp) in the array's shape; flattened with axis=None
            base = self.type_of(args[0])
            axis = keywords.get("axis", args[1] if len(args) > 1 else None)
            if not isinstance(base, ArrayType):
                return None
            flat = isinstance(axis, ast.Constant) and axis.value is None
            return ArrayType("int64", 1 if flat else base.ndim, "C", where)
        if function == "outer" and len(args) == 2 and not keywords:  # both flattened: a matrix
            kinds = [self.type_of(a) for a in args]
            if any(not isinstance(k, ArrayType) or k.where != where for k in kinds):
                return None
            dtype = _result_type(kinds)
            return ArrayType(dtype, 2, "C", where) if dtype else None
        if function in ("linspace", "logspace", "geomspace"):
            if "dtype" in keywords:
                return ArrayType(explicit, 1, "C", where) if explicit else None
            return ArrayType("float64", 1, "C", where)
        if function in ("eye", "identity"):
            dtype = explicit if "dtype" in keywords else "float64"
            return ArrayType(dtype, 2, "C", where) if dtype else None
        if function in ("array", "asarray", "ascontiguousarray", "asfortranarray", "copy", "require"):
            source = args[0] if args else keywords.get("object", keywords.get("a"))
            base = self.type_of(source)
            ndim, element = _literal_shape(source)
            if not ndim and isinstance(source, (ast.List, ast.Tuple)) and source.elts and not any(
                    isinstance(e, ast.Starred) for e in source.elts):
                ndim, element = self._items_shape([self.type_of(e) for e in source.elts])
            if isinstance(base, ArrayType):
                dtype = explicit if "dtype" in keywords else base.dtype
                if function == "asfortranarray" and (base.ndim or 0) > 1:
                    layout = "F"
                elif function == "asarray" and not keywords.get("order"):
                    layout = base.layout
                else:
                    layout = "C" if base.layout == "A" or function != "asarray" else base.layout
                return ArrayType(dtype, base.ndim, layout, where)
            if not ndim and isinstance(base, ListType) and base.item is not None:
                # `[row.sum() for row in rows]`, or a name bound to a list of numbers
                ndim, element = self._items_shape([base.item])
            if ndim:
                dtype = explicit if "dtype" in keywords else element
                return ArrayType(dtype, ndim, layout, where)
            return ArrayType(explicit, None, layout, where)
        if module.endswith("random"):
            return self._random(function, expr, keywords, where)
        return self._elementwise(function, expr, keywords, where)

    @staticmethod
    def _items_shape(kinds: List[Type]) -> Tuple[int, Optional[str]]:
        """(ndim, dtype) of an array made from a list of these values (``[x_over]`` of a
        float32 number; ``[a, b]`` of arrays of one rank); (0, None) where they do not say."""
        if all(isinstance(k, ScalarType) for k in kinds):
            return 1, _result_type(kinds)
        if all(isinstance(k, ArrayType) and k.ndim is not None and k.ndim == kinds[0].ndim for k in kinds):
            return kinds[0].ndim + 1, _result_type(kinds)
        return 0, None

    def _elementwise(self, function: str, expr: ast.Call, keywords, where: str) -> Type:
        """NumPy's (and CuPy's) functions that work element by element: ``np.exp(1j * kz)``,
        ``np.where(mask, a, 0.)``, ``np.maximum(a, b)``, and ``np.meshgrid``; the result has
        the arguments' broadcast rank and NumPy's result type. None where an argument is
        unknown, or lives elsewhere than the module's arrays do."""
        args = expr.args
        if expr.keywords and function != "meshgrid" or any(isinstance(a, ast.Starred) for a in args):
            return None  # out=, dtype=, where=: not read
        kinds = [self.type_of(a) for a in args]
        if any(not isinstance(k, (ArrayType, ScalarType)) for k in kinds):
            return None
        arrays = [k for k in kinds if isinstance(k, ArrayType)]
        # an array whose place is not known (a documented parameter) is where the function works
        if any(a.dtype is None or a.ndim is None or a.where not in (where, "") for a in arrays):
            return None
        if function == "meshgrid":
            if not arrays or len(arrays) != len(kinds) or set(keywords) - {"indexing", "sparse", "copy"} or any(
                    a.ndim != 1 for a in arrays) or keywords.get("sparse") is not None:
                return None
            copied = keywords.get("copy")
            if copied is not None and not (isinstance(copied, ast.Constant) and copied.value is True):
                return None  # views that broadcast: strides of 0
            # each grid keeps its own vector's dtype (NumPy promotes nothing here)
            library = "cupy" if where == "device" else "numpy"
            return TupleType(tuple(ArrayType(a.dtype, len(arrays), "C", where, library) for a in arrays))
        if function == "where" and len(kinds) == 3:
            values = kinds[1:]
            ndim = max((a.ndim for a in arrays), default=0)
            result = _result_type(values)
        elif function in _UNARY_FLOAT and len(kinds) == 1:
            (kind,) = kinds
            ndim = kind.ndim if isinstance(kind, ArrayType) else 0
            dtype = kind.dtype
            if not numeric(dtype):
                return None
            if dtype.startswith(("int", "uint")) or dtype == "boolean":
                dtype = "float64"
            if function in _TO_REAL and dtype.startswith("complex"):
                dtype = "float32" if dtype == "complex64" else "float64"
            result = dtype
        elif function in _BINARY and len(kinds) == 2:
            ndim = max((a.ndim for a in arrays), default=0)
            result = _result_type(kinds)
            if result is not None and function in _BINARY_FLOAT and not result.startswith(("float", "complex")):
                result = "float64"
        else:
            return None
        if result is None:
            return None
        if not arrays:
            return ScalarType(result)
        return ArrayType(result, ndim, "C", where) if ndim else ScalarType(result)

    def _inverse(self, matrix: ast.expr, where: str) -> Type:
        """``np.linalg.inv(a)`` / ``pinv(a)``: a matrix (stack) of the rank of ``a``, of its
        floating type (integers give float64; NumPy's linalg has no float16)."""
        base = self.type_of(matrix)
        if not isinstance(base, ArrayType) or base.dtype is None or base.ndim is None or base.ndim < 2 or \
                base.where != where:
            return None
        if base.dtype in ("float32", "float64", "complex64", "complex128"):
            dtype = base.dtype
        elif base.dtype in _INT_ORDER or base.dtype.startswith("uint") or base.dtype == "boolean":
            dtype = "float64"
        else:
            return None
        return ArrayType(dtype, base.ndim, "C", where, base.library)

    def _special(self, function: str, expr: ast.Call) -> Type:
        """SciPy's special functions of NumPy arrays and numbers, by their ufunc loops: a float32
        argument keeps float32 (``j1`` has ``f->f``), integers give float64, complex values are
        accepted only where a complex loop exists; the zeros of Bessel functions are a float64
        vector. None for the rest."""
        if function in _SPECIAL_ZEROS:
            return ArrayType("float64", 1, "C", "host", "numpy")
        kinds = [self.type_of(a) for a in expr.args]
        if any(not isinstance(k, (ArrayType, ScalarType)) or k.dtype is None or not numeric(k.dtype) for k in kinds):
            return None
        arrays = [k for k in kinds if isinstance(k, ArrayType)]
        if any(a.ndim is None or a.where != "host" for a in arrays):
            return None
        if function in _SPECIAL_REAL | _SPECIAL_COMPLEX and len(kinds) == 1:
            dtype = kinds[0].dtype
        elif function in _SPECIAL_ORDER and len(kinds) == 2:
            order = kinds[0]
            integer_order = order.dtype in _INT_ORDER or order.dtype.startswith("uint")
            if function in ("yn", "kn") and any(k.dtype.startswith("complex") for k in kinds):
                return None  # no complex loop
            if function in ("yn", "kn") and integer_order:  # their first loop takes an integer order
                return _shaped("float64", arrays)
            dtype = _result_type(kinds)
        else:
            return None
        if dtype is None or dtype.startswith("complex") and function not in _SPECIAL_COMPLEX | _SPECIAL_ORDER:
            return None
        if dtype not in ("float32", "float64") and not dtype.startswith("complex"):
            dtype = "float64"  # integers, booleans, float16: the double loop
        return _shaped(dtype, arrays)

    def _torch_factory(self, function: str, expr: ast.Call, keywords) -> Type:
        """A PyTorch tensor: an array numba sees through ``__cuda_array_interface__`` when it
        is on a CUDA device (``device="cuda"``); on the CPU (numba cannot launch on it) until
        ``.cuda()``/``.to("cuda")`` moves it."""
        where = "device" if _on_cuda(keywords.get("device")) else "host"
        made = self._torch_tensor(function, expr, keywords)
        return replace(made, where=where) if made is not None else None

    def _torch_tensor(self, function: str, expr: ast.Call, keywords) -> Type:
        explicit = self.dtype(keywords.get("dtype"))
        args = expr.args
        if function.endswith("_like"):
            base = self.type_of(args[0]) if args else None
            ndim = base.ndim if isinstance(base, ArrayType) else None
            dtype = explicit or (base.dtype if isinstance(base, ArrayType) else None)
            return ArrayType(dtype, ndim, "C", "device", "torch")
        if function in ("tensor", "as_tensor"):
            ndim, element = _literal_shape(args[0] if args else None)
            return ArrayType(explicit or element, ndim or None, "C", "device", "torch")
        if function in ("arange", "linspace"):
            return ArrayType(explicit, 1, "C", "device", "torch")
        sizes = args[:1] if function == "full" else args
        if len(sizes) == 1:
            ndim = self._ndim_of_shape(sizes[0])
        else:
            ndim = len(sizes) if sizes and not any(isinstance(a, ast.Starred) for a in sizes) else None
        return ArrayType(explicit or "float32", ndim, "C", "device", "torch")

    def _random(self, function: str, expr: ast.Call, keywords, where: str) -> Type:
        args = expr.args
        floats = self.dtype(keywords.get("dtype")) or "float64"  # CuPy's take a dtype
        if function in ("rand", "randn"):
            return ArrayType(floats, len(args), "C", where) if args else ScalarType(floats)
        if function in ("random", "random_sample", "sample", "standard_normal", "ranf"):
            size = args[0] if args else keywords.get("size")
            return self._sized(floats, size, where)
        if function in ("uniform", "normal", "exponential", "gamma", "beta", "lognormal", "poisson"):
            size = keywords.get("size") or (args[2] if len(args) > 2 else None)
            dtype = "int64" if function == "poisson" else "float64"
            return self._sized(dtype, size, where)
        if function == "randint":
            size = keywords.get("size") or (args[2] if len(args) > 2 else None)
            explicit = self.dtype(keywords.get("dtype"))
            return self._sized(explicit or "int64", size, where)
        if function == "default_rng":
            return Opaque("generator")
        return None

    def _sized(self, dtype: str, size: Optional[ast.expr], where: str) -> Type:
        if size is None:
            return ScalarType(dtype)
        return ArrayType(dtype, self._ndim_of_shape(size), "C", where)

    def _generator(self, method: str, expr: ast.Call, keywords) -> Type:
        explicit = self.dtype(keywords.get("dtype"))
        if method in ("random", "standard_normal", "standard_exponential"):
            size = expr.args[0] if expr.args else keywords.get("size")
            return self._sized(explicit or "float64", size, "host")
        if method in ("uniform", "normal", "integers", "exponential", "poisson"):
            size = keywords.get("size") or (expr.args[2] if len(expr.args) > 2 else None)
            default = "int64" if method in ("integers", "poisson") else "float64"
            return self._sized(explicit or default, size, "host")
        return None

    def _cuda_call(self, function: str, expr: ast.Call, keywords) -> Type:
        args = expr.args
        explicit = self.dtype(keywords.get("dtype"))
        if function in ("to_device", "as_cuda_array", "from_cuda_array_interface"):
            source = args[0] if args else keywords.get("obj", keywords.get("ary"))
            base = self.type_of(source)
            if isinstance(base, ArrayType):
                return replace(base, where="device", layout="C" if base.layout == "A" else base.layout)
            ndim, element = _literal_shape(source)  # `cuda.to_device([0] * 100)`: NumPy makes the array
            if ndim and element and function == "to_device":
                return ArrayType(element, ndim, "C", "device")
            return ArrayType(None, None, "C", "device")
        if function in ("device_array", "pinned_array", "mapped_array", "managed_array"):
            shape = args[0] if args else keywords.get("shape")
            dtype = explicit or (self.dtype(args[1]) if len(args) > 1 else None) or (
                None if "dtype" in keywords or len(args) > 1 else "float64")
            order = keywords.get("order")
            layout = "F" if isinstance(order, ast.Constant) and order.value == "F" else "C"
            ndim = self._ndim_of_shape(shape)
            where = {"device_array": "device", "pinned_array": "host", "mapped_array": "mapped",
                     "managed_array": "mapped"}[function]
            return ArrayType(dtype, ndim, layout, where)
        if function in ("device_array_like", "pinned_array_like", "mapped_array_like"):
            base = self.type_of(args[0] if args else None)
            where = {"device_array_like": "device", "pinned_array_like": "host",
                     "mapped_array_like": "mapped"}[function]
            if not isinstance(base, ArrayType):
                return ArrayType(None, None, "C", where)
            return replace(base, where=where, layout=base.layout if base.layout != "A" else "C")
        if function == "create_xoroshiro128p_states":  # one generator state per thread, on the device
            return ArrayType(XOROSHIRO, 1, "C", "device")
        if function in ("stream", "default_stream", "per_thread_default_stream", "legacy_default_stream",
                        "external_stream"):
            return Opaque("stream")
        if function == "event":
            return Opaque("event")
        return None

    def _method(self, expr: ast.Call, keywords) -> Type:
        func = expr.func
        base = self.type_of(func.value)
        method = func.attr
        if isinstance(base, Opaque) and base.kind == "generator":
            return self._generator(method, expr, keywords)
        if method == "copy_to_host" and not isinstance(base, ArrayType):
            return ArrayType(None, None, "C", "host")  # only numba's device arrays have it
        if method == "astype" and base is None and (expr.args or "dtype" in keywords):
            # `data.moon().astype(np.float32)`: an array of those elements, its rank and place unknown
            dtype = self.dtype(expr.args[0] if expr.args else keywords.get("dtype"))
            return ArrayType(dtype, None, "C", "") if dtype else None
        if not isinstance(base, ArrayType):
            return None
        if method == "astype":
            dtype = self.dtype(expr.args[0] if expr.args else keywords.get("dtype"))
            return ArrayType(dtype, base.ndim, "C" if base.layout != "F" else "F", base.where)
        if method == "copy":
            return replace(base, layout="C" if base.layout == "A" else base.layout)
        if method == "view" and len(expr.args) == 1 and not keywords:
            return self._view(base, self.dtype(expr.args[0]))
        if method in ("ravel", "flatten"):
            return replace(base, ndim=1, layout="C")
        if method == "reshape":
            if len(expr.args) == 1:
                ndim = self._ndim_of_shape(expr.args[0])
            else:
                ndim = len(expr.args) if expr.args else 0
            return replace(base, ndim=ndim or None, layout="C")  # a view of C data, or a C copy
        if method == "transpose" and not expr.args and base.ndim is not None:
            return self._attribute(ast.Attribute(value=func.value, attr="T", ctx=ast.Load()))
        if method == "copy_to_host":
            return replace(base, where="host", layout="C" if base.layout == "A" else base.layout, library="numpy")
        if method in ("sum", "max", "min", "mean", "prod") and not expr.args and not keywords:
            dtype = "float64" if method == "mean" else base.dtype
            if dtype is None:
                return None  # a reduction of an array of unknown dtype: unknown
            if base.where == "device":  # CuPy: a 0-d array that stays on the device
                return ArrayType(dtype, 0, "C", "device")
            return ScalarType(dtype)
        if method == "get" and base.where == "device":  # cupy: to the host
            return replace(base, where="host", library="numpy")
        if base.library == "torch" and (method == "cuda" or method == "to" and _on_cuda(
                expr.args[0] if expr.args else keywords.get("device"))):
            return replace(base, where="device")
        if base.library == "torch" and method in ("contiguous", "clone", "detach"):
            return replace(base, layout="C")
        return None

    @staticmethod
    def _view(base: ArrayType, dtype: Optional[str]) -> Type:
        """``a.view(np.uint32)``: the same memory read as another dtype. Of the same item size,
        the same array; of another, NumPy resizes the last axis, which a C array allows (its
        rank stays); anything else: unknown."""
        import numpy  # item sizes, as NumPy gives them: runs nothing of the user's

        spelled = [_numpy_spelling(d) if d else None for d in (base.dtype, dtype)]
        if None in spelled:
            return None
        same_size = numpy.dtype(spelled[0]).itemsize == numpy.dtype(spelled[1]).itemsize
        return replace(base, dtype=dtype) if same_size or base.layout == "C" and base.ndim else None

    def _ndim_of_shape(self, shape: Optional[ast.expr]) -> Optional[int]:
        """Dimensions of a shape argument (an int, a tuple of ints, another array's shape);
        None where unknown."""
        if shape is None:
            return None
        if isinstance(shape, (ast.Tuple, ast.List)):
            return len(shape.elts) if not any(isinstance(e, ast.Starred) for e in shape.elts) else None
        kind = self.type_of(shape)
        if isinstance(kind, ScalarType) and kind.dtype.startswith(("int", "uint")):
            return 1
        if isinstance(kind, TupleType):
            return len(kind.items)
        if kind is None and _count_arithmetic(shape) and not any(
                isinstance(self.type_of(operand), (TupleType, ArrayType)) for operand in (shape.left, shape.right)):
            return 1  # `Nz * (Nr + 1)`: arithmetic on counts is a count
        return None


def _count_arithmetic(expr: ast.expr) -> bool:
    """Arithmetic that makes a number, not a tuple: ``a * b``, ``n - 1``, ``n // 2``, ``n + 1``
    (``shape + (3,)`` and ``(1,) * n`` make tuples)."""
    if not isinstance(expr, ast.BinOp) or any(isinstance(o, (ast.Tuple, ast.List)) for o in (expr.left, expr.right)):
        return False
    if isinstance(expr.op, (ast.Mult, ast.FloorDiv, ast.Sub, ast.Mod, ast.Pow)):
        return True
    return isinstance(expr.op, ast.Add) and any(
        isinstance(o, ast.Constant) and isinstance(o.value, int) or _count_arithmetic(o) for o in (expr.left, expr.right))


def _literal_shape(expr: Optional[ast.expr]) -> Tuple[int, Optional[str]]:
    """(ndim, dtype) of a nested list/tuple literal of numbers (repeated: ``[0] * 100``)."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
        for items, count in ((expr.left, expr.right), (expr.right, expr.left)):
            if isinstance(items, (ast.List, ast.Tuple)) and not (
                    isinstance(count, ast.Constant) and not isinstance(count.value, int)):
                return _literal_shape(items)  # a repetition adds no dimension
        return 0, None
    if not isinstance(expr, (ast.List, ast.Tuple)):
        return 0, None
    if not expr.elts:
        return 1, "float64"
    inner = [_literal_shape(e) for e in expr.elts]
    if all(ndim == 0 for ndim, _ in inner):
        kinds = set()
        for element in expr.elts:
            value = element.value if isinstance(element, ast.Constant) else (
                -element.operand.value if isinstance(element, ast.UnaryOp) and isinstance(element.op, ast.USub)
                and isinstance(element.operand, ast.Constant) and isinstance(element.operand.value, (int, float, complex))
                else None)
            if isinstance(value, bool):
                kinds.add("boolean")
            elif isinstance(value, int):
                kinds.add("int64")
            elif isinstance(value, float):
                kinds.add("float64")
            elif isinstance(value, complex):
                kinds.add("complex128")
            else:
                return 0, None
        for dtype in ("complex128", "float64", "int64", "boolean"):
            if dtype in kinds:
                return 1, dtype
    if len({ndim for ndim, _ in inner}) != 1 or inner[0][0] == 0:
        return 0, None
    dtypes = {dtype for _, dtype in inner}
    dtype = next((d for d in ("complex128", "float64", "int64", "boolean") if d in dtypes), None)
    return inner[0][0] + 1, dtype


def _on_cuda(device: Optional[ast.expr]) -> bool:
    """A PyTorch device argument that names a CUDA device: ``"cuda"``, ``"cuda:0"``,
    ``torch.device("cuda", 1)``."""
    if isinstance(device, ast.Constant) and isinstance(device.value, str):
        return device.value.startswith("cuda")
    if isinstance(device, ast.Call) and device.args:
        return _on_cuda(device.args[0])
    return False


def _same_kind(left: str, right: str) -> bool:
    kinds = [("float" if d.startswith("float") else "complex" if d.startswith("complex")
              else "int") for d in (left, right)]
    return kinds[0] == kinds[1] or (kinds[0] == "int" and kinds[1] == "float")


# NumPy's ufuncs of one argument that give floats for integers (and keep a float's or a
# complex's type, those in _TO_REAL giving a complex's real type)
_UNARY_FLOAT = frozenset({
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "cbrt", "sin", "cos", "tan", "arcsin",
    "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "deg2rad", "rad2deg",
    "radians", "degrees", "floor", "ceil", "trunc", "rint", "abs", "absolute", "fabs", "real", "imag",
    "conj", "conjugate", "square", "negative", "sinc"})
_TO_REAL = frozenset({"abs", "absolute", "fabs", "real", "imag"})
_BINARY = frozenset({"maximum", "minimum", "fmax", "fmin", "power", "arctan2", "hypot", "add", "subtract",
                     "multiply", "divide", "true_divide", "copysign", "nextafter", "fmod", "mod", "remainder",
                     "floor_divide"})
# those of them that give floats for integers
_BINARY_FLOAT = frozenset({"arctan2", "hypot", "true_divide", "divide", "copysign", "nextafter"})


# scipy.special's ufuncs by their loops: real ones (f->f, d->d), those with complex loops too,
# those of an order and an argument (ff->f, dd->d, and complex arguments but yn/kn), and the
# functions giving the zeros of Bessel functions
_SPECIAL_REAL = frozenset({"j0", "j1", "y0", "y1", "i0", "i1", "i0e", "i1e", "k0", "k1", "k0e", "k1e", "erfinv",
                           "gammaln", "ndtri", "expit", "logit"})
_SPECIAL_COMPLEX = frozenset({"erf", "erfc", "erfcx", "gamma", "digamma", "psi", "ndtr"})
_SPECIAL_ORDER = frozenset({"jv", "yv", "iv", "kv", "jn", "jve", "yve", "ive", "kve", "yn", "kn"})
_SPECIAL_ZEROS = frozenset({"jn_zeros", "jnp_zeros", "yn_zeros", "ynp_zeros"})


def _shaped(dtype: str, arrays: List["ArrayType"]) -> Type:
    """A result of ``dtype`` in the broadcast rank of ``arrays`` (a number where there is none)."""
    if not arrays:
        return ScalarType(dtype)
    return ArrayType(dtype, max(a.ndim for a in arrays), "C", "host", "numpy")


def _result_type(kinds: Sequence[Type]) -> Optional[str]:
    """NumPy's result type of arrays and numbers together (a Python number takes an array's
    type where it is of the same kind: ``np.where(m, a32, 0.)`` is float32)."""
    arrays = [k for k in kinds if isinstance(k, ArrayType)]
    scalars = [k for k in kinds if isinstance(k, ScalarType)]
    if len(arrays) + len(scalars) != len(kinds):
        return None
    if any(k.dtype is None for k in kinds):
        return None
    if not all(numeric(k.dtype) for k in kinds):  # dates, strings, records: of one dtype only
        return kinds[0].dtype if len({k.dtype for k in kinds}) == 1 else None
    strong = [k.dtype for k in arrays] + [k.dtype for k in scalars if not k.weak]
    weak = [k for k in scalars if k.weak]
    if not strong:  # Python numbers alone
        strong, weak = [k.dtype for k in weak], []
    dtype = strong[0]
    for other in strong[1:]:
        dtype = _promote(dtype, other)
    for number in weak:
        dtype = _array_arithmetic(ast.Add(), ArrayType(dtype, 1), number).dtype
    return dtype


def _array_arithmetic(op: ast.operator, left: Type, right: Type) -> Type:
    """The array an arithmetic operator makes from an array and an array or a scalar, by
    NumPy 2's rules (a Python number takes the array's type where it is of the same kind);
    None where an operand is unknown, or is a numba device array (which has no arithmetic)."""
    arrays = [t for t in (left, right) if isinstance(t, ArrayType)]
    if any(a.library == "numba" or a.dtype is None or not numeric(a.dtype) for a in arrays):
        return None
    other = right if left is arrays[0] else left
    if isinstance(other, (ArrayType, ScalarType)) and other.dtype and not numeric(other.dtype):
        return None
    dtype = arrays[0].dtype
    # a rank not known stays unknown (its elements are still known)
    ndim = None if any(a.ndim is None for a in arrays) else max(a.ndim for a in arrays)
    if isinstance(other, ArrayType):
        dtype = _promote(left.dtype, right.dtype)
    elif isinstance(other, ScalarType):
        if other.weak:
            kinds = ("boolean", "int", "float", "complex")
            rank = {kind: number for number, kind in enumerate(kinds)}

            def kind_of(name: str) -> str:
                return next(k for k in reversed(kinds) if name.startswith(k) or name.startswith("u" + k))
            if rank[kind_of(other.dtype)] > rank[kind_of(dtype)]:
                dtype = {"int": "int64", "float": "float64", "complex": "complex128"}[kind_of(other.dtype)]
        else:
            dtype = _promote(dtype, other.dtype)
    else:
        return None
    if isinstance(op, ast.Div) and not dtype.startswith(("float", "complex")):
        dtype = "float64"
    if isinstance(op, (ast.BitAnd, ast.BitOr, ast.BitXor, ast.LShift, ast.RShift)) and dtype.startswith(
            ("float", "complex")):
        return None
    base = arrays[0]
    return ArrayType(dtype, ndim, "C", base.where, base.library)
