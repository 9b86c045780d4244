"""KL503 sync-in-loop

## What it does
Finds, inside a loop that launches kernels, an operation that makes the host wait for
the GPU on every iteration: ``cuda.synchronize()``, ``stream.synchronize()``,
``with stream.auto_synchronize()``, a blocking ``copy_to_host()`` (no stream, or on a stream
into pageable memory: a new or ``np.empty`` array, which CUDA copies into before returning),
``cp.asnumpy``, NumPy functions or ``float()``/``int()`` applied to device data (or to
one element of it, ``float(d[0])``), one element of a numba device array read into Python in
any expression (``losses[i, :] = d_mse[0]``, ``history.append(d_loss[0])``: numba-cuda copies it
to the host and waits), a write into a numba device array that has no stream of its own
(``d[:] = 0.0``, ``d[i, :] = x``, ``d_a[i] = d_b``: numba-cuda's ``__setitem__`` launches an
assignment kernel on the default stream and synchronizes that stream before it returns; an
array made with ``stream=s``, and its views, queue it on ``s`` instead, and CuPy's setitem does
not wait), ``sum()``/``max()``/``list()`` or ``for v in d`` over
a device array, a CuPy array selected by a boolean mask on the device (``d[d > 0]``: CuPy
reads the count of selected elements back to size the result), and a launch on host arrays
(numba-cuda synchronizes after it; PyCUDA after a ``drv.Out``/``drv.InOut`` argument,
whose copy back waits for the kernel).

## Why is this bad?
The host cannot queue the next launch until the GPU has finished the previous one, so
launch overhead and the GPU's idle gaps add up every step. Measured on an H100
(numba-cuda, 2^22 float32, 200 steps, ``benchmarks/gpu_host.py``): ``cuda.synchronize()``
per step 1.5x, ``copy_to_host()`` per step 31x slower than one synchronization (or one
copy) after the loop; in CUDA C++, a blocking ``cudaMemcpy`` per step 53x.

Only what runs on *every* iteration of a step loop (time steps, frames, solver
iterations) is reported, directly or through a function the loop calls (at the call, once
per call, saying what the callee does and naming each line where it waits: a backward pass
synchronizing after each of its launches is one finding at its call in the training loop;
through a ``timeit(lambda: f(x), number=1)`` stopwatch and a hand-applied decorator, ``f_ =
timer(f, verbose)``, too), or through a method the loop calls on ``self`` that a
subclass in the project overrides (reported at the call, naming the override), or through a
parameter whose default is a project function (``def simulate(..., timestep=step)`` calling
``timestep(...)``: reported at that call, naming the parameter and its default), or through a
method called on an object whose class the code shows (built there, stored in an attribute,
a parameter its callers pass, an item of a list of objects of several classes, a name bound to
one project class on each path and called, ``S = SimGPU`` / ``S = SimCPU`` then ``S(n)``, an
attribute given an object of one class or another by a mode test: each class's
method counts, and the message names the one that waits; an attribute holding one of the class's
own methods, ``self.update = self.update_grid``, runs it: ``it.second_step(ts)`` reported as
``Thermostat.second_step``), or through an operator on an object of a project class
(``x * w``: ``Tensor.__mul__``) or a static or class method called through a class
(``Mul.apply(a, b)``, whose ``cls.forward(...)`` runs ``Mul.forward``), or through a closure a
factory made (``add = Ops.zip(fn)`` then ``add(a, b)``, or held in an attribute of a backend
given the class itself, ``Backend(DeviceOps)`` storing ``self.mul = ops.zip(mul)``; of several
classes' functions, one counts only in a file that passes its class). A wait after ``if n == 0: continue``
in a batch loop (``n = len(rows)``, rows built whole) runs on every batch that is not empty:
reported; after ``if len(np.flatnonzero(mask)) == 0: continue`` (a selection) it is not. Left alone: a copy behind a modulo or counter gate
(periodic output), under an option the loop never changes whose branch only appends the copy to
a collection the loop reads nowhere else (``if debug: trace["u"].append(d.copy_to_host())``:
output the caller switches on and keeps), once per epoch beside a batch loop whose batches carry the object's device
state (scoring after the batches), in a branch that flips its own test (a rare event) or that leaves the
loop, in a retry or search loop (the value read back decides whether to go on and the launches keep
nothing on the device between tries), in set-up code, in a loop over sizes, devices
or test cases, in a timed loop whose work is the copy it measures (a benchmark; also one wait
a clock interval inside a step times alone), or in a
verification loop (each iteration checks the copy against the host's own result with
``np.testing.assert_*`` or ``assert np.allclose(...)``); a copy whose value decides what the iteration does (``if
d_err.copy_to_host()[0] > tol: break``, or a name it assigns tested in the loop); a copy
a copy
whose value the host computes with in its own statement (``loss += f(d.copy_to_host(), y)``,
``w -= lr * d.copy_to_host()``; kept whole in a list it is not read) or reads later in the
same iteration (computes with it, ``centres[j] = sums[j] / counts[j]``; passes it to a call such as
``np.save``, or hands it straight to one made for its
effect: ``np.save(path, d.copy_to_host())``, ``frames.put(d.copy_to_host())`` for the thread that
draws it; a copy a called function returns counts as the value the caller reads (and, where that caller
keeps it in ``self.<attr>``, as read where a method called after it reads that attribute:
``self.update_grid()`` then ``self.advance()`` reading ``self.next``; so does one into the item
of a loop over pieces, ``d_total.copy_to_host(total)`` over ``zip(receivers, sums)``, where the
function reads or returns that list after the loop, and one a chain of ``return f(...)`` hands up
to a caller that reads it),
or hands to a function of its own whose result a list keeps (``images.append(render(frame))``),
or that the next iteration's host code reads before the statement that made it (the children
copied back each generation, ``population = breed(...)``, scored on the host by ``[score(p) for p
in population]`` at the top of the next one; handed back to that statement, or uploaded again, it
is not read), or stores in ``self.<attr>`` that a method the loop calls next reads (also where
the method that copies is a subclass's override in another file: ``self.update()`` keeping
``self.state``, then the base's ``self.render()`` showing it), or that the loop reads as
that attribute of the object after calling its method (``fluid.step()`` keeping its copies in
``self.density`` and ``self.vel_x``, then ``draw(fluid.density)``: the density's copy is read,
the velocity's is reported), or in an attribute of
each item of a container whose items the host then reads or calls methods on: ``for i, b in
enumerate(self.bodies): b.acc = a[i]`` before ``for b in self.bodies: b.step(dt)``; storing it into another
array or list is followed, so a history kept for after the loop is still reported (one the loop
reads back later in the iteration, ``hist.append(d.copy_to_host())`` then ``hist[-2]``, is read), and so is a
copy the host only adds up into a total the loop never reads: ``spikes = d.copy_to_host()`` then
``total += np.sum(spikes)``, the total read once after the loop, is a count the device can keep, and so
is a copy the host only reduces whole to one number that it hands to a kernel: ``u = d_u.copy_to_host()``
then ``colour[g, b](d_img, np.abs(u).max())``, or through a name only launches read: a reduction on the
device, passed to the kernel as a device array, needs no copy); a launch on
host arrays in a function the loop calls, outside any loop of that function, after which the
host reads in the same call an array the kernel writes (``render[g, b](self.image)`` then ``(255
* self.image).astype(np.uint8)``), or directly in the step loop, after which the host reads
that array later in the iteration or at the next one's start (two host grids of a game of life,
``print(grids[a].sum())`` before each generation's launch): numba-cuda's copy back brings that
value, and KL502 still reports the transfers (a launch in another loop of a called function
waits on each of that loop's iterations, and is reported); and a
synchronization that waits for an asynchronous copy back whose array the host reads later in
the same iteration (``d.copy_to_host(out, stream=s)`` then ``s.synchronize()`` before ``out``
is read; ``with s.auto_synchronize():`` around numba's ``d.to_host(s)``; in a function the loop
calls, one after its loop over pieces whose asynchronous copies fill a list's items,
``d_image.copy_to_host(image, stream=s)`` over ``zip(pulses, streams, images)``, before ``return
np.sum(images, axis=0)``): the wait is for the value; and a synchronization whose next wait or
launch in the iteration is a blocking copy of device data made on every iteration
(``cuda.synchronize()`` then ``h = d_fitness.copy_to_host()``, in the loop or in a function it calls): the copy would wait for the same kernels, and where the
host does not need it, the copy's own finding is the cost (a wait that reads back of its own, a
CuPy boolean mask's count, still counts); and a
synchronization followed in the same iteration by a clock read (timing each step); and a wait
whose next step, before any launch, is ``time.sleep`` in the loop's own body, under no ``if``
(``stream.synchronize()`` then ``time.sleep(1e-2)``: the host idles on purpose every step, pacing
a view or sharing the GPU, so the wait costs nothing more; a sleep only some runs ask for, ``if
pace: time.sleep(...)``, leaves the wait reported, and so do waits with launches still to come
before the sleep); but a copy
back of a device array the host uploaded earlier in the iteration with no kernel given it since
(``d_old = cuda.to_device(grid)`` ... ``old = d_old.copy_to_host()``) is reported even where its
value decides the iteration: the host had that data; and a
called function that waits after each of its own launches (a layer's wrapper calling
``cuda.synchronize()`` after every kernel) is reported even where the call's result decides
the iteration or a clock reads the time after it: those waits are not for the value or the
clock, which need one at the end, except the called function's last wait when the next thing
the iteration does that waits or launches is a blocking copy of device data made on every
iteration (that copy would wait for the same kernels); and a
synchronization next to a barrier between processes (``cuda.synchronize(); comm.Barrier()``
with mpi4py, ``torch.distributed.barrier()``): every rank's device work must be done before
the next kernel reads what the others wrote (halos over CUDA IPC), so the wait is the
algorithm's; and a synchronization whose next use, before any launch, is an mpi4py buffer
call on memory that may be on the device (a CUDA-aware ``comm.Isend(d_edge, dest=right)``,
in the loop or in a method it calls, however the communicator is reached): MPI reads the
device memory outside the stream's order, so the kernels that wrote it must be done first.
A loop is a step loop only where the code shows it (state carried from one iteration to the
next, launches sharing arrays the loop keeps, a ``while`` a counter or a clock ends; a ``for``
over many generations whose launches share the population it keeps is one even where a
``break`` leaves it when the fitness read back stops improving: that read decides, the waits
between the generation's launches do not; so is a control loop handing the state it computes
to the next iteration's work, ``u = planner.plan(x)`` ... ``x = x_next``, left by a ``break``
when the goal is reached, and a sampling planner growing a tree made just before the loop,
asked first (``near = tree.nearest(sample)``) and given what the iteration computed later
(``tree.add(new)``), left by a ``return`` at the goal; a name
like ``n_steps``, or a call like ``sim.advance(dt)``, ``self.UpdateState(dt)`` or
``net.learn(batch)`` on an object the loop keeps, only breaks a tie, as does a report of its progress,
``print(z, n_layers)`` or ``tqdm(range(n))``, where no clock times it); any other loop is unknown, and unknown is silent. A loop whose every iteration makes a call that cannot bind its arguments (a project
function or a kernel given too many or too few: ``TypeError``; an upload of what an in-place
method returns, ``cuda.to_device(x.fill(0))``, which is None; outside any ``try``) never
reaches its second iteration: nothing in it is per step. Nor does a loop run at all below a
statement of its function that raises on every call (numba-cuda's ``cuda.to_device(x,
dtype=np.float32)``: it takes no ``dtype``).

Python iterating a numba device array (``sum(d)``, ``max(d)``, ``list(d)``, ``for v in
d``) makes one blocking copy per element: reported even where its value decides (measured on an H100: a
step of one launch plus ``sum(d)`` over 64 elements 3,386 µs, against 82.8 µs with
``d.copy_to_host().sum()``, 41x). So does Python reading a numba device array's elements in a
loop over their indices (``for m in range(d.shape[0]): ... d[m][n]``, in that loop or in a
``range`` loop inside it, where the loop launches nothing itself): one blocking copy per
element, counted where the outermost such loop starts, so a loss helper that reads
``probs[m][n]`` for every entry is reported at its call in the training loop, saying that it
reads the device array element by element and suggesting one ``copy_to_host()``. A helper
whose array is a parameter counts only through calls that pass it a device array: called
with ``d.copy_to_host()`` (a host array), or once outside any step loop, it is not reported.
A view of the array in such a loop (``d[row:]``, ``d[i, :]``) copies nothing. So does a
``range`` loop reducing a device array piece by piece with a ``cuda.reduce`` object
(``for row in range(m): error += sum_reduce(d[row, :n])``): numba's ``Reduce`` allocates its
partial sums and returns ``partials[0]``, one blocking copy per call, where one reduction of
the whole array (``sum_reduce(d.ravel())``) waits once; a call given ``res=`` (a device array to
write into) reads nothing back. Outside such a loop, a ``cuda.reduce`` call that returns its
result is a copy back like any other.

Reported even where the value is read: a copy whose value the host only computes with to
upload it again in the same iteration (``costs = d_costs.copy_to_host()``, ``w = np.exp(-costs)``,
``w /= w.sum()``, ``cuda.to_device(w, to=d_w)``; a branch that only picks how that value is
computed included), directly or in a function the loop calls: a device-to-host-to-device round
trip whose wait serves nothing the host decides, since a kernel could compute the value where
it is used; so is a copy uploaded again straight away (``cuda.to_device(d.copy_to_host())``: the
device has the data; copy it on the device). A copy whose value also decides (a branch that returns, breaks or raises on it),
is returned, stored in an attribute or handed to any other call is read, as above. A launch
on host arrays in a function the loop calls, followed in that call by a blocking copy of what
the host needs (``cast[g, b](d_hits, heights)`` then ``d_hits.copy_to_host(hits)``, the hits
returned and read), waits no longer than that copy would, and so does one followed first by
other launches on host arrays (each waits itself) and then by that copy: KL502 reports their
transfers.
A copy back of the one element the host itself wrote into a device array as a number it holds
(``d_size[0] = np.int32(found)`` at the end of a level, ``size = int(d_size.copy_to_host()[0])`` at
the next one's start), with nothing launched or called between them: reported even though its value
decides, since the host already has it. And a copy the host only uploads again as it is on the same
iteration (``labels = d_labels.copy_to_host()``, then ``d_labels = cuda.to_device(labels)``): a round
trip. A convergence loop (``while shift > tol:``, ``while err[0] > tol:``, the test reading what the
device computed) whose launches share device arrays the loop keeps, or whose launch reads an array the
loop stores into (a breadth-first frontier, ``d_frontier[:n] = d_next[:n]``), is solver iterations:
each iteration builds on the last, and its per-iteration waits are reported like a time step's; one whose
launches keep nothing (a retry, a search) and a count the host divides down (``while blocks > 1:``, a
reduction tree) are not.
A copy made on every iteration whose value the host reads only behind a modulo or counter
gate (``spins = d_spins.copy_to_host()`` each sweep, read by ``if step % every == 0:``
measurements; ``self.spins = self.advance()`` with the measuring method called there) waits
on every iteration for a value the host needs only now and then: reported; the copy belongs
inside the gate.

## Example
```python
for step in range(steps):
    relax[blocks, threads](d_field)
    cuda.synchronize()  # KL503

for step in range(steps):
    relax[blocks, threads](d_field)
    frame = d_field.copy_to_host()  # not reported: the host writes it out on this step
    np.save(f"frames/{step:05}", frame)

for step in range(steps):
    rollout[blocks, threads](d_costs, d_state)
    costs = d_costs.copy_to_host()  # KL503: only turned into weights uploaded again
    weights = np.exp(-(costs - costs.min()))
    cuda.to_device(weights / weights.sum(), to=d_weights)
    blend[blocks, threads](d_state, d_weights)
```

Use instead: one ``cuda.synchronize()`` after the loop; where the host needs data every
step, asynchronous copies on a stream into pinned memory.

## Fix safety
No automatic fix.
"""

