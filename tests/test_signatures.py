"""Signatures for lazy kernels: launch sites, recorded runs, the kernel body; each with its source."""
import ast
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from conftest import FIXTURES, ROOT
from kernlint.python.host import reader as host_reader
from kernlint.python.project import Project
from kernlint.python.host.docstrings import NamedClass, documented_types
from kernlint.python.host.branches import DEAD, agreed_type, narrowed, same_type
from kernlint.python.host.functions import memoized_returns, returned_type
from kernlint.python.static_types import (NONE, ArrayType, FunctionRef, Maybe, OneOf, ScalarType, StrType, TupleType,
                                       TypeReader)
from kernlint.python.signatures.recorded import read_recorded, write_recorded

LAZY = FIXTURES / "lazy" / "lazyproj"


def type_text(source, **names):
    """The type of the last expression of ``source`` after its assignments run in order."""
    tree = ast.parse(textwrap.dedent(source))
    env = {}
    imports = {"np": "numpy", "numpy": "numpy", "cp": "cupy", "cuda": "numba.cuda", "numba": "numba",
               "special": "scipy.special", "constants": "scipy.constants",
               "create_xoroshiro128p_states": "numba.cuda.random.create_xoroshiro128p_states",
               "namedtuple": "collections.namedtuple", "NamedTuple": "typing.NamedTuple"}

    def dotted(expr):
        if isinstance(expr, ast.Attribute):
            base = dotted(expr.value)
            return f"{base}.{expr.attr}" if base else None
        if isinstance(expr, ast.Name):
            if expr.id in imports:
                return imports[expr.id]
            if expr.id in ("float", "int", "len", "bool", "range", "complex", "str", "tuple", "min", "max", "abs"):
                return f"builtins.{expr.id}"
        return None

    def lookup(name, want_dtype=False):
        value = env.get(name, names.get(name))
        return value if isinstance(value, str) == want_dtype else None

    reader = TypeReader(dotted, lookup)
    for statement in tree.body[:-1]:
        target = statement.targets[0]
        kind = reader.type_of(statement.value)
        if kind is None and reader.dtype(statement.value):
            kind = reader.dtype(statement.value)
        if isinstance(target, ast.Tuple):
            for element, item in zip(target.elts, kind.items):
                env[element.id] = item
        else:
            env[target.id] = kind
    kind = reader.type_of(tree.body[-1].value)
    return None if kind is None else (kind.text, getattr(kind, "where", ""))


@pytest.mark.parametrize("source, expected", [
    ("np.zeros(10)", ("float64[::1]", "host")),
    ("np.zeros((4, 5), dtype=np.float32)", ("float32[:, ::1]", "host")),
    ("np.zeros((4, 5), order='F')", ("float64[::1, :]", "host")),
    ("np.ones(8, 'int32')", ("int32[::1]", "host")),
    ("np.empty(8, dtype='f4')", ("float32[::1]", "host")),
    ("np.full(8, 7)", ("int64[::1]", "host")),
    ("np.full((2, 2), 1.5, dtype=np.float32)", ("float32[:, ::1]", "host")),
    ("np.full(1, fill_value=np.nan)", ("float64[::1]", "host")),
    ("np.pi", ("float64", "")),
    ("np.arange(10)", ("int64[::1]", "host")),
    ("np.arange(0.0, 1.0, 0.1)", ("float64[::1]", "host")),
    ("np.linspace(0, 1, 5)", ("float64[::1]", "host")),
    ("np.array([1, 2, 3])", ("int64[::1]", "host")),
    ("np.array([[1.0, 2.0], [3.0, 4.0]])", ("float64[:, ::1]", "host")),
    ("np.asarray([1, 2], dtype=np.uint8)", ("uint8[::1]", "host")),
    ("np.random.rand(3, 4)", ("float64[:, ::1]", "host")),
    ("np.random.randint(0, 10, size=100)", ("int64[::1]", "host")),
    ("rng = np.random.default_rng(0)\nrng.random(100, dtype=np.float32)", ("float32[::1]", "host")),
    ("a = np.zeros(8)\na.astype(np.int16)", ("int16[::1]", "host")),
    ("a = np.zeros(8)\ncuda.to_device(a)", ("float64[::1]", "device")),
    ("cuda.device_array((3, 3), dtype=np.float32)", ("float32[:, ::1]", "device")),
    ("cuda.device_array(3)", ("float64[::1]", "device")),
    ("a = np.zeros(8, np.int32)\ncuda.device_array_like(a)", ("int32[::1]", "device")),
    ("cuda.pinned_array(16, dtype=np.float32)", ("float32[::1]", "host")),
    ("cuda.mapped_array(16, dtype=np.float32)", ("float32[::1]", "mapped")),
    ("cp.zeros(16, dtype=cp.float32)", ("float32[::1]", "device")),
    ("a = np.ones(9)\ncp.asarray(a)", ("float64[::1]", "device")),
    ("a = np.zeros((4, 4))\na[1:]", ("float64[:, ::1]", "host")),
    # NumPy flattens without an axis: one dimension, of whatever it was given (a list the code builds too),
    # its elements dtype's, else a sum's (small integers widened)
    ("np.cumsum(values, dtype=np.float32)", ("float32[::1]", "host")),
    ("np.cumsum(np.zeros((3, 4), np.int16))", ("int64[::1]", "host")),
    ("np.cumsum(np.zeros((3, 4), np.float32), axis=0)", ("float32[:, ::1]", "host")),
    ("np.zeros((3, 4), np.uint8).cumprod()", ("uint64[::1]", "host")),
    ("cp.cumsum(cp.zeros((3, 4), cp.float32))", ("float32[::1]", "device")),
    ("np.ravel(np.zeros((3, 4), np.float32))", ("float32[::1]", "host")),
    ("a = np.zeros((4, 4))\na[1]", ("float64[::1]", "host")),
    ("a = np.zeros(16)\na.reshape(4, 4)", ("float64[:, ::1]", "host")),
    ("a = np.zeros(16)\na.reshape((2, 2, 4))", ("float64[:, :, ::1]", "host")),
    ("a = np.zeros((4, 8))\na.T", ("float64[::1, :]", "host")),
    ("a = np.zeros((4, 8))\nb = a\nb.ravel()", ("float64[::1]", "host")),
    ("d = cuda.to_device(np.zeros(4))\nd.copy_to_host()", ("float64[::1]", "host")),
    ("a, b = np.zeros(3), np.ones(3, dtype=np.int8)\nb", ("int8[::1]", "host")),
    ("3", ("int64", "")),
    ("2.5", ("float64", "")),
    ("True", ("boolean", "")),
    ("np.float32(1.5)", ("float32", "")),
    ("np.float32(1.5) * 2.0", ("float32", "")),
    ("n = 10\nn // 3", ("int64", "")),
    ("n = 10\nn / 3", ("float64", "")),
    ("a = np.zeros(4)\na.size", ("int64", "")),
    ("DTYPE = np.float32\nnp.zeros(4, dtype=DTYPE)", ("float32[::1]", "host")),
    ("np.zeros(n)", (None, "host")),  # n unknown (an int or a tuple): no type, but a host array
    ("cuda.to_device(x)", (None, "device")),
    ("d.copy_to_host()", (None, "host")),
    # array arithmetic by NumPy 2's rules: a Python number takes the array's type within its kind
    ("a = np.zeros(4)\na + 1", ("float64[::1]", "host")),
    ("np.arange(10, dtype=np.float32) - 5", ("float32[::1]", "host")),
    ("np.arange(10, dtype=np.float32) * 2.0", ("float32[::1]", "host")),
    ("np.zeros(4, np.int32) / 2", ("float64[::1]", "host")),
    ("np.zeros(4, np.int32) * 1.5", ("float64[::1]", "host")),
    ("np.zeros(4, np.float32) + np.zeros((3, 4))", ("float64[:, ::1]", "host")),
    ("np.zeros(4, np.float32) * np.float64(2)", ("float64[::1]", "host")),
    ("-np.zeros(3, np.int8)", ("int8[::1]", "host")),
    ("cp.zeros(4, dtype=cp.float32) * 2", ("float32[::1]", "device")),
    ("cuda.device_array(4) * 2", None),  # numba's device arrays have no arithmetic
    ("(1, 2.5, np.zeros(3))", ("Tuple((int64, float64, float64[::1]))", "")),  # as numba's signatures spell it
    ("(1, 2)", ("UniTuple(int64, 2)", "")),
    ("()", ("Tuple(())", "")),
    ("np.zeros(n) + 1", (None, "host")),  # rank unknown: a host array with no numba type
    ("np.zeros(())", ("Array(float64, 0, 'C')", "host")),  # 0-d: numba's [...] spelling has none
    ("cp.empty(nz * (nr + 1), dtype=np.int32)", ("int32[::1]", "device")),  # arithmetic on counts: a count
    ("np.zeros(shape + (3,))", (None, "host")),  # a tuple: rank unknown
    ("cuda.to_device([0] * 100)", ("int64[::1]", "device")),  # a repeated list: its elements, one dimension
    ("np.zeros(4, dtype=str(np.int16))", ("int16[::1]", "host")),  # str() of a dtype names it
    ("create_xoroshiro128p_states(64, seed=1)", ("xoroshiro128p[::1]", "device")),
    ("f(3)", None),
    # NumPy's element-wise functions, comparisons, np.where and np.meshgrid, by NumPy's result types
    ("np.exp(1j * np.arange(8))", ("complex128[::1]", "host")),
    ("np.sin(np.arange(8))", ("float64[::1]", "host")),  # integers give floats
    ("np.sqrt(np.zeros((2, 3), dtype=np.float32))", ("float32[:, ::1]", "host")),
    ("np.abs(np.zeros(4, dtype=np.complex64))", ("float32[::1]", "host")),
    ("np.exp(2.0)", ("float64", "")),
    ("np.maximum(np.zeros(4, dtype=np.float32), 0.)", ("float32[::1]", "host")),
    ("np.arctan2(np.arange(3), np.arange(3))", ("float64[::1]", "host")),
    ("cells = np.arange(8)\ncells < 2", ("boolean[::1]", "host")),
    ("cells = np.arange(8)\nnp.where(cells < 2, 0., np.sin(cells) ** 2)", ("float64[::1]", "host")),
    ("np.where(np.zeros(3, dtype=np.float32) > 0, np.zeros(3, dtype=np.float32), 1.)", ("float32[::1]", "host")),
    ("kz, kr = np.meshgrid(np.linspace(0, 1, 4), np.arange(3), indexing='ij')\nkr", ("int64[:, ::1]", "host")),
    ("kz, kr = np.meshgrid(np.linspace(0, 1, 4), np.arange(3), indexing='ij')\nkz", ("float64[:, ::1]", "host")),
    ("cp.exp(cp.zeros(4))", ("float64[::1]", "device")),
    ("np.exp(cp.zeros(4))", None),  # NumPy's function on a CuPy array: where it lives is CuPy's to say
    ("np.exp(x)", None),
    ("np.exp(np.zeros(4), out=y)", None),
    ("n = 3\nn < 4", ("boolean", "")),
    # dicts of buffers, comprehensions with their loop variables typed, functions named as values
    ("buffers = {'E': np.zeros((2, 3), dtype=np.complex128), 'B': np.ones((2, 3), dtype=np.complex128)}\n"
     "buffers[kind]", ("complex128[:, ::1]", "host")),
    ("{'E': np.zeros(3), 'B': np.zeros(3, np.int8)}['E']", ("float64[::1]", "host")),  # a literal key: its value
    ("{'E': np.zeros(3), 'B': np.zeros(3, np.int8)}[k]", None),  # values of two types at a computed key: unknown
    ("host = {'E': np.zeros(3)}\ngpu = {k: cp.asarray(v) for k, v in host.items()}\ngpu['E']",
     ("float64[::1]", "device")),
    ("grids = [cp.zeros((4, 4)) * m for m in range(3)]\ngrids[0]", ("float64[:, ::1]", "device")),
    ("alloc = np.empty\nalloc((2, 3), dtype=np.float32)", ("float32[:, ::1]", "host")),
    ("alloc = cuda.pinned_array\nalloc(4, dtype=np.int32)", ("int32[::1]", "host")),
    ("dtype = 'float' + '32'\nnp.zeros(3, dtype=dtype)", ("float32[::1]", "host")),  # a string naming a dtype
    ("cp.argsort(cp.zeros((3, 4)))", ("int64[:, ::1]", "device")),  # indices, in the array's shape
    ("np.nextafter(np.float32(2.0 ** 127), np.float32(np.inf))", ("float32", "")),
    ("np.array([np.nextafter(np.float32(1.), np.float32(2.))], dtype=np.float32)", ("float32[::1]", "host")),
    ("np.copysign(np.arange(3), 1)", ("float64[::1]", "host")),  # integers give floats
    ("a = np.zeros(3, dtype=np.float32)\nnp.array([a, a])", ("float32[:, ::1]", "host")),  # arrays stacked
    ("n = 3\nnp.array([n, 2.5])", ("float64[::1]", "host")),
    ("values = [10, 20, 30]\nnp.array(values, dtype=np.int32)", ("int32[::1]", "host")),  # a list by name
    ("values = [1.5, 2.5]\nnp.array(values)", ("float64[::1]", "host")),
    ("np.array([x, 1])", (None, "host")),  # an unknown item: its rank is unknown too
    ("np.fmod(np.arange(3), 2)", ("int64[::1]", "host")),
    ("np.argsort(np.zeros((3, 4)), axis=None)", ("int64[::1]", "host")),
    # nested list displays: one dimension per level, rows of one length; numbers computed too
    ("a = 0.3\nnp.array([[1, 0], [0, np.cos(a)]])", ("float64[:, ::1]", "host")),
    ("np.array([[1, 2], [3, 4]], dtype=np.float32)", ("float32[:, ::1]", "host")),
    ("a = np.zeros(3, np.float32)\nnp.array([[a, a], [a, a]])", ("float32[:, :, ::1]", "host")),
    ("a = 0.3\nnp.array([[1, 0], [np.cos(a)]])", (None, "host")),  # ragged: NumPy refuses it
    ("np.array([[1, 0], [0, x]])", (None, "host")),
    # the matrix product contracts a vector's axis
    ("np.zeros((3, 3)) @ np.zeros((3, 3), np.float32)", ("float64[:, ::1]", "host")),
    ("np.zeros((3, 3), np.float32) @ np.zeros(3, np.float32)", ("float32[::1]", "host")),
    ("np.zeros(3) @ np.zeros(3)", ("float64", "")),
    ("np.zeros((2, 3, 3)) @ np.zeros((3, 3))", ("float64[:, :, ::1]", "host")),
    ("np.zeros((3, 3)) @ 2.0", None),  # NumPy refuses a number
    # min, max and abs give back one of the numbers they are given: the type those share
    ("a = np.zeros(2)\nmin(a[0], a[1])", ("float64", "")),
    ("max((3, 4, 5))", ("int64", "")),
    ("abs(np.complex64(1j))", ("float32", "")),
    ("min(1, 2.5)", None),  # either, as the values decide
    # NumPy 2: a Python number divides a float scalar into its own type; integers into float64
    ("np.float32(3.0) / 2", ("float32", "")),
    ("2.5 / np.float32(3.0)", ("float32", "")),
    ("np.int32(3) / 2", ("float64", "")),
    # arrays read from files or buffers: flat, of the dtype named (float64 by default)
    ("np.fromfile('model.bin', dtype='float32')", ("float32[::1]", "host")),
    ("np.frombuffer(data)", ("float64[::1]", "host")),
    ("max(np.zeros(3))", None),  # an array's elements: not read here
])
def test_host_value_types(source, expected):
    assert type_text(source) == expected


