"""KL502 host-array-launch

## What it does
Finds kernel launches that pass a host NumPy array (made by a NumPy constructor,
``copy_to_host()``, a pinned array or one of scikit-image's image functions, as the code shows;
an item of a list of such arrays picked by any expression, ``grids[int(flip)]``; a parameter
when every call of its function passes one, or when it is annotated ``np.ndarray`` or
``npt.NDArray[...]`` and no call passes it a device array; a class's private attribute,
``self.__limits``, under its mangled name) where the copies repeat: the launch runs on every
iteration of a step loop (time steps, frames, solver iterations), directly or through a
function the loop calls. A launcher that takes its arrays as parameters or as ``*args``
(``over_items(kernel, n, *arrays)``) launches on what each call passes: a call in the loop
that hands it host arrays is reported there, one that hands it device arrays is not. A
launch in a function the loop calls is reported at the call, once per call, naming each
launch's line (``file:line``); so is a method that the loop calls on ``self`` and that a subclass in the project overrides
with such a launch (a base class's time loop calling ``self.simulation_loop()``); so is a
method called on an object whose class the code shows (built there, stored in ``self.grid =
Grid(n)``, a parameter every caller passes one to, an item of a list that a literal, a
comprehension or ``append`` calls fill, across files; an attribute the method itself stores
before the launch, ``self.out = np.zeros(...)``, is that array there whatever else its class
stores in it, ``None`` in ``__init__``): where the object may be of several
classes (a network's layers), each class's method counts and the message names the one
that launches so (``layer.backward(g)`` reported as ``Dense.backward``); so is an operator
on an object of a project class whose method launches (``x * w``: ``Tensor.__mul__``), and a
static or class method called through a class (``Mul.apply(a, b)``, whose ``cls.forward(...)``
runs ``Mul.forward``), and a closure a factory made (``add = Ops.zip(fn)`` then ``add(a,
b)`` runs the function ``Ops.zip`` returns), also where such functions are held in an object's
attributes (a backend given the operations class itself, ``Backend(DeviceOps)``, stores
``self.mul = ops.zip(mul)``; ``a.backend.mul(a, b)`` runs it) or the class is picked by a flag
(``ops = DeviceOps if gpu else HostOps``): one of several classes' functions counts only in a
file that passes that class itself (a script picking its backend from the command line). PyCUDA's
``drv.In(x)``/``drv.Out(y)``/``drv.InOut(z)`` arguments (in a file that imports PyCUDA) are
host arrays too: each call allocates device memory for them and copies in, out or both
(also where the PyCUDA function is kept in an attribute, ``self.inject(drv.In(a), ...)``).
An object's attribute that its class sets to ``None`` as a placeholder and to host arrays
only (``self.heights = None`` in ``__init__``, ``self.heights = np.zeros(...)`` in
``generate()``) is a host array where it is launched (a launch on None fails), also handed
by keyword through another file's method parameter
(``sensor.scan(pos, height_map=world.heights)``, the method launching on ``height_map``).
A call of a CUDA ufunc (``@vectorize(..., target='cuda')``, ``@guvectorize(...,
target='cuda')``) is a launch on its array arguments and ``out=``: numba copies host arrays
in, the result back, and waits, as for a kernel, where every argument is a host array; given a
device array as well, it keeps the result on the device (it uploads the host inputs, copies
nothing back and does not wait), which this rule does not report; a ufunc defined in a class body is launched
through ``self`` too (``self.accel(self.data.x, ...)``), and so is one a factory nests and
returns, wherever its result is kept (``self.propagate = self.__propagate_vec()``, then
``self.propagate(self.particles, dt)``; ``decay = make_decay()``). A function a frame driver calls on
every frame is a step loop's body: matplotlib's ``FuncAnimation(fig, update, frames=n)`` (not
``frames=1``), GLUT's display and idle callbacks, pyglet's ``clock.schedule(update)`` and
``clock.schedule_interval(update, dt)`` (not ``schedule_once``), vispy's ``app.Timer(...,
connect=update)`` and a Qt timer's ``timeout.connect(update)``, and a function that hands
itself back to a one-shot timer (Tk's ``self.after(10, self.update)`` in ``update``, Qt's
``QTimer.singleShot``, ``threading.Timer``; one handed to a timer by another runs once). So is
a ``while`` whose test only says whether another item comes (``while video.update():`` with
``update`` returning only True or False, ``while capture.isOpened():``, a capture's success
flag, a key poll, a flag the loop never computes).

Only what runs on *every* step is reported: not a launch behind a modulo or counter gate
(one whose interval is the module's constant 1, ``if step % SENSE_EVERY == 0:`` with
``SENSE_EVERY = 1``, holds on every step),
in a branch that leaves the loop, in a retry or search loop (the host value decides
whether to go on and the launches keep nothing on the device between tries; a convergence loop
whose launches share the field it keeps, ``while err[0] > tol:`` over sweeps of ``d_u``, is solver
iterations: reported), in set-up or warm-up code, in a loop over sizes, devices, files,
launch configurations or test cases, in a benchmark (a loop a clock or CUDA events
time, carrying no state, whose work is a transfer it measures), in a verification loop (each
iteration checks a result it copies back against the host's own with ``np.testing.assert_*``
or ``assert np.allclose(...)``), or once per epoch beside a
batch loop whose batches carry the object's device state (scoring after the batches).
A name the loop rebinds to an array living elsewhere (``u_old = u_new`` after launching on
``u_old``: NumPy on the first frame, the device array after) is not a host array on every
step, and is not reported.
A loop is a step loop only where the code shows it: state one iteration carries to the
next (``t += dt``, ``step += 1``, ``a, b = b, a``, an output that becomes the next input),
launches sharing arrays the loop keeps, a ``while`` a counter or a clock ends; a name like
``n_steps``, or a call like ``sim.advance(dt)``, ``self.UpdateState(dt)`` or
``net.learn(batch)`` on an object the loop keeps, only breaks a tie, as does a report of its
progress (``print(z, n_layers)``, ``tqdm(range(n))``, where no clock times it). A loop inside a step that
launches once per row of an array it does not build, each launch given the row (``for node in
nodes[::-1]: k[g, b](d_grad, node)``, or an element of it, ``node[0]``), is a loop of pieces of
that step's work: its launches run on every step (an index row passed as a NumPy array is
copied both ways on each of them). Any other loop is unknown, and unknown is silent. A loop whose every iteration makes a call that cannot bind its arguments (a project
function or a kernel given too many or too few: ``TypeError``; an upload of what an in-place
method returns, ``cuda.to_device(x.fill(0))``, which is None; outside any ``try``) never
reaches its second iteration: nothing in it is per step. Nor does a loop run at all below a
statement of its function that raises on every call (numba-cuda's ``cuda.to_device(x,
dtype=np.float32)``: it takes no ``dtype``).

## Why is this bad?
numba-cuda copies a host array to the device before the launch, copies it back after,
and waits for the kernel to finish so that it can: every launch becomes an allocation,
two transfers and a synchronization (numba #6904; numba only warns about it at run time).
Measured on an H100 (numba-cuda, 2^22 float32, 200 launches, ``benchmarks/gpu_host.py``):
237x slower than the same launches on device arrays with one copy back at the end.

A launch outside a step loop is left alone: its data has to reach the device once anyway,
and a script or a test that launches a few times, looking at the result in between, loses
nothing it could save.

## Example
```python
x = np.random.rand(n)
for step in range(steps):
    scale[blocks, threads](x, 2.0)  # KL502
    peaks.append(smoothed_peak(x))  # KL502: `smoothed_peak` (another file) launches on `x`
    relax(drv.InOut(u), drv.In(f), block=(256, 1, 1), grid=(n // 256, 1))  # KL502 (PyCUDA)
    x = decay(x, 0.1)  # KL502: `decay` is a `@vectorize(..., target='cuda')` ufunc
    over_items(scale, n, x, 2.0)  # KL502: `def over_items(kernel, n, *args)` launches on `x`
```

Use instead: ``d_x = cuda.to_device(x)`` once, launch on ``d_x``, and
``d_x.copy_to_host()`` when the host needs the result.

## Fix safety
No automatic fix.
"""

