"""C++ names as people write them: ``_Z20to_long_printf_guardPlPKdi`` ->
``to_long_printf_guard(long*, double const*, int)``, as every C++ tool shows a HIP kernel.

The C++ runtime's own demangler (``__cxa_demangle`` in libstdc++, which hipcc's programs link
and every Linux with a C++ compiler has) is called in-process; where it cannot be loaded, the
toolchain's ``llvm-cxxfilt`` (installed with hipcc's LLVM) or binutils' ``c++filt`` is run once
for all the names. A name none of them reads is shown as it is.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import glob
import shutil
import subprocess
from functools import lru_cache
from typing import Callable, Dict, Iterable, Optional


@lru_cache(maxsize=1)
def _runtime() -> Optional[Callable[[str], Optional[str]]]:
    name = ctypes.util.find_library("stdc++")
    if name is None:
        return None
    try:
        library = ctypes.CDLL(name)
        function = library.__cxa_demangle
    except (OSError, AttributeError):
        return None
    function.restype = ctypes.c_void_p  # a malloc'd buffer the caller frees
    function.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_size_t),
                         ctypes.POINTER(ctypes.c_int)]
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    libc.free.argtypes = [ctypes.c_void_p]

    def demangle(mangled: str) -> Optional[str]:
        status = ctypes.c_int(0)
        buffer = function(mangled.encode(), None, None, ctypes.byref(status))
        if not buffer or status.value != 0:
            return None
        try:
            return ctypes.string_at(buffer).decode("utf-8", "replace")
        finally:
            libc.free(buffer)

    return demangle


def _tool() -> Optional[str]:
    for name in ("llvm-cxxfilt", "c++filt"):
        found = shutil.which(name)
        if found:
            return found
    versioned = sorted(glob.glob("/usr/bin/llvm-cxxfilt-*") + glob.glob("/usr/lib/llvm-*/bin/llvm-cxxfilt"))
    return versioned[-1] if versioned else None


def demangle_all(names: Iterable[str]) -> Dict[str, str]:
    """Each Itanium-mangled name (``_Z...``) to its demangled form; other names as they are."""
    names = list(dict.fromkeys(names))
    out = {name: name for name in names}
    mangled = [name for name in names if name.startswith("_Z")]
    if not mangled:
        return out
    runtime = _runtime()
    if runtime is not None:
        for name in mangled:
            out[name] = runtime(name) or name
        return out
    tool = _tool()
    if tool is None:
        return out
    try:
        done = subprocess.run([tool], input="\n".join(mangled) + "\n", capture_output=True, text=True,
                              timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return out
    lines = done.stdout.splitlines()
    if done.returncode == 0 and len(lines) == len(mangled):
        out.update({name: line.strip() or name for name, line in zip(mangled, lines)})
    return out


def demangle(name: str) -> str:
    return demangle_all([name])[name]
