"""KL402 debug-exception-sync

## What it does
Finds numba.cuda kernels compiled with ``debug=True``.

## Why is this bad?
With ``debug=True`` every launch ends with a blocking device-to-host copy of the
kernel's exception flag: measured on an H200, a tiny kernel's launch goes from
23.8 us to 53.5 us (+30 us per launch), and with ``opt=False`` the kernel itself
ran 45x slower (12.8 ms against 0.282 ms for 2^26 elements).

## Example
```python
@cuda.jit("void(int64[::1], float64[::1])", debug=True, opt=False)  # KL402
def convert(y, x):
    ...
```

Use instead: keep ``debug=True`` for debugging sessions; ship kernels without it
and report errors through an output array.

## Fix safety
No automatic fix.
"""

from __future__ import annotations

from typing import Iterator

from ..findings import Finding
from .base import KernelContext

CODE = "KL402"
NAME = "debug-exception-sync"
FIXABLE = False


def check(ctx: KernelContext) -> Iterator[Finding]:
    kernel = ctx.kernel
    if kernel.kind != "kernel" or not kernel.options.get("debug"):
        return
    line, column = kernel.option_lines.get("debug", (kernel.line, kernel.column))
    yield ctx.kernel_finding(
        CODE,
        "kernel compiled with debug=True: every launch blocks on a device-to-host copy of "
        "the exception flag (+30 us per launch on an H200)",
        line,
        column,
    )
