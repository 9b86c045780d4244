"""KL501 device-alloc-in-loop

## What it does
Finds host code that allocates device memory (``cuda.device_array*``,
``cuda.to_device``, ``cuda.pinned_array``/``mapped_array``, ``create_xoroshiro128p_states``,
which also seeds its states on the host and copies them in, CuPy's constructors and
``cp.asarray``) on every iteration of a step loop that launches kernels (time steps,
frames, epochs, solver iterations), directly or through a function the loop calls.
What a function called in the step loop does on each call is reported at that call (the call
runs on every step; the same function called once elsewhere costs nothing there), once per call,
naming each of the callee's lines (``render`` ... ``cuda.to_device`` at ``scene.py:194, 195``),
and wherever the function is (this file, another one, a few calls deep). A call is followed
through a lambda given to ``timeit.timeit(..., number=1)`` (a stopwatch around one call; a larger
``number`` is a benchmark) and through a name bound to a decorator applied by hand (``step_ =
timer(step, verbose)``, where ``timer`` gives back ``step`` or a wrapper calling it). Calls the
code writes otherwise count too: an operator on an object of a project class runs its method
(``x * w`` runs ``Tensor.__mul__``), and ``Mul.apply(a, b)`` a static or class method, whose
``cls.forward(...)`` runs the ``forward`` of the class it was called through (autograd
``Function`` subclasses), and a name bound once to what a closure factory returns (``add =
Ops.zip(fn)``, where every ``return`` of ``Ops.zip`` gives back a function it defines) runs
that function where it is called, as does an attribute holding one (``Backend(DeviceOps)``
stores ``self.mul = ops.zip(mul)``, given the class itself; ``a.backend.mul(a, b)``): where
objects may hold several classes' functions, one counts only in a file that passes its class. An allocation in a branch that runs when a collection the
code has just built whole is not empty (``n = len(edges)``, ``if n > 0:``) runs on each call,
as does what follows ``if n == 0: continue`` in a batch loop (only an empty batch is skipped);
one behind ``if len(np.where(x > L)[0]) > 0:`` (a selection, often empty) is unknown.

A method called in the loop on an object whose class the code shows (built there, stored
in an attribute, a parameter its callers pass, an item of a list of objects of several
classes, a name bound to one project class on each path, ``S = SimGPU`` / ``S = SimCPU``, then
called, an attribute given an object of one class or another by a mode test, ``self.tool =
GpuTool(self)`` / ``CpuTool(self)``: each class's method counts; an attribute holding one of the
class's own methods, ``self.update = self.update_grid``, runs it) counts the same, reported at the call and naming the class's method. A function
called in the loop that uploads what the call hands it (``cuda.to_device(x)`` of its own
parameter, or of a view of it into a buffer it keeps, ``cuda.to_device(x0.astype(np.float32),
to=self.d_x0)``: each step's sample, batch or state) is left alone: that data is the step's
input, unless the call in the step loop hands it the same array every time (a name no loop
around the call binds, or a view of one: ``backproject(pulses, gx.astype(np.float32))``, the
image grid sent again with each block of pulses); so is its upload of an attribute it updates on
the host after the upload on each call (a controller's warm start, ``self.guess[:-1] =
plan[1:]``): the next call sends the new value.

Only what runs on *every* step is reported (a phase of a time loop counts: ``if t < t_stim:``
upload the stimulus, ``else:`` upload zeros, each on every step of its part of the run, where
``t`` only moves one way and ``t_stim`` stays): not an allocation behind a modulo or counter
gate, at one step (``if step == on_step:``), in the first few steps (``if step < 3:``), in a branch that flips its own test or leaves the loop, in set-up or warm-up code
(``__init__``, a ``compile()`` no loop calls), once per size of a sweep, once per GPU of a
loop over ``cuda.gpus``/``select_device``, in a retry or search loop (the host value decides
whether to go on and the loop's launches keep nothing on the device between tries: ``while True:``
growing a buffer to the count read back; a convergence loop whose launches share device arrays
the loop keeps, ``while shift > tol:`` over k-means' labels and centres or a breadth-first
frontier stored into for the next level, is solver iterations: reported), in a few fixed pieces of one computation (three
layers, eight chunks: a count the code states, not a parameter whose default is 0 or 1 such as
``def run(self, ticks=1)``, whose callers pass the count) or in a test's loop (what pytest collects), nor what a whole
computation called in the loop allocates before its own loop, nor in a loop that runs a
whole time loop per iteration (independent events, shots), nor in a benchmark: a loop a
clock or CUDA events time whose work is the transfer it measures (also one upload that a clock
interval inside a step times alone: `t = time()`, `u = cp.asarray(u)`, `times.append(time() - t)`),
nor in a verification loop
(each iteration checks a result it copies back against the host's own:
``np.testing.assert_allclose(cpu, gpu)``, ``assert np.allclose(...)``).
Nor what an epoch does once beside its batch loop (scoring the model after the batches),
where each batch launches on the object's own device arrays that the next batch reads: that
cost is spread over the batches.
Nor an upload of the step's new data: a piece of host data the loop picks by what it varies
(``cuda.to_device(frames[k])``, a batch ``data[:, picked]`` passed to a function that uploads
it, the frame a capture has just read: ``ok, frame = capture.read()``) that the loop does not
write and the device does not already hold, or an array the host itself updates in the loop
(``w += -lr * grad`` before the next ``cuda.to_device(w)``), or an array the host computes in
the iteration from the loop's variable or time, state it carries or new random draws
(``d_in.copy_to_device(np.full(n, drive(t) * gain))``, ``np.random.rand(n) <
rate``), there or in a function the loop calls with what it computes (``capture(step)``, whose
``view_matrix(step * speed)`` uploads a matrix made from it), or an array a function called
in the loop computes into before it uploads it (``pos[i] += vel[i] * dt`` ... ``cuda.to_device(pos)``;
values copied in as they are, ``lengths[k] = lane.length``, are the same data again). Zeros filled on the host, a
constant (``np.full(n, 0.5)``, or one of a few fixed inputs the step's time only picks between),
an array the host has, scaled by the step (``cuda.to_device(x * f)``: send ``x`` once, scale it
on the device), data uploaded whole before the loop and the same data sent a second time in
one iteration (``cuda.to_device(batch.T)`` after ``cuda.to_device(batch)``)
are still transfers per step, and so is output the device produced, copied back and uploaded
again (``history.append(d_out.copy_to_host())``, then ``cuda.to_device(history[-2])`` on the
next steps: a ring buffer kept on the device would do).
A buffer made in the shape of the item a step loop's variable indexes, or of its upload
(``batch = cuda.to_device(x[i])``, then ``cuda.device_array_like(np.zeros((batch.shape[0],
32)))``), has that shape on every batch, and one made in the shape of a buffer the loop
allocates in a fixed shape (``s = cuda.device_array(1)``, then ``cuda.device_array_like(s)``)
does too: both are reported. A buffer whose data is written into an array (``out[i, :, :] =
buf``) is copied, not kept: one buffer made before the loop serves.
A loop over the rows of an array that sends each row to the device (``row = X[k]``,
``cuda.to_device(row)``, ``cuda.device_array_like(row)``) and launches on it is a loop of
pieces of one step: inside a step loop it runs on every step, and an output buffer made like
the row has the row's shape on every step (reported); the rows the host moved on the last
step are that step's data, and copies of the rows kept in a list that the step then reads
are the host's input (neither reported).
A loop is a step loop only where the code shows it: state one iteration carries to the
next (``t += dt``, ``step += 1``, ``a, b = b, a``, an output that becomes the next input),
launches sharing arrays the loop keeps, a ``while`` a counter or a clock ends, frames of one
animation (each iteration adds an image or its file to a list that becomes a video after the
loop: ``ImageSequenceClip(names, fps=30)``, ``imageio.mimsave(path, frames)``); a name like
``n_steps``, or a call like ``sim.advance(dt)``, ``self.UpdateState(dt)`` or
``net.learn(batch)`` on an object the loop keeps, only breaks a tie, as does a loop whose progress its
author watches (its variable printed against its bound, ``print(z, n_layers)``, or a progress bar
around it, ``tqdm(range(n))``: not where a clock times it or its iterations, which are runs of a
measurement). Any other loop is unknown,
and unknown is silent. A loop whose every iteration makes a call that cannot bind its arguments (a project
function or a kernel given too many or too few: ``TypeError``; an upload of what an in-place
method returns, ``cuda.to_device(x.fill(0))``, which is None; outside any ``try``) never
reaches its second iteration: nothing in it is per step. Nor does a loop run at all below a
statement of its function that raises on every call (numba-cuda's ``cuda.to_device(x,
dtype=np.float32)``: it takes no ``dtype``). Nor does code after a script's
top-level statement that reads a name the module binds nowhere (``for i in range(n_batches):``
where only a function binds ``n_batches``: ``NameError``) run at all, nor a function only that
code calls. A loop over the blocks a generator yields (``for block in sim.run_timeblocks():``,
the generator launching a block of steps before each ``yield``) and, where nothing shows steps,
a loop over records read from a file (``h5py.File``, ``np.load``) visit each block or record
once: sweeps, not steps. A ``while running:`` whose flag is cleared only when the window's event
queue says quit, or a time limit runs out, is not a retry: the frames go on until asked to stop.
An ``if`` that is a loop's whole body (``while True: if not frames.full(): ...``, a producer
rendering whenever its queue has room) gates iterations, not the work: what it runs, each frame
runs. An allocation whose size is read from an array the loop rebinds is a new size each
iteration (nothing to hoist), unless the loop rebinds that array only to arrays it makes in its
own shape (``u_new = cuda.device_array(u_old.shape)`` ... ``u_old = u_new``): the same size every
frame, reported with two buffers swapped as the fix. The same holds through a call: a function the
loop calls that sizes an allocation from a parameter the call gives an array the loop binds anew
(``weigh(d_points)``, ``d_points`` what the step's compaction returned), or from an array it
allocated in such a size, is not reported, unless the loop binds that array to what the call
itself gives back (``d = smooth(d)``: made in the shape it was given, the same every step). Nor is an
allocation sized by a count its function copied back from the device just before (``n =
int(d_count.copy_to_host()[0])``, then ``cuda.device_array(n)``: a compaction's output, as large as
what the kernels found this time). An allocation made and dropped (``cuda.device_array(n)`` as a
statement of its own) is reported whatever its size: nothing needs it.

Only what costs is reported: numba-cuda allocates with ``cudaMalloc`` unless an External
Memory Management plugin is set (``cuda.set_memory_manager``, ``NUMBA_CUDA_MEMORY_MANAGER``),
and then its allocations are pool hits; CuPy allocates from its memory pool unless the
file turns it off (``cupy.cuda.set_allocator(None)``): on an H100 (1,000 launch steps, 2^22
floats), ``cp.empty`` per step with the pool costs 1.05x a reused buffer. A transfer (``cuda.to_device``,
``cp.asarray`` of host data) costs bandwidth whatever the allocator, and is always reported;
so is an implicit one: a NumPy array written into a CuPy or numba device array (``d_x[idx]
= host_vals``), a host number written into a numba device array without a stream of its own
(``d[:] = 0.0``, ``losses[i, :] = d_mse[0]``: numba-cuda uploads it into a new device array
before its assignment kernel copies it in; KL503 reports the wait that follows) and a NumPy index array indexing a CuPy array (``d_x[host_idx]``, copied to
the device before it indexes; ``table["x"].to_numpy()`` and ``cp.int32(host / dx)`` are
NumPy arrays, CuPy's scalar types being NumPy's). A copy into a buffer the code already has
(``cuda.to_device(x, to=buf)``, ``buf.copy_to_device(host)``) allocates nothing but is still
a host-to-device transfer per step, and is reported as one. ``cuda.to_device(d)`` (and
``cp.asarray(d)``) of what is already a device array hands it back as it is: nothing is
allocated or copied, so it is not reported; ``cp.asarray(x)`` is reported only where ``x`` is
known to be on the host (a NumPy array, a list): it is how code makes sure it holds a CuPy
array, mostly where it already does (``cp.asarray(state.weights)``). A loop launches kernels also
through a CUDA ufunc's call (``@vectorize(..., target='cuda')``), a kernel of numbapro's
``@jit(..., target='gpu')``, and a kernel configured where it was bound (``run = k[g, b, s]``,
or a list of them iterated: ``for run, d in zip(runs, parts): run(d)``).

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
    if step % 100 == 0:
        frames.append(cuda.to_device(field_host))  # every 100 steps: not reported
    d_field[sources] = amplitudes  # KL501: a NumPy array copied into a device array each step

def render(scene):
    d_image = cuda.device_array((h, w), dtype=np.float32)  # reported at the call below
    shade[blocks, threads](d_image, scene)
    return d_image.copy_to_host()

while running:
    image = render(d_scene)  # KL501: `render` allocates ... (`cuda.device_array` at scene.py:2)
```

Use instead: allocate once before the loop and reuse the buffer (``d.copy_to_device(a)``
refills one), or give numba-cuda a pool allocator through its External Memory
Management plugins (RMM's ``RMMNumbaManager``, CuPy's memory pool).

The same in HIP C++ (read from the host code's IR): ``hipMalloc``/``hipMallocAsync``/
``hipMallocManaged``/``hipHostMalloc`` (and the HIP headers' templates around them) in a loop
that launches, and a launcher function that allocates and frees on every call.

An array that outlives the iteration (stored in an attribute, appended to a list,
returned) cannot be replaced by one buffer allocated before the loop: the message says so
and gives the pool as the fix (with a pool already set, it is not reported).

A size read from the element being iterated (``for frame in frames:
cuda.device_array(frame.size)``, or the frame a capture reads each iteration: ``ok, frame =
capture.read()``), or made like a buffer of that size (``cuda.device_array_like(d_gray)``), is a
stream of frames, usually of one size: reported, with a pool as the fix where the sizes do differ. An allocation whose size is the loop's own
scalar or otherwise changes with the step (``n = sizes[step]``), and one made only when a
buffer must grow (``if (bytes > capacity) { hipFree(...); hipMalloc(...); }``), are left
alone: they cannot be hoisted, or already are.

## Fix safety
No automatic fix.
"""

