"""The evaluator of constant expressions: literals, operators, names (globals through
``module_globals``, locals of the functions around), attributes, comprehensions and calls
of what may be called (safe modules' pure functions, numba's type builders, the user's
one-return helpers read from their ``return``); anything else is ``Unresolved``. Runs
nothing of the user's.""" 

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import operator
import types
from typing import Any, Dict, List, Optional, Tuple

from ..project import FrontendSettings, Project
from ..syntax import (Binding, FunctionNode, PyModule, Scope, _target_names, tree_nodes, walk_nodes, wrapped_argument,
                      wrapped_interface)
from .class_constants import StaticClass, _class_body_assignments, is_static
from .constructions import NOT_PASSED, constructions, default_standing_in
from .device_arrays import _DEVICE_MAKERS, DeviceArrayStandin, _captures_device_arrays
from .dispatchers import _after_ir, _is_cuda_jit, _may_be_called, _may_call, _users_function, make_dispatcher
from .standins import Standins
from .unresolved import MAX_ITEMS, MISSING, STANDIN_VALUE, STOOD_IN, Unresolved, _Unread, _hint_constant, _known, _operate
from .user_modules import UserModule
from .uses import _changed_in, _defaults, _names_a_type


_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
           ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.BitOr: operator.or_,
           ast.BitXor: operator.xor, ast.BitAnd: operator.and_, ast.MatMult: operator.matmul}
_UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg, ast.Not: operator.not_, ast.Invert: operator.invert}
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
            ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}

def _reads_as_returns(body: List[ast.stmt]) -> bool:
    """Is a helper's body one the evaluator reads: imports, defs and plain assignments (read as the
    return needs them), then ``return`` statements chosen by ``if`` tests whose branches hold
    only returns, raises and further such tests?"""
    def choice(statements: List[ast.stmt]) -> bool:
        return all(isinstance(s, ast.Return) and s.value is not None or isinstance(s, ast.Raise)
                   or isinstance(s, ast.If) and choice(s.body) and choice(s.orelse) for s in statements)

    settled = 0
    while settled < len(body) and isinstance(body[settled], (ast.FunctionDef, ast.Assign, ast.Import, ast.ImportFrom)):
        settled += 1
    rest = body[settled:]
    return bool(rest) and choice(rest) and any(isinstance(s, (ast.Return, ast.If)) for s in rest)


def _subclassed(module: PyModule, klass: ast.ClassDef) -> bool:
    """Does a class of the module name ``klass`` among its bases?"""
    return any(isinstance(node, ast.ClassDef) and any(
        (base.id if isinstance(base, ast.Name) else getattr(base, "attr", None)) == klass.name for base in node.bases)
        for node in tree_nodes(module.tree))


def _parameter(function: FunctionNode, name: str) -> Optional[Binding]:
    """The binding of ``function``'s parameter ``name``; None where it has none."""
    arguments = function.args
    for arg in arguments.posonlyargs + arguments.args + arguments.kwonlyargs + [
            a for a in (arguments.vararg, arguments.kwarg) if a is not None]:
        if arg.arg == name:
            return Binding(name, "param", arg, 0, line=function.lineno)
    return None


class _ReadLambda:
    """A ``lambda`` passed to a safe library call (``np.apply_along_axis(lambda r: np.where(r)[0],
    0, m)``): called by the library, it evaluates its body with this evaluator, its parameters
    bound to the call's values, so nothing of the user's runs. At most MAX_ITEMS calls: a
    constant expression, not a loop kernlint would spin in."""

    def __init__(self, evaluator: "Evaluator", node: ast.Lambda, scope: Scope, env: Dict[str, Any]):
        self.evaluator, self.node, self.scope, self.env = evaluator, node, scope, env
        self.calls = 0

    def __call__(self, *args: Any, **keywords: Any) -> Any:
        node, module = self.node, self.scope.module
        self.calls += 1
        if self.calls > MAX_ITEMS:
            raise Unresolved("lambda", module.path, node.lineno, f"is called more than {MAX_ITEMS} times")
        arguments = node.args
        if arguments.vararg or arguments.kwarg or arguments.kwonlyargs or arguments.posonlyargs:
            raise Unresolved("lambda", module.path, node.lineno,
                             "takes keyword-only, positional-only or starred parameters, which kernlint does not bind")
        names = [a.arg for a in arguments.args]
        defaults = dict(zip(names[len(names) - len(arguments.defaults):], arguments.defaults))
        if len(args) > len(names) or set(keywords) - set(names):
            raise Unresolved("lambda", module.path, node.lineno, "is called with arguments it does not take")
        bound = dict(self.env, **dict(zip(names, args)), **keywords)
        for name in names[len(args):]:
            if name not in bound:
                if name not in defaults:
                    raise Unresolved("lambda", module.path, node.lineno, f"is called without `{name}`")
                bound[name] = _known(self.evaluator.evaluate(defaults[name], self.scope, self.env))
        return _known(self.evaluator.evaluate(node.body, self.scope, bound))


