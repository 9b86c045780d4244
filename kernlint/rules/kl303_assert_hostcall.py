"""KL303 assert-hostcall

## What it does
Finds device assertions that report through the host and trap: CUDA's
``__assertfail``, ROCm's ``__assert_fail``, ``abort``, and what they call.

## Why is this bad?
The assertion message, file name and line are packed for the host on the failure
path, which keeps registers and stack live across the kernel; on ROCm
``__assert_fail`` is a hostcall followed by ``llvm.trap``.

## Example
```c++
__global__ void k(long *y, const double *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    assert(x[i] == x[i]);  // KL303
}
```

Use instead: validate on the host, or compile assertions out of release builds
(``-DNDEBUG``).

## Fix safety
No automatic fix.
"""

from __future__ import annotations

from typing import Iterator

from ..analysis import runtime
from ..findings import Finding
from ..source import is_raise
from .base import KernelContext

CODE = "KL303"
NAME = "assert-hostcall"
FIXABLE = False


def check(ctx: KernelContext) -> Iterator[Finding]:
    for site, _ in ctx.analysis.calls(runtime.Kind.ASSERT):
        yield ctx.site_finding(
            CODE,
            f"assertion `{site.instruction.callee}` reports through the host and traps: its "
            f"message setup costs registers and stack on every launch",
            site,
            point_at=(is_raise,),
        )