from __future__ import annotations

import os
from typing import Dict, Iterator

from ..analysis.host import Arg, HostFacts, Place
from ..findings import Finding
from .base import callees_named, host_finding

CODE = "KL501"
_POOLS = {"python": "numba-cuda External Memory Management: RMM, CuPy's pool",
          "hip": "hipMallocAsync/hipFreeAsync on a stream, from the device's memory pool"}
NAME = "device-alloc-in-loop"
FIXABLE = False
# on six projects it was not developed on, 0 of 110 host findings were true (2026-11): preview
# until the rule holds on projects set aside for measuring it
PREVIEW = True


def check_host(facts: HostFacts) -> Iterator[Finding]:
    reported = set()
    through: Dict[Place, list] = {}  # a call in a step loop -> what the functions it runs allocate
    # a launcher's own allocation is reported where it is, whoever calls it (`_launchers`)
    launchers = {event.place for event in _launcher_allocations(facts)}
    element_sized: Dict[int, Dict[str, str]] = {}  # a loop -> its buffers of an element's size -> the element
    for event, level, loop in facts.stepping(("alloc",)):
        # the loop's own function: calls that lead to it from its callers do not make it indirect
        direct = event.function == loop.function and event.call_in(loop.function) is None
        if _new_data(event) or _computed_through_calls(event, facts):
            continue  # the step's input or what the host computed this step: the work's data path
        if facts.timed_alone(event, loop):
            continue  # all a clock interval around it times: what the code measures
        if event.detail.get("shape_based") and not event.detail.get("discarded") and (
                _counted(event, facts) or _sized_by_arguments(event, loop, facts)):
            continue  # a new size each step, which the device computed: nothing to hoist
        call = facts.reported_at(event, loop)
        if call is not None:  # what a function called in the loop does: reported at the call
            if event.detail.get("shape_based", True) and _from_a_pool(event.what, facts) or (
                    event.place in launchers):
                continue  # a pool hit, not a cudaMalloc; or a launcher's, reported at its line
            if not event.detail.get("shape_based", True) and (event.detail.get("handed_in") or {}).get("only") \
                    and not _handed_back(event, facts) and not _handed_the_same(event, loop, facts):
                continue  # what the call hands in, uploaded: each step's new input (a sample, a batch)
            through.setdefault(call.place, []).append((event, call, level))
            continue
        reads = set(event.detail.get("reads", ()))
        # what changes from one step to the next, less the variables of the loops of pieces inside
        # the step loop and the items they index (`for part in self.parts`, `row = X[k]`): one
        # allocation per piece can be made before it
        inner = event.loops[event.loops.index(loop.id) + 1:] if direct and loop.id in event.loops else ()
        varying = loop.varying - {name for number in inner
                                  for name in facts.loops[number].targets | facts.loops[number].items}
        # a size read from the element being iterated (`frame.size` in `for frame in frames`):
        # a stream of frames, usually of one size; a size made of the bare loop variable, or of
        # other names the loop changes, is what the loop is about (a sweep)
        # (an item the loop's variable indexes whole, `row = X[k]` or its upload, is such an element)
        elements = set(event.detail.get("elements", ()))
        iterated = loop.targets | loop.items
        from_element = direct and bool(elements & iterated) and not (
            set(event.detail.get("bare", ())) & varying) and not ((reads - elements) & varying)
        sized = element_sized.setdefault(loop.id, {})
        element = sorted(reads & iterated)[0] if from_element and reads & iterated else ""
        like = str(event.detail.get("shaped_like", ""))
        if direct and like in sized and reads <= {like}:
            # `d_norm = cuda.device_array_like(d_gray)`, with d_gray made in the element's size
            from_element, element = True, sized[like]
        if from_element and element and event.detail.get("shape_based"):
            sized.update(dict.fromkeys(event.detail.get("assigned", ()), element))
        # the shape of an array the loop rebinds only to arrays made in that shape does not change
        steady = {str(event.detail.get("shaped_like", ""))} & loop.steady
        if direct and event.detail.get("shape_based") and (reads & varying) - steady - loop.fixed and not from_element:
            continue  # its size changes with the loop: nothing to hoist
        transfer = facts.language == "python" and not event.detail.get("shape_based", True)
        if not transfer and _from_a_pool(event.what, facts):
            continue  # a pool hit, not a cudaMalloc
        reported.add(event.place)
        how = "" if direct else " (through a function the loop calls)"
        what = _short(event.what)
        if event.detail.get("implicit"):
            yield host_finding(
                CODE, event.place,
                f"`{what}` {event.detail['implicit']} on every iteration of the loop at line {level.line}, which "
                f"launches kernels{how}: a synchronous copy from pageable memory each step; keep the data on the "
                f"device (build it there, or transfer it once before the loop)")
            continue
        if transfer and event.detail.get("into"):
            yield host_finding(
                CODE, event.place,
                f"`{what}` copies host data into the device buffer `{event.detail['into']}` on every iteration "
                f"of the loop at line {level.line}, which launches kernels{how}: a host-to-device transfer per "
                f"step; where the data does not change from step to step, transfer it once before the loop, and "
                f"where a kernel writes all of it, skip the copy")
            continue
        if transfer:
            yield host_finding(
                CODE, event.place,
                f"`{what}` allocates device memory and copies host data into it on every iteration of the "
                f"loop at line {level.line}, which launches kernels{how}: transfer once before the loop "
                f"and keep the data on the device (46x faster on an H100), or refill one buffer allocated "
                f"before the loop (`d.copy_to_device(host)`) where new host data arrives each step")
            continue
        memory, cost = _cost(what, facts)
        kept = event.detail.get("kept", "")
        if kept and event.detail.get("shape_based"):
            yield host_finding(
                CODE, event.place,
                f"`{what}` allocates {memory}{cost} on every iteration of the loop at line "
                f"{level.line}, which launches kernels{how}, and the array outlives the iteration "
                f"(`{kept[:60]}`): one buffer allocated before the loop cannot serve; allocate from a pool "
                f"instead ({_POOLS[facts.language]})")
            continue
        if from_element and element and event.detail.get("shape_based"):
            yield host_finding(
                CODE, event.place,
                f"`{what}` allocates {memory}{cost} for each `{element}` of the loop at line "
                f"{level.line}, which launches kernels: where they are of one size, allocate once "
                f"before the loop from the first and reuse the buffer (6.5x faster on an H100); where "
                f"sizes differ, use a pool allocator ({_POOLS[facts.language]})")
            continue
        if direct and steady & varying:
            carried = sorted(steady & varying)[0]
            yield host_finding(
                CODE, event.place,
                f"`{what}` allocates {memory}{cost} on every iteration of the loop at line {level.line}, "
                f"which launches kernels, in the shape of `{carried}`, which the loop then rebinds to it: "
                f"allocate two buffers before the loop and swap them, or use a pool allocator "
                f"({_POOLS[facts.language]})")
            continue
        yield host_finding(
            CODE, event.place,
            f"`{what}` allocates {memory}{cost} on every iteration of the loop at line {level.line}, "
            f"which launches kernels{how}: allocate once before the loop and reuse the buffer (6.5x faster "
            f"on an H100), or use a pool allocator ({_POOLS[facts.language]})")
    for place, found in through.items():
        if place not in reported:
            reported.add(place)
            yield _through_call(found, facts)
    yield from _launchers(facts, reported)


