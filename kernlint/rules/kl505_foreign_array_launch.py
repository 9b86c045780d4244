"""KL505 foreign-array-launch

## What it does
Finds a numba kernel launched on every iteration of a step loop (time steps, iterations
of a solver, shown by the state the loop carries; not a loop over GPUs or problem
sizes, not behind a modulo gate, not in set-up code, not once per epoch beside a batch loop
whose batches carry the object's device state) with arguments known to be CuPy arrays or PyTorch tensors on the GPU that are
bound before the loop and not rebound in it, directly or in a function of this file that
the loop calls and that launches. What a called function launches is reported at the call in
the loop, once, naming each launch and the arrays (the call is what runs on every step; the
same function called once elsewhere costs nothing there). A function that launches only in
loops over pieces of its own call's work (batches of the bodies, launch configurations) does one
step's work per call: its launches before and after those loops count on every step too.

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

class Solver:
    def __init__(self, n):
        self.u = cp.zeros(n, dtype=cp.float32)

    def step(self, dt):
        advance[blocks, threads](self.u, self.u, dt)  # reported at the call below

    def run(self, steps, dt):
        for _ in range(steps):
            self.step(dt)  # KL505: `Solver.step` launches `advance` on `self.u` ...
```

Use instead: make numba views once before the loop and launch on them; they share the
arrays' memory, so CuPy code in the loop sees every update, and they stay valid while
the arrays are not reallocated (``u = u * 2`` makes a new array: make its view again):

```python
d_u, d_v = cuda.as_cuda_array(u), cuda.as_cuda_array(v)
for step in range(steps):
    advance[blocks, threads](d_u, d_v, dt)
```

Left alone: an array rebound inside the loop or written as a call in the launch
(``k[g, b](self.source(t))``: a new CuPy array each step needs its conversion anyway), a parameter of the launching function when the launch is reached
through a call (its binding is the caller's), a launch in another file's function (its
arrays are bound there), loops over devices or problem sizes, a verification loop (each
iteration checks a result it copies back against the host's own with ``np.testing.assert_*``
or ``assert np.allclose(...)``), a launch a clock interval inside the step times alone (the
conversion is part of what it measures), numba's own device arrays, and
a CuPy raw kernel (``@cupyx.jit.rawkernel()``) launched with the same brackets: CuPy
launches it on its own arrays, nothing is converted.

## Fix safety
No automatic fix.
"""

from __future__ import annotations

import os
from typing import Dict, Iterator

from ..analysis.host import HostFacts, Place
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
    through: Dict[Place, list] = {}  # a call in the step loop -> the launches it runs and their kept arrays
    for launch, level, loop in facts.stepping(("launch",)):
        if launch.place in reported or launch.place.path != facts.path:
            continue  # (another file's launch: its arrays are bound there, or are the caller's parameters)
        if launch.detail.get("library_kernel"):
            continue  # a CuPy raw kernel (`@cupyx.jit.rawkernel()`): CuPy takes its own arrays as they are
        if facts.timed_alone(launch, loop):
            continue  # all a clock interval around it times: the conversion is part of what it measures
        call = facts.reported_at(launch, loop)
        kept = []
        # device arrays of other libraries: numba-cuda converts each one's interface per launch
        foreign = [a for a in launch.args if a.array and a.where == "device" and a.library in _LIBRARIES]
        for arg in foreign:
            if any(arg.name == k.name for k in kept):
                continue
            if arg.made or arg.name in loop.rebound or arg.name.split(".")[0] in loop.rebound - {"self", "cls"}:
                continue  # a new array every step (or a call's, made at the launch): its conversion cannot be saved
            if call is not None and (arg.parameter or arg.name in facts.rebound.get(launch.function, ())):
                continue  # bound by the caller, or anew on every call
            kept.append(arg)
        if not kept:
            continue
        if call is not None:  # what a function called in the loop launches: one finding at the call
            through.setdefault(call.place, []).append((launch, kept, call, level))
            continue
        reported.add(launch.place)
        kinds = sorted({_LIBRARIES[a.library] for a in kept})
        names = ", ".join(f"`{a.name}`" for a in kept)
        first = kept[0].name
        view = "d_" + first.rsplit(".", 1)[-1]
        plural = len(kept) > 1
        yield host_finding(
            CODE, launch.place,
            f"{names} {'are' if plural else 'is a'} {' / '.join(k + ('s' if plural else '') for k in kinds)} "
            f"bound before the loop at line {level.line}: numba-cuda converts each "
            f"`__cuda_array_interface__` argument on every launch (about 19 µs of host time per argument per "
            f"launch on an H100; a 6-kernel step 3.4x slower); make numba views once before the loop "
            f"(`{view} = cuda.as_cuda_array({first})`) and launch on them, valid while "
            f"{'they are' if plural else 'it is'} not reallocated")
    for at, found in through.items():
        if at in reported:
            continue
        reported.add(at)
        _, _, call, level = found[0]
        arrays = list(dict.fromkeys(a.name for _, kept, _, _ in found for a in kept))
        kinds = sorted({_LIBRARIES[a.library] for _, kept, _, _ in found for a in kept})
        launches = ", ".join(dict.fromkeys(f"`{launch.what}` ({os.path.basename(launch.place.path)}:"
                                           f"{launch.place.line})" for launch, _, _, _ in found))
        shown = ", ".join(f"`{name}`" for name in arrays[:6]) + (f" and {len(arrays) - 6} more" if len(arrays) > 6
                                                                  else "")
        first = next((name for name in arrays if name.rsplit(".", 1)[-1].isidentifier()), arrays[0])
        view = "d_" + first.rsplit(".", 1)[-1] if first.rsplit(".", 1)[-1].isidentifier() else "d_view"
        yield host_finding(
            CODE, at,
            f"`{call.what}` launches {launches} on {' / '.join(k + 's' for k in kinds) if len(arrays) > 1 else 'a ' + kinds[0]} "
            f"bound before the loop at line {level.line} ({shown}), and it is called on every iteration of that "
            f"loop: numba-cuda converts each `__cuda_array_interface__` argument on every launch (about 19 µs of "
            f"host time per argument per launch on an H100; a 6-kernel step 3.4x slower); make numba views once "
            f"(`{view} = cuda.as_cuda_array({first})`) and launch on them, valid while "
            f"the arrays are not reallocated")
