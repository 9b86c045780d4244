"""The Python host reader's statement interpreter: a file's host code reduced to facts
(``analysis.host``).

It walks every function (and the module's top level) in statement order, keeping the
types of local names (``static_types``), and records kernel launches with the types of
what they pass, device allocations, blocking operations, clock reads, loops, and the
calls of the file's own functions (so that "in a loop" sees through them). Nothing is
imported or run. Each job beside the walk is a part of ``python.host`` (its docstring
lists them); the walk passes each part what it needs.

Types flow across the project's files: what objects of its classes hold (``grid.E``
where ``grid`` is an item of a list a ``Fields`` object filled), what its functions and
methods return, what every call of a function or method passes to its parameters
(``calls``). A file asks another file for these at one level less deep (``read_host``), so
the reading ends and gives the same whatever was read first.
"""

from __future__ import annotations

import ast
import contextlib
import os
from dataclasses import replace
from typing import Dict, Iterator, List, Optional, Sequence, Set, Tuple

from ...analysis.host import Arg, Event, HostFacts, KernelRef
from ..project import Project
from ..static_types import (NONE, ArrayType, DictType, ListType, Maybe, ScalarType, TupleType, TypeReader, appended,
                            classes_of, instance, instance_of, keyed_item, list_growth, loop_bindings, unpacked_items)
from ..syntax import FunctionNode, PyModule, Scope, child_nodes, mapped_items, tree_nodes, walk_nodes
from . import rates
from . import modes
from .arity import plain_def, unbindable, unknown_keyword, within_try
from .attributes import ClassAttributes, class_defaults, is_self_attribute
from .branches import DEAD, UNSET, either_type, leaves, narrowed
from .calls import MAX_VARIANT_DEPTH, ProjectCalls, result_used
from .class_modes import ClassModes
from .consulted import Consulted, Uses, merge, same_uses
from .classes import set_on
from .device_arrays import exposed_array
from .flags import FlagSplits
from .frames import Frame, place_of, within
from .frequency import frame_callbacks
from .functions import (call_parameters, changed_containers, jitted_only, left_out_side, names_called,
                        positional_parameters, receiver_of, unknown_items, untyped)
from .kernels import KernelResolver
from .launches import (LAUNCH_TEXT, calls_in_order, compile_target, gpu_compiled, handed_call, host_compiled,
                       launch_target, launches_through_factories)
from .wrappers import configured_call, unwrapped_call
from .loops import LoopReader, carried_places
from .names import bound_once_at_module, rebound, target_names
from .operations import (configured_gpu_kernel, cupy_operator, cupy_statement_events, element_loop, host_operation,
                         iterated, mpi_transfer, pycuda_launch, subscript_events, timed_through, ufunc_launch)
from .class_methods import class_method_calls, drives_class_methods
from .operator_calls import drives_operators, operator_call
from .options import parsed_options
from .dispatch import table_callees
from .sites import (compile_site, defines_cuda_ufuncs, drives_kernels, kernel_ref, launch_site, may_launch_kernels,
                    passed_args, written_arguments)
from .variants import MAX_CALL_VARIANTS, Variants


# the name a `for`'s iterator object is held under while its `__next__` is read (`_advanced`)
_ITERATOR = "<iterator>"
# statements whose expressions may index device arrays (an `if`'s or a `while`'s test alone)
_INDEXING = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.Return, ast.If, ast.While)


