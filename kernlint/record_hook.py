"""Observe numba.cuda launches in a program ``kernlint record`` runs.

This file is copied beside a ``sitecustomize.py`` that ``kernlint record`` puts first on
the program's ``PYTHONPATH``, so it must not import kernlint (the program may run in an
environment without it): standard library only, numba when the program imports it.

When numba-cuda's dispatcher (or the CUDA simulator's kernel) module is first imported,
its launch method is wrapped (and ``specialize``, the typing of a launch that libraries
launching through CuPy use): every launch records the kernel's file and qualified name
and the numba type of each argument. A kernel a factory made also records what it closes
over (numbers, tuples, NumPy values, numba types, and the functions it calls, each with its
own closure), since reading the source cannot give values computed at run time. Each
process writes what it saw as JSON into ``$KERNLINT_RECORD_DIR`` whenever it sees
something new, so a run stopped by a timeout keeps it.
"""

import atexit
import importlib.abc
import importlib.util
import json
import os
import sys
import threading
import uuid

_SEEN = {}  # (file, qualname) -> set of signature texts
_CLOSURES = {}  # (file, qualname) -> {JSON of (closure, options): set of signature texts}
_ENCODED = {}  # (id(function), options) -> (function, JSON of its closure and options or None): encoded once
_LOCK = threading.Lock()
_LAUNCHES = [0]
_TARGET = {}  # pid -> this process's output file (a forked child writes its own)

# closure arrays larger than this are recorded by dtype and shape only (check stands in zeros)
_ARRAY_LIMIT = 4096
_DEPTH_LIMIT = 8
_INT64 = (-(2 ** 63), 2 ** 63 - 1)  # TOML's integers


def _type_text(numba_type):
    """numba's type as a signature string numba parses back (``str`` of a tuple does not);
    the tuple form is static_types.TupleType.text's, written again: this file cannot import kernlint."""
    items = getattr(numba_type, "types", None)
    kind = type(numba_type).__name__
    if isinstance(items, tuple) and kind in ("UniTuple", "Tuple", "NamedUniTuple", "NamedTuple"):
        texts = [_type_text(t) for t in items]
        uniform = bool(texts) and all(t == texts[0] for t in texts)
        sequence = f"({', '.join(texts)}{',' if len(texts) == 1 else ''})"
        if kind.startswith("Named"):  # numba types it by its class: spelled as the class is made
            made = f"namedtuple({numba_type.instance_class.__name__!r}, {tuple(numba_type.instance_class._fields)!r})"
            return f"NamedUniTuple({texts[0]}, {len(texts)}, {made})" if uniform else f"NamedTuple({sequence}, {made})"
        return f"UniTuple({texts[0]}, {len(texts)})" if uniform else f"Tuple({sequence})"
    ndim = getattr(numba_type, "ndim", None)
    dtype = getattr(numba_type, "dtype", None)
    if ndim is None or dtype is None or not hasattr(numba_type, "layout"):
        return _scalar_text(numba_type)
    if str(dtype) == _XOROSHIRO_RECORD:
        dtype = "xoroshiro128p"  # numba-cuda's random states: the name kernlint's signatures give them
    else:
        dtype = _scalar_text(dtype)
    if ndim == 0:  # numba's [...] spelling has no 0-d form
        return f"Array({dtype}, 0, '{numba_type.layout if numba_type.layout in ('C', 'F') else 'A'}')"
    dims = [":"] * ndim
    if numba_type.layout == "C":
        dims[-1] = "::1"
    elif numba_type.layout == "F":
        dims[0] = "::1"
    return f"{dtype}[{', '.join(dims)}]"


def _record_text(record):
    """A structured dtype's numba type as its constructor call (its str() does not parse)."""
    fields = ", ".join(f"({json.dumps(name)}, {{'type': {_scalar_text(field.type)}, 'offset': {field.offset}}})"
                       for name, field in record.fields.items())
    return f"Record([{fields}], {record.size}, {record.aligned})"


