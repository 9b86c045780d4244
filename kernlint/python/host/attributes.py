"""Where arrays live in objects: what the classes of one file store in their objects'
attributes (``self.x = ...``) — each attribute's type, the expression last assigned to it, the
places (host, device; NumPy, CuPy...) of the arrays assigned to it, in this class or in its
subclasses — and each class's bases. May import ``python.static_types`` and ``analysis.host``.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import Callable, Dict, Iterable, List, Optional, Set, Tuple

from ...analysis.host import HostFacts
from ..static_types import ArrayType, ListType, Maybe, Opaque, ScalarType, appended, classes_of
from .branches import UNSET, knowledge, same_type
from .frames import Frame
from ..syntax import walk_nodes

# an attribute assigned values of different numba types: its type is not known
CONFLICTING = Opaque("conflicting")


def is_self_attribute(target: ast.expr, frame: Frame) -> bool:
    return (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"
            and frame.owner is not None)


# a field annotated with one of Python's number types holds that type (a dataclass's
# constructor stores what it is given there): numba's types for Python's numbers
_ANNOTATED_NUMBERS = {"builtins.int": "int64", "builtins.float": "float64", "builtins.bool": "boolean",
                      "builtins.complex": "complex128"}


# an attribute given two different dtypes (`self.dtype = np.float32` in one branch,
# `np.float64` in another): which one a launch runs with is decided at run time
DTYPES_DIFFER = Opaque("dtypes differ")


def class_defaults(klass: ast.ClassDef, env: Dict[str, object],
                   dotted: Callable[[ast.expr], Optional[str]]) -> Dict[str, object]:
    """The numbers a class body binds (``dt = 0.1``, a dataclass's ``num_samples: int = 1000``)
    and the dtypes it names (``dtype = np.float32``, a str: the dtype's name) that none of its
    methods stores in its objects: what its objects hold in those attributes. An annotation
    with a Python number type says the type; a field whose default is None says nothing.
    ``env``: the types the class body's reading gave its names."""
    stored = set()  # `self.<name> = ...` in a method: the object's own value, not the class's
    for method in klass.body:
        if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and method.args.args:
            own = method.args.args[0].arg
            stored.update(node.attr for node in walk_nodes(method) if isinstance(node, ast.Attribute) and isinstance(
                node.ctx, ast.Store) and isinstance(node.value, ast.Name) and node.value.id == own)
    found: Dict[str, object] = {}
    for statement in klass.body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            if isinstance(statement.value, ast.Constant) and statement.value.value is None:
                continue  # `Q: np.ndarray = None`: set later, or left None
            annotated = _ANNOTATED_NUMBERS.get(dotted(statement.annotation) or "")
            kind = ScalarType(annotated) if annotated else env.get(statement.target.id)
            name = statement.target.id
        elif isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(
                statement.targets[0], ast.Name):
            name = statement.targets[0].id
            kind = env.get(name)
        else:
            continue
        if isinstance(kind, (ScalarType, str)) and name not in stored:
            found[name] = kind
    return found


class ClassAttributes:
    """The attributes the classes of the file at ``path`` store, as the reading finds them."""

    def __init__(self, path: str):
        self.path = path
        self.types: Dict[Tuple[str, str], object] = {}  # (class, attr) -> type
        self.exprs: Dict[Tuple[str, str], Tuple[ast.expr, Frame]] = {}  # (class, attr) -> last assigned, where
        # (class, attr) -> (where, library) of each array assigned to it: a class that makes
        # NumPy arrays in __init__ and moves them in send_to_gpu() has both
        self.places: Dict[Tuple[str, str], set] = {}
        self.bases: Dict[str, List[Tuple[str, str]]] = {}  # class -> its bases as (path, name)
        self._subclass_places_seen: Dict[Tuple[str, str], Set[Tuple[str, str]]] = {}
        # while a class's methods are read again in one world of its mode tests (`modes`): the
        # class, and what it stores in that world (instead of the above)
        self.world_class: Optional[str] = None
        self.world_attributes: Optional[Dict[str, object]] = None
        # (class's file, class, attr) -> type: what the file's functions store in the objects
        # their parameters hold (`def to_gpu(sim): sim.d_u = cuda.to_device(sim.u)`, called as
        # `to_gpu(self)`), where the object's class is known
        self.through_parameters: Dict[Tuple[str, str, str], object] = {}

    def new_pass(self) -> None:
        """A new pass over the file: what subclasses store is read again."""
        self._subclass_places_seen = {}

    def store(self, attr: str, kind, value: Optional[ast.expr], frame: Frame) -> None:
        """``self.<attr> = value`` in a method of ``frame.owner`` (``value``: the expression,
        where it is one of its own)."""
        key = (frame.owner, attr)
        if self.world_attributes is not None and frame.owner == self.world_class:
            self.world_attributes[attr] = kind  # one world's reading runs in order: the last wins
            return
        if isinstance(kind, ArrayType):  # where every assignment in the class puts it
            self.places.setdefault(key, set()).add((kind.where, kind.library))
        # the first assignment wins (``__init__`` is read first); the second pass fills in
        # what only calls later in the file made known; two of different numba types (a complex
        # array on one side of an `if`, a float one on the other) leave it unknown
        old = self.types.get(key, UNSET)
        if old is CONFLICTING or old is DTYPES_DIFFER:
            return
        if isinstance(old, str) and isinstance(kind, str) and old != kind:
            self.types[key] = DTYPES_DIFFER
            return
        if isinstance(old, (ArrayType, ScalarType)) and isinstance(kind, (ArrayType, ScalarType)) and (
                old.text and kind.text and old.text != kind.text):
            self.types[key] = CONFLICTING
            return
        held = old.value if isinstance(old, Maybe) else None
        if isinstance(held, ArrayType) and isinstance(kind, ArrayType) and held.text and kind.text and \
                held.text != kind.text:  # `None` first, then arrays of two types: neither is the one
            self.types[key] = CONFLICTING
            return
        merged = same_type(old, kind) if isinstance(old, Maybe) and kind is not None else None
        if merged is None and old is not UNSET and old != kind and classes_of(old) and classes_of(kind):
            # `self.tool = CpuTool(self)` on one side of a mode test, `GpuTool(self)` on the other:
            # an object of either class, whose methods run either's
            merged = same_type(old, kind)
        if merged is not None:  # `self.ionizer = None`, later an object: None or that object
            kind = merged
        # (a number more known than a dict is another value, not the same one better known)
        if old is UNSET or knowledge(kind) > knowledge(old) and (old is None or type(old) is type(kind)) or (
                merged is not None and merged != old):
            self.types[key] = kind
            if value is not None:
                self.exprs[key] = (value, frame)

    def store_through(self, where: Tuple[str, str], attr: str, kind) -> None:
        """``obj.<attr> = value`` in a function of the file, ``obj`` an object of the class at
        ``where`` (path, class): its first known type; two of different numba types: unknown."""
        key = (*where, attr)
        old = self.through_parameters.get(key)
        if old is CONFLICTING or kind is None:
            return
        if isinstance(old, (ArrayType, ScalarType)) and isinstance(kind, (ArrayType, ScalarType)) and (
                old.text and kind.text and old.text != kind.text or old.dtype != kind.dtype):
            self.through_parameters[key] = CONFLICTING
        elif old is None or knowledge(kind) > knowledge(old):
            self.through_parameters[key] = kind

    def stored_through(self, where: Tuple[str, str], attr: str):
        """What the file's functions store in ``<attr>`` of objects of the class at ``where``; None: nothing."""
        value = self.through_parameters.get((*where, attr))
        return None if value is CONFLICTING else value

    def append(self, key: Tuple[str, str], kind) -> None:
        """A list attribute given an item of this type (None: unknown, so mixed)."""
        if isinstance(self.types.get(key), ListType):
            self.types[key] = appended(self.types[key], kind)

    def stored(self, key: Tuple[str, str], elsewhere: Set[Tuple[str, str]]):
        """What a class of this file stores in an attribute; an array it (or, ``elsewhere``,
        a subclass) puts in more than one place lives where reading cannot say."""
        value = self.types.get(key)
        if isinstance(value, ArrayType) and len(self.places.get(key, set()) | elsewhere) > 1:
            return replace(value, where="", library="")
        if isinstance(value, Maybe) and isinstance(value.value, ArrayType) and (
                len(self.places.get(key, set()) | elsewhere) != 1):  # (None, or arrays in several places)
            return replace(value, value=replace(value.value, where="", library=""))
        return value

    def conflicting(self, klass: str) -> bool:
        """Whether one of the class's attributes was assigned arrays of different types."""
        return any(owner == klass and value is CONFLICTING for (owner, attr), value in self.types.items())

    def subclasses_here(self, klass: str) -> List[str]:
        """The classes of this file that derive from ``klass`` (a class of this file), at any depth."""
        found: List[str] = []
        frontier = {(self.path, klass)}
        while frontier:
            derived = [name for name, bases in self.bases.items()
                       if name not in found and any(base in frontier for base in bases)]
            found.extend(derived)
            frontier = {(self.path, name) for name in derived}
        return found

    def subclass_places(self, key: Tuple[str, str],
                        importers: Optional[Callable[[str], Iterable[HostFacts]]]) -> Set[Tuple[str, str]]:
        """Where the subclasses of a class, in this file or (``importers``: the facts of the
        files that import this one and name the class; None: none asked) others of the
        project, put an attribute's arrays (``GpuSim(Sim)`` moving ``self.x`` to the GPU)."""
        if key in self._subclass_places_seen:
            return self._subclass_places_seen[key]
        owner, attr = key
        self._subclass_places_seen[key] = found = set()
        for sub, bases in self.bases.items():
            if (self.path, owner) in bases:
                found |= self.places.get((sub, attr), set())
        if importers is None or "." in owner:
            return found
        for facts in importers(owner):
            for sub, bases in facts.class_bases.items():
                if (self.path, owner) in bases:
                    found |= facts.class_places.get(sub, {}).get(attr, set())
        return found

    def saved(self) -> tuple:
        """What a reading done again (for its launches' signatures alone) may change."""
        return (dict(self.types), dict(self.exprs), {key: set(places) for key, places in self.places.items()},
                dict(self.through_parameters))

    def restore(self, saved: tuple) -> None:
        self.types, self.exprs, self.places, self.through_parameters = saved

    def finish(self, facts: HostFacts) -> None:
        """The file's facts of its classes: where each attribute's arrays live, the bases, the types."""
        for (owner, attr), places in self.places.items():
            facts.class_places.setdefault(owner, {})[attr] = set(places)
        facts.class_bases = dict(self.bases)
        for (path, owner, attr), value in self.through_parameters.items():
            if value is not CONFLICTING:
                facts.stored_through.setdefault((path, owner), {})[attr] = value
        for owner, attr in self.types:
            facts.class_attributes.setdefault(owner, {})[attr] = self.stored((owner, attr), set())