class HostReader:
    """Reads one file (``module``) of ``project``, ``level`` files deep across the project
    (``read_host``): ``read()`` gives its ``HostFacts``."""

    def __init__(self, project: Project, module: PyModule, level: int = 0):
        self.project = project
        self._level = level  # how many files deep it may look across the project (`read_host`)
        # read for another file's sake: only the types it asks for (no events, loops, launches)
        self._types_only = level < LEVELS
        self.consulted: Set[str] = set()  # the files whose facts the reading asked for
        self.uses: Uses = {}  # what it took from their facts, part by part (`consulted`)
        self._use_stack: List[Uses] = [self.uses]  # and, innermost last, what collects it apart
        self.module = module
        self.facts = HostFacts(module.path)
        self._record = False
        self._attrs = ClassAttributes(module.path)  # what the file's classes store in `self`
        self._loops = LoopReader(module)  # a loop's facts and kind, from its syntax
        self.kernels = KernelResolver(project, module, self)  # what a launch's target refers to
        self._module_frame: Optional[Frame] = None
        self._next_loop = 0
        # what the file's own calls pass to its functions: qualname -> [(positional, keywords)]
        # of their types, of the kernels they name, as written (`variants.PassedCalls`)
        self._passed: Dict[str, List[Tuple[List[object], Dict[str, object]]]] = {}
        self._passed_kernels: Dict[str, List[Tuple[List[Optional[KernelRef]], Dict[str, Optional[KernelRef]]]]] = {}
        self._passed_exprs: Dict[str, List[Tuple[List[ast.expr], Dict[str, ast.expr], "Frame"]]] = {}
        self._outgoing: Dict[Tuple[str, str], List[Tuple[List[object], Dict[str, object]]]] = {}  # other files' callees
        self._outgoing_variants: Dict[Tuple[str, str], List[Tuple[List[object], Dict[str, object]]]] = {}
        # types from other files (callers, helpers, subclasses) are read only for code that may
        # launch, or for another file that asks for this one's types (and then one level less deep)
        launching = bool(LAUNCH_TEXT.search(module.text)) and may_launch_kernels(project, module) or \
            self._configures_through_helper() or project.memo(
            "defines cuda ufuncs", module.tree, lambda: defines_cuda_ufuncs(module)) or (
            may_launch_kernels(project, module) and project.memo(
                "launches through factories", module.tree, lambda: any(
                    launches_through_factories(node, module) for node in tree_nodes(module.tree)
                    if isinstance(node, ast.ClassDef))))
        # a file that launches nothing itself but calls methods of objects whose classes launch
        # (a training script over a package of layers): what those cost comes from their own
        # files' readings; its own types need only a few files (`facts_of`)
        self._driving = level > 0 and not self._types_only and not launching and drives_kernels(project, module)
        self._gpu_code = level > 0 and (self._types_only or launching or self._driving
                                        or drives_operators(project, module)
                                        or drives_class_methods(project, module))
        # what calls of the project's own code give (objects, helpers' return types)
        self._calls = ProjectCalls(project, module, self._attrs, self, level, self._types_only, self._gpu_code)
        self._modes = ClassModes(project, module, self._attrs, self)  # this file's classes' modes
        self._targets: List[ast.expr] = []  # the targets the statement being read assigns
        self._minus: Dict[int, str] = {}  # id(call) -> the name subtracted from it (clock() - t0)
        # reading code again for its launches' signatures (`variants`): nothing else is recorded
        self._variant = False
        # a variant of a launching function per call from another file (`_caller_variants`):
        # its calls into other files are recorded, as that call's types passed on
        self._passing_on = False
        self._variants = Variants(project, module, self.kernels, self, self._attrs.subclasses_here, MAX_VARIANT_DEPTH)
        self._calls_read: tuple = ({}, {}, {})  # the same three, as the pass being read finds them
        # the module-level names the last pass bound to objects of the project's classes
        self._objects_bound: Dict[str, object] = {}
        # the module-level names bound once, with what the last pass read in them (`_late_bound`)
        self._late_bound: Dict[str, object] = {}
        self._bound_once: Optional[Set[str]] = None  # (`bound_once_at_module`, read once)
        self._reads = 0  # the passes over the file so far
        self._flags = FlagSplits()  # what `if`s on one flag say of each other
        self._statements: List[ast.stmt] = []  # the statements being read, innermost last
        self._element_loops: Set[int] = set()  # index loops inside one that reads device elements
        # reading a class's `__init__` (and its methods that store attributes) again in one
        # world of its mode tests (`modes`): the world and the tests' formulas (the class, and
        # what it stores in that world: `ClassAttributes.world_class`, `world_attributes`)
        self._world: Optional[Tuple[modes.World, Dict[int, tuple]]] = None

    def read(self) -> HostFacts:
        # first pass: what methods store in self.<attr> and what the file's calls pass; the
        # last records. A call's types that a later pass knows better (`exchange` passes an
        # array to `add_buffers`, defined above it, which passes it on to `add_buffers_gpu`)
        # have the last pass read again with them, a few times at most
        passes = [False, True]
        while passes:
            record = passes.pop(0)
            self._record = record
            self._next_loop = 0
            self._attrs.new_pass()  # the second pass knows every class of the file
            self._calls.new_pass()  # and what later methods store in `self`
            self._outgoing = {}
            self._outgoing_variants = {}
            self._calls_read = {}, {}, {}
            self.facts = HostFacts(self.module.path)
            frame = Frame(None, "", Scope(self.module))
            self._module_frame = frame
            stored = repr(self._attrs.through_parameters)
            self.read_body(self.module.tree.body, frame)
            self._objects_bound = {name: value for name, value in frame.env.items()
                                   if instance_of(value) is not None}
            if self._bound_once is None:
                self._bound_once = bound_once_at_module(self.module.tree)
            # what a script binds below the functions it then calls (`n = args.n` in its `__main__`
            # block, read by the functions above it): a function runs once the module has
            self._late_bound = {name: value for name, value in frame.env.items()
                                if name in self._bound_once and value is not None and instance_of(value) is None}
            # (code that launches no kernel: its types matter to no launch; a helper below the
            # launch storing in the object it is handed is read again as well)
            if record and self._gpu_code and self._reads + 1 < MAX_READS and (repr(self._calls_read[0]) != repr(
                    self._passed) or stored != repr(self._attrs.through_parameters)):
                self._passed, self._passed_kernels, self._passed_exprs = self._calls_read
                passes.append(True)
            self._reads += 1
        self._finish_facts()
        return self.facts

    def _finish_facts(self) -> None:
        """The facts of the whole file, once its statements are read (the last pass's): its
        module-level names' types, the calls it makes into other files, its classes'
        attributes, bases and modes. A fact about the whole file is added here."""
        self.facts.globals = dict(self._module_frame.env)
        self.facts.outgoing = self._outgoing
        self.facts.outgoing_variants = self._outgoing_variants
        self.facts.classes_held = set(self._calls.classes_named)
        self._attrs.finish(self.facts)
        if self._gpu_code:
            for statement in self.module.tree.body:
                if isinstance(statement, ast.ClassDef):
                    found = self._modes.of(statement.name)
                    if found:
                        self.facts.class_modes[statement.name] = found

    # -- statements ---------------------------------------------------------------

    def read_body(self, body: Sequence[ast.stmt], frame: Frame) -> None:
        for statement in body:
            self._statement(statement, frame)

    def _statement(self, statement: ast.stmt, frame: Frame) -> None:
        """One statement; a failure of kernlint's own on it is a KL905 there, and the reading
        goes on with the next statement (a compound statement's inner ones fail alone)."""
        self._statements.append(statement)
        try:
            self._read_statement(statement, frame)
        except RecursionError:
            raise  # the whole file nests too deeply: its caller decides
        except Exception as exc:  # noqa: BLE001 - kernlint's bug, located; the rest is still read
            self.project.failed(self.module.path, statement.lineno, statement.col_offset + 1,
                                "reading host code", exc)
        finally:
            self._statements.pop()

    def _read_statement(self, statement: ast.stmt, frame: Frame) -> None:
        if self._record and not self._variant and not self._types_only and isinstance(statement, _INDEXING):
            # `d_x[idx] = host_vals`, `d[mask]`: what indexing device arrays costs
            # (inside a loop over indices that reads device elements, that loop is the one event)
            self.facts.events.extend(subscript_events(statement, frame, self.module, self.types(frame), not any(
                id(outer) in self._element_loops for outer in self._statements)))
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in statement.decorator_list:
                self._expr(decorator, frame)
            if self.module.kernel_for(statement) is not None or gpu_compiled(
                    statement, self.module, frame.scope) is not None or self.project.memo(
                    "jitted only", statement, lambda: jitted_only(self.module, statement, self.project.memo(
                        "names called", self.module.tree, lambda: names_called(self.module.tree)))):
                return  # device code: not host code
            qualname = f"{frame.qualname}.{statement.name}" if frame.qualname else statement.name
            if not self._types_only:
                self.facts.rebound[qualname] = set(self.project.memo("rebound", statement, lambda: rebound(
                    statement.body)))
                self.facts.parameters[qualname] = call_parameters(statement, frame)
            # a method (and what is nested in it) sees the class's `self`
            inner = Frame(statement, qualname, frame.scope.inner(statement), {}, frame, frame.owner)
            inner.env.update(self._calls.parameter_types(statement, qualname, frame, self._passed.get(qualname, []),
                                                          self.types(frame)))
            receiver = receiver_of(statement, frame)
            if receiver is not None:  # `self`: an object of the class (passed on, `self.x` of a base)
                inner.env[receiver] = instance(self.module.path, frame.owner)
            if id(statement) in self.project.memo("frame callbacks", self.module.tree,
                                                  lambda: frame_callbacks(self.module.tree)):
                # `FuncAnimation(fig, update, frames=n)`: its body runs once per frame, a loop of its own
                inner = within(inner, self._loop(statement, "for", inner))
            self.read_body(statement.body, inner)
            if self._record and not self._variant:
                self._caller_variants(statement, qualname, frame, inner)
            if self._record and not self._variant and not self._types_only and (self.project.memo(
                    "launches or compiles", statement, lambda: any(
                        isinstance(sub, ast.Call)
                        and (launch_target(sub) is not None or compile_target(sub) is not None)
                        for sub in walk_nodes(statement))) or self.project.memo(
                        "hands to a launcher", statement, lambda: self._variants.hands_to_launcher(statement, frame))):
                self._variants.calls(statement, qualname, frame, inner,
                                     (self._passed, self._passed_kernels, self._passed_exprs))
            return
        if isinstance(statement, ast.ClassDef):
            qualname = f"{frame.qualname}.{statement.name}" if frame.qualname else statement.name
            bases = []
            for base in statement.bases:
                dotted = self._dotted(base, frame)
                found = self.project.definition(dotted, self.module) if dotted else None
                if found is not None and found[1].kind == "class":
                    bases.append((found[0].path, found[1].name))
            self._attrs.bases[qualname] = bases
            klass = Frame(None, qualname, frame.scope, {}, frame, qualname, owner_node=statement)
            methods = [s for s in statement.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
            rest = [s for s in statement.body if s not in methods]
            init = [m for m in methods if m.name == "__init__"]
            self.read_body(rest, klass)
            for name, kind in class_defaults(statement, klass.env, lambda e: self._dotted(e, klass)).items():
                self._attrs.store(name, kind, None, klass)
            self.read_body(init + [m for m in methods if m.name != "__init__"], klass)
            return
        if isinstance(statement, (ast.Assign, ast.AnnAssign)):
            if statement.value is None:
                return
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            self._targets = targets
            self._expr(statement.value, frame)
            self._targets = []
            self._cupy_statement(statement, frame)
            for target in targets:
                self._assign(target, statement.value, frame)
            return
        if isinstance(statement, ast.AugAssign):
            self._expr(statement.value, frame)
            self._cupy_statement(statement, frame)
            if isinstance(statement.op, ast.Add) and not self._variant:
                # `attrs += [(ion, 'w')]`: a list extended by what is added (an array's `+=` keeps its type)
                added = self.types(frame).type_of(statement.value)
                if isinstance(added, ListType):
                    self._append_kind(statement.target, added.item, frame)
            if isinstance(statement.op, ast.Add) and isinstance(statement.target, ast.Name) and isinstance(
                    frame.env.get(statement.target.id), TupleType):
                # `dim += (len(v),)`: a tuple made longer (in a loop, by as many items as it runs: unknown)
                added = self.types(frame).type_of(statement.value)
                frame.env[statement.target.id] = TupleType(frame.env[statement.target.id].items + added.items) if (
                    isinstance(added, TupleType) and not frame.loops) else None
            return
        if isinstance(statement, (ast.For, ast.AsyncFor)):
            self._expr(statement.iter, frame)
            if self._record and not self._variant and not self._types_only:
                walked = iterated(statement, frame, self.module, self.types(frame))  # `for v in d_x`
                if walked is None and id(statement) not in self._element_loops:
                    walked = element_loop(statement, frame, self.module, self.types(frame), self.project.memo(
                        "rebound", statement, lambda: rebound(statement.body)),  # `for i in range(n): d[i]`
                        set(self.facts.parameters.get(frame.qualname, ((), None, ()))[2]) if frame.function else set())
                    if walked is not None:  # the outermost index loop is the event: not the loops in it
                        self._element_loops.update(id(n) for n in walk_nodes(statement) if isinstance(n, ast.For))
                if walked is not None:
                    self.facts.events.append(walked)
            loop = self._loop(statement, "for", frame)
            inner = within(frame, loop)
            self._advanced(statement, inner)
            values = self._variants.loop_values(statement, frame)
            alike = bool(values) and all(v == values[0] for v in values)
            if isinstance(statement.iter, ast.Call) and self._dotted(statement.iter.func, frame) == "builtins.range":
                for name in target_names(statement.target):
                    frame.env[name] = ScalarType("int64")
            else:
                for name in target_names(statement.target):  # what every pass binds alike
                    frame.env[name] = values[0].get(name) if values and all(
                        bound.get(name) == values[0].get(name) for bound in values) else None
                for name, kind in loop_bindings(statement.target, statement.iter, self.types(frame)):
                    if kind is not None:
                        frame.env[name] = kind
            started = len(self.facts.events)
            self.read_body(statement.body, inner)
            carried_places(self.facts.events[started:], frame.env, self.project.memo(
                "rebound", statement, lambda: rebound(statement.body)))
            if values and not alike and not self._variant and self._record and not self._types_only:
                self._variants.loop(statement, values, frame, inner)
            self.read_body(statement.orelse, frame)
            return
        if isinstance(statement, ast.While):
            loop = self._loop(statement, "while", frame)
            inner = within(frame, loop)
            self._expr(statement.test, inner)
            self._cupy_statement(statement, inner)
            started = len(self.facts.events)
            self.read_body(statement.body, inner)
            carried_places(self.facts.events[started:], frame.env, self.project.memo(
                "rebound", statement, lambda: rebound(statement.body)))
            self.read_body(statement.orelse, frame)
            return
        if isinstance(statement, ast.If):
            self._expr(statement.test, frame)
            self._cupy_statement(statement, frame)
            if self._world is not None and id(statement.test) in self._world[1]:
                held = modes.holds(self._world[1][id(statement.test)], self._world[0])
                if held is not None:  # a mode test this world decides: only its side runs
                    self.read_body(statement.body if held else statement.orelse, frame)
                    return
            reader = self.types(frame)
            when_true, when_false = narrowed(statement.test, reader)
            dead_body, dead_else = when_true.pop(DEAD, False), when_false.pop(DEAD, False)
            # a side that leaves (`if u is None: raise ...`) binds nothing for what follows
            leaves_body, leaves_else = leaves(statement.body), leaves(statement.orelse)
            # held here, so that both sides restore it; an attribute (`ps.V`) only for the branches
            attributes = {name for name in set(when_true) | set(when_false) if "." in name and name not in frame.env}
            for name in set(when_true) | set(when_false):
                frame.env.setdefault(name, reader.type_of(ast.parse(name, mode="eval").body))
            flag = self._flags.tested(statement.test, frame.env)
            if flag is not None:  # names an earlier `if` on the same flag bound: its side's value
                self._flags.sides(flag, frame.env, when_true, when_false)
            before = dict(frame.env)
            frame.env.update(when_true)
            self.read_body(statement.body, frame)
            taken = dict(frame.env)
            frame.env.clear()  # the same dict the loops' frames share: changed in place
            frame.env.update(before)
            frame.env.update(when_false)
            self.read_body(statement.orelse, frame)
            if (dead_body or leaves_body) and not (dead_else or leaves_else):
                pass  # what the side that never runs (or never goes on) binds is not bound after it
            elif (dead_else or leaves_else) and not (dead_body or leaves_body):
                frame.env.clear()
                frame.env.update(taken)
            else:
                left_out = left_out_side(statement.test, frame.function, before)
                for name in set(taken) | set(frame.env):
                    one, other = taken.get(name, before.get(name)), frame.env.get(name, before.get(name))
                    both_bind = name in before or (name in taken and name in frame.env)
                    given, default = (other, one) if left_out else (one, other)
                    if both_bind and left_out is not None and untyped(given) and not untyped(default):
                        # `if data is not None: grid = data` / `else: grid = np.zeros(...)`, `data`
                        # untyped: the array a call leaving `data` out runs with
                        frame.env[name] = default
                    else:
                        frame.env[name] = either_type(one, other, both_bind)
                    self._flags.merged(flag, name, one, other, frame.env)
            for name in attributes:
                frame.env.pop(name, None)
            return
        if isinstance(statement, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            self.read_body(statement.body, frame)
            for handler in statement.handlers:
                self.read_body(handler.body, frame)
            self.read_body(statement.orelse, frame)
            self.read_body(statement.finalbody, frame)
            return
        if isinstance(statement, (ast.With, ast.AsyncWith)):
            entering = len(self.facts.events)
            for item in statement.items:
                self._expr(item.context_expr, frame)
                if item.optional_vars is not None:
                    for name in target_names(item.optional_vars):
                        frame.env[name] = None
            # `with stream.auto_synchronize():` waits for the stream when the block is left, after its body
            leaving = [e for e in self.facts.events[entering:] if e.detail.get("on_exit")]
            self.facts.events[entering:] = [e for e in self.facts.events[entering:] if not e.detail.get("on_exit")]
            self.read_body(statement.body, frame)
            self.facts.events.extend(leaving)
            return
        for child in child_nodes(statement):
            if isinstance(child, ast.expr):
                self._expr(child, frame)
        self._cupy_statement(statement, frame)

    def _records_events(self) -> bool:
        return self._record and not self._variant and not self._types_only

    def _uses_cupy(self) -> bool:
        """Whether the file imports CuPy: only there are operators and statements read for the
        kernels CuPy queues (an array's type says whose it is)."""
        return self.project.memo("imports cupy", self.module.tree, lambda: any(
            isinstance(node, ast.Import) and any(alias.name.split(".")[0] == "cupy" for alias in node.names)
            or isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "cupy"
            for node in tree_nodes(self.module.tree)))

    def _cupy_statement(self, statement: ast.stmt, frame: Frame) -> None:
        if self._records_events() and self._uses_cupy():
            self.facts.events.extend(cupy_statement_events(statement, frame, self.module, self.types(frame)))

    @contextlib.contextmanager
    def again(self, frame: Frame) -> Iterator[None]:
        """Reading done again for its launches' signatures alone: what it changes is undone."""
        saved = dict(frame.env), self._attrs.saved(), self._next_loop, dict(self.facts.loops), self._variant
        self._variant = True
        try:
            yield
        finally:
            env, attributes, self._next_loop, loops, self._variant = saved
            self._attrs.restore(attributes)
            frame.env.clear()  # the dict the frames share: restored in place
            frame.env.update(env)
            self.facts.loops = loops

    def _caller_variants(self, function: FunctionNode, qualname: str, outer: Frame, inner: Frame) -> None:
        """A launching function that other files call with different types, read once more per
        call that types a parameter the calls together leave unknown: its launches give that
        call's signature, and its calls into other files pass that call's types on
        (``outgoing_variants``), so a test's arrays reach the launch through the wrappers
        between."""
        calls = self._calls.caller_variants(function, qualname, outer, self._passed.get(qualname, []))
        if not calls:
            return
        positional = positional_parameters(function, outer)
        named = positional + function.args.kwonlyargs
        base = dict(inner.env)
        with self.again(inner):
            self._passing_on = True
            try:
                for passed, keywords in calls[:MAX_CALL_VARIANTS]:
                    env = dict(base)
                    for index, arg in enumerate(named):
                        kind = keywords.get(arg.arg) if arg.arg in keywords else (
                            passed[index] if index < len(passed) and index < len(positional) else None)
                        if kind is not None:  # what this call passes, over what the calls together say
                            env[arg.arg] = kind
                    if env == base:
                        continue  # the calls agree on what this one says: the first reading had it
                    inner.env.clear()
                    inner.env.update(env)
                    self.read_body(function.body, inner)
            finally:
                self._passing_on = False

    def _advanced(self, statement: ast.stmt, frame: Frame) -> None:
        """``for state in generator:`` over an object of a class of the project that defines
        ``__next__``: each iteration runs it. Read as a call of it in the loop (``frame``), at the
        iterable, marked ``advances`` (its rate is the loop's iterations)."""
        iterable = statement.iter
        target = statement.target
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "enumerate" \
                and iterable.args and isinstance(target, ast.Tuple) and len(target.elts) == 2:
            iterable, target = iterable.args[0], target.elts[1]  # `for k, state in enumerate(states)`
        if not isinstance(iterable, (ast.Name, ast.Attribute, ast.Call)):
            return
        kind = self.types(frame).type_of(iterable)
        if not classes_of(kind):
            return  # (not an object of a class of the project)
        # the iterator, read once above with the `for`'s header: held here under a name of its own
        held = ast.copy_location(ast.Name(id=_ITERATOR, ctx=ast.Load()), iterable)
        frame.env[_ITERATOR] = kind
        call = ast.Call(func=ast.Attribute(value=held, attr="__next__", ctx=ast.Load()), args=[], keywords=[])
        ast.copy_location(call.func, iterable)
        ast.copy_location(call, iterable)
        started = len(self.facts.events)
        try:
            self._expr(call, frame)
        finally:
            frame.env.pop(_ITERATOR, None)
        for event in self.facts.events[started:]:
            callee = str(event.detail.get("callee", ""))
            if event.kind == "call" and callee.endswith(".__next__"):
                kept = self._kept_by(str(event.detail.get("path", "")) or self.module.path, callee)
                # what the iterator changes in itself on each `__next__` (`self.current_state`): a
                # stream it produces, step by step
                event.detail["advances"] = f"`{callee}` changes `{kept}`" if kept else True
                # what it returns is the loop's item: read where the body reads the item
                targets = set(target_names(target))
                event.detail["result_names"] = sorted(targets)
                if any(isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load) and sub.id in targets
                       for part in statement.body for sub in walk_nodes(part)):
                    event.detail["result_read"] = True

    def _kept_by(self, path: str, qualname: str) -> str:
        """An attribute of ``self`` that the method ``qualname`` of the file at ``path`` changes:
        assigns from something other than a constant, or adds to ("" if none)."""
        module = self.project.module(path)
        node = self._calls.function_named(module, qualname) if module is not None else None
        for sub in walk_nodes(node) if node is not None else ():
            targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target] if isinstance(
                sub, (ast.AugAssign, ast.AnnAssign)) and sub.value is not None else []
            for target in targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and \
                        target.value.id == "self" and (isinstance(sub, ast.AugAssign) or not isinstance(
                            sub.value, ast.Constant)):
                    return ast.unparse(target)
        return ""

    def _loop(self, node: ast.AST, kind: str, frame: Frame) -> int:
        self._next_loop += 1
        number = self._next_loop
        if not self._types_only:
            self.facts.loops[number] = self._loops.read(node, kind, frame, number)
        return number

    def _assign(self, target: ast.expr, value: ast.expr, frame: Frame) -> None:
        if (self._record and isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant)
                and target.slice.value == "NUMBA_CUDA_MEMORY_MANAGER"
                and self._dotted(target.value, frame) == "os.environ"):
            self.facts.pools.add("numba")
        if isinstance(target, ast.Name):
            frame.env[target.id] = self.value_type(value, frame)
            held = frame.env[target.id]
            if isinstance(held, DictType) and held.keys or isinstance(held, ListType) and held.items:
                # changed elsewhere: what each key (or index) holds is unknown
                frame.env[target.id] = unknown_items(held, target.id, self.project.memo(
                    "changed containers", frame.function or self.module.tree,
                    lambda: changed_containers(frame.function or self.module.tree)))
            self._flags.assigned(target.id, value, frame.env)
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = value.elts if isinstance(value, (ast.Tuple, ast.List)) else self.project.memo(
                "mapped items", value, lambda: mapped_items(value, lambda e: self._dotted(e, frame)))
            if items is not None and len(items) == len(target.elts):
                for element, item in zip(target.elts, items):
                    self._assign(element, item, frame)
                return
            kind = self.value_type(value, frame)
            held = self.types(frame).type_of(value.value) if isinstance(value, ast.Attribute) else None
            if kind is None and held is not None and value.attr == "shape" and isinstance(
                    held.value if isinstance(held, Maybe) else held, ArrayType):
                # `b, c, h, w = img.shape` of an array of unknown rank: its sizes are Python ints all the same
                kind = TupleType(tuple(ScalarType("int64", weak=True) for _ in target.elts))
            items = kind.items if isinstance(kind, TupleType) else unpacked_items(kind, len(target.elts))
            for index, element in enumerate(target.elts):
                item = items[index] if items is not None and index < len(items) else None
                if isinstance(element, ast.Name):
                    frame.env[element.id] = item
                elif is_self_attribute(element, frame):  # self.kz, self.kr = np.meshgrid(kz, kr)
                    self._attrs.store(element.attr, item, None, frame)
        elif is_self_attribute(target, frame):
            kind = self.value_type(value, frame)
            self._attrs.store(target.attr, kind, value, frame)
            if isinstance(kind, ArrayType) and kind.where and frame.function is not None:
                # below this in the method, `self.x` is the array just stored, whatever else (`None`
                # in `__init__`) the class stores there: a layer's `forward` making its output
                frame.env[f"self.{target.attr}"] = kind
            else:
                frame.env.pop(f"self.{target.attr}", None)
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
            # `sim.d_u = cuda.to_device(u)` on an object of a project class a parameter holds
            where = instance_of(self.types(frame).type_of(target.value))
            if where is not None:
                self._attrs.store_through(where, target.attr, self.value_type(value, frame))
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and isinstance(
                frame.env.get(target.value.id), DictType):
            held, key, stored = frame.env[target.value.id], target.slice, self.value_type(value, frame)
            if held.keys:
                # `state["pos_x"] = v` of a literal's dict: that key's value from here on
                literal = isinstance(key, ast.Constant) and isinstance(key.value, str)
                kept = tuple((k, kind) for k, kind in held.keys if not literal or k != key.value)
                frame.env[target.value.id] = replace(held, keys=kept + ((key.value, stored),) if literal else ())
            elif held.value is None:
                # `model = {}` (or `dict()`), then `model[name] = np.fromfile(...)`: a dict of those
                frame.env[target.value.id] = DictType(stored)
            else:
                frame.env[target.value.id] = DictType(appended(ListType(held.value), stored).item)
        elif keyed_item(target, keys=(str,)) is not None and is_self_attribute(target.value, frame):
            # `self.data["params"] = np.array(p)`: kept as an attribute of its own, read back by key
            self._attrs.store(keyed_item(target, keys=(str,)), self.value_type(value, frame), value, frame)
        elif keyed_item(target) is not None:
            # `self.user_data["rng"] = create_xoroshiro128p_states(...)`: what that key holds
            where = instance_of(self.types(frame).type_of(target.value.value))
            if where is not None:
                self._attrs.store_through(where, keyed_item(target), self.value_type(value, frame))

    def _member(self, obj, attr: str, depth: int = 0):
        """An attribute of an object of a project class: what its class stores, else (where
        that is nothing or None) what this file's functions store in such objects."""
        value = self._calls.member(obj, attr, depth)
        if value is None or value == NONE:
            stored = self._stored_through(instance_of(obj), attr)
            if stored is not None:
                return stored
        return value

    def _stored_through(self, where: Optional[Tuple[str, str]], attr: str, depth: int = 0):
        """What functions store in ``<attr>`` of objects of the class at ``where`` (path, name),
        or of a base: this file's functions, and those of the files the class's file imports
        (a class's method calling ``gpu_utils.send_to_gpu(self)``)."""
        if where is None or depth > 4:
            return None
        found = self._attrs.stored_through(where, attr)
        path, klass = where
        if found is None and path != self.module.path:
            for helper in sorted(self.project.direct_imports(path)):
                facts = self.facts_of(helper) if helper != self.module.path else None
                found = facts.stored_through.get(where, {}).get(attr) if facts is not None else None
                if found is not None:
                    return found
        if found is None:
            facts = self.facts_of(path) if path != self.module.path else None
            bases = self._attrs.bases.get(klass, []) if path == self.module.path else (
                facts.class_bases.get(klass, []) if facts is not None else [])
            for base in bases:
                found = self._stored_through(base, attr, depth + 1)
                if found is not None:
                    break
        return found

    def value_type(self, value: ast.expr, frame: Frame):
        reader = self.types(frame)
        kind = reader.type_of(value)
        if kind is None and isinstance(value, ast.Call):  # `args = parser.parse_args()`
            kind = parsed_options(value, frame.function or self.module.tree, reader)
        if kind is None:
            dtype = reader.dtype(value)
            if dtype is not None and not isinstance(value, ast.Constant):
                return dtype  # a dtype alias: DTYPE = np.float32
        return kind

    def read_worlds(self, worlds, tests: Dict[int, tuple], klass: str, methods: List[FunctionNode], outer: Frame
                    ) -> List[Tuple[tuple, Dict[str, object]]]:
        """``klass``'s ``methods`` (``outer``: the class body's frame) read again in each of
        ``worlds`` of its mode ``tests`` (id(test) -> formula): [(the world's items, what they
        store in that world)]; nothing else the readings find is kept."""
        saved = (self._variant, self._world, self._attrs.world_class, self._attrs.world_attributes)
        launches, events = len(self.facts.passed_launches), len(self.facts.events)
        readings = []
        try:
            for world in worlds:
                self._variant, self._world = True, (world, tests)
                self._attrs.world_class, self._attrs.world_attributes = klass, {}
                for method in methods:
                    inner = Frame(method, f"{klass}.{method.name}", outer.scope.inner(method), {}, outer, klass)
                    inner.env.update(self._calls.parameter_types(
                        method, f"{klass}.{method.name}", outer, self._passed.get(f"{klass}.{method.name}", []),
                        self.types(outer)))
                    inner.env[method.args.args[0].arg] = instance(self.module.path, klass)
                    self.read_body(method.body, inner)
                readings.append((tuple(world.items()), self._attrs.world_attributes))
        finally:
            self._variant, self._world, self._attrs.world_class, self._attrs.world_attributes = saved
            del self.facts.passed_launches[launches:], self.facts.events[events:]
        return readings

    def facts_of(self, path: str) -> Optional[HostFacts]:
        """Another file's host facts, read for this one's sake one file less deep (code that
        neither launches nor names a GPU library asks only for what the file itself says)."""
        module = self.project.module(path) if self._level > 0 else None
        if module is None:
            return None
        self.consulted.add(path)
        depth = self._level - 1 if self._gpu_code else 0
        # (a driving file read as deep as a launching one re-reads the package below it, and each
        # of its other importers, at every level: minutes on a simulation with dozens of scripts)
        facts = read_host(self.project, module, min(depth, DRIVING_LEVELS) if self._driving else depth)
        return Consulted(facts, self._use_stack[-1].setdefault(path, {}))

    @contextlib.contextmanager
    def uses_captured(self) -> Iterator[Uses]:
        taken: Uses = {}
        self._use_stack.append(taken)
        try:
            yield taken
        finally:
            self._use_stack.pop()
            merge(self._use_stack[-1], taken)

    def uses_replayed(self, uses: Uses) -> None:
        merge(self._use_stack[-1], uses)

    def _append_kind(self, target: ast.expr, kind, frame: Frame) -> None:
        """A list (a name, or ``self.x``) given an item of this type (None: unknown, so mixed)."""
        if isinstance(target, ast.Name):
            current: Optional[Frame] = frame
            while current is not None and target.id not in current.env:
                current = current.parent
            if current is not None and isinstance(current.env[target.id], ListType):
                current.env[target.id] = appended(current.env[target.id], kind)
        elif is_self_attribute(target, frame):
            self._attrs.append((frame.owner, target.attr), kind)
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
            # `window.panels.append(Blur())` on an object of a class of this file: its list
            where = instance_of(self.types(frame).type_of(target.value))
            if where is not None and where[0] == self.module.path:
                self._attrs.append((where[1], target.attr), kind)

    # -- expressions ----------------------------------------------------------------

    def _expr(self, expr: ast.expr, frame: Frame) -> None:
        if self._record:
            for sub in self.project.memo("subtractions", expr, lambda: [
                    sub for sub in walk_nodes(expr) if isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Sub)
                    and isinstance(sub.right, ast.Name) and isinstance(sub.left, (ast.Call, ast.Name))]):
                if isinstance(sub.left, ast.Call):
                    self._minus[id(sub.left)] = sub.right.id
                else:
                    self.facts.intervals.setdefault(frame.qualname, set()).add((sub.left.id, sub.right.id))
        operands: Optional[TypeReader] = None  # types of operands, each read once while no call runs
        for node, generators in self.project.memo("calls and operators in order", expr,
                                                  lambda: calls_in_order(expr, operators=True)):
            if not isinstance(node, ast.Call):
                if self._records_events() and self._uses_cupy():
                    operands = operands or self.types(frame).memoised()
                    queued = cupy_operator(node, frame, self.module, operands)
                    if queued is not None:  # `z - ys` on CuPy arrays: CuPy's elementwise kernel
                        self.facts.events.append(queued)
                        continue
                if not self._gpu_code:
                    continue
                # `x @ w + b` on a project class's objects: the methods it calls, where it is written
                operands = operands or self.types(frame).memoised()
                node = operator_call(node, operands, self._calls.method_called)
                if node is None:
                    continue
            operands = None  # a call may bind what a later operand reads (`xs.append(x)`)
            if not generators:
                self._call(node, frame)
                continue
            # a call in a comprehension (`[launch(a) for a in arrays]`): its variables bound
            # while it is read, as a `for` loop binds them
            saved: Dict[str, object] = {}
            for generator in generators:
                for name, kind in loop_bindings(generator.target, generator.iter, self.types(frame)):
                    saved.setdefault(name, frame.env.get(name, UNSET))
                    frame.env[name] = kind
            try:
                self._call(node, frame)
            finally:
                for name, value in saved.items():
                    if value is UNSET:
                        frame.env.pop(name, None)
                    else:
                        frame.env[name] = value

    def _call(self, call: ast.Call, frame: Frame) -> None:
        started = len(self.facts.events)
        self._read_call(call, frame)
        if self._statements and isinstance(self._statements[-1], ast.Return) and self._statements[-1].value is call:
            for event in self.facts.events[started:]:
                if event.kind == "call":
                    event.detail["returned"] = True  # `return self.advance()`: its caller gets what it gives
        if any(isinstance(part, ast.Name) and part.id == "self" for part in (
                getattr(call.func, "value", None), *call.args, *(k.value for k in call.keywords))):
            # a method of the object (or a function given it) may store other arrays in it: what
            # the method stored before (`self.out = np.zeros(...)`) may no longer be there after
            for name in [name for name, kind in frame.env.items()
                         if name.startswith("self.") and isinstance(kind, ArrayType)]:
                del frame.env[name]

    def _read_call(self, call: ast.Call, frame: Frame) -> None:
        # `step_ = timer(step, verbose)` ... `step_(x)`: the call runs `step` (read as `step(x)`)
        unwrapped = self.project.memo("unwrapped call", call, lambda: unwrapped_call(
            call, frame.function, frame.scope, self.module, self.project))
        if unwrapped is not None:
            call = unwrapped
        # `launcher(k, n)(x)`: a helper returns `k` configured (`return kernel[blocks, threads]`)
        configured = self.project.memo("configured call", call, lambda: configured_call(
            call, frame.scope, self.module, self.project))
        if configured is not None:
            call = configured
        handed = handed_call(call, self._dotted(call.func, frame))
        if handed is not None:  # `pool.map(use_foo, arrays)`: `use_foo` called with an item
            self._call(handed, frame)
        named = set_on(call, "self")
        if named is not None and len(call.args) == 3:
            target = ast.Attribute(value=call.args[0], attr=named, ctx=ast.Store())
            self._assign(ast.copy_location(target, call), call.args[2], frame)  # setattr(self, "x", v)
        grown = list_growth(call, self.types(frame)) if not self._variant and isinstance(
            call.func, ast.Attribute) and call.func.attr in ("append", "extend") else None
        if grown is not None:  # `xs.append(v)`, `xs.extend(arr)`: the items the list holds
            self._append_kind(*grown, frame)
        if not self._variant:
            # this file's own calls in the first pass (the second reads their types); other
            # files' callees in the last, when what later methods store in `self` is known
            reader = self.types(frame)
            callee = self._calls.callee(call, frame, reader) or self._calls.constructed(call, frame)
            elsewhere = None if callee is not None else self._calls.callee_elsewhere(call, frame, reader)
            if (callee is not None or (elsewhere is not None and self._record)) and not any(
                    isinstance(a, ast.Starred) for a in call.args):
                # a dtype passed (`self._test(np.int16)`) as the dtype string names hold
                passed = ([self.value_type(a, frame) for a in call.args],
                          {k.arg: self.value_type(k.value, frame) for k in call.keywords if k.arg})
                if callee is not None:
                    # the first pass reads them as it goes; the last, those of the pass before it
                    types, kernels, exprs = self._calls_read if self._record else (
                        self._passed, self._passed_kernels, self._passed_exprs)
                    types.setdefault(callee, []).append(passed)
                    exprs.setdefault(callee, []).append(
                        (list(call.args), {k.arg: k.value for k in call.keywords if k.arg}, frame))
                    kernels.setdefault(callee, []).append(
                        ([self.kernels.ref(a, frame) for a in call.args],
                         {k.arg: self.kernels.ref(k.value, frame) for k in call.keywords if k.arg}))
                else:
                    self._outgoing.setdefault(elsewhere, []).append(passed)
            if not self._record or self._types_only:
                return
        elif self._passing_on and self._record:
            reader = self.types(frame)
            elsewhere = self._calls.callee_elsewhere(call, frame, reader) \
                if self._calls.callee(call, frame, reader) is None else None
            if elsewhere is not None and not any(isinstance(a, ast.Starred) for a in call.args):
                self._outgoing_variants.setdefault(elsewhere, []).append(
                    ([self.value_type(a, frame) for a in call.args],
                     {k.arg: self.value_type(k.value, frame) for k in call.keywords if k.arg}))
            if self._types_only:
                return
        if self._variant:
            self._variants.nested(call, frame)
        compiled = compile_site(call, frame, self.module, self.kernels, self._variants.kernel_parameters,
                                self._variants.parameter_exprs)
        if compiled is not None:
            self.facts.passed_launches.append(compiled)  # the types it compiles for: a signature, not an event
            return
        receiver = frame.function.args.args[0].arg if frame.owner and frame.function is not None and \
            frame.function.args.args else None
        tabled = table_callees(call, frame.scope, self.module, frame.owner, receiver)
        for callee in tabled:  # `self.modes[mode](self, dt)`: one of the table's functions, not a launch
            self.facts.events.append(Event("call", place_of(self.module.path, call), frame.qualname, frame.loops,
                                           what=callee, detail={"callee": callee, "among": len(tabled)}))
        if tabled:
            return
        launched = launch_target(call) or self.kernels.configured_launch(call, frame) or configured_gpu_kernel(
            call, frame, self.module, lambda target: self.kernels.resolve(target, frame) is not None)
        if launched is not None:
            target, stream = launched
            picked = self.kernels.resolve_all(target, frame)  # one launch, each kernel the code may pick
            if not picked and self._host_compiled(target, frame):
                return  # `f[grid, block](...)` of a CPU `@njit` function: not subscriptable, nothing launches
            ref = kernel_ref(picked[0] if picked else None, target, self._variants.kernel_parameters)
            launch = launch_site(call, target, stream, frame, self.module.path, ref, self.types(frame),
                                 # `__cuda_array_interface__` holders
                                 lambda kind: exposed_array(self.project, kind, self._calls.member) or kind)
            written = written_arguments(call, picked) if launch.host_arrays else []
            if written:  # what numba-cuda's copy back after the launch brings the host (`rates` weighs its reads)
                launch.detail["writes"] = written
            if not picked and self._library_kernel(target, frame):
                launch.detail["library_kernel"] = True  # CuPy launches it on CuPy's arrays as they are
            raises = self._unbindable_launch(call, picked)
            if raises:
                launch.detail["raises"] = f"`{ast.unparse(target)}` {raises}"
            if ref is not None and launch.signature is None:
                statement = self._statements[-1] if self._statements else None
                for typed in self._modes.launch_arguments(  # one signature per mode it may be in
                        call, list(launch.args), frame, self.types(frame), statement):
                    self.facts.passed_launches.append(replace(launch, args=typed))
            for other in picked[1:]:  # the others it may start: their signatures, one event
                self.facts.passed_launches.append(replace(launch, kernel=KernelRef(other.module.path, other.qualname)))
            if self._variant:
                if ref is not None:
                    self.facts.passed_launches.append(launch)  # a signature, not an event
                return
            self.facts.events.append(launch)  # a kernel it is given, `*args`: each call's variant types it
            return
        if self._variant:
            return
        # a CUDA ufunc's call, a PyCUDA function's with `drv.In(x)`: launches, though the project
        # defines the function or binds it to an attribute
        started = ufunc_launch(call, frame, self.module, self.types(frame)) or pycuda_launch(call, frame, self.module)
        if started is not None:
            self.facts.events.append(started)
            return
        through = self._timed_through(call, frame)
        if through is not None:  # `_timeit_fast(lambda: step(x))`: a helper times what the call passes
            self.facts.events.append(Event("timed", place_of(self.module.path, call), frame.qualname, frame.loops,
                                           what=str(through.pop("what")), detail={"assigned": [], **through}))
        for path, method, forwarded, used in self._calls.receiver_overrides(call, self.types(frame)):
            # `panel.show(image)`, `show` a base's that calls `self.render`: the panel's own `render` counts here,
            # called with what the base's method passes: this call's arguments where it hands them on as they are
            where = {"path": path} if path != self.module.path else {}
            self.facts.events.append(Event("call", place_of(self.module.path, call), frame.qualname, frame.loops,
                                           what=method, detail={"callee": method, **where,
                                                                **({"result_read": True} if used else {}),
                                                                **self._forwarded_args(call, frame, forwarded)}))
        callee = self._calls.callee(call, frame, self.types(frame))
        if callee is not None:
            # a parameter's default runs where a caller leaves it out: the call picks it, not the line
            binding = frame.scope.lookup(call.func.id)[0] if isinstance(call.func, ast.Name) else None
            picked = {"default": call.func.id} if binding is not None and binding.kind == "param" else {}
            self.facts.events.append(Event("call", place_of(self.module.path, call), frame.qualname, frame.loops,
                                           what=callee, detail={"callee": callee, **picked,
                                                                **self._passed_args(call, frame),
                                                                **self._binds(call, frame, not picked)}))
            # (a result shown, kept or computed with: what an override returns is read)
            used = {"result_read": True} if self._statements and result_used(self._statements[-1], call) else {}
            for path, override in self._calls.overrides(call, frame):  # what it runs on a subclass's object
                where = {"path": path} if path != self.module.path else {}
                self.facts.events.append(Event("call", place_of(self.module.path, call), frame.qualname,
                                               frame.loops, what=override, detail={"callee": override, **where,
                                                                                   **used}))
            return
        candidates = self._calls.methods_called(call, self.types(frame), frame.scope) if elsewhere is None else []
        for path, method in candidates:
            # `layer.forward(x)` on one of a list's layers of several classes: what each class's
            # method does counts here, named by its class (as a subclass's override is)
            where = {"path": path} if path != self.module.path else {}
            self.facts.events.append(Event("call", place_of(self.module.path, call), frame.qualname, frame.loops,
                                           what=method, detail={"callee": method, **where, "among": len(candidates),
                                                                **self._passed_args(call, frame)}))
        if candidates:
            return
        held = self._calls.functions_held(call, self.types(frame), frame.scope) \
            if callee is None and elsewhere is None else []
        for path, function in held:
            # `self.backend.mul_zip(a, b)`: a function a factory made, held in an attribute or a
            # name; what each it may be does counts here, one of several made by a class that
            # objects are given (`Backend(DeviceOps)`) only where the loop's file gives it
            where = {"path": path} if path != self.module.path else {}
            made_by = self._calls.class_making(path, function) if len(held) > 1 else None
            self.facts.events.append(Event("call", place_of(self.module.path, call), frame.qualname, frame.loops,
                                           what=function, detail={"callee": function, **where, "among": len(held),
                                                                  **({"made_by": made_by} if made_by else {}),
                                                                  **self._passed_args(call, frame)}))
        if held:
            return
        if elsewhere is not None:  # another file's function: what it does counts here (HostFacts.expand)
            self.facts.events.append(Event("call", place_of(self.module.path, call), frame.qualname, frame.loops,
                                           what=elsewhere[1], detail={"callee": elsewhere[1], "path": elsewhere[0],
                                                                      **self._passed_args(call, frame),
                                                                      **self._binds(call, frame, True)}))
            return
        through_class = class_method_calls(self.project, self.module, call, frame.scope, frame.function,
                                           frame.owner) if self._gpu_code else []
        for path, method in through_class:  # `Mul.apply(a, b)`: a class's method, and what its `cls.forward` runs
            where = {"path": path} if path != self.module.path else {}
            self.facts.events.append(Event("call", place_of(self.module.path, call), frame.qualname, frame.loops,
                                           what=method, detail={"callee": method, **where}))
        if through_class:
            return
        event = host_operation(call, frame, self.module, self.types(frame), self._targets, self._minus,
                               self.facts.pools)
        if event is not None and event.detail.get("reduce") and any(
                id(outer) in self._element_loops for outer in self._statements):
            event = None  # a cuda.reduce per row of a loop over rows: that loop is the one event
        if event is not None and event.kind == "alloc" and not event.detail.get("into") and self._statements and \
                isinstance(self._statements[-1], ast.Expr) and self._statements[-1].value is call:
            event.detail["discarded"] = True  # `cuda.device_array(n)` as a statement: made and dropped
        if event is not None and event.kind == "pause":
            # `time.sleep` under an `if` (or a `try`, a `with`) of the loop's body: only some iterations, or some runs, idle
            loop_at = max((i for i, s in enumerate(self._statements) if isinstance(s, (ast.For, ast.While))), default=-1)
            if any(isinstance(s, (ast.If, ast.Try, ast.With)) for s in self._statements[loop_at + 1:]):
                event.detail["branched"] = True
        if event is not None and event.kind == "alloc" and not within_try(self._statements):
            unknown = unknown_keyword(event.what, call)
            if unknown:  # `cuda.to_device(x, dtype=np.float32)`: numba raises TypeError there
                event.detail["raises"] = f"`{event.what.replace('numba.cuda.', 'cuda.')}` takes no `{unknown}=`"
        if event is not None:
            if event.kind == "copy-back" and self._statements:
                # `int(d_size.copy_to_host()[0])`: the one element the host takes of the copy
                element = next((ast.unparse(sub.slice) for sub in walk_nodes(self._statements[-1])
                                if isinstance(sub, ast.Subscript) and sub.value is call), "")
                if element:
                    event.detail["element"] = element
            previous = self.facts.events[-1] if self.facts.events else None
            if previous is not None and previous.function == frame.qualname and previous.loops == frame.loops and {
                    previous.kind, event.kind} == {"sync", "barrier"}:
                # `cuda.synchronize(); comm.Barrier()`: the ranks meet once their device work is done
                # (the next kernel reads what the others wrote: halos over CUDA IPC)
                (previous if previous.kind == "sync" else event).detail["rendezvous"] = True
            self.facts.events.append(event)
            return
        handed = mpi_transfer(call, frame, self.module, self.types(frame), self._uses_mpi())
        if handed is not None:  # what MPI sends from device memory: the kernels that wrote it must be done
            self.facts.events.append(handed)

    def _configures_through_helper(self) -> bool:
        """Whether the file launches through a project function that returns the kernel it is
        given configured: ``launcher(k, n)(x)`` (what ``LAUNCH_TEXT`` does not see)."""
        def configured_by_helper() -> bool:
            # what a call returns, called (`launcher(k, n)(x)`), or a name bound to a call, called
            # (`run = launcher(k, n)` ... `run(x)`): syntax first, then which functions they are
            assigned, called, inner = {}, set(), []
            for node in tree_nodes(self.module.tree):
                if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and node.value.args:
                    for target in node.targets:
                        if isinstance(target, ast.Name):
                            assigned.setdefault(target.id, []).append(node.value)
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Call) and node.func.args:
                    inner.append(node.func)
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                    called.add(node.func.id)
            inner += [value for name in sorted(called & set(assigned)) for value in assigned[name]]
            return bool(inner) and may_launch_kernels(self.project, self.module) and any(configured_call(
                ast.Call(func=value, args=[], keywords=[]), None, self.module, self.project) is not None
                for value in inner)

        return self.project.memo("launches through a helper", self.module.tree, configured_by_helper)

    def _unbindable_launch(self, call: ast.Call, picked) -> str:
        """Why a launch cannot bind its arguments to the kernel's parameters, for each kernel it
        may start (numba's dispatcher raises before launching), or ""; "" inside a ``try``."""
        if not picked or any(k.owner is not None for k in picked) or within_try(self._statements):
            return ""
        reasons = [unbindable(call, kernel.node) for kernel in picked]
        if not all(reasons):
            return ""
        return f"{reasons[0]} of `{picked[0].qualname}`"

    def _binds(self, call: ast.Call, frame: Frame, own: bool) -> dict:
        """What a call of a project function says of how it binds: ``tried`` inside a ``try`` (a
        handler may catch what the callee raises), ``raises`` where a plain function named by the
        call (``own``: not a parameter's default) cannot take its arguments (``TypeError``)."""
        if within_try(self._statements):
            return {"tried": True}
        found = self._project_function(call.func, frame) if own and isinstance(call.func, ast.Name) else None
        if found is None or not plain_def(found[1]):
            return {}
        reason = unbindable(call, found[1])
        return {"raises": f"`{call.func.id}(...)` {reason}"} if reason else {}

    def _uses_mpi(self) -> bool:
        """Whether this file or one it imports names mpi4py (its communicator may come from a
        project module: ``from .utils.mpi import comm``)."""
        return self.project.memo("uses mpi4py", self.module.tree, lambda: "mpi4py" in self.module.text or any(
            imported is not None and "mpi4py" in imported.text for imported in (
                self.project.module(path) for path in sorted(self.project.imports_of_file(self.module.path)))))

    def _library_kernel(self, target: ast.expr, frame: Frame) -> bool:
        """Whether a launch's target is a project function another library compiles and launches
        with the same `k[grid, block](...)` spelling: CuPy's `@cupyx.jit.rawkernel()`."""
        found = self._project_function(target, frame)
        if found is None:
            return False
        module, function = found
        for decorator in function.decorator_list:
            name = module.dotted(decorator.func if isinstance(decorator, ast.Call) else decorator)
            if name is not None and name.startswith("cupyx.jit."):
                return True
        return False

    def _host_compiled(self, expr: ast.expr, frame: Frame) -> bool:
        """Whether ``expr`` names a project function numba compiles for the CPU (``host_compiled``)."""
        found = self._project_function(expr, frame)
        return found is not None and host_compiled(found[1], found[0], Scope(found[0]))

    def _project_function(self, expr: ast.expr, frame: Frame):
        """(module, def) of the project function ``expr`` names, or None."""
        dotted = self._dotted(expr, frame)
        found = self.project.definition(dotted, self.module) if dotted else None
        if found is None or found[1].kind != "def" or not isinstance(found[1].node, (ast.FunctionDef,
                                                                                     ast.AsyncFunctionDef)):
            return None
        return found[0], found[1].node

    def _timed_through(self, call: ast.Call, frame: Frame):
        """What a call of a project function that times a callable it is passed with timeit
        times (``operations.timed_through``), or None."""
        if not any(isinstance(a, (ast.Lambda, ast.Name)) for a in list(call.args) + [k.value for k in call.keywords]):
            return None
        found = self._project_function(call.func, frame)
        if found is None:
            return None
        helper = found[1]
        if not self.project.memo("times with timeit", helper, lambda: any(
                isinstance(n, ast.Attribute) and n.attr in ("Timer", "timeit", "repeat", "autorange")
                or isinstance(n, ast.Name) and n.id in ("Timer", "timeit", "repeat") for n in walk_nodes(helper))):
            return None
        return timed_through(call, helper, found[0], frame, self.module, self.types(frame))

    def _forwarded_args(self, call: ast.Call, frame: Frame, forwarded: Tuple[Optional[int], ...]) -> dict:
        """``{"passed": ...}`` for a method a base's method calls on ``self``: what ``call`` gives
        the base's method, where it hands an argument on as it is; unknown for the rest."""
        given = self._passed_args(call, frame).get("passed")
        if given is None or all(at is None for at in forwarded):
            return {}
        positional = given[0]
        return {"passed": (tuple(positional[at] if at is not None and at < len(positional) else Arg(None, "", "")
                                 for at in forwarded), {})}

    def _passed_args(self, call: ast.Call, frame: Frame) -> dict:
        """``{"passed": ...}``: what the call passes, for the callee's launches on its parameters
        (``HostFacts.expand``); nothing where the call cannot be bound plainly (a method called
        through its class, `Cls.method(obj, x)`, shifts the arguments)."""
        if isinstance(call.func, ast.Attribute):
            dotted = self._dotted(call.func.value, frame)
            found = self.project.definition(dotted, self.module) if dotted else None
            if found is not None and found[1].kind == "class":
                return {}
        passed = passed_args(call, frame, self.types(frame),
                             lambda kind: exposed_array(self.project, kind, self._calls.member) or kind)
        return {"passed": passed} if passed is not None else {}

    # -- what kernel resolution asks (`kernels.KernelContext`) ------------------------------

    def module_frame(self) -> Optional[Frame]:
        return self._module_frame

    def stored_expr(self, owner: str, attr: str) -> Optional[Tuple[ast.expr, Frame]]:
        return self._attrs.exprs.get((owner, attr))

    def type_of(self, expr: ast.expr, frame: Frame):
        return self.types(frame).type_of(expr)

    def kernels_of(self, module: PyModule) -> KernelResolver:
        return HostReader(self.project, module).kernels

    # (and what calls across the project ask, `calls.CallContext`: `facts_of`; what
    # class modes ask, `class_modes.ModeContext`: `read_worlds`, `facts_of`; what reading
    # again per variant asks, `variants.VariantContext`: `read_body`, `value_type`, `types`,
    # `module_frame`, `again`)

    # -- helpers ------------------------------------------------------------------------

    def types(self, frame: Frame) -> TypeReader:
        def lookup(name: str, want_dtype: bool = False):
            current: Optional[Frame] = frame
            while current is not None:
                if name in current.env:
                    value = current.env[name]
                    if isinstance(value, str) != want_dtype:
                        return None
                    return value
                current = current.parent
            value = self._calls.imported(name)
            if value is None and frame.function is not None:
                binding = frame.scope.lookup(name)[0]
                if binding is not None and binding.kind == "import" and binding is not self.module.bindings.get(name):
                    value = self._calls.imported(name, binding=binding)  # `from params import dx` in the function
            if value is None and frame.function is not None and not want_dtype and name in self._objects_bound \
                    and frame.scope.lookup(name)[1] is None:
                # `f1 = Blur(...)` at the module's end, called as `f1.apply(x)` in a method read
                # before it: a function runs once the module is, so the pass before knows the object
                value = self._objects_bound.get(name)
            if value is None and frame.function is not None and name in self._late_bound \
                    and frame.scope.lookup(name)[1] is None:
                value = self._late_bound[name]  # bound once, below: the function runs after it
            return value if value is not None and isinstance(value, str) == want_dtype else None

        def attribute(expr: ast.Attribute):  # `self.x` / `cls.x` in the class's methods
            return self._member(instance(self.module.path, frame.owner), expr.attr) if frame.owner else None

        def attribute_dtype(expr: ast.Attribute):  # `dtype=self.dtype`: the dtype the class stores there
            return self._calls.member(instance(self.module.path, frame.owner), expr.attr, dtype=True) \
                if frame.owner else None

        def item(expr: ast.Subscript):  # `obj.attr["key"]`: what the code stores there
            key = keyed_item(expr)
            where = instance_of(reader.type_of(expr.value.value)) if key is not None else None
            return self._stored_through(where, key) if where is not None else None

        def project_call(call: ast.Call):
            # `step_ = timer(step, verbose)` ... `out = step_(x)`: what `step(x)` returns
            unwrapped = self.project.memo("unwrapped call", call, lambda: unwrapped_call(
                call, frame.function, frame.scope, self.module, self.project))
            return self._calls.project_call(unwrapped or call, self.module, frame.scope, reader)

        reader = TypeReader(lambda e: self._dotted(e, frame), lookup, attribute, self._member, project_call, item,
                            lambda e: self._calls.named_class(e, frame.scope), attribute_dtype)
        return reader

    def _dotted(self, expr: ast.AST, frame: Frame) -> Optional[str]:
        return self.module.dotted(expr, frame.scope)


