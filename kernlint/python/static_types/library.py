"""The types of what the array libraries' calls make (NumPy, CuPy, SciPy's special functions,
torch, numba.cuda's allocators) and of the arrays' methods, read from the calls' arguments."""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import List, Optional, Tuple

from .dtypes import XOROSHIRO, _ARRAY_MODULES, _INT_ORDER, _numpy_spelling, dtype_name, numeric
from .values import (ArrayType, ListType, Opaque, ScalarType, TupleType, Type, _not_none, _result_type, _shaped,
                     instance_of)


_TORCH_FACTORIES = ("zeros", "ones", "empty", "rand", "randn", "full", "arange", "tensor", "as_tensor",
                    "zeros_like", "ones_like", "empty_like", "rand_like", "randn_like", "full_like", "linspace")


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


# NumPy's (and CuPy's) functions that join arrays, and the least rank each gives: vectors
# stacked as rows or columns make a matrix, `dstack` a 3-d array
_JOINING = {"concatenate": 1, "stack": 1, "hstack": 1, "vstack": 2, "row_stack": 2, "column_stack": 2,
            "dstack": 3}
# functions that read an image file into a NumPy array (its elements and rank depend on the file)
IMAGE_READERS = frozenset({"cv2.imread", "cv2.imdecode", "imageio.imread", "imageio.v2.imread", "imageio.v3.imread",
                           "skimage.io.imread", "matplotlib.pyplot.imread", "matplotlib.image.imread"})
# OpenCV's flags for 8-bit images of a known rank: grey (2) and colour (3, OpenCV's default)
_OPENCV_RANKS = {"IMREAD_GRAYSCALE": 2, "IMREAD_COLOR": 3, 0: 2, 1: 3}
# OpenCV's image-to-image functions whose result has the elements and rank of the image given
_OPENCV_SAME = frozenset({"resize", "GaussianBlur", "blur", "medianBlur", "bilateralFilter", "boxFilter", "flip",
                          "rotate", "warpAffine", "warpPerspective", "remap", "copyMakeBorder", "erode", "dilate",
                          "morphologyEx", "equalizeHist", "pyrDown", "pyrUp", "transpose"})

# scikit-image's image functions (NumPy in, NumPy out: scikit-image makes host arrays whatever it is
# given), by the element type each gives ("" that of its input, None unknown) and its rank ("same"
# as its input's, "less" one less: a colour image made grey, None unknown)
_SKIMAGE_IMAGES = {
    "feature.canny": ("boolean", "same"),
    "color.rgb2gray": ("float64", "less"), "color.rgba2rgb": ("float64", "same"), "color.gray2rgb": (None, None),
    "color.rgb2hsv": ("float64", "same"), "color.hsv2rgb": ("float64", "same"), "color.rgb2lab": ("float64", "same"),
    "img_as_float": ("float64", "same"), "img_as_float64": ("float64", "same"), "img_as_float32": ("float32", "same"),
    "img_as_ubyte": ("uint8", "same"), "img_as_uint": ("uint16", "same"), "img_as_int": ("int16", "same"),
    "img_as_bool": ("boolean", "same"),
    "transform.resize": ("float64", "same"), "transform.rescale": (None, "same"), "transform.rotate": ("float64", "same"),
    "transform.warp": ("float64", "same"), "transform.downscale_local_mean": ("float64", "same"),
    "filters.gaussian": ("float64", "same"), "filters.sobel": ("float64", "same"), "filters.median": ("", "same"),
    "filters.laplace": ("float64", "same"), "filters.prewitt": ("float64", "same"), "filters.scharr": ("float64", "same"),
    "exposure.equalize_hist": ("float64", "same"), "exposure.rescale_intensity": ("", "same"),
    "exposure.equalize_adapthist": ("float64", "same"),
    "morphology.binary_erosion": ("boolean", "same"), "morphology.binary_dilation": ("boolean", "same"),
    "morphology.binary_opening": ("boolean", "same"), "morphology.binary_closing": ("boolean", "same"),
    "morphology.skeletonize": ("boolean", "same"), "morphology.erosion": ("", "same"),
    "morphology.dilation": ("", "same"),
    "util.random_noise": ("float64", "same"), "util.invert": ("", "same"),
    # the sample images: colour or grey, 8-bit
    "data.camera": ("uint8", None), "data.chelsea": ("uint8", None), "data.astronaut": ("uint8", None),
    "data.coins": ("uint8", None), "data.moon": ("uint8", None), "data.coffee": ("uint8", None),
    "data.horse": ("boolean", None), "data.checkerboard": ("uint8", None),
}