from __future__ import annotations

import os
from typing import Dict, Iterator, List, Optional, Tuple

from ..analysis.host import HostFacts, Launch, Place
from ..findings import Finding
from .base import callees_named, host_finding

CODE = "KL503"
# what the host reader's facts call a value the function returns (among what carries a copy)
_RETURNED = "<return>"
NAME = "sync-in-loop"
FIXABLE = False
# on six projects it was not developed on, 0 of 110 host findings were true (2026-11): preview
# until the rule holds on projects set aside for measuring it
PREVIEW = True


def check_host(facts: HostFacts) -> Iterator[Finding]:
    reported = set()
    through: Dict[Place, list] = {}  # a call in a step loop -> the waits of the functions it runs
    for event, level, loop in facts.stepping(("launch", "sync", "copy-back")):
        if event.detail.get("via"):
            continue  # an element read of a parameter no call here binds to a device array
        if facts.timed_alone(event, loop):
            continue  # all a clock interval around it times: the wait is what the code measures
        call = facts.reported_at(event, loop)  # what a function called in the loop does, at the call
        at = call.place if call is not None else event.place
        if at in reported:
            continue
        what = event.what.replace("numba.cuda.", "cuda.").replace("cupy.", "cp.")
        if isinstance(event, Launch):
            if not _waits_itself(event):
                continue  # PyCUDA's `drv.In` alone copies in and launches: nothing waits for the kernel
            if event.detail.get("read"):
                continue  # the host reads what the kernel wrote right after: the wait is for that value
            entry = event.call_in(loop.function)
            if entry is not None and _read_next(facts, event, level, entry):
                continue  # a copy of what it wrote, which the host needs, comes next: it would wait the same
            why = f"`{event.what}` is launched on host arrays, so {_copier(event)} synchronizes after it"
        elif event.detail.get("indexed"):
            # Python reads the device array's elements by index: one blocking copy each
            why = (f"`{what}` reads the device array `{event.detail['indexed']}` element by element in Python: one "
                   f"blocking copy to the host per element (copy it once with `.copy_to_host()` and index the copy)")
        elif event.detail.get("reduced"):
            why = (f"`{what}` reduces a device array piece by piece with a `cuda.reduce`: each call allocates its "
                   f"partial sums and reads its result back, one blocking copy per piece (reduce the whole array "
                   f"once, or pass `res=` a device array)")
        elif event.detail.get("per_element"):
            # Python iterates the device array: one blocking copy per element, whatever the value decides
            why = (f"`{what}` iterates a device array in Python: one blocking copy to the host per element "
                   f"(one `.copy_to_host()` and NumPy on the copy: 41x faster on an H100 for 64 elements)")
        else:
            entry = event.call_in(loop.function)  # the call in the loop that leads to it (if any)
            held = _already_held(facts, event, level) if entry is None else None
            if held is not None:
                reported.add(at)
                yield host_finding(
                    CODE, at,
                    f"`{what}` copies back {held[0]}: a blocking copy of {held[1]}, on every iteration of the loop at "
                    f"line {level.line}; keep the host's {held[2]}")
                continue
            if not event.detail.get("round_trip") and (
                    set(event.detail.get("assigned", ())) & loop.deciding or event.detail.get("decides") or (
                        entry is not None and entry.detail.get("decides") and not (
                            event.kind == "sync" and _launch_after(facts, event, level, entry)))):
                # the host needs the value to decide what this iteration does (a wait the called
                # function makes between its own launches is not for that value: reported)
                continue
            if event.detail.get("read") or entry is not None and event.place in entry.detail.get("uses_copy", ()):
                continue  # the host reads the copy on this iteration (writes it out, passes it on)
            if event.kind == "copy-back" and entry is not None and _RETURNED in event.detail.get("carried", ()) and (
                    _result_read(event.calls)):
                continue  # the called function returns the copy, and its caller reads what it returns
            if event.kind == "copy-back" and entry is not None and any(
                    kept.startswith("self.") and kept[len("self."):] in entry.detail.get("attributes_read", ())
                    for kept in event.detail.get("carried", ())):
                continue  # kept in the object's attribute, which the loop reads after the call (`fluid.density`)
            if event.kind == "sync" and _read_next(facts, event, level, entry):
                continue  # the last wait before a blocking copy the loop makes next, which would wait the same
            if event.detail.get("rendezvous"):
                continue  # with a barrier between processes: each rank's next kernel reads what the others wrote
            if event.kind == "sync" and _handed_to_mpi(facts, event, level):
                continue  # MPI sends the device memory the kernels wrote: they must be done first
            if event.kind in ("sync", "copy-back") and _paused_after(facts, event, level) and not event.detail.get(
                    "round_trip"):
                continue  # the host then idles on purpose (`time.sleep`): the wait costs the iteration nothing more
            if _clock_after(facts, event, level) and not event.detail.get("round_trip") and not (
                    event.kind == "sync" and entry is not None and _launch_after(facts, event, level, entry)):
                continue  # timing each iteration: the wait is the point (one before the clock, not one per launch)
            why = f"`{what}`" + (f" {event.detail['reason']}" if event.detail.get("reason") else
                                 f" on `{event.detail['stream']}` copies into pageable host memory, so it returns "
                                 f"only once done" if event.detail.get("stream") else
                                 " is a blocking copy to the host" if event.kind == "copy-back" else " blocks")
        if call is not None:  # one finding at the call, naming every wait the functions it runs make
            through.setdefault(at, []).append((event, what, call, level))
            continue
        reported.add(at)
        yield host_finding(
            CODE, at,
            f"{why}: the host waits for the GPU on every iteration of the loop at line {level.line}, which "
            f"launches kernels; synchronize once after the loop (async copies on a stream into pinned memory "
            f"where the host needs data each step)")


    for at, found in through.items():
        if at in reported:
            continue
        reported.add(at)
        event, what, call, level = found[0]
        runs = f"`{call.detail['default']}` (its default, `{call.what}`)" if call.detail.get("default") else \
            callees_named(c for _, _, c, _ in found)
        lines = list(dict.fromkeys(f"{os.path.basename(e.place.path)}:{e.place.line}" for e, _, _, _ in found))
        more = f", and waits at {len(lines) - 1} more line{'s' if len(lines) > 2 else ''} on each call " \
               f"({', '.join(lines[1:])})" if len(lines) > 1 else ""
        yield host_finding(
            CODE, at,
            f"{runs} {_callee_does(event, what)}{more}: the host waits for the GPU on every iteration of the loop "
            f"at line {level.line}, which launches kernels; synchronize once after the loop (async copies on a "
            f"stream into pinned memory where the host needs data each step)")


