"""Calls across the project: which of the project's functions, classes or methods a call runs
and what it gives — an object of the class it constructs (a named tuple, an array wrapper), or
the type a helper returns for the call's arguments, read off its assignments and ``return``
statements (kept for the whole project where it reads nothing of the file being read); what
the project's calls pass to a function's parameters; what an attribute of an object of a
project class, or a name imported from another file, holds. May import the rest of
``kernlint.python`` and ``analysis.host``.

What it asks of the reading under way (another file's facts, the module's names as read so
far) goes through a ``CallContext``; what the file's classes store, it reads in ``attributes``.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import ContextManager, Dict, FrozenSet, List, Optional, Protocol, Set, Tuple

from ...analysis.host import HostFacts
from ..project import Project
from ..static_types import (MAX_ALTERNATIVES, NONE, ArrayType, DictType, Instances, ListType, Maybe, Opaque,
                            ProjectClasses, ProjectFunctions, ScalarType, TypeReader, appended, classes_of, held_code,
                            instance, instance_of, list_growth, named_tuple_subclass, unpacked)
from ..syntax import FunctionNode, PyModule, Scope, own_nodes, walk_nodes, wrapped_argument, wrapped_interface
from .attributes import DTYPES_DIFFER, ClassAttributes
from .branches import DEAD, UNSET, agreed_type, either_type, narrowed, same_type, tests_above
from .class_methods import class_method_calls
from .consulted import Uses
from .classes import class_attributes, method_of, property_attribute
from .docstrings import documented_class, documented_types
from .frames import Frame, nested_qualname
from .frequency.syntax import assigned_names
from .functions import (attributes_read, bound_methods, changed_containers, default_of, evident_scalars,
                        memoized_returns, positional_parameters, receiver_of, returned_closure, returned_type,
                        unknown_items)
from .launches import launches_within
from .sites import drives_kernels

MAX_RETURN_DEPTH = 2  # helpers whose return types are read within one another's
MAX_VARIANT_DEPTH = 3  # helpers calling helpers (`_check` calling `_getasm`) read per call
MIN_ATTRIBUTES_READ = 3  # of a parameter, for the one class having them all to type it
MAX_CALLERS_READ = 8  # files asked for a function's or class's callers, reading for another file's sake



def _called_on(kind):
    """The object a method is called on: ``None`` or an object (``self.solver = None`` in
    ``__init__``, an object set later) runs the object's method, since on ``None`` the call
    would raise."""
    return kind.value if isinstance(kind, Maybe) and kind.value is not None else kind


class CallContext(Protocol):
    """What reading a call's result asks of the reading of the file it is in."""

    def facts_of(self, path: str) -> Optional[HostFacts]:
        """Another file's host facts, read for this one's sake."""

    def module_frame(self) -> Optional[Frame]:
        """The module's frame in the pass being read (None before the first)."""

    def uses_captured(self) -> ContextManager[Uses]:
        """What the reading takes from other files' facts inside, collected apart as well."""

    def uses_replayed(self, uses: Uses) -> None:
        """Take again what an earlier reading (``uses_captured``) took."""