def test_a_call_of_one_of_several_functions_is_what_they_all_make():
    """`alloc` is `cuda.pinned_array` on one side of an `if` and `np.empty` on the other: both
    make the same host array; `np.empty` or `cp.empty` do not agree on where it lives."""
    pinned_or_numpy = FunctionRef(("numba.cuda.pinned_array", "numpy.empty"))
    assert type_text("alloc(4, dtype=np.int32)", alloc=pinned_or_numpy) == ("int32[::1]", "host")
    assert type_text("alloc(4, dtype=np.int32)", alloc=FunctionRef(("numpy.empty", "cupy.empty"))) is None


@pytest.mark.parametrize("written, expected", [
    ("float", ScalarType("float64")),
    ("int, optional", ScalarType("int64")),
    ("float, seconds", ScalarType("float64")),  # a unit after the type
    ("float (zmin, optional)", ScalarType("float64")),
    ("bool", ScalarType("boolean")),
    ("np.float32", ScalarType("float32")),
    ("int32, optional", ScalarType("int32")),
    ("1darray of float", ArrayType("float64", 1, "C", "", "")),
    ("2darray of complex", ArrayType("complex128", 2, "C", "", "")),
    ("1D array of ints", ArrayType("int64", 1, "C", "", "")),
    ("ndarray of float, shape (nz, nr)", ArrayType("float64", 2, "C", "", "")),
    ("(n, 3) ndarray of int", ArrayType("int64", 2, "C", "", "")),
    ("np.ndarray of float32 with shape (n,)", ArrayType("float32", 1, "C", "", "")),
    ("float or None", Maybe(ScalarType("float64"))),  # None or a number: narrowed by `is None`
    ("None or float", Maybe(ScalarType("float64"))),
    ("Optional[int]", Maybe(ScalarType("int64"))),
    ("2darray of complex, or None, optional", Maybe(ArrayType("complex128", 2, "C", "", ""))),
    ("float or array or None", None),
    ("lists of 2darrays, or None", None),
    ("int or float", None),  # alternatives: no one type
    ("float, ndarray", None),
    ("array_like", None),
    ("ndarray", None),  # no elements said
    ("1darray", None),
    ("lists of 2darrays", None),
    ("an fbpic Species object", NamedClass("Species")),  # a class of the project, found by its name
    ("a Fields object", NamedClass("Fields")),
    ("an instance of :any:`BinomialSmoother`, optional", NamedClass("BinomialSmoother")),
    ("an pkg.fields.SpectralGrid corresponding to one mode", NamedClass("SpectralGrid")),
    ("a BoostConverter object or None", Maybe(NamedClass("BoostConverter"))),
    ("String, key of the species dict", None),
    ("str", None),
])
def test_a_docstring_says_a_parameter_type(written, expected):
    function = ast.parse(f'''
def f(a, b):
    """Do it.

    Parameters:
    -------------
    a, b : {written}
        What it is.
    """
''').body[0]
    assert documented_types(function) == ({"a": expected, "b": expected} if expected else {})


@pytest.mark.parametrize("docstring", [
    "Do it.\n\n    Args:\n        n (int): how many.\n",  # Google
    "Do it.\n\n    :param n: how many.\n    :type n: int\n",  # reST
    "Do it.\n\n    Parameters\n    ----------\n    n : int\n        How many.\n",  # numpydoc
    "Do it.\n\n    Parameter\n    ----------\n    n : int\n        How many.\n",  # a singular title
])
def test_docstring_styles_are_read_alike(docstring):
    function = ast.parse(f'def f(n):\n    """{docstring}    """\n').body[0]
    assert documented_types(function) == {"n": ScalarType("int64")}


@pytest.mark.parametrize("source, expected", [
    ("-e", ScalarType("float64", weak=True)),  # `from scipy.constants import e`: a Python float
    ("c ** 2", ScalarType("float64", weak=True)),
    ("constants.m_e", ScalarType("float64", weak=True)),
    ("constants.physical_constants['classical electron radius'][0]", ScalarType("float64", weak=True)),
    ("constants.physical_constants['classical electron radius'][1]", StrType()),
    ("constants.value", None),
])
def test_physical_constants_are_floats(source, expected):
    names = {"e": "scipy.constants.e", "c": "scipy.constants.c", "constants": "scipy.constants"}

    def dotted(expr):
        if isinstance(expr, ast.Attribute):
            base = dotted(expr.value)
            return f"{base}.{expr.attr}" if base else None
        return names.get(expr.id) if isinstance(expr, ast.Name) else None

    reader = TypeReader(dotted, lambda name, want_dtype=False: None)
    assert reader.type_of(ast.parse(source).body[0].value) == expected


def test_objects_lists_and_their_attributes():
    """`grids = [Grid(n) for m in range(k)]`, `grids.append(Grid(n))`, `grids[m].E`: the
    reader asks the host reader for what a project class's objects hold (`member`) and
    what a call of the project's code makes (`construct`)."""
    from kernlint.python.static_types import MIXED, ListType, appended, instance, instance_of

    grid = instance("/p/grid.py", "Grid")
    assert instance_of(grid) == ("/p/grid.py", "Grid") and instance_of(ScalarType("int64")) is None
    env = {}
    members = {"E": ArrayType("complex128", 2, "C", "device", "cupy")}
    reader = TypeReader(lambda e: None, lambda name, want_dtype=False: None if want_dtype else env.get(name),
                        member=lambda obj, attr: members.get(attr) if obj == grid else None,
                        construct=lambda call: grid if ast.unparse(call.func) == "Grid" else None)

    def kind(source):
        return reader.type_of(ast.parse(source).body[0].value)

    env["grids"] = kind("[Grid(n, m) for m in range(4)]")
    assert env["grids"] == ListType(grid)  # the loop's variable does not make an object another
    assert kind("[x[m] for m in range(4)]") == ListType(None)  # an outer `x` is not the loop's
    assert kind("grids[2].E").text == "complex128[:, ::1]"
    assert kind("grids[1:]") == ListType(grid)
    assert kind("[]") == ListType(None)
    assert appended(ListType(None), grid) == ListType(grid)
    assert appended(ListType(grid), ScalarType("int64")) == ListType(MIXED)
    env["mixed"] = ListType(MIXED)
    assert kind("mixed[0]") is None


def test_an_array_of_unknown_rank_keeps_its_elements():
    """`iio.imread(path).astype(np.float32) / 255`: the rank is the library's, the elements
    are float32 (a launch gives them to the body-inferred signature)."""
    from kernlint.python.static_types import ArrayType

    reader = TypeReader(lambda e: "numpy.float32" if ast.unparse(e) == "np.float32" else None,
                        lambda name, want_dtype=False: None)
    kind = reader.type_of(ast.parse("image.astype(np.float32) / 255.0").body[0].value)
    assert kind == ArrayType("float32", None, "C", "")


def test_an_opencv_capture_reads_host_images():
    """`ok, frame = cv2.VideoCapture(path).read()`: a flag and a host uint8 image of rank 3 (OpenCV
    converts every stream to BGR by default), also through an attribute that is None until a video
    is opened; what else a capture gives is not told."""
    from kernlint.python.static_types import Maybe, Opaque

    capture = Opaque("capture")
    env = {"video": capture, "maybe": Maybe(capture)}
    reader = TypeReader(lambda e: "cv2.VideoCapture" if ast.unparse(e) == "cv2.VideoCapture" else None,
                        lambda name, want_dtype=False: env.get(name))
    frame = TupleType((ScalarType("bool"), ArrayType("uint8", 3, "C", "host", "numpy")))
    assert reader.type_of(ast.parse("cv2.VideoCapture(path)").body[0].value) == capture
    assert reader.type_of(ast.parse("video.read()").body[0].value) == frame
    assert reader.type_of(ast.parse("maybe.read()").body[0].value) == frame
    assert reader.type_of(ast.parse("video.get(5)").body[0].value) is None


HOST_F64 = ArrayType("float64", 1, "C", "host", "numpy")
SOMEWHERE_F64 = ArrayType("float64", 1, "C", "", "")
INT = ScalarType("int64")


@pytest.mark.parametrize("returns, expected", [
    ([TupleType((INT, None)), TupleType((INT, HOST_F64))], TupleType((INT, SOMEWHERE_F64))),  # where: unknown
    ([TupleType((INT, HOST_F64)), TupleType((INT, HOST_F64))], TupleType((INT, HOST_F64))),
    # `return cupy.empty(shape)` / `return np.empty(shape)`: the same array, of unknown place
    ([HOST_F64, ArrayType("float64", 1, "C", "device", "cupy")], SOMEWHERE_F64),
    ([HOST_F64, ArrayType("float32", 1, "C", "device", "cupy")], None),  # other elements: they must agree
    ([TupleType((HOST_F64,)), TupleType((ArrayType("float64", 1, "C", "device", "cupy"),))],
     TupleType((SOMEWHERE_F64,))),
    ([TupleType((INT,)), TupleType((ScalarType("float64"),))], TupleType((None,))),
    # tuples of different lengths: one of them (unpacking into names takes the one that fits)
    ([TupleType((INT, INT)), TupleType((INT,))], OneOf(frozenset({TupleType((INT, INT)), TupleType((INT,))}))),
])
def test_a_helper_returns_what_its_returns_agree_on(returns, expected):
    assert returned_type(returns) == expected


@pytest.mark.parametrize("seen, expected", [
    ([INT, ScalarType("int64", weak=True)], INT),  # a literal and a variable holding an int: int64
    ([ScalarType("int64", weak=True)] * 2, ScalarType("int64", weak=True)),
    ([INT, INT, None], INT),  # one caller passes what reading cannot type: the others say it
    ([INT, None], None),  # ... but not half of them
    ([INT, ScalarType("float64")], None),
    ([], None),
])
def test_a_parameter_takes_the_type_its_callers_agree_on(seen, expected):
    assert agreed_type(seen) == expected


PLASMA = FIXTURES / "shapes" / "plasma"


def _gather_line() -> int:
    """Where species.py launches gather_field (the fixture grows)."""
    lines = (PLASMA / "particles" / "species.py").read_text().splitlines()
    return next(number for number, line in enumerate(lines, 1) if "gather_field[" in line)


def _launch_types(paths):
    project = Project()
    found = {}
    for path in paths:
        for launch in host_reader.file_host_facts(project, str(path)).launches:
            found[(launch.place.path, launch.place.line)] = [a.type for a in launch.args]
    return found


def test_types_across_files_do_not_depend_on_what_was_read_first():
    """A file's types are read from the files it asks, each one level less deep: the same
    whatever order the files are read in (a cache, a worker's share of the files)."""
    paths = sorted(PLASMA.rglob("*.py"))
    forward = _launch_types(paths)
    assert forward == _launch_types(list(reversed(paths)))
    assert forward[(str(PLASMA / "particles" / "species.py"), _gather_line())] == [
        "float64[::1]", "complex128[:, ::1]", "complex128[:, ::1]", "float64", "float64", "int64",
        "complex128[::1]"]