def _callee_does(event, what: str) -> str:
    """What a function called in the loop does that waits, and where."""
    line = f"{os.path.basename(event.place.path)}:{event.place.line}"
    if isinstance(event, Launch):
        names = ", ".join(dict.fromkeys(f"`{a.name}`" for a in event.host_arrays))
        return (f"launches `{event.what}` on host arrays ({names}, {line}), so {_copier(event)} "
                f"synchronizes after each call")
    if event.detail.get("indexed"):
        return (f"reads the device array `{event.detail['indexed']}` element by element in Python (`{what}`, {line}): "
                f"one blocking copy per element (copy it once with `.copy_to_host()` and index the copy)")
    if event.detail.get("reduced"):
        return (f"reduces a device array piece by piece with a `cuda.reduce` (`{what}`, {line}): one blocking copy "
                f"per piece")
    if event.detail.get("per_element"):
        return f"iterates a device array in Python (`{what}`, {line}): one blocking copy per element"
    if event.detail.get("round_trip"):
        return (f"copies device data back (`{what}`, {line}) only to compute what it uploads again "
                f"({event.detail['round_trip']}): computed on the device, that needs no wait")
    if event.detail.get("reason"):
        return f"{event.detail['reason']} (`{what}`, {line})"
    return f"{'copies device data back' if event.kind == 'copy-back' else 'synchronizes'} (`{what}`, {line})"


