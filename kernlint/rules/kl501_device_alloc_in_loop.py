"""KL501 device-alloc-in-loop

## What it does
Finds host code that allocates device memory (``cuda.device_array*``,
``cuda.to_device``, ``cuda.pinned_array``/``mapped_array``, CuPy's constructors and
``cp.asarray``) on every iteration of a loop that launches kernels, directly or through
a function of the same file that the loop calls.

## Why is this bad?
Each step pays for a device allocation and its release (``cudaMalloc``/``cudaFree``
synchronize the device) on top of the kernel. AMDGPU.jl measured a loop allocating per
step at 12.87 s against 0.021 s with a caching allocator. Measured here (numba-cuda, H100,
1,000 steps over 2^22 float32, ``benchmarks/gpu_host.py``): ``cuda.device_array`` per step
6.5x slower than a reused buffer and 3.1x slower than CuPy's pool; ``cuda.to_device`` per
step 1.24x slower than refilling one buffer, 46x slower than keeping the data on the
device; in CUDA C++, ``cudaMalloc``/``cudaFree`` per launch 4.8x.

## Example
```python
for step in range(1000):
    tmp = cuda.device_array(n, dtype=np.float32)  # KL501
    smooth[blocks, threads](tmp, field)
```

Use instead: allocate once before the loop and reuse the buffer (``d.copy_to_device(a)``
refills one), or give numba-cuda a pool allocator through its External Memory
Management plugins (RMM's ``RMMNumbaManager``, CuPy's memory pool).

An allocation whose size depends on the loop (a sweep over problem sizes) is left alone:
it cannot be hoisted.

## Fix safety
No automatic fix.
"""

from __future__ import annotations

from typing import Iterator

from ..analysis.host import HostFacts
from ..findings import Finding
from .base import host_finding

CODE = "KL501"
NAME = "device-alloc-in-loop"
FIXABLE = False


def check_host(facts: HostFacts) -> Iterator[Finding]:
    reported = set()
    for loop in facts.launching_loops():
        for event in facts.events_in(loop.id, ("alloc",)):
            if event.place in reported:
                continue
            direct = loop.id in event.loops
            if direct and event.detail.get("shape_based") and set(event.detail.get("reads", ())) & loop.varying:
                continue  # its size changes with the loop: nothing to hoist
            reported.add(event.place)
            how = "" if direct else " (through a function the loop calls)"
            what = event.what.replace("numba.cuda.", "cuda.").replace("cupy.", "cp.")
            yield host_finding(
                CODE, event.place,
                f"`{what}` allocates device memory on every iteration of the loop at line {loop.place.line}, "
                f"which launches kernels{how}: allocate once before the loop and reuse the buffer, or use a "
                f"pool allocator (numba-cuda External Memory Management: RMM, CuPy's pool)")