class ProjectCalls:
    """The calls of one file (``module``) into the project's own code, the calls of its
    functions from the project, and what objects and modules of the project hold: ``level``:
    how many files deep the reading looks (``read_host``); ``types_only``: read for another
    file's sake; ``gpu_code``: whether types are read across the project at all (code that may
    launch, or read for another file's sake)."""

    def __init__(self, project: Project, module: PyModule, attributes: ClassAttributes, context: CallContext,
                 level: int, types_only: bool, gpu_code: bool):
        self.project = project
        self.module = module
        self._attrs = attributes  # what this file's classes store, as read so far
        self._context = context
        self._level = level
        # the project classes this file names as values, as read so far (``HostFacts.classes_held``)
        self.classes_named: Set[Tuple[str, str]] = set()
        self._types_only = types_only
        self._gpu_code = gpu_code
        self._returning: Set[int] = set()  # helper functions whose return type is being read
        self._returns: Dict[tuple, object] = {}  # (id(function), its arguments' types) -> what it returns
        self._pure: List[bool] = []  # for each return type being read: whether it reads only other files
        self._methods: Dict[int, Optional[Tuple[str, str]]] = {}  # id(call) -> `method_called`, this pass
        self._closures_asked: Set[int] = set()  # the factory calls `_closure_called` is answering

    def new_pass(self) -> None:
        """A new pass over the file: what later methods store in `self` may change what helpers return."""
        self._returns = {}
        self._methods = {}

    def project_call(self, call: ast.Call, module: PyModule, scope: Scope, reader: TypeReader):
        """What a call of the project's own code gives: an object of its class (whose methods'
        parameters then take the argument types), or what its helper function or method
        returns for these arguments (``alloc(n, np.int64)`` -> ``int64[::1]``,
        ``self.comm.divide_into_domain()`` -> a tuple)."""
        target = self.called(call, module, scope, reader)
        if target is None:
            held = self.held_returns(call, reader) if module is self.module else None
            if held is None:
                held = self._aliased_class(call, module, scope)
            return held if held is not None else self._annotated_helper(call, module, scope)
        owner, node, receiver = target
        closure = self.closure_made(owner, node) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
        if closure is not None:  # `ops.zip(mul)`: the function the factory gives back, held as a value
            return ProjectFunctions(frozenset({closure}))
        if isinstance(node, ast.ClassDef):
            wrapped = self.project.memo("wrapped interface", node, lambda: wrapped_interface(node))
            if wrapped is not None:
                return interface_array(call, wrapped, reader)
            named = self.project.memo("named tuple", node, lambda: named_tuple_subclass(
                node, [owner.dotted(base, Scope(owner)) for base in node.bases]))
            if named is not None:
                return named.made(call, reader)
            return instance(owner.path, node.name)
        if not self._gpu_code:
            return None
        returned = self.returned(owner, node, call, reader, receiver) if not any(
            isinstance(a, ast.Starred) for a in call.args) else None
        # else what its annotation says it returns (`def tensor(ls, backend) -> Tensor`): an object of that class
        return returned if returned is not None else self.project.memo(
            "annotated return", node, lambda: annotated_class(self.project, owner, node.returns))

    def _annotated_helper(self, call: ast.Call, module: PyModule, scope: Scope):
        """What a helper defined in the function, reading the enclosing function's names (not
        read through), says it returns: ``def zero(shape) -> Tensor:``, an object of that class."""
        if not self._gpu_code or not isinstance(call.func, ast.Name):
            return None
        binding, function = scope.lookup(call.func.id)
        if function is None or binding is None or binding.kind != "def" or binding.node.returns is None or \
                module.kernel_for(binding.node) is not None:
            return None
        return self.project.memo("annotated return", binding.node, lambda: annotated_class(
            self.project, module, binding.node.returns))

    def _aliased_class(self, call: ast.Call, module: PyModule, scope: Scope):
        """``S = SimulationCUDA`` on one path and ``S = Simulation`` on another (or ``S = A if
        gpu else B``), then ``S(...)``: an object of one of the project classes the name is
        bound to, where every binding of it in its function (or module) names one; a name bound
        anything else anywhere is unknown. Every candidate counts: a method called on the
        object runs each class's."""
        if not isinstance(call.func, ast.Name):
            return None
        binding, function = scope.lookup(call.func.id)
        if binding is None or binding.kind != "assign":
            return None
        body = function if function is not None else module.tree
        if function is not None and call.func.id in {a.arg for a in walk_nodes(function.args) if isinstance(a, ast.arg)}:
            return None  # a parameter rebound on some path: what callers pass counts too
        named = self.project.memo("class aliases", body, lambda: _class_aliases(body)).get(call.func.id)
        if not named:
            return None
        classes = set()
        for value in named:
            dotted = module.dotted(value, scope)
            found = self.project.definition(dotted, module) if dotted else None
            if found is None or found[1].kind != "class":
                return None
            classes.add((found[0].path, found[1].name))
        if len(classes) == 1:
            return instance(*classes.pop())
        return Instances(frozenset(classes)) if len(classes) <= MAX_ALTERNATIVES else None

    def named_class(self, expr: ast.expr, scope: Scope, module: Optional[PyModule] = None) -> Optional[ProjectClasses]:
        """A class of the project that a name (``DeviceOps``, ``ops.DeviceOps``) refers to, held as
        a value: where it is passed, stored or picked, not called (a call makes an object).
        ``module``: the file the name is in (this one's by default)."""
        module = module or self.module
        if not self._gpu_code or not isinstance(expr, (ast.Name, ast.Attribute)):
            return None
        base = expr
        while isinstance(base, ast.Attribute):
            base = base.value
        if not isinstance(base, ast.Name):
            return None
        binding, function = scope.lookup(base.id)
        if binding is None or binding.kind not in ("class", "import") or function is not None and base is expr:
            return None  # (a local or a parameter: what it holds is read as a value, not named here)

        def find() -> Optional[ProjectClasses]:
            dotted = module.dotted(expr, scope)
            # (`pkg.DeviceOps`, `pkg` re-exporting it with `import *`)
            found = self.project.definition(dotted, module, stars=True) if dotted and "." in dotted else None
            if found is None or found[1].kind != "class":
                return None
            return ProjectClasses(frozenset({(found[0].path, found[1].name)}))

        held = self.project.memo("class held", expr, find)
        if held is not None and not self._types_only and module is self.module:
            self.classes_named.update(held.classes)
        return held

    def called(self, call: ast.Call, module: PyModule, scope: Scope, reader: TypeReader):
        """(module, def or class node, the object a method is called on or None) of the
        project's own function, class or method a call in ``module`` runs."""
        func = call.func
        if isinstance(func, ast.Name):
            binding, function = scope.lookup(func.id)
            if function is not None:
                # a helper defined in the function (a test's `def expected(a, shape): ...`),
                # where it reads none of the enclosing functions' names (their values are not
                # what its reading would see)
                if binding is None or binding.kind != "def" or module.kernel_for(binding.node) is not None or \
                        reads_enclosing(module, binding.node, scope):
                    return None
                return module, binding.node, None
            if binding is not None and binding.kind in ("def", "class"):
                if binding.kind == "def" and module.kernel_for(binding.node) is not None:
                    return None
                return module, binding.node, None
        dotted = module.dotted(func, scope)
        found = self.project.definition(dotted, module, stars=True) if dotted else None
        if found is None and dotted:  # numba-cuda's own array wrappers (its testing's ForeignArray)
            found = self.project.numba_cuda_class(dotted)
            if found is not None and self.project.memo(
                    "wrapped interface", found[1].node, lambda: wrapped_interface(found[1].node)) is None:
                found = None
        if found is not None and found[1].kind in ("def", "class"):
            owner, binding = found
            if binding.kind == "def" and owner.kernel_for(binding.node) is not None:
                return None
            return owner, binding.node, None
        if isinstance(func, ast.Attribute) and dotted:
            # `Scene.default()`: a static method called on its class (a factory), read as a function
            klass = self.project.definition(dotted.rpartition(".")[0], module)
            method = method_of(self.project, klass[0].path, klass[1].name, func.attr) if klass is not None and \
                klass[1].kind == "class" else None
            if method is not None and any(isinstance(d, ast.Name) and d.id == "staticmethod"
                                          for d in method[2].decorator_list):
                return method[0], method[2], None
        if isinstance(func, ast.Attribute):
            obj = reader.type_of(func.value)
            where = instance_of(obj)
            method = method_of(self.project, where[0], where[1], func.attr) if where is not None else None
            if method is not None:
                owner, _, node = method
                static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)
                return owner, node, None if static else obj
            held = held_code(obj) if isinstance(obj, ProjectClasses) else ()
            if len(held) == 1:  # `ops.zip(fn)`, `ops` a class held as a value: its static or class method
                method = class_level_method(self.project, *held[0], func.attr)
                if method is not None:
                    return method[0], method[2], method[3]
        return None

    def closure_made(self, owner: PyModule, node: FunctionNode) -> Optional[Tuple[str, str]]:
        """(file, qualified name) of the function nested in a module-level function or a method
        of a module-level class that every ``return`` of it gives back (a factory); None
        otherwise."""
        def made() -> Optional[Tuple[str, str]]:
            qualname = _outer_qualname(owner, node)
            nested = returned_closure(node, owner) if qualname else ""
            return (owner.path, f"{qualname}.{nested}") if nested else None

        return self.project.memo("closure made", node, made)

    def class_making(self, path: str, function: str) -> Optional[Tuple[str, str]]:
        """(file, class) of the module-level class whose method made (or is) a held function
        (``DeviceOps.zip.run``, ``DeviceOps.matmul``); None for a module-level factory's."""
        module = self.project.module(path)
        owner = function.split(".", 1)[0]
        binding = module.bindings.get(owner) if module is not None and "." in function else None
        return (path, owner) if binding is not None and binding.kind == "class" else None

    def functions_held(self, call: ast.Call, reader: TypeReader, scope: Optional[Scope] = None
                       ) -> List[Tuple[str, str]]:
        """(file, qualified name) of each project function a call of a value runs: a factory's
        closure stored in an attribute (``self.backend.mul_zip(a, b)``) or bound to a name.
        ``scope``: where the call is read, to leave a method of a class it names
        (``Tensor.make(...)``) to the readings of class calls."""
        if not self._gpu_code or not isinstance(call.func, (ast.Name, ast.Attribute)):
            return []
        if scope is not None and isinstance(call.func, ast.Attribute) and self.named_class(
                call.func.value, scope) is not None:
            return []
        kind = reader.type_of(call.func)
        return list(held_code(kind)) if isinstance(kind, ProjectFunctions) else []

    def function_named(self, module: PyModule, qualname: str) -> Optional[FunctionNode]:
        """``module.function_named(qualname)``, found once per run (it walks the whole module)."""
        known = self.project.memo("functions named", module.tree, dict)
        if qualname not in known:
            known[qualname] = module.function_named(qualname)
        return known[qualname]

    def held_returns(self, call: ast.Call, reader: TypeReader):
        """What a call of a held function (``functions_held``) returns, or a static or class
        method's called through one of a few classes held as a value (``ops.zip(fn)``, ``ops``
        either class): what each of them gives for the call's arguments, where they agree (two
        closures: either)."""
        targets = []
        for path, qualname in self.functions_held(call, reader):
            module = self.project.module(path)
            node = self.function_named(module, qualname) if module is not None else None
            targets.append((module, node, None) if node is not None else None)
        kind = reader.type_of(call.func.value) if isinstance(call.func, ast.Attribute) and self._gpu_code else None
        for path, klass in held_code(kind) if isinstance(kind, ProjectClasses) and len(kind.classes) > 1 else ():
            method = class_level_method(self.project, path, klass, call.func.attr)
            targets.append((method[0], method[2], method[3]) if method is not None else None)
        found = UNSET
        for target in targets:
            if target is None:
                return None
            closure = self.closure_made(target[0], target[1])
            kind = ProjectFunctions(frozenset({closure})) if closure is not None else self.returned(
                *target[:2], call, reader, target[2])
            found = kind if found is UNSET else same_type(found, kind) if found is not None and kind is not None \
                else None
        return None if found is UNSET else found

    def returned(self, owner: PyModule, node: FunctionNode, call: ast.Call, reader: TypeReader, receiver):
        """The type a function returns for a call's arguments, read off its assignments and
        ``return`` statements (``self`` of a method: the object it is called on)."""
        if len(self._returning) >= MAX_RETURN_DEPTH or id(node) in self._returning:
            return None  # (a helper of a helper is read; one more level seldom types more)
        bound: Dict[str, object] = {}
        params = node.args.posonlyargs + node.args.args
        defaults = dict(zip([a.arg for a in params[len(params) - len(node.args.defaults):]], node.args.defaults))
        if receiver is not None and params:
            bound[params[0].arg] = receiver
            params = params[1:]
        passed = {param.arg: arg for param, arg in zip(params, call.args)}
        passed.update({k.arg: k.value for k in call.keywords if k.arg})
        kw_defaults = {a.arg: d for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults) if d is not None}
        switches: Dict[str, bool] = {}  # parameters given True or False: the flags that pick a side
        for param in params + node.args.kwonlyargs:
            expr = passed.get(param.arg)
            if expr is not None:
                bound[param.arg] = reader.type_of(expr) or reader.dtype(expr)
            elif param.arg in defaults:
                bound[param.arg] = ("default", defaults[param.arg])
            given = expr if expr is not None else defaults.get(param.arg, kw_defaults.get(param.arg))
            if isinstance(given, ast.Constant) and isinstance(given.value, bool):
                switches[param.arg] = given.value
        key = (id(node), tuple(sorted(bound.items(), key=lambda item: item[0])), tuple(self._returning),
               tuple(sorted(switches.items())))
        if key in self._returns:
            return self._returns[key]
        # what does not depend on this file's reading under way is the same for every file
        # read at this level: kept for the project
        shared = (key, self._level if self._gpu_code else -1)
        found = self.project.returns.get(shared)
        if found is not None:
            self._context.uses_replayed(found[2])  # what its reading took from other files, taken here
            return found[1]
        with self._context.uses_captured() as taken:
            returned, pure = self._read_returned(owner, node, bound, key, switches)
        if pure:
            self.project.returns[shared] = (node, returned, taken)  # the node kept: its id stays its own
        return returned

    def _read_returned(self, owner: PyModule, node: FunctionNode, bound: Dict[str, object], key: tuple,
                       switches: Dict[str, bool]) -> Tuple[object, bool]:
        """(what ``returned`` finds, whether it read only other files). ``switches``: the
        parameters the call gives True or False (``gpu=True``): a test of one (``if gpu:``,
        ``if not gpu:``) before the function rebinds it takes only the side the call picks."""
        if owner.path == self.module.path:
            self.own_state_read()
            module_frame = self._context.module_frame()
            module_names = module_frame.env if module_frame else {}
        else:
            facts = self._context.facts_of(owner.path)
            module_names = facts.globals if facts is not None else {}
        scope = Scope(owner).inner(node)
        callee_reader = None

        local: Dict[str, object] = {}
        defaults: List[int] = []  # while reading a default: Python evaluates it where the `def` is

        def lookup(name: str, want_dtype: bool = False):
            if defaults:  # `def f(..., tuple=tuple)`: the default's names are the enclosing scope's
                value = module_names.get(name)
                inner = False
            else:
                value = local[name] if name in local else bound.get(name, module_names.get(name))
                inner = name in local or name in bound
            if value is None and not inner:
                value = self.imported(name, owner)  # `from .config import DTYPE` in the helper's file
            if isinstance(value, tuple) and value and value[0] == "default":
                defaults.append(1)
                try:
                    value = callee_reader.type_of(value[1]) or callee_reader.dtype(value[1])
                finally:
                    defaults.pop()
            return value if value is not None and isinstance(value, str) == want_dtype else None

        def construct(call: ast.Call):
            # `my_filter = filter.ParallelFilter` on the only side the call's flags take (`gpu=True`),
            # then `my_filter(...)`: an object of that class, not of every class the name is bound to
            held = local.get(call.func.id) if isinstance(call.func, ast.Name) else None
            if isinstance(held, ProjectClasses) and len(held.classes) == 1:
                return instance(*next(iter(held.classes)))
            if isinstance(held, ProjectClasses) and len(held.classes) <= MAX_ALTERNATIVES:
                return Instances(held.classes)  # (an object of either class the sides left)
            return self.project_call(call, owner, scope, callee_reader)

        callee_reader = TypeReader(lambda e: owner.dotted(e, scope), lookup, member=self.member,
                                   construct=construct, code=lambda e: self.named_class(e, scope, owner))
        changed = self.project.memo("changed containers", node, lambda: changed_containers(node))
        statements = self.project.memo("assignments and returns", node, lambda: sorted(
            (s for s in own_nodes(node) if isinstance(s, (ast.Assign, ast.Return)) or isinstance(
                s, ast.Expr) and isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Attribute)
             and s.value.func.attr in ("append", "extend")),
            key=lambda s: (s.lineno, s.col_offset)))
        conditions = self.project.memo("conditions", node, lambda: tests_above(node))
        memoized = self.project.memo("memoized returns", node, lambda: memoized_returns(node))
        # statements of the function's own body, outside any branch, loop or `try`: each runs
        # after every line above it, so what it binds is what the name holds from there on
        unconditional = {id(s) for s in node.body}
        self._returning.add(id(node))
        self._pure.append(True)
        kinds = []
        try:
            for statement in statements:
                # under an `if`: skipped on a side its test rules out, certain where it rules out the other
                under = conditions.get(id(statement), ())
                sides = [(_switched(test, switches, local) or narrowed(test, callee_reader), in_body)
                         for test, in_body in under]
                if any(DEAD in told[0 if in_body else 1] for told, in_body in sides):
                    continue
                certain = all(DEAD in told[1 if in_body else 0] for told, in_body in sides)
                if isinstance(statement, ast.Return):
                    if statement.value is not None and id(statement) not in memoized:
                        kinds.append(callee_reader.type_of(statement.value))
                    continue
                if isinstance(statement, ast.Expr):  # `idx.extend(picked)`: the items the list holds
                    grown = list_growth(statement.value, callee_reader)
                    if grown is not None and isinstance(grown[0], ast.Name) and isinstance(
                            local.get(grown[0].id), ListType):
                        local[grown[0].id] = appended(local[grown[0].id], grown[1])
                    continue
                value = callee_reader.type_of(statement.value) or callee_reader.dtype(statement.value)
                for target in statement.targets:
                    if isinstance(target, ast.Name):  # changed elsewhere in the function: what each key holds is unknown
                        value = unknown_items(value, target.id, changed)
                for target in statement.targets:
                    held = local.get(target.value.id) if isinstance(target, ast.Subscript) and isinstance(
                        target.value, ast.Name) else None
                    if isinstance(held, DictType) and held.keys and isinstance(target.slice, ast.Constant):
                        # `state["kinds"] = ...` of a literal's dict: that key's value from here on
                        old = held.at(target.slice.value)[1]
                        new = value if certain else either_type(old, value, True)
                        local[target.value.id] = replace(held, keys=tuple(
                            (k, kind) for k, kind in held.keys if k != target.slice.value) + ((target.slice.value, new),))
                        continue
                    for name, item in unpacked(target, value):
                        # a name bound twice keeps what both bindings give (an array of either
                        # place), unless the later binding always runs (`idx = []` ... `idx =
                        # np.array(idx, dtype=np.int32)`); a parameter rebound where a test may
                        # not hold: its own type too
                        if name in local and id(statement) in unconditional:
                            local[name] = item
                        elif name in local:
                            local[name] = either_type(local[name], item, True)
                        elif name in bound and not certain:
                            local[name] = either_type(callee_reader.type_of(ast.Name(id=name, ctx=ast.Load())), item,
                                                  True)
                        else:
                            local[name] = item
        finally:
            self._returning.discard(id(node))
            pure = self._pure.pop()
        self._returns[key] = returned = returned_type(kinds)
        return returned, pure

    def own_state_read(self) -> None:
        """What is being worked out reads this file's names or objects, as read so far."""
        self._pure[:] = [False] * len(self._pure)

    def member(self, obj, attr: str, depth: int = 0, dtype: bool = False):
        """The type of an attribute of an object of a project class: what its methods store in
        ``self.<attr>`` (read from its file), else what a base class stores. Of a class held as
        a value, its static methods named (``ops.matrix_multiply``): the functions, held.
        ``dtype``: the dtype's name the attribute holds instead (``self.dtype = np.float32``)."""
        if isinstance(obj, ProjectClasses):
            found = []
            for path, klass in held_code(obj):
                method = class_level_method(self.project, path, klass, attr)
                if method is None or method[3] is not None:
                    return None  # (a class method named is bound to its class: not followed)
                found.append((method[0].path, f"{method[1]}.{attr}"))
            return ProjectFunctions(frozenset(found)) if len(found) <= MAX_ALTERNATIVES else None
        path, klass = instance_of(obj)
        world = self._attrs.world_attributes
        if path == self.module.path and klass == self._attrs.world_class and attr in (world or {}):
            return world[attr]
        if path == self.module.path:
            self.own_state_read()
            value = self._attrs.stored((klass, attr), self._attrs.subclass_places(
                (klass, attr), self.importers_naming if self._gpu_code else None))
            bases = self._attrs.bases.get(klass, [])
        else:
            facts = self._context.facts_of(path)
            if facts is None:
                return None
            value = facts.class_attributes.get(klass, {}).get(attr)
            bases = facts.class_bases.get(klass, [])
        if value is None and depth < 4:
            for base in bases:
                value = self.member(instance(*base), attr, depth + 1, dtype)
                if value is not None:
                    break
        if value is None and depth < 4:  # `stencil.c`, a property returning `self._c`
            held = property_attribute(self.project, path, klass, attr)
            if held is not None:
                value = self.member(obj, held, depth + 1)
            elif self._gpu_code:  # `camera.position`, a property computing it: what it returns
                method = method_of(self.project, path, klass, attr)
                if method is not None and len(method[2].args.args) == 1 and any(
                        isinstance(d, ast.Name) and d.id == "property" for d in method[2].decorator_list):
                    value = self.returned(method[0], method[2], ast.Call(func=ast.Name(id=attr, ctx=ast.Load()),
                                                                         args=[], keywords=[]), None, obj)
        if value is DTYPES_DIFFER:
            return None
        return value if isinstance(value, str) == dtype else None

    def imported(self, name: str, importer: Optional[PyModule] = None, binding=None):
        """The type (or dtype alias) of a module-level name another file of the project binds
        and this one (or ``importer``) imports: ``from .config import DTYPE``; ``binding``: a
        function's own import of it (``from params import dx`` in ``main``)."""
        importer = importer or self.module
        binding = binding or importer.bindings.get(name)
        if binding is None:
            owner = importer.star_source(name)  # `from params import *`: its global there
            facts = self._context.facts_of(owner.path) if owner is not None and owner.path != self.module.path \
                else None
            return facts.globals.get(name) if facts is not None else None
        if binding.kind != "import" or not binding.attr or not binding.module:
            return None
        found = self.project.definition(binding.imported, importer)
        if found is None:
            return None
        module, defined = found
        facts = self._context.facts_of(module.path) if module.path != self.module.path else None
        return facts.globals.get(defined.name) if facts is not None else None

    def method_called(self, call: ast.Call, reader: TypeReader) -> Optional[Tuple[str, str]]:
        """(file, Class.method) of the project's method that ``obj.method(...)`` runs, where
        reading (``reader``) knows the object (``grid`` an item of a list of ``Grid`` objects).
        Asked outside a variant's reading only: the first answer holds for the pass."""
        if not isinstance(call.func, (ast.Attribute, ast.Name)) or not self._gpu_code:
            return None  # code that does not launch: its objects' methods are not followed
        if id(call) in self._methods:
            return self._methods[id(call)]  # asked again for the same call in this pass
        found = self._method_on(reader.type_of(call.func.value), call.func.attr) if isinstance(
            call.func, ast.Attribute) else None
        if found is None:
            # `step(x)`, `self.step(x)` of an object (not a method): Python runs its class's `__call__`
            found = self._method_on(reader.type_of(call.func), "__call__")
        self._methods[id(call)] = found
        return found

    def _method_on(self, kind, name: str) -> Optional[Tuple[str, str]]:
        """(file, Class.method) of the method ``name`` of the project object ``kind`` is."""
        where = instance_of(_called_on(kind))
        method = method_of(self.project, where[0], where[1], name) if where is not None else None
        return (method[0].path, f"{method[1]}.{name}") if method is not None else None

    def methods_called(self, call: ast.Call, reader: TypeReader, scope: Optional[Scope] = None
                       ) -> List[Tuple[str, str]]:
        """(file, Class.method) of each project method ``obj.method(...)`` may run where the
        object is one of a few classes (``layer`` an item of a list of layers of several
        classes): each class's own, or inherited, method; none where any class lacks it (an
        attribute holding a function, not a method: not read)."""
        if not isinstance(call.func, ast.Attribute) or not self._gpu_code:
            return []
        kind = _called_on(reader.type_of(call.func.value))
        if isinstance(kind, ProjectClasses):  # `ops.zip(fn)` of a class held as a value: its static or class method
            if scope is None or self.named_class(call.func.value, scope) is not None:
                return []  # `Mul.apply(a, b)`, the class named: what `cls.forward` runs there is read apart
            found = []
            for path, klass in held_code(kind):
                method = class_level_method(self.project, path, klass, call.func.attr)
                if method is None:
                    return []
                found.append((method[0].path, f"{method[1]}.{call.func.attr}"))
            return list(dict.fromkeys(found))
        if not isinstance(kind, Instances):
            return []
        found = []
        for path, klass in classes_of(kind):
            method = method_of(self.project, path, klass, call.func.attr)
            if method is None:
                return []
            found.append((method[0].path, f"{method[1]}.{call.func.attr}"))
        return list(dict.fromkeys(found))  # (a method two classes inherit from one base: once)

    def receiver_overrides(self, call: ast.Call, reader: TypeReader
                           ) -> List[Tuple[str, str, Tuple[Optional[int], ...], bool]]:
        """(file, Class.method, forwarded) of each method that ``obj.show(...)`` runs through
        ``self`` because of the object's own class: ``show`` inherited from a base whose body calls
        ``self.render(...)``, which the object's class (one of a list's several) overrides. The
        base's ``show`` is read once for every class; what each class puts in its place counts at
        this call (a panel's ``render``, a filter's ``apply_filter``). ``forwarded`` says, for each
        positional argument of the base's call, which argument of ``call`` it hands on as it is
        (``def show(self, frame): self.render(frame, d)``: ``(0, None)``), None for the others; and
        whether the base's method uses what the call returns (shows it, keeps it, returns it)."""
        if not isinstance(call.func, ast.Attribute) or not self._gpu_code:
            return []
        kind = _called_on(reader.type_of(call.func.value))
        single = instance_of(kind)
        receivers = [single] if single is not None else list(classes_of(kind)) if isinstance(kind, Instances) else []
        found: List[Tuple[str, str]] = []
        for path, klass in receivers:
            method = method_of(self.project, path, klass, call.func.attr)
            if method is None or (method[0].path, method[1]) == (path, klass):
                continue  # its own method: read as the class's
            for sub in own_nodes(method[2]):
                if not (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute)
                        and isinstance(sub.func.value, ast.Name) and sub.func.value.id == "self"):
                    continue
                own = method_of(self.project, path, klass, sub.func.attr)
                based = method_of(self.project, method[0].path, method[1], sub.func.attr)
                if own is not None and (based is None or own[2] is not based[2]):
                    found.append((own[0].path, f"{own[1]}.{sub.func.attr}", _forwarded(method[2], sub, call),
                                  result_used(method[2], sub)))
        return list(dict.fromkeys(found))

    def callee(self, call: ast.Call, frame: Frame, reader: TypeReader) -> Optional[str]:
        """The qualified name of a function of this file that a call runs."""
        func = call.func
        if isinstance(func, ast.Name):
            binding, function = frame.scope.lookup(func.id)
            if binding is not None and binding.kind == "def" and self.module.kernel_for(binding.node) is None:
                if function is None:
                    return func.id
                return nested_qualname(frame, function, func.id)
            if binding is not None and binding.kind == "param" and function is not None and \
                    function is frame.scope.functions[0]:
                # `def simulate(..., timestep=step)` calling `timestep(...)`: what a call that leaves
                # it out runs (the default is read where the module-level function is defined)
                default = default_of(function, func.id)
                bound = self.module.bindings.get(default.id) if isinstance(default, ast.Name) else None
                if bound is not None and bound.kind == "def" and self.module.kernel_for(bound.node) is None:
                    return default.id
            made = self._closure_called(func.id, frame, reader)
            if made is not None and made[0] == self.module.path:
                return made[1]
        if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and func.value.id == "self" and frame.owner):
            held = self._bound_method_held(frame.owner, func.attr)
            if not held:
                # `self.step(x)` where `step` holds an object, no method of the class: its `__call__`
                called = self.method_called(call, reader)
                if called is not None and called[1].endswith(".__call__"):
                    return called[1] if called[0] == self.module.path else None
            return f"{frame.owner}.{held or func.attr}"
        # `grid.shift(1)`, `Grid` a class of this file; `super().step()` in a method of a subclass
        method = self.super_method(call, frame) or self.method_called(call, reader)
        return method[1] if method is not None and method[0] == self.module.path else None

    def super_method(self, call: ast.Call, frame: Frame) -> Optional[Tuple[str, str]]:
        """(file, Class.method) of the base class's method ``super().method(...)`` runs in a
        method of a module-level class (the first base, in order, that has it)."""
        func = call.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call) and isinstance(
                func.value.func, ast.Name) and func.value.func.id == "super"):
            return None
        if not frame.owner or "." in frame.owner or func.attr in ("__init__", "__new__", "__post_init__"):
            return None  # (a base's constructor: what it is passed is read where objects are made)
        binding = self.module.bindings.get(frame.owner)
        if binding is None or binding.kind != "class":
            return None
        for base in binding.node.bases:
            dotted = self.module.dotted(base, Scope(self.module))
            found = self.project.definition(dotted, self.module) if dotted else None
            if found is not None and found[1].kind == "class":
                method = method_of(self.project, found[0].path, found[1].name, func.attr)
                if method is not None:
                    return method[0].path, f"{method[1]}.{func.attr}"
        return None

    def _bound_method_held(self, owner: str, attr: str) -> str:
        """``self.update = self.update_grid`` in a method of the class, ``update`` no method of its
        own: the method ``self.update()`` runs (the one bound method of the class the attribute
        is ever given one of; "" otherwise)."""
        classes = self.project.memo("classes by qualified name", self.module.tree, lambda: _classes(self.module.tree))
        klass = classes.get(owner)
        if klass is None:
            return ""
        return self.project.memo("bound methods held", klass, lambda: bound_methods(klass)).get(attr, "")

    def _closure_called(self, name: str, frame: Frame, reader: TypeReader) -> Optional[Tuple[str, str]]:
        """``f = Ops.zip(add)`` then ``f(a, b)``: (file, qualified name) of the function nested
        in ``Ops.zip`` that every ``return`` of it gives back (a closure factory: the call runs
        the closure), where the body binds ``name`` to that one call every time; None
        otherwise."""
        body = frame.function if frame.function is not None else self.module.tree
        made = self.project.memo("closure factories called", body, lambda: _bound_calls(body)).get(name)
        if made is None or id(made) in self._closures_asked:
            return None  # (`f = g(); g = f()`: asked again while it is being answered)
        self._closures_asked.add(id(made))
        try:
            own = self.callee(made, frame, reader)
            factory = (self.module.path, own) if own else self.callee_elsewhere(made, frame, reader)
        finally:
            self._closures_asked.discard(id(made))
        if factory is None:
            through = class_method_calls(self.project, self.module, made, frame.scope, frame.function, frame.owner)
            factory = through[0] if through else None
        module = self.project.module(factory[0]) if factory is not None else None
        if module is None:
            return None
        known = self.project.memo("closures returned", module.tree, dict)  # qualname -> its closure's name
        if factory[1] not in known:
            node = module.function_named(factory[1])
            known[factory[1]] = returned_closure(node, module) if node is not None else ""
        nested = known[factory[1]]
        return (factory[0], f"{factory[1]}.{nested}") if nested else None

    def callee_elsewhere(self, call: ast.Call, frame: Frame, reader: TypeReader) -> Optional[Tuple[str, str]]:
        """(path, qualified name) of a function, class (its ``__init__``) or method another
        file of the project defines, that this call runs: ``alloc(...)``, ``arrays.alloc(...)``,
        ``Beam(...)``, ``beam.step(...)`` on an instance of it."""
        method = self.super_method(call, frame) or self.method_called(call, reader)
        if method is not None:
            return method if method[0] != self.module.path else None
        if isinstance(call.func, ast.Name) and frame.scope.lookup(call.func.id)[1] is not None:
            made = self._closure_called(call.func.id, frame, reader)  # a closure another file's factory made
            return made if made is not None and made[0] != self.module.path else None
        dotted = self.module.dotted(call.func, frame.scope)
        if not dotted or dotted.startswith(self.module.name + ".") and dotted.count(".") == self.module.name.count(".") + 1:
            return None
        found = self.project.definition(dotted, self.module, stars=True)
        if found is None or found[0].path == self.module.path or found[1].kind not in ("def", "class"):
            return None
        owner, binding = found
        return owner.path, binding.name if binding.kind == "def" else f"{binding.name}.__init__"

    def overrides(self, call: ast.Call, frame: Frame) -> List[Tuple[str, str]]:
        """(path, Class.method) of each override, in a subclass found in this file or in the
        project's files that import it, of the method ``self.method(...)`` calls in a method of
        a module-level class: what the call runs on an object of that subclass (a base class's
        time loop calling ``self.simulation_loop()`` that GPU engines override)."""
        func = call.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"
                and frame.owner and "." not in frame.owner):
            return []
        found = [(self.module.path, f"{sub}.{func.attr}") for sub in self._attrs.subclasses_here(frame.owner)
                 if "." not in sub and _defines(self.module, sub, func.attr)]
        if not frame.loops:
            return found  # what a call outside loops runs once costs the same on any object
        for path in self.project.files_naming(self.module.path, frame.owner):
            # read from the syntax alone (a base class that names no GPU library is common)
            if path == self.module.path or self.module.path not in self.project.imports_of_file(path):
                continue
            module = self.project.module(path)
            if module is None or f"def {func.attr}" not in module.text:
                continue
            for statement in module.tree.body:
                if isinstance(statement, ast.ClassDef) and _defines(module, statement.name, func.attr) and any(
                        _is_class(self.project, module, base, self.module.path, frame.owner)
                        for base in statement.bases):
                    found.append((path, f"{statement.name}.{func.attr}"))
        return found

    def constructed(self, call: ast.Call, frame: Frame) -> Optional[str]:
        """``Sim(...)`` of a module-level class of this file: its ``__init__``."""
        if isinstance(call.func, ast.Name):
            binding, function = frame.scope.lookup(call.func.id)
            if binding is not None and binding.kind == "class" and function is None:
                return f"{call.func.id}.__init__"
        return None

    def parameter_types(self, function: FunctionNode, qualname: str, frame: Frame, calls: List[Tuple[list, dict]],
                        reader: TypeReader) -> Dict[str, object]:
        """A parameter's type where every call of the function in this file (``calls``: what
        each passes, positional and keywords) passes the same known type (a class's calls count
        for its ``__init__``), else other files' calls of it; else its default's (``reader``:
        the frame it is defined in), its docstring's, or what its use shows."""
        arguments = function.args
        positional = positional_parameters(function, frame)
        if not calls and self._gpu_code and frame.function is None and qualname.count(".") <= (
                1 if frame.owner else 0) and (self._types_only and frame.owner
                                                      or self._types_matter(function, frame)):
            # read for another file's sake, it is asked for types: what its classes store and
            # pass on comes from their callers whether or not they launch
            calls = self._incoming(qualname)  # a module-level function, or a method of a module-level class
        defaults = dict(zip([a.arg for a in positional[len(positional) - len(arguments.defaults):]],
                            arguments.defaults))
        defaults.update({a.arg: d for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None})
        types: Dict[str, object] = {}
        incoming: Optional[List[Tuple[list, dict]]] = None
        placed = set()  # parameters a call passes an array other than a host one: their annotation does not decide
        for index, arg in enumerate(positional + arguments.kwonlyargs):
            seen = []
            for passed, keywords in calls:
                if arg.arg in keywords:
                    seen.append(keywords[arg.arg])
                elif index < len(passed) and arg in positional:
                    seen.append(passed[index])
                elif arg.arg in defaults:  # a dtype (`ftype=np.float32`) as the dtype string names hold
                    seen.append(reader.type_of(defaults[arg.arg]) or reader.dtype(defaults[arg.arg]))
                else:
                    seen.append(None)
            if any(isinstance(kind, ArrayType) and (kind.where != "host" or kind.library in ("cupy", "torch"))
                   for kind in seen):
                placed.add(arg.arg)
            agreed = agreed_type(seen)
            if isinstance(agreed, ProjectClasses) and self._gpu_code and frame.function is None:
                # a class passed as a value here (`TensorBackend(SimpleOps)`): other files' calls
                # pass theirs (`TensorBackend(CudaOps)`), and the object runs whichever it was given
                if incoming is None:
                    incoming = self._incoming(qualname) if qualname.count(".") <= 1 else []
                for passed, keywords in incoming:
                    given = keywords.get(arg.arg) if arg.arg in keywords else passed[index] if index < len(
                        passed) and arg in positional else None
                    if isinstance(given, ProjectClasses):
                        agreed = same_type(agreed, given) or agreed
            if agreed is not None:
                types[arg.arg] = agreed
            elif not calls and arg.arg in defaults:
                default = reader.type_of(defaults[arg.arg]) or reader.dtype(defaults[arg.arg])
                if default != NONE:  # `V=None` and no call: what the docstring says, else unknown
                    types[arg.arg] = default
        untyped = [a.arg for a in positional + arguments.kwonlyargs if types.get(a.arg) is None]
        if untyped and self._gpu_code:
            for name, dtype in self.project.memo("evident scalars", function,
                                                 lambda: evident_scalars(function)).items():
                if name in untyped:
                    types[name] = ScalarType(dtype)
            # what its docstring says a parameter is (`Nz, Nr : int`), where calls do not say
            for name, kind in self.project.memo("documented types", function,
                                                lambda: documented_types(function)).items():
                if name in untyped and types.get(name) is None:
                    types[name] = documented_class(kind, self.project, self.module.path)
            # what its annotation names (`a: Tensor`, `backend: Optional["Backend"]`): an object of that class
            for name, kind in self.project.memo("annotated classes", function,
                                                lambda: self._annotated_classes(function)).items():
                if name in untyped and types.get(name) is None:
                    types[name] = kind
            # annotated as a NumPy array (`np.ndarray`, `npt.NDArray[np.float32]`): a host array where
            # no call passes it a device array
            for name, kind in self.project.memo("annotated arrays", function,
                                                lambda: self._annotated_arrays(function)).items():
                if name in untyped and name not in placed and types.get(name) is None:
                    types[name] = kind
            read = self.project.memo("attributes read", function, lambda: attributes_read(function))
            receiver = receiver_of(function, frame)
            for name in untyped:
                if name != receiver and types.get(name) is None and len(read.get(name, ())) >= MIN_ATTRIBUTES_READ:
                    types[name] = self._class_having(read[name])
        return types

    def _annotated_classes(self, function: FunctionNode) -> Dict[str, Opaque]:
        """The parameters annotated with one class of the project (``Tensor``, ``"Tensor"``,
        ``Optional[Tensor]``, ``Tensor | None``), each an object of it."""
        found: Dict[str, Opaque] = {}
        arguments = function.args
        for arg in arguments.posonlyargs + arguments.args + arguments.kwonlyargs:
            kind = annotated_class(self.project, self.module, arg.annotation)
            if kind is not None:
                found[arg.arg] = kind
        return found

    def _annotated_arrays(self, function: FunctionNode) -> Dict[str, object]:
        """The parameters annotated as NumPy arrays (``annotated_array``); one that defaults to
        None (``data: np.ndarray = None``) may be None too."""
        found: Dict[str, object] = {}
        arguments = function.args
        for arg in arguments.posonlyargs + arguments.args + arguments.kwonlyargs:
            kind = annotated_array(self.module, arg.annotation) if arg.annotation is not None else None
            if kind is not None:
                default = default_of(function, arg.arg)
                found[arg.arg] = Maybe(kind) if isinstance(default, ast.Constant) and default.value is None else kind
        return found

    def _class_having(self, attributes: FrozenSet[str]) -> Optional[Opaque]:
        """An object of the one class of the project whose objects have every attribute in
        ``attributes`` (stored on ``self`` in its methods, its methods, its class attributes,
        with those of its bases in the same file): what a parameter is that no call or
        docstring types but whose attributes only that class has (fbpic's ``species``:
        ``x``, ``ux``, ``inv_gamma``, ``tracker``, ``ionizer``, ``sort_particles``)."""
        candidates: Optional[Set[str]] = None
        for attribute in sorted(attributes):
            naming = set(self.project.files_naming(self.module.path, attribute))
            candidates = naming if candidates is None else candidates & naming
            if not candidates:
                return None
        found = []
        for path in sorted(candidates or ()):
            module = self.project.module(path)
            if module is None:
                continue
            having = self.project.memo("class attributes", module, lambda: class_attributes(module))
            found.extend((path, klass) for klass, have in having.items() if attributes <= have)
        return instance(*found[0]) if len(found) == 1 else None

    def _types_matter(self, function: FunctionNode, frame: Frame) -> bool:
        """Whether a function's parameter types can reach a launch: it launches, it is the
        ``__init__`` (or another method) of a class whose methods launch, or it calls a
        function of this file that launches (``add_buffers`` calling ``add_buffers_gpu``)."""
        node = frame.owner_node if frame.owner is not None and frame.owner_node is not None else function
        # (in a file that drives kernels through its objects, what they are is what it launches)
        return self.project.memo("launches within", node, lambda: launches_within(
            node, self.module, MAX_VARIANT_DEPTH, self._defined)) or drives_kernels(self.project, self.module)

    def _defined(self, module: PyModule, func: ast.expr) -> Optional[Tuple[PyModule, FunctionNode]]:
        """The project function a call's target names at module level (imported from another
        file, or through a package re-exporting it): a wrapper that launches there is what the
        caller's parameters reach (``sum_rows(buffer=extra, signals=signals)``)."""
        dotted = module.dotted(func, Scope(module))
        found = self.project.definition(dotted, module) if dotted else None
        if found is None or found[1].kind != "def":
            return None
        return found[0], found[1].node

    def caller_variants(self, function: FunctionNode, qualname: str, frame: Frame,
                        own_calls: List[Tuple[list, dict]]) -> List[Tuple[list, dict]]:
        """The distinct argument types other files' calls pass to a module-level function of
        this file that launches (directly or through the project functions it calls), where
        this file does not call it: each is one chain of calls the launch runs in, read on its
        own (``HostReader``) where the calls do not agree on one type per parameter. What
        those files' own such readings pass counts too (a test's arrays, through the wrapper
        the test calls, to the wrapper that launches)."""
        if own_calls or not self._gpu_code or frame.function is not None or frame.owner is not None \
                or "." in qualname or not self._types_matter(function, frame):
            return []
        found: Dict[str, Tuple[list, dict]] = {}
        for facts in self.importers_naming(qualname):
            for passed in facts.outgoing.get((self.module.path, qualname), []) + facts.outgoing_variants.get(
                    (self.module.path, qualname), []):
                if any(kind is not None for kind in passed[0]) or any(
                        kind is not None for kind in passed[1].values()):
                    found.setdefault(repr(passed), passed)
        return list(found.values())

    def _incoming(self, qualname: str) -> List[Tuple[list, dict]]:
        """The argument types other files of the project pass to this file's function or class."""
        found: List[Tuple[list, dict]] = []
        klass, _, method = qualname.partition(".")
        callers = list(self.importers_naming(klass))
        if method and method != "__init__" and not self._types_only:
            # a method that launches is also called on objects the caller was given, not
            # made (`for grid in fld.grids: grid.shift(1)`): without naming the class (read
            # for another file's sake, a class's every method would have the project read)
            seen = {facts.path for facts in callers}
            callers.extend(facts for facts in self.importers_naming(method) if facts.path not in seen)
        for facts in callers:
            found.extend(facts.outgoing.get((self.module.path, qualname), []))
        return found

    def importers_naming(self, name: str):
        """The host facts of the project's other files that name ``name`` and import this one,
        directly or through the modules they import (``from .boundaries import Communicator``
        where ``boundaries/__init__.py`` imports it); each read one file less deep
        (``read_host``)."""
        importers = [path for path in self.project.files_naming(self.module.path, name)
                     if path != self.module.path and self.module.path in self.project.imports_of_file(path)]
        if self._types_only:
            # read for another file's sake: a few callers say the types as well as many (they
            # must agree); a base class every module names would have the project read again
            importers = sorted(importers)[:MAX_CALLERS_READ]
        for path in importers:
            facts = self._context.facts_of(path)
            if facts is not None:
                yield facts