def _scalar_text(numba_type):
    """A type that is not an array, as numba's signature parser reads it: records, nested
    arrays, fixed-width strings and datetimes as their constructor calls."""
    if hasattr(numba_type, "literal_value"):  # a constant a device function was called with: its type
        from numba.core.types import unliteral

        numba_type = unliteral(numba_type)
    kind = type(numba_type).__name__
    if kind in ("TypeRef", "NumberClass"):  # a type passed as a value (`f(np.float32)`)
        return f"{kind}({_type_text(numba_type.instance_type)})"
    if kind == "Record":
        return _record_text(numba_type)
    if kind == "NestedArray":
        return f"NestedArray({_scalar_text(numba_type.dtype)}, {tuple(numba_type.shape)})"
    if kind in ("CharSeq", "UnicodeCharSeq"):
        return f"{kind}({numba_type.count})"
    if kind in ("NPDatetime", "NPTimedelta"):
        return f"{kind}({numba_type.unit!r})"
    text = str(numba_type)
    return "boolean" if text == "bool" else text


# str() of numba's type of numba.cuda.random.xoroshiro128p_dtype
_XOROSHIRO_RECORD = "Record(s0[type=uint64;offset=0],s1[type=uint64;offset=8];16;True)"


_CODEGEN = ("fastmath", "debug", "lineinfo", "opt")  # options that change the IR kernlint reads
_DEVICE_OPTIONS = _CODEGEN + ("device", "inline", "forceinline")


def _options(dispatcher, names=_CODEGEN):
    """The dispatcher's jit options among ``names`` (those the signatures file can hold)."""
    return {k: v for k, v in (getattr(dispatcher, "targetoptions", None) or {}).items()
            if k in names and isinstance(v, (bool, str))}


def _qualname(function):
    return getattr(function, "__qualname__", function.__name__).replace("<locals>.", "")


def _function(value):
    """(Python function, how it was jitted, its options) of a function or dispatcher; None otherwise."""
    kind = type(value).__name__
    if kind == "FakeCUDAKernel":  # the simulator's cuda.jit
        return value.fn, "numba.cuda.jit", {"device": bool(value._device), "fastmath": bool(value._fastmath)}
    py_func = getattr(value, "py_func", None)
    if py_func is not None and hasattr(py_func, "__code__"):
        module = type(value).__module__ or ""
        jit = "numba.cuda.jit" if "cuda" in module or kind == "CUDADispatcher" else "numba.njit"
        return py_func, jit, _options(value, _DEVICE_OPTIONS)
    if hasattr(value, "__code__") and hasattr(value, "__closure__"):
        return value, None, {}
    return None


def _encode(value, depth):
    """A closure value as JSON that kernlint's check turns back into the value."""
    if depth > _DEPTH_LIMIT:
        return {"unsupported": "functions nested too deeply"}
    if value is None:
        return {"none": True}
    if isinstance(value, (bool, str)):
        return value
    if isinstance(value, int) and type(value).__module__ == "builtins":
        return value if _INT64[0] <= value <= _INT64[1] else {"unsupported": "an integer beyond 64 bits"}
    if isinstance(value, float) and type(value).__module__ == "builtins":
        return value
    if isinstance(value, complex):
        return {"complex": [value.real, value.imag]}
    if isinstance(value, tuple):
        return {"tuple": [_encode(v, depth + 1) for v in value]}
    module = type(value).__module__ or ""
    if module == "numpy" or module.startswith("numpy."):
        return _encode_numpy(value)
    if isinstance(value, type) and (value.__module__ or "").startswith("numpy"):
        return {"numpy": value.__name__}
    if module.startswith("numba") and hasattr(value, "mangling_args") and hasattr(value, "key"):
        return {"numba_type": _type_text(value)}
    function = _function(value)
    if function is not None:
        py_func, jit, options = function
        code = py_func.__code__
        encoded = {"function": _qualname(py_func), "path": os.path.abspath(code.co_filename),
                   "line": code.co_firstlineno, "closure": _closure(py_func, depth + 1)}
        if getattr(py_func, "__module__", None):  # an installed package's function is found by it
            encoded["module"] = py_func.__module__
        if jit is not None:
            encoded["jit"] = jit
            encoded["options"] = options
        compiled = _compiled_signatures(value)
        if compiled:
            encoded["signatures"] = compiled
        return encoded
    if type(value).__name__ == "module":
        return {"module": value.__name__}
    named = _named(value)
    if named is not None:
        return {"named": named}
    return {"unsupported": f"{module}.{type(value).__qualname__}"}


