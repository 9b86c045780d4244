"""The closures a nested kernel is made with (its variants): the values of the enclosing
functions' parameters (the configuration, this file's calls, defaults) and loop variables,
or the closures a recorded run launched it with, rebuilt from the signatures file.""" 

from __future__ import annotations

import ast
import importlib
import itertools
import json
import os
from typing import Any, Dict, List, Optional, Tuple

from ..project import FrontendSettings, Project
from ..signatures.closures import Unrebuildable, functions_within, rebuild
from ..syntax import JIT_OPTIONS, FunctionNode, KernelDef, PyModule, Scope, _target_names
from .constructions import NOT_PASSED, class_of, constructions, default_standing_in
from .dispatchers import _identity, _is_numba_type, make_dispatcher
from .standins import Standins
from .unresolved import MAX_RECORDED, MAX_VARIANTS, MISSING, RECORDED, STOOD_IN, Unresolved, _Unread, _known
from .user_modules import _source_of
from .uses import _calls_of, _defaults, _made_in, _parameters_needed


class VariantReader:
    """Finds a kernel's variants. Evaluates with ``evaluator``, reads configured constants
    with ``globals``, makes the kernel and recorded functions with ``functions`` (set by the
    ``Slicer`` that owns it)."""

    def __init__(self, project: Project, settings: FrontendSettings, ledger: Standins):
        self.project = project
        self.settings = settings
        self.ledger = ledger
        self.globals = None
        self.evaluator = None
        self.functions = None
        self._made: Dict[Any, Any] = {}  # recorded functions, by their record
        self._called_in_records: Optional[Dict[str, Any]] = None  # closures.functions_within, read once

    def variants(self, kernel: KernelDef) -> List[Tuple[str, Dict[str, Any]]]:
        """The closures a nested kernel is made with: (label, values of the parameters and loop
        variables of the functions around it). A module-level kernel has one, empty. Parameters
        come from the configuration, from calls of the enclosing function in this file, or from
        their defaults; loop variables from the loop's iterable. Those read through other locals
        (``wrapped = cuda.jit(device=True)(pyfunc)``) are found by making the kernel once.
        Where a recorded run saw the kernel's closures, those are its variants instead."""
        recorded = self._recorded_variants(kernel)
        if any(env[RECORDED].get("failed") is None for _, env in recorded):
            return recorded
        if recorded:  # no recorded closure can be made: reading may still give one
            try:
                return self._read_variants(kernel)
            except Unresolved:
                return recorded  # each says why its closure could not be made
        return self._read_variants(kernel)

    def _read_variants(self, kernel: KernelDef) -> List[Tuple[str, Dict[str, Any]]]:
        outer = _made_in(kernel)
        if not outer.functions:
            return [("", {})]
        needed: List[Tuple[str, FunctionNode]] = list(_parameters_needed(kernel.module, kernel.node, kernel.scope))
        enclosing = {id(f) for f in outer.functions}
        for _ in range(MAX_VARIANTS):
            labelled = None
            try:
                labelled = self._variants_of(kernel, needed)
                self.functions.dispatcher(kernel, labelled[0][1])
            except Unresolved as exc:
                local = exc.local
                if local is not None and id(local[1]) in enclosing and (local[0].name, local[1]) not in needed:
                    needed.append((local[0].name, local[1]))
                    continue
                if labelled is None:
                    raise
            except Exception:  # noqa: BLE001 - reported where the kernel is made for each variant
                pass
            return labelled
        return self._variants_of(kernel, needed)

    def _recorded_variants(self, kernel: KernelDef) -> List[Tuple[str, Dict[str, Any]]]:
        """The closures a recorded run launched a factory-made kernel with (``kernlint record``),
        one variant each: values computed at run time, which reading cannot give."""
        if self._called_in_records is None:
            self._called_in_records = functions_within(self.settings.closures)
        entries: List[Dict[str, Any]] = []
        # launched, and called by the launched kernels (a device function the run made with
        # `cuda.jit(device=flag)`)
        for recorded in (self.settings.closures, self._called_in_records):
            kernels = recorded.get(kernel.module.path, {})
            for name in dict.fromkeys((kernel.qualname, ".".join(kernel.outer + (kernel.node.name,)))):
                entries += [e for e in kernels.get(name, []) if e not in entries]
        # the function's first line: a factory may define one name in several branches
        entries = [e for e in entries if e.get("line") in (None, kernel.line, kernel.first_line)][:MAX_RECORDED]
        variants: List[Tuple[str, Dict[str, Any]]] = []
        for number, entry in enumerate(entries or (), 1):
            try:
                with self.ledger.collecting() as used:
                    env: Dict[str, Any] = {name: self._rebuilt(kernel.module, kernel.node, name, value)
                                           for name, value in entry["values"].items()}
            except Unresolved as exc:  # this closure's kernel is not made (a KL902); the others are
                variants.append((f"recorded #{number}", {RECORDED: dict(entry, standins=[], failed=exc)}))
                continue
            shown = [f"{name}={_short(value)}" for name, value in sorted(env.items())
                     if isinstance(value, (bool, int, float, str))][:4]
            label = "recorded" + (f" #{number}" if len(entries) > 1 else "") + (f": {', '.join(shown)}" if shown else "")
            env[RECORDED] = dict(entry, standins=sorted(used))
            variants.append((label, env))
        return variants

    def _rebuilt(self, module: PyModule, node: FunctionNode, name: str, value: Any) -> Any:
        """A recorded closure value, as a value (a KL902 at its use where it cannot be made)."""
        line, column = module.first_use_at(node, name)
        try:
            return rebuild(value, self._recorded_function,
                           lambda what: self.ledger.stood_in((module.path, name), what), self._recorded_named)
        except Unrebuildable as exc:
            raise Unresolved(name, module.path, line, f"was recorded as {exc}, which kernlint cannot make again",
                             "a recorded closure can hold numbers, strings, tuples, NumPy values, numba types "
                             "and the project's functions; pass this value to the kernel as an argument").used_at(
                module.path, line, column) from None

    def _recorded_named(self, dotted: str) -> Any:
        """A class or builtin function a recorded closure names (``math.sin``), from a module
        kernlint imports."""
        parts = dotted.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:cut])
            if module != "builtins" and not self.settings.is_safe(module):
                continue
            try:
                value: Any = importlib.import_module(module)
                for part in parts[cut:]:
                    value = getattr(value, part)
            except (ImportError, AttributeError):
                continue
            return value
        raise Unrebuildable(f"`{dotted}`, of a module kernlint does not import")

    def _recorded_function(self, recorded: Dict[str, Any]) -> Any:
        """A function a recorded closure holds, made from its def with its own recorded closure,
        as a device function (numba-cuda compiles an njit function a kernel calls as one)."""
        key = ("recorded", json.dumps(recorded, sort_keys=True))
        if key in self._made:
            self.ledger.rests_on(("dispatcher", key))
            return self._made[key]
        path, qualname = recorded.get("path", ""), recorded.get("function", "")
        dotted = recorded.get("module") or ""
        if dotted and self.settings.is_safe(dotted) and "<" not in qualname and "jit" not in recorded:
            # a library's own function held as it is (numba.cuda's `ldca`, typed by an @overload
            # of an empty def): that object, as the run held it; its def alone compiles to nothing
            try:
                found = self._recorded_named(f"{dotted}.{qualname}")
            except Unrebuildable:
                found = None
            if callable(found):
                return found
        if not os.path.isfile(path) and dotted and self.settings.is_safe(dotted):
            path = _source_of(dotted) or path  # a function of an installed package, recorded elsewhere
        module = self.project.module(path) if path.endswith(".py") and os.path.isfile(path) else None
        node = module.function_named(qualname, int(recorded.get("line", 0))) if module is not None else None
        if node is None:
            raise Unrebuildable(f"the function `{qualname}` of {path}, which kernlint does not find there "
                                f"(a lambda, or the file changed since the run)")
        _, frees = module.outside_names(node)
        closure = recorded.get("closure", {})
        missing = [name for name in frees if name not in closure]
        if missing:
            raise Unrebuildable(f"`{qualname}`, without its `{missing[0]}` (the file changed since the run?)")
        with self.ledger.collecting() as used:
            values = [self._rebuilt(module, node, name, closure[name]) for name in frees]
            function = self.functions.make(module, node, qualname, frees, values)
            options = {k: v for k, v in recorded.get("options", {}).items() if k in JIT_OPTIONS and k != "device"}
            dispatcher = make_dispatcher(function, [], dict(options, device=True))
            self._made[key] = dispatcher  # before its globals: it may call itself
            try:
                self.functions.prepare(module, node)
            except BaseException:
                del self._made[key]
                raise
        self.ledger.standins_of[("dispatcher", key)] = frozenset(used)
        return dispatcher

    def _variants_of(self, kernel: KernelDef, needed: List[Tuple[str, FunctionNode]]):
        names_of: Dict[int, List[str]] = {}
        owners: Dict[int, FunctionNode] = {}
        for name, function in needed:
            names_of.setdefault(id(function), []).append(name)
            owners[id(function)] = function
        variants: List[Dict[str, Any]] = [{}]
        loop_names: List[str] = []
        for key, names in names_of.items():
            function = owners[key]
            local = kernel.module.local_bindings(function)
            loops = [n for n in names if local[n].kind == "loop"]
            parameters = [n for n in names if n not in loops]
            if parameters:
                options = self._parameter_choices(kernel, function, parameters)
                variants = [dict(v, **o) for v in variants for o in options][:MAX_VARIANTS]
            loop_names.extend(loops)
            for statement in {id(local[n].node): local[n].node for n in loops}.values():
                variants = [dict(v, **o) for v in variants
                            for o in self._loop_values(statement, _made_in(kernel).within(function), v)]
                variants = variants[:MAX_VARIANTS]

        def label(variant: Dict[str, Any], names) -> str:
            return ", ".join(f"{k}={_short(v)}" for k, v in variant.items() if k in names)

        # the loop variables name a variant; the parameters their loops read are implied
        shown = [label(v, loop_names or [k for k in v if k != STOOD_IN]) for v in variants]
        if len(set(shown)) < len(shown):
            shown = [label(v, [k for k in v if k != STOOD_IN]) for v in variants]
        return list(zip(shown, variants))

    def _loop_values(self, loop: ast.AST, scope: Scope, env: Dict[str, Any]) -> List[Dict[str, Any]]:
        """The values a loop's target names take, one dict per element of its iterable
        (the first MAX_VARIANTS)."""
        try:
            iterable = _known(self.evaluator.evaluate(loop.iter, scope, env))
            elements = list(itertools.islice(iter(iterable), MAX_VARIANTS))
        except Unresolved as exc:
            target = ast.unparse(loop.target)
            wrapped = Unresolved(target, scope.module.path, loop.lineno,
                                 f"is a loop variable over `{ast.unparse(loop.iter)[:60]}`, and `{exc.name}` "
                                 f"{exc.reason}", exc.hint, library=exc.library)
            wrapped.local = exc.local  # the iterable needs a parameter: found, the loop is read again
            raise wrapped from None
        except TypeError as exc:
            raise Unresolved(ast.unparse(loop.iter), scope.module.path, loop.lineno,
                             f"is not iterable here ({exc})") from None
        values = []
        for element in elements:
            bound: Dict[str, Any] = {}
            for name, path in _target_names(loop.target):
                if path is None:
                    continue  # a starred target: not a single value
                value = element
                try:
                    for index in path:
                        value = value[index]
                except (TypeError, IndexError, KeyError):
                    continue
                bound[name] = value
            values.append(bound)
        return values

    def _with_loops(self, attempt, scope: Scope):
        """``attempt(env)`` for each value of the caller's loop variables it needs (a test's
        ``for dtype in (np.float32, np.float64): self._check(dtype)``); [attempt({})] where none."""
        envs: List[Dict[str, Any]] = [{}]
        enclosing = {id(f) for f in scope.functions}
        for _ in range(4):
            try:
                return [attempt(env) for env in envs]
            except Unresolved as exc:
                local = exc.local
                if local is None or local[0].kind != "loop" or id(local[1]) not in enclosing or \
                        local[0].name in envs[0]:
                    raise
                loop, outer = local[0].node, scope.within(local[1])
                envs = [dict(e, **o) for e in envs for o in self._loop_values(loop, outer, e)]
                envs = envs[:MAX_VARIANTS] or [{}]
        return [attempt(env) for env in envs]

    def _parameter_choices(self, kernel: KernelDef, function: FunctionNode, names: List[str]):
        module = kernel.module
        configured = {n: self.globals.constant(module, f"{function.name}.{n}") for n in names}
        if all(v is not MISSING for v in configured.values()):
            return [configured]
        klass = class_of(module, function) if function.name == "__init__" else None
        if klass is not None:
            return self._constructed_choices(kernel, klass, function, names, configured)
        found: List[Dict[str, Any]] = []
        seen = set()
        for call, scope in _calls_of(module, function):
            try:
                bindings = self._with_loops(lambda env: self._bind_call(function, call, scope, names, env), scope)
            except Unresolved:
                continue
            except Exception:  # noqa: BLE001 - a call kernlint cannot bind gives no variant
                continue
            for bound in bindings:
                bound.update({k: v for k, v in configured.items() if v is not MISSING})
                key = tuple(_identity(bound[n]) for n in names)
                if key not in seen:
                    seen.add(key)
                    found.append(bound)
        if found:
            return found
        defaults = _defaults(function)
        values = {}
        for n in names:
            if configured[n] is not MISSING:
                values[n] = configured[n]
            elif n in defaults:
                values[n] = self.evaluator.evaluate(defaults[n], _made_in(kernel).around(function), {})
            else:
                # called from other files with what they make at run time: what the kernel reads
                # through it gets stand-ins where its use says what it is (`_closure`)
                values[n] = _Unread(Unresolved(
                    n, module.path, function.lineno,
                    f"is a parameter of `{function.name}` that no call in this file gives a value kernlint can read",
                    f'give its value in [tool.kernlint] constants = {{ "{os.path.basename(module.path)}::'
                    f'{function.name}.{n}" = ... }}, or record a run that makes the kernel (`kernlint record -- '
                    f'python -m pytest`): the signatures file then keeps what it closed over'), function.name)
        return [values]

    def _constructed_choices(self, kernel: KernelDef, klass: ast.ClassDef, init: FunctionNode, names: List[str],
                             configured: Dict[str, Any]) -> List[Dict[str, Any]]:
        """``__init__``'s parameters, each combination of the values the project's constructions
        of the class give them (literals, defaults); where the run decides one, its default as a
        stand-in, named where it is read (``STOOD_IN``), else unread."""
        module, defaults = kernel.module, _defaults(init)
        scope = _made_in(kernel).around(init)
        choices: List[List[Any]] = []
        stood: Dict[str, Any] = {}
        for name in names:
            if configured[name] is not MISSING:
                choices.append([configured[name]])
                continue
            passed, unknown = self.project.memo(f"constructions giving {name}", init, lambda name=name: constructions(
                self.project, module, klass, init, name))
            if unknown is None and (name in defaults or NOT_PASSED not in passed):
                values: List[Any] = []
                for given in passed:
                    value = self.evaluator.evaluate(defaults[name], scope, {}) if given is NOT_PASSED else given
                    if all((type(value), repr(value)) != (type(seen), repr(seen)) for seen in values):
                        values.append(value)
                choices.append(values)
            elif name in defaults:
                choices.append([self.evaluator.evaluate(defaults[name], scope, {})])
                stood[name] = default_standing_in(module, klass, name, defaults[name], unknown)
            else:
                choices.append([_Unread(Unresolved(
                    name, module.path, init.lineno, f"is a parameter of `{klass.name}.__init__`, given where the "
                    f"object is made ({unknown})", "pass the value to the kernel as an argument, or record a run "
                    "that makes the kernel (`kernlint record -- python -m pytest`)"), f"{klass.name}.__init__")])
        options = [dict(zip(names, values)) for values in itertools.islice(itertools.product(*choices), MAX_VARIANTS)]
        return [dict(option, **{STOOD_IN: stood}) if stood else option for option in options]

    def _bind_call(self, function: FunctionNode, call: ast.Call, scope: Scope, names: List[str],
                   env: Dict[str, Any]) -> Dict[str, Any]:
        arguments = function.args
        positional = [a.arg for a in arguments.posonlyargs + arguments.args]
        if positional and positional[0] in ("self", "cls") and isinstance(call.func, ast.Attribute):
            positional = positional[1:]
        values: Dict[str, Any] = {}
        for index, arg in enumerate(call.args):
            if isinstance(arg, ast.Starred):
                raise Unresolved("*args", scope.module.path, call.lineno, "is unpacked")
            if index < len(positional) and positional[index] in names:
                values[positional[index]] = self.evaluator.evaluate(arg, scope, env)
        for keyword in call.keywords:
            if keyword.arg in names:
                values[keyword.arg] = self.evaluator.evaluate(keyword.value, scope, env)
        defaults = _defaults(function)
        for name in names:
            if name not in values:
                if name not in defaults:
                    raise Unresolved(name, scope.module.path, call.lineno, "is not passed")
                values[name] = self.evaluator.evaluate(defaults[name], Scope(scope.module), {})
        return values


def _short(value: Any) -> str:
    text = getattr(value, "__name__", None) or (str(value) if _is_numba_type(value) else repr(value))
    if hasattr(value, "py_func"):
        text = value.py_func.__name__
    return text if len(text) <= 30 else text[:27] + "..."
