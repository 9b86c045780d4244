"""``TypeReader``: the type of an expression of host code, read off its syntax tree (names,
literals, arithmetic, subscripts, attributes and calls), with what the host reader knows of
the names it reads. The array libraries' calls are typed by ``library``."""

from __future__ import annotations

import ast
import json
from dataclasses import replace
from typing import Dict, List, Optional, Sequence, Tuple, Union

from .dtypes import (_ARRAY_MODULES, _FLOAT_ORDER, _literal_ints, _numpy_spelling, _promote, _same_kind,
                     _time_arithmetic, dtype_name, numeric)
from .library import IMAGE_READERS, _TORCH_FACTORIES, LibraryCalls, array_function
from .operators import OperatorNode, operator_calls
from .values import (MAX_ALTERNATIVES, MIXED, NONE, ArrayType, DictType, FunctionRef, Instances, ListType, Maybe,
                     NamedTupleClass, Namespace, OneOf, ProjectClasses, ScalarType, StrType, TupleType, Type,
                     _array_arithmetic, _items_of_one, _not_none, appended, classes_of, instance_of, is_array_instance,
                     named_tuple_class, strings, unpacked)


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


# what numpy/cupy functions named as values make when called (``alloc = np.empty``)
_MADE_BY_NAME = frozenset({"zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like", "full_like",
                           "array", "asarray", "ascontiguousarray", "asfortranarray"})
_CUDA_ALLOCATORS = frozenset({"device_array", "pinned_array", "mapped_array", "managed_array", "to_device",
                              "device_array_like", "pinned_array_like", "mapped_array_like"})


def _matmul(left: Type, right: Type) -> Type:
    """``a @ b`` of two arrays, by NumPy's rule: a vector's axis is contracted (1-d @ 1-d a
    number, 2-d @ 1-d a vector), stacks of matrices broadcast; the elements promoted. None
    for a number (NumPy refuses it) or an array of unknown elements or rank."""
    if not (isinstance(left, ArrayType) and isinstance(right, ArrayType)) or not left.ndim or not right.ndim:
        return None
    made = _array_arithmetic(ast.Mult(), left, right)  # the elements, as any arithmetic of the two
    if made is None:
        return None
    ndim = max(left.ndim, right.ndim) if min(left.ndim, right.ndim) > 1 else left.ndim + right.ndim - 2
    return replace(made, ndim=ndim, layout="C") if ndim else ScalarType(made.dtype)


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


def _new_axes(base: ArrayType, indices: List[ast.expr]) -> Type:
    """``a[..., None]``, ``a[:, None]``, ``a[None]``: a view with a new axis of length one for
    each ``None``; with whole slices and one ``...`` only, the data stay laid out as they were
    (an axis of length one breaks no contiguity). None for any other index."""
    whole = [i for i in indices if isinstance(i, ast.Slice) and i.lower is None and i.upper is None and i.step is None]
    added = sum(1 for i in indices if isinstance(i, ast.Constant) and i.value is None)
    ellipses = sum(1 for i in indices if isinstance(i, ast.Constant) and i.value is Ellipsis)
    if len(whole) + added + ellipses != len(indices) or ellipses > 1 or len(whole) > base.ndim:
        return None
    return replace(base, ndim=base.ndim + added)


def loop_bindings(target: ast.expr, iterable: ast.expr, reader: "TypeReader") -> List[Tuple[str, "Type"]]:
    """(name, type) a ``for`` loop or a comprehension binds: ``range(n)`` an int; a list of
    one type its items (``for m, grid in enumerate(grids)``, ``zip(grids, coefs)``, ``reversed(layers)``); a dict's
    ``items()`` / ``values()`` its values (keys not read); anything else unknown."""
    call = iterable if isinstance(iterable, ast.Call) and not iterable.keywords else None
    called = reader.dotted(call.func) if call is not None else None
    if called == "builtins.range":
        return list(unpacked(target, ScalarType("int64")))
    if called == "builtins.reversed" and len(call.args) == 1:  # the same items, last first
        return loop_bindings(target, call.args[0], reader)
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
    kind = _not_none(reader.type_of(iterable))  # iterating None raises: where the loop runs, the value
    item = kind.item if isinstance(kind, ListType) and kind.item is not MIXED else None
    if isinstance(kind, ArrayType) and kind.dtype and kind.ndim and kind.where == "host":
        # a NumPy array gives its rows (a 1-D one its elements, NumPy scalars)
        item = ScalarType(kind.dtype) if kind.ndim == 1 else replace(kind, ndim=kind.ndim - 1, layout=(
            "C" if kind.layout == "C" else "A"))
    return list(unpacked(target, item))