class LibraryCalls:
    """The types of what the array libraries' calls make: NumPy, CuPy and their ``random`` and
    ``linalg``, SciPy's special functions, torch's factories, numba.cuda's allocators, and the
    methods of the arrays they make. Reads its arguments through ``reader`` (the
    ``TypeReader`` of the function the call is in)."""

    def __init__(self, reader):
        self.reader = reader

    def array_constructor(self, module: str, function: str, expr: ast.Call, keywords, where: str) -> Type:
        args = expr.args
        scalar = dtype_name(function)
        if scalar and module in _ARRAY_MODULES and function not in ("bool", "int", "float", "complex"):
            given = self._host_operand(args[0]) if len(args) == 1 and not keywords else None
            if given is not None:
                # `np.int32(rec_x / dx)` converts a host array; CuPy's scalar types are NumPy's
                # (`cp.int32 is np.int32`), so `cp.int32(host)` is a NumPy array too
                return ArrayType(scalar, given.ndim, "C", "host", "numpy")
            return ScalarType(scalar)  # np.float32(1.5)
        explicit = self.reader.dtype(keywords.get("dtype"))
        order = keywords.get("order")
        layout = "F" if isinstance(order, ast.Constant) and order.value == "F" else "C"
        if function in ("zeros", "ones", "empty", "recarray"):  # a recarray is a record array to numba
            dtype = explicit or (self.reader.dtype(args[1]) if len(args) > 1 else None) or (
                None if "dtype" in keywords or len(args) > 1 else "float64")
            ndim = self._ndim_of_shape(args[0] if args else keywords.get("shape"))
            return ArrayType(dtype, ndim, layout, where)
        if function in ("fromfile", "frombuffer"):  # a flat array of what the data holds: `dtype`'s elements
            dtype = explicit or (self.reader.dtype(args[1]) if len(args) > 1 else None) or (
                None if "dtype" in keywords or len(args) > 1 else "float64")
            return ArrayType(dtype, 1, "C", where)
        if function == "full":
            fill = args[1] if len(args) > 1 else keywords.get("fill_value")
            dtype = explicit or (self.reader.dtype(args[2]) if len(args) > 2 else None)
            if dtype is None and "dtype" not in keywords and len(args) <= 2:
                fill_type = self.reader.type_of(fill)
                dtype = fill_type.dtype if isinstance(fill_type, ScalarType) else None
            ndim = self._ndim_of_shape(args[0] if args else keywords.get("shape"))
            return ArrayType(dtype, ndim, layout, where)
        if function in ("zeros_like", "ones_like", "empty_like", "full_like"):
            base = self.reader.type_of(args[0]) if args else None
            if not isinstance(base, ArrayType):
                return ArrayType(explicit, None, "C", where)
            dtype = explicit if "dtype" in keywords else base.dtype
            layout = base.layout if base.layout in ("C", "F") else "C"
            return ArrayType(dtype, base.ndim, layout, where)
        if function == "arange":
            if "dtype" in keywords:
                return ArrayType(explicit, 1, "C", where) if explicit else None
            kinds = [self.reader.type_of(a) for a in args[:3]]
            if not kinds or any(not isinstance(k, ScalarType) for k in kinds):
                return ArrayType(None, 1, "C", where)
            floating = any(k.dtype.startswith("float") for k in kinds)
            return ArrayType("float64" if floating else "int64", 1, "C", where)
        if function == "argsort" and args:  # indices (intp) in the array's shape; flattened with axis=None
            base = self.reader.type_of(args[0])
            axis = keywords.get("axis", args[1] if len(args) > 1 else None)
            if not isinstance(base, ArrayType):
                return None
            flat = isinstance(axis, ast.Constant) and axis.value is None
            return ArrayType("int64", 1 if flat else base.ndim, "C", where)
        if function == "outer" and len(args) == 2 and not keywords:  # both flattened: a matrix
            kinds = [self.reader.type_of(a) for a in args]
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
            base = self.reader.type_of(source)
            ndim, element = _literal_shape(source)
            if not ndim and isinstance(source, (ast.List, ast.Tuple)) and source.elts:
                ndim, element = self._nested_shape(source)
            if isinstance(base, ArrayType):
                dtype = explicit if "dtype" in keywords else base.dtype
                if function == "asfortranarray" and (base.ndim or 0) > 1:
                    layout = "F"
                elif function == "asarray" and not keywords.get("order"):
                    layout = base.layout
                else:
                    layout = "C" if base.layout == "A" or function != "asarray" else base.layout
                return ArrayType(dtype, base.ndim, layout, where)
            if not ndim and isinstance(base, TupleType) and base.items and base.named is None:
                # `np.array(limits)` of a tuple of numbers (or of arrays of one rank)
                ndim, element = self._items_shape(list(base.items))
            if not ndim and isinstance(base, ListType) and base.item is not None:
                # `[row.sum() for row in rows]`, or a name bound to a list of numbers
                ndim, element = self._items_shape([base.item])
            if ndim:
                dtype = explicit if "dtype" in keywords else element
                return ArrayType(dtype, ndim, layout, where)
            if "dtype" not in keywords and isinstance(base, ListType) and isinstance(base.item, ArrayType):
                # a list of arrays of one element type but unknown rank: that element type
                return ArrayType(base.item.dtype, None, layout, where)
            return ArrayType(explicit, None, layout, where)
        if function == "asmatrix" and module == "numpy" and len(args) == 1:
            # a matrix is a 2-d array to numba (a vector becomes one row)
            made = self.array_constructor(module, "array", expr, keywords, where)
            if isinstance(made, ArrayType) and made.ndim is not None and made.ndim <= 2:
                return replace(made, ndim=2)
            return None
        if function in ("fromDlpack", "from_dlpack") and where == "device":
            # a CuPy array over memory another library holds (a torch tensor's): its dtype and rank are that one's
            return ArrayType(None, None, "A", where)
        if function in ("cumsum", "cumprod", "nancumsum", "nancumprod") and args:
            return self._accumulated(function, args, keywords, explicit, where)
        if function == "ravel" and len(args) == 1:  # `np.ravel(a)`: as a.ravel()
            base = self.reader.type_of(args[0])
            return replace(base, ndim=1, layout="C") if isinstance(base, ArrayType) and base.where in (where, "") \
                else None
        if function == "reshape" and len(args) == 2:  # `np.reshape(a, (n, 3))`: as a.reshape((n, 3))
            base = self.reader.type_of(args[0])
            ndim = self._ndim_of_shape(args[1])
            return replace(base, ndim=ndim or None, layout="C") if isinstance(base, ArrayType) and base.where in (
                where, "") else None
        if function in _JOINING:
            return self._joined(function, expr, keywords, explicit, where)
        if module.endswith("random"):
            return self._random(function, expr, keywords, where)
        if function in _REDUCTIONS and len(expr.args) == 1 and not keywords:  # np.sum(a): as a.sum()
            base = self.reader.type_of(expr.args[0])
            return _reduced(function, base) if isinstance(base, ArrayType) and base.where in (where, "") else None
        return self._elementwise(function, expr, keywords, where)

    def _accumulated(self, function: str, args, keywords, explicit: Optional[str], where: str) -> Type:
        """``np.cumsum(a, dtype=np.float32)``: without an axis NumPy flattens, so the result has one
        dimension whatever ``a`` is (a list of numbers the code builds too); with one, ``a``'s
        rank. The elements are ``dtype``'s, else a sum's of ``a``'s (small integers widened)."""
        base = self.reader.type_of(args[0])
        axis = keywords.get("axis", args[1] if len(args) > 1 else None)
        flat = axis is None or isinstance(axis, ast.Constant) and axis.value is None
        if isinstance(base, ArrayType) and base.where not in (where, ""):
            return None
        dtype = explicit
        if dtype is None and isinstance(base, ArrayType):
            summed = _reduced("prod" if "prod" in function else "sum", replace(base, where="host"))
            dtype = summed.dtype if isinstance(summed, ScalarType) else None
        if flat:
            return ArrayType(dtype, 1, "C", where)
        return ArrayType(dtype, base.ndim, "C", where) if isinstance(base, ArrayType) else None

    def _nested_shape(self, source: ast.expr) -> Tuple[int, Optional[str]]:
        """(ndim, dtype) of an array made from a (nested) list display: ``[[1, 0], [0,
        np.cos(a)]]`` is 2-d of the promoted type of its numbers, ``[xx, yy]`` of arrays one
        more than theirs; (0, None) where rows differ in length or an item is not known."""
        if any(isinstance(e, ast.Starred) for e in source.elts):
            return 0, None
        if all(isinstance(e, (ast.List, ast.Tuple)) for e in source.elts):
            if len({len(e.elts) for e in source.elts}) != 1 or not source.elts[0].elts:
                return 0, None
            rows = [self._nested_shape(e) for e in source.elts]
            if not rows[0][0] or any(r[0] != rows[0][0] for r in rows):
                return 0, None
            return rows[0][0] + 1, _result_type([ScalarType(r[1]) for r in rows]) if all(r[1] for r in rows) else None
        return self._items_shape([self.reader.type_of(e) for e in source.elts])

    @classmethod
    def _items_shape(cls, kinds: List[Type]) -> Tuple[int, Optional[str]]:
        """(ndim, dtype) of an array made from a list of these values (``[x_over]`` of a
        float32 number; ``[a, b]`` of arrays of one rank; ``[[x, y, z] for ...]`` of rows of
        numbers: NumPy refuses rows of different lengths); (0, None) where they do not say."""
        if all(isinstance(k, ScalarType) for k in kinds):
            return 1, _result_type(kinds)
        if all(isinstance(k, ArrayType) and k.ndim is not None and k.ndim == kinds[0].ndim for k in kinds):
            return kinds[0].ndim + 1, _result_type(kinds)
        if kinds and all(isinstance(k, ListType) and k.item is not None or isinstance(k, TupleType) and k.items
                         and k.named is None for k in kinds):
            rows = [cls._items_shape([k.item] if isinstance(k, ListType) else list(k.items)) for k in kinds]
            if rows[0][0] and all(r[0] == rows[0][0] and r[1] for r in rows):
                return rows[0][0] + 1, _result_type([ScalarType(r[1]) for r in rows])
        return 0, None

    def _joined(self, function: str, expr: ast.Call, keywords, explicit: Optional[str], where: str) -> Type:
        """``np.concatenate``, ``np.stack`` and the ``*stack`` functions of arrays (and numbers)
        whose types are known: NumPy's result type, in the rank the function gives them
        (``np.column_stack((x, y))`` of vectors is a matrix); None where an item is unknown."""
        sequence = expr.args[0] if expr.args else keywords.get("arrays", keywords.get("tup"))
        if sequence is None or isinstance(sequence, (ast.List, ast.Tuple)) and (
                not sequence.elts or any(isinstance(e, ast.Starred) for e in sequence.elts)):
            return None
        if isinstance(sequence, (ast.List, ast.Tuple)):
            kinds = [self.reader.type_of(e) for e in sequence.elts]
        else:  # a tuple, or a list of arrays of one type (a comprehension: `[a[i] for i in ...]`)
            held = self.reader.type_of(sequence)
            kinds = list(held.items) if isinstance(held, TupleType) and held.named is None else (
                [held.item] if isinstance(held, ListType) else [])
        if not kinds or not all(isinstance(k, ScalarType) or isinstance(k, ArrayType) and k.ndim is not None
                                for k in kinds):
            return None
        ranks = {k.ndim if isinstance(k, ArrayType) else 0 for k in kinds}
        axis = keywords.get("axis", expr.args[1] if len(expr.args) > 1 else None)
        if function == "concatenate" and isinstance(axis, ast.Constant) and axis.value is None:
            ndim = 1  # each flattened first
        elif function in ("concatenate", "stack") and (len(ranks) != 1 or 0 in ranks):
            return None  # NumPy refuses numbers, and arrays of different ranks
        else:
            ndim = max(max(ranks) + (function == "stack"), _JOINING[function])
        # a number joins as an array of its own (a Python float as a float64 one): never weak here
        dtype = explicit if "dtype" in keywords else _result_type(
            [ScalarType(k.dtype) if isinstance(k, ScalarType) else k for k in kinds])
        return ArrayType(dtype, ndim, "C", where) if dtype else None

    def _elementwise(self, function: str, expr: ast.Call, keywords, where: str) -> Type:
        """NumPy's (and CuPy's) functions that work element by element: ``np.exp(1j * kz)``,
        ``np.where(mask, a, 0.)``, ``np.maximum(a, b)``, and ``np.meshgrid``; the result has
        the arguments' broadcast rank and NumPy's result type. None where an argument is
        unknown, or lives elsewhere than the module's arrays do."""
        args = expr.args
        if expr.keywords and function != "meshgrid" or any(isinstance(a, ast.Starred) for a in args):
            return None  # out=, dtype=, where=: not read
        kinds = [self.reader.type_of(a) for a in args]
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

    def inverse(self, matrix: ast.expr, where: str) -> Type:
        """``np.linalg.inv(a)`` / ``pinv(a)``: a matrix (stack) of the rank of ``a``, of its
        floating type (integers give float64; NumPy's linalg has no float16)."""
        base = self.reader.type_of(matrix)
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

    def special(self, function: str, expr: ast.Call) -> Type:
        """SciPy's special functions of NumPy arrays and numbers, by their ufunc loops: a float32
        argument keeps float32 (``j1`` has ``f->f``), integers give float64, complex values are
        accepted only where a complex loop exists; the zeros of Bessel functions are a float64
        vector. None for the rest."""
        if function in _SPECIAL_ZEROS:
            return ArrayType("float64", 1, "C", "host", "numpy")
        kinds = [self.reader.type_of(a) for a in expr.args]
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

    def image(self, name: str, expr: ast.Call) -> Type:
        """What the image libraries give, host NumPy arrays: an image read from a file
        (``cv2.imread(path, cv2.IMREAD_GRAYSCALE)``: uint8 of rank 2; ``imageio.imread``), and an
        OpenCV transform of a NumPy image (``cv2.resize(img, size)``: its elements and rank;
        ``cv2.cvtColor``: its elements). An OpenCV call given anything else (a ``cv2.UMat``, which
        lives in OpenCL memory) is not told."""
        module, _, function = name.rpartition(".")
        if module == "cv2" and function in ("imread", "imdecode"):
            flags = expr.args[1] if len(expr.args) > 1 else next(
                (k.value for k in expr.keywords if k.arg == "flags"), None)
            key = flags.attr if isinstance(flags, ast.Attribute) else flags.value if isinstance(
                flags, ast.Constant) else 1 if flags is None else None
            rank = _OPENCV_RANKS.get(key) if isinstance(key, (str, int)) else None
            return ArrayType("uint8" if rank else None, rank, "C", "host", "numpy")
        if name in IMAGE_READERS:
            return ArrayType(None, None, "C", "host", "numpy")
        if module == "cv2" and function == "VideoCapture":
            return Opaque("capture")  # its `read()` gives a flag and a host image (`_capture`)
        given = self.reader.type_of(expr.args[0]) if expr.args else None
        if not (isinstance(given, ArrayType) and given.where == "host" and given.library in ("numpy", "")):
            return None
        if function in _OPENCV_SAME:
            return ArrayType(given.dtype, given.ndim, "C", "host", "numpy")
        if function == "cvtColor":
            return ArrayType(given.dtype, None, "C", "host", "numpy")
        return None

    def scikit_image(self, name: str, expr: ast.Call) -> Type:
        """What a scikit-image function of ``_SKIMAGE_IMAGES`` gives (``skimage.feature.canny(img)``):
        a host NumPy array, its elements and rank as the table says of its input's; None for the
        package's other functions (thresholds are numbers, some give tuples)."""
        path = name[len("skimage."):]
        path = path[len("util."):] if path.startswith("util.img_as_") else path  # (`img_as_*` are re-exported)
        known = _SKIMAGE_IMAGES.get(path)
        if known is None:
            return None
        dtype, rank = known
        given = _not_none(self.reader.type_of(expr.args[0])) if expr.args else None
        given = given if isinstance(given, ArrayType) else None
        if dtype == "":
            dtype = given.dtype if given is not None else None
        ndim = None
        if given is not None and given.ndim is not None and rank is not None:
            ndim = given.ndim - (1 if rank == "less" else 0)
        return ArrayType(dtype, ndim if ndim is None or ndim > 0 else None, "C", "host", "numpy")

    def torch_factory(self, function: str, expr: ast.Call, keywords) -> Type:
        """A PyTorch tensor: an array numba sees through ``__cuda_array_interface__`` when it
        is on a CUDA device (``device="cuda"``); on the CPU (numba cannot launch on it) until
        ``.cuda()``/``.to("cuda")`` moves it."""
        where = "device" if _on_cuda(keywords.get("device")) else "host"
        made = self._torch_tensor(function, expr, keywords)
        return replace(made, where=where) if made is not None else None

    def _torch_tensor(self, function: str, expr: ast.Call, keywords) -> Type:
        explicit = self.reader.dtype(keywords.get("dtype"))
        args = expr.args
        if function.endswith("_like"):
            base = self.reader.type_of(args[0]) if args else None
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
        floats = self.reader.dtype(keywords.get("dtype")) or "float64"  # CuPy's take a dtype
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
            explicit = self.reader.dtype(keywords.get("dtype"))
            return self._sized(explicit or "int64", size, where)
        if function == "choice" and args:
            # picks from range(n) (NumPy's default integer) or from a 1-D array's elements
            pool = self.reader.type_of(args[0])
            if isinstance(pool, ScalarType) and pool.dtype.startswith(("int", "uint")):
                dtype = "int64"
            elif isinstance(pool, ArrayType) and pool.ndim == 1 and pool.dtype:
                dtype = pool.dtype
            else:
                return None
            return self._sized(dtype, keywords.get("size") or (args[1] if len(args) > 1 else None), where)
        if function == "default_rng":
            return Opaque("generator")
        return None

    def _sized(self, dtype: str, size: Optional[ast.expr], where: str) -> Type:
        if size is None:
            return ScalarType(dtype)
        return ArrayType(dtype, self._ndim_of_shape(size), "C", where)

    def _generator(self, method: str, expr: ast.Call, keywords) -> Type:
        explicit = self.reader.dtype(keywords.get("dtype"))
        if method in ("random", "standard_normal", "standard_exponential"):
            size = expr.args[0] if expr.args else keywords.get("size")
            return self._sized(explicit or "float64", size, "host")
        if method in ("uniform", "normal", "integers", "exponential", "poisson"):
            size = keywords.get("size") or (expr.args[2] if len(expr.args) > 2 else None)
            default = "int64" if method in ("integers", "poisson") else "float64"
            return self._sized(explicit or default, size, "host")
        return None

    def cuda_call(self, function: str, expr: ast.Call, keywords) -> Type:
        made = self._cuda_call(function, expr, keywords)
        if isinstance(made, ArrayType) and made.where == "device" and _on_a_stream(function, expr, keywords):
            return replace(made, stream=True)
        return made

    def _cuda_call(self, function: str, expr: ast.Call, keywords) -> Type:
        args = expr.args
        explicit = self.reader.dtype(keywords.get("dtype"))
        if function in ("to_device", "as_cuda_array", "from_cuda_array_interface"):
            source = args[0] if args else keywords.get("obj", keywords.get("ary"))
            base = _not_none(self.reader.type_of(source))  # of None it raises: the array
            if isinstance(base, ArrayType):
                return replace(base, where="device", layout="C" if base.layout == "A" else base.layout)
            ndim, element = _literal_shape(source)  # `cuda.to_device([0] * 100)`: NumPy makes the array
            if not ndim and isinstance(base, TupleType) and base.items and base.named is None:
                ndim, element = self._items_shape(list(base.items))  # a name bound to such a literal
            if not ndim and isinstance(base, ListType) and base.item is not None:
                ndim, element = self._items_shape([base.item])
            if ndim and element and function == "to_device":
                return ArrayType(element, ndim, "C", "device")
            return ArrayType(None, None, "C", "device")
        if function in ("device_array", "pinned_array", "mapped_array", "managed_array"):
            shape = args[0] if args else keywords.get("shape")
            dtype = explicit or (self.reader.dtype(args[1]) if len(args) > 1 else None) or (
                None if "dtype" in keywords or len(args) > 1 else "float64")
            order = keywords.get("order")
            layout = "F" if isinstance(order, ast.Constant) and order.value == "F" else "C"
            ndim = self._ndim_of_shape(shape)
            where = {"device_array": "device", "pinned_array": "host", "mapped_array": "mapped",
                     "managed_array": "mapped"}[function]
            return ArrayType(dtype, ndim, layout, where)
        if function in ("device_array_like", "pinned_array_like", "mapped_array_like"):
            base = _not_none(self.reader.type_of(args[0] if args else None))
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

    def method(self, expr: ast.Call, keywords) -> Type:
        func = expr.func
        base = self.reader.type_of(func.value)
        method = func.attr
        if method == "astype":
            base = _not_none(base)  # of None it raises: the array (`self.terrain`, None until made)
        if isinstance(base, Opaque) and base.kind == "generator":
            return self._generator(method, expr, keywords)
        capture = _not_none(base)  # (`self.vid = None` until a video is opened: reading it needs the capture)
        if isinstance(capture, Opaque) and capture.kind == "capture":
            return _capture(method, expr)
        if method == "copy_to_host" and not isinstance(base, ArrayType):
            return ArrayType(None, None, "C", "host")  # only numba's device arrays have it
        if method == "astype" and (base is None or isinstance(base, Opaque) and instance_of(base) is None) and (
                expr.args or "dtype" in keywords):
            # `data.moon().astype(np.float32)`, or of an attribute assigned arrays of two types: an
            # array of those elements, its rank and place unknown (a project class's object: its own)
            dtype = self.reader.dtype(expr.args[0] if expr.args else keywords.get("dtype"))
            return ArrayType(dtype, None, "C", "") if dtype else None
        if method == "to_numpy" and not isinstance(base, ArrayType):
            return ArrayType(None, None, "C", "host", "numpy")  # pandas', xarray's: a NumPy array
        if not isinstance(base, ArrayType):
            return None
        if method == "astype":
            dtype = self.reader.dtype(expr.args[0] if expr.args else keywords.get("dtype"))
            # a copy of the same library's (NumPy's astype gives a NumPy array, CuPy's a CuPy one)
            return ArrayType(dtype, base.ndim, "C" if base.layout != "F" else "F", base.where, base.library)
        if method == "copy":
            return replace(base, layout="C" if base.layout == "A" else base.layout)
        if method == "view" and len(expr.args) == 1 and not keywords:
            return self._view(base, self.reader.dtype(expr.args[0]))
        if method in ("ravel", "flatten"):
            return replace(base, ndim=1, layout="C")
        if method in ("cumsum", "cumprod"):  # `a.cumsum()`: as np.cumsum(a)
            made = self._accumulated(method, [func.value] + expr.args, keywords,
                                     self.reader.dtype(keywords.get("dtype")), base.where)
            return replace(made, library=base.library) if isinstance(made, ArrayType) else None
        if method == "reshape":
            if len(expr.args) == 1:
                ndim = self._ndim_of_shape(expr.args[0])
            else:
                ndim = len(expr.args) if expr.args else 0
            return replace(base, ndim=ndim or None, layout="C")  # a view of C data, or a C copy
        if method == "transpose" and not expr.args and base.ndim is not None:
            return self.reader.type_of(ast.Attribute(value=func.value, attr="T", ctx=ast.Load()))
        if method == "copy_to_host":
            return replace(base, where="host", layout="C" if base.layout == "A" else base.layout, library="numpy")
        if method in _REDUCTIONS and not expr.args and not keywords:
            return _reduced(method, base)
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

    def _host_operand(self, expr: ast.expr) -> Optional[ArrayType]:
        """The host array an expression is, or is arithmetic on (``rec_x / dx`` with ``rec_x`` a
        NumPy array of elements not known: NumPy's operators keep it on the host); None otherwise."""
        kind = self.reader.type_of(expr)
        if isinstance(kind, ArrayType):
            return kind if kind.where == "host" else None
        if isinstance(expr, ast.UnaryOp):
            return self._host_operand(expr.operand)
        if not isinstance(expr, ast.BinOp):
            return None
        sides = [self._host_operand(expr.left), self._host_operand(expr.right)]
        others = [self.reader.type_of(side) for side in (expr.left, expr.right)]
        if any(isinstance(o, ArrayType) and o.where != "host" for o in others):
            return None  # with a device array the operator is the device library's
        found = [side for side in sides if side is not None]
        return replace(found[0], dtype=None, ndim=None) if found else None

    def _ndim_of_shape(self, shape: Optional[ast.expr]) -> Optional[int]:
        """Dimensions of a shape argument (an int, a tuple of ints, another array's shape);
        None where unknown."""
        if shape is None:
            return None
        if isinstance(shape, (ast.Tuple, ast.List)):
            return len(shape.elts) if not any(isinstance(e, ast.Starred) for e in shape.elts) else None
        kind = self.reader.type_of(shape)
        if isinstance(kind, ScalarType) and kind.dtype.startswith(("int", "uint")):
            return 1
        if isinstance(kind, TupleType):
            return len(kind.items)
        if kind is None and _count_arithmetic(shape) and not any(isinstance(
                self.reader.type_of(operand), (TupleType, ArrayType)) for operand in (shape.left, shape.right)):
            return 1  # `Nz * (Nr + 1)`: arithmetic on counts is a count
        return None