class Evaluator:
    """Evaluates expressions in a scope; ``env`` binds the locals a variant gives. Reads globals
    through ``globals``, makes the functions and numba types it meets through ``functions``
    and ``classes`` (set by the ``Slicer`` that owns it)."""

    def __init__(self, project: Project, settings: FrontendSettings, ledger: Standins):
        self.project = project
        self.settings = settings
        self.ledger = ledger
        self.globals = None
        self.functions = None
        self.classes = None
        self._returning = 0  # helpers being read, one inside another
        self._rebinding: set = set()  # (id(function), parameter) whose rebindings are being read
        # (id(__init__), parameter) -> the value the project's constructions give it, one of
        # several being read (`constructed`); the several values read so far (`choices`)
        self.constructed: Dict[Tuple[int, str], Any] = {}
        self.choices: Dict[Tuple[int, str], List[Any]] = {}

    def name_value(self, node: ast.Name, scope: Scope, env: Dict[str, Any]) -> Any:
        name = node.id
        if name in env:
            if name in env.get(STOOD_IN, {}):
                self.ledger.stood_in(*env[STOOD_IN][name])
            rebound = self._rebound_parameter(name, scope, env)
            return env[name] if rebound is MISSING else rebound
        module = scope.module
        binding, function = scope.lookup(name)
        if function is None:
            return self.globals.global_value(module, name, getattr(node, "lineno", 0))
        return self._reaching_value(module, binding, function, scope, env, node)

    def _reaching_value(self, module: PyModule, binding: Binding, function: FunctionNode, scope: Scope,
                        env: Dict[str, Any], node: ast.Name) -> Any:
        """A local binding's value where its right-hand side reads the name it binds (`f =
        numba.njit(f)`, `c = c * k` then `c = c.astype(t)`): each reads the binding before it."""
        name = binding.name
        if binding.kind == "assign" and any(isinstance(n, ast.Name) and n.id == name
                                            for n in walk_nodes(binding.value)):
            earlier = self.globals.chosen_binding(module, module.bindings_before(binding, function))
            if earlier is None:
                # `if isinstance(f, str): f = library.pick(f)`: the parameter it rebinds
                earlier = _parameter(function, name)
            if earlier is None:
                raise Unresolved(name, module.path, binding.line,
                                 f"is read at line {binding.line} of `{function.name}` before it is bound")
            previous = self._reaching_value(module, earlier, function, scope, env, node)
            return self._local_value(module, binding, function, scope, dict(env, **{name: previous}), node)
        return self._local_value(module, binding, function, scope, env, node)

    def _rebound_parameter(self, name: str, scope: Scope, env: Dict[str, Any]) -> Any:
        """A factory's parameter the factory rebinds before its kernel reads it (``if
        isinstance(f, str): f = pick(f)``), given its value in ``env``: the value its
        rebindings make, each taken where its tests hold for that value. MISSING where the
        name is not such a parameter, or a test is one kernlint cannot decide (the parameter's
        own value then stands, as the branch not taken)."""
        binding, function = scope.lookup(name)
        if function is None or binding is None or binding.kind != "assign" or _parameter(function, name) is None:
            return MISSING
        key = (id(function), name)
        if key in self._rebinding:  # the rebinding's own reading of the value before it
            return MISSING
        module, outer = scope.module, scope.within(function)
        value = env[name]
        self._rebinding.add(key)
        try:
            return self._rebound(name, function, module, outer, env, value)
        finally:
            self._rebinding.discard(key)

    def _rebound(self, name: str, function: FunctionNode, module: PyModule, outer: Scope, env: Dict[str, Any],
                 value: Any) -> Any:
        for rebinding in module.bindings_of(name, function):
            if rebinding.kind != "assign" or any(test is None for test, _ in rebinding.conditions):
                return MISSING  # one in a try body: whether it ran is not known
            current = dict(env, **{name: value})
            try:
                holds = all(bool(_known(self.evaluate(test, outer, current))) == branch
                            for test, branch in rebinding.conditions)
            except Unresolved:
                return MISSING
            if holds:
                value = self.globals.binding_value(module, rebinding, outer, current)
        return value

    def _local_value(self, module: PyModule, binding: Binding, function: FunctionNode, scope: Scope,
                     env: Dict[str, Any], node: ast.Name) -> Any:
        """The value of a binding local to ``function``, one of the functions around ``scope``."""
        name = binding.name
        outer = scope.within(function)
        if binding.kind == "param":
            raise Unresolved(name, module.path, getattr(node, "lineno", 0),
                             f"is a parameter of `{function.name}`").of_local(binding, function)
        if binding.kind == "loop":
            raise Unresolved(name, module.path, binding.line,
                             f"is a loop variable of `{function.name}`").of_local(binding, function)
        if binding.kind == "def":
            kernel = module.kernel_for(binding.node)
            if kernel is not None:
                return self.functions.dispatcher(kernel, env)
            return self.functions.plain_function(module, binding.node, outer, env)
        if binding.kind in ("assign", "import"):
            return self.globals.binding_value(module, binding, outer, env)
        raise Unresolved(name, module.path, binding.line,
                         f"is computed in `{function.name}` by code kernlint does not run")

    def evaluate(self, expr: ast.AST, scope: Scope, env: Dict[str, Any]) -> Any:
        """The value of a constant expression; raises Unresolved for anything else."""
        module = scope.module
        line = getattr(expr, "lineno", 0)

        def value(node):
            return _known(self.evaluate(node, scope, env))

        if isinstance(expr, ast.Constant):
            return expr.value
        if isinstance(expr, ast.Name):
            return self.name_value(expr, scope, env)
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self" \
                and "self" not in env:
            found = self._instance_attribute(expr, scope)
            if found is not MISSING:
                return found
        if isinstance(expr, ast.Attribute):
            base = value(expr.value)
            if isinstance(base, UserModule) or is_static(base):
                return base.attribute(expr.attr, line)
            try:
                return getattr(base, expr.attr)
            except AttributeError:
                raise Unresolved(ast.unparse(expr), module.path, line, "is not defined") from None
        if isinstance(expr, (ast.Tuple, ast.List, ast.Set)):
            items = []
            for element in expr.elts:
                if isinstance(element, ast.Starred):
                    items.extend(value(element.value))
                else:
                    items.append(self.evaluate(element, scope, env))  # an unread item stays one
            return {ast.Tuple: tuple, ast.List: list, ast.Set: set}[type(expr)](items)
        if isinstance(expr, ast.Dict):
            result = {}
            for key, item in zip(expr.keys, expr.values):
                if key is None:
                    result.update(value(item))
                else:
                    result[value(key)] = value(item)
            return result
        if isinstance(expr, ast.BinOp) and type(expr.op) in _BINARY:
            return _operate(expr, module.path, _BINARY[type(expr.op)], self._number(expr.left, scope, env),
                            self._number(expr.right, scope, env))
        if isinstance(expr, ast.UnaryOp) and type(expr.op) in _UNARY:
            return _operate(expr, module.path, _UNARY[type(expr.op)], self._number(expr.operand, scope, env))
        if isinstance(expr, ast.BoolOp):
            result = None
            for operand in expr.values:
                result = value(operand)
                if isinstance(expr.op, ast.And) and not result:
                    return result
                if isinstance(expr.op, ast.Or) and result:
                    return result
            return result
        if isinstance(expr, ast.Compare):
            # as Python does: the first false link's result, else the last one's (one link
            # may be an array: `[-E[i, 0], E[i, 1]] == E`)
            left, result = value(expr.left), True
            for at, (op, right_node) in enumerate(zip(expr.ops, expr.comparators)):
                right = value(right_node)
                result = _operate(expr, module.path, _COMPARE[type(op)], left, right)
                if at < len(expr.ops) - 1 and not result:
                    return result
                left = right
            return result
        if isinstance(expr, ast.IfExp):
            return value(expr.body) if value(expr.test) else value(expr.orelse)
        if isinstance(expr, ast.Subscript):
            container, index = value(expr.value), value(expr.slice)
            try:
                return container[index]
            except (LookupError, TypeError) as exc:  # the user's expression fails with these values
                raise Unresolved(ast.unparse(expr)[:60], module.path, line,
                                 f"fails when evaluated ({type(exc).__name__}: {exc})") from None
        if isinstance(expr, ast.Slice):
            return slice(*(value(p) if p is not None else None for p in (expr.lower, expr.upper, expr.step)))
        if isinstance(expr, ast.JoinedStr):
            return "".join(str(value(v)) if not isinstance(v, ast.FormattedValue) else value(v)
                           for v in expr.values)
        if isinstance(expr, ast.FormattedValue):
            spec = value(expr.format_spec) if expr.format_spec is not None else ""
            inner = value(expr.value)
            inner = {115: str, 114: repr, 97: ascii}.get(expr.conversion, lambda v: v)(inner)
            return format(inner, spec)
        if isinstance(expr, ast.Call):
            return self._call(expr, scope, env)
        if isinstance(expr, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            return self._comprehension(expr, scope, env)
        raise Unresolved(ast.unparse(expr)[:60], module.path, line,
                         f"is a {type(expr).__name__} expression kernlint does not evaluate",
                         _hint_constant(module, ast.unparse(expr)[:30]))

    def _comprehension(self, expr: ast.expr, scope: Scope, env: Dict[str, Any]) -> Any:
        """``[table[key] for key in ('r', 'v')]`` over iterables the slice gives, up to
        MAX_ITEMS items; the targets are names of this expression only."""
        def not_evaluated() -> Unresolved:
            return Unresolved(ast.unparse(expr)[:60], scope.module.path, expr.lineno,
                              "is a comprehension kernlint does not evaluate (async, starred or too long)",
                              _hint_constant(scope.module, ast.unparse(expr)[:30]))

        envs: List[Dict[str, Any]] = [env]
        for generator in expr.generators:
            if generator.is_async:
                raise not_evaluated()
            bound: List[Dict[str, Any]] = []
            for outer in envs:
                iterable = _known(self.evaluate(generator.iter, scope, outer))
                try:
                    items = iter(iterable)
                except TypeError as exc:
                    raise Unresolved(ast.unparse(generator.iter)[:60], scope.module.path, expr.lineno,
                                     f"is not iterable here ({exc})") from None
                for item in items:
                    inner = dict(outer)
                    for name, path in _target_names(generator.target):
                        if path is None:
                            raise not_evaluated()
                        try:
                            inner[name] = functools.reduce(operator.getitem, path, item)
                        except (TypeError, IndexError, KeyError):
                            raise not_evaluated() from None
                    if all(_known(self.evaluate(test, scope, inner)) for test in generator.ifs):
                        bound.append(inner)
                    if len(bound) > MAX_ITEMS:
                        raise not_evaluated()
            envs = bound
        if isinstance(expr, ast.DictComp):
            return {_known(self.evaluate(expr.key, scope, e)): self.evaluate(expr.value, scope, e) for e in envs}
        items = [self.evaluate(expr.elt, scope, e) for e in envs]  # an unread item stays one
        if isinstance(expr, ast.SetComp):
            return set(map(_known, items))
        return tuple(items) if isinstance(expr, ast.GeneratorExp) else items

    def _device_array_standin(self, callee: Any, expr: ast.Call, scope: Scope, env: Dict[str, Any]) -> Any:
        """A device array made at import time (``G = cuda.to_device(np.array([...], np.float32))``)
        needs a GPU; a kernel that reads it compiles against a host array of the same dtype,
        shape and values, which numba lowers as a constant. MISSING for other calls."""
        name = getattr(callee, "__name__", "")
        if not (getattr(callee, "__module__", "") or "").startswith("numba.cuda") or name not in _DEVICE_MAKERS:
            return MISSING
        import numpy

        args = [_known(self.evaluate(a, scope, env)) for a in expr.args]
        keywords = {k.arg: _known(self.evaluate(k.value, scope, env)) for k in expr.keywords if k.arg}
        try:
            if name == "to_device":
                value = numpy.array(args[0] if args else keywords["obj"], order="C")  # (0-d stays 0-d)
            elif name.endswith("_like"):
                value = numpy.zeros_like(args[0] if args else keywords["ary"])
            else:
                shape = args[0] if args else keywords["shape"]
                dtype = args[1] if len(args) > 1 else keywords.get("dtype", numpy.float64)
                order = args[3] if len(args) > 3 else keywords.get("order", "C")
                value = numpy.zeros(shape, dtype=dtype, order=order)
        except Exception as exc:  # noqa: BLE001 - the user's expression does not make an array
            raise Unresolved(ast.unparse(expr)[:60], scope.module.path, expr.lineno,
                             f"does not make a device array here ({type(exc).__name__}: {exc})") from None
        if value.dtype.fields is None and _captures_device_arrays():
            self.ledger.stood_in((scope.module.path, ast.unparse(expr)[:60]),
                           f"a device array of its dtype and shape for `cuda.{name}` (its pointer never read)")
            return DeviceArrayStandin(value)
        self.ledger.stood_in((scope.module.path, ast.unparse(expr)[:60]), f"a host array for `cuda.{name}`")
        return value

    def _project_wrapper(self, expr: ast.Call, scope: Scope, env: Dict[str, Any]) -> Any:
        """An object of a class that hands on the ``__cuda_array_interface__`` of the array it
        is made from (``Buffer(cuda.to_device(a))``, numba-cuda's testing ``ForeignArray``):
        numba types and lowers it as that array, so the array (a stand-in) is its value. The
        class (the project's, or numba-cuda's) is read as syntax, not run; MISSING for other
        calls."""
        dotted = scope.module.dotted(expr.func, scope) if isinstance(expr.func, (ast.Name, ast.Attribute)) else None
        found = (self.project.definition(dotted, scope.module) or self.project.numba_cuda_class(dotted)
                 ) if dotted else None
        if found is None or found[1].kind != "class" or not isinstance(found[1].node, ast.ClassDef):
            return MISSING
        wrapped = wrapped_interface(found[1].node)
        return self._wrapped_argument(wrapped, expr, scope, env) if wrapped is not None else MISSING

    def _wrapped_argument(self, wrapped: Tuple[int, str], expr: ast.Call, scope: Scope, env: Dict[str, Any]) -> Any:
        """The array a wrapper's call is made from (``wrapped``: its parameter's position and
        name), where it has a ``__cuda_array_interface__``; MISSING otherwise."""
        argument = wrapped_argument(expr, wrapped)
        if argument is None:
            return MISSING
        value = _known(self.evaluate(argument, scope, env))
        return value if getattr(value, "__cuda_array_interface__", None) is not None else MISSING

    def _instance_attribute(self, expr: ast.Attribute, scope: Scope) -> Any:
        """``self.mod`` in a method, where the class's methods assign it once
        (``def setUp(self): self.mod = usecases``): that assignment's value, read in its
        method. MISSING where ``self`` is not a method's first parameter; Unresolved, saying
        why, where the class's methods assign it more than once, not at all, or change it."""
        binding, function = scope.lookup("self")
        if binding is None or binding.kind != "param" or function is None or not function.args.args or \
                function.args.args[0].arg != "self":
            return MISSING
        module = scope.module
        owner = next((node for node in tree_nodes(module.tree) if isinstance(node, ast.ClassDef)
                      and any(item is function for item in node.body)), None)
        if owner is None:
            return MISSING
        assigned = [(method, statement.value) for method in owner.body
                    if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef))
                    for statement in walk_nodes(method) if isinstance(statement, ast.Assign)
                    for target in statement.targets
                    if isinstance(target, ast.Attribute) and target.attr == expr.attr
                    and isinstance(target.value, ast.Name) and target.value.id == "self"]
        name, line = f"self.{expr.attr}", getattr(expr, "lineno", 0)

        def run_time(reason: str) -> _Unread:  # what a kernel reads of it may be stood in for
            return _Unread(Unresolved(name, module.path, line, reason), owner.name)

        if not assigned and any(isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == expr.attr
                                for item in owner.body):
            return run_time(f"is a method of `{owner.name}`, which kernlint does not run")  # `self.make_update()`
        if not assigned and owner in module.tree.body and not _subclassed(module, owner) \
                and _class_body_assignments(owner, expr.attr):
            # `WIDE = "float64"` in the class body, read as `self.WIDE`: the class constant (a
            # subclass of this module could override it: then it stays the run's)
            constant = StaticClass(self, module, owner, Scope(module))
            if constant.readable():
                return constant.attribute(expr.attr, line)
        if not assigned:  # set from outside the class, or by a base class
            return run_time(f"is not assigned in `{owner.name}`'s methods")
        if len(assigned) > 1:  # its value depends on which methods ran
            return run_time(f"is assigned {len(assigned)} times in `{owner.name}`'s methods")
        if _changed_in(owner, expr.attr):
            return run_time(f"is changed after its assignment in `{owner.name}`'s methods")
        method, assigned_value = assigned[0]
        inner = scope.around(function).inner(method)
        # `self.n = n` in `__init__`: the object is made elsewhere; a parameter's default is
        # its value, one without is unread
        defaults = _defaults(method)
        read = {n.id for n in walk_nodes(assigned_value) if isinstance(n, ast.Name)}
        env: Dict[str, Any] = {}
        for argument in method.args.posonlyargs + method.args.args[1:] + method.args.kwonlyargs:
            if argument.arg not in read:
                continue
            given = self._constructed(module, owner, method, argument.arg, defaults, scope.around(function)) \
                if method.name == "__init__" else MISSING
            if given is not MISSING:
                env[argument.arg] = given
            elif argument.arg in defaults:
                env[argument.arg] = self.evaluate(defaults[argument.arg], scope.around(function), {})
            else:
                env[argument.arg] = _Unread(Unresolved(
                    argument.arg, module.path, line,
                    f"is a parameter of `{owner.name}.{method.name}`, given where the object is made",
                    "pass the value to the kernel as an argument, or record a run that makes the kernel "
                    "(`kernlint record -- python -m pytest`)"), f"{owner.name}.{method.name}")
        return self.evaluate(assigned_value, inner, env)

    def _constructed(self, module: PyModule, owner: ast.ClassDef, init: FunctionNode, parameter: str,
                     defaults: Dict[str, ast.expr], scope: Scope) -> Any:
        """``self.n = n`` in ``__init__``: what the project's constructions of the class give
        ``n``. Literals (or nothing: the default) in every one are its values: the first, or
        the one being read (``constructed``), the others noted in ``choices``. Where the run
        decides (a construction passing another value, none at all), the default stands in,
        said in the ledger; MISSING where there is no default."""
        key = (id(init), parameter)
        if key in self.constructed:
            return self.constructed[key]
        passed, unknown = self.project.memo(f"constructions giving {parameter}", init, lambda: constructions(
            self.project, module, owner, init, parameter))
        default = defaults.get(parameter)
        if unknown is None and (default is not None or NOT_PASSED not in passed):
            values: List[Any] = []
            for given in passed:
                value = _known(self.evaluate(default, scope, {})) if given is NOT_PASSED else given
                if all((type(value), repr(value)) != (type(seen), repr(seen)) for seen in values):
                    values.append(value)
            if len(values) > 1:
                self.choices.setdefault(key, values)
            return values[0]
        if default is None:
            return MISSING
        self.ledger.stood_in(*default_standing_in(module, owner, parameter, default, unknown))
        return self.evaluate(default, scope, {})

    def _helper_result(self, function: Any, expr: ast.Call, scope: Scope, env: Dict[str, Any]) -> Any:
        """What a call of the user's helper gives (``def make(a): return cuda.to_device(a)``,
        also after defs and plain assignments: a factory of device functions; and a choice by
        its arguments, ``if name == "harmonic": return _harmonic``): the return expression its
        tests lead to, read by this evaluator with the parameters bound to the call's values.
        Any other function is not run."""
        module, node, outer = self.functions.made_from[id(function)]
        described = ast.unparse(expr.func)
        body = node.body[1:] if node.body and isinstance(node.body[0], ast.Expr) and isinstance(
            node.body[0].value, ast.Constant) else node.body

        def not_run() -> Unresolved:
            return Unresolved(described, scope.module.path, expr.lineno,
                              "is called at import time, and kernlint does not run it",
                              _hint_constant(scope.module, described))

        if not _reads_as_returns(body) or self._returning > 4:
            raise not_run()
        args, keywords = self._plain_arguments(expr, scope, env)
        import inspect

        try:
            bound = inspect.signature(function).bind(*args, **keywords)
        except TypeError as exc:
            raise Unresolved(described, scope.module.path, expr.lineno, f"is called wrongly ({exc})") from None
        bound.apply_defaults()
        inner, arguments = outer.inner(node), dict(bound.arguments)
        self._returning += 1
        try:
            statements = list(body)
            while statements:
                statement = statements.pop(0)
                if isinstance(statement, ast.If):
                    # a test kernlint cannot decide leaves the call unread
                    taken = _known(self.evaluate(statement.test, inner, arguments))
                    statements[:0] = statement.body if taken else statement.orelse
                elif isinstance(statement, ast.Return):
                    return self.evaluate(statement.value, inner, arguments)
                elif isinstance(statement, ast.Raise):
                    raise Unresolved(described, scope.module.path, expr.lineno,
                                     f"raises for these arguments (line {statement.lineno})")
            raise not_run()  # falls off its end: None, which no kernel reads
        finally:
            self._returning -= 1

    def _imported_by_name(self, expr: ast.Call, scope: Scope, env: Dict[str, Any]) -> Any:
        """``importlib.import_module("problems." + P.function)``, the name computed from constants
        the reading knows: the module of that name, as an import statement naming it would give
        (a project module read through the project, a safe library imported); MISSING for any
        other module. A name only the run gives (``sys.argv[1]``) stays unresolved."""
        args, keywords = self._plain_arguments(expr, scope, env)
        name = args[0] if args else keywords.get("name")
        package = args[1] if len(args) > 1 else keywords.get("package")
        if not isinstance(name, str) or not name.strip("."):
            return MISSING
        if name.startswith("."):
            if not isinstance(package, str):
                return MISSING
            try:
                name = importlib.util.resolve_name(name, package)
            except ImportError:
                return MISSING
        module = scope.module
        if self.settings.is_safe(name):
            try:
                return importlib.import_module(name)
            except ImportError:
                return MISSING
        user = self.project.module_named(name, module)
        if user is not None or self.project.find(name, module):
            return UserModule(self.globals, user, name, module)
        return MISSING

    def _plain_arguments(self, expr: ast.Call, scope: Scope, env: Dict[str, Any]):
        """A call's positional and keyword values, where none is unpacked (``*a``, ``**k``)."""
        if any(isinstance(a, ast.Starred) for a in expr.args) or any(k.arg is None for k in expr.keywords):
            raise Unresolved(ast.unparse(expr.func), scope.module.path, expr.lineno, "is called with unpacked arguments")
        return ([_known(self.evaluate(a, scope, env)) for a in expr.args],
                {k.arg: _known(self.evaluate(k.value, scope, env)) for k in expr.keywords})

    def _number(self, operand: ast.expr, scope: Scope, env: Dict[str, Any]) -> Any:
        """An arithmetic operand; a library value kernlint does not import (``from
        scipy.constants import c`` then ``c**2``, or ``sc.e / sc.m_e``) is a float64
        stand-in there, as it is where a kernel reads it as a number."""
        try:
            return _known(self.evaluate(operand, scope, env))
        except Unresolved as exc:
            if not exc.library or not isinstance(operand, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)):
                raise
            # an operand of arithmetic is a number: c, sc.e, physical_constants[...][0], r_e
            # computed from one, or a library function's result
            self.ledger.stood_in((scope.module.path, ast.unparse(operand)[:60]), exc.library)
            return STANDIN_VALUE

    def _call(self, expr: ast.Call, scope: Scope, env: Dict[str, Any]) -> Any:
        module = scope.module
        line = expr.lineno
        wrapped = self._project_wrapper(expr, scope, env)
        if wrapped is not MISSING:
            return wrapped
        if module.dotted(expr.func, scope) == "importlib.import_module":  # (importlib itself is never imported)
            imported = self._imported_by_name(expr, scope, env)
            if imported is not MISSING:
                return imported
        callee = _known(self.evaluate(expr.func, scope, env))
        described = ast.unparse(expr.func)
        standin = self._device_array_standin(callee, expr, scope, env)
        if standin is not MISSING:
            return standin
        if isinstance(callee, StaticClass):  # `p = Params()`: its attributes are read, not run
            args, keywords = self._plain_arguments(expr, scope, env)
            return callee.instance(args, keywords, line)
        if id(callee) in self.functions.made_from and _users_function(callee):
            return self._helper_result(callee, expr, scope, env)
        if id(callee) in self.classes.numba_types:
            # `interval_type = IntervalType()`: an instance of the user's numba type is how numba
            # names it; its constructor names the type, as numba's own types do (one that does
            # anything else is not run)
            if not _names_a_type(self.classes.numba_types[id(callee)]):
                raise Unresolved(described, module.path, line,
                                 "is a numba type whose constructor does more than name it, which kernlint does "
                                 "not run", _hint_constant(module, described))
            args, keywords = self._plain_arguments(expr, scope, env)
            try:
                return callee(*args, **keywords)
            except Exception as exc:  # noqa: BLE001 - the user's type refused these arguments
                raise Unresolved(ast.unparse(expr.func), module.path, line,
                                 f"fails when made ({type(exc).__name__}: {exc})") from None
        if callee is getattr and 2 <= len(expr.args) <= 3 and not expr.keywords:
            # `getattr(numba, floattype)`: a module's own attribute by a name the code computes,
            # looked up in its namespace (an object's attribute, or a module's `__getattr__`,
            # would run code)
            args, _ = self._plain_arguments(expr, scope, env)
            if isinstance(args[0], UserModule) and isinstance(args[1], str) and len(args) == 2:
                return args[0].attribute(args[1], line)  # a project module's global, read in its slice
            if isinstance(args[0], types.ModuleType) and isinstance(args[1], str):
                namespace = vars(args[0])
                if args[1] in namespace or len(args) == 3:
                    return namespace.get(args[1], args[-1])
                raise Unresolved(described, module.path, line,
                                 f"fails when evaluated (module `{args[0].__name__}` has no attribute `{args[1]}`)")
        if not _may_call(callee, self.settings):
            raise Unresolved(described, module.path, line,
                             "is called at import time, and kernlint does not run it",
                             _hint_constant(module, described))
        def argument(node: ast.expr) -> Any:
            # a lambda argument is read, not run, when the library calls it (not made a value
            # elsewhere: numba could not compile it in a kernel)
            if isinstance(node, ast.Lambda):
                return _ReadLambda(self, node, scope, env)
            return _known(self.evaluate(node, scope, env))

        args: List[Any] = []
        for arg in expr.args:
            if isinstance(arg, ast.Starred):
                args.extend(_known(self.evaluate(arg.value, scope, env)))
            else:
                args.append(argument(arg))
        keywords: Dict[str, Any] = {}
        for keyword in expr.keywords:
            if keyword.arg is None:
                keywords.update(_known(self.evaluate(keyword.value, scope, env)))
            elif not _after_ir(callee, keyword.arg):
                keywords[keyword.arg] = argument(keyword.value)
        if _is_cuda_jit(callee):
            if any(isinstance(v, _ReadLambda) for v in args):
                raise Unresolved(described, module.path, line, "is given a lambda, which kernlint does not compile")
            return make_dispatcher(args[0], args[1:], keywords) if args and callable(args[0]) else (
                lambda function: make_dispatcher(function, args, keywords))
        if any(_users_function(v) for v in _may_be_called(callee, args, keywords)):
            # `sorted(xs, key=f)`, `functools.reduce(f, xs)`: the library would run the user's code
            raise Unresolved(described, module.path, line,
                             "is called with a function of this project, which kernlint does not run",
                             _hint_constant(module, described))
        try:
            return callee(*args, **keywords)
        except Unresolved:
            raise
        except Exception as exc:  # noqa: BLE001 - the user's constant expression failed
            raise Unresolved(described, module.path, line,
                             f"fails when evaluated ({type(exc).__name__}: {exc})") from None
