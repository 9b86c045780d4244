"""KL504 unsynchronized-timing

## What it does
Finds a wall-clock interval (``time.perf_counter``, ``time.time``, ``time.monotonic``,
``timeit.default_timer``) around kernel launches whose end stamp is read with no
synchronization after the last launch: no ``cuda.synchronize()``, stream or event
synchronization, blocking copy to the host or host-array launch in between, and that can
hold fewer than 20,000 launches: the trip counts the code states of the loops between the
stamps (``range`` of constants; ``while k < n`` with ``k = 0`` set just before and ``k += 1``
in the body, ``n`` a constant or a parameter's default), multiplied by the launches in each
iteration (an interval whose count is unknown, a loop bound read from input, is left alone). A
count that is a parameter of the function holding the interval (``def benchmark(self,
n=None)`` timing ``while it <= n:``, filled from an attribute only where it is None) is the caller's to choose and can be small: reported, with
the count below which the interval holds fewer than 20,000 launches, unless something in that
loop waits (a copy back every 50 steps keeps the queue short). numba-cuda's
``cuda.synchronize()`` waits for the calling thread's current device only: a launch made after
``cuda.select_device(i)`` with ``i`` a value the code varies (a thread per GPU, a loop selecting
each GPU) is waited for only by a synchronization made after selecting a device the same way
(one per device); each GPU has a queue of its own, so the loop over devices does not multiply
the count. ``timeit.timeit``/``timeit.repeat`` (and
``timeit.Timer(...).timeit``/``.repeat``/``.autorange``, the timer made there or bound to a
name) of code that queues GPU work (a lambda, a function of the module or a statement string,
through the module's functions it calls: kernel launches, and CuPy calls, each at least one
launch) and does not wait after its last launch is the same interval, holding ``number`` times
its launches (timeit's default, 1,000,000, is not reported; ``autorange`` and a ``number`` a
loop grows from its variable, ``10 ** p`` for ``p`` in ``range(10)``, are read at their first
interval, one call). A project function that times with timeit the callable it is given
(``best_time(lambda: convolve(a, b))``) is reported at its call, with where it times it. A stamp read at the end of an iteration and subtracted
at the next (``step_time = time() - last`` ... ``last = time()``) starts an interval that
crosses the loop's back edge: the rest of that iteration, then this one up to the end stamp.
A launch that a wait after it in the interval runs on every pass through (a ``cuda.synchronize()``
or a blocking copy at the end of each frame, not behind a gate) is timed whole: the interval is
counted from what follows the last such wait (a frame loop synchronizing every frame, then a few
launches before the end stamp: those few).
It is reported only where the whole loop holds fewer than 20,000 launches: the queue carries
over from step to step, so in a longer loop each step's time is the GPU's once the first
~1,000 launches are queued (a progress or ETA estimate averaged over it is right).
Leaving ``with stream.auto_synchronize():`` synchronizes, as a copy to the host without a
stream, a launch on host arrays and ``cuda.synchronize()`` in a called function do; a
``copy_to_host(stream=s)`` into pageable memory (no destination, or a NumPy array) returns only
once done, so it waits for the launches on ``s`` (a destination from ``cuda.pinned_array``,
``cuda.mapped_array`` or ``with cuda.pinned(h):`` keeps it asynchronous); a launch
through a launcher that takes its arrays as parameters or ``*args`` is on the arrays the
call hands it (host arrays there: the launch waits). A call through a table of functions
(``self.modes[mode](self, dt)``, the table a literal dict or list of the module's functions or
of the class's methods) is no launch: it runs one of them, and what each does counts. An interval whose launches the program
also times with CUDA events (one recorded just before the start stamp, one just after the end
stamp) is the contrast it prints beside the events' time, and is left alone. A CuPy function's
call (``cp.cumsum(x)``, ``cp.random.standard_normal(shape)``, ``cp.fft.fft(x)``) queues at least
one kernel and returns: it is a launch in an interval, and the message says the count is a lower
bound; so is what CuPy does on an array the code made with CuPy: an operator (``z - ys``,
``w *= ws``), a method that computes (``x.sum()``, ``x.astype(...)``; not a view such as
``x.reshape(...)``), a store into one (``out[a:b] = v``), a gather by an index array on the
device (``x[idx]``) and a constructor that fills what it makes (``cp.zeros``, ``cp.full``,
``cp.arange``; not ``cp.empty``); making a kernel (``cp.ElementwiseKernel(...)``, ``cp.fuse``) or
a generator launches nothing; ``float()``/``int()``/``.item()``/``.get()`` (and CuPy's scalar
types, ``cp.float64(...)``, NumPy's own) of what a CuPy function returns
(``float(cp.mean(x))``) copies it back and waits, as ``cp.asnumpy`` does and an ``if``/``while``
test on a CuPy array does (``if (r * r).sum() < tol:`` makes a Python bool of it), and so do the
functions that size their result from the data (``cp.nonzero``, ``cp.unique``, ``cp.argwhere``,
``cp.where(mask)``, indexing by a boolean mask, ``x[x > 0]``: they read a count back first), and ``cupyx.scipy.sparse.linalg.splu``,
``spilu`` and ``factorized``, which factorize with SciPy on the host.

## Why is this bad?
Kernel launches are asynchronous: the launch returns as soon as the work is queued. The
interval measures the launch, not the kernel: on an H100 it reports 57 us for a kernel
that takes 282 us (2^26 float32 axpy, 4.9x under), and the longer the kernel, the worse
(``benchmarks/gpu_host.py``). A launch blocks only once about 1,000 are queued, so an
interval around N launches misses about the last 1,000 kernels: for a 0.43 ms kernel
20x short at 1 to 1,000 launches, 1.5x at 3,000, 1.11x at 10,000; the message gives the
error to expect. Past 20,000 launches the error is under 5% (a time loop of 100,000
launches with progress prints in it is not reported).

## Example
```python
start = time.perf_counter()
saxpy[blocks, threads](out, a, x, y)
elapsed = time.perf_counter() - start  # KL504

start = time.perf_counter()
for step in range(100_000):  # 100,000 launches: the ~1,000 still queued are under 1%
    relax[blocks, threads](field)
elapsed = time.perf_counter() - start  # not reported

def benchmark(n):
    start = time.perf_counter()
    for _ in range(n):  # the caller's count: ten steps leave every launch queued
        relax[blocks, threads](field)
    return time.perf_counter() - start  # KL504

start = time.perf_counter()
for i in range(gpus):
    cuda.select_device(i)
    relax[blocks, threads](fields[i])
cuda.synchronize()  # waits for the last GPU selected only
elapsed = time.perf_counter() - start  # KL504

start = time.perf_counter()
paths = cp.cumsum(drift + volatility * cp.random.standard_normal((n, steps)), axis=1)
elapsed = time.perf_counter() - start  # KL504: at least 4 launches (2 calls, 2 operators), CuPy's, still queued

start = time.perf_counter()
if (residual * residual).sum() < tolerance:  # a Python bool of a CuPy array: it waits
    converged = True
elapsed = time.perf_counter() - start  # not reported

timeit.timeit(lambda: saxpy[blocks, threads](out, a, x, y), number=100)  # KL504: 100 launches
timeit.Timer(lambda: cp.fft.fft(signal)).autorange()  # KL504: its first intervals hold one call

def best_time(stmt):
    timer = timeit.Timer(stmt)
    for power in range(10):  # the calls grow tenfold until 0.5 ms: the first interval holds one
        number = 10 ** power
        if timer.timeit(number) >= 5e-4:
            return timer.timeit(number) / number

best_time(lambda: cp.convolve(signal, taps))  # KL504: `best_time` times it with timeit
best_time(lambda: (cp.convolve(signal, taps), cp.cuda.Device().synchronize()))  # not reported

start = time.perf_counter()
over_items(saxpy, n, out, x_host, y_host)  # `def over_items(kernel, n, *args)`: host arrays
elapsed = time.perf_counter() - start  # not reported: the launch copied back and waited

last = time.time()
for step in range(steps):
    relax[blocks, threads](field)
    print(time.time() - last)  # KL504 (with steps = 100): one launch since `last`, read at the end of the step before
    last = time.time()
```

Use instead: ``cuda.synchronize()`` before both stamps, or CUDA events
(``start = cuda.event(); start.record(); ...; end.record(); end.synchronize();
start.elapsed_time(end)``); in a timed callable, ``cuda.synchronize()`` after its last
launch (``lambda: (saxpy[blocks, threads](out, a, x, y), cuda.synchronize())``).

## Fix safety
No automatic fix.
"""

