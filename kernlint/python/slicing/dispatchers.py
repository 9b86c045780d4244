"""What the evaluator may call (safe modules' pure functions, numba's type builders and
extension API; never file I/O or the user's code), and numba-cuda dispatchers made lazily
with their signatures recorded (``make_dispatcher``, ``remember``)."""

from __future__ import annotations

import builtins
import types
from typing import Any, Dict, List, Sequence

from ..project import FrontendSettings
from ..syntax import JIT_OPTIONS


# Builtins a constant expression may call: pure functions of their arguments.
_BUILTIN_CALLS = {name: getattr(builtins, name) for name in (
    "abs", "all", "any", "bool", "bytes", "chr", "complex", "dict", "divmod", "enumerate", "float",
    "frozenset", "hex", "int", "isinstance", "len", "list", "max", "min", "oct", "ord", "pow", "range",
    "reversed", "round", "set", "slice", "sorted", "str", "sum", "tuple", "zip", "repr")}

# Functions of safe modules that touch files or the GPU: never called at check time.
_IO_NAMES = frozenset({"load", "save", "dump", "savez", "savez_compressed", "loadtxt", "savetxt", "genfromtxt",
                       "fromfile", "tofile", "memmap", "fromregex", "DataSource", "open", "system",
                       "recfromtxt", "recfromcsv", "open_memmap"})

# numba.cuda's module-level functions that need no GPU and allocate nothing.
# numba-cuda calls a constant expression may make: pure type builders, and jit made lazy
_NUMBA_CUDA_CALLS = frozenset({"declare_device", "jit", "from_dtype", "as_dtype", "signature", "typeof"})

# numba's extension API (numba.cuda.extending, the typing and lowering registries): applying
# one wraps or registers a function for the compiler, which calls it only while compiling
_NUMBA_EXTENSION_CALLS = frozenset({
    "intrinsic", "overload", "overload_attribute", "overload_classmethod", "overload_method", "register_jitable",
    "type_callable", "make_attribute_wrapper", "lower_builtin", "lower_cast", "lower_getattr",
    "lower_getattr_generic", "lower_setattr", "lower_setattr_generic", "lower", "lower_attr", "lower_constant",
    "register_global", "register_attr", "register", "infer", "infer_global", "infer_getattr", "register_model",
    "typeof_impl"})


def _numba_type() -> type:
    """numba's base of types (imported where used: this module is loaded before numba is)."""
    from numba.core.types import Type

    return Type


def _is_numba_type(value: Any) -> bool:
    """A numba type (its str is numba's spelling: ``array(float32, 1d, A)``)."""
    return isinstance(value, _numba_type())


def _identity(value: Any):
    try:
        hash(value)
        return (type(value).__name__, value)
    except TypeError:
        return ("id", id(value))


def _is_cuda_jit(callee: Any) -> bool:
    import numba.cuda

    return callee is numba.cuda.jit


def _may_call(callee: Any, settings: FrontendSettings) -> bool:
    """Calls a constant expression may make: pure builtins, numba types, safe modules' functions
    other than their file I/O, numba.cuda's declare_device (and jit, made lazy)."""
    if any(callee is f for f in _BUILTIN_CALLS.values()):
        return True
    try:
        from numba.core import types as numba_types

        if isinstance(callee, numba_types.Type):
            return True  # void(float32[:]): a signature
    except ImportError:  # pragma: no cover
        pass
    if isinstance(callee, (types.FunctionType, types.MethodType)) and getattr(callee, "__module__", "").startswith(
            "_kernlint_slice"):
        return False  # the user's own function
    name = getattr(callee, "__name__", "") or type(callee).__name__
    if name in _IO_NAMES:
        return False
    owner = getattr(callee, "__module__", None) or type(callee).__module__ or ""
    bound_to = getattr(callee, "__self__", None)
    if type(bound_to) in (str, bytes) and name not in ("format", "format_map"):
        return True  # a string's own method (`P.function.lower()`): pure, of a constant (format runs the arguments')
    if owner == "builtins" and bound_to is not None and type(bound_to).__module__ == "numpy":
        owner = "numpy"  # a NumPy array's method: `np.arange(100).reshape(10, 10)`
    if owner == "_operator":
        owner = "operator"
    if owner.startswith("numba.cuda"):
        return name in _NUMBA_CUDA_CALLS or name in _NUMBA_EXTENSION_CALLS or _is_extension_api(callee)
    return settings.is_safe(owner) or settings.is_safe(owner.lstrip("_"))


def _is_extension(callee: Any) -> bool:
    """A function of numba's extension API (numba.extending, numba.cuda.extending, the
    typing and lowering registries' decorators)."""
    owner = getattr(callee, "__module__", "") or ""
    return (owner.startswith("numba") and getattr(callee, "__name__", "") in _NUMBA_EXTENSION_CALLS
            or _is_extension_api(callee))


# the extension API's decorators that register a method or attribute of a type by its name
_MEMBER_REGISTRATIONS = frozenset({"overload_method", "overload_attribute", "overload_classmethod"})