def _new_data(event) -> bool:
    """An upload of the step's new data (``python.host.new_data``): marked on the transfer, or
    what the function is handed (``handed_in``), a parameter the call gives a selection of the
    loop's input."""
    if event.detail.get("new_data"):
        return True
    parameter = (event.detail.get("handed_in") or {}).get("parameter")
    entering = event.calls[-1] if event.calls else None
    return bool(parameter) and entering is not None and entering.detail.get("callee") == event.function and \
        parameter in entering.detail.get("fresh", ())


def _size_names(event) -> set:
    """The names an allocation's size reads: bare (``n``) or through an array (``d.shape[0]``)."""
    return set(event.detail.get("bare", ())) | set(event.detail.get("elements", ()))


def _counted(event, facts: HostFacts) -> bool:
    """The size is a count the device computed this time (``counted``: read from a copy back,
    ``n = int(d_n.copy_to_host()[0])``), or the extent of an array the function allocated in such
    a size before (``d_pairs = cuda.device_array((n, 25))``, then ``cuda.device_array(d_pairs.shape)``)."""
    return bool(event.detail.get("counted")) or _sized_from(event, facts, set())


def _sized_from(event, facts: HostFacts, sized: set) -> bool:
    """Whether the size reads one of ``sized``, or an array the function allocated before it in
    a size that does (or in a counted size)."""
    sized = set(sized)
    for other in facts.own_events(event.place.path, event.function):
        if other.kind == "alloc" and other.place.line < event.place.line and other.detail.get("shape_based") and (
                other.detail.get("counted") or _size_names(other) & sized):
            sized |= set(other.detail.get("assigned", ()))
    return bool(_size_names(event) & sized)