from __future__ import annotations

import os
from typing import Iterator, List, Optional

from ..analysis.host import Event, HostFacts, Launch, Loop
from ..findings import Finding
from .base import host_finding

CODE = "KL504"
NAME = "unsynchronized-timing"
FIXABLE = False
# on six projects it was not developed on, 0 of 110 host findings were true (2026-11): preview
# until the rule holds on projects set aside for measuring it
PREVIEW = True


# measured on an H100 (numba-cuda, perf_counter around N launches of one kernel, the end stamp
# read before and after a synchronization): about this many launches queue before a launch blocks
QUEUED = 1_000
_NO_LOOP = Loop(0, None, "", "")  # (a loop of another file: no variables here)
# from this many launches on, the launches still queued are under 5% of the interval: not reported
MANY = 20_000


def _waits(event: Event, launch: Event) -> bool:
    """Does ``event`` make the host wait for ``launch``, queued before it?"""
    if isinstance(event, Launch) and event.detail.get("pycuda"):
        return bool(event.detail.get("waits"))  # `drv.Out` copies back after the kernel: a wait
    if event.detail.get("via"):
        return False  # an element read of a parameter that may not be a device array at all
    if event.kind == "sync" and launch.detail.get("device") and not event.detail.get("device") and (
            event.what.endswith("cuda.synchronize()")):
        # the launch is on a device the code selects (per call, per iteration), this waits for the
        # current one; a synchronization made after selecting a device the same way (one per device) waits
        return False
    if event.kind == "queue":
        return bool(event.detail.get("waits"))  # `cp.nonzero(x)` reads the count back first
    if event.kind == "copy-back" and event.detail.get("stream"):
        # a copy into pageable memory on a stream returns once done: it waits for that stream's work,
        # and numba's streams wait for the legacy default stream's
        return not launch.detail.get("stream") or launch.detail["stream"] == event.detail["stream"]
    return event.kind in ("sync", "copy-back") or (isinstance(event, Launch) and bool(event.host_arrays))


