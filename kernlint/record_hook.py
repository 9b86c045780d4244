"""Observe numba.cuda launches in a program ``kernlint record`` runs.

This file is copied beside a ``sitecustomize.py`` that ``kernlint record`` puts first on
the program's ``PYTHONPATH``, so it must not import kernlint (the program may run in an
environment without it): standard library only, numba when the program imports it.

When numba-cuda's dispatcher (or the CUDA simulator's kernel) module is first imported,
its launch method is wrapped: every launch records the kernel's file and qualified name
and the numba type of each argument. At exit, each process writes what it saw as JSON
into ``$KERNLINT_RECORD_DIR``.
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
_LOCK = threading.Lock()
_LAUNCHES = [0]


def _type_text(numba_type):
    """numba's type as a signature string numba parses back (``str`` of a tuple does not);
    the tuple form is pytypes.TupleType.text's, written again: this file cannot import kernlint."""
    items = getattr(numba_type, "types", None)
    if isinstance(items, tuple) and type(numba_type).__name__ in ("UniTuple", "Tuple"):
        texts = [_type_text(t) for t in items]
        if texts and all(t == texts[0] for t in texts):
            return f"UniTuple({texts[0]}, {len(texts)})"
        return f"Tuple(({', '.join(texts)}{',' if len(texts) == 1 else ''}))"
    ndim = getattr(numba_type, "ndim", None)
    dtype = getattr(numba_type, "dtype", None)
    if ndim is None or dtype is None or not hasattr(numba_type, "layout"):
        text = str(numba_type)
        return "boolean" if text == "bool" else text
    dtype = "boolean" if str(dtype) == "bool" else dtype
    if str(dtype) == _XOROSHIRO_RECORD:
        dtype = "xoroshiro128p"  # numba-cuda's random states: the name kernlint's signatures give them
    if ndim == 0:  # numba's [...] spelling has no 0-d form
        return f"Array({dtype}, 0, '{numba_type.layout if numba_type.layout in ('C', 'F') else 'A'}')"
    dims = [":"] * ndim
    if numba_type.layout == "C":
        dims[-1] = "::1"
    elif numba_type.layout == "F":
        dims[0] = "::1"
    return f"{dtype}[{', '.join(dims)}]"


# str() of numba's type of numba.cuda.random.xoroshiro128p_dtype
_XOROSHIRO_RECORD = "Record(s0[type=uint64;offset=0],s1[type=uint64;offset=8];16;True)"


def _record(function, types):
    code = getattr(function, "__code__", None)
    if code is None:
        return
    qualname = getattr(function, "__qualname__", function.__name__).replace("<locals>.", "")
    signature = f"void({', '.join(_type_text(t) for t in types)})"
    with _LOCK:
        _SEEN.setdefault((os.path.abspath(code.co_filename), qualname), set()).add(signature)
        _LAUNCHES[0] += 1


def _patch_dispatcher(module):
    cls = getattr(module, "CUDADispatcher", None)
    if cls is None or getattr(cls.call, "_kernlint_recording", False):
        return
    original = cls.call

    def call(self, args, *rest, **kwargs):
        try:
            _record(self.py_func, [self.typeof_pyval(a) for a in args])
        except Exception:  # noqa: BLE001 - recording must never break the program
            pass
        return original(self, args, *rest, **kwargs)

    call._kernlint_recording = True
    cls.call = call


def _patch_simulator(module):
    cls = getattr(module, "FakeCUDAKernel", None)
    if cls is None or getattr(cls.__call__, "_kernlint_recording", False):
        return
    original = cls.__call__

    def __call__(self, *args):
        if not self._device and not getattr(module, "_kernel_context", None):
            try:
                from numba import typeof

                _record(self.fn, [typeof(a) for a in args])
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
    directory = os.environ.get("KERNLINT_RECORD_DIR")
    if not directory or not _SEEN:
        return
    entries = [{"path": path, "kernel": kernel, "signatures": sorted(signatures)}
               for (path, kernel), signatures in _SEEN.items()]
    target = os.path.join(directory, f"{os.getpid()}-{uuid.uuid4().hex}.json")
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