from __future__ import annotations

import os
from typing import Dict, Iterator

from ..analysis.host import HostFacts, Launch, Place
from ..findings import Finding
from .base import host_finding

CODE = "KL502"
NAME = "host-array-launch"
FIXABLE = False
# on six projects it was not developed on, 0 of 110 host findings were true (2026-11): preview
# until the rule holds on projects set aside for measuring it
PREVIEW = True


def check_host(facts: HostFacts) -> Iterator[Finding]:
    # each place a finding belongs (a call in the loop for what the functions it runs launch),
    # with every launch on host arrays reported there
    found: Dict[Place, list] = {}
    for launch, level, loop in facts.stepping(("launch",)):
        if isinstance(launch, Launch) and launch.host_arrays:
            call = facts.reported_at(launch, loop)  # what a function called in the loop does, at the call
            found.setdefault(call.place if call is not None else launch.place, []).append((launch, level, call))
    for at, launches in found.items():
        launch, level, call = launches[0]
        arrays = launch.host_arrays
        distinct = list(dict.fromkeys(a.name for a in arrays))  # `k(x, 0.5, x, x)`: x once
        names = ", ".join(f"`{name}`" for name in distinct)
        one = len(distinct) == 1
        if launch.detail.get("pycuda"):
            copies = (f"PyCUDA allocates device memory for {'it' if one else 'each'} and copies "
                      f"{'it' if one else 'them'} as `drv.In`/`drv.Out`/`drv.InOut` say on every iteration of the "
                      f"loop at line {level.line}")
        else:
            copies = (f"numba-cuda copies {'it' if one else 'them'} to the device and back and waits for the "
                      f"kernel on every iteration of the loop at line {level.line}")
        if call is not None:
            # one finding at the call, naming each launch on host arrays the functions it runs make
            lines = list(dict.fromkeys(f"{os.path.basename(e.place.path)}:{e.place.line}" for e, _, _ in launches))
            yield host_finding(
                CODE, at,
                f"`{call.what}` launches `{launch.what}` on {names} ({', '.join(lines)}), "
                f"{'a host (NumPy) array' if one else 'host (NumPy) arrays'}: {copies}; move the data to the "
                f"device once before the loop and pass the device array")
            continue
        fix = (f"`drv.to_device({arrays[0].name})` (or a `gpuarray`) once before the loop and pass the device "
               f"allocation" if launch.detail.get("pycuda") else
               f"`cuda.to_device({arrays[0].name})` once before the loop and launch on the device array")
        yield host_finding(
            CODE, at, f"{names} {'is a host (NumPy) array' if one else 'are host (NumPy) arrays'}: {copies}; {fix}")