def class_level_method(project: Project, path: str, klass: str, name: str):
    """(module, class, def, what it is bound to) of a static or class method of a project class
    (its own or a base's) called through the class itself: a class method is bound to that
    class, held as a value; None for a plain method (called on the class it takes its object
    as an argument) or a name that is no method."""
    method = method_of(project, path, klass, name)
    if method is None:
        return None
    decorators = {d.id for d in method[2].decorator_list if isinstance(d, ast.Name)}
    if "staticmethod" in decorators:
        return method + (None,)
    if "classmethod" in decorators:
        return method + (ProjectClasses(frozenset({(path, klass)})),)
    return None


def annotated_class(project: Project, module: PyModule, annotation: Optional[ast.expr]) -> Optional[Opaque]:
    """An object of the project class an annotation in ``module`` names (``_annotated_name``)."""
    named = _annotated_name(annotation) if annotation is not None else None
    dotted = module.dotted(named, Scope(module)) if named is not None else None
    definition = project.definition(dotted, module, stars=True) if dotted and "." in dotted else None
    if definition is None or definition[1].kind != "class":
        return None
    return instance(definition[0].path, definition[1].name)


# the names NumPy's array class and its typing alias go by (not `ArrayLike`: lists and numbers too)
_NUMPY_ARRAY_ANNOTATIONS = frozenset({"numpy.ndarray", "numpy.typing.NDArray"})