def _copier(launch) -> str:
    """Who copies a launch's host arrays and waits: numba-cuda, or PyCUDA's ``drv.Out``."""
    return "PyCUDA (`drv.Out`/`drv.InOut`)" if launch.detail.get("pycuda") else "numba-cuda"


def _clock_after(facts: HostFacts, event, level) -> bool:
    """A clock read after the event in the same iteration of its loop (timing each step)."""
    inside = facts.events_in(level.loop)
    index = next((i for i, e in enumerate(inside) if e.place == event.place), None)
    return index is not None and any(later.kind == "clock" and _stamp(facts, later) for later in inside[index + 1:])


def _paused_after(facts: HostFacts, event, level) -> bool:
    """Whether the next thing the iteration does after the event, before any launch, is a
    pause in the loop's body itself (no ``if`` around it): ``stream.synchronize()`` then
    ``time.sleep(1e-2)``, a throttle. The host idles there anyway; a wait with launches
    still to come before the pause holds them back."""
    inside = facts.events_in(level.loop)
    index = next((i for i, e in enumerate(inside) if e.place == event.place), None)
    if index is None:
        return False
    for later in inside[index + 1:]:
        if later.kind in ("launch", "queue"):
            return False
        if later.kind == "pause" and not later.detail.get("branched") and facts.unconditional(later, level.loop):
            return True
    return False


