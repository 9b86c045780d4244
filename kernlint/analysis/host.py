"""Host facts: what the code around the kernels does, the same for every language.

A host reader (``python.host`` for Python, ``hip.host_reader`` for HIP C++'s host
IR) reduces a file to these facts, each with its source location: kernel launches and
what they pass, device allocations and frees, operations that block the host, loops and
what runs in them (directly or through a call, in the same file or another), clock reads,
and how often each event runs (:class:`Rate`: the loops around it, their kinds and trip
counts, its place in each). The host rules (KL501–KL505) are each one piece of logic over
them, and report only what runs on every iteration of a step loop (``HostFacts.stepping``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Set, Tuple


@dataclass(frozen=True)
class Place:
    path: str
    line: int
    column: int


@dataclass(frozen=True)
class Arg:
    """One launch argument: its numba type (None: unknown) and, for arrays, where it lives."""

    type: Optional[str]
    where: str = ""  # host | device | mapped | "" (a scalar, or unknown)
    name: str = ""  # the expression as written
    array: bool = False  # known to be an array (its type may still be unknown)
    library: str = ""  # numpy | cupy | torch | numba: whose array object ("" unknown)
    parameter: bool = False  # a parameter of the function that launches: bound by its caller
    dtype: str = ""  # an array's element type where its rank is unknown (`data.moon().astype(np.float32)`)
    # the parameter of the function it is read in that binds it (`x`, `*args` for what a spread of
    # the function's own `*args` passes): a call of that function tells what it is (HostFacts.expand)
    via: str = ""
    # the value may also be None (`self.out = None` in `__init__`, an array later): ``type`` is
    # the array's, the one a launch runs with wherever the kernel indexes it
    optional: bool = False
    # written as a call (`self.source(t)`, `cp.zeros(n)`): evaluated at the launch, so the object may
    # be a new one each time; what it is, the call decides
    made: bool = False


@dataclass(frozen=True)
class KernelRef:
    """The kernel a launch starts: its file and qualified name."""

    path: str
    qualname: str


@dataclass(frozen=True)
class Level:
    """One loop on the way to an event, or (kind ``body``) the function's own level: the
    loop's kind (``step``, ``search``, ``sweep``, ``setup``, ``few``, ``verify``, ``unknown``),
    the place in it of what leads to the event (``every``, ``periodic``, ``event``, ``leaving``,
    ``unknown``, ``never``), its line, the trip count the code states (None: unknown) and the
    :class:`Loop` it is in these facts (None: a loop of another file, reached through a call)."""

    kind: str
    place: str
    line: int
    trips: Optional[int] = None
    loop: Optional[int] = None


# the most events a call's callee may bring, expanded (its own and its calls', at each call):
# past it the call is read as unknown; a particle-in-cell code's `sim.step()` brings ~90,000
MAX_EXPANDED = 50_000
# what shows device work in a generator's loop: a launch, a wait on the device, an event timing it
_DEVICE_WORK = ("launch", "sync", "record")
# loop kinds that cut one call's work into pieces (batches, chunks, launch configurations, a few
# parts): a function launching only in such loops does one step's work per call
_PIECES = ("sweep", "few")


@dataclass(frozen=True)
class Rate:
    """How often an event runs relative to the work: the levels around it, outermost first.
    The reader fills it (Python: ``python.host.frequency``; HIP: its CFG loops); a rule
    reports only :attr:`every_step`: unknown is silent."""

    levels: Tuple[Level, ...] = ()

    def through(self, inner: "Rate") -> "Rate":
        """A callee's event called from here: this rate's levels around the callee's."""
        return Rate(self.levels + inner.levels)

    @property
    def step_loop(self) -> Optional[Level]:
        """The step loop on each of whose iterations the event runs: from the innermost level
        outwards every place must be ``every``; loops of pieces (``sweep``, ``few``) inside a
        step run on each step, and so does a retry or convergence loop's (``search``) body,
        once at least, though such a loop is never the step itself; ``setup``, ``verify`` and
        ``unknown`` loops end the walk; code that never runs (a level ``never``, at any depth:
        the call that leads to the loop) has none."""
        if not self.runs:
            return None
        for level in reversed(self.levels):
            if level.place != "every":
                return None
            if level.kind == "step":
                return level
            if level.kind not in ("sweep", "few", "search", "body"):
                return None
        return None

    @property
    def every_step(self) -> bool:
        return self.step_loop is not None

    @property
    def runs(self) -> bool:
        """False for what never runs: a level ``never`` on the way (a module stopped before it)."""
        return all(level.place != "never" for level in self.levels)


