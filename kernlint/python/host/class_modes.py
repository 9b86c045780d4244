"""Class modes: a class whose attributes' types depend on another attribute's value (``if
self.V is None: self.C = ... complex ... else: ... float ...``), its ``__init__`` and the
methods that store attributes read again in each world of its mode tests (``modes`` says
what those are), and a launch's arguments in each world the tests around it allow. May import
the rest of ``kernlint.python`` and ``analysis.host``.

The reading again is the statement interpreter's: asked through a ``ModeContext``.
"""

from __future__ import annotations

import ast
from typing import Dict, List, Optional, Protocol, Tuple

from ...analysis.host import Arg, HostFacts
from ..project import Project
from ..static_types import TypeReader, instance_of
from ..syntax import FunctionNode, PyModule, walk_nodes
from . import modes
from .attributes import ClassAttributes
from .branches import tests_above
from .frames import Frame
from .launches import launch_arg


class ModeContext(Protocol):
    """What reading a class's modes asks of the reading of its file."""

    def module_frame(self) -> Optional[Frame]:
        """The module's frame in the pass being read (None before the first)."""

    def read_worlds(self, worlds, tests: Dict[int, tuple], klass: str, methods: List[FunctionNode], outer: Frame
                    ) -> List[Tuple[tuple, Dict[str, object]]]:
        """The class's methods read again in each world: what they store in it."""

    def facts_of(self, path: str) -> Optional[HostFacts]:
        """Another file's host facts (its classes' modes), read for this one's sake."""


class ClassModes:
    """The modes of the classes of one file (``module``), from what ``attributes`` holds."""

    def __init__(self, project: Project, module: PyModule, attributes: ClassAttributes, context: ModeContext):
        self.project = project
        self.module = module
        self._attrs = attributes
        self._context = context
        self._modes: Dict[str, list] = {}  # class -> its modes, as `HostFacts.class_modes`

    def of(self, klass: str) -> list:
        """A class's attributes that one reading leaves unknown (``_CONFLICTING``: a real array
        on one side of ``if V is None or V == 0``, a complex one on the other), read in each
        world of its methods' tests on its own attributes (``modes``): its ``__init__``, then
        its other methods that store attributes (``send_to_gpu``), in each world. [(world,
        {attr: type})]; [] where it has none. A class of this file, at module level."""
        if klass in self._modes:
            return self._modes[klass]
        self._modes[klass] = []  # (while it is being read)
        node = next((s for s in self.module.tree.body if isinstance(s, ast.ClassDef) and s.name == klass), None)
        module_frame = self._context.module_frame()
        if node is None or module_frame is None or not self._attrs.conflicting(klass):
            return []
        defined = [s for s in node.body if isinstance(s, ast.FunctionDef) and s.args.args and not s.decorator_list]
        init = [s for s in defined if s.name == "__init__"]
        if not init:
            return []
        methods = init + [s for s in defined if s.name != "__init__" and any(
            isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Store) and isinstance(sub.value, ast.Name)
            and sub.value.id == s.args.args[0].arg for sub in walk_nodes(s))]
        tests: Dict[int, tuple] = {}
        for method in methods:
            own = method.args.args[0].arg
            subject_of = modes.attribute_of(own, modes.stored_aliases(method, own))
            tests.update(self.project.memo("mode tests", method, lambda: modes.tests(method, subject_of)))
        atoms: List[modes.Atom] = []
        for test in tests.values():
            modes.atoms(test, atoms)
        if not atoms:
            return []
        outer = Frame(None, klass, module_frame.scope, {}, module_frame, klass, owner_node=node)
        readings = self._context.read_worlds(modes.worlds(atoms[:modes.MAX_ATOMS]), tests, klass, methods, outer)
        # what the one reading types stays as it is; the rest, where a world types it
        # (`self.d_C = cupy.asarray(self.C)` of a conflicting `self.C`: an array of no known dtype)
        unknown = {attr for _, stored in readings for attr, kind in stored.items()
                   if getattr(kind, "text", None) and not getattr(self._attrs.types.get((klass, attr)), "text", None)}
        if not unknown:
            return []
        self._modes[klass] = found = [(world, {attr: kind for attr, kind in stored.items() if attr in unknown})
                                      for world, stored in readings]
        return found

    def launch_arguments(self, call: ast.Call, args: List[Arg], frame: Frame, reader: TypeReader,
                         statement: Optional[ast.stmt]) -> List[Tuple[Arg, ...]]:
        """A launch whose unknown arguments are attributes of one object of a class with modes
        (``ps.d_j_coef``): its arguments in each world of that class that the tests around the
        launch (in ``statement``, read in ``frame`` with ``reader``) allow (``if ps.V is
        None:``), where the world types them all."""
        unknown = [index for index, arg in enumerate(args) if arg.type is None]
        if not unknown or len(args) != len(call.args) or not all(
                isinstance(call.args[i], ast.Attribute) for i in unknown):
            return []
        objects = {ast.unparse(call.args[i].value) for i in unknown}
        if len(objects) != 1:
            return []
        obj = reader.type_of(call.args[unknown[0]].value)
        place = instance_of(obj) if obj is not None else None
        if place is None:
            return []
        path, klass = place
        if path == self.module.path:
            worlds = self.of(klass)
        else:
            facts = self._context.facts_of(path)
            worlds = facts.class_modes.get(klass, []) if facts is not None else []
        if not worlds:
            return []
        node = frame.function if frame.function is not None else self.module.tree
        around = self.project.memo("conditions", node, lambda: tests_above(node)).get(
            id(statement), ()) if statement is not None else ()
        subject_of = modes.attribute_of(objects.pop())
        guards = [(read, side) for read, side in ((modes.formula(test, subject_of), side) for test, side in around)
                  if read is not None]
        found: List[Tuple[Arg, ...]] = []
        for world, stored in worlds:
            world = dict(world)
            if any(modes.holds(read, world) is (not side) for read, side in guards):
                continue
            typed = list(args)
            for index in unknown:
                kind = stored.get(call.args[index].attr)
                if kind is None:
                    break
                typed[index] = launch_arg(kind, args[index].name, args[index].parameter, made=args[index].made)
            else:
                if tuple(typed) not in found:
                    found.append(tuple(typed))
        return found
