"""Device-array stand-ins: a ``cuda.to_device(...)`` a kernel captures at import time is made
as an object with the array's ``__cuda_array_interface__`` (no GPU needed); CuPy's scalar
types as NumPy's."""

from __future__ import annotations

import types
from typing import Any, Optional


# CuPy's scalar types and constants are NumPy's (a kernel reads `cp.float32(2 * pi)` at import)
_CUPY_SCALARS = ("bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
                 "float32", "float64", "complex64", "complex128", "intp", "uintp", "pi", "e", "inf", "nan",
                 "euler_gamma", "newaxis", "dtype")


def _cupy_scalars(attr: Optional[str]) -> Any:
    """``import cupy as cp`` without CuPy: a module with NumPy's scalar types and constants
    under CuPy's names (the same values); any other attribute stays unresolved."""
    import numpy

    if attr is not None:
        return getattr(numpy, attr)
    stand = types.ModuleType("cupy")
    for name in _CUPY_SCALARS:
        setattr(stand, name, getattr(numpy, name))
    return stand


class DeviceArrayStandin:
    """A device array a module makes at import time, without a GPU: numba-cuda types an
    object with ``__cuda_array_interface__`` as it types the device array (a writable array)
    and lowers it by embedding its pointer, so the kernel's IR is the program's. The pointer
    is the host array's and nothing ever reads it (nothing runs); the module's other
    expressions read the host array's attributes (``G.shape``, ``len(G)``)."""

    def __init__(self, host):
        self._host = host
        self.__cuda_array_interface__ = {
            "shape": host.shape, "typestr": host.dtype.str, "version": 3,
            "strides": None if host.flags.c_contiguous else host.strides, "data": (host.ctypes.data, False)}

    def __getattr__(self, name: str):
        if name.startswith("__"):  # (`__dlpack__` would have numba type it as the host array)
            raise AttributeError(name)
        return getattr(self._host, name)

    def __len__(self) -> int:
        return len(self._host)

    def __getitem__(self, index):
        return self._host[index]

    def copy_to_host(self):
        return self._host.copy()

    def __repr__(self) -> str:  # what the cache's kernel digest reads: the array, not the pointer
        import hashlib

        data = hashlib.sha256(self._host.tobytes()).hexdigest()[:16]
        return f"DeviceArrayStandin({self._host.dtype.str}, {self._host.shape}, {data})"


def _captures_device_arrays() -> bool:
    """Whether this numba-cuda lowers a captured ``__cuda_array_interface__`` object by its
    pointer (0.20 has no such lowering: a host array stands in there)."""
    try:
        from numba.cuda.np import arrayobj
    except ImportError:
        return False
    return hasattr(arrayobj, "_lower_constant_device_array")


_DEVICE_MAKERS = ("to_device", "device_array", "device_array_like", "pinned_array", "pinned_array_like",
                  "mapped_array", "mapped_array_like", "managed_array")