def _returns_counted(call, facts: HostFacts) -> bool:
    """The function ``call`` runs returns an array sized by a count the device computed (a
    compaction's output: ``return d_points``)."""
    path = str(call.detail.get("path", "")) or call.place.path
    return any(e.kind == "alloc" and str(e.detail.get("kept", "")).startswith("return") and _counted(e, facts)
               for e in facts.own_events(path, str(call.detail.get("callee", ""))))


def _sized_by_arguments(event, loop, facts: HostFacts) -> bool:
    """Through a call in the step loop: the size is read from a parameter the call gives an array
    that the loop binds, on each iteration, to what a compaction returns (``d_points =
    compact(d_img)``, then ``weigh(d_points)``), or from an array allocated in such a size: a
    new size each step, as an allocation in the loop sized from it would be."""
    entering = event.calls[-1] if event.calls else None
    if entering is None or entering.function != loop.function or entering.detail.get("callee") != event.function:
        return False
    counted = {name for call in facts.own_events(entering.place.path, loop.function)
               if call.kind == "call" and call.loops == entering.loops[:len(call.loops)] and _returns_counted(call, facts)
               for name in call.detail.get("result_names", ())}
    binding = facts.binding_of(entering)
    return _sized_from(event, facts, {name for name, arg in binding.items() if isinstance(arg, Arg)
                                      and arg.name in counted})