def annotated_array(module: PyModule, annotation: ast.expr) -> Optional[ArrayType]:
    """A host NumPy array, where ``annotation`` names NumPy's array class (``np.ndarray``,
    ``npt.NDArray[np.float32]``, ``Optional[np.ndarray]``, ``np.ndarray | None``, as a string
    too), with the element type ``NDArray[...]`` names where it is one NumPy type; else None."""
    named = _annotated_name(annotation)
    subscript = None
    if named is None:
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            try:
                annotation = ast.parse(annotation.value, mode="eval").body
            except SyntaxError:
                return None
        if isinstance(annotation, ast.Subscript):  # `npt.NDArray[np.float32]`
            subscript, named = annotation, annotation.value
        else:
            return None
    if not isinstance(named, (ast.Name, ast.Attribute)):
        return None
    if module.dotted(named, Scope(module)) not in _NUMPY_ARRAY_ANNOTATIONS:
        return None
    dtype = None
    if subscript is not None:
        element = subscript.slice.elts[-1] if isinstance(subscript.slice, ast.Tuple) else subscript.slice
        if isinstance(element, ast.Subscript):  # `np.dtype[np.float32]`
            element = element.slice
        text = module.dotted(element, Scope(module)) if isinstance(element, (ast.Name, ast.Attribute)) else None
        if text and text.startswith("numpy."):
            dtype = _NUMPY_ELEMENT_TYPES.get(text.rsplit(".", 1)[1])
    return ArrayType(dtype, None, "C", "host", "numpy")


