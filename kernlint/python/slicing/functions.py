"""Functions made in a module's slice namespace from their ``def``: kernels and device
functions as numba-cuda dispatchers (lazy, their closures bound), plain functions with
numba's own decorators applied, the numba extensions registered beside them, and the
globals each reads put into its namespace (stand-ins where a library value is used only as
a number, or a closure variable comes from a factory parameter no call gives).""" 

from __future__ import annotations

import ast
import itertools
import re
import types
from typing import Any, Dict, List, Sequence, Tuple

from ..project import FrontendSettings
from ..signatures.closures import EMPTY
from ..syntax import JIT_OPTIONS, FunctionNode, KernelDef, PyModule, Scope, bound_item, walk_nodes
from .dispatchers import _MEMBER_REGISTRATIONS, REFUSED_OPTIONS, _identity, _may_call, make_dispatcher
from .namespaces import Namespaces
from .numpy_aliases import described as alias_described, removed_aliases_read, with_removed_aliases
from .runtime import (RunReads, attribute_reads, item_kind, rebinding_functions, rebound_at_run_time, standin_by_use,
                      written_kind)
from .standins import Standins
from .unresolved import MAX_VARIANTS, MISSING, RECORDED, STANDIN_VALUE, Unresolved, _hint_constant, _known
from .user_modules import realise, refill
from .uses import (_Returns, _annotation_names, _default_names, _closure_use, _made_in, _numeric_use, _statements_in, _uses,
                   _without_annotations)