def _handed_back(event, facts: HostFacts) -> bool:
    """The call that hands a function what it uploads passes what that call gave back the step
    before (``self.spins, _ = gpu.step(self.spins)``): the device's own result, sent back to it."""
    parameter = (event.detail.get("handed_in") or {}).get("parameter")
    entering = event.calls[-1] if event.calls else None
    if not parameter or entering is None or entering.detail.get("callee") != event.function:
        return False
    names = facts.parameters_of(entering)
    keys = {f"={parameter}"} | ({str(names.index(parameter))} if parameter in names else set())
    return bool(keys & set(entering.detail.get("returned_args", ())))


def _handed_the_same(event, loop, facts: HostFacts) -> bool:
    """The call in the step loop's own function hands the function the array it uploads as a
    name no loop around the call binds, or a view of one (``steady_args``: ``gx=gx.astype(f4)``):
    the same host data uploaded again on every step, not the step's input."""
    parameter = (event.detail.get("handed_in") or {}).get("parameter")
    entering = event.calls[-1] if event.calls else None
    if not parameter or entering is None or entering.function != loop.function or \
            entering.detail.get("callee") != event.function:
        return False
    steady = set(entering.detail.get("steady_args", ()))
    if f"={parameter}" in steady:
        return True
    names = facts.parameters_of(entering)
    return parameter in names and str(names.index(parameter)) in steady


