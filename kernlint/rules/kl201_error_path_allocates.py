"""KL201 error-path-allocates

## What it does
Finds a device memory allocation (device ``malloc``, ``NRT_MemInfo_alloc*``,
``__ockl_dm_alloc``, ``gpu_gc_pool_alloc``, ``gpu_malloc``, ``ijl_gc_pool_alloc``,
``ijl_box_*``, and a hostcall whose service allocates: AMDGPU.jl's ``__malloc_hostcall``
in whatever function invokes it, ockl's device-memory service) that is reached only on an error path: the code that builds an
exception, boxes a value for an error message, or prepares a report.

## Why is this bad?
The allocation never runs on good data, yet its call sequence (and on AMDGPU the
hostcall behind device ``malloc``) keeps registers and stack allocated for the
whole kernel. Julia's ``Int(x)`` boxes the value for its InexactError this way;
AMDGPU.jl measured 4 -> 126 VGPRs with exceptions on.

## Example
```python
if v != v:
    scratch = np.zeros(4)  # KL201
    scratch[0] = v
    raise ValueError("NaN")
```

Use instead: report errors through a preallocated status array, with no
allocation on the failure path.

## Fix safety
No automatic fix.
"""

from __future__ import annotations

from typing import Iterator

from ..analysis import runtime
from ..findings import Finding
from ..source import is_call
from .base import KernelContext

CODE = "KL201"
NAME = "error-path-allocates"
FIXABLE = False


def check(ctx: KernelContext) -> Iterator[Finding]:
    for site, _ in ctx.analysis.calls(runtime.Kind.ALLOC):
        if site.on_error_path:
            callee = site.what
            yield ctx.site_finding(
                CODE,
                f"`{callee}` allocates device memory on an error path: the never-taken "
                f"allocation still costs registers and stack on every launch",
                site,
                point_at=(is_call,),
            )
