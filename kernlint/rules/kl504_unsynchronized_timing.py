"""KL504 unsynchronized-timing

## What it does
Finds a wall-clock interval (``time.perf_counter``, ``time.time``, ``time.monotonic``,
``timeit.default_timer``) around kernel launches whose end stamp is read with no
synchronization after the last launch: no ``cuda.synchronize()``, stream or event
synchronization, blocking copy to the host or host-array launch in between.

## Why is this bad?
Kernel launches are asynchronous: the launch returns as soon as the work is queued. The
interval measures the launch, not the kernel: on an H100 it reports 57 us for a kernel
that takes 282 us (2^26 float32 axpy, 4.9x under), and the longer the kernel, the worse
(``benchmarks/gpu_host.py``).

## Example
```python
start = time.perf_counter()
saxpy[blocks, threads](out, a, x, y)
elapsed = time.perf_counter() - start  # KL504
```

Use instead: ``cuda.synchronize()`` before both stamps, or CUDA events
(``start = cuda.event(); start.record(); ...; end.record(); end.synchronize();
start.elapsed_time(end)``).

## Fix safety
No automatic fix.
"""

from __future__ import annotations

from typing import Iterator, List

from ..analysis.host import Event, HostFacts, Launch
from ..findings import Finding
from .base import host_finding

CODE = "KL504"
NAME = "unsynchronized-timing"
FIXABLE = False
# on six projects it was not developed on, 0 of 110 host findings were true (2026-11): preview
# until the rule holds on projects set aside for measuring it
PREVIEW = True


def _waits(event: Event) -> bool:
    return event.kind in ("sync", "copy-back") or (isinstance(event, Launch) and bool(event.host_arrays))


def check_host(facts: HostFacts) -> Iterator[Finding]:
    functions = {e.function for e in facts.events}
    for function in functions:
        events: List[Event] = facts.expand(facts.of_function(function))
        intervals = facts.intervals.get(function, set())
        clocks = [(i, e) for i, e in enumerate(events) if e.kind == "clock" and e.function == function]
        for position, (end_index, end) in enumerate(clocks):
            start = _start_of(end, clocks[:position], intervals)
            if start is None:
                continue
            between = events[start + 1:end_index]
            launches = [i for i, e in enumerate(between) if e.kind == "launch"]
            if not launches:
                continue
            last = launches[-1]
            if _waits(between[last]) or any(_waits(e) for e in between[last + 1:]):
                continue
            yield host_finding(
                CODE, end.place,
                f"the wall-clock interval that ends here starts at line {events[start].place.line} and has "
                f"launches (the last at line {between[last].place.line}) with no synchronization before this "
                f"stamp: it measures the launch, not the kernel; cuda.synchronize() before both stamps, or "
                f"time with CUDA events")


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
