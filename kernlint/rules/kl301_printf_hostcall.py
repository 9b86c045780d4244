"""KL301 printf-hostcall

## What it does
Finds formatted printing on the device: ``vprintf`` (what numba-cuda's ``print``
becomes), ``printf``, and ROCm's ``__ockl_printf_*`` (HIP's ``printf``, which
reaches the host through ``__ockl_hostcall_internal``).

## Why is this bad?
The arguments are packed into a local buffer and handed to the host: the buffer
lives in stack memory and its setup keeps registers live, whether or not the
print runs. Measured on an H200 (2^26 float64 -> int64): a never-taken ``print``
guard makes a bandwidth-bound kernel 2.0x slower (0.572 vs 0.286 ms; 24 vs 14
registers, 24 B vs 0 B stack). On gfx90a a ``printf`` guard costs 33 VGPR, 48
SGPR and 160 B scratch against 6 VGPR, 19 SGPR and none.

## Example
```python
if v != v:
    print("NaN at", i)  # KL301
```

Use instead: count or flag bad inputs into an output array and report them on
the host after the launch.

## Fix safety
No automatic fix (a print-guarded conversion is rewritten by KL101's fix, which
removes the print with its guard).
"""

from __future__ import annotations

from typing import Iterator

from ..analysis import runtime
from ..analysis.program import Site
from ..findings import Finding
from ..source import is_print
from .base import KernelContext

CODE = "KL301"
NAME = "printf-hostcall"
FIXABLE = False

_PRINTF_SCOPE = "__ockl_printf_"


def is_printf_site(site: Site, ctx: KernelContext) -> bool:
    """A printf call, or a hostcall made by (inlined) printf code: ockl's printf service
    number, an ``__ockl_printf_*`` scope, or, where clang propagated the service number
    away, a ``printf`` at the call's source location."""
    if runtime.classify(site.instruction.callee) is runtime.Kind.PRINTF:
        return True
    if runtime.classify(site.instruction.callee) is not runtime.Kind.HOSTCALL:
        return False
    if runtime.hostcall_service(site.instruction.call_args()) == runtime.HOSTCALL_SERVICE_PRINTF:
        return True
    frames = site.frames()
    if any(f.function.startswith(_PRINTF_SCOPE) for f in frames) or any(
        (call.callee or "").startswith(_PRINTF_SCOPE) for call in site.chain
    ):
        return True
    for frame in frames:
        source = ctx.source_for(frame.path) if frame.path and frame.column > 0 else None
        if source is not None:
            return source.line(frame.line)[frame.column - 1:].lstrip().startswith("printf")
    return False


def check(ctx: KernelContext) -> Iterator[Finding]:
    for site in ctx.analysis.sites:
        if not is_printf_site(site, ctx):
            continue
        where = "on an error path" if site.on_error_path else "on the kernel's normal path"
        yield ctx.site_finding(
            CODE,
            f"print/printf {where} becomes a host call (`{site.instruction.callee}`): its "
            f"argument buffer costs registers and stack even when it never runs",
            site,
            point_at=(is_print,),
        )