def test_a_level_as_deep_as_the_one_below_changes_nothing(monkeypatch):
    """Reading a file one level deeper is skipped where every file it consulted gives the
    same types one level deeper: reading every level in full gives the same launches."""
    paths = sorted(PLASMA.rglob("*.py"))
    shortcut = _launch_types(paths)
    reads = []
    original = host_reader.HostReader.read

    def counted(self):
        reads.append(self._level)
        return original(self)

    monkeypatch.setattr(host_reader.HostReader, "read", counted)
    monkeypatch.setattr(host_reader, "_as_deep_as_below", lambda project, module, level: None)
    assert _launch_types(paths) == shortcut
    full = len(reads)
    reads.clear()
    monkeypatch.undo()
    monkeypatch.setattr(host_reader.HostReader, "read", counted)
    _launch_types(paths)
    assert len(reads) < full / 2  # the deep levels mostly come for free


def test_an_edit_two_files_away_changes_the_launch_signature_of_a_cached_run(tmp_path):
    """species.py launches on `grid[0].Er`; the grids' dtype is written in interpolation.py,
    which species.py never imports (a Fields object in fields.py makes the grids): the
    cached reading of species.py depends on it, and the next run sees the edit."""
    shutil.copytree(PLASMA, tmp_path / "plasma")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def gather_signatures():
        run = subprocess.run([sys.executable, "-m", "kernlint", "check", "--show-signatures", "plasma"],
                             cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env)
        return [re.split(r"\s{2,}", line.strip())[1:] for line in run.stdout.splitlines()
                if "::gather_field " in line]

    assert gather_signatures() == [["void(float64[::1], complex128[:, ::1], complex128[:, ::1], float64, "
                                    "float64, int64, complex128[::1])",
                                    f"launch-site (plasma/particles/species.py:{_gather_line()})"]]
    assert (tmp_path / ".kernlint_cache").is_dir()  # the second run is a cached one
    grids = tmp_path / "plasma" / "fields" / "interpolation.py"
    grids.write_text(grids.read_text().replace("dtype='complex')", "dtype=np.complex64)"))
    assert gather_signatures() == [["void(float64[::1], complex64[:, ::1], complex64[:, ::1], float64, "
                                    "float64, int64, complex128[::1])",
                                    f"launch-site (plasma/particles/species.py:{_gather_line()})"]]


def test_a_loop_over_values_launches_once_per_value_and_records_its_events_once(tmp_path):
    from kernlint.python.project import FrontendSettings, Project
    from kernlint.python.host.reader import file_host_facts

    (tmp_path / "sweep.py").write_text(textwrap.dedent('''
        import numpy as np
        from numba import cuda

        @cuda.jit
        def negate(out, x):
            out[0] = -x[0]

        def sweep(n):
            for dtype in (np.float32, np.int16):
                x = cuda.to_device(np.arange(n).astype(dtype))
                out = cuda.device_array_like(x)
                negate[1, 1](out, x)
                cuda.synchronize()
    '''))
    facts = file_host_facts(Project(FrontendSettings()), str(tmp_path / "sweep.py"))
    assert [e.kind for e in facts.events] == ["alloc", "alloc", "launch", "sync"]  # the first reading only
    assert facts.events[2].signature is None  # `dtype` is either: no one type
    assert sorted(launch.signature for launch in facts.passed_launches) == [
        "void(float32[::1], float32[::1])", "void(int16[::1], int16[::1])"]


@pytest.mark.parametrize("loop, expected", [
    # each literal tuple unpacked into the loop's names: one launch per pass
    ("for dtype, scale in [(np.int32, 2), (np.float64, 0.5)]:",
     ["void(float64[::1], float64)", "void(int32[::1], int64)"]),
    ("cases = ((np.int32, 2), (np.float32, 2))\n    for dtype, scale in cases:",
     ["void(float32[::1], int64)", "void(int32[::1], int64)"]),
    ("for dtype, scale in [(np.int32, 2), (np.float64,)]:", []),  # a pass that does not unpack alike
    ("for dtype, scale in pairs():", []),  # not a literal
])
def test_a_loop_unpacking_literal_tuples_launches_once_per_pass(tmp_path, loop, expected):
    """`for dtype, values in [(np.int32, [10, 20]), (np.float64, [1.5])]`, a common test shape:
    each pass binds its tuple's items; a name every pass binds alike is known in the loop."""
    from kernlint.python.host.reader import file_host_facts

    (tmp_path / "cases.py").write_text(textwrap.dedent('''
        import numpy as np
        from numba import cuda

        @cuda.jit
        def fill(out, scale):
            out[0] = scale

        def run():
            LOOP
                out = cuda.device_array(4, dtype=dtype)
                fill[1, 1](out, scale)
    ''').replace("LOOP", loop))
    facts = file_host_facts(Project(), str(tmp_path / "cases.py"))
    assert sorted(launch.signature for launch in facts.passed_launches) == expected


EXPECTED = {  # kernel -> {(signature, source)}: exactly what the fixture project's code implies
    "kernels.py::saxpy": {
        ("void(float64[::1], float64, float64[::1], float64[::1])", "launch-site"),  # main.py
        ("void(float32[::1], float32, float32[::1], float32[::1])", "launch-site"),  # solver.py, gpu_cupy.py
    },
    "kernels.py::quantize": {("void(int32[::1], float32[::1])", "launch-site")},  # [] and .forall: one
    "kernels.py::fill_rows": {("void(float64[:, ::1], float64)", "launch-site"),
                              ("void(float64[::1, :], float32)", "launch-site")},  # grid.T
    "kernels.py::relax": {("void(float32[::1], int64)", "launch-site")},  # Solver.__init__ arrays, stream
    "kernels.py::histogram": {("void(int64[::1], int64[:])", "launch-site")},  # the unknown launch gives none
    "body_only.py::gather": {("void(float64[::1], float64[::1], int64[::1])", "inferred")},
    "body_only.py::to_int": {("void(int64[::1], float64[::1])", "inferred")},
    "body_only.py::transposed": {("void(float64[:, ::1], float64[:, ::1])", "inferred")},
    # the tests call `launch` with arrays they allocate: each test's call is one launch's types
    "recorded_only.py::clamp_to": {("void(float32[::1], float32[::1], float32)", "launch-site"),
                                   ("void(int16[::1], int16[::1], int64)", "launch-site")},
}


def signatures_of(report, project):
    """Each kernel of one fixture project by its file's name and its own (other fixtures hold
    kernels of the same names in files of the same names)."""
    found = {}
    for stat in report.stats:
        if os.path.dirname(stat.path) != str(project):
            continue
        key = f"{os.path.basename(stat.path)}::{stat.kernel}"
        found.setdefault(key, set()).add((stat.signature, stat.signature_source))
    return found


def test_signatures_are_exactly_those_the_code_implies(fixture_report):
    found = {k: v for k, v in signatures_of(fixture_report, LAZY).items()
             if any(k == e for e in EXPECTED)}
    assert found == EXPECTED
    skipped = [f for f in fixture_report.skipped if f.path.endswith("body_only.py")]
    assert [f.kernel for f in skipped] == ["untypable"]
    assert "`void(float64[::1], float64)` failed" in skipped[0].message
    assert (skipped[0].tried[0]["signature"], skipped[0].tried[0]["inferred"]) == ("void(float64[::1], float64)",
                                                                                   "as read")