# how many files deep a file's own reading looks across the project: a launch's arguments
# that a script passes to a simulation's constructor, which passes them on to a field object's,
# which stores them for a method that launches
LEVELS = 12
MAX_READS = 4  # passes over a file, while its calls' types change (`HostReader.read`)
# how many files deep a file that only drives others' kernels looks: the objects it makes and
# what it passes them; past that, unknown (silent)
DRIVING_LEVELS = 2



def read_host(project: Project, module: PyModule, level: int = LEVELS) -> HostFacts:
    """A file's host facts, read once per run and level (signatures and host rules both use
    them). ``level``: how many files deep the reading may look across the project; what it
    asks of another file (its types, its callers, its subclasses) is that file read one level
    less deep, so the reading ends however the files import each other, and a file's facts
    are the same whatever was read before."""
    key = (module.path, level)
    facts = project.host_facts.get(key)
    if facts is not None:
        project.note_again(id(facts), project.host_reads.get(id(facts), frozenset()))  # for a reading under way
        return facts
    with project.recording() as looked:
        facts = _as_deep_as_below(project, module, level)
        if facts is not None:
            consulted = project.host_consulted[(module.path, level - 1)]
            uses = project.host_uses[(module.path, level - 1)]
        else:
            reader = HostReader(project, module, level)
            try:
                facts = reader.read()
                # how often each event runs
                rates.attach(facts, module.tree, project.memo, _executed_elsewhere(project, module.path))
                facts.elsewhere = lambda path: file_host_facts(project, path)
            except RecursionError:
                raise
            except Exception as exc:  # noqa: BLE001 - outside any one statement: the file's facts are empty
                project.failed(module.path, 1, 1, "reading host code", exc)
                facts = HostFacts(module.path)
            consulted = frozenset(reader.consulted)
            uses = reader.uses
    project.host_reads[id(facts)] = project.host_reads.get(id(facts), frozenset()) | looked
    project.host_consulted[key] = consulted
    project.host_uses[key] = uses
    project.host_facts[key] = facts
    return facts