# NumPy's scalar types as numba names them (what `NDArray[np.float32]` holds)
_NUMPY_ELEMENT_TYPES = {"float32": "float32", "float64": "float64", "int8": "int8", "int16": "int16",
                        "int32": "int32", "int64": "int64", "uint8": "uint8", "uint16": "uint16",
                        "uint32": "uint32", "uint64": "uint64", "bool_": "boolean", "complex64": "complex64",
                        "complex128": "complex128", "float16": "float16"}


def _annotated_name(annotation: ast.expr) -> Optional[ast.expr]:
    """The one name an annotation gives a value's class by: ``Tensor``, ``mod.Tensor``, a
    string of it, either within ``Optional[...]`` or beside ``None`` in ``X | None``."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(annotation, ast.Subscript) and isinstance(annotation.value, (ast.Name, ast.Attribute)) and (
            annotation.value.id if isinstance(annotation.value, ast.Name) else annotation.value.attr) == "Optional":
        return _annotated_name(annotation.slice)
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        sides = [s for s in (annotation.left, annotation.right)
                 if not (isinstance(s, ast.Constant) and s.value is None)]
        return _annotated_name(sides[0]) if len(sides) == 1 else None
    if isinstance(annotation, ast.Name) or isinstance(annotation, ast.Attribute) and isinstance(
            annotation.value, ast.Name):
        return annotation
    return None


def _outer_qualname(module: PyModule, node: FunctionNode) -> str:
    """The qualified name of a module-level function or of a method of a module-level class;
    "" for a function nested anywhere else."""
    for statement in module.tree.body:
        if statement is node:
            return node.name
        if isinstance(statement, ast.ClassDef) and any(member is node for member in statement.body):
            return f"{statement.name}.{node.name}"
    return ""


def _is_class(project: Project, module: PyModule, base: ast.expr, path: str, name: str) -> bool:
    """Whether a base class expression of ``module`` names the class ``name`` of ``path``."""
    dotted = module.dotted(base, Scope(module))
    found = project.definition(dotted, module) if dotted else None
    return found is not None and found[0].path == path and found[1].name == name


def _defines(module: PyModule, klass: str, name: str) -> bool:
    """Whether a module-level class of ``module`` defines a (host) method of that name itself."""
    binding = module.bindings.get(klass)
    if binding is None or binding.kind != "class":
        return False
    return any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name
               and module.kernel_for(s) is None for s in binding.node.body)


def interface_array(call: ast.Call, wrapped: Tuple[int, str], reader: TypeReader) -> Optional[ArrayType]:
    """The array an object of a class that exposes its ``__cuda_array_interface__`` stands for:
    the device array it is made from (a foreign array to numba: no library's own)."""
    expr = wrapped_argument(call, wrapped)
    kind = reader.type_of(expr) if expr is not None else None
    if isinstance(kind, ArrayType) and kind.where == "device":
        return replace(kind, library="")
    return None


def reads_enclosing(module: PyModule, function: FunctionNode, scope: Scope) -> bool:
    """Whether a nested function reads a name its enclosing functions bind (a closure)."""
    own = set(module.local_bindings(function))
    enclosing = set().union(*(module.local_bindings(f) for f in scope.functions if f is not function))
    return any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in own and n.id in enclosing
               for n in walk_nodes(function))