def _extension_owner(value: Any) -> bool:
    """A numba typing or lowering registry (``cuda_registry.register_attr``), or an extension
    function with registering attributes (``typeof_impl.register``)."""
    kind = type(value)
    return (kind.__module__ or "").startswith("numba") and "Registry" in kind.__name__ or _is_extension(value)


def _is_extension_api(callee: Any) -> bool:
    """One of numba.cuda.extending's decorators (``intrinsic`` is a wrapper named ``wrapper``)."""
    try:
        import numba.cuda.extending as extending
    except ImportError:  # pragma: no cover
        return False
    return any(callee is getattr(extending, name, None) for name in _NUMBA_EXTENSION_CALLS)


# itertools' functions that arrange their arguments without calling them
_ARRANGING = frozenset({"product", "chain", "repeat", "zip_longest", "islice", "cycle", "combinations",
                        "combinations_with_replacement", "permutations", "tee", "count"})


def _may_be_called(callee, args: Sequence[Any], keywords: Dict[str, Any]) -> List[Any]:
    """The arguments a call may call: builtins call only a ``key=``; itertools' arranging
    functions, kernlint's own (jit made lazy), declare_device and numba's extension API (it
    keys its registries by the function; the compiler calls what it registers) none; anything
    else all."""
    owner = getattr(callee, "__module__", "") or ""
    name = getattr(callee, "__name__", "")
    if owner.startswith("kernlint") or name == "declare_device" or (
            owner == "itertools" and name in _ARRANGING) or _is_extension(callee) or (
            owner.startswith("numba") and name in ("njit", "jit")):  # `numba.njit(f)` compiles f lazily
        return []
    if any(callee is f for f in _BUILTIN_CALLS.values()):
        return list(keywords.values())
    return list(args) + list(keywords.values())


def _users_function(value: Any) -> bool:
    """A function the slice made from the user's code (or a container holding one)."""
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(_users_function(v) for v in value)
    if isinstance(value, dict):
        return any(_users_function(v) for v in value.values())
    return isinstance(value, (types.FunctionType, types.MethodType)) and getattr(
        value, "__module__", "").startswith("_kernlint_slice")


def _after_ir(callee, keyword: str) -> bool:
    """Is ``keyword`` of this numba-cuda call one that acts only after the LLVM IR kernlint
    reads (linking, PTX options)? Its value is then not needed: ``link=[self.lib]`` in a test."""
    if _is_cuda_jit(callee):
        return keyword not in JIT_OPTIONS
    return getattr(callee, "__name__", "") == "declare_device" and keyword in ("link", "use_cooperative")


def make_dispatcher(function, args: Sequence[Any], keywords: Dict[str, Any]):
    """numba.cuda.jit(function, ...) made lazy, with the user's signatures and codegen options
    remembered (eager compilation would need a GPU)."""
    import numba.cuda
    from numba.core import sigutils

    signatures: List[Any] = []
    if args:
        first = args[0]
        # as numba-cuda reads it: a tuple is one signature (its argument types), a list several
        if sigutils.is_signature(first):
            signatures = [first]
        elif isinstance(first, list) and all(sigutils.is_signature(s) for s in first):
            signatures = list(first)
    options = {k: v for k, v in keywords.items() if k in JIT_OPTIONS}
    # numba-cuda refuses the old signature keywords at decoration: so must the check
    refused = {k: v for k, v in keywords.items() if k in REFUSED_OPTIONS}
    made = numba.cuda.jit(function, **options, **refused)
    return remember(made, [_as_numba_writes_it(s) for s in signatures], options)


# numba-cuda's old ways to pass a signature, which its jit refuses (DeprecationError)
REFUSED_OPTIONS = ("argtypes", "restype", "bind")


def _as_numba_writes_it(signature: Any) -> Any:
    """A string signature parsed as numba parses it (``"void(f4[:], i4)"`` is
    ``void(float32[:], int32)``), so that it is shown as the others are; one that does not
    parse stays the string, and its compile says why."""
    if not isinstance(signature, str):
        return signature
    from numba.core import sigutils, typing

    try:
        argtypes, restype = sigutils.normalize_signature(signature)
    except Exception:  # noqa: BLE001 - numba's parser raises anything on a bad string
        return signature
    return typing.signature(restype, *argtypes) if restype is not None else tuple(argtypes)


def remember(dispatcher, signatures, options: Dict[str, Any]):
    """Keep on a lazy dispatcher the signatures and codegen options its ``cuda.jit`` was given
    (kernlint compiles them itself), and ask for line info: it only adds ``!dbg`` locations."""
    dispatcher._kernlint_signatures = list(signatures or [])
    dispatcher._kernlint_options = {
        "debug": bool(options.get("debug")),
        "opt": bool(options.get("opt", True)),
        "lineinfo": bool(options.get("lineinfo")),
        "fastmath": bool(options.get("fastmath")),
    }
    if not dispatcher.targetoptions.get("debug"):
        dispatcher.targetoptions["lineinfo"] = True
    return dispatcher