def _as_deep_as_below(project: Project, module: PyModule, level: int) -> Optional[HostFacts]:
    """A file's facts one level less deep, where reading it one level deeper would give the
    same: every file that reading consulted gives the same at the next level in what the
    reading took from it (so the reading would consult the same files and see the same). Most
    chains of types end within a few files; this keeps the deepest levels as cheap as the first."""
    if not 2 <= level < LEVELS:  # level 1 and 0 read differently; the file's own reading is whole
        return None
    below = read_host(project, module, level - 1)
    uses = project.host_uses[(module.path, level - 1)]
    for path in sorted(set(project.host_consulted[(module.path, level - 1)]) | set(uses)):
        other = project.module(path)
        if other is None or not uses.get(path):
            continue  # (consulted, nothing taken: `facts_of` asked, the answer not read)
        if not same_uses(read_host(project, other, level - 1), read_host(project, other, level - 2), uses[path]):
            return None
    return below


# what runs a file's text in the caller's own namespace (`exec(open(path).read())`, IPython's `%run -i`)
_NAMESPACE_RUNNERS = ("exec", "execfile", "run_path", "run_line_magic")


def _executed_elsewhere(project: Project, path: str) -> bool:
    """Whether another file of the project names this one's stem and runs code in its own
    namespace: the names this file reads may be that runner's."""
    stem = os.path.basename(path).split(".")[0]
    naming = set(project.files_naming(path, stem)) - {os.path.abspath(path)} if stem.isidentifier() else set()
    return any(naming & set(project.files_naming(path, runner)) for runner in _NAMESPACE_RUNNERS) if naming else False


def file_host_facts(project: Project, path: str) -> Optional[HostFacts]:
    """A Python file's host facts; None where it cannot be read or nests too deeply."""
    module = project.module(path)
    if module is None:
        return None
    try:
        return read_host(project, module)
    except RecursionError:
        return None


