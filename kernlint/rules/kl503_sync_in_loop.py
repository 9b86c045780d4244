"""KL503 sync-in-loop

## What it does
Finds, inside a loop that launches kernels, an operation that makes the host wait for
the GPU on every iteration: ``cuda.synchronize()``, ``stream.synchronize()``,
``with stream.auto_synchronize()``, a blocking ``copy_to_host()`` (no stream),
``cp.asnumpy``, NumPy functions or ``float()``/``int()`` applied to device data, and a
launch on host arrays (numba-cuda synchronizes after it).

## Why is this bad?
The host cannot queue the next launch until the GPU has finished the previous one, so
launch overhead and the GPU's idle gaps add up every step. Measured on an H100
(numba-cuda, 2^22 float32, 200 steps, ``benchmarks/gpu_host.py``): ``cuda.synchronize()``
per step 1.5x, ``copy_to_host()`` per step 31x slower than one synchronization (or one
copy) after the loop; in CUDA C++, a blocking ``cudaMemcpy`` per step 53x.

Left alone, because the loop needs them: a copy whose result decides the loop (its
``while`` condition, or an ``if ...: break``), and a synchronization followed in the
same iteration by a clock read (timing each step).

## Example
```python
for step in range(steps):
    relax[blocks, threads](d_field)
    cuda.synchronize()  # KL503
```

Use instead: one ``cuda.synchronize()`` after the loop; where the host needs data every
step, asynchronous copies on a stream into pinned memory.

## Fix safety
No automatic fix.
"""

from __future__ import annotations

from typing import Iterator

from ..analysis.host import HostFacts, Launch
from ..findings import Finding
from .base import host_finding

CODE = "KL503"
NAME = "sync-in-loop"
FIXABLE = False
# on six projects it was not developed on, 0 of 110 host findings were true (2026-11): preview
# until the rule holds on projects set aside for measuring it
PREVIEW = True


def check_host(facts: HostFacts) -> Iterator[Finding]:
    reported = set()
    for loop in facts.launching_loops():
        inside = facts.events_in(loop.id)
        for index, event in enumerate(inside):
            if event.place in reported or facts.hoisted_in_callee(event, loop):
                continue
            if isinstance(event, Launch) and event.host_arrays:
                why = "this launch passes host arrays, so numba-cuda synchronizes after it"
            elif event.kind in ("sync", "copy-back"):
                if set(event.detail.get("assigned", ())) & loop.deciding:
                    continue  # the loop needs the value to decide whether to go on
                if any(later.kind == "clock" for later in inside[index + 1:]):
                    continue  # timing each iteration: the wait is the point
                what = event.what.replace("numba.cuda.", "cuda.").replace("cupy.", "cp.")
                why = f"`{what}`" + (" is a blocking copy to the host" if event.kind == "copy-back" else " blocks")
            else:
                continue
            reported.add(event.place)
            yield host_finding(
                CODE, event.place,
                f"{why}: the host waits for the GPU on every iteration of the loop at line "
                f"{loop.place.line}, which launches kernels; synchronize once after the loop (async copies on "
                f"a stream into pinned memory where the host needs data each step)")
