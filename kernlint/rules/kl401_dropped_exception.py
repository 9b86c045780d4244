"""KL401 dropped-exception

## What it does
Finds a ``raise`` or ``assert`` in a numba.cuda kernel (or a device function it
calls) compiled without ``debug=True``.

## Why is this bad?
numba-cuda lowers the raise into an exception status that the kernel wrapper
throws away without ``debug=True`` (numba-cuda #388): the thread silently returns
and the caller never learns that anything failed. The check still runs, and if
it guards a conversion the kernel keeps the branch for nothing.

## Example
```python
@cuda.jit("void(int64[::1], float64[::1])")
def convert(y, x):
    i = cuda.grid(1)
    v = x[i]
    if v != v:
        raise ValueError("NaN")  # KL401
    y[i] = int(v)
```

Use instead: write an error flag into an output array and check it on the host,
or validate the input before the launch.

## Fix safety
No automatic fix.
"""

from __future__ import annotations

from typing import Iterator

from ..analysis.program import Site
from ..findings import Finding
from ..source import is_raise
from .base import KernelContext

CODE = "KL401"
NAME = "dropped-exception"
FIXABLE = False


def check(ctx: KernelContext) -> Iterator[Finding]:
    if ctx.kernel.options.get("debug"):
        return  # the exception is reported (at a cost: see KL402)
    for reached in ctx.analysis.functions():
        facts = ctx.analysis.facts(reached.function)
        if not facts.numba_abi:
            continue
        for block in reached.function.blocks:
            term = block.terminator
            if term is None or term.opcode != "ret":
                continue
            status = term.body.split()[-1]
            if not status.lstrip("-").isdigit() or status == "0":
                continue  # a normal return, or a callee's status passed on
            site = Site(reached.function, term, True, reached.chain)
            frames = site.frames()
            if not frames or not ctx.is_user_path(frames[0].path):
                continue  # raised inside numba's own library code
            source = ctx.source_for(frames[0].path)
            if source is not None and not source.column_of(frames[0].line, is_raise):
                continue  # a check numba inserted (range() step, division), not the user's raise
            yield ctx.finding(
                CODE,
                "exception raised in a kernel compiled without debug=True is silently "
                "dropped (the thread just returns): report errors through an output array",
                frames,
                point_at=(is_raise,),
            )