# reductions of a whole array to one number (`a.sum()`, `np.max(a)`)
_REDUCTIONS = frozenset({"sum", "max", "min", "mean", "prod", "amax", "amin"})
# array functions beyond the ufuncs whose result is an array of the module's (CuPy's for cupy);
# not `where` (one argument gives a tuple of index arrays) nor `histogram` (a tuple)
_ARRAY_RESULTS = frozenset({"average", "cumsum", "cumprod", "dot", "matmul", "einsum", "tensordot", "clip",
                            "diff", "sort", "argsort", "argmax", "argmin", "std", "var", "any", "all", "count_nonzero",
                            "nansum", "nanmean", "median", "roll", "flip", "tile", "repeat", "outer", "inner",
                            "kron", "trace", "diag", "tril", "triu", "searchsorted", "bincount",
                            "interp", "convolve", "correlate"} | _REDUCTIONS)


def array_function(function: str) -> bool:
    """Whether NumPy's (and so CuPy's) function of that name gives an array: a ufunc, a
    reduction, or one of the array functions listed (NumPy's namespace read, nothing run)."""
    import numpy  # what NumPy names a ufunc: its own objects

    return function in _ARRAY_RESULTS or isinstance(getattr(numpy, function, None), numpy.ufunc)


def _reduced(function: str, base: ArrayType) -> Type:
    """What reducing an array gives, by NumPy's rule: a sum or product of booleans or small
    integers is widened to the platform's (``int32`` sums to ``int64``, ``uint16`` to
    ``uint64``); a mean of integers is a float64, of floats their own width; the largest and
    smallest keep the dtype. CuPy keeps a 0-d array on the device. None for unknown elements."""
    dtype = base.dtype
    if dtype is None or not numeric(dtype):
        return ArrayType(None, 0, "C", "device", base.library) if base.where == "device" else None
    integral = dtype == "boolean" or dtype.startswith(("int", "uint"))
    if function in ("sum", "prod") and integral:
        dtype = "uint64" if dtype.startswith("uint") else "int64"
    elif function == "mean" and integral:
        dtype = "float64"
    if base.where == "device":  # CuPy: a 0-d array that stays on the device
        return ArrayType(dtype, 0, "C", "device", base.library)
    return ScalarType(dtype)