def check_host(facts: HostFacts) -> Iterator[Finding]:
    yield from _timed_calls(facts)
    functions = {e.function for e in facts.events}
    for function in sorted(functions):
        events: List[Event] = facts.expanded_function(function)
        intervals = facts.intervals.get(function, set())
        clocks = [(i, e) for i, e in enumerate(events) if e.kind == "clock" and e.function == function
                  and not e.calls]
        for position, (end_index, end) in enumerate(clocks):
            start = _start_of(end, clocks[:position], intervals)
            wrapped = None
            loop = end.loops[-1] if end.loops else None
            if loop is not None and (start is None or loop not in events[start].loops):
                # `t0 = time()` at the end of an iteration, read at the next: from the second
                # iteration on the interval crosses the loop's back edge (the rest of that
                # iteration, then this one up to the end stamp), whatever the first one read
                later = [(i, e) for i, e in clocks[position + 1:] if loop in e.loops]
                crossing = _start_of(end, later, intervals)
                if crossing is not None:
                    start, wrapped = crossing, loop
            if start is None:
                continue
            if wrapped is None:
                between = events[start + 1:end_index]
            else:
                between = [e for e in events[start + 1:] if wrapped in _own_loops(e)] + [
                    e for e in events[:end_index] if wrapped in _own_loops(e)]
            # (a CuPy function's call queues one kernel or more: a launch at least)
            launches = [i for i, e in enumerate(between) if e.kind == "launch" or _queued(e)]
            # the launches nothing after them waits for (a stream's copy waits for its stream's alone)
            unwaited = [i for i in launches if not any(_waits(e, between[i]) for e in between[i:])]
            if not unwaited:
                continue
            last = unwaited[-1]
            if wrapped is None and _also_evented(events, start, end_index):
                continue  # the same launches are timed with CUDA events too: the wall-clock reading is the contrast
            # a launch that a wait after it runs on every pass through (a sync at the end of each
            # frame) is timed whole: only what follows the last such wait can still be queued
            queued = [i for i in launches if not any(_waits(e, between[i]) and _always(e) for e in between[i + 1:])]
            held = _launches_held(events[start], [between[i] for i in queued], facts)
            chosen = None
            if held is None and wrapped is None:
                # a count the caller chooses (`def bench(self, n)`, `for _ in range(n)`): it can be small
                chosen = _chosen_count(facts, events[start], [between[i] for i in queued], between)
                if chosen is not None:
                    held = chosen[0] + chosen[1]
            if held is None or held >= MANY:
                continue  # unknown, or so many that the ~1,000 still queued are under 5% of the total
            if wrapped is not None:
                # one iteration's stamps with nothing waiting in the loop: the queue carries over from
                # step to step, so past the first ~1,000 launches each step's time is the GPU's (an
                # ETA's running average over a long loop is right); only a loop that cannot fill the
                # queue for long reads short
                trips = facts.loops[wrapped].trips
                if trips is None or held * trips >= MANY:
                    continue
            # a CuPy call launches one kernel or more: the count is a lower bound
            at_least = "at least " if any(_queued(between[i]) for i in queued) else ""
            crossing = " (in the iteration before: the interval crosses the loop's back edge)" if wrapped else ""
            since = " after its last synchronization" if len(queued) < len(launches) else ""
            if chosen is not None:
                fixed, each, loop = chosen
                below = -(-(MANY - fixed) // each)
                yield host_finding(
                    CODE, end.place,
                    f"the wall-clock interval that ends here starts at line {events[start].place.line} and holds "
                    f"{_count(each)} on each of the `{loop.counted_by}` iterations of the loop at line "
                    f"{loop.place.line}{f' and {_count(fixed)} besides' if fixed else ''} (the last at "
                    f"{_line(between[last], end)}), with no synchronization before this stamp nor in the loop; "
                    f"`{loop.counted_by}` is a parameter its callers choose, and below {below:,} iterations the "
                    f"interval holds fewer than {MANY:,} launches: {_error(held)}; cuda.synchronize() before both "
                    f"stamps, or time with CUDA events")
                continue
            other = between[last].detail.get("device")
            current = next((e for e in between[last + 1:] if e.kind == "sync" and e.what.endswith(
                "cuda.synchronize()")), None) if other else None
            if current is not None:
                # a wait for the current GPU only, the launch on the one the code selects per call
                yield host_finding(
                    CODE, end.place,
                    f"the wall-clock interval that ends here starts at line {events[start].place.line} and holds "
                    f"{_count(held)} per GPU (the last at {_line(between[last], end)}, on the device "
                    f"`cuda.select_device({other})` picks) and the `cuda.synchronize()` at {_line(current, end)} waits "
                    f"for the calling thread's current device only: {_error(held)} on every other GPU; synchronize "
                    f"each device (select it, then cuda.synchronize()) before the end stamp")
                continue
            yield host_finding(
                CODE, end.place,
                f"the wall-clock interval that ends here starts at line {events[start].place.line}{crossing} and holds "
                f"{at_least}{_count(held)}{since} (the last at {_line(between[last], end)}{_cupy(between[last])}) "
                f"with no synchronization before this stamp: {_error(held)}; {_remedy(between)}")


def _queued(event: Event) -> bool:
    """CuPy work that returns before it is done: a CuPy call, method or operator that does not
    read a count back, and a constructor that fills what it makes (``cp.zeros``)."""
    return event.kind == "queue" and not event.detail.get("waits") or event.kind == "alloc" and bool(
        event.detail.get("fills"))


def _cupy(event: Event) -> str:
    what = event.what.replace('cupy.', 'cp.')
    if event.kind == "alloc":
        what += "()"
    return f", `{what}`, which returns before its kernels end" if _queued(event) else ""


def _remedy(between: List[Event]) -> str:
    """How to wait before the stamps: CuPy's own synchronization where CuPy queued the work."""
    if all(e.kind != "launch" for e in between if e.kind == "launch" or _queued(e)):
        return "cp.cuda.Stream.null.synchronize() before both stamps, or time with CuPy's events (cupyx.profiler.benchmark)"
    return "cuda.synchronize() before both stamps, or time with CUDA events"


def _always(event: Event) -> bool:
    """Whether an event runs every time the code around it does (every place on its way
    ``every``: not behind a gate, a flag or a leaving branch)."""
    return event.rate is not None and all(level.place == "every" for level in event.rate.levels)


def _also_evented(events: List[Event], start: int, end: int) -> bool:
    """Does the program record a CUDA event just before the start stamp and another just after
    the end stamp (no launch between either and its stamp)? It then measures the same launches
    on the GPU's clock as well, and the wall-clock interval beside it is what it compares with
    (numbapro's and numba's examples print both: the launch returns before the kernel ends)."""
    def recorded(stretch) -> bool:
        for event in stretch:
            if event.kind == "launch":
                return False
            if event.kind == "record" and event.loops == events[start].loops:
                return True
        return False
    return recorded(reversed(events[:start])) and recorded(events[end + 1:])


def _line(event: Event, here: Event) -> str:
    """Where an event is, as seen from ``here``: its line, with its file's name where that differs."""
    if event.place.path == here.place.path:
        return f"line {event.place.line}"
    return f"{os.path.basename(event.place.path)}:{event.place.line}"


def _own_loops(event: Event):
    """The loops of the function being read around an event: a callee's event sits where its
    outermost call does."""
    return event.calls[0].loops if event.calls else event.loops


def _timed_calls(facts: HostFacts) -> Iterator[Finding]:
    """``timeit.timeit(lambda: k[g, b](x), number=N)``: each interval timeit measures holds N
    launches of the callable, and nothing in it waits for the last one."""
    for event in facts.events:
        if event.kind != "timed" or event.detail.get("synced"):
            continue
        held = event.detail.get("launches")
        if not isinstance(held, int) or held >= MANY:
            continue  # not fixed, or so many that the ~1,000 still queued are under 5% of the total
        at_least = "at least " if event.detail.get("at_least") else ""  # a CuPy call launches one kernel or more
        first = " in its first intervals" if event.detail.get("first") else ""  # autorange, a growing `number`
        through = event.detail.get("through")
        if through:  # a project helper times what this call passes: say what it does, and where
            where = os.path.basename(str(event.detail.get("timed_in", "")))
            first += (f" (`{through}` times the callable it is passed with `{event.detail.get('how')}`, "
                      f"{where}:{event.detail.get('timed_at')})")
        yield host_finding(
            CODE, event.place,
            f"`{event.what}` times {at_least}{_count(held)} of `{event.detail.get('launched')}` (line "
            f"{event.detail.get('launch_line')}){first} and the timed code does not synchronize after its last "
            f"launch: {_error(held)}; end the timed code with cuda.synchronize(), or time with CUDA events")


def _launches_held(start: Event, launches: List[Event], facts: Optional[HostFacts] = None) -> Optional[int]:
    """How many launches the interval can hold: for each launch, the product of the trip
    counts of the loops around it that the start stamp is not in (None: one is unknown). A
    loop whose variable selects the launch's device puts each iteration's launches on another
    GPU, each with a queue of its own: it does not multiply what one queue holds."""
    outer = start.rate.levels if start.rate is not None else ()
    total = 0
    for launch in launches:
        if launch.rate is None:
            return None
        count = 1
        spread = _device_loops(facts, launch) if facts is not None else set()
        for level in _inner_levels(outer, launch):
            if level.kind == "body" or level.loop in spread:
                continue
            if level.trips is None:
                return None
            count *= level.trips
        total += count
    return total


def _inner_levels(outer, launch: Event):
    """The loops around ``launch`` that the start stamp (whose levels are ``outer``) is not in."""
    shared = 0
    for mine, theirs in zip(outer, launch.rate.levels):
        if mine.line != theirs.line or mine.kind != theirs.kind:
            break
        shared += 1
    return launch.rate.levels[shared:]


def _chosen_count(facts: HostFacts, start: Event, launches: List[Event], between: List[Event]):
    """(launches outside the loop, launches per iteration, the loop) where the one unknown count
    on the way to the interval's launches is a parameter of the interval's own function
    (``Loop.counted_by``) and nothing in that loop waits (a periodic copy back empties the queue
    every few iterations); None otherwise."""
    outer = start.rate.levels if start.rate is not None else ()
    chosen = None
    fixed = each = 0
    for launch in launches:
        if launch.rate is None:
            return None
        count, inside = 1, False
        for level in _inner_levels(outer, launch):
            if level.kind == "body":
                continue
            if level.trips is not None:
                count *= level.trips
                continue
            loop = facts.loops.get(level.loop) if level.loop is not None else None
            if loop is None or not loop.counted_by or loop.function != start.function or (
                    chosen is not None and chosen is not loop) or inside:
                return None
            chosen, inside = loop, True
        if inside:
            each += count
        else:
            fixed += count
    if chosen is None or any(e.kind in ("sync", "copy-back") and chosen.id in _own_loops(e) for e in between):
        return None
    return fixed, each, chosen


def _device_loops(facts: HostFacts, launch: Event) -> set:
    """The loops (by number) whose variable is the device a launch selects (``Launch.detail
    ["device"]``: ``cuda.select_device(gpu_id)`` before it), followed up the calls that lead to it
    through the parameters they bind: ``for i in range(n): Thread(target=work, args=(i,))``."""
    name = launch.detail.get("device")
    if not isinstance(name, str) or not name.isidentifier():
        return set()
    found = {number for number in launch.loops if name in facts.loops.get(number, _NO_LOOP).targets}
    function = launch.function
    for call in reversed(launch.calls):
        spec = facts.parameters.get(function)
        passed = call.detail.get("passed")
        if spec is None or not isinstance(passed, tuple) or len(passed) != 2:
            break
        positional, _, _ = spec
        if name not in positional or positional.index(name) >= len(passed[0]):
            break
        argument = passed[0][positional.index(name)]
        name = getattr(argument, "name", "")
        found |= {number for number in call.loops if name in facts.loops.get(number, _NO_LOOP).targets}
        function = call.function
    return found


def _count(held: int) -> str:
    return "one launch" if held == 1 else f"{held:,} launches"


def _error(held: int) -> str:
    """The error to expect: the launches still queued when the end stamp is read (about 1,000
    on an H100) are missing from it."""
    if held <= QUEUED:
        return ("every launch may still be queued when the end stamp is read: it measures the launches, not "
                "the kernels (a 0.43 ms kernel reads about 20x short on an H100)")
    return (f"about {QUEUED:,} launches queue before a launch blocks, so the last ~{QUEUED:,} kernels are "
            f"missing from it (a 0.43 ms kernel reads about {held / (held - QUEUED):.2f}x short on an H100)")


def _start_of(end: Event, earlier, intervals) -> "int | None":
    """The index of the clock read this one is subtracted from, if any."""
    minus = end.detail.get("minus")
    ends = set(end.detail.get("assigned", ()))
    for index, start in reversed(earlier):
        names = set(start.detail.get("assigned", ()))
        if minus and minus in names:
            return index
        if any((e, s) in intervals for e in ends for s in names):
            return index
    return None
