"""KL505 foreign-array-launch

## What it does
Finds a numba kernel launched on every iteration of a step loop (time steps, iterations
of a solver, shown by the state the loop carries; not a loop over GPUs or problem
sizes, not behind a modulo gate, not in set-up code, not once per epoch beside a batch loop
whose batches carry the object's device state) with arguments known to be CuPy arrays or PyTorch tensors on the GPU that are
bound before the loop and not rebound in it, directly or in the function of this file that
the loop calls and that launches.

## Why is this bad?
numba-cuda does not keep what it learned about a foreign array: on every launch it reads
each argument's ``__cuda_array_interface__`` again and builds a device-array view from it
(numba-cuda #578). That is host time on every launch, for every such argument. Measured on
an H100 (numba-cuda 0.30.4, CuPy 14.2, 2,000 launches of a 1,024-element kernel, best of 5,
``benchmarks/gpu_foreign.py``): 40.6 µs per launch with one CuPy argument against 17.8 µs
on a numba view made once (2.3x), 244.7 µs against 56.9 µs with ten (4.3x; PyTorch tensors
209.5 µs), about 19 µs per CuPy argument per launch; a step of six kernels over twelve
arrays 896.6 µs against 264.6 µs (3.4x). CuPy's own pool makes allocation cheap in such
codes, so this conversion is the host cost that matters.

## Example
```python
u = cp.zeros(n, dtype=cp.float32)
v = cp.zeros(n, dtype=cp.float32)
for step in range(steps):
    advance[blocks, threads](u, v, dt)  # KL505
```

Use instead: make numba views once before the loop and launch on them; they share the
arrays' memory, so CuPy code in the loop sees every update, and they stay valid while
the arrays are not reallocated (``u = u * 2`` makes a new array: make its view again):

```python
d_u, d_v = cuda.as_cuda_array(u), cuda.as_cuda_array(v)
for step in range(steps):
    advance[blocks, threads](d_u, d_v, dt)
```

Left alone: an array rebound inside the loop (a new CuPy array each step needs its
conversion anyway), a parameter of the launching function when the launch is reached
through a call (its binding is the caller's), a launch in another file's function (its
arrays are bound there), loops over devices or problem sizes, a verification loop (each
iteration checks a result it copies back against the host's own with ``np.testing.assert_*``
or ``assert np.allclose(...)``), numba's own device arrays, and
a CuPy raw kernel (``@cupyx.jit.rawkernel()``) launched with the same brackets: CuPy
launches it on its own arrays, nothing is converted.

## Fix safety
No automatic fix.
"""

from __future__ import annotations

from typing import Iterator

from ..analysis.host import HostFacts
from ..findings import Finding
from .base import host_finding

CODE = "KL505"
NAME = "foreign-array-launch"
FIXABLE = False
# on six projects it was not developed on, 0 of 110 host findings were true (2026-11): preview
# until the rule holds on projects set aside for measuring it
PREVIEW = True

_LIBRARIES = {"cupy": "CuPy array", "torch": "PyTorch tensor"}


def check_host(facts: HostFacts) -> Iterator[Finding]:
    reported = set()
    for launch, level, loop in facts.stepping(("launch",)):
        if launch.place in reported or launch.place.path != facts.path:
            continue  # (another file's launch: its arrays are bound there, or are the caller's parameters)
        if launch.detail.get("library_kernel"):
            continue  # a CuPy raw kernel (`@cupyx.jit.rawkernel()`): CuPy takes its own arrays as they are
        through_call = launch.function != loop.function
        kept = []
        # device arrays of other libraries: numba-cuda converts each one's interface per launch
        foreign = [a for a in launch.args if a.array and a.where == "device" and a.library in _LIBRARIES]
        for arg in foreign:
            if any(arg.name == k.name for k in kept):
                continue
            if arg.name in loop.rebound or arg.name.split(".")[0] in loop.rebound - {"self", "cls"}:
                continue  # a new array every step: its conversion cannot be saved
            if through_call and (arg.parameter or arg.name in facts.rebound.get(launch.function, ())):
                continue  # bound by the caller, or anew on every call
            kept.append(arg)
        if not kept:
            continue
        reported.add(launch.place)
        kinds = sorted({_LIBRARIES[a.library] for a in kept})
        names = ", ".join(f"`{a.name}`" for a in kept)
        first = kept[0].name
        view = "d_" + first.rsplit(".", 1)[-1]
        plural = len(kept) > 1
        how = " (through a function the loop calls)" if through_call else ""
        yield host_finding(
            CODE, launch.place,
            f"{names} {'are' if plural else 'is a'} {' / '.join(k + ('s' if plural else '') for k in kinds)} "
            f"bound before the loop at line {level.line}{how}: numba-cuda converts each "
            f"`__cuda_array_interface__` argument on every launch (about 19 µs of host time per argument per "
            f"launch on an H100; a 6-kernel step 3.4x slower); make numba views once before the loop "
            f"(`{view} = cuda.as_cuda_array({first})`) and launch on them, valid while "
            f"{'they are' if plural else 'it is'} not reallocated")
