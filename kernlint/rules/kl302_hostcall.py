"""KL302 hostcall

## What it does
Finds calls from the device into the host other than printf: ROCm's
``__ockl_hostcall_internal``, ``__ockl_hostcall_preview`` and
``__ockl_call_host_function``; AMDGPU.jl's hostcall globals (``__malloc_hostcall``,
``__free_hostcall``, ``__print_hostcall``, ``__printf_hostcall``); and device
``malloc``/``free`` on AMDGPU, which are hostcalls there.

## Why is this bad?
A hostcall sets up a packet in a shared buffer, signals the host and waits: it
keeps many registers live, serialises the wavefront on the host's answer, and
its setup code costs occupancy even when the call never runs.

## Example
```c++
__global__ void k(long *y, const double *x) {
    double *tmp = (double *)malloc(64);  // KL302 (and KL202)
}
```

Use instead: allocate and report on the host, before or after the launch.

## Fix safety
No automatic fix.
"""

from __future__ import annotations

from typing import Iterator

from ..analysis import runtime
from ..findings import Finding
from ..source import is_call
from .base import KernelContext
from .kl301_printf_hostcall import is_printf_site

CODE = "KL302"
NAME = "hostcall"
FIXABLE = False


def check(ctx: KernelContext) -> Iterator[Finding]:
    triple = ctx.analysis.program.triple
    for site in ctx.analysis.sites:
        ins = site.instruction
        callee = ins.callee
        if ins.opcode == "load":
            what = site.what
        elif runtime.is_amdgpu_hostcall(callee, triple):
            what = callee
        elif runtime.classify(callee) is runtime.Kind.HOSTCALL and not is_printf_site(site, ctx):
            what = callee
        else:
            continue
        where = "on an error path" if site.on_error_path else "on the kernel's normal path"
        yield ctx.site_finding(
            CODE,
            f"host call `{what}` {where}: the hostcall packet and the wait for the host "
            f"cost registers and occupancy even when it never runs",
            site,
            point_at=(is_call,),
        )