def _computed_through_calls(event, facts: HostFacts) -> bool:
    """A function the loop calls uploads data it computes from its parameters
    (``computed_from``), and the calls on the way hand them what the loop computes in the
    iteration (``capture(step)`` ... ``view_matrix(step * speed)``): the step's new data."""
    wanted = set(event.detail.get("computed_from", ()))
    for call in reversed(event.calls):
        if not wanted:
            return False
        names = facts.parameters_of(call)
        keys = {str(i) for i, name in enumerate(names) if name in wanted} | {f"={name}" for name in wanted}
        if keys & set(call.detail.get("computed_args", ())):
            return True
        reads = call.detail.get("arg_params") or {}
        wanted = {name for key in keys for name in reads.get(key, ())}
    return False


def _short(what: str) -> str:
    return what.replace("numba.cuda.", "cuda.").replace("cupy.", "cp.")


def _cost(what: str, facts: HostFacts):
    """What the allocation costs: (the memory, why it costs)."""
    if what.startswith("cp."):
        return "device memory", " (cudaMalloc: CuPy's pool is turned off by `set_allocator(None)`)"
    if "pinned" in what or "mapped" in what:
        return "page-locked host memory", " (cudaHostAlloc, which synchronizes)"
    return "device memory", " (cudaMalloc and cudaFree: no pool allocator is set)" if facts.language == "python" else ""