def _bound_calls(body: ast.AST) -> Dict[str, ast.Call]:
    """Names a body binds, every time, to one call as written (``f = ops.zip(add)``)."""
    seen: Dict[str, Optional[ast.Call]] = {}
    for node in own_nodes(body):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, (ast.AugAssign, ast.AnnAssign, ast.For)) else []
        for target in targets:
            for sub in walk_nodes(target):
                if not isinstance(sub, ast.Name):
                    continue
                value = node.value if isinstance(node, ast.Assign) and target is sub else None
                call = value if isinstance(value, ast.Call) else None
                earlier = seen.get(sub.id, call)
                same = call is not None and earlier is not None and ast.dump(earlier) == ast.dump(call)
                seen[sub.id] = call if same else None  # bound to something else too: not followed
    return {name: call for name, call in seen.items() if call is not None}


def _class_aliases(body: ast.AST) -> Dict[str, Tuple[ast.expr, ...]]:
    """Names a body binds only to plain names (``S = Simulation``, ``S = A if gpu else B``):
    each with the names it may hold; a name bound any other way (a call, a loop, an import,
    ``with ... as``) is left out."""
    seen: Dict[str, Optional[List[ast.expr]]] = {}
    for node in own_nodes(body):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.withitem,
                             ast.NamedExpr, ast.comprehension, ast.ExceptHandler)):
            targets = node.targets if isinstance(node, ast.Assign) else [
                node.optional_vars if isinstance(node, ast.withitem) else node.name if isinstance(
                    node, ast.ExceptHandler) else node.target]
            value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
            for target in targets:
                if isinstance(target, str):  # `except E as name`
                    seen[target] = None
                    continue
                for sub in walk_nodes(target) if target is not None else ():
                    if isinstance(sub, ast.Name):
                        names = _plain_names(value) if target is sub and value is not None else None
                        earlier = seen.get(sub.id, [])
                        seen[sub.id] = earlier + names if names is not None and earlier is not None else None
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                seen[(alias.asname or alias.name).split(".")[0]] = None
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node is not body:
            seen[node.name] = None
    return {name: tuple(values) for name, values in seen.items() if values}