class FunctionMaker:
    """Makes functions and dispatchers, each once per closure. Evaluates with ``evaluator``,
    reads globals with ``globals``, makes extension classes with ``classes`` (set by the
    ``Slicer`` that owns it)."""

    def __init__(self, settings: FrontendSettings, namespaces: Namespaces, ledger: Standins):
        self.settings = settings
        self.namespaces = namespaces
        self.ledger = ledger
        self.globals = None
        self.evaluator = None
        self.classes = None
        # plain functions, dispatchers and function stand-ins, by def and closure
        self._made: Dict[Any, Any] = {}
        # id(function made from a plain def) -> (its module, def, scope): a one-return helper's
        # result is read from its return expression
        self.made_from: Dict[int, Tuple[PyModule, FunctionNode, Scope]] = {}
        self._prepared: set = set()
        # values only the run decides: the globals (by module and name), how each function
        # reads them (by its def)
        self._run_decided: Dict[Tuple[str, str], Unresolved] = {}
        self._run_reads: Dict[int, RunReads] = {}
        self._numbers_stood_in: set = set()  # (path, name) of a library's numbers (`from lib import c`)
        # (path, name) -> why: a library module stood in by the attributes functions read of it
        self._namespaces_stood_in: Dict[Tuple[str, str], Unresolved] = {}

    def prepare(self, module: PyModule, node: FunctionNode) -> None:
        """Put every global the function reads into its module's slice namespace."""
        if id(node) in self._prepared:
            self.ledger.rests_on(("prepared", id(node)))  # another closure of it: the same stand-ins
            return
        self._prepared.add(id(node))
        with self.ledger.collecting() as used:
            self._prepare(module, node)
        self.ledger.standins_of[("prepared", id(node))] = frozenset(used)

    def _prepare(self, module: PyModule, node: FunctionNode) -> None:
        namespace = self.namespaces.of(module)
        global_names, _ = module.outside_names(node)
        annotating = _annotation_names(node)
        for name in global_names:
            if name in annotating:
                continue  # `its: CudaArray = ...`: the function is made without its annotations
            line, column = module.first_use_at(node, name)
            decided = self._run_decided.get((module.path, name))
            if decided is not None:  # each function its own stand-in, by its own use
                self._stand_in_for_run(module, node, name, decided, line, column)
                continue
            if self._rebound_stand_in(module, node, name, line, column):
                continue
            if name in namespace:
                if (module.path, name) in self._namespaces_stood_in:
                    self._read_more_of(module, node, name, namespace[name], line, column)
                try:
                    refill(namespace[name], node, name, line)
                except Unresolved as exc:
                    self._prepared.discard(id(node))
                    raise exc.used_at(module.path, line, column) from None
                self.ledger.rests_on((module.path, name))
                if (module.path, name) in self._numbers_stood_in:
                    self._read_unfolded(node, name, namespace[name])
                self._removed_aliases(module, node, name, namespace)
                continue
            try:
                namespace[name] = realise(self.globals.global_value(module, name, line), node, name, line)
                self._removed_aliases(module, node, name, namespace)
            except Unresolved as exc:
                if exc.runtime is not None and exc.name == name:  # (not `config.params`: a module's)
                    self._run_decided[(module.path, name)] = exc
                    self._stand_in_for_run(module, node, name, exc, line, column)
                    continue
                with self.ledger.collecting() as used:
                    standin = self._standin(module, node, name, exc)
                if standin is MISSING:
                    self._prepared.discard(id(node))
                    raise exc.used_at(module.path, line, column) from None
                namespace[name] = standin
                if isinstance(standin, types.ModuleType):
                    # each function that reads it stands in for the attributes it reads
                    self._namespaces_stood_in[(module.path, name)] = exc
                else:
                    rests_on = self.ledger.standins_of
                    rests_on[(module.path, name)] = rests_on.get((module.path, name), frozenset()) | used
                if standin is STANDIN_VALUE:  # a library's number: no branch may be pruned by it
                    self._numbers_stood_in.add((module.path, name))
                    self._read_unfolded(node, name, standin)

    def _read_more_of(self, module: PyModule, node: FunctionNode, name: str, stand: types.ModuleType,
                      line: int, column: int) -> None:
        """Another function reading a stood-in library module: the attributes it reads join
        those stood in for earlier ones."""
        exc = self._namespaces_stood_in[(module.path, name)]
        more = self._standin(module, node, name, exc)  # (its stand-ins are this function's alone)
        if more is MISSING:
            self._prepared.discard(id(node))
            raise exc.used_at(module.path, line, column) from None
        for attribute, value in vars(more).items():
            if not attribute.startswith("__"):
                setattr(stand, attribute, value)

    def _removed_aliases(self, module: PyModule, node: FunctionNode, name: str, namespace: Dict[str, Any]) -> None:
        """``np.int`` in a function where ``np`` is NumPy: the module's ``np`` becomes NumPy with
        its removed aliases (every other attribute NumPy's own), and this function's stand-ins
        say which alias it read."""
        read = removed_aliases_read(node, name)
        if not read:
            return
        aliased = with_removed_aliases(namespace[name])
        if aliased is None:
            return
        namespace[name] = aliased
        for alias, removed in sorted(read.items()):
            self.ledger.stood_in((module.path, f"{name}.{alias}"), alias_described(alias, removed))

    def _read_unfolded(self, node: FunctionNode, name: str, value: Any) -> None:
        """Have the function read a stand-in global as a run-time value (``RunReads``)."""
        reads = self._run_reads.get(id(node)) or RunReads(f"__kernlint_run_{len(self._run_reads)}__")
        reads.values[name], reads.names[name] = value, name
        self._run_reads[id(node)] = reads

    def _rebound_stand_in(self, module: PyModule, node: FunctionNode, name: str, line: int, column: int) -> bool:
        """A global a function rebinds at run time (``global BANDS``, then ``BANDS =
        image.shape[-1]``), not configured: a stand-in by the function's use, as for any value
        only the run decides; where none fits (it is called, made into arrays), the module's
        own value as before. Whether the stand-in was made."""
        if self.globals.constant(module, name) is not MISSING:
            return False
        declared = self.globals.project.memo("functions declaring globals", module.tree,
                                             lambda: rebinding_functions(module))
        rebound = rebound_at_run_time(module, name, declared)
        if rebound is None:
            return False
        source, assigned = rebound
        why = Unresolved(name, module.path, assigned, f"comes from {source.said} at line {assigned}")
        why.runtime = source
        try:
            self._stand_in_for_run(module, node, name, why, line, column)
        except Unresolved:
            self._prepared.add(id(node))  # (the failed stand-in gave the function up: it goes on)
            return False
        return True

    def _stand_in_for_run(self, module: PyModule, node: FunctionNode, name: str, why: Unresolved,
                          line: int, column: int) -> None:
        """Stand-ins for a global only the run decides (``NX = int(sys.argv[1])``, the
        attributes of ``params = importlib.import_module(sys.argv[1])``), each of the type the
        function's use asks for, read as ``RunReads`` says; a configured constant
        (``params.dx``) is its value. Where no stand-in fits (the function calls it, makes
        arrays of it), the Unresolved saying so, at its first read."""
        source = why.runtime
        reads = self._run_reads.get(id(node)) or RunReads(f"__kernlint_run_{len(self._run_reads)}__")

        def fails(shown: str, use: str):
            self._prepared.discard(id(node))
            failed = Unresolved(shown, module.path, why.line,
                                f"{why.reason}; `{node.name}` {use}, and kernlint stands in only for numbers, "
                                f"flags and arrays", _hint_constant(module, shown))
            failed.runtime = source
            return failed.used_at(module.path, line, column)

        if source.module:
            found = attribute_reads(node, name)
            if found is None:
                raise fails(name, "uses the module otherwise than by reading its attributes")
            attributes, tree = found
            for attribute, standing in sorted(attributes.items()):
                key = f"{name}__{attribute}"
                configured = self.globals.constant(module, f"{name}.{attribute}")
                if configured is not MISSING:
                    reads.values[key], reads.chains[(name, attribute)] = configured, key
                    continue
                chosen = standin_by_use(module, tree, standing, None)
                if isinstance(chosen, str):
                    raise fails(f"{name}.{attribute}", _naming(chosen, f"{name}.{attribute}"))
                reads.values[key], reads.chains[(name, attribute)] = chosen[0], key
                self._stood_in_for_run(module, f"{name}.{attribute}", chosen[1], source)
        else:
            binding = self.globals.chosen_binding(module, module.history.get(name, []))
            written, rest = bound_item(binding.value, binding.path) if binding is not None and \
                binding.kind == "assign" else (None, ())  # `NX, NY = int(argv[1]), int(argv[2])`: its item
            known = written is not None and not rest
            chosen = standin_by_use(module, node, name, written_kind(module, written) if known else None,
                                    item_kind(module, written) if known else None)
            if isinstance(chosen, str):
                raise fails(name, chosen)
            reads.values[name], reads.names[name] = chosen[0], name
            self._stood_in_for_run(module, name, chosen[1], source)
        self._run_reads[id(node)] = reads

    def _stood_in_for_run(self, module: PyModule, shown: str, described: str, source) -> None:
        # keyed by what stood in too: functions that use the name differently list each their own
        self.ledger.stood_in((module.path, shown, described),
                             f"{described} for `{source.text}`, known only at run time")

    def _standin(self, module: PyModule, node: FunctionNode, name: str, exc: Unresolved) -> Any:
        """A float64 stand-in for a library value used only as a number; MISSING otherwise."""
        if not exc.library:
            return MISSING
        binding = module.bindings.get(name)
        if binding is None or binding.kind != "import":
            return MISSING
        uses = _uses(node, name)
        if not uses:
            return MISSING
        if binding.attr is not None and all(_numeric_use(use, parents) for use, parents in uses):
            self.ledger.stood_in((module.path, name), exc.library)  # from lib import c: c itself is the number
            return STANDIN_VALUE
        # import lib as m, or from lib.utils import conversion (a submodule or a namespace of
        # constants): m.c is the number
        dotted = exc.library if binding.attr is not None else binding.module
        stand = types.ModuleType(dotted)
        for use, parents in uses:
            attribute = parents[0] if parents else None
            if not isinstance(attribute, ast.Attribute) or attribute.value is not use:
                return MISSING
            if not _numeric_use(attribute, parents[1:]):
                return MISSING
            setattr(stand, attribute.attr, STANDIN_VALUE)
        for attribute in sorted(vars(stand)):
            if not attribute.startswith("__"):
                self.ledger.stood_in((module.path, f"{name}.{attribute}"), f"{dotted}.{attribute}")
        return stand

    def make(self, module: PyModule, node: FunctionNode, qualname: str, frees: Sequence[str],
              values: Sequence[Any]):
        """The Python function of a def, made in the slice namespace with its closure bound."""
        inner = _without_annotations(node)  # numba ignores them; made here, they would be read
        namespace = self.namespaces.of(module)
        for name in _default_names(module.tree, node):  # `def k(a, xp=np)`: read as the def runs
            if name not in namespace:
                try:
                    namespace[name] = realise(self.globals.global_value(module, name, node.lineno), node, name)
                except Unresolved as exc:
                    raise exc.used_at(module.path, node.lineno, node.col_offset + 1) from None
        reads = self._run_reads.get(id(node))
        if reads is not None:  # values only the run decides, read from their stand-ins
            inner = reads.rewrite(inner)
            namespace[reads.holder] = holder = types.ModuleType(reads.holder)
            holder.__dict__.update(reads.values)
            namespace.update(reads.constants)
        inner.decorator_list = []
        inner.name = "__kernlint_fn__"  # the def must not bind its own name (recursion goes through globals)
        maker = ast.FunctionDef(
            name="__kernlint_closure__",
            args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=n) for n in frees], kwonlyargs=[],
                               kw_defaults=[], defaults=[]),
            body=[inner, ast.Return(value=ast.Name(id="__kernlint_fn__", ctx=ast.Load()))],
            decorator_list=[], returns=None, type_comment=None)
        if hasattr(ast.FunctionDef, "type_params") or "type_params" in ast.FunctionDef._fields:
            maker.type_params = []
        for synthetic in (maker, maker.body[1], maker.body[1].value):
            synthetic.lineno, synthetic.col_offset = node.lineno, 0
            synthetic.end_lineno, synthetic.end_col_offset = node.end_lineno, 0
        for arg in maker.args.args:
            arg.lineno, arg.col_offset, arg.end_lineno, arg.end_col_offset = node.lineno, 0, node.lineno, 0
        code = compile(ast.Module(body=[maker], type_ignores=[]), module.path, "exec")
        scratch: Dict[str, Any] = {}
        exec(code, namespace, scratch)  # defines __kernlint_closure__ only: no user code runs
        function = scratch["__kernlint_closure__"](*values)
        empty = {name for name, value in zip(frees, values) if value is EMPTY}
        if empty:  # a recorded run never bound these: their cells stay empty, as they were
            cells = tuple(types.CellType() if name in empty else cell
                          for name, cell in zip(function.__code__.co_freevars, function.__closure__))
            function = types.FunctionType(function.__code__, function.__globals__, function.__name__,
                                          function.__defaults__, cells)
        # numba-cuda finds the def line by the code's name: give it the user's
        renamed = {"co_name": node.name}
        if hasattr(function.__code__, "co_qualname"):
            renamed["co_qualname"] = qualname
        function.__code__ = function.__code__.replace(**renamed)
        function.__name__ = node.name
        function.__qualname__ = qualname
        function.__module__ = namespace["__name__"]
        return function

    def plain_function(self, module: PyModule, node: FunctionNode, scope: Scope, env: Dict[str, Any]):
        """A def that is not a kernel: numba's own decorators (njit, register_jitable) are
        applied; any other decorator is the user's code, which is not run."""
        decorators = []
        for decorator in node.decorator_list:
            # a factory parameter no call gives (`@wrap` where `wrap` is passed in) is unknown
            value = _known(self.evaluator.evaluate(decorator, scope, env))
            if not self.classes.extension_decorator(decorator, scope, env) and not _may_call(value, self.settings):
                raise Unresolved(node.name, module.path, node.lineno,
                                 f"is decorated with `{ast.unparse(decorator)}`, which kernlint does not run",
                                 "check the file with --import-modules")
            decorators.append(value)
        frees, values = self._closure(module, node, scope, env)
        key = (id(node), tuple(map(_identity, values)))
        if key not in self._made:
            self.prepare(module, node)
            function = self.make(module, node, node.name, frees, values)
            for decorator in reversed(decorators):
                function = decorator(function)
            self._made[key] = function  # before its registrations, which name it
            self.made_from[id(function)] = (module, node, scope)
            self.register_extensions(module, node, scope, env, function)
        return self._made[key]

    def register_extensions(self, module: PyModule, node, scope: Scope, env: Dict[str, Any], made) -> None:
        """Apply the numba extensions registered beside a plain function or class, as the
        module's import would have: decorated defs and classes (``@overload(f)``,
        ``@lower_builtin(Interval, ...)``, ``@register_model(IntervalType) class ...``, an
        ``@registry.register_attr`` template whose ``key`` is the class) and calls
        (``make_attribute_wrapper(IntervalType, "lo", "lo")``, ``overload(f)(impl)``). numba's
        typing of a kernel that uses ``f`` needs them. One that names a value kernlint cannot
        read leaves the kernel unresolved."""
        def names_it(call: ast.expr) -> bool:
            return isinstance(call, ast.Call) and any(isinstance(a, ast.Name) and a.id == node.name for a in call.args)

        def keyed_by_it(statement: ast.ClassDef) -> bool:
            return any(isinstance(item, ast.Assign) and isinstance(item.value, ast.Name) and item.value.id == node.name
                       for item in statement.body)

        body = scope.functions[-1].body if scope.functions else module.tree.body
        # the name's own value here: at module level it is still being resolved (and numba may
        # look a registered function up in its module)
        inner = {**env, node.name: made}
        if not scope.functions:
            self.namespaces.of(module).setdefault(node.name, made)
        for statement in _statements_in(body):
            if statement is node:
                continue
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                    names_it(decorator) for decorator in statement.decorator_list):
                self.plain_function(module, statement, scope, inner)
            elif isinstance(statement, ast.ClassDef) and statement.decorator_list and (
                    any(names_it(decorator) for decorator in statement.decorator_list) or keyed_by_it(statement)):
                if self.classes.extension_class(module, statement, scope, inner) is None:
                    raise Unresolved(statement.name, module.path, statement.lineno,
                                     "is a class, whose body kernlint does not run",
                                     "check the file with --import-modules")
            elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
                registration = statement.value
                if names_it(registration.func):  # overload(f)(impl), as a statement
                    if self.classes.extension_callee(registration.func, scope, inner):
                        register = self.evaluator.evaluate(registration.func, scope, inner)
                        register(*(self.evaluator.evaluate(arg, scope, inner) for arg in registration.args))
                elif names_it(registration) and self.classes.extension_callee(registration, scope, inner):
                    self.evaluator.evaluate(registration, scope, inner)  # make_attribute_wrapper(T, "x", "x")

    def _register_methods(self, kernel: KernelDef, env: Dict[str, Any]) -> None:
        """Apply the ``@overload_method(T, "name")`` / ``@overload_attribute(T, "name")``
        registrations, in the kernel's module or the functions around it, of the names the
        kernel reads as attributes (``A.foo()``): numba types ``A.foo`` through them."""
        read = {node.attr for node in walk_nodes(kernel.node) if isinstance(node, ast.Attribute)}
        scope = _made_in(kernel)
        bodies = [(Scope(kernel.module), kernel.module.tree.body)] + [
            (scope.within(function), function.body) for function in scope.functions]
        for where, body in bodies:
            for statement in _statements_in(body):
                if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) or \
                        kernel.module.kernel_for(statement) is not None:
                    continue
                for decorator in statement.decorator_list:
                    if isinstance(decorator, ast.Call) and len(decorator.args) > 1 and isinstance(
                            decorator.args[1], ast.Constant) and decorator.args[1].value in read and getattr(
                            decorator.func, "attr", getattr(decorator.func, "id", "")) in _MEMBER_REGISTRATIONS:
                        self.plain_function(kernel.module, statement, where, env)
                        break

    def _closure(self, module: PyModule, node: FunctionNode, scope: Scope, env: Dict[str, Any]):
        _, frees = module.outside_names(node)
        values = []
        for name in frees:
            line, column = module.first_use_at(node, name)
            try:
                value = _known(self.evaluator.name_value(ast.Name(id=name, ctx=ast.Load(), lineno=line), scope, env))
            except Unresolved as exc:
                if not exc.unread:
                    raise exc.used_at(module.path, line, column) from None
                value = self._closure_standin(module, scope, node, name, exc)
                if isinstance(value, Unresolved):
                    raise value.used_at(module.path, line, column) from None
            values.append(realise(value, node, name, line))
        return frees, values

    def _closure_standin(self, module: PyModule, scope: Scope, node: FunctionNode, name: str,
                         why: Unresolved) -> Any:
        """A stand-in for a closure variable computed from a factory parameter no call in the
        file gives (``D = configuration.D``, ``compute_k = flags['K']``), chosen by what the
        kernel does with it (`_closure_use`). The code paths kernlint looks for do not depend on
        these values; the findings list the stand-ins. Used otherwise (an attribute of a call's
        result, a dtype): the Unresolved saying so, at its use."""
        parameter, factory = why.unread
        use = _closure_use(module, scope, node, name)
        if isinstance(use, str):
            reason = why.reason if parameter == name else f"is computed from `{parameter}`, which {why.reason}"
            failed = Unresolved(name, module.path, why.line,
                                f"{reason}; the kernel {use}, and kernlint stands in only for numbers, flags and "
                                f"arrays", why.hint)
            failed.unread = why.unread
            return failed
        value, described = use
        if isinstance(value, _Returns):
            value = self._function_standin(value.value)
        self.ledger.stood_in((module.path, name), f"{described} for `{factory}`'s `{parameter}`")
        return value

    def _function_standin(self, returned: Any):
        """A device function that takes any arguments and returns ``returned`` (None: does nothing)."""
        key = ("function stand-in", repr(returned))
        if key not in self._made:
            def standin(*args):
                return returned

            self._made[key] = make_dispatcher(standin, [], {"device": True})
        return self._made[key]

    def dispatcher(self, kernel: KernelDef, env: Dict[str, Any]):
        """The numba-cuda dispatcher of a kernel or device function (lazy; signatures recorded)."""
        module = kernel.module
        recorded = env.get(RECORDED)
        if recorded is not None and recorded.get("failed") is not None:
            raise recorded["failed"]
        frees, values = self._closure(module, kernel.node, kernel.scope, env)
        if recorded is not None:
            for key in recorded["standins"]:
                self.ledger.stood_in(key, self.ledger.described[key])
        # the signature as written: cuda.jit(sig, ...) or cuda.jit(func_or_sig=sig, ...)
        written = list(kernel.jit.args) or [a for k, a in kernel.jit.keywords.items() if k == "func_or_sig"]
        try:
            with self.ledger.collecting() as read_with:
                args = self._written(written, env)
        except Unresolved:
            if recorded is None:
                raise
            args, read_with = [], set()  # the run's launches give the signatures
        if args and _signatures_in_a_tuple(args[0]):
            raise Unresolved(ast.unparse(written[0].expr)[:60], module.path, written[0].expr.lineno,
                             "is a tuple of signatures, which numba-cuda refuses: it reads a tuple as one "
                             "signature's argument types", "write the signatures in a list"
                             ).used_at(module.path, written[0].expr.lineno, written[0].expr.col_offset + 1)
        keywords = {}
        for keyword, argument in kernel.jit.keywords.items():
            if keyword in REFUSED_OPTIONS:  # numba-cuda refuses it whatever its value
                keywords[keyword] = ast.unparse(argument.expr)
                continue
            if keyword not in JIT_OPTIONS:
                continue  # link=, lto=, cache=... act after the IR kernlint reads
            try:
                keywords[keyword] = _known(self.evaluator.evaluate(argument.expr, argument.scope, env))
            except Unresolved as exc:
                if exc.unread and recorded is None:
                    # `cuda.jit(device=gridsync)` with the flag from a factory's parameter:
                    # numba's default (a device function is still one where it returns a value)
                    parameter, factory = exc.unread
                    self.ledger.stood_in((module.path, f"{keyword}="),
                                         f"numba's default for `{factory}`'s `{parameter}`")
                    continue
                if recorded is None or (keyword != "device" and keyword not in recorded["options"]):
                    raise
                # what the run made it with: a launched kernel is no device function
                keywords[keyword] = recorded["options"].get(keyword, False)
        # a jit applied in a function may take its signature from the function's parameters
        made_with = tuple(map(_identity, args)) + tuple((k, _identity(v)) for k, v in sorted(keywords.items())) \
            if kernel.applied is not None else ()
        key = (id(kernel.node), id(kernel.applied), tuple(map(_identity, values)), made_with)
        if key in self._made:
            self.ledger.rests_on(("dispatcher", key))
            return self._made[key]
        with self.ledger.collecting() as used:
            made = self._new_dispatcher(kernel, module, key, frees, values, args, keywords, env)
        if args and read_with:  # a signature spelled with a stand-in is not the one written
            made._kernlint_signature_source = "stand-in"
        self.ledger.standins_of[("dispatcher", key)] = frozenset(used)
        if not kernel.nested and self.namespaces.of(module).get(kernel.name) is made:
            # a kernel that reads it by its name later rests on its stand-ins too
            own = (module.path, kernel.name)
            self.ledger.standins_of[own] = self.ledger.standins_of.get(own, frozenset()) | used
        return made

    def _written(self, written, env: Dict[str, Any]) -> List[Any]:
        """The values of a jit's signature arguments; where the first reads a constructor's
        parameter that the project's constructions give several values (``Evaluator.choices``),
        a list of the signature each combination spells, as numba-cuda takes several."""
        saved, self.evaluator.choices = self.evaluator.choices, {}
        try:
            args = [_known(self.evaluator.evaluate(a.expr, a.scope, env)) for a in written]
            choices = self.evaluator.choices
            if not args or not choices:
                return args
            keys, signatures = list(choices), []
            for combination in itertools.islice(itertools.product(*(choices[k] for k in keys)), MAX_VARIANTS):
                self.evaluator.constructed.update(zip(keys, combination))
                try:
                    spelled = _known(self.evaluator.evaluate(written[0].expr, written[0].scope, env))
                finally:
                    for k in keys:
                        self.evaluator.constructed.pop(k, None)
                signatures += [s for s in (spelled if isinstance(spelled, list) else [spelled]) if s not in signatures]
            return [signatures] + args[1:]
        finally:
            self.evaluator.choices = saved

    def _new_dispatcher(self, kernel: KernelDef, module: PyModule, key, frees, values, args, keywords,
                        env: Dict[str, Any]):
        if kernel.device and not kernel.jit.device:
            keywords["device"] = True  # returns a value: what numba-cuda makes of it where it is called
        function = self.make(module, kernel.node, kernel.qualname, frees, values)
        dispatcher = make_dispatcher(function, args, keywords)
        dispatcher._kernlint_def = kernel
        # made before its globals resolve: a recursive device function (`fib(n - 1)`) reads itself
        self._made[key] = dispatcher
        namespace = self.namespaces.of(module)
        own = kernel.name if not kernel.nested and kernel.applied is None and kernel.name not in namespace else None
        if own is not None:
            namespace[own] = dispatcher
        try:
            self._register_methods(kernel, env)
            self.prepare(module, kernel.node)
            if id(kernel.node) in self._run_reads:  # its reads of the run's values, as prepared
                code = self.make(module, kernel.node, kernel.qualname, frees, values).__code__
                function.__code__ = dispatcher.func_code = dispatcher.__code__ = code
        except BaseException:
            del self._made[key]
            if own is not None:
                namespace.pop(own, None)
            raise
        return dispatcher


def _signatures_in_a_tuple(written: Any) -> bool:
    """``cuda.jit((void(f4[:]), void(f8[:])))``: numba-cuda takes several signatures only in a list."""
    from numba.core.typing import Signature

    return isinstance(written, tuple) and bool(written) and all(isinstance(s, (Signature, str)) for s in written)


def _naming(phrase: str, shown: str) -> str:
    """What a function does with a value, said of it by name: "calls it" -> "calls `p.f`",
    "reads its attribute `x`" -> "reads `p.g`'s attribute `x`"."""
    return re.sub(r"\bit\b", f"`{shown}`", re.sub(r"\bits\b", f"`{shown}`'s", phrase, count=1), count=1)