@dataclass
class Loop:
    id: int
    place: Place
    kind: str  # for | while | comprehension
    function: str  # the qualified name of the function it is in ("" at module level)
    parent: Optional[int] = None
    varying: Set[str] = field(default_factory=set)  # names that change from one iteration to the next
    targets: Set[str] = field(default_factory=set)  # a for loop's own variables (`frame` in `for frame in frames`)
    # names its body binds only to the item its variable indexes (`row = X[k]` in `for k in
    # range(len(X))`): the iteration's item, as a `for row in X` would bind it
    items: Set[str] = field(default_factory=set)
    deciding: Set[str] = field(default_factory=set)  # names its condition or a `break` reads
    rebound: Set[str] = field(default_factory=set)  # names and `self.x` attributes assigned whole in it
    # names it rebinds only to arrays it allocates in their own shape (`u_new =
    # cuda.device_array(u_old.shape)` ... `u_old = u_new`): their shape is the same on every iteration
    steady: Set[str] = field(default_factory=set)
    # names it rebinds only to arrays it allocates in a shape that is the same on every iteration
    # (`s = cuda.device_array(1)`, `m = cuda.device_array_like(s)`): a size read from them is fixed
    fixed: Set[str] = field(default_factory=set)
    frequency: str = ""  # its kind by what the code does (Level.kind); "" where the reader has none
    trips: Optional[int] = None  # the trip count the code states
    # the parameter of its function that is its count, where callers choose it (`for _ in
    # range(n)`, `while it <= n` for `def bench(self, n=None)`): "" where the count is not one
    counted_by: str = ""


@dataclass
class Event:
    """Something host code does at one place."""

    # launch | alloc | free | sync | copy-back | clock | record (a CUDA event's) | barrier | mpi (an MPI call
    # on a buffer that may be device memory) | pause (`time.sleep`) | timed | call | queue (a library call
    # that queues GPU work and returns, CuPy's: ``waits`` where it reads a count back first)
    kind: str
    place: Place
    function: str  # where it happens ("" at module level)
    loops: Tuple[int, ...]  # the loops around it in its function, outermost first
    what: str = ""  # e.g. numba.cuda.device_array, numba.cuda.synchronize
    detail: Dict[str, object] = field(default_factory=dict)
    rate: Optional[Rate] = None  # how often it runs in its function (None: unknown)
    # reached through calls (HostFacts.expand): the calls that lead to it, outermost first
    calls: Tuple["Event", ...] = ()

    def call_in(self, function: str) -> Optional["Event"]:
        """The call made in ``function`` that leads to this event (None: it is that function's own)."""
        return next((call for call in self.calls if call.function == function), None)  # (this file's come first)


@dataclass
class Launch(Event):
    kernel: Optional[KernelRef] = None  # None: a launch of something kernlint could not resolve
    args: Tuple[Arg, ...] = ()
    stream: bool = False  # launched on an explicit stream

    @property
    def host_arrays(self) -> List[Arg]:
        """Arguments known to be host arrays: numba-cuda copies them both ways and waits. A CUDA
        ufunc given a device array too keeps its result on the device: it uploads the host ones
        and neither copies back nor waits for the kernel (``deviceufunc``): none counts."""
        if self.detail.get("ufunc") and any(arg.array and arg.where == "device" for arg in self.args):
            return []
        return [arg for arg in self.args if arg.array and arg.where == "host" and arg.library != "torch"]

    @property
    def signature(self) -> Optional[str]:
        texts = [a.type for a in self.args]
        if any(t is None for t in texts):
            return None
        return f"void({', '.join(texts)})"  # type: ignore[arg-type]


