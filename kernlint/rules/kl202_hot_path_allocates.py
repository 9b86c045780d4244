"""KL202 hot-path-allocates

## What it does
Finds a device memory allocation (device ``malloc``, ``NRT_MemInfo_alloc*`` behind
``np.empty``/``np.zeros`` with numba-cuda's NRT, ``__ockl_dm_alloc``,
``gpu_gc_pool_alloc``, ``gpu_malloc``, ``ijl_gc_pool_alloc``, ``ijl_box_*``, and a hostcall whose service allocates: AMDGPU.jl's ``__malloc_hostcall``
in whatever function invokes it, ockl's device-memory service) on the
normal path of a kernel.

## Why is this bad?
Every thread that runs it goes through the device heap allocator (a global lock
or a hostcall on AMDGPU), and the heap is small and shared. AMDGPU.jl measured
device allocation in a loop at 12.87 s against 0.021 s with a caching allocator.

## Example
```python
@cuda.jit("void(float64[::1], float64[::1])")
def smooth(y, x):
    i = cuda.grid(1)
    tmp = np.zeros(3)  # KL202
```

Use instead: ``cuda.local.array((3,), float64)`` for per-thread scratch, or a
buffer allocated once on the host and passed in.

## Fix safety
No automatic fix.
"""

from __future__ import annotations

from typing import Iterator

from ..analysis import runtime
from ..findings import Finding
from ..source import is_call
from .base import KernelContext

CODE = "KL202"
NAME = "hot-path-allocates"
FIXABLE = False


def check(ctx: KernelContext) -> Iterator[Finding]:
    for site, _ in ctx.analysis.calls(runtime.Kind.ALLOC):
        if not site.on_error_path:
            callee = site.what
            yield ctx.site_finding(
                CODE,
                f"`{callee}` allocates device memory on the kernel's normal path: every "
                f"thread goes through the device heap; use a local array or a buffer "
                f"allocated once on the host",
                site,
                point_at=(is_call,),
            )