def _handed_to_mpi(facts: HostFacts, event, level) -> bool:
    """Whether what follows a wait in the iteration, before any launch, is an MPI call on a
    buffer that may be device memory (a CUDA-aware ``comm.Isend(d_buf, ...)``, directly or in
    a function called next): MPI reads the memory outside the stream's order, so the wait is
    what makes the kernels' writes visible to it."""
    inside = facts.events_in(level.loop)
    entry = event.call_in(facts.loops[level.loop].function)  # (the loop may be a caller's: its calls from there)
    chain = event.calls[event.calls.index(entry):] if entry is not None else ()
    index = next((i for i, e in enumerate(inside) if e.place == event.place and e.calls == chain), None)
    if index is None:
        return False
    for later in inside[index + 1:]:
        if later.kind == "launch":
            return False
        if later.kind == "mpi":
            return True
    return False


def _launch_after(facts: HostFacts, event, level, entry) -> bool:
    """A launch after the event in the same iteration, through the same call in the loop: the
    called function waits for the GPU, then launches again (a wrapper's sync after each kernel)."""
    inside = facts.events_in(level.loop)
    index = next((i for i, e in enumerate(inside) if e.place == event.place and entry in e.calls), None)
    return index is not None and any(later.kind == "launch" and entry in later.calls for later in inside[index + 1:])