def _bound_args(args: Sequence[Arg], binding: Dict[str, object]) -> Tuple[Arg, ...]:
    """A callee's launch arguments as one call binds them: a parameter takes what the call
    passes where that tells more (a host or device array: the caller's local is known where the
    union over every caller is not), staying a parameter (bound by a caller, not the callee); a
    spread of the callee's ``*args`` becomes the call's extra arguments. A parameter the call
    does not bind is no longer one the next caller out could bind."""
    bound: List[Arg] = []
    for arg in args:
        given = binding.get(arg.via) if arg.via else None
        if arg.via.startswith("*") and isinstance(given, tuple):
            bound.extend(replace(g, parameter=True) for g in given)
        elif isinstance(given, Arg) and (given.array or given.where or given.via):
            bound.append(replace(arg, type=given.type or arg.type, where=given.where or arg.where,
                                 name=given.name, array=given.array or arg.array,
                                 library=given.library or arg.library, dtype=given.dtype or arg.dtype,
                                 via=given.via, optional=given.optional if given.type else arg.optional))
        else:
            bound.append(replace(arg, via=""))
    return tuple(bound)


@dataclass
class HostFacts:
    path: str
    language: str = "python"
    events: List[Event] = field(default_factory=list)
    loops: Dict[int, Loop] = field(default_factory=dict)
    # function -> (end, start) name pairs of `end - start` subtractions in it (timing intervals)
    intervals: Dict[str, Set[Tuple[str, str]]] = field(default_factory=dict)
    names: Dict[str, str] = field(default_factory=dict)  # function -> its source name, where they differ
    rebound: Dict[str, Set[str]] = field(default_factory=dict)  # function -> names and `self.x` it assigns
    # the pools the file sets up: "numba" (an EMM plugin: cuda.set_memory_manager or
    # NUMBA_CUDA_MEMORY_MANAGER), "cupy-off" (cupy.cuda.set_allocator(None): CuPy without its pool)
    pools: Set[str] = field(default_factory=set)
    # module-level names' types (static_types values) and dtype aliases (str), for the files importing them
    globals: Dict[str, object] = field(default_factory=dict, repr=False, compare=False)
    # each class's attributes and where the arrays assigned to them live ({(where, library)}),
    # and its bases as (path, class name): a subclass elsewhere may move its base's arrays
    class_places: Dict[str, Dict[str, Set[Tuple[str, str]]]] = field(default_factory=dict, repr=False,
                                                                     compare=False)
    class_bases: Dict[str, List[Tuple[str, str]]] = field(default_factory=dict, repr=False, compare=False)
    # each class's attributes' types (static_types values): `grid.E` of an object of it in another file
    class_attributes: Dict[str, Dict[str, object]] = field(default_factory=dict, repr=False, compare=False)
    # what the file's functions store in objects of a class (its path, name) their parameters
    # hold (`def to_gpu(sim): sim.d_u = ...`), attribute by attribute: that class's file calls them
    stored_through: Dict[Tuple[str, str], Dict[str, object]] = field(default_factory=dict, repr=False,
                                                                     compare=False)

    # a class's attributes whose types depend on its mode (another attribute's value): per
    # world (((attr, "None" | "== v" | "true"), holds), ...), those attributes' types in it
    class_modes: Dict[str, List[Tuple[tuple, Dict[str, object]]]] = field(default_factory=dict, repr=False,
                                                                            compare=False)

    def types(self) -> tuple:
        """What another file's reading may take from these facts (its types, callers, classes)."""
        return (self.globals, self.class_attributes, self.class_bases, self.class_places, self.outgoing,
                self.class_modes, self.stored_through, self.outgoing_variants)
    # calls of other files' functions and classes: (their path, qualified name) -> the argument
    # types of each call ([positional], {keyword}); parameter types flow across the package
    outgoing: Dict[Tuple[str, str], List[Tuple[list, dict]]] = field(default_factory=dict, repr=False,
                                                                      compare=False)
    # the same calls as a function makes them once per call of it from another file, where its
    # callers pass different types (a test passing arrays it allocates, a layer passing what it
    # is given): each such chain of calls is a launch's types, not a vote on one parameter type
    outgoing_variants: Dict[Tuple[str, str], List[Tuple[list, dict]]] = field(default_factory=dict, repr=False,
                                                                               compare=False)
    # the project classes the file names as values (`TensorBackend(CudaOps)`, `ops = A if gpu else B`),
    # each (its file, its name): which of a class-made function's alternatives its own loops may run
    classes_held: Set[Tuple[str, str]] = field(default_factory=set, repr=False, compare=False)
    # launches of a kernel a function is given as a parameter (`def run(kernel, x): kernel[g, b](x)`),
    # one per call of that function here that passes a kernel: what they give signatures, not events
    passed_launches: List[Launch] = field(default_factory=list, repr=False, compare=False)
    # each function's parameters as a call binds them: (positional names after the object a
    # method is called on, the name of its `*args` or "", every name a keyword may give)
    parameters: Dict[str, Tuple[Tuple[str, ...], str, Tuple[str, ...]]] = field(default_factory=dict, repr=False,
                                                                              compare=False)
    # generator functions -> the lines (first, last) of their loops that hold a `yield`
    yielding: Dict[str, List[Tuple[int, int]]] = field(default_factory=dict, repr=False, compare=False)
    _blocks: Dict[int, bool] = field(default_factory=dict, repr=False, compare=False)
    _by_function: Dict[str, List[Event]] = field(default_factory=dict, repr=False, compare=False)
    _indexed: int = field(default=-1, repr=False, compare=False)
    _expanded: Dict[str, List[Event]] = field(default_factory=dict, repr=False, compare=False)
    # what each rule asks again and again, expanded once: a function's events from the top (no
    # caller), a loop's, one of its functions' as other files' calls see them
    _whole: Dict[str, List[Event]] = field(default_factory=dict, repr=False, compare=False)
    _in_loop: Dict[int, List[Event]] = field(default_factory=dict, repr=False, compare=False)
    _foreign: Dict[str, List[Event]] = field(default_factory=dict, repr=False, compare=False)
    _launching: Dict[int, bool] = field(default_factory=dict, repr=False, compare=False)
    _carrying: Dict[int, bool] = field(default_factory=dict, repr=False, compare=False)
    _raising: Dict[int, List[Event]] = field(default_factory=dict, repr=False, compare=False)
    _stopping: Dict[int, bool] = field(default_factory=dict, repr=False, compare=False)
    # another file's facts by its path, for its functions this file's calls run (the reader
    # sets it; None: calls into other files are not followed); not pickled
    elsewhere: Optional[Callable[[str], Optional["HostFacts"]]] = field(default=None, repr=False, compare=False)

    def __getstate__(self) -> dict:
        return {**self.__dict__, "elsewhere": None}

    def name_of(self, function: str) -> str:
        return self.names.get(function, function)

    @property
    def launches(self) -> List[Launch]:
        return [e for e in self.events if isinstance(e, Launch)]

    def events_in(self, loop: int, kinds: Sequence[str] = ()) -> List[Event]:
        """Events inside a loop, directly or through calls made in it (of this file's functions
        and, where the reader can read them, other files'), in the order they run."""
        self._index()
        inside = self._in_loop.get(loop)
        if inside is None:
            inside = self._in_loop[loop] = self.expand([e for e in self.events if loop in e.loops])
        return [e for e in inside if not kinds or e.kind in kinds]

    def expanded_function(self, function: str) -> List[Event]:
        """A function's events expanded through its calls, as from its own caller (once: every
        rule reads them)."""
        own = self.of_function(function)
        whole = self._whole.get(function)
        if whole is None:
            whole = self._whole[function] = self.expand(own)
        return whole

    def expand(self, events: Sequence[Event], _callers: Tuple[Tuple[str, str], ...] = ()) -> List[Event]:
        """Events with each call followed by its callee's events (expanded in turn; recursion
        and calls deeper than 8 left out), each at its call site's rate followed by its own
        (``Rate.through``) and the calls that lead to it (``Event.calls``: a finding about
        what a function does on each step belongs at its call in the step loop)."""
        found: List[Event] = []
        for event in events:
            found.append(event)
            if event.kind != "call":
                continue
            callee = str(event.detail.get("callee", ""))
            path = str(event.detail.get("path", "")) or self.path
            key = (path, callee)
            if key in _callers or len(_callers) >= 8:
                continue
            inner = self._callee_events(path, callee, _callers + (key,))
            if len(inner) > MAX_EXPANDED:
                continue  # (a whole simulation's step, its calls' calls copied at each call: unknown, silent)
            binding = self._binding(event, path, callee)
            omitted = self._omitted(event, path, callee, binding)
            for e in inner:
                if omitted and set((e.calls[0] if e.calls else e).detail.get("needs", ())) & omitted:
                    continue  # (the call leaves out what the callee indexes on the way: it raises first)
                rate = event.rate.through(e.rate) if event.rate is not None and e.rate is not None else None
                if isinstance(e, Launch) and any(a.via for a in e.args):
                    e = replace(e, args=_bound_args(e.args, binding))
                if isinstance(e, Launch) and isinstance(binding.get(e.what), Arg) and not e.calls:
                    e = replace(e, what=binding[e.what].name)  # `kernel[g, b](...)` of the kernel the call names
                if e.detail.get("via"):  # the callee's array parameter: a cost where this call passes a device array
                    arg = binding.get(str(e.detail["via"]))
                    if not isinstance(arg, Arg) or arg.where not in ("device", "") or arg.library not in ("numba", ""):
                        continue
                    if arg.where == "" and not (arg.parameter and arg.name.isidentifier()):
                        continue  # unknown here, and not this caller's own parameter either
                    e = replace(e, detail={**e.detail, "via": "" if arg.where == "device" else arg.name})
                found.append(replace(e, rate=rate, calls=(event,) + e.calls))
        return found

    def parameters_of(self, call: Event) -> Tuple[str, ...]:
        """The positional parameters of the function ``call`` runs (after the object a method is
        bound to), in order; () where that function's facts are not at hand."""
        path = str(call.detail.get("path", "")) or call.place.path
        spec = self._parameters_in(path, str(call.detail.get("callee", "")))
        return tuple(spec[0]) if spec is not None else ()

    def own_events(self, path: str, function: str) -> List[Event]:
        """The events of ``function`` of the file at ``path`` itself (not what its calls do)."""
        facts = self if path == self.path else (self.elsewhere(path) if self.elsewhere is not None else None)
        return facts.of_function(function) if facts is not None else []

    def binding_of(self, call: Event) -> Dict[str, object]:
        """What ``call`` passes to each parameter of the function it runs (see ``_binding``)."""
        return self._binding(call, str(call.detail.get("path", "")) or call.place.path, str(call.detail.get("callee", "")))

    def _binding(self, call: Event, path: str, callee: str) -> Dict[str, object]:
        """What ``call`` passes to each parameter of ``callee`` (an :class:`Arg`; for its
        ``*args``, a tuple of them), as far as the call's arguments can be told one by one."""
        passed = call.detail.get("passed")
        spec = self._parameters_in(path, callee)
        if not isinstance(passed, tuple) or spec is None:
            return {}
        positional, keywords = passed
        names, vararg, every = spec
        binding: Dict[str, object] = {}
        for name, arg in zip(names, positional):
            binding[name] = arg
        extra = tuple(positional[len(names):])
        if vararg:
            binding["*" + vararg] = extra
        elif extra:
            return {}  # more arguments than the function takes: not this function's call as read
        for name, arg in keywords.items():
            if name in every:
                binding[name] = arg
        return binding

    def _parameters_in(self, path: str, function: str):
        """The parameters of a function of the file at ``path`` (``parameters``), None where its
        facts are not at hand."""
        facts = self if path == self.path else (self.elsewhere(path) if self.elsewhere is not None else None)
        return facts.parameters.get(function) if facts is not None else None

    def _omitted(self, call: Event, path: str, callee: str, binding: Dict[str, object]) -> Set[str]:
        """The parameters of ``callee`` that ``call`` surely leaves at their defaults: none where
        its arguments cannot be told one by one (a spread, ``**kw``, a method called through its class)."""
        passed = call.detail.get("passed")
        spec = self._parameters_in(path, callee)
        if not isinstance(passed, tuple) or spec is None or not binding and (passed[0] or passed[1]):
            return set()
        if any(isinstance(arg, Arg) and arg.name.startswith("*") for arg in passed[0]):
            return set()
        names, vararg, every = spec
        return set(every) - set(binding) - ({vararg} if vararg else set())

    def _callee_events(self, path: str, callee: str, callers: Tuple[Tuple[str, str], ...]) -> List[Event]:
        """A callee's events, expanded, at its own rates; a callee that is a whole computation
        (it launches in a loop of its own, not only in loops of pieces of one call's work:
        batches of the bodies, launch configurations) has what it does outside its loops marked
        ``hoisted``: already out of its steps, whatever loop calls it."""
        if path == self.path:
            own = self.of_function(callee)  # (re)index first: it clears what was expanded before
            expanded = self._expanded.get(callee)
            if expanded is None:
                expanded = self._expanded[callee] = self._hoisted(callee, self.expand(own, callers), own)
            return expanded
        other = self.elsewhere(path) if self.elsewhere is not None else None
        if other is None:
            return []
        return other.exported(callee, callers)

    def exported(self, callee: str, callers: Tuple[Tuple[str, str], ...] = ()) -> List[Event]:
        """A function's events as another file's call sees them, expanded once for every file
        that calls it (not again at each call: a step method calling methods that call others
        across a package is otherwise expanded again at every call, exponentially)."""
        self._index()
        found = self._foreign.get(callee)
        if found is None:
            # another file's loops are not these facts' loops: their levels keep kind, place and trips
            found = [replace(e, rate=Rate(tuple(replace(level, loop=None) for level in e.rate.levels))
                             if e.rate is not None else None)
                     for e in self._callee_events(self.path, callee, callers)]
            self._foreign[callee] = found
        return found

    def _hoisted(self, callee: str, expanded: List[Event], own: List[Event]) -> List[Event]:
        def entry(e: Event) -> Event:  # the callee's own statement that runs it: itself, or its call there
            return e.calls[0] if e.calls and e.calls[0].function == callee else e

        if any(e.kind == "launch" and any(n not in self.loops or self.loops[n].frequency not in _PIECES
                                           for n in e.loops) for e in own):
            outside = [e.function == callee and not e.loops for e in expanded]
        elif any(e.kind == "launch" and any(n in self.loops and self.loops[n].frequency in ("step", "few")
                                            for n in entry(e).loops) for e in expanded):
            # it steps through calls made in a loop of steps of its own (`sim.step(n)`, `n` a
            # parameter with a small default reads as a few): what the calls made outside that
            # loop do (send the data to the GPU before, back after) is once per run of n steps
            outside = [not entry(e).loops for e in expanded]
        else:
            return expanded
        return [replace(e, detail={**e.detail, "hoisted": True}) if out else e for e, out in zip(expanded, outside)]

    def stepping(self, kinds: Sequence[str] = ()) -> Iterator[Tuple[Event, Level, Loop]]:
        """Events that run on every iteration of a step loop of this file that launches
        kernels (``Rate.every_step``), directly or through calls, each once (by its place and
        the call it is reached through), with that loop's level and :class:`Loop`; what a
        whole computation called in the loop does outside its own loops is left out."""
        seen = set()
        for function in sorted({e.function for e in self.events}):
            for event in self.expanded_function(function):
                if kinds and event.kind not in kinds:
                    continue
                level = self.step_level(event.rate) if event.rate is not None else None
                if level is None or level.loop is None or event.detail.get("hoisted"):
                    continue
                call = event.call_in(self.loops[level.loop].function)
                key = (event.place, call.place if call is not None else None)
                if key in seen or not self.launches_in(level.loop):
                    continue
                if self._amortised(level.loop, call.loops if call is not None else event.loops):
                    continue
                if self._cannot_repeat(event, level.loop) or self._stops_before(level.loop):
                    continue
                if any(tuple(c.detail.get("made_by", ())) not in self.classes_held
                       for c in event.calls if c.detail.get("made_by")):
                    # one of several functions an attribute holds, made by a class some object was
                    # given: which class this loop's objects were given is decided where the class
                    # is passed; where this file passes none of its classes, unknown (silent)
                    continue
                seen.add(key)
                yield event, level, self.loops[level.loop]

    def step_level(self, rate: Rate) -> Optional[Level]:
        """``rate.step_loop``, with this file's loops over a generator's blocks (``yields_blocks``)
        read as sweeps: a statement in one runs once per block of device steps."""
        level = rate.step_loop
        if level is None or not any(lv.loop is not None and self.yields_blocks(lv.loop) for lv in rate.levels):
            return level
        return Rate(tuple(replace(lv, kind="sweep") if lv.loop is not None and self.yields_blocks(lv.loop) else lv
                          for lv in rate.levels)).step_loop

    def yields_blocks(self, loop: int) -> bool:
        """Whether a ``for`` loop iterates what a generator yields (``for block in
        sim.run_timeblocks():``) where the generator runs device work in the loop that holds its
        ``yield`` (it launches there, or waits on or times the device: a kernel reached through
        what the reader cannot follow): each item is a block of device work (many launches, or
        one of many steps), and the loop's body runs once per block, as periodic output does. A
        generator that only uploads each batch it yields (a data loader) is not one."""
        known = self._blocks.get(loop)
        if known is None:
            known = self._blocks[loop] = self._generator_blocks(self.loops[loop])
        return known

    def _generator_blocks(self, loop: Loop) -> bool:
        if loop.kind != "for":
            return False
        for call in self.of_function(loop.function):
            if call.kind != "call" or call.place.line != loop.place.line or loop.id in call.loops:
                continue
            callee, path = str(call.detail.get("callee", "")), call.detail.get("path")
            owner = self if not path else self.elsewhere(str(path)) if self.elsewhere is not None else None
            spans = owner.yielding.get(callee, []) if owner is not None else []
            if not spans:
                continue
            for event in owner.expanded_function(callee):
                entry = event.call_in(callee) or event
                if event.kind in _DEVICE_WORK and any(first <= entry.place.line <= last for first, last in spans):
                    return True
        return False

    def _cannot_repeat(self, event: Event, loop: int) -> bool:
        """Whether an iteration of ``loop`` around ``event`` (the step loop, or a loop inside it
        that holds the event) always raises before it ends: a call or launch on the way runs
        unconditionally in it and cannot bind its arguments (``raises``), and no ``try`` around a
        call on the way can catch it. Then the loop never reaches a second iteration."""
        entry = event.call_in(self.loops[loop].function)
        path = entry.loops if entry is not None else event.loops
        around = [loop] + [number for number in path if number in self.loops and self._within(self.loops[number], loop)]
        raising = self._raising.get(loop)
        if raising is None:  # (the step loop's events, expanded once already: inner loops' are among them)
            raising = self._raising[loop] = [e for e in self.events_in(loop) if e.detail.get("raises") and not any(
                c.detail.get("tried") for c in e.calls)]
        return any(self.unconditional(e, number) for e in raising for number in around)

    def _stops_before(self, loop: int) -> bool:
        """Whether the function of ``loop`` raises before reaching it on every call: a statement of
        its own body above the loop, outside any loop and branch, that cannot bind its arguments
        (``raises``: ``cuda.to_device(x, dtype=...)``, a kernel given too many). The loop never runs."""
        known = self._stopping.get(loop)
        if known is None:
            node = self.loops[loop]
            known = self._stopping[loop] = any(
                e.detail.get("raises") and not e.loops and e.place.path == node.place.path
                and e.place.line < node.place.line and e.rate is not None
                and all(level.place == "every" and level.kind == "body" for level in e.rate.levels)
                for e in self.of_function(node.function))
        return known

    def unconditional(self, event: Event, loop: int) -> bool:
        """Whether ``event`` runs whenever an iteration of ``loop`` does: every level from that
        loop inwards is the loop's own or a called function's body, each at ``every``."""
        levels = event.rate.levels if event.rate is not None else ()
        index = next((i for i, level in enumerate(levels) if level.loop == loop), None)
        return index is not None and all(level.place == "every" and (i == index or level.kind == "body")
                                         for i, level in enumerate(levels[index:], index))

    def _amortised(self, loop: int, path: Sequence[int]) -> bool:
        """Whether what runs once per iteration of ``loop`` (on the way ``path``: the loops around
        it in that loop's function) is spread over a loop of steps nested in ``loop`` beside it:
        an evaluation once per epoch, after the epoch's batch loop. Per step it is a fraction."""
        # (a nested loop the reader calls a step by its code is already the step, its outer loop
        # a run of it; a name like `for step in ...` over streams is no evidence)
        for inner in self.loops.values():
            if inner.id in path or inner.kind == "comprehension" or not self._within(inner, loop):
                continue
            if self._carries_state(inner):
                return True
        return False

    def _within(self, inner: Loop, loop: int) -> bool:
        parent = inner.parent
        while parent is not None and parent != loop:
            parent = self.loops[parent].parent
        return parent == loop

    def _carries_state(self, inner: Loop) -> bool:
        """Iterations that carry the object's state on the device: the methods of its own class a
        loop calls launch two kernels on one ``self.<attr>`` (weights one batch updates and the
        next reads), so each iteration is a step, whatever it is a piece of (batches of a data set)."""
        known = self._carrying.get(inner.id)
        if known is None:
            known = self._carrying[inner.id] = self._shares_own_state(inner)
        return known

    def _shares_own_state(self, inner: Loop) -> bool:
        owner = inner.function.rsplit(".", 1)[0] + "." if "." in inner.function else ""
        if not owner:
            return False
        users: Dict[str, Set[Place]] = {}
        for event in self.events_in(inner.id, ("launch",)):
            entry = event.call_in(inner.function)
            if entry is None or not all(str(c.detail.get("callee", "")).startswith(owner) and not c.detail.get("path")
                                        for c in event.calls[event.calls.index(entry):]):
                continue
            for arg in getattr(event, "args", ()):
                base = arg.name.split("[", 1)[0].split("(", 1)[0]
                if base.startswith("self.") and base.count(".") == 1:
                    users.setdefault(base, set()).add(event.place)
        return any(len(places) > 1 for places in users.values())

    def timed_alone(self, event: Event, loop: Loop) -> bool:
        """Whether ``event``, a statement of its loop's own function, is what a wall-clock
        interval there times (``t = time()``; ``u = cp.asarray(u)``; ``times.append(time() - t)``):
        the interval's start and end stamps are the nearest around it, in the same loops, and no
        other host fact lies between them. The cost is what the code measures, not a loss. (A
        call timed alone, `sim.step()`, times the step: what the step wastes is still lost.)"""
        if event.function != loop.function or event.call_in(loop.function) is not None:
            return False
        own = event
        clocks = [e for e in self.of_function(own.function) if e.kind == "clock" and e.loops == own.loops]
        before = [c for c in clocks if c.place.line < own.place.line and c.detail.get("assigned")]
        after = [c for c in clocks if c.place.line > own.place.line and c.detail.get("minus")]
        if not before or not after:
            return False
        start = max(before, key=lambda c: c.place.line)
        end = min(after, key=lambda c: c.place.line)
        if end.detail.get("minus") not in start.detail.get("assigned", ()):
            return False
        return all(e.place.line == own.place.line for e in self.of_function(own.function)
                   if start.place.line < e.place.line < end.place.line)

    def reported_at(self, event: Event, loop: Loop) -> Optional[Event]:
        """The call in ``loop`` where a finding about ``event`` (on every step) belongs, or None
        for the event's own line (it is the loop's function's own). What a function called in
        the step loop does is a cost of that call: the call is what runs on each step, the
        callee may be called from elsewhere where it costs nothing, and the fix (hoist, pass a
        buffer in) is made where the call is; the finding names the callee's line."""
        return event.call_in(loop.function)

    def launches_in(self, loop: int) -> bool:
        known = self._launching.get(loop)
        if known is None:
            known = self._launching[loop] = any(e.kind == "launch" for e in self.events_in(loop))
        return known

    def of_function(self, function: str) -> List[Event]:
        self._index()
        return self._by_function.get(function, [])

    def _index(self) -> None:
        if self._indexed != len(self.events):  # events were added since the last index: index again
            self._by_function = {}
            for event in self.events:
                self._by_function.setdefault(event.function, []).append(event)
            self._indexed = len(self.events)
            self._expanded, self._whole, self._in_loop, self._foreign = {}, {}, {}, {}
            self._launching = {}
            self._carrying = {}
            self._raising = {}
            self._stopping = {}
            self._blocks = {}