def list_growth(call: ast.expr, reader: "TypeReader") -> Optional[Tuple[ast.expr, "Type"]]:
    """``xs.append(v)`` / ``xs.extend(items)``: (the list grown, the type of each item it gains:
    ``v``'s, or what walking ``items`` gives, a 1-D NumPy array's elements its scalars); None
    for any other call."""
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and len(call.args) == 1
            and not call.keywords and call.func.attr in ("append", "extend")):
        return None
    if call.func.attr == "append":
        return call.func.value, reader.type_of(call.args[0])
    walked = dict(loop_bindings(ast.Name(id="_", ctx=ast.Store()), call.args[0], reader))
    return call.func.value, walked.get("_")


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


# the shape of an array of a rank reading does not know: a tuple of Python ints, of any length
# up to numba's most dimensions a program uses (unpacking into `k` names takes `k` of them)
ANY_SHAPE = OneOf(frozenset(TupleType((ScalarType("int64", weak=True),) * count) for count in range(1, 9)))


class TypeReader:
    """Types of expressions inside one function (or the module's top level).

    ``dotted(expr)`` names what an expression refers to (imports and aliases resolved);
    ``lookup(name)`` gives a local or module-level name's type; both come from the host
    reader, which walks the statements in order."""

    def __init__(self, dotted, lookup, attribute=None, member=None, construct=None, item=None, code=None,
                 attribute_dtype=None):
        self.dotted = dotted
        self.lookup = lookup
        self.attribute = attribute or (lambda expr: None)  # self.x -> its type
        # (an object of a project class, attribute name) -> the attribute's type
        self.member = member or (lambda obj, attr: None)
        # a call -> the object it makes, where it constructs a class of the project
        self.construct = construct or (lambda call: None)
        # `obj.attr["key"]` -> what the code stores at that literal key of that attribute
        self.item = item or (lambda expr: None)
        # a name (or `package.Name`) of a class of the project -> that class held as a value
        self.code = code or (lambda expr: None)
        # `self.x` / `cls.x` -> the name of the dtype the class stores there (`self.dtype = np.float32`)
        self.attribute_dtype = attribute_dtype or (lambda expr: None)
        # node -> its type, while one expression is read (`memoised`): an operator types its
        # operands for its method lookup and again for its arithmetic, which without this
        # doubles the work at every nesting level of a long expression
        self._known: Optional[Dict[ast.AST, Type]] = None

    def memoised(self) -> "TypeReader":
        """This reader remembering each node's type until ``forget()``: for several reads of
        one expression while nothing binds a name (its operators, one after another)."""
        if self._known is None:
            self._known = {}
        return self

    def forget(self) -> None:
        self._known = None

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
            if isinstance(inner, ArrayType):
                return inner.dtype  # (else `self.dtype`, an attribute naming one: below)
        if isinstance(expr, ast.Name):
            value = self.lookup(expr.id, want_dtype=True)
            if isinstance(value, str):
                return value
            held = self.lookup(expr.id)  # a parameter every call passes one dtype's name to
            if isinstance(held, StrType) and len(held.values) == 1:
                return dtype_name(next(iter(held.values)))
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id in ("self", "cls"):
            held = self.attribute_dtype(expr)  # `dtype=self.dtype`: the one dtype the class stores there
            if held is not None:
                return held
            held = self.type_of(expr)  # `self.dtype = "float32"`
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
        """The type of ``expr``; each of its sub-expressions typed once (nothing binds a name
        while one expression is typed)."""
        if expr is None:
            return None
        if self._known is not None:
            if expr not in self._known:
                self._known[expr] = self._type_of(expr)
            return self._known[expr]
        self._known = {}
        try:
            return self._type_of(expr)
        finally:
            self._known = None

    def _type_of(self, expr: ast.expr) -> Type:
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
                return self._library_function(expr) or self.code(expr)
            return value if not isinstance(value, str) else None
        if isinstance(expr, ast.Tuple):
            return TupleType(tuple(self.type_of(e) for e in expr.elts))
        if isinstance(expr, ast.List) and not any(isinstance(e, ast.Starred) for e in expr.elts):
            made = ListType(None)
            kinds = tuple(self.type_of(element) for element in expr.elts)
            for kind in kinds:
                made = appended(made, kind)
            return replace(made, items=kinds)
        if isinstance(expr, ast.Dict) and None not in expr.keys:  # (`**other` spreads unknown values)
            made = DictType(None)
            kinds = [self.type_of(value) for value in expr.values]
            for kind in kinds:
                made = DictType(appended(ListType(made.value), kind).item)
            if all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in expr.keys) and len(
                    {k.value for k in expr.keys}) == len(expr.keys):
                made = replace(made, keys=tuple((k.value, kind) for k, kind in zip(expr.keys, kinds)))
            return made
        if isinstance(expr, (ast.ListComp, ast.DictComp)):
            return self._comprehension(expr)
        if isinstance(expr, OperatorNode):
            made = self._operator(expr)  # `a + b` on a project class's object: what `__add__` returns
            if made is not None:
                return made
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
            # `cuda.to_device(a) if isinstance(a, np.ndarray) else a`: the side the array's class picks
            decided = self.array_test(expr.test)
            if decided is not None:
                return self.type_of(expr.body if decided else expr.orelse)
            body, orelse = self.type_of(expr.body), self.type_of(expr.orelse)
            if body == orelse:
                return body
            if classes_of(body) and classes_of(orelse):
                # `Naive(p) if naive else Voxel(p)`: an object of one of the two classes
                classes = frozenset(classes_of(body)) | frozenset(classes_of(orelse))
                return Instances(classes) if len(classes) <= MAX_ALTERNATIVES else None
            # `Accelerator(n) if gpu else None`: None or that value, as an `if` binding either reads
            sides = [kind for kind in (body, orelse) if kind != NONE]
            if len(sides) == 1 and sides[0] is not None and not isinstance(sides[0], Maybe):
                return Maybe(sides[0])
            return None
        return None

    def array_test(self, test: ast.expr) -> Optional[bool]:
        """Whether ``isinstance(a, np.ndarray)`` (``not``, a tuple of classes) holds of an array
        whose library is known; None for any other test."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = self.array_test(test.operand)
            return None if inner is None else not inner
        if not (isinstance(test, ast.Call) and self.dotted(test.func) == "builtins.isinstance"
                and len(test.args) == 2 and not test.keywords):
            return None
        named = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
        return is_array_instance(_not_none(self.type_of(test.args[0])), [self.dotted(n) for n in named])

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
            return _cupy_made(arrays, "boolean")
        return ArrayType("boolean", max(a.ndim for a in arrays), "C", arrays[0].where, arrays[0].library)

    def _operator(self, expr: ast.expr) -> Type:
        """What an operator gives where an operand is an object of a project class: what the
        method it calls returns (``a + b``: ``a.__add__(b)``, else ``b.__radd__(a)``)."""
        for call in operator_calls(expr):
            if instance_of(_not_none(self.type_of(call.func.value))) is not None:
                made = self.construct(call)
                if made is not None:
                    return made
        return None

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
                strong = right if left.weak and not right.weak else left if right.weak and not left.weak else None
                weak = left if strong is right else right
                if strong is not None and strong.dtype in _FLOAT_ORDER and not weak.dtype.startswith("complex"):
                    return ScalarType(strong.dtype)  # NumPy 2: `np.float32(x) / n` stays float32
                dtype = _promote(left.dtype, right.dtype)
                return ScalarType(dtype if dtype in _FLOAT_ORDER or dtype.startswith("complex") else "float64",
                                  weak=left.weak and right.weak)
            if left.weak and not right.weak and _same_kind(left.dtype, right.dtype):
                return ScalarType(right.dtype)
            if right.weak and not left.weak and _same_kind(left.dtype, right.dtype):
                return ScalarType(left.dtype)
            return ScalarType(_promote(left.dtype, right.dtype), weak=left.weak and right.weak)
        arrays = [k for k in (left, right) if isinstance(k, ArrayType)]
        if isinstance(expr.op, ast.MatMult):
            return _matmul(left, right) or _cupy_made(arrays)
        if arrays:
            return _array_arithmetic(expr.op, left, right) or _cupy_made(arrays)
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

        return TypeReader(self.dotted, lookup, self.attribute, self.member, self.construct, code=self.code,
                          attribute_dtype=self.attribute_dtype)

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
        keyed = keyed_item(expr, holders=("self", "cls"), keys=(str,))
        if keyed is not None and isinstance(expr.value, ast.Attribute):
            # `self.data["params"]`: what the class stores under that key (a dict of mixed values)
            value = self.attribute(ast.Attribute(value=expr.value.value, attr=keyed, ctx=ast.Load()))
            if value is not None:
                return value
        base = _not_none(self.type_of(expr.value))
        if isinstance(base, (DictType, ListType)) and isinstance(expr.value, ast.Attribute):
            stored = self.item(expr)  # `self.user_data["rng"]`: a dict of many kinds, one key's
            if stored is not None:
                return stored
        if isinstance(base, DictType):
            if isinstance(expr.slice, ast.Constant) and isinstance(expr.slice.value, str) and base.keys:
                return base.at(expr.slice.value)[1]  # `state["pos_x"]` of a literal with that key
            return base.value if base.value is not MIXED else None
        if isinstance(base, ListType):
            if isinstance(expr.slice, ast.Slice):
                return replace(base, items=())
            if base.items and isinstance(expr.slice, ast.Constant) and type(expr.slice.value) is int:
                return base.at(expr.slice.value)[1]  # `data[0]` of `[img, h, w]`
            return base.item if base.item is not MIXED else None
        if base == ANY_SHAPE and isinstance(expr.slice, ast.Constant) and isinstance(expr.slice.value, int):
            return ScalarType("int64", weak=True)  # a size of an array of a rank reading does not know
        if isinstance(base, (TupleType, OneOf)) and isinstance(expr.slice, ast.Constant) and isinstance(
                expr.slice.value, int):
            alternatives = base.kinds if isinstance(base, OneOf) else [base]
            try:
                found = {k.items[expr.slice.value] for k in alternatives}
            except IndexError:
                return None
            return found.pop() if len(found) == 1 else None
        if not isinstance(base, ArrayType):
            return None
        indices = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
        if base.ndim is None:
            # a slice keeps an axis, so `b[:, 0]` is an array of b's elements whatever b's rank
            sliced = any(isinstance(i, ast.Slice) for i in indices) and all(isinstance(i, ast.Slice) or (
                isinstance(kind := self.type_of(i), ScalarType) and kind.dtype.startswith(("int", "uint")))
                for i in indices)
            return replace(base, layout="A") if sliced else None
        if any(isinstance(i, ast.Constant) and i.value in (None, Ellipsis) for i in indices):
            return _new_axes(base, indices)
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
            # whatever holds it: a count, unless it is an object whose class stores that name
            # (`self.size = np.array([n, m])`, a shape)
            owner = _not_none(self.type_of(expr.value))
            stored = self.member(owner, expr.attr) if instance_of(owner) is not None else None
            return stored if stored is not None else ScalarType("int64")
        if expr.attr in _FLOAT_CONSTANTS and (self.dotted(expr) or "").rpartition(".")[0] in (
                "numpy", "cupy", "math") or _physical_constant(self.dotted(expr)):
            return ScalarType("float64", weak=True)  # np.pi, math.inf, scipy.constants.c: Python floats
        if self.dotted(expr) == "scipy.constants.physical_constants":
            return _PHYSICAL_CONSTANTS
        base = _not_none(self.type_of(expr.value))
        if instance_of(base) is not None or isinstance(base, ProjectClasses):
            return self.member(base, expr.attr)
        if isinstance(base, Namespace):  # `args.dt` of `args = parser.parse_args()`
            return base.option(expr.attr)
        if isinstance(base, TupleType) and base.named is not None and expr.attr in base.named.fields:
            return base.items[base.named.fields.index(expr.attr)]
        if isinstance(base, ArrayType):
            if expr.attr == "T":
                if base.ndim is None:
                    return replace(base, layout="A")
                layout = {"C": "F", "F": "C"}.get(base.layout, "A") if base.ndim > 1 else base.layout
                return replace(base, layout=layout)
            if expr.attr == "shape" and base.ndim is not None:  # Python ints: NumPy arithmetic keeps its dtype
                return TupleType(tuple(ScalarType("int64", weak=True) for _ in range(base.ndim)))
            if expr.attr == "shape":
                return ANY_SHAPE
            if expr.attr in ("real", "imag") and base.dtype and base.dtype.startswith("complex"):
                return replace(base, dtype="float32" if base.dtype == "complex64" else "float64", layout="A")
        if base is None:
            found = self._library_function(expr) or self.code(expr)
            if found is None and expr.attr == "shape" and not self.dotted(expr.value):
                # what reading cannot type, read for its shape: an array's (NumPy's, CuPy's, a
                # device array's, a tensor's), whose sizes are Python ints, however many
                return ANY_SHAPE
            return found
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
            made = LibraryCalls(self).array_constructor(module, function, expr, keywords, where)
            if made is None and where == "device" and array_function(function):
                # CuPy's ufuncs and reductions give a CuPy array (0-d for a whole reduction), whatever
                # its elements are
                made = ArrayType(None, None, "C", where)
            return replace(made, library="cupy" if where == "device" else "numpy") if isinstance(
                made, ArrayType) and made.where == where else made
        if module in ("numpy.linalg", "cupy.linalg") and function in ("inv", "pinv") and len(expr.args) == 1:
            return LibraryCalls(self).inverse(expr.args[0], "device" if module.startswith("cupy") else "host")
        if module == "scipy.special" and not expr.keywords:
            return LibraryCalls(self).special(function, expr)
        if module == "torch" and function in _TORCH_FACTORIES:
            return LibraryCalls(self).torch_factory(function, expr, keywords)
        if name in IMAGE_READERS or module == "cv2":
            return LibraryCalls(self).image(name, expr)
        if name.startswith("skimage."):
            return LibraryCalls(self).scikit_image(name, expr)
        if name.startswith("numba.cuda."):
            made = LibraryCalls(self).cuda_call(function, expr, keywords)
            if made is None:
                return self.construct(expr)  # numba-cuda's own classes, read (an array wrapper)
            return replace(made, library="numba" if made.where != "host" else "numpy") if isinstance(
                made, ArrayType) else made
        if name in ("collections.namedtuple", "typing.NamedTuple"):
            return named_tuple_class(expr, function)
        if module == "builtins":  # Python numbers: weak in NumPy arithmetic (`a_f32 / float(n)` stays float32)
            if function in ("float",):
                return ScalarType("float64", weak=True)
            if function in ("int", "len", "round") and not (function == "round" and len(expr.args) > 1):
                return ScalarType("int64", weak=True)
            if function == "bool":
                return ScalarType("boolean", weak=True)
            if function == "complex":
                return ScalarType("complex128", weak=True)
            if function == "str":
                return StrType()
            if function == "tuple" and not expr.keywords and len(expr.args) <= 1:  # `tuple()`, `tuple(t)`
                made = self.type_of(expr.args[0]) if expr.args else TupleType(())
                return TupleType(made.items) if isinstance(made, TupleType) else None  # a named one: plain
            if function == "getattr" and len(expr.args) == 2:
                return self._getattr(expr)
            if function == "dict" and not expr.args and not expr.keywords:
                return DictType(None)  # an empty dict, as `{}`
            if function in ("min", "max", "abs") and not expr.keywords and expr.args:
                return self._picked_number(function, expr.args)
            return None
        if name in ("copy.copy", "copy.deepcopy") and len(expr.args) == 1:
            return self.type_of(expr.args[0])  # a copy is of the type of what it copies
        if module in ("math", "random") and not expr.keywords:  # Python numbers whatever they are given
            for dtype, functions in (_MATH_RESULTS if module == "math" else _RANDOM_RESULTS).items():
                if function in functions:
                    return ScalarType(dtype, weak=True)
            return None
        if module in _ARRAY_MODULES and dtype_name(function):
            return ScalarType(dtype_name(function))
        if module == "numba" and dtype_name(function) and len(expr.args) == 1 and not expr.keywords \
                and isinstance(self.type_of(expr.args[0]), ScalarType):
            return ScalarType(dtype_name(function))  # `numba.int64(nx)` of a number (not a type: a signature)
        if isinstance(expr.func, ast.Attribute):
            made = LibraryCalls(self).method(expr, keywords)
            if made is not None:
                return made
        return self.construct(expr)

    def _picked_number(self, function: str, args: List[ast.expr]) -> Type:
        """``min(dx, dy)``, ``max(values)`` of a tuple or list, ``abs(x)``: Python gives back one
        of the numbers it is given as it is (``abs`` of a complex number its magnitude), so the
        type they share; None where they differ (``min(1, 2.5)`` is either)."""
        if function == "abs":
            if len(args) != 1:
                return None
            kind = self.type_of(args[0])
            if isinstance(kind, ScalarType) and kind.dtype.startswith("complex"):
                return ScalarType("float32" if kind.dtype == "complex64" else "float64", weak=kind.weak)
            return kind if isinstance(kind, ScalarType) else None
        kinds: List[Type] = [self.type_of(arg) for arg in args]
        if len(args) == 1:
            held = kinds[0]
            kinds = list(held.items) if isinstance(held, TupleType) and held.named is None else (
                [held.item] if isinstance(held, ListType) else [None])
        if not kinds or not all(isinstance(kind, ScalarType) for kind in kinds):
            return None
        if len({kind.dtype for kind in kinds}) != 1:
            return None
        return ScalarType(kinds[0].dtype, weak=all(kind.weak for kind in kinds))

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


# what the math module's functions return: a Python float (or int, or bool) whatever number
# they are given, a NumPy scalar included (`math.cos(np.float32(x))` is a float)
_MATH_RESULTS = {
    "float64": frozenset({"sqrt", "cbrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "pow", "sin",
                          "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh",
                          "atanh", "hypot", "fabs", "degrees", "radians", "copysign", "fmod", "erf", "erfc",
                          "gamma", "lgamma", "fsum", "ldexp", "remainder", "dist"}),
    "int64": frozenset({"floor", "ceil", "trunc", "isqrt", "factorial", "gcd", "lcm", "comb", "perm"}),
    "boolean": frozenset({"isnan", "isinf", "isfinite", "isclose"}),
}

# what Python's random module draws: ints and floats
_RANDOM_RESULTS = {
    "int64": frozenset({"randint", "randrange", "getrandbits"}),
    "float64": frozenset({"random", "uniform", "gauss", "normalvariate", "lognormvariate", "expovariate",
                          "betavariate", "gammavariate", "triangular", "vonmisesvariate", "paretovariate",
                          "weibullvariate"}),
}


def keyed_item(expr: ast.expr, holders: Optional[Tuple[str, ...]] = None,
               keys: Tuple[type, ...] = (str, int)) -> Optional[str]:
    """``obj.data["params"]`` / ``obj.parts[0]``, a literal key of a dict or list kept on an
    object a name holds (one of ``holders`` where given): the name its value is kept under
    among the object's attributes (``data['params']``); None for anything else."""
    if not (isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Attribute)
            and isinstance(expr.value.value, ast.Name) and (holders is None or expr.value.value.id in holders)
            and isinstance(expr.slice, ast.Constant) and type(expr.slice.value) in keys):
        return None
    return f"{expr.value.attr}[{expr.slice.value!r}]"


def _cupy_made(arrays, dtype: Optional[str] = None) -> Type:
    """What an operator on a CuPy array gives where its elements or rank are unknown: a CuPy
    array all the same (CuPy's operators never give anything else)."""
    cupy = [a for a in arrays if a.where == "device" and a.library == "cupy"]
    return ArrayType(dtype, None, "C", "device", "cupy") if cupy else None