def _named(value):
    """``math.sin``, ``numpy.sqrt``, ``int``: a class or builtin function by its dotted name."""
    if type(value).__name__ == "ufunc":
        return f"numpy.{value.__name__}"
    if isinstance(value, type) or type(value).__name__ == "builtin_function_or_method":
        name = getattr(value, "__qualname__", None)
        if name and "<" not in name:
            return f"{getattr(value, '__module__', None) or 'builtins'}.{name}"
    return None


def _compiled_signatures(dispatcher):
    """The signatures a CUDA device function was compiled for (by the kernels that call it)."""
    if type(dispatcher).__name__ != "CUDADispatcher" or not dispatcher.targetoptions.get("device"):
        return []
    found = set()
    for compiled in list(getattr(dispatcher, "overloads", {}).values()):
        signature = getattr(compiled, "signature", None)
        if signature is not None:
            found.add(f"{_type_text(signature.return_type)}({', '.join(_type_text(a) for a in signature.args)})")
    return sorted(found)


def _encode_numpy(value):
    import numpy as np

    if isinstance(value, np.ndarray):
        encoded = {"dtype": str(value.dtype), "shape": list(value.shape),
                   "order": "F" if value.flags.f_contiguous and not value.flags.c_contiguous else "C"}
        if value.dtype.kind in "biuf" and value.dtype.fields is None and value.size <= _ARRAY_LIMIT:
            encoded["array"] = value.ravel(order="K" if encoded["order"] == "C" else "F").tolist()
        else:
            encoded["array"] = None  # too large, or not numbers TOML writes: stood in by zeros
        return encoded
    if isinstance(value, np.generic):
        item = value.item()
        if isinstance(item, complex):
            return {"complex": [item.real, item.imag], "dtype": str(value.dtype)}
        if isinstance(item, (bool, int, float)):
            return {"scalar": item, "dtype": str(value.dtype)}
    if isinstance(value, np.dtype):
        return {"dtype": str(value)}
    return {"unsupported": f"numpy.{type(value).__qualname__}"}


def _closure(function, depth):
    cells = getattr(function, "__closure__", None) or ()
    found = {}
    for name, cell in zip(function.__code__.co_freevars, cells):
        try:
            value = cell.cell_contents
        except ValueError:  # a name the function reads that was never bound
            found[name] = {"empty": True}
            continue
        found[name] = _encode(value, depth)
    return found


def _closure_text(function, options):
    key = (id(function), json.dumps(options, sort_keys=True))
    cached = _ENCODED.get(key)
    if cached is not None and cached[0] is function:
        return cached[1]
    text = None
    if getattr(function, "__closure__", None):
        try:
            text = json.dumps({"closure": _closure(function, 0), "options": options,
                               "line": function.__code__.co_firstlineno}, sort_keys=True)
        except Exception:  # noqa: BLE001 - recording must never break the program
            text = None
    _ENCODED[key] = (function, text)  # the function is kept: its id is not reused
    return text


def _record(function, types, options=None):
    code = getattr(function, "__code__", None)
    if code is None:
        return
    key = (os.path.abspath(code.co_filename), _qualname(function))
    signature = f"void({', '.join(_type_text(t) for t in types)})"
    closure = _closure_text(function, options or {})
    with _LOCK:
        _LAUNCHES[0] += 1
        signatures = _SEEN.setdefault(key, set())
        new = signature not in signatures
        signatures.add(signature)
        if closure is not None:
            seen = _CLOSURES.setdefault(key, {}).setdefault(closure, set())
            new = new or signature not in seen
            seen.add(signature)
    if new:
        _write()


