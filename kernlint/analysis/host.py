"""Host facts: what the code around the kernels does, the same for every language.

A host reader (``python.host`` for Python, ``hip.host_reader`` for HIP C++'s host
IR) reduces a file to these facts, each with its source location: kernel launches and
what they pass, device allocations and frees, operations that block the host, loops and
what runs in them (directly or through a call in the same file), clock reads. The host
rules (KL501–KL504) are each one piece of logic over them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Set, Tuple


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


@dataclass(frozen=True)
class KernelRef:
    """The kernel a launch starts: its file and qualified name."""

    path: str
    qualname: str


@dataclass
class Loop:
    id: int
    place: Place
    kind: str  # for | while | comprehension
    function: str  # the qualified name of the function it is in ("" at module level)
    parent: Optional[int] = None
    varying: Set[str] = field(default_factory=set)  # names that change from one iteration to the next
    targets: Set[str] = field(default_factory=set)  # a for loop's own variables (`frame` in `for frame in frames`)
    deciding: Set[str] = field(default_factory=set)  # names its condition or a `break` reads
    rebound: Set[str] = field(default_factory=set)  # names and `self.x` attributes assigned whole in it
    # why it is a loop of pieces rather than of steps ("" for a step loop): "devices" (one
    # iteration per GPU), "sizes" (its variable becomes an allocation's size: a sweep),
    # "parts" (a fixed list of cases, or launches on the piece its variable indexes: modes)
    # or "cases" (a loop in a test function or a test class: its iterations are test cases)
    pieces: str = ""


@dataclass
class Event:
    """Something host code does at one place."""

    kind: str  # launch | alloc | free | sync | copy-back | clock | call
    place: Place
    function: str  # where it happens ("" at module level)
    loops: Tuple[int, ...]  # the loops around it in its function, outermost first
    what: str = ""  # e.g. numba.cuda.device_array, numba.cuda.synchronize
    detail: Dict[str, object] = field(default_factory=dict)


@dataclass
class Launch(Event):
    kernel: Optional[KernelRef] = None  # None: a launch of something kernlint could not resolve
    args: Tuple[Arg, ...] = ()
    stream: bool = False  # launched on an explicit stream

    @property
    def host_arrays(self) -> List[Arg]:
        """Arguments known to be host arrays: numba-cuda copies them both ways and waits."""
        return [arg for arg in self.args if arg.array and arg.where == "host" and arg.library != "torch"]

    @property
    def signature(self) -> Optional[str]:
        texts = [a.type for a in self.args]
        if any(t is None for t in texts):
            return None
        return f"void({', '.join(texts)})"  # type: ignore[arg-type]


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

    # a class's attributes whose types depend on its mode (another attribute's value): per
    # world (((attr, "None" | "== v" | "true"), holds), ...), those attributes' types in it
    class_modes: Dict[str, List[Tuple[tuple, Dict[str, object]]]] = field(default_factory=dict, repr=False,
                                                                            compare=False)

    def types(self) -> tuple:
        """What another file's reading may take from these facts (its types, callers, classes)."""
        return (self.globals, self.class_attributes, self.class_bases, self.class_places, self.outgoing,
                self.class_modes)
    # calls of other files' functions and classes: (their path, qualified name) -> the argument
    # types of each call ([positional], {keyword}); parameter types flow across the package
    outgoing: Dict[Tuple[str, str], List[Tuple[list, dict]]] = field(default_factory=dict, repr=False,
                                                                      compare=False)
    # launches of a kernel a function is given as a parameter (`def run(kernel, x): kernel[g, b](x)`),
    # one per call of that function here that passes a kernel: what they give signatures, not events
    passed_launches: List[Launch] = field(default_factory=list, repr=False, compare=False)
    _by_function: Dict[str, List[Event]] = field(default_factory=dict, repr=False, compare=False)
    _indexed: int = field(default=-1, repr=False, compare=False)
    _expanded: Dict[str, List[Event]] = field(default_factory=dict, repr=False, compare=False)

    def name_of(self, function: str) -> str:
        return self.names.get(function, function)

    @property
    def launches(self) -> List[Launch]:
        return [e for e in self.events if isinstance(e, Launch)]

    def events_in(self, loop: int, kinds: Sequence[str] = ()) -> List[Event]:
        """Events inside a loop, directly or through calls of same-file functions made in it,
        in the order they run."""
        return [e for e in self.expand([e for e in self.events if loop in e.loops]) if not kinds or e.kind in kinds]

    def expand(self, events: Sequence[Event], _callers: Tuple[str, ...] = ()) -> List[Event]:
        """Events with each call of a same-file function followed by that function's events
        (expanded in turn, recursion and calls deeper than 8 left out; each function's
        expansion is made once)."""
        found: List[Event] = []
        for event in events:
            found.append(event)
            if event.kind != "call":
                continue
            callee = str(event.detail.get("callee", ""))
            if callee in _callers or len(_callers) >= 8:
                continue
            expanded = self._expanded.get(callee)
            if expanded is None:
                expanded = self._expanded[callee] = self.expand(self.of_function(callee), _callers + (callee,))
            found.extend(expanded)
        return found

    def of_function(self, function: str) -> List[Event]:
        if self._indexed != len(self.events):  # events were added since the last index: index again
            self._by_function = {}
            for event in self.events:
                self._by_function.setdefault(event.function, []).append(event)
            self._indexed = len(self.events)
            self._expanded = {}
        return self._by_function.get(function, [])

    def hoisted_in_callee(self, event: Event, loop: Loop) -> bool:
        """An event reached through a call from ``loop`` that sits outside the loops of a
        callee with a launch loop of its own: the callee is a whole computation (allocate,
        launch in its loop, copy back), and the event is already hoisted out of its steps."""
        if event.function == loop.function or event.loops:
            return False
        return any(e.kind == "launch" and e.loops for e in self.of_function(event.function))

    def launching_loops(self) -> List[Loop]:
        """Step loops that launch kernels, directly or through the file's functions they call
        (loops of pieces, ``Loop.pieces``, are not steps: docs/host-rules.md)."""
        return [loop for loop in self.loops.values()
                if not loop.pieces and any(e.kind == "launch" for e in self.events_in(loop.id))]
