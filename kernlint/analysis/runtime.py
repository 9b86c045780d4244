"""Every runtime function kernlint knows, classified in one place (as AllocCheck.jl does).

A category says what calling the function means on a GPU:

- ``SINK``: execution ends in an error (trap, throw, assert, exception report);
- ``PRINTF``: a formatted print that goes through the host;
- ``HOSTCALL``: any other call into the host;
- ``ALLOC``: device memory allocation (a call, or a hostcall whose service allocates);
- ``FREE``: giving device memory back;
- ``CONVERT``: a float-to-int conversion done by a library call;
- ``ROUND``: rounding that keeps the float type (what exactness checks compare against);
- ``NAN_TEST`` / ``RANGE_TEST``: library predicates on a float (``math.isnan``, ``math.isinf``).
"""

from __future__ import annotations

import re
from enum import Enum
from typing import Optional


class Kind(Enum):
    SINK = "sink"
    PRINTF = "printf"
    HOSTCALL = "hostcall"
    ASSERT = "assert"
    ALLOC = "alloc"
    FREE = "free"
    CONVERT = "convert"
    ROUND = "round"
    NAN_TEST = "nan-test"
    RANGE_TEST = "range-test"


_EXACT = {
    # error sinks
    "llvm.trap": Kind.SINK,
    "llvm.debugtrap": Kind.SINK,
    "ijl_throw": Kind.SINK,
    "jl_throw": Kind.SINK,
    "gpu_signal_exception": Kind.SINK,
    "llvm.amdgcn.endpgm": Kind.SINK,
    # asserts end in a trap after a host report
    "__assertfail": Kind.ASSERT,
    "__assert_fail": Kind.ASSERT,
    "abort": Kind.ASSERT,
    # printf
    "vprintf": Kind.PRINTF,
    "printf": Kind.PRINTF,
    # hostcalls
    "__ockl_hostcall_internal": Kind.HOSTCALL,
    "__ockl_hostcall_preview": Kind.HOSTCALL,
    "__ockl_call_host_function": Kind.HOSTCALL,
    # allocation
    "malloc": Kind.ALLOC,
    "__ockl_dm_alloc": Kind.ALLOC,
    "gpu_gc_pool_alloc": Kind.ALLOC,
    "gpu_malloc": Kind.ALLOC,
    "ijl_gc_pool_alloc": Kind.ALLOC,
    "jl_gc_pool_alloc": Kind.ALLOC,
    "free": Kind.FREE,
    "__ockl_dm_dealloc": Kind.FREE,
    "gpu_free": Kind.FREE,
}

_PATTERNS = [
    (re.compile(r"^gpu_report_exception"), Kind.SINK),
    (re.compile(r"^__ockl_printf_"), Kind.PRINTF),
    (re.compile(r"^NRT_MemInfo_alloc"), Kind.ALLOC),
    (re.compile(r"^NRT_Allocate"), Kind.ALLOC),
    (re.compile(r"^NRT_MemInfo_new"), Kind.ALLOC),
    (re.compile(r"^ij?l_box_"), Kind.ALLOC),
    (re.compile(r"^llvm\.fpto[su]i\.sat\."), Kind.CONVERT),
    (re.compile(r"^__nv_(float|double)2u?(int|ll)_r[nzud]$"), Kind.CONVERT),
    (re.compile(r"^__nv_(float|double)2uint_r[nzud]$"), Kind.CONVERT),
    (re.compile(r"^llvm\.(floor|ceil|trunc|round|rint|nearbyint|roundeven)\.f\d+$"), Kind.ROUND),
    (re.compile(r"^__nv_(floor|ceil|trunc|round|rint|nearbyint)f?$"), Kind.ROUND),
    (re.compile(r"^__ocml_(floor|ceil|trunc|round|rint)_f\d+$"), Kind.ROUND),
    (re.compile(r"^(llvm\.is\.fpclass|__nv_isnan[df]|__ocml_isnan_f\d+)"), Kind.NAN_TEST),
    (re.compile(r"^(__nv_isinf[df]|__nv_isfinited|__nv_finitef|__ocml_isinf_f\d+|__ocml_isfinite_f\d+)$"),
     Kind.RANGE_TEST),
]

# AMDGPU.jl reaches the host through these device-side globals (a load of one of them is
# the hostcall's setup, in whatever function invokes it); what each service does.
HOSTCALL_SERVICES = {
    "__malloc_hostcall": Kind.ALLOC,
    "__free_hostcall": Kind.FREE,
    "__print_hostcall": Kind.HOSTCALL,
    "__printf_hostcall": Kind.HOSTCALL,
}
HOSTCALL_GLOBALS = frozenset(HOSTCALL_SERVICES)

# On AMDGPU, device malloc/free are hostcalls too.
_AMDGPU_HOSTCALL = frozenset(["malloc", "free", "__ockl_dm_alloc", "__ockl_dm_dealloc"])


def classify(name: Optional[str]) -> Optional[Kind]:
    if not name:
        return None
    kind = _EXACT.get(name)
    if kind is not None:
        return kind
    for pattern, kind in _PATTERNS:
        if pattern.match(name):
            return kind
    return None


def site_kind(opcode: str, callee: Optional[str], call_args: str = "", loaded=()) -> Optional[Kind]:
    """What an instruction does at run time: a call by its callee (an ockl hostcall by its
    service: the device-memory service allocates), a load of an AMDGPU.jl hostcall global by
    that hostcall's service."""
    if opcode == "load":
        return next((HOSTCALL_SERVICES[g] for g in loaded if g in HOSTCALL_SERVICES), None)
    kind = classify(callee)
    if kind is Kind.HOSTCALL and callee == "__ockl_hostcall_internal" and hostcall_service(
            call_args) == HOSTCALL_SERVICE_DEVMEM:
        return Kind.ALLOC
    return kind


def is_amdgpu_hostcall(name: Optional[str], triple: str) -> bool:
    return bool(name) and name in _AMDGPU_HOSTCALL and triple.startswith("amdgcn")


# ockl's hostcall service numbers (rocm-device-libs ockl/inc/ockl_hostcall.h)
HOSTCALL_SERVICE_PRINTF = 2
HOSTCALL_SERVICE_DEVMEM = 3

# fast-math flags that may stand between an fcmp and its predicate
FAST_MATH_FLAGS = frozenset("nnan ninf nsz arcp contract afn reassoc fast".split())


def hostcall_service(call_args: str) -> Optional[int]:
    """The service number of an ``__ockl_hostcall_internal(buffer, i32 service, ...)`` call."""
    depth, parts, current = 0, [], []
    for ch in call_args:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    if len(parts) < 2:
        return None
    last = parts[1].split()[-1] if parts[1].split() else ""
    return int(last) if last.isdigit() else None


def is_debug_exception_helper(name: Optional[str]) -> bool:
    """numba-cuda's debug-mode helper that records a kernel's exception status."""
    return bool(name) and name.endswith("__exc_helper__")


def is_debug_intrinsic(name: Optional[str]) -> bool:
    return bool(name) and name.startswith("llvm.dbg.")