def _through_call(found: list, facts: HostFacts) -> Finding:
    """What the functions a call in the step loop runs allocate on every call, as one finding
    at the call: the first allocation says what it costs, and every one is named by its line
    (``file:line``), so the fix can be made where the call passes a buffer in."""
    event, call, level = found[0]
    transfer = not event.detail.get("shape_based", True)
    mixed = transfer and not all(not e.detail.get("shape_based", True) for e, _, _ in found)
    what = _short(event.what)
    where = _lines(found)
    runs = callees_named(c for _, c, _ in found)
    if event.detail.get("implicit"):
        return host_finding(
            CODE, call.place,
            f"{runs} {event.detail['implicit']} on every call ({where}), and it is called on every "
            f"iteration of the loop at line {level.line}, which launches kernels: keep the data on the device "
            f"(build it there, or transfer it once before the loop)")
    if transfer and event.detail.get("into"):
        return host_finding(
            CODE, call.place,
            f"{runs} copies host data into the device buffer `{event.detail['into']}` on every call "
            f"({where}), and it is called on every iteration of the loop at line {level.line}, which launches "
            f"kernels: a host-to-device transfer per step; transfer once before the loop where the data does not "
            f"change")
    if mixed:
        return host_finding(
            CODE, call.place,
            f"{runs} allocates device memory and copies host data into some of it on every call ({where}), "
            f"and it is called on every iteration of the loop at line {level.line}, which launches kernels: "
            f"allocate once before the loop and pass the buffers in (transfer data that does not change once), or "
            f"use a pool allocator ({_POOLS[facts.language]})")
    if transfer:
        return host_finding(
            CODE, call.place,
            f"{runs} allocates device memory and copies host data into it on every call ({where}), and "
            f"it is called on every iteration of the loop at line {level.line}, which launches kernels: transfer "
            f"once before the loop and pass the device array in, or refill one buffer allocated before the loop "
            f"(`d.copy_to_device(host)`) where new host data arrives each step")
    memory, cost = _cost(what, facts)
    return host_finding(
        CODE, call.place,
        f"{runs} allocates {memory}{cost} on every call ({where}), and it is called on every iteration "
        f"of the loop at line {level.line}, which launches kernels: allocate once before the loop and pass the "
        f"buffer in, or use a pool allocator ({_POOLS[facts.language]})")