def _read_next(facts: HostFacts, event, level, entry) -> bool:
    """Whether a wait (in the loop, or in a function called there: ``entry``, the call, and then
    its last wait, no launch after it in that call) is followed, as the next thing of the
    iteration that launches or waits, by a blocking copy of device data made on every iteration
    (``cuda.synchronize()`` then ``h = d.copy_to_host()``; a function called next that copies its
    result back): that copy would wait for the same kernels, so this wait costs nothing of its
    own. Where the copy itself is needless (a round trip), its own finding says so; a wait that
    reads back of its own (a boolean mask's count) still counts before such a copy."""
    inside = facts.events_in(level.loop)
    index = next((i for i, e in enumerate(inside) if e.place == event.place and e.kind == event.kind and (
        entry in e.calls if entry is not None else not e.calls)), None)
    if index is None:
        return False
    # (the loop's own wait: on through the next iteration's start, `d[:n] = d_next[:n]` at the
    # end, then `n = int(d_size.copy_to_host()[0])` at the top)
    following = inside[index + 1:] + (inside[:index] if entry is None else [])
    for later in following:
        if later.kind == "launch":
            if _waits_itself(later) and (entry is None or entry in later.calls):
                continue  # a launch on host arrays waits for the GPU itself: the wait goes on to the copy
            return False
        if later.kind == "copy-back" and not later.detail.get("stream"):
            if event.detail.get("reason") and (entry is None or entry in later.calls) and not _needed(later, entry):
                # a wait that reads back of its own (a boolean mask's count), before a copy reported
                # itself: two reads. A bare wait before such a copy adds nothing: the copy waits the
                # same, and its own finding is where the cost is
                return False
            # only a copy made on every iteration (not one behind a checkpoint's modulo gate)
            step = later.rate.step_loop if later.rate is not None else None
            return step is not None and step.loop == level.loop
        if later.kind == "sync" and (entry is None or entry not in later.calls):
            return False
    return False