def _plain_names(value: ast.expr) -> Optional[List[ast.expr]]:
    """The names (``Simulation``, ``fdtd.Simulation``) an expression gives, either side of a
    conditional expression; None for anything else."""
    if isinstance(value, ast.IfExp):
        body, orelse = _plain_names(value.body), _plain_names(value.orelse)
        return body + orelse if body is not None and orelse is not None else None
    if isinstance(value, ast.Name) or isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name):
        return [value]
    return None


def _classes(tree: ast.Module) -> Dict[str, ast.ClassDef]:
    """The module's classes by qualified name (``Outer.Inner``; not those inside functions)."""
    found: Dict[str, ast.ClassDef] = {}

    def walk(body, prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                name = f"{prefix}{node.name}"
                found[name] = node
                walk(node.body, f"{name}.")

    walk(tree.body, "")
    return found


def _switched(test: ast.expr, switches: Dict[str, bool], local: Dict[str, object]):
    """What a test of a parameter the call gives True or False tells (``if gpu:``, ``if not
    gpu:``): the side it rules out ``DEAD``; None for any other test, or once the function has
    rebound the name."""
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    name = test.operand if negated else test
    if not isinstance(name, ast.Name) or name.id not in switches or name.id in local:
        return None
    holds = switches[name.id] != negated
    return ({}, {DEAD: True}) if holds else ({DEAD: True}, {})


def _forwarded(method: FunctionNode, inner: ast.Call, call: ast.Call) -> Tuple[Optional[int], ...]:
    """For each positional argument of ``inner`` (a call in ``method``'s body), the position in
    ``call`` (a call of ``method`` through an object, ``self`` left out) of the argument it hands
    on: a parameter of ``method`` that its body does not assign before ``inner``; None for the
    rest, and for every argument where ``call`` spreads or passes by keyword."""
    if any(isinstance(a, ast.Starred) for a in call.args) or call.keywords:
        return tuple(None for _ in inner.args)
    positional = [a.arg for a in method.args.posonlyargs + method.args.args][1:]
    assigned = {name for sub in walk_nodes(method) if isinstance(sub, (ast.Assign, ast.AugAssign, ast.AnnAssign))
                and sub.lineno < inner.lineno
                for target in (sub.targets if isinstance(sub, ast.Assign) else [sub.target])
                for name in assigned_names(target)}
    found: List[Optional[int]] = []
    for argument in inner.args:
        name = argument.id if isinstance(argument, ast.Name) else ""
        at = positional.index(name) if name in positional and name not in assigned else None
        found.append(at if at is not None and at < len(call.args) else None)
    return tuple(found)


def result_used(scope: ast.AST, call: ast.Call) -> bool:
    """Whether ``call``, inside ``scope`` (a function, a statement), is more than a statement of
    its own: its result is shown, kept, returned or computed with."""
    return not any(isinstance(statement, ast.Expr) and statement.value is call for statement in walk_nodes(scope))