def _lines(found: list) -> str:
    """The callee statements a call runs, by what they call and where: ``cuda.to_device` at
    render.py:194, 195``; one file's lines after its name."""
    named: Dict[str, Dict[str, list]] = {}
    for event, _, _ in found:
        lines = named.setdefault(_short(event.what), {}).setdefault(_file(event.place.path), [])
        if event.place.line not in lines:
            lines.append(event.place.line)
    return "; ".join(f"`{what}` at " + ", ".join(f"{path}:{', '.join(str(n) for n in lines)}"
                                                 for path, lines in files.items())
                     for what, files in named.items())


def _file(path: str) -> str:
    return os.path.basename(path)


def _from_a_pool(what: str, facts: HostFacts) -> bool:
    """Allocations that a pool serves: CuPy's (its pool is on unless the file turns it off)
    and numba-cuda's once an External Memory Management plugin is set."""
    if what.startswith("cupy."):
        return "cupy-off" not in facts.pools
    # EMM plugins serve device memory; pinned and mapped host memory stays cudaHostAlloc
    return what.startswith("numba.cuda.device_array") and "numba" in facts.pools


def _launcher_allocations(facts: HostFacts) -> Iterator:
    """The allocations of functions that launch once per call, outside any loop of their own,
    and free what they allocate (HIP's per-launch scratch buffer): paid per launch."""
    for function in sorted({e.function for e in facts.events}):
        own = facts.of_function(function)
        launches = [e for e in own if e.kind == "launch"]
        if not launches or any(e.loops for e in launches) or not any(e.kind == "free" for e in own):
            continue
        for event in own:
            if event.kind == "alloc" and not event.loops and event.detail.get("every_time", True):
                yield event


def _launchers(facts: HostFacts, reported: set) -> Iterator[Finding]:
    """A function that launches, and allocates and frees on every call (HIP's per-launch
    scratch buffer): each call pays for the allocation, whoever calls it."""
    for event in _launcher_allocations(facts):
        if event.place in reported:
            continue
        reported.add(event.place)
        yield host_finding(
            CODE, event.place,
            f"`{event.what}` allocates device memory on every call of `{facts.name_of(event.function)}`, which "
            f"launches kernels and frees it again: keep one buffer allocated once (grown on demand) or use a pool "
            f"allocator ({_POOLS[facts.language]})")