def test_recorded_signatures_are_written_and_checked(tmp_path):
    project = tmp_path / "lazy"
    shutil.copytree(FIXTURES / "lazy", project)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    run = subprocess.run([sys.executable, "-m", "kernlint", "record", "--simulator", "--",
                          sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
                         cwd=project, capture_output=True, text=True, timeout=600, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "2 signature(s) in kernlint-signatures.toml" in run.stderr
    text = (project / "kernlint-signatures.toml").read_text()
    assert '"lazyproj/recorded_only.py::clamp_to" = [' in text and str(tmp_path) not in text
    recorded = read_recorded(str(project / "kernlint-signatures.toml"))
    assert recorded == {str(project / "lazyproj" / "recorded_only.py"): {"clamp_to": [
        ("void(float32[::1], float32[::1], float32)", "recorded"),
        ("void(int16[::1], int16[::1], int64)", "recorded")]}}
    check = subprocess.run([sys.executable, "-m", "kernlint", "check", "--no-cache", "--show-signatures",
                            "lazyproj/recorded_only.py"], cwd=project, capture_output=True, text=True,
                           timeout=600, env=env)
    rows = [line.split() for line in check.stdout.splitlines() if "clamp_to" in line]
    # the tests' calls of `launch` are read without running them too: their launch sites give
    # the types the recording gives, and come first
    assert sorted((row[1] + " " + " ".join(row[2:-2]), row[-2]) for row in rows) == [
        ("void(float32[::1], float32[::1], float32)", "launch-site"),
        ("void(int16[::1], int16[::1], int64)", "launch-site")]


def test_a_named_tuple_a_run_launched_with_is_recorded_and_checked(tmp_path):
    """Its fields' types exist only at run time here (parsed from text): the recorded type
    names the class's name and fields, and check makes the class again to compile it."""
    (tmp_path / "walls.py").write_text(textwrap.dedent('''
        import sys
        from collections import namedtuple

        import numpy as np
        from numba import cuda

        Wall = namedtuple("Wall", "lo hi")


        @cuda.jit
        def bounce(x, wall):
            i = cuda.grid(1)
            if i < x.size and (x[i] < wall.lo or x[i] > wall.hi):
                x[i] = wall.lo


        if __name__ == "__main__":
            lo, hi = (np.float32(v) for v in sys.argv[1:3])
            x = np.linspace(-1, 2, 8).astype(np.float32)
            bounce[1, 8](x, Wall(lo, hi))
    '''))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    run = subprocess.run([sys.executable, "-m", "kernlint", "record", "--simulator", "--", sys.executable,
                          "walls.py", "0", "1"], cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    expected = "void(float32[::1], NamedUniTuple(float32, 2, namedtuple('Wall', ('lo', 'hi'))))"
    assert read_recorded(str(tmp_path / "kernlint-signatures.toml")) == {
        str(tmp_path / "walls.py"): {"bounce": [(expected, "recorded")]}}
    check = subprocess.run([sys.executable, "-m", "kernlint", "check", "--no-cache", "--show-signatures",
                            "walls.py"], cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env)
    assert check.returncode == 0, check.stdout + check.stderr
    assert [line.split(None, 1)[1].rsplit(None, 1) for line in check.stdout.splitlines() if "::bounce" in line] \
        == [[expected, "recorded"]]


def test_the_signatures_file_merges_and_sorts(tmp_path):
    path = str(tmp_path / "kernlint-signatures.toml")
    kernels = str(tmp_path / "pkg" / "k.py")
    write_recorded(path, {kernels: {"b": [("void(int64)", "recorded")]}}, ["python", "run.py"])
    write_recorded(path, {kernels: {"a": [("void(float64)", "recorded")], "b": [("void(int32)", "recorded")]}},
                   ["python", "run.py"])
    text = open(path).read()
    assert text.index('"pkg/k.py::a"') < text.index('"pkg/k.py::b"')
    assert read_recorded(path)[kernels]["b"] == [("void(int32)", "recorded"), ("void(int64)", "recorded")]


def test_a_broken_signatures_file_stops_kernlint_with_its_name(tmp_path):
    (tmp_path / "kernels.py").write_text("from numba import cuda\n\n@cuda.jit\ndef k(x):\n    x[0] = 1.0\n")
    (tmp_path / "kernlint-signatures.toml").write_text("[signatures]\n'kernels.py::k' = 3\n")
    run = subprocess.run([sys.executable, "-m", "kernlint", "check", "--no-cache", "kernels.py"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=600, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 2 and "kernlint-signatures.toml" in run.stderr and "Traceback" not in run.stderr


def test_json_and_text_say_where_a_signature_came_from(tmp_path):
    (tmp_path / "kernels.py").write_text(textwrap.dedent('''
        from numba import cuda

        @cuda.jit
        def convert(y, x):
            i = cuda.grid(1)
            if i < x.size:
                v = x[i]
                if v != v:
                    print("NaN", i)
                    return
                y[i] = int(v)
    '''))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "kernlint", "check", "--no-cache", "--output-format", "json",
                          "kernels.py"], cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env)
    found = json.loads(run.stdout)
    assert {(f["signature"], f["signature_source"]) for f in found} == {("void(int64[::1], float64[::1])",
                                                                        "inferred")}
    text = subprocess.run([sys.executable, "-m", "kernlint", "check", "--no-cache", "kernels.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600, env=env).stdout
    assert "# kernlint: sig=void(int64[::1], float64[::1])" in text


def test_a_launch_site_signature_names_the_launch_that_gave_it(tmp_path):
    """JSON's `signature_from` and `--show-signatures` name the launch (file and line) whose
    argument types a kernel was checked with; other sources name none."""
    (tmp_path / "kernels.py").write_text(textwrap.dedent('''
        from numba import cuda

        @cuda.jit
        def scale(y, x):
            i = cuda.grid(1)
            if i < x.size:
                v = x[i] * 2.0
                if v != v:
                    print("NaN", i)
                    return
                y[i] = int(v)

        @cuda.jit
        def alone(y, x):
            v = x[0]
            if v != v:
                print("NaN")
                return
            y[0] = int(v)
    '''))
    (tmp_path / "run.py").write_text(textwrap.dedent('''
        import numpy as np
        from numba import cuda
        from kernels import scale

        x = cuda.to_device(np.ones(64, dtype=np.float32))
        y = cuda.device_array(64, dtype=np.int32)
        scale[1, 64](y, x)
    '''))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "kernlint", "check", "--no-cache", "--output-format", "json", "."],
                         cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env)
    found = {f["kernel"]: (f["signature_source"], f["signature_from"]) for f in json.loads(run.stdout)}
    assert found["scale"] == ("launch-site", f"{tmp_path / 'run.py'}:8")
    assert found["alone"] == ("inferred", "")
    shown = subprocess.run([sys.executable, "-m", "kernlint", "check", "--no-cache", "--show-signatures", "."],
                           cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env).stdout
    assert re.search(r"kernels\.py::scale +void\(int32\[::1\], float32\[::1\]\) +launch-site \(run\.py:8\)", shown)


@pytest.mark.parametrize("source", ["(1, 2.5, np.zeros(3))", "(1, 2)", "()", "((1, 2), (3.0,))"])
def test_tuple_types_are_written_as_numba_parses_them(source):
    from numba.core import sigutils

    text, _ = type_text(source)
    argtypes, _ = sigutils.normalize_signature(f"void({text})")
    assert len(argtypes) == 1


# expected: what SciPy 1.16 / NumPy 2.4 give (measured); their ufunc loops decide the dtype
@pytest.mark.parametrize("source, expected", [
    ("special.j1(np.zeros((2, 3), np.float32))", "float32[:, ::1]"),
    ("special.j1(np.arange(4))", "float64[::1]"),
    ("special.jv(1.5, np.zeros(3))", "float64[::1]"),
    ("special.jn(0, np.zeros(3, np.float32))", "float32[::1]"),
    ("special.jn(np.int64(0), np.zeros(3, np.float32))", "float64[::1]"),
    ("special.yn(1, np.zeros(3, np.float32))", "float64[::1]"),
    ("special.yn(1.0, np.zeros(3, np.float32))", "float32[::1]"),
    ("special.erf(np.zeros(2, np.complex64))", "complex64[::1]"),
    ("special.jv(0, np.zeros(3, np.complex64))", "complex64[::1]"),
    ("special.gamma(3)", "float64"),
    ("special.jn_zeros(0, 5)", "float64[::1]"),
    ("a = special.jn_zeros(1, 8)\na * special.j1(a)", "float64[::1]"),
    ("special.j1(np.zeros(2, np.complex128))", None),  # no complex loop: SciPy raises
    ("special.yn(1, np.zeros(2, np.complex128))", None),
    ("np.linalg.inv(np.eye(3, dtype=np.float32))", "float32[:, ::1]"),
    ("np.linalg.pinv(np.ones((2, 3), dtype=np.int32))", "float64[:, ::1]"),
    ("np.linalg.inv(np.ones((4, 3, 3)))", "float64[:, :, ::1]"),
    ("np.linalg.inv(np.ones(3))", None),
    ("np.outer(np.arange(3), np.ones((2, 2), np.float32))", "float64[:, ::1]"),
    ("constants.physical_constants['classical electron radius'][0] * np.ones(3, np.float32)", "float32[::1]"),
    ("x, y = np.meshgrid(np.arange(3.0), np.arange(2), copy=True)\ny.flatten()", "int64[::1]"),
    ("np.meshgrid(np.arange(3.0), np.arange(2), copy=False)", None),
    ("np.pi * np.ones(3, np.float32)", "float32[::1]"),
    ("constants.c * np.ones(3, np.float32)", "float32[::1]"),
    ("np.cos(np.outer(np.ones(3, np.float32), np.ones(4, np.float32)))", "float32[:, ::1]"),
])
def test_scipy_special_and_inverses_follow_their_loops(source, expected):
    assert (type_text(source) or (None,))[0] == expected


@pytest.mark.parametrize("source", [
    "np.arange('2005-02', '2006-02', dtype='datetime64[D]')",
    "a = np.arange('2005-02', '2006-02', dtype='datetime64[D]')\na + np.random.randint(0, 10, a.size)",
    "a = np.arange('2005-02', '2006-02', dtype='datetime64[D]')\na[6] - a[5]",
    "a = np.arange('2005-02', '2006-02', dtype='M8[D]')\na[5]",
    "a = np.zeros(3, dtype='datetime64[s]')\nnp.zeros_like(a, dtype='timedelta64[s]')",
    "np.zeros(9, dtype='<U12')",
    "np.zeros((2, 3), dtype='S12')",
    "dt = np.dtype([('x', np.int32), ('y', np.dtype('<U12'))])\nnp.zeros(2, dt)",
    "dt = np.dtype([('x', np.float32), ('y', 'S12')])\nnp.zeros(2, dtype=dt)",
    "dt = np.dtype([('x', np.float16), ('y', np.float16)], align=True)\nnp.zeros((1,), dtype=dt)",
    "dt = np.dtype([('a', np.int8), ('b', np.float64), ('c', np.bool_)], align=True)\nnp.zeros(4, dt)[1]",
    "dt = np.dtype([('a', np.int8), ('b', np.float64)])\nnp.zeros(4, dt)",
    "dt = np.dtype([('i', np.int32), ('j', np.float32, (3, 2))])\nnp.recarray(2, dtype=dt)",
    "dt = np.dtype([('user', np.float64), ('array', np.int16, (3,))], align=True)\nnp.zeros(2, dtype=dt)[0]",
    "dt = np.dtype([('user', np.float64), ('array', np.int16, 3)])\nnp.zeros(2, dt)",
    "dt = np.dtype([('', 'i2', 3), ('', np.float32)])\nnp.zeros(2, dt)",  # NumPy names them f0, f1
])
def test_dates_strings_and_records_are_typed_as_numba_types_them(source):
    """Read statically, then run with NumPy here: numba's typeof of the value is the type read."""
    from numba import typeof

    from kernlint.compile.numba_cuda import parse_signature

    text, _ = type_text(source)
    namespace = {"np": np}
    *statements, last = textwrap.dedent(source).splitlines()
    exec("\n".join(statements), namespace)  # noqa: S102 - the test's own literal source
    assert parse_signature(f"void({text})")[0] == (typeof(eval(last, namespace)),)  # noqa: S307


@pytest.mark.parametrize("source", [
    "a = np.arange('2005-02', '2006-02', dtype='datetime64[D]')\na * 2",
    "a = np.zeros(3, dtype='datetime64[s]')\nb = np.zeros(3, dtype='datetime64[D]')\na - b",
    "np.sqrt(np.zeros(3, dtype='timedelta64[s]'))",
    "np.zeros(3, dtype='<U4') + 1",
    "dt = np.dtype([('x', np.int32), ('x', np.int32)])\nnp.zeros(2, dt)",
    "dt = np.dtype([('f1', np.int32), ('', np.int8)])\nnp.zeros(2, dt)",  # NumPy refuses: f1 twice
    "dt = np.dtype([('x', np.int32), ('y', [('z', np.int8)])])\nnp.zeros(2, dt)",
])
def test_what_numpy_refuses_or_reading_does_not_follow_of_them_stays_unknown(source):
    assert (type_text(source) or (None,))[0] is None


def _random_states():
    from numba.cuda.random import xoroshiro128p_dtype

    return np.zeros(4, dtype=xoroshiro128p_dtype)


_Point = collections.namedtuple("Point", "x y")
_Mixed = collections.namedtuple("Mixed", ("n", "values"))


@pytest.mark.parametrize("value", [(1, 2, 3), (1, 2.0), ((), (1, 2)), (np.zeros(3), 1), np.zeros(2, bool),
                                   np.zeros(()), "random states",
                                   np.zeros((2, 3), [("f0", np.float32), ("v", np.int16, (3,)),
                                                     ("inner", [("a", np.int8)])]),
                                   _Point(1, 2), _Mixed(3, np.zeros(2, np.float32)), (_Point(1.5, 2.5), 1)])
def test_recorded_types_are_written_as_numba_parses_them(value):
    if isinstance(value, str):  # made here: numba.cuda.random is imported lazily
        value = _random_states()
    from numba import typeof

    from kernlint import record_hook
    from kernlint.compile.numba_cuda import parse_signature

    text = record_hook._type_text(typeof(value))
    # a named tuple's class is made again from its name and fields: equal as numba prints it
    assert str(parse_signature(f"void({text})")[0]) == str((typeof(value),))
    assert ("namedtuple(" in text) == ("Point" in text or "Mixed" in text)


@pytest.mark.parametrize("source", [
    "Point = namedtuple('Point', 'x y')\nPoint(1, 2)",
    "Point = namedtuple('Point', ['x', 'y', 'r'])\nPoint(1, 2, 2.5)",
    "Point = namedtuple('Point', 'x, y')\nPoint(y=np.float32(1), x=np.float32(2))",
    "Pair = namedtuple('Pair', ('a', 'b'))\nPair(np.zeros(3, np.float32), 4)",
    "Inner = namedtuple('Inner', 'u')\nOuter = namedtuple('Outer', 'i k')\nOuter(Inner(1.5), (1, 2))",
    "Box = NamedTuple('Box', [('lo', float), ('hi', float)])\nBox(0.0, 1.0)",
])
def test_named_tuples_are_typed_as_numba_types_them(source):
    """numba types a named tuple by its class: the text makes a class of the same name and
    fields, and the type it gives prints as numba's typeof of the value run here does."""
    from collections import namedtuple
    from typing import NamedTuple

    from numba import typeof

    from kernlint.compile.numba_cuda import parse_signature

    text, _ = type_text(source)
    namespace = {"np": np, "namedtuple": namedtuple, "NamedTuple": NamedTuple}
    *statements, last = textwrap.dedent(source).splitlines()
    exec("\n".join(statements), namespace)  # noqa: S102 - the test's own literal source
    value = eval(last, namespace)  # noqa: S307
    parsed = parse_signature(f"void({text})")[0][0]
    assert str(parsed) == str(typeof(value)) and parsed.instance_class._fields == value._fields
    assert parse_signature(f"void({text})")[0][0] == parsed  # one class per text: one type


@pytest.mark.parametrize("source", [
    "Point = namedtuple('Point', 'x y')\nPoint(1)",  # a field left out
    "Point = namedtuple('Point', 'x y')\nPoint(1, 2, 3)",
    "Point = namedtuple('Point', 'x y')\nPoint(1, z=2)",
    "Point = namedtuple('Point', 'x y', defaults=(0,))\nPoint(1)",
    "Point = namedtuple('Point', 'x _y')\nPoint(1, 2)",  # namedtuple refuses it
    "Point = namedtuple(name, 'x y')\nPoint(1, 2)",
])
def test_named_tuples_reading_cannot_make_stay_unknown(source):
    assert (type_text(source) or (None,))[0] is None


@pytest.mark.parametrize("source", [
    "np.zeros(4, np.float32).view(np.uint32)",
    "np.arange(6, dtype=np.int64).reshape(2, 3).view('float64')",
    "np.zeros((2, 4), np.float32).view(np.int16)",  # the last axis doubles
    "np.zeros(3, np.int64).view('datetime64[D]')",
    "np.zeros((3, 4), np.float64)[:, ::2].view(np.int64)",  # same size: strides kept
])
def test_a_view_is_typed_as_numba_types_it(source):
    from numba import typeof

    from kernlint.compile.numba_cuda import parse_signature

    text, _ = type_text(source)
    assert parse_signature(f"void({text})")[0] == (typeof(eval(source, {"np": np})),)  # noqa: S307


@pytest.mark.parametrize("source", [
    "np.zeros((3, 4), np.float32).T.view(np.int16)",  # another size, not C: NumPy may refuse
    "np.zeros((), np.float32).view(np.int16)",
    "np.zeros(4, np.float32).view(dtype)",
])
def test_a_view_reading_cannot_follow_stays_unknown(source):
    assert (type_text(source) or (None,))[0] is None


@pytest.mark.parametrize("source, expected", [
    ("tuple()", "Tuple(())"),
    ("tuple((1, 2.5))", "Tuple((int64, float64))"),
    ("Point = namedtuple('Point', 'x y')\ntuple(Point(1, 2))", "UniTuple(int64, 2)"),
    ("tuple([1, 2])", None),  # a list's length is not read
])
def test_tuple_calls_make_the_tuple_they_are_given(source, expected):
    assert (type_text(source) or (None,))[0] == expected


def test_a_named_tuple_field_read_on_the_host_is_its_item():
    assert type_text("Point = namedtuple('Point', 'x y')\np = Point(1.5, np.zeros(2, np.int32))\np.y")[0] == \
        "int32[::1]"


def test_a_recorded_device_function_may_take_the_grid_group():
    """``cuda.cg.this_grid()`` passed to a device function: its type is spelled `GridGroup`."""
    from numba.cuda import types as cuda_types

    from kernlint.compile.numba_cuda import parse_signature

    args, returned = parse_signature("none(GridGroup, float32[::1], xoroshiro128p[::1])")
    assert args[0] == cuda_types.grid_group and str(returned) == "none"


def test_recorded_types_of_constants_and_type_arguments_parse():
    """A device function called with a constant records the constant's type; a type passed as a
    value (`f(np.float32)`, a `typeref`) records as its constructor."""
    from numba.core import types

    from kernlint import record_hook
    from kernlint.compile.numba_cuda import parse_signature

    for given, expected in [(types.literal(2), types.int64), (types.TypeRef(types.float32[::1]), None),
                            (types.NumberClass(types.float64), None)]:
        text = record_hook._type_text(given)
        assert parse_signature(f"void({text})")[0] == (expected or given,)


def test_what_only_looks_like_a_launch_is_not_read_as_gpu_code(tmp_path):
    """`Pair[str, int](...)` in a test of typing looks like a launch; without numba, CUDA or
    CuPy in the file or a kernel in what it imports, its types are not followed across the
    project (that took minutes on CPython's test_typing.py). A file launching a kernel that
    a package re-exports, naming no GPU library itself, still is GPU code."""
    from kernlint.python.host.reader import LEVELS, HostReader

    (tmp_path / "generics.py").write_text("from typing import Generic, TypeVar\n\nT = TypeVar('T')\n\n\n"
                                          "class Pair(Generic[T]):\n    pass\n")
    (tmp_path / "test_generics.py").write_text("from generics import Pair\n\n\ndef test_pair():\n"
                                               "    assert Pair[str, int]() is not None\n")
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("from .kernels import bump\n")
    (package / "kernels.py").write_text("from numba import cuda\n\n\n@cuda.jit\ndef bump(x, n):\n"
                                        "    x[0] += n\n")
    (tmp_path / "run.py").write_text("from pkg import bump\n\n\ndef go(x, n):\n    bump[1, 1](x, n)\n")
    project = Project()
    assert not HostReader(project, project.module(str(tmp_path / "test_generics.py")), LEVELS)._gpu_code
    assert HostReader(project, project.module(str(tmp_path / "run.py")), LEVELS)._gpu_code


@pytest.mark.parametrize("test, held, when_true, when_false", [
    ("x is None", {"x": Maybe(INT)}, {"x": NONE}, {"x": INT}),
    ("x is not None", {"x": Maybe(INT)}, {"x": INT}, {"x": NONE}),
    ("ps.V is None", {"ps.V": Maybe(INT)}, {"ps.V": NONE}, {"ps.V": INT}),
    ("x is None", {"x": INT}, {DEAD: True}, {}),  # never None: that side never runs
    ("x is None", {}, {}, {}),  # unknown: nothing said
    ("type(n) is not tuple", {"n": INT}, {}, {DEAD: True}),  # `if type(shape) is not tuple: shape = (shape,)`
    ("type(n) is not tuple", {"n": TupleType((INT, INT))}, {DEAD: True}, {}),
    ("isinstance(n, (int, float))", {"n": ScalarType("float32")}, {}, {DEAD: True}),
    ("isinstance(n, int)", {"n": ScalarType("float32")}, {DEAD: True}, {}),
    ("isinstance(n, dict) and x is None", {"n": INT, "x": Maybe(INT)}, {"x": NONE, DEAD: True}, {}),
    ("f in ('E', 'B')", {"f": StrType(frozenset("EBJ"))}, {"f": StrType(frozenset("EB"))},
     {"f": StrType(frozenset("J"))}),
    ("f == 'E'", {"f": StrType()}, {"f": StrType(frozenset("E"))}, {}),  # any string: only its true side says
    ("f not in ('E',)", {"f": StrType(frozenset("EB"))}, {"f": StrType(frozenset("B"))},
     {"f": StrType(frozenset("E"))}),
    ("f in ('E', 'B') and x is not None", {"f": StrType(frozenset("EBJ")), "x": Maybe(INT)},
     {"f": StrType(frozenset("EB")), "x": INT}, {}),
    ("not (x is None)", {"x": Maybe(INT)}, {"x": INT}, {"x": NONE}),
    ("x is None or f == 'E'", {"x": Maybe(INT), "f": StrType(frozenset("EB"))}, {},
     {"x": INT, "f": StrType(frozenset("B"))}),
])
def test_an_if_test_narrows_what_its_sides_hold(test, held, when_true, when_false):
    builtins = {"type", "tuple", "isinstance", "int", "float", "dict"}
    reader = TypeReader(lambda expr: f"builtins.{expr.id}" if getattr(expr, "id", None) in builtins else None,
                        lambda name, want_dtype=False: None if want_dtype else held.get(name))
    assert narrowed(ast.parse(test, mode="eval").body, reader) == (when_true, when_false)


@pytest.mark.parametrize("one, other, expected", [
    (NONE, INT, Maybe(INT)),  # `x = None` on one side, a number on the other
    (Maybe(INT), ScalarType("int64", weak=True), Maybe(INT)),
    (NONE, None, None),  # with an unknown: unknown
    (StrType(frozenset("E")), StrType(frozenset("B")), StrType(frozenset("EB"))),
    (StrType(frozenset("E")), StrType(), StrType()),  # any string
    (FunctionRef(("numba.cuda.pinned_array",)), FunctionRef(("numpy.empty",)),
     FunctionRef(("numba.cuda.pinned_array", "numpy.empty"))),  # each is tried where it is called
])
def test_values_of_one_place_share_a_type(one, other, expected):
    assert same_type(one, other) == expected


def test_an_attribute_assigned_two_numba_types_is_not_typed_by_the_first(tmp_path):
    """`self.t` is a complex array on one side of an `if` and a float one on the other: a
    launch on it has no signature from reading (the first assignment is not the only one)."""
    (tmp_path / "coefs.py").write_text(
        "import numpy as np\nfrom numba import cuda\n\n\n"
        "@cuda.jit\ndef scale(t):\n    t[0] *= 2\n\n\n"
        "class Coefs:\n"
        "    def __init__(self, v=0.5):\n"
        "        if v != 0.:\n"
        "            self.t = np.exp(1.j * np.arange(4.) * v)\n"
        "        else:\n"
        "            self.t = np.ones(4)\n"
        "        self.c = np.ones(4)\n"
        "        self.c = np.zeros(4)\n\n"
        "    def run(self):\n"
        "        scale[1, 1](cuda.to_device(self.t))\n"
        "        scale[1, 1](cuda.to_device(self.c))\n")
    assert list(_launch_types([tmp_path / "coefs.py"]).values()) == [[None], ["float64[::1]"]]


def test_isinstance_of_a_project_class_makes_the_name_an_object_of_it():
    injector = host_reader.instance("/pkg/inject.py", "PlaneInjector")
    reader = TypeReader(lambda expr: "builtins.isinstance" if getattr(expr, "id", None) == "isinstance" else None,
                        lambda name, want_dtype=False: None,
                        construct=lambda call: injector if ast.unparse(call.func) == "PlaneInjector" else None)
    test = ast.parse("isinstance(self.injector, PlaneInjector)", mode="eval").body
    assert narrowed(test, reader) == ({"self.injector": injector}, {})
    other = ast.parse("isinstance(self.injector, Unknown)", mode="eval").body
    assert narrowed(other, reader) == ({}, {})


def test_a_list_extended_with_other_items_is_of_either(tmp_path):
    """`arrays += [...]` adds items: of another dtype, the loop over the list no longer gives
    the first items' type; of the same, it still does."""
    (tmp_path / "extend.py").write_text(
        "import numpy as np\nfrom numba import cuda\n\n\n"
        "@cuda.jit\ndef scale(a):\n    a[0] *= 2\n\n\n"
        "def run(n):\n"
        "    arrays = [cuda.to_device(np.zeros(n)), cuda.to_device(np.ones(n))]\n"
        "    arrays += [cuda.to_device(np.zeros(n, dtype=np.int32))]\n"
        "    for a in arrays:\n"
        "        scale[1, 1](a)\n"
        "    same = [cuda.to_device(np.zeros(4))]\n"
        "    same += [cuda.to_device(np.ones(4))]\n"
        "    for a in same:\n"
        "        scale[1, 1](a)\n")
    assert list(_launch_types([tmp_path / "extend.py"]).values()) == [[None], ["float64[::1]"]]


def test_types_a_caller_below_passes_reach_a_function_it_calls_through_one_above(tmp_path):
    """`exchange` (last in the file) passes an array to `add`, which is defined above it and
    passes it on to `add_gpu`: the file is read again while what its calls pass changes, so
    the launch in `add_gpu` has the array's type, not an unknown from the first reading."""
    (tmp_path / "buffers.py").write_text(
        "import cupy\nimport numpy as np\nfrom numba import cuda\n\n\n"
        "@cuda.jit\ndef copy(n, source, target):\n    target[0] = source[n]\n\n\n"
        "def add(received):\n"
        "    add_gpu(received)\n\n\n"
        "def add_gpu(received):\n"
        "    n = received.shape[1]\n"
        "    for i in range(2):\n"
        "        copy[1, 32](n, cupy.asarray(received[i]), cupy.empty((n,), dtype=np.float64))\n\n\n"
        "def exchange(n_float):\n"
        "    count = np.array(0, dtype=np.uint32)\n"
        "    add(np.zeros((n_float, count), dtype=np.float64))\n")
    assert list(_launch_types([tmp_path / "buffers.py"]).values()) == [["int64", "float64[::1]", "float64[::1]"]]


def test_getattr_of_a_pair_from_a_list_of_pairs_is_what_every_pair_gives(tmp_path):
    """`[(self, 'x'), (self.ionizer, 'w')]` walked with `getattr(pair[0], pair[1])`: object and
    name are taken together, so the value is typed where every pair names an attribute of
    the same type, and unknown where one does not."""
    (tmp_path / "species.py").write_text(
        "import cupy\nimport numpy as np\nfrom numba import cuda\n\n\n"
        "@cuda.jit\ndef scale(a):\n    a[0] *= 2\n\n\n"
        "class Ionizer:\n"
        "    def __init__(self):\n"
        "        self.w = cupy.zeros(8)\n"
        "        self.level = cupy.zeros(8, dtype=np.uint64)\n\n\n"
        "class Species:\n"
        "    def __init__(self):\n"
        "        self.x = cupy.zeros(8)\n"
        "        self.ionizer = Ionizer()\n\n"
        "    def scale_all(self):\n"
        "        pairs = [(self, 'x'), (self.ionizer, 'w')]\n"
        "        for pair in pairs:\n"
        "            scale[1, 1](getattr(pair[0], pair[1]))\n"
        "        mixed = [(self, 'x')]\n"
        "        mixed.append((self.ionizer, 'level'))\n"
        "        for i in range(len(mixed)):\n"
        "            scale[1, 1](getattr(mixed[i][0], mixed[i][1]))\n\n\n"
        "Species().scale_all()\n")
    assert list(_launch_types([tmp_path / "species.py"]).values()) == [["float64[::1]"], [None]]


@pytest.mark.parametrize("index, expected", [
    ("a[i]", "float64[::1]"), ("a[i, :]", "float64[::1]"), ("a[i, 1:3]", "float64[::1]"),
    ("a[:, i]", "float64[:]"), ("a[1:3]", "float64[:, ::1]"), ("a[1:3, :]", "float64[:, :]"),
    ("a[i, ::2]", "float64[:]"), ("f[:, i]", "float64[::1]"), ("f[i]", "float64[:]"),
])
def test_indexing_keeps_an_array_contiguous_where_numba_does(index, expected):
    source = ("i = 1\na = np.zeros((4, 5))\nf = np.asfortranarray(np.zeros((4, 5)))\n" + index)
    assert type_text(source)[0] == expected


@pytest.mark.parametrize("reads, expected", [
    ("p.x, p.ux, p.w", ["float64[::1]"]),  # only Species has all three
    ("p.x, p.w", [None]),  # two attributes say too little
    ("p.x, p.ux, p.n", [None]),  # Species and Beam both have them
    ("p.x, p.ux, p.charge", ["float32[::1]"]),  # Beam's base gives it `charge`
])
def test_a_parameter_whose_attributes_one_class_has_is_an_object_of_it(tmp_path, reads, expected):
    (tmp_path / "particles.py").write_text(
        "import cupy\n\n\n"
        "class Species:\n"
        "    def __init__(self, n):\n"
        "        self.n = n\n        self.x = cupy.zeros(8)\n        self.ux = cupy.zeros(8)\n"
        "        setattr(self, 'w', cupy.ones(8))\n\n\n"
        "class Charged:\n    charge = -1\n\n\n"
        "class Beam(Charged):\n"
        "    def __init__(self, n):\n"
        "        self.n = n\n        self.x = cupy.zeros(8, dtype=cupy.float32)\n        self.ux = cupy.zeros(8)\n")
    (tmp_path / "diag.py").write_text(
        "from numba import cuda\n\n\n"
        "@cuda.jit\ndef scale(a):\n    a[0] *= 2\n\n\n"
        f"def write(p):\n    {reads}\n    scale[1, 1](p.x)\n")
    assert list(_launch_types([tmp_path / "diag.py"]).values()) == [expected]


def test_a_file_is_read_again_a_bounded_number_of_times(tmp_path, monkeypatch):
    """Each pass carries a caller's types one function further down a chain defined above
    its callers: a short chain is typed to its launch, a long one stops at MAX_READS passes
    (its launch unknown, not guessed)."""
    def chain(n):
        functions = "".join(f"def f{i}(a):\n    f{i + 1}(a)\n\n\n" for i in range(n))
        return ("import numpy as np\nfrom numba import cuda\n\n\n"
                "@cuda.jit\ndef scale(a):\n    a[0] *= 2\n\n\n" + functions +
                f"def f{n}(a):\n    scale[1, 1](cuda.to_device(a))\n\n\n"
                "f0(np.zeros(3, dtype=np.float32))\n")
    passes = []
    original = host_reader.HostReader.read

    def counted(self):
        facts = original(self)
        passes.append(self._reads)
        return facts

    monkeypatch.setattr(host_reader.HostReader, "read", counted)
    (tmp_path / "short.py").write_text(chain(2))
    assert list(_launch_types([tmp_path / "short.py"]).values()) == [["float32[::1]"]]
    (tmp_path / "long.py").write_text(chain(12))
    passes.clear()
    assert list(_launch_types([tmp_path / "long.py"]).values()) == [[None]]
    assert max(passes) == host_reader.MAX_READS


def test_a_helper_defined_in_the_test_gives_what_it_returns(tmp_path):
    """`expected = reshaped(arr, (24,))` of a helper the test defines: its return type, as a
    module-level helper's would be; a helper reading the test's own names is a closure whose
    values its reading would not see, and gives nothing."""
    (tmp_path / "test_reshape.py").write_text(
        "import numpy as np\nfrom numba import cuda\n\n\n"
        "@cuda.jit\ndef copy(a, out):\n    out[0] = a[0]\n\n\n"
        "def test_reshape():\n"
        "    def reshaped(a, shape):\n        return a.reshape(shape)\n\n"
        "    arr = np.arange(24)\n"
        "    expected = reshaped(arr, (4, 6))\n"
        "    got = np.zeros(expected.shape, dtype=arr.dtype)\n"
        "    copy[1, 1](arr, got)\n\n\n"
        "def test_closure():\n"
        "    shape = (4, 6)\n\n"
        "    def reshaped(a):\n        return a.reshape(shape)\n\n"
        "    arr = np.arange(24)\n"
        "    got = np.zeros(reshaped(arr).shape, dtype=arr.dtype)\n"
        "    copy[1, 1](arr, got)\n")
    assert list(_launch_types([tmp_path / "test_reshape.py"]).values()) == [
        ["int64[::1]", "int64[:, ::1]"], ["int64[::1]", None]]


@pytest.mark.parametrize("flag_test, launch_test, rebinds, expected", [
    ("self.use_cuda", "use_cuda", "", "float32[::1]"),  # a local name assigned from the flag
    ("use_cuda", "use_cuda", "", "float32[::1]"),
    ("not self.use_cuda", "use_cuda", "", "float32[::1]"),  # the sides swapped
    ("self.use_cuda", "not use_cuda", "", "float64[::1]"),  # launched where NumPy drew them
    ("self.use_cuda", "use_cuda", "use_cuda = self.other", None),  # the name now stands for another flag
    ("self.use_cuda", "use_cuda", "rand = make(n)", "float64[::1]"),  # rebound after the `if`: that
    ("self.use_cuda", "self.other", "", None),  # another flag: either side's draw
    ("self.use_cuda", "use_cuda", "rand = make_unknown(n)", None),  # rebound to what reading cannot type
])
def test_an_if_on_the_flag_an_earlier_if_tested_takes_that_sides_values(tmp_path, flag_test, launch_test,
                                                                       rebinds, expected):
    """`if self.use_cuda: rand = cupy...` / `else: rand = np...`, then `if use_cuda: launch`:
    the launch sees the CuPy array; where anything says otherwise, the merge (unknown)."""
    cupy_first = not flag_test.startswith("not ")
    draws = ["rand = cupy.random.rand(n, dtype=cupy.float32)", "rand = np.random.rand(n)"]
    first, second = draws if cupy_first else draws[::-1]
    (tmp_path / "ionize.py").write_text(textwrap.dedent(f'''
        import cupy
        import numpy as np
        from numba import cuda

        @cuda.jit
        def draw(out, rand):
            out[0] = rand[0]

        def make(n):
            return np.ones(n)

        class Ionizer:
            def __init__(self, use_cuda, other):
                self.use_cuda = use_cuda
                self.other = other

            def ionize(self, n: int):
                use_cuda = self.use_cuda
                out = cupy.zeros(8, dtype=cupy.float32)
                if {flag_test}:
                    {first}
                else:
                    {second}
                {rebinds}
                if {launch_test}:
                    draw[1, 32](out, rand)
    '''))
    [types] = _launch_types([tmp_path / "ionize.py"]).values()
    assert types[1] == expected


def test_a_number_each_side_of_a_flag_binds_is_taken_under_the_same_flag(tmp_path):
    """The merge of float32 and float64 numbers is unknown; under the flag, the flag's side."""
    (tmp_path / "scaled.py").write_text(textwrap.dedent('''
        import numpy as np
        from numba import cuda

        @cuda.jit
        def scale(out, factor):
            out[0] *= factor

        def run(single: bool):
            out = cuda.device_array(8, dtype=np.float32)
            if single:
                factor = np.float32(0.5)
            else:
                factor = np.float64(0.5)
            if single:
                scale[1, 32](out, factor)
            scale[1, 32](out, factor)
    '''))
    launches = _launch_types([tmp_path / "scaled.py"])
    assert [types[1] for _, types in sorted(launches.items())] == ["float32", None]


def _mode_signatures(path):
    """Each launch's signatures from its object's modes: (line, kernel) -> sorted signatures."""
    found = {}
    for launch in host_reader.file_host_facts(Project(), str(path)).passed_launches:
        found.setdefault((launch.place.line, launch.kernel.qualname), []).append(launch.signature)
    return {key: sorted(value) for key, value in found.items()}


MODED_CLASS = '''
import numpy as np
from numba import cuda


class Coefficients:
    def __init__(self, k, dt, V=None, kind="exact"):
        self.V = V
        self.kind = kind
        if V is None or V == 0:
            self.coef = np.cos(k * dt)
        else:
            self.coef = np.exp(1.j * k * V * dt)
        if self.kind == "fast":
            self.scale = np.ones(4, dtype=np.float32)
        else:
            self.scale = np.ones(4)

    def send_to_gpu(self):
        self.d_coef = cuda.to_device(self.coef)
'''


@pytest.mark.parametrize("guard, expected", [
    ("if ps.V is None:", ["void(float64[::1], float64[::1])"]),
    # V is not None: at rest (V == 0) the real arrays, moving the complex ones
    ("if ps.V is not None:", ["void(float64[::1], complex128[::1])", "void(float64[::1], float64[::1])"]),
    ("if ps.V is not None and ps.V != 0:", ["void(float64[::1], complex128[::1])"]),
    ("if not (ps.V is None or ps.V == 0.):", ["void(float64[::1], complex128[::1])"]),
    ("if True:", ["void(float64[::1], complex128[::1])", "void(float64[::1], float64[::1])"]),  # no mode test
    ("if other.V is None:", ["void(float64[::1], complex128[::1])", "void(float64[::1], float64[::1])"]),
])
def test_an_attribute_typed_by_the_objects_mode_takes_the_modes_the_launch_tests(tmp_path, guard, expected):
    """`self.coef` is real where `V is None or V == 0` and complex elsewhere (one reading:
    unknown); `d_coef` moves it to the GPU in another method. A launch under a test of the
    same object's `V` gets the types of the worlds its test allows, one signature each."""
    (tmp_path / "coefs.py").write_text(textwrap.dedent(MODED_CLASS))
    (tmp_path / "push.py").write_text(textwrap.dedent(f'''
        import numpy as np
        from numba import cuda
        from coefs import Coefficients


        @cuda.jit
        def push(out, coef):
            out[0] = abs(coef[0])


        def step(ps: Coefficients, other: Coefficients):
            out = cuda.device_array(4)
            {guard}
                push[1, 32](out, ps.d_coef)


        def main():
            ps = Coefficients(np.ones(4), 0.1, 0.5)
            ps.send_to_gpu()
            step(ps, Coefficients(np.ones(4), 0.1))
    '''))
    (tmp_path / "pyproject.toml").write_text("")
    assert list(_mode_signatures(tmp_path / "push.py").values()) == [expected]


def test_a_mode_of_a_class_in_the_launching_file_and_of_a_string_attribute(tmp_path):
    """The class beside the launch (read in the same pass), and a mode named by a string:
    `kind == "fast"` makes a float32 scale; a launch that tests neither gets both."""
    (tmp_path / "coefs.py").write_text(textwrap.dedent(MODED_CLASS + '''

        @cuda.jit
        def rescale(out, scale):
            out[0] *= scale[0]


        def run(ps: Coefficients):
            out = cuda.device_array(4)
            if ps.kind == "fast":
                rescale[1, 32](out, ps.scale)
            rescale[1, 32](out, ps.scale)


        def main():
            run(Coefficients(np.ones(4), 0.1, kind="fast"))
    '''))
    signatures = _mode_signatures(tmp_path / "coefs.py")
    assert sorted(signatures.values()) == [["void(float64[::1], float32[::1])"],
                                           ["void(float64[::1], float32[::1])", "void(float64[::1], float64[::1])"]]


@pytest.mark.parametrize("stores, expected", [
    # the store names the width; the code names only float32, so the other floats are float32 too
    ("out[i] = np.float32(0.)", "void(float32[::1], float32)"),
    ("out[i] = numba.float32(v[i])", "void(float32[::1], float32[::1])"),
    ("out[i] = np.float64(0.)", "void(float64[::1], float64)"),
    ("out[i] = np.float32(0.)\n    out[i + 1] = v * 0.5", "void(float32[::1], float32)"),
    ("out[i] = np.float32(0.)\n    out[i + 1] = np.float64(v)", "void(float64[::1], float64)"),  # widths disagree
    ("out[i] = float(v[i])", "void(float64[::1], float64[::1])"),
    ("out[i] = v[i] * 0.5", "void(float64[::1], float64[::1])"),  # a literal names no width: as read
])
def test_the_float_widths_the_code_names_give_its_floats(tmp_path, stores, expected):
    from kernlint.python.signatures.inference import inferred_signatures

    path = tmp_path / "k.py"
    path.write_text("import numba\nimport numpy as np\nfrom numba import cuda\n\n\n@cuda.jit\ndef k(out, v):\n"
                    "    i = cuda.grid(1)\n    " + stores + "\n")
    [(signature, variant), *_] = inferred_signatures(Project().module(str(path)).kernels[0])
    assert signature == expected
    assert variant == ("as its code writes: floats as float32" if "float32" in expected else "as read")


@pytest.mark.parametrize("body, expected", [
    # read only as items, integers: a shape (`x.shape`, `(nx, nz)`), not an array
    ("ix, iz = cuda.grid(2)\n    if ix < dims[0] and iz < dims[1]:\n        out[ix, iz] = half[0] // 2",
     "void(float64[:, ::1], UniTuple(int64, 2), UniTuple(int64, 1))"),
    ("for i in range(dims[2]):\n        out[dims[0], dims[1]] = half[0]",
     "void(float64[:, ::1], UniTuple(int64, 3), float64[::1])"),
    ("for i in range(dims[2]):\n        out[0, i] = half[0]", "void(float64[:, ::1], int64[::1], float64[::1])"),
    ("i = cuda.grid(1)\n    out[0, i] = dims[0] * 0.5 + half[1]", "void(float64[:, ::1], float64[::1], float64[::1])"),
    ("i = cuda.grid(1)\n    if i < dims[0]:\n        out[0, i] = dims[i]", "void(float64[:, ::1], float64[::1], float64)"),
    ("i = cuda.grid(1)\n    if i < dims[0]:\n        dims[1] = i", "void(float64, int64[::1], float64)"),
    ("i = cuda.grid(1)\n    if i < len(dims):\n        out[0, i] = dims[0] // 2", "void(float64[:, ::1], float64[::1], float64)"),
])
def test_items_of_a_shape_are_a_tuple_of_integers(tmp_path, body, expected):
    """Only literal indices, items used as integers: a tuple; indexed by a thread, stored
    into, or of floats: an array as before."""
    from kernlint.python.signatures.inference import inferred_signatures

    path = tmp_path / "k.py"
    path.write_text("from numba import cuda\n\n\n@cuda.jit\ndef k(out, dims, half):\n    " + body + "\n")
    assert inferred_signatures(Project().module(str(path)).kernels[0])[0][0] == expected


@pytest.mark.parametrize("body, expected", [
    ("cuda.atomic.inc(out, (i, 0), 4294967295)", "void(uint32[:, ::1], float64)"),
    ("cuda.atomic.dec(out, i, 18446744073709551615)", "void(uint64[::1], float64)"),
    ("cuda.atomic.add(out, i, 1)", "void(int64[::1], float64)"),
])
def test_atomic_increments_count_in_the_unsigned_arrays_numba_types_them_on(tmp_path, body, expected):
    """numba-cuda types `atomic.inc`/`atomic.dec` on uint32 and uint64 arrays only: a body
    that counts with them holds unsigned counters (the wrap value says which width)."""
    from kernlint.python.signatures.inference import inferred_signatures

    path = tmp_path / "k.py"
    path.write_text("from numba import cuda\n\n\n@cuda.jit\ndef k(out, x):\n    i = cuda.grid(1)\n"
                    "    if x > 0.5:\n        " + body + "\n")
    assert inferred_signatures(Project().module(str(path)).kernels[0])[0][0] == expected


def test_a_factory_s_kernels_share_the_widths_their_code_writes(tmp_path):
    """A kernel that names no width takes the one its factory's other GPU code writes (a
    module-level kernel only its own); integer elements are int32 where that code names no
    other integer width (a Python int scalar stays int64). The host code's arrays do not count."""
    from kernlint.python.signatures.inference import inferred_signatures

    def first(source, name):
        path = tmp_path / "k.py"
        path.write_text(textwrap.dedent(source))
        return inferred_signatures({k.name: k for k in Project().module(str(path)).kernels}[name])[0]

    factory = '''
        import numpy as np
        from numba import cuda


        def make(n):
            @cuda.jit(device=True)
            def first_cell(cells):
                return cells[0] + np.int32(1)

            @cuda.jit
            def zero(total):
                total[0] = np.float32(0.)

            @cuda.jit
            def shift(v, total, cells, count):
                i = cuda.grid(1)
                if i < count:
                    v[cells[i] + first_cell(cells)] -= total[0] / n
            return zero, shift


        @cuda.jit
        def shift_alone(v, total, count):
            for i in range(count):
                v[i] -= total[0]


        def buffers(n):
            return np.zeros(n, np.float32), np.zeros(n, dtype=np.int32)
    '''
    # `total`'s elements shift's body does not say: `zero`, made with it, stores float32 into it
    assert first(factory, "shift") == ("void(float32[::1], float32[::1], int32[::1], int64)",
                                       "as its code writes: floats as float32, integer elements as int32, 1 of 4 "
                                       f"parameters as the code written with it uses them@total: use in `zero` at "
                                       f"{tmp_path / 'k.py'}:12")
    assert first(factory, "shift_alone") == ("void(float64[::1], float64[::1], int64)", "as read")
    assert first(factory.replace("np.int32(1)", "np.intp(1)"), "shift") == (
        "void(float32[::1], float32[::1], int64[::1], int64)", "as its code writes: floats as float32, 1 of 4 "
        f"parameters as the code written with it uses them@total: use in `zero` at {tmp_path / 'k.py'}:12")
    assert first(factory.replace("total[0] = np.float32(0.)", "total[0] = float(n)"), "shift")[0] == \
        "void(float64[::1], float64[::1], int32[::1], int64)"


@pytest.mark.parametrize("guard, expected", [
    ("if u is None:\n        raise ValueError(element)", "void(float64[::1])"),
    ("if u is None:\n        return", "void(float64[::1])"),
    ("if u is None:\n        if strict:\n            raise ValueError(element)\n        else:\n            return",
     "void(float64[::1])"),
    ("if u is None:\n        print(element)", None),  # it goes on: still maybe None
    ("if u is None:\n        if strict:\n            raise ValueError(element)", None),  # only one side leaves
])
def test_a_side_that_leaves_binds_nothing_for_what_follows(tmp_path, guard, expected):
    """`u` is None or an array (the helper returns either); `if u is None: raise` leaves only
    the array after it."""
    (tmp_path / "guarded.py").write_text(textwrap.dedent('''
        import numpy as np
        from numba import cuda


        @cuda.jit
        def k(a):
            a[0] = 1.


        def energies(element):
            if element == "":
                return None
            return np.zeros(len(element))


        def run(element: str, strict: bool):
            u = energies(element)
            GUARD
            k[1, 1](u)
    ''').replace("GUARD", guard))
    [launch] = host_reader.file_host_facts(Project(), str(tmp_path / "guarded.py")).launches
    assert launch.signature == expected


def test_a_cache_a_function_fills_with_what_it_returns_returns_that():
    """`return cache[key]` where the function stores only its other return value in the cache."""

    memo = ast.parse(textwrap.dedent('''
        def get(key):
            if key in cache:
                return cache[key]
            value = compute(key)
            cache[key] = value
            return value
    ''')).body[0]
    assert len(memoized_returns(memo)) == 1
    other = ast.parse(textwrap.dedent('''
        def get(key):
            if key in cache:
                return cache[key]
            cache[key] = compute(key)  # what is stored is not what it returns
            return other(key)
    ''')).body[0]
    assert memoized_returns(other) == set()


def test_an_item_or_attribute_store_binds_no_name():
    from kernlint.python.static_types import unpacked

    assert list(unpacked(ast.parse("energies[level] = v").body[0].targets[0], INT)) == []
    assert list(unpacked(ast.parse("obj.x = v").body[0].targets[0], INT)) == []
    assert list(unpacked(ast.parse("a, b[i] = v").body[0].targets[0], None)) == [("a", None)]


def test_a_kernel_a_method_returns_is_launched_where_it_is_called(tmp_path):
    """`f = self.make(sigs)` then `f[1, 1](r, 1, 2)`: the kernel the method (of this object's
    class, or a base's) returns, typed by that launch, as a factory function's is."""
    (tmp_path / "made.py").write_text(textwrap.dedent('''
        import numpy as np
        from numba import cuda


        class Base:
            def make(self):
                @cuda.jit
                def fill(r, x):
                    r[0] = x
                return fill


        class Runner(Base):
            def run(self):
                f = self.make()
                r = np.zeros(1, dtype=np.int32)
                f[1, 1](r, 7)
    '''))
    [launch] = host_reader.file_host_facts(Project(), str(tmp_path / "made.py")).launches
    assert launch.kernel.qualname == "Base.make.fill" and launch.signature == "void(int32[::1], int64)"


def _inferred(path, source, name=None):
    """The first signature body inference gives the kernel ``name`` (the file's first kernel)
    of ``source``, written to ``path``."""
    from kernlint.python.signatures.inference import inferred_signatures

    path.write_text(source)
    kernels = Project().module(str(path)).kernels
    kernel = next(k for k in kernels if k.name == name) if name else kernels[0]
    return inferred_signatures(kernel)[0][0]


@pytest.mark.parametrize("loop, expected", [
    # iterated (a loop, `enumerate`, a comprehension): an array, though never indexed
    ("for f in freqs:\n        acc += f * scale", "void(float64[::1], float64[::1], float64)"),
    ("for n, f in enumerate(freqs):\n        acc += f * scale + n", "void(float64[::1], float64[::1], float64)"),
    ("acc = sum([f * scale for f in freqs])", "void(float64[::1], float64[::1], float64)"),
    # its neighbour: a number only multiplied stays a number
    ("acc = freqs * scale", "void(float64[::1], float64, float64)"),
])
def test_a_parameter_the_body_iterates_is_an_array(tmp_path, loop, expected):
    assert _inferred(tmp_path / "k.py", "from numba import cuda\n\n\n@cuda.jit\ndef k(out, freqs, scale):\n"
                     "    i = cuda.grid(1)\n    acc = 0.0\n    " + loop + "\n    out[i] = acc\n") == expected


@pytest.mark.parametrize("call, expected", [
    # a pixel's worth of indices taken, the rest passed to a device function that iterates it
    ("walk(out[y, x], other[y, x])", "void(float64[:, :, ::1], float64[:, :, ::1])"),
    # its neighbour: the device function reads a number, so the element is one
    ("scale(out[y, x], other[y, x])", "void(float64[:, :, ::1], float64[:, ::1])"),
])
def test_a_part_passed_to_a_device_function_that_iterates_it_has_its_dimensions(tmp_path, call, expected):
    source = ("from numba import cuda\n\n\n@cuda.jit(device=True)\ndef walk(row, values):\n"
              "    for v in values:\n        row[0] += v\n\n\n@cuda.jit(device=True)\ndef scale(row, v):\n"
              "    row[0] *= v\n\n\n@cuda.jit\ndef k(out, other):\n    ny, nx, n = out.shape\n"
              "    x, y = cuda.grid(2)\n    if x < nx and y < ny:\n        " + call + "\n")
    assert _inferred(tmp_path / "k.py", source, "k") == expected


@pytest.mark.parametrize("body, expected", [
    # a view indexed in a chain (`phi[i][j]`) takes as many dimensions as a tuple index would
    ("phi = fields[0]\n    phi_out = out[1]\n    phi_out[i][j] = phi[i][j]",
     "void(float64[:, :, ::1], float64[:, :, ::1])"),
    ("phi = fields[0]\n    row = phi[i]\n    out[i, j] = row[j]", "void(float64[:, :, ::1], float64[:, ::1])"),
    # a view's shape says its rank too: `c.shape[1]` of `c = fields[0]`
    ("c = fields[0]\n    if j < c.shape[1]:\n        out[i, j] = c[i, j]", "void(float64[:, :, ::1], float64[:, ::1])"),
    # the neighbour: a view indexed once stays a dimension below its owner
    ("phi = fields[0]\n    out[i, j] = phi[i]", "void(float64[:, ::1], float64[:, ::1])"),
    # the same array under another name: `cuda.const.array_like` hands its argument back
    ("w = cuda.const.array_like(fields)\n    out[i, j] = w[j] * 2.0", "void(float64[::1], float64[:, ::1])"),
    ("w = fields\n    out[i, j] = w[i, j]", "void(float64[:, ::1], float64[:, ::1])"),
    # the neighbour: a scalar copied under another name stays a scalar
    ("w = fields\n    out[i, j] = w * 2.0", "void(float64, float64[:, ::1])"),
])
def test_a_view_of_a_parameter_gives_the_parameter_its_dimensions(body, expected, tmp_path):
    assert _inferred(tmp_path / "k.py", "from numba import cuda\n\n\n@cuda.jit\ndef k(fields, out):\n"
                     "    i, j = cuda.grid(2)\n    " + body + "\n") == expected


def test_objects_of_several_classes_are_one_of_them():
    """A list filled with layers of several classes (`append`, a literal) holds objects of one
    of those classes; a parameter that callers pass either class to is one too; an attribute
    of such an object is unknown (each class stores its own), and too many classes are mixed."""
    from kernlint.python.static_types import (MAX_ALTERNATIVES, MIXED, Instances, ListType, appended, classes_of,
                                              instance)

    dense, relu = instance("/p/layers.py", "Dense"), instance("/p/layers.py", "Relu")
    layers = appended(appended(ListType(None), dense), relu)
    assert layers == ListType(Instances(frozenset({("/p/layers.py", "Dense"), ("/p/layers.py", "Relu")})))
    assert classes_of(layers.item) == (("/p/layers.py", "Dense"), ("/p/layers.py", "Relu"))
    assert appended(layers, dense) == layers and classes_of(dense) == (("/p/layers.py", "Dense"),)
    assert appended(layers, ScalarType("int64")) == ListType(MIXED) and classes_of(ScalarType("int64")) == ()
    many = ListType(None)
    for number in range(MAX_ALTERNATIVES + 1):
        many = appended(many, instance("/p/layers.py", f"Layer{number}"))
    assert many == ListType(MIXED)
    assert same_type(dense, relu) == layers.item and same_type(dense, dense) == dense
    assert same_type(dense, ScalarType("int64")) is None
    reader = TypeReader(lambda e: None, lambda name, want_dtype=False: None if want_dtype else {
        "layers": layers}.get(name), member=lambda obj, attr: None)
    assert reader.type_of(ast.parse("layers[0]").body[0].value) == layers.item
    assert reader.type_of(ast.parse("layers[0].d_w").body[0].value) is None


BIT_HELPERS = '''
from numba import cuda


@cuda.jit(device=True)
def bit_of(position, index):
    return (index & (2 ** position)) // (2 ** position)


@cuda.jit(device=True)
def without_bit(number, position):
    low = number & ((1 << position) - 1)
    return low + ((number >> position) << (position + 1))


@cuda.jit(device=True)
def without_bits(number, positions, count):
    lowest = positions[0]
    for n in range(count):
        number = without_bit(number, lowest)
    return number


@cuda.jit(device=True)
def halved(value):
    return value * 0.5
'''


@pytest.mark.parametrize("body, expected", [
    # an element handed to a helper that masks with it: the array holds integers
    ("for q in range(n):\n        out[i] += bit_of(qubits[q], i)", "void(float64[::1], int64[::1], int64)"),
    # a local taken from an element, then shifted by in a helper two calls down
    ("out[i] = without_bits(i, qubits, n)", "void(float64[::1], int64[::1], int64)"),
    # a shift in the kernel itself, by an element
    ("for q in range(n):\n        out[i] += i >> qubits[q]", "void(float64[::1], int64[::1], int64)"),
    # a mask against a power of two, by a local taken from an element
    ("b = qubits[n]\n    out[i] = i & (2 ** b)", "void(float64[::1], int64[::1], int64)"),
    # the false neighbours: an element handed to a helper that takes a number, or compared
    ("out[i] = halved(qubits[i])", "void(float64[::1], float64[::1], float64)"),
    ("if qubits[i] > 0.5:\n        out[i] = 0.5 * (i >> n)", "void(float64[::1], float64[::1], int64)"),
])
def test_elements_a_bitwise_operator_takes_are_integers(tmp_path, body, expected):
    """numba has no bitwise operator on floats: an element (or a local holding one) that a
    shift, or a mask against integer arithmetic, takes (in the kernel or in the device functions
    it calls) belongs to an array of integers; elsewhere elements stay float64 as read."""
    from kernlint.python.signatures.inference import inferred_signatures

    path = tmp_path / "k.py"
    path.write_text(textwrap.dedent(BIT_HELPERS) + "\n\n@cuda.jit\ndef k(out, qubits, n):\n"
                    "    i = cuda.grid(1)\n    " + body + "\n")
    kernel = next(k for k in Project().module(str(path)).kernels if k.name == "k")
    assert inferred_signatures(kernel)[0][0] == expected


@pytest.mark.parametrize("store, expected", [
    ("m[i, j] = 0", "void(float64[:, ::1])"),  # cleared: a float matrix as well as an integer one
    ("m[i, j] = 0.0", "void(float64[:, ::1])"),
    ("m[i, j] = i", "void(int64[:, ::1])"),  # an index stored: integers
    ("m[i, j] = 1", "void(int64[:, ::1])"),  # a flag set: integers, as before
])
def test_a_matrix_cleared_with_a_literal_zero_is_not_taken_for_integers(tmp_path, store, expected):
    from kernlint.python.signatures.inference import inferred_signatures

    path = tmp_path / "k.py"
    path.write_text("from numba import cuda\n\n\n@cuda.jit\ndef zero(m):\n    i, j = cuda.grid(2)\n"
                    f"    if i < m.shape[0] and j < m.shape[1]:\n        {store}\n")
    assert inferred_signatures(Project().module(str(path)).kernels[0])[0][0] == expected


def test_an_element_a_helper_only_compares_with_zero_stays_float(tmp_path):
    """`isnull(agg[y, x, i])`, where `isnull` compares its value with 0: numba compares floats
    too, so the comparison says nothing of the elements (a shift or a subscript would)."""
    from kernlint.python.signatures.inference import inferred_signatures

    path = tmp_path / "k.py"
    path.write_text(textwrap.dedent('''
        from numba import cuda


        @cuda.jit(device=True)
        def isnull(val):
            return not (val <= 0 or val > 0)


        @cuda.jit
        def k(agg, out):
            i = cuda.grid(1)
            if not isnull(agg[i]):
                out[i] = agg[i]
    '''))
    kernel = next(k for k in Project().module(str(path)).kernels if k.name == "k")
    assert inferred_signatures(kernel)[0][0] == "void(float64[::1], float64[::1])"


def test_a_level_as_deep_as_the_one_below_compares_only_what_the_reading_took(tmp_path):
    """A file consulted for one global's type, whose classes read differently one level
    deeper (a helper's return type is read only for GPU code), does not make the file that
    took the global be read again; a file that took a class's attribute is."""
    (tmp_path / "buffers.py").write_text(textwrap.dedent("""\
        import numpy as np

        DTYPE = np.float32


        def make_buffer(n):
            return np.zeros(n, dtype=np.float32)


        class Holder:
            def __init__(self, n):
                self.buf = make_buffer(n)
        """))
    (tmp_path / "takes_global.py").write_text(textwrap.dedent("""\
        import numpy as np
        from buffers import DTYPE

        out = np.zeros(8, dtype=DTYPE)
        """))
    (tmp_path / "takes_attribute.py").write_text(textwrap.dedent("""\
        from buffers import Holder

        out = Holder(8).buf
        """))
    project = Project()
    buffers = str(tmp_path / "buffers.py")
    below = host_reader.read_host(project, project.module(buffers), 0)
    above = host_reader.read_host(project, project.module(buffers), 1)
    assert below.globals["DTYPE"] == above.globals["DTYPE"]
    assert below.class_attributes != above.class_attributes  # (what makes the levels differ)
    for name, reused in (("takes_global", True), ("takes_attribute", False)):
        module = project.module(str(tmp_path / f"{name}.py"))
        one = host_reader.read_host(project, module, 1)
        assert list(project.host_uses[(module.path, 1)]) == [buffers]
        assert (host_reader.read_host(project, module, 2) is one) is reused, name
    assert project.host_uses[(str(tmp_path / "takes_global.py"), 1)][buffers] == {"globals": {"DTYPE"}}


@pytest.mark.parametrize("source, expected", [
    # NumPy's joining functions: the items' result type, in the rank each function gives
    ("x = np.linspace(0, 1, 5)\nnp.column_stack((x, x * 2))", ("float64[:, ::1]", "host")),
    ("x = np.zeros(3, np.float32)\nnp.vstack([x, x])", ("float32[:, ::1]", "host")),
    ("x = np.zeros((2, 3))\nnp.stack([x, x], axis=0)", ("float64[:, :, ::1]", "host")),
    ("x = np.zeros((2, 3), np.int32)\nnp.concatenate([x, x])", ("int32[:, ::1]", "host")),
    ("np.concatenate((np.zeros((2, 2)), np.ones(3)), axis=None)", ("float64[::1]", "host")),  # flattened
    ("x = np.zeros(3)\nnp.dstack((x, x))", ("float64[:, :, ::1]", "host")),
    ("cp.vstack((cp.zeros(3), cp.zeros(3)))", ("float64[:, ::1]", "device")),
    ("x = np.zeros(3, np.float32)\nnp.hstack((x, 1.5))", ("float64[::1]", "host")),  # 1.5 joins as float64
    ("x = np.zeros(3, np.float32)\nnp.hstack((x, np.float32(1.5)))", ("float32[::1]", "host")),
    ("np.concatenate((np.zeros((2, 2)), np.ones(3)))", None),  # NumPy refuses ranks that differ
    ("np.stack((1.0, 2.0))", None),
    ("np.vstack((x, x))", None),  # an unknown item
    # a matrix is a 2-d array to numba; rows a comprehension makes are one more dimension
    ("np.asmatrix([[1, 2], [3, 4]])", ("int64[:, ::1]", "host")),
    ("np.asmatrix(np.zeros(4, np.float32))", ("float32[:, ::1]", "host")),
    ("np.asmatrix(np.zeros((2, 2, 2)))", None),
    ("rows = [[i, 2 * i] for i in range(4)]\nnp.array(rows, dtype=np.float32)", ("float32[:, ::1]", "host")),
    ("rows = [(i, 2.5) for i in range(4)]\nnp.array(rows)", ("float64[:, ::1]", "host")),
    # a slice of an array of unknown rank is an array of its elements; an integer alone may be a number
    ("b = np.zeros(n, dtype=np.float32)\nb[:, 0]", (None, "host")),
    ("b = np.zeros(n, dtype=np.float32)\nb[:, 0].dtype", None),
    ("b = np.zeros(n, dtype=np.float32)\nb[0]", None),
    ("b = np.zeros(n, dtype=np.float32)\nb[:, x]", None),
])
def test_joined_and_nested_arrays_are_typed_as_numpy_makes_them(source, expected):
    assert type_text(source) == expected


def test_class_numbers_dataclass_fields_factories_and_properties_type_launches(tmp_path):
    """What a class body binds is what its objects hold where no method stores another (a
    dataclass's fields by their annotations); a static factory and a computed property give
    what they return; a field that is None by default says nothing; an attribute None until a
    method stores an array converts as that array."""
    (tmp_path / "sim.py").write_text(textwrap.dedent('''
        import copy
        import random
        from dataclasses import dataclass

        import numpy as np
        from numba import cuda


        @cuda.jit
        def k(a, b, c):
            a[0] = b + c


        @dataclass
        class Settings:
            steps: int = 10
            dt: float = 0.5
            gain: float = None
            scale: np.float32 = np.float32(2.0)


        class Body:
            threads = 64
            mass = 1  # a method stores a float here: the object's own value wins
            def __init__(self, points):
                self._points = points
                self.heights = None  # until grow(): where it is converted, the array
            def grow(self):
                self.heights = np.zeros((4, 4))
            def heavier(self):
                self.mass = 2.5
            @property
            def points(self):
                return np.array(self._points, dtype=np.float32)
            @staticmethod
            def unit():
                return Body([[0.0, 1.0], [1.0, 0.0]])


        def run(settings: Settings):
            out = cuda.device_array(3, dtype=np.float32)
            body = copy.deepcopy(Body.unit())
            k[1, 1](out, settings.steps, settings.dt)
            k[1, 1](out, settings.scale, body.threads)
            k[1, 1](cuda.to_device(body.points), random.randint(0, 9), random.random())
            k[1, 1](out, body.mass, settings.steps)
            k[1, 1](cuda.to_device(body.heights.astype(np.float32)), body.mass, settings.steps)
            k[1, 1](out, settings.gain, settings.steps)


        run(Settings(steps=20))
        '''))
    facts = host_reader.file_host_facts(Project(), str(tmp_path / "sim.py"))
    lines = (tmp_path / "sim.py").read_text().splitlines()
    signatures = {lines[launch.place.line - 1].strip().partition("](")[2]: launch.signature
                  for launch in facts.launches if launch.kernel}
    assert signatures == {"out, settings.steps, settings.dt)": "void(float32[::1], int64, float64)",
                          "out, settings.scale, body.threads)": "void(float32[::1], float32, int64)",
                          "cuda.to_device(body.points), random.randint(0, 9), random.random())":
                              "void(float32[:, ::1], int64, float64)",
                          "out, body.mass, settings.steps)": "void(float32[::1], float64, int64)",
                          "cuda.to_device(body.heights.astype(np.float32)), body.mass, settings.steps)":
                              "void(float32[:, ::1], float64, int64)",
                          "out, settings.gain, settings.steps)": None}


@pytest.mark.parametrize("body, expected", [
    ("low, high = limits[i]", "void(float64[:, ::1], float64[::1])"),
    ("(low, high) = limits[i, :]", "void(float64[:, ::1], float64[::1])"),
    ("row = limits[i]\n    low, high = row[0]", "void(float64[:, :, ::1], float64[::1])"),
    ("low, high = limits[i][0]", "void(float64[:, :, ::1], float64[::1])"),
    ("low, high = limits[0:2]", "void(float64[::1], float64[::1])"),
])
def test_an_item_that_is_unpacked_is_a_row(tmp_path, body, expected):
    """`low, high = limits[i]`: numba cannot unpack a number (`failed to unpack float64`), so
    what the index gives is a row and the array has a dimension more than the index takes."""
    from kernlint.python.signatures.inference import inferred_signatures

    path = tmp_path / "k.py"
    path.write_text("from numba import cuda\n\n\n@cuda.jit\ndef k(limits, out):\n    i = cuda.grid(1)\n"
                    "    " + body + "\n    out[i] = low + high\n")
    assert inferred_signatures(Project().module(str(path)).kernels[0])[0][0] == expected


def test_the_items_of_an_unpacked_row_used_as_indices_make_the_array_hold_integers(tmp_path):
    """`i, j, i1, j1 = cells[n]`, then `h[Ni * i + j]`: numba indexes with no float, so the
    cells are integers (inferred as floats, numba refused every candidate)."""
    from kernlint.python.signatures.inference import inferred_signatures

    path = tmp_path / "k.py"
    path.write_text("from numba import cuda\n\n\n@cuda.jit\ndef k(h, cells, factor, count, Ni):\n"
                    "    n = cuda.grid(1)\n    if n < count:\n        i, j, i1, j1 = cells[n]\n"
                    "        m = Ni * i + j\n        m1 = Ni * i1 + j1\n"
                    "        h[m] = factor[n, 0] + factor[n, 1] * (h[m1] - h[m])\n")
    assert inferred_signatures(Project().module(str(path)).kernels[0])[0][0] == (
        "void(float64[::1], int64[:, ::1], float64[:, ::1], int64, int64)")


@pytest.mark.parametrize("loop, expected", [
    # the rows of `offsets` are unpacked, and their items index the grid: integer rows
    ("for dx, dy in offsets:\n        total += grid[i + dx, j + dy]",
     "void(float64[:, ::1], int64[:, ::1], float64[:, ::1])"),
    ("for n, (dx, dy) in enumerate(offsets):\n        total += grid[i + dx, j + dy] * n",
     "void(float64[:, ::1], int64[:, ::1], float64[:, ::1])"),
    ("for dx, w in zip(offsets, offsets):\n        total += grid[i + dx, j] * w",
     "void(float64[:, ::1], int64[::1], float64[:, ::1])"),
    # what an index leaves of `offsets` is iterated: one dimension more than the index takes
    ("for w in offsets[i][j]:\n        total += grid[i, j] * w",
     "void(float64[:, ::1], float64[:, :, ::1], float64[:, ::1])"),
    # each item of `offsets` is itself indexed: a row, so `offsets` has two dimensions
    ("for row in offsets:\n        total += grid[i, j] * row[0]",
     "void(float64[:, ::1], float64[:, ::1], float64[:, ::1])"),
    ("for n, row in enumerate(offsets):\n        total += row[n] * grid[i, j]",
     "void(float64[:, ::1], float64[:, ::1], float64[:, ::1])"),
    # an item used as a number leaves it one-dimensional
    ("for w in offsets:\n        total += grid[i, j] * w",
     "void(float64[:, ::1], float64[::1], float64[:, ::1])"),
])
def test_what_a_loop_iterates_is_an_array_whose_items_its_targets_are(tmp_path, loop, expected):
    """`for dx, dy in offsets:` iterates rows of a 2-d array (inferred 1-d, numba failed to unpack
    a float); each target is an item of it, so an index made of it makes it hold integers."""
    from kernlint.python.signatures.inference import inferred_signatures

    path = tmp_path / "k.py"
    path.write_text("from numba import cuda\n\n\n@cuda.jit\ndef k(grid, offsets, out):\n"
                    "    i, j = cuda.grid(2)\n    total = 0.0\n    " + loop + "\n    out[i, j] = total\n")
    assert inferred_signatures(Project().module(str(path)).kernels[0])[0][0] == expected


def test_an_item_of_an_indexed_row_used_as_an_index_makes_the_array_hold_integers(tmp_path):
    """`a = edges[e][0]` then `locations[a]`: the edges hold integers (inferred as floats, numba
    refused every candidate)."""
    from kernlint.python.signatures.inference import inferred_signatures

    path = tmp_path / "k.py"
    path.write_text("from numba import cuda\n\n\n@cuda.jit\ndef k(edges, locations, out):\n"
                    "    e = cuda.grid(1)\n    a = edges[e][0]\n    b = edges[e][1]\n"
                    "    out[e] = locations[a] - locations[b]\n")
    assert inferred_signatures(Project().module(str(path)).kernels[0])[0][0] == (
        "void(int64[:, ::1], float64[::1], float64[::1])")