def _before(facts: HostFacts, event, level) -> List:
    """The loop's events before ``event``, nearest first, back through the end of the previous
    iteration: one iteration's order seen from the event. Empty where the event is not one of the
    loop's own."""
    inside = facts.events_in(level.loop)
    index = next((i for i, e in enumerate(inside) if e is event or e.place == event.place and e.kind == event.kind
                  and not e.calls), None)
    if index is None:
        return []
    return inside[:index][::-1] + inside[index + 1:][::-1]


def _may_write_device(event) -> bool:
    """Something that may queue work or write device memory: a launch, CuPy's work, an upload,
    anything a called function does."""
    return bool(event.calls) or event.kind in ("launch", "queue", "call", "mpi") or (
        event.kind == "alloc" and event.detail.get("implicit") is None)


def _host_wrote(facts: HostFacts, event, level):
    """The setitem by which the host wrote, as a number it holds, the one element a copy back
    reads of a device array (``d_size[0] = np.int32(n)``, then ``int(d_size.copy_to_host()[0])``
    on the next iteration), with no launch or other device work between them and the setitem
    made on every iteration: the copy reads what the host already knows. None otherwise."""
    if event.kind != "copy-back" or not event.detail.get("array") or not event.detail.get("element"):
        return None
    for earlier in _before(facts, event, level):
        if earlier.kind == "sync" and earlier.detail.get("setitem") and \
                earlier.detail.get("array") == event.detail["array"]:
            step = earlier.rate.step_loop if earlier.rate is not None else None
            if earlier.detail.get("host_element") == event.detail["element"] and step is not None and \
                    step.loop == level.loop and earlier.rate.levels[-1].place == "every":
                return earlier
            return None
        if _may_write_device(earlier):
            return None
    return None