def _patch_dispatcher(module):
    cls = getattr(module, "CUDADispatcher", None)
    if cls is None or getattr(cls.call, "_kernlint_recording", False):
        return
    original = cls.call

    def call(self, args, *rest, **kwargs):
        try:
            types = [self.typeof_pyval(a) for a in args]
        except Exception:  # noqa: BLE001 - recording must never break the program
            types = None
        try:
            return original(self, args, *rest, **kwargs)
        finally:
            # after the launch: its compile gave the device functions it calls their signatures
            if types is not None:
                try:
                    _record(self.py_func, types, _options(self))
                except Exception:  # noqa: BLE001
                    pass

    call._kernlint_recording = True
    cls.call = call

    # compiling for given arguments is a launch's typing without the launch: libraries that
    # launch through CuPy (fbpic's compile_cupy) specialize, then call the compiled kernel
    original_specialize = getattr(cls, "specialize", None)
    if original_specialize is not None and not getattr(original_specialize, "_kernlint_recording", False):
        def specialize(self, *args):
            if not self.targetoptions.get("device"):
                try:
                    _record(self.py_func, [self.typeof_pyval(a) for a in args], _options(self))
                except Exception:  # noqa: BLE001 - recording must never break the program
                    pass
            return original_specialize(self, *args)

        specialize._kernlint_recording = True
        cls.specialize = specialize


def _patch_simulator(module):
    cls = getattr(module, "FakeCUDAKernel", None)
    if cls is None or getattr(cls.__call__, "_kernlint_recording", False):
        return
    original = cls.__call__

    def __call__(self, *args):
        if not self._device and not getattr(module, "_kernel_context", None):
            try:
                from numba import typeof

                _record(self.fn, [typeof(a) for a in args], {"fastmath": bool(self._fastmath)})
            except Exception:  # noqa: BLE001 - recording must never break the program
                pass
        return original(self, *args)

    __call__._kernlint_recording = True
    cls.__call__ = __call__


_PATCHES = {"numba.cuda.dispatcher": _patch_dispatcher, "numba.cuda.simulator.kernel": _patch_simulator}


class _Finder(importlib.abc.MetaPathFinder):
    """Patch the launch modules right after they are first executed."""

    def find_spec(self, name, path=None, target=None):
        patch = _PATCHES.get(name)
        if patch is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
                loader = spec.loader
                original = loader.exec_module

                def exec_module(module, _original=original, _patch=patch):
                    _original(module)
                    _patch(module)

                loader.exec_module = exec_module
                return spec
        return None


def _write():
    """This process's file, replaced whole (atomically) with everything seen so far."""
    directory = os.environ.get("KERNLINT_RECORD_DIR")
    with _LOCK:
        if not directory or not _SEEN:
            return
        entries = [{"path": path, "kernel": kernel, "signatures": sorted(signatures),
                    "closures": [dict(json.loads(text), signatures=sorted(seen))
                                 for text, seen in _CLOSURES.get((path, kernel), {}).items()]}
                   for (path, kernel), signatures in _SEEN.items()]
        target = _TARGET.setdefault(os.getpid(), os.path.join(directory, f"{os.getpid()}-{uuid.uuid4().hex}.json"))
        try:
            with open(target + ".tmp", "w") as out:
                json.dump({"launches": _LAUNCHES[0], "kernels": entries}, out)
            os.replace(target + ".tmp", target)
        except OSError:
            pass


def install():
    for name, patch in _PATCHES.items():
        if name in sys.modules:
            patch(sys.modules[name])
    sys.meta_path.insert(0, _Finder())
    atexit.register(_write)


SITECUSTOMIZE = '''"""Written by kernlint record: observe numba.cuda launches, then run any other sitecustomize."""
import importlib.machinery
import importlib.util
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
import _kernlint_record_hook

_kernlint_record_hook.install()

_rest = [p for p in sys.path if os.path.abspath(p or ".") != _here]
_spec = importlib.machinery.PathFinder.find_spec("sitecustomize", _rest)
if _spec is not None and _spec.origin and os.path.dirname(os.path.abspath(_spec.origin)) != _here:
    _module = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_module)
'''
