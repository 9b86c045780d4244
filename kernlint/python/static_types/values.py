"""The types of host values, as values: arrays (dtype, rank, layout, where they live),
scalars, tuples, and what only the host holds (lists, dicts, strings, functions, named-tuple
classes, optional and alternative types); their algebra (a list's item type as items are
appended, the type an array operation gives) and their spelling in a signature."""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from typing import Dict, FrozenSet, List, Optional, Sequence, Tuple, Union

from .dtypes import _promote, numeric
from ..syntax import walk_nodes


@dataclass(frozen=True)
class ArrayType:
    """An array; its dtype and rank may be unknown (None) while where it lives is known
    (``np.zeros(n)`` with ``n`` a parameter is a host array of unknown rank)."""

    dtype: Optional[str]
    ndim: Optional[int]
    layout: str = "C"  # C | F | A
    where: str = "host"  # host | device | mapped (pinned host memory counts as host)
    library: str = ""  # numpy | cupy | torch | numba ("" unknown): whose array object it is
    # a numba device array made on a stream of its own (`cuda.device_array(n, stream=s)`): its
    # setitem and element reads run on that stream and do not synchronize the default one
    stream: bool = False

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
    (``grids[m].E``). A list display also keeps each item's type in order (``items``: a
    function returning ``[img, h, w]``, read back as ``data[0]`` or unpacked); () where
    its items are not known one by one (grown, changed, a comprehension)."""

    item: "Type"
    items: Tuple["Type", ...] = ()

    def at(self, index: int) -> Tuple[bool, "Type"]:
        """(whether the display has an item at ``index``, its type there)."""
        if -len(self.items) <= index < len(self.items):
            return True, self.items[index]
        return False, None


@dataclass(frozen=True)
class DictType(_HostOnly):
    """A Python dict whose values share one type (``{'E': np.empty(...), 'B': ...}``, or a
    comprehension). ``value`` None: unknown. A literal with string keys also keeps each key's
    type (``keys``: a state dict of arrays, sizes and parameters, read back by key). Numba
    launches no dict: its values are (``buffers[kind]``, ``state["pos_x"]``)."""

    value: "Type"
    keys: Tuple[Tuple[str, "Type"], ...] = ()

    def at(self, key: str) -> Tuple[bool, "Type"]:
        """(whether the dict's literal has the key, the type of its value there)."""
        for name, kind in self.keys:
            if name == key:
                return True, kind
        return False, None


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
    ``[(species, 'x'), (species.ionizer, 'w')]``, or what calls pass for a shape of two or
    three sizes (``Lattice((nx, ny))``, ``Lattice((n, n, n))``). Read as a whole it is
    unknown; a ``getattr(pair[0], pair[1])`` of one of them, or an item every alternative
    has alike (``shape[0]``), is what every alternative gives; unpacking into ``k`` names
    (``nx, ny = shape``) takes the one alternative of ``k`` items."""

    kinds: FrozenSet["TupleType"]


@dataclass(frozen=True)
class Namespace(_HostOnly):
    """What ``parser.parse_args()`` gives: the options a parser declares, each with the type
    its ``add_argument`` says (``type=float``: a Python float; ``action="store_true"``: a
    bool); an option whose value reading cannot tell is None."""

    options: Tuple[Tuple[str, "Type"], ...]

    def option(self, name: str) -> "Type":
        return next((kind for option, kind in self.options if option == name), None)


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


@dataclass(frozen=True)
class Instances(_HostOnly):
    """An object of one of a few project classes, each (its file, its qualified name): the
    items of a list filled with objects of several classes (a network's layers). Read as a
    whole it is unknown; a method called on it runs one of theirs."""

    classes: FrozenSet[Tuple[str, str]]


@dataclass(frozen=True)
class ProjectClasses(_HostOnly):
    """A class of the project held as a value, not an object of it: ``Backend(DeviceOps)``,
    ``ops = DeviceOps if gpu else HostOps``; each (its file, its qualified name) it may be. A
    static or class method called through it (``ops.zip(fn)``) runs that class's."""

    classes: FrozenSet[Tuple[str, str]]


@dataclass(frozen=True)
class ProjectFunctions(_HostOnly):
    """A function of the project held as a value: what a factory returns (``self.mul =
    ops.zip(mul)``, the function nested in ``zip`` that it gives back); each (its file, its
    qualified name) it may be. Calling the value runs one of them."""

    functions: FrozenSet[Tuple[str, str]]


def held_code(kind) -> Tuple[Tuple[str, str], ...]:
    """(file, qualified name) of each project class or function a value may be (sorted)."""
    if isinstance(kind, ProjectClasses):
        return tuple(sorted(kind.classes))
    if isinstance(kind, ProjectFunctions):
        return tuple(sorted(kind.functions))
    return ()


def either_code(one, other):
    """A class (or function) held as a value that is one or the other: both of one kind, up to
    ``MAX_ALTERNATIVES`` of them; None otherwise."""
    if type(one) is not type(other) or not held_code(one):
        return None
    both = frozenset(held_code(one)) | frozenset(held_code(other))
    if len(both) > MAX_ALTERNATIVES:
        return None
    return type(one)(both)


def classes_of(kind) -> Tuple[Tuple[str, str], ...]:
    """(file, class) of each project class an object of ``kind`` may be: one for an object of
    a class, a few for :class:`Instances`, none for any other type."""
    if isinstance(kind, Instances):
        return tuple(sorted(kind.classes))
    one = instance_of(kind)
    return (one,) if one is not None else ()


def appended(kind: "ListType", item: "Type") -> "ListType":
    """The list after ``append(item)``: items of one type keep it; objects of several project
    classes are one of them (:class:`Instances`); any other makes it mixed. A grown list's
    items are no longer known one by one."""
    kind = replace(kind, items=()) if kind.items else kind
    if kind.item is None:
        return ListType(item if item is not None else MIXED)
    if kind.item != item and classes_of(kind.item) and classes_of(item):
        classes = frozenset(classes_of(kind.item)) | frozenset(classes_of(item))
        return ListType(Instances(classes) if len(classes) <= MAX_ALTERNATIVES else MIXED)
    if kind.item != item and held_code(kind.item) and held_code(item):  # {'gpu': DeviceOps, 'cpu': HostOps}
        either = either_code(kind.item, item)
        return ListType(either if either is not None else MIXED)
    if isinstance(kind.item, StrType) and isinstance(item, StrType):  # ['x', 'y']: a string of either
        return ListType(either_string(kind.item, item))
    if kind.item != item and isinstance(kind.item, (TupleType, OneOf)) and isinstance(item, (TupleType, OneOf)):
        # [(species, 'x'), (species.ionizer, 'w')]: pairs of either kind
        kinds = frozenset().union(*(k.kinds if isinstance(k, OneOf) else {k} for k in (kind.item, item)))
        return ListType(OneOf(kinds) if len(kinds) <= MAX_ALTERNATIVES else MIXED)
    return kind if kind.item == item else ListType(MIXED)


Type = Union[ArrayType, ScalarType, TupleType, ListType, DictType, StrType, FunctionRef, NamedTupleClass, Maybe,
             OneOf, Instances, ProjectClasses, ProjectFunctions, Opaque, Namespace, None]

# how many literal values a string keeps (more: any string)
MAX_STRINGS = 64


def strings(values: Optional[FrozenSet[str]]) -> StrType:
    """A string of these literal values; None or too many of them: any string."""
    return StrType(values if values is not None and len(values) <= MAX_STRINGS else frozenset())


def either_string(one: StrType, other: StrType) -> StrType:
    """A string that is one or the other (any string where either is)."""
    return strings(one.values | other.values if one.values and other.values else None)


def _not_none(kind: "Type") -> "Type":
    """What a value that may be None is where it is indexed or its attribute read: not None
    (there it would raise), so the value (``pml_t[m]`` under a test of ``pml_r is None`` only)."""
    return kind.value if isinstance(kind, Maybe) else kind


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
        items = unpacked_items(kind, len(target.elts))
        for index, element in enumerate(target.elts):
            yield from unpacked(element, items[index] if items else None)
    elif isinstance(target, (ast.Subscript, ast.Attribute)):
        return  # `energies[i] = v`, `obj.x = v`: an item or an attribute; no name is bound
    else:
        for node in walk_nodes(target):
            if isinstance(node, ast.Name):
                yield node.id, None


def unpacked_items(kind: "Type", count: int) -> Optional[Tuple["Type", ...]]:
    """The items a tuple of ``count`` names unpacks from ``kind``: a tuple's own; of one of
    tuples of different lengths (a shape of 2 or 3 sizes, ``OneOf``), those of the one with
    ``count`` items, since unpacking any other raises."""
    if isinstance(kind, TupleType):
        return kind.items if len(kind.items) == count else None
    if isinstance(kind, ListType) and kind.items:
        return kind.items if len(kind.items) == count else None  # `img, h, w = load(path)` of `[img, h, w]`
    if isinstance(kind, OneOf):
        fitting = {k.items for k in kind.kinds if len(k.items) == count}
        return fitting.pop() if len(fitting) == 1 else None
    return None


def signature(types: Sequence[Type]) -> Optional[str]:
    """``void(...)`` for a launch whose every argument's type is known; else None."""
    texts = []
    for value in types:
        text = value.text if value is not None else None
        if text is None:
            return None
        texts.append(text)
    return f"void({', '.join(texts)})"


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


# the array classes `isinstance` tests name, and the (library, where) of the arrays each holds:
# numba's mapped and managed arrays are NumPy arrays too, so a test of one stays undecided
_ARRAY_CLASSES = {
    "numpy.ndarray": ("numpy", "host"),
    "cupy.ndarray": ("cupy", "device"),
    "torch.Tensor": ("torch", None),
    "numba.cuda.cudadrv.devicearray.DeviceNDArray": ("numba", "device"),
    "numba.cuda.devicearray.DeviceNDArray": ("numba", "device"),
}


def is_array_instance(kind: "Type", classes: Sequence[Optional[str]]) -> Optional[bool]:
    """Whether ``isinstance(x, classes)`` holds of an array of this type: True or False where
    its library says and every class named is an array class above; None where either is not
    known (an array of unknown library, a mapped array, a class of the user's)."""
    if not isinstance(kind, ArrayType) or not kind.library or kind.where == "mapped" or not classes:
        return None
    if any(name not in _ARRAY_CLASSES for name in classes):
        return None
    return any(kind.library == library and where in (None, kind.where)
               for library, where in (_ARRAY_CLASSES[name] for name in classes))