# where numba-cuda's array makers take a stream positionally: to_device(obj, stream, ...),
# device_array(shape, dtype, strides, order, stream), device_array_like(ary, stream)
_STREAM_POSITION = {"to_device": 1, "device_array": 4, "device_array_like": 1}


def _on_a_stream(function: str, expr: ast.Call, keywords) -> bool:
    """Whether a numba-cuda array maker is given a stream (not the literal 0 or None, which
    mean the default stream): the array it makes keeps that stream for its own operations."""
    given = keywords.get("stream")
    position = _STREAM_POSITION.get(function)
    if given is None and position is not None and len(expr.args) > position:
        given = expr.args[position]
    return given is not None and not (isinstance(given, ast.Constant) and given.value in (0, None, False))


def _capture(method: str, expr: ast.Call) -> Type:
    """What an OpenCV ``VideoCapture`` gives: ``read()`` and ``retrieve()`` a success flag and the
    frame, a host NumPy array of bytes (BGR, height x width x 3: OpenCV converts every stream to
    that unless told otherwise, as ``imread`` reads colour by default)."""
    if method in ("read", "retrieve") and not expr.keywords:
        return TupleType((ScalarType("bool"), ArrayType("uint8", 3, "C", "host", "numpy")))
    if method in ("isOpened", "grab"):
        return ScalarType("bool")
    return None