def _already_held(facts: HostFacts, event, level) -> Optional[Tuple[str, str, str]]:
    """What a copy back brings that the host already has, as (what it copies and where the host
    got it, what it is, what to keep), or None: one element the host itself wrote (``_host_wrote``),
    or a whole array it uploaded (``_uploaded_unchanged``), with no kernel given it since."""
    written = _host_wrote(facts, event, level)
    if written is not None:
        return (f"`{event.detail['array']}[{event.detail['element']}]`, which the host itself wrote "
                f"(`{written.what.replace(' = ...', '')} = ...` at line {written.place.line}) with no kernel "
                f"launched since", "a value the host already holds", "value")
    uploaded = _uploaded_unchanged(facts, event, level)
    if uploaded is not None:
        return (f"`{event.detail['array']}`, which the host itself uploaded "
                f"(`{uploaded.what.replace('numba.cuda.', 'cuda.')}` at line {uploaded.place.line}) with no "
                f"kernel given it since", "data the host already had", "array")
    return None


def _uploaded_unchanged(facts: HostFacts, event, level):
    """The upload, made on every iteration, that bound the device array a whole copy back reads
    (``d_old = cuda.to_device(h)``, later ``old = d_old.copy_to_host()``), with no launch given
    that array and no call between them: the copy brings back what the host sent. None otherwise."""
    array = event.detail.get("array")
    if event.kind != "copy-back" or not array or event.detail.get("element"):
        return None
    for earlier in _before(facts, event, level):
        if earlier.kind == "alloc" and array in earlier.detail.get("assigned", ()):
            step = earlier.rate.step_loop if earlier.rate is not None else None
            if not earlier.detail.get("shape_based", True) and not earlier.calls and step is not None and \
                    step.loop == level.loop and earlier.rate.levels[-1].place == "every":
                return earlier
            return None
        if earlier.calls or earlier.kind in ("call", "queue", "mpi"):
            return None  # (a function may write it under another name)
        if isinstance(earlier, Launch) and (not earlier.args or any(
                arg.name == array or not arg.name for arg in earlier.args)):
            return None
    return None


def _result_read(calls) -> bool:
    """Whether what the innermost call returns is read: by its caller, or, where that caller
    only returns it (``return self.advance()``), by the call further out."""
    for call in reversed(calls):
        if not call.detail.get("returned"):
            return bool(call.detail.get("result_read"))
    return False


def _waits_itself(launch) -> bool:
    """A launch on host arrays that numba-cuda copies back and synchronizes after (not PyCUDA's
    ``drv.In`` alone, which only copies in)."""
    return bool(isinstance(launch, Launch) and launch.host_arrays and not (
        launch.detail.get("pycuda") and not launch.detail.get("waits")))


def _needed(copy, entry) -> bool:
    """Whether the host reads a copy back on its iteration (``rates``' marks): it decides, it is
    read there, or the function called in the loop (``entry``) hands it to the caller, who reads it."""
    if copy.detail.get("round_trip"):
        return False  # the host only uploads again what it computes from it
    if copy.detail.get("read") or copy.detail.get("decides"):
        return True
    return entry is not None and (copy.place in entry.detail.get("uses_copy", ()) or entry.detail.get("decides") or (
        _RETURNED in copy.detail.get("carried", ()) and bool(entry.detail.get("result_read"))))


def _stamp(facts: HostFacts, clock) -> bool:
    """A clock read that ends or starts an interval (not a deadline test: `time() > deadline`)."""
    if facts.language != "python" or clock.detail.get("minus"):
        return True
    stamps = {name for pair in facts.intervals.get(clock.function, ()) for name in pair}
    return bool(set(clock.detail.get("assigned", ())) & stamps)
