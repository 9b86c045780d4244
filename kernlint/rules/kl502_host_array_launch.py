"""KL502 host-array-launch

## What it does
Finds a kernel launch that passes a host NumPy array (made by a NumPy constructor,
``copy_to_host()`` or a pinned array, as the code shows; a parameter only when every
call of its function in the file passes one).

## Why is this bad?
numba-cuda copies a host array to the device before the launch, copies it back after,
and waits for the kernel to finish so that it can: every launch becomes an allocation,
two transfers and a synchronization (numba #6904; numba only warns about it at run time).
Measured on an H100 (numba-cuda, 2^22 float32, 200 launches, ``benchmarks/gpu_host.py``):
237x slower than the same launches on device arrays with one copy back at the end.

## Example
```python
x = np.random.rand(n)
scale[blocks, threads](x, 2.0)  # KL502
```

Use instead: ``d_x = cuda.to_device(x)`` once, launch on ``d_x``, and
``d_x.copy_to_host()`` when the host needs the result.

## Fix safety
No automatic fix.
"""

from __future__ import annotations

from typing import Iterator

from ..analysis.host import HostFacts
from ..findings import Finding
from .base import host_finding

CODE = "KL502"
NAME = "host-array-launch"
FIXABLE = False


def check_host(facts: HostFacts) -> Iterator[Finding]:
    for launch in facts.launches:
        arrays = launch.host_arrays
        if not arrays:
            continue
        names = ", ".join(f"`{a.name}`" for a in arrays)
        first = arrays[0].name
        yield host_finding(
            CODE, launch.place,
            f"{names} {'is a host (NumPy) array' if len(arrays) == 1 else 'are host (NumPy) arrays'}: "
            f"numba-cuda copies {'it' if len(arrays) == 1 else 'them'} to the device and back and waits for the "
            f"kernel on every launch; `cuda.to_device({first})` once and launch on the device array")
