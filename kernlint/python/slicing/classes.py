"""Classes made in a module's slice namespace without running the user's code: exception and
enum classes whose bodies name constants, and the classes of numba's extension API (numba
types, data models, typing templates, the Python classes an extension types).""" 

from __future__ import annotations

import ast
import copy
import types
from typing import Any, Dict, List, Sequence

from ..syntax import PyModule, Scope
from .dispatchers import _extension_owner, _is_extension, _numba_type
from .namespaces import Namespaces
from .unresolved import Unresolved
from .uses import _statements_in


class ClassMaker:
    """Makes classes, each once. Evaluates bases, decorators and constants with ``evaluator``;
    methods' globals and the extensions registered beside a class go through ``functions``
    (set by the ``Slicer`` that owns it)."""

    def __init__(self, namespaces: Namespaces):
        self.namespaces = namespaces
        self.evaluator = None
        self.functions = None
        self._made: Dict[Any, Any] = {}
        # id -> ClassDef of the numba types (types.Type subclasses) made from the user's classes
        self.numba_types: Dict[int, ast.ClassDef] = {}

    def plain_class(self, module: PyModule, node: ast.ClassDef, scope: Scope, env: Dict[str, Any]) -> Any:
        """An exception or enum class whose body only names constants (``class KernelError(
        Exception): pass``, ``class Mode(IntEnum): FAST = 1``): made as Python would make it,
        since making it runs none of the user's code. None for any other class."""
        key = ("class", id(node))
        if key in self._made:
            return self._made[key]
        if node.decorator_list or node.keywords:
            return None
        try:
            bases = tuple(self.evaluator.evaluate(base, scope, env) for base in node.bases)
        except Unresolved:
            return None
        import enum

        if not bases or not all(isinstance(base, type) and (issubclass(base, BaseException) or (
                issubclass(base, enum.Enum) and base.__module__ == "enum")) for base in bases):
            return None
        namespace: Dict[str, Any] = {}
        for statement in node.body:
            if isinstance(statement, ast.Pass) or isinstance(statement, ast.Expr) and isinstance(
                    statement.value, ast.Constant):
                continue
            if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                    and isinstance(statement.targets[0], ast.Name)):
                return None
            try:
                namespace[statement.targets[0].id] = self.evaluator.evaluate(statement.value, scope, env)
            except Unresolved:
                return None

        def body(made_namespace) -> None:  # the class body's names, in order (an enum counts them)
            made_namespace["__module__"] = self.namespaces.of(module)["__name__"]
            made_namespace["__qualname__"] = node.name
            for attribute, value in namespace.items():
                made_namespace[attribute] = value

        try:
            made = types.new_class(node.name, bases, exec_body=body)
        except Exception as exc:  # noqa: BLE001 - Python refused the class (an enum with a bad value)
            raise Unresolved(node.name, module.path, node.lineno,
                             f"is a class Python refuses to make ({type(exc).__name__}: {exc})") from None
        self._made[key] = made
        return made

    def extension_class(self, module: PyModule, node: ast.ClassDef, scope: Scope, env: Dict[str, Any]) -> Any:
        """A class of numba's extension API: a numba type (``class IntervalType(types.Type)``),
        its data model or typing template (made for a decorator of the extension API), or the
        plain Python class the extension gives a type to. Made from a body of methods, a
        docstring and constant attributes: making it runs none of the user's code. None for
        any other class."""
        cache = ("extension class", id(node))
        if cache in self._made:
            return self._made[cache]
        methods = []
        constants = []
        for statement in node.body:
            if isinstance(statement, ast.Pass) or isinstance(statement, ast.Expr) and isinstance(
                    statement.value, ast.Constant):
                continue
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and all(
                    isinstance(d, ast.Name) and d.id in ("property", "staticmethod", "classmethod")
                    and scope.lookup(d.id)[0] is None for d in statement.decorator_list):
                methods.append(statement)
                continue
            if isinstance(statement, ast.Assign) and all(isinstance(t, ast.Name) for t in statement.targets):
                constants.append(statement)
                continue
            return None
        try:
            bases = [self.evaluator.evaluate(base, scope, env) for base in node.bases]
            if not all(self.extension_decorator(d, scope, env) for d in node.decorator_list):
                return None
            decorators = [self.evaluator.evaluate(d, scope, env) for d in node.decorator_list]
        except Unresolved:
            return None
        if node.keywords or not all(isinstance(b, type) for b in bases):
            return None
        numba_base = any((b.__module__ or "").startswith("numba") for b in bases)
        if not (numba_base or decorators) and not self._given_a_type(module, node, scope):
            return None
        frees: List[str] = []
        for method in methods:
            for name in module.outside_names(method)[1]:
                if name not in frees:
                    frees.append(name)
            try:
                self.functions.prepare(module, method)
            except Unresolved:
                pass  # a global only a method numba never calls reads: that call would fail
        values = []
        for name in frees:
            line, _ = module.first_use_at(node, name)
            values.append(self.evaluator.name_value(ast.Name(id=name, ctx=ast.Load(), lineno=line), scope, env))
        constant_values = [self.evaluator.evaluate(c.value, scope, env) for c in constants]
        made = self._make_class(module, node, bases, frees, values, constants, constant_values)
        for decorator in reversed(decorators):
            made = decorator(made) or made
        self._made[cache] = made
        if isinstance(made, type) and issubclass(made, _numba_type()):
            self.numba_types[id(made)] = node
        self.functions.register_extensions(module, node, scope, env, made)
        return made

    def extension_decorator(self, decorator: ast.expr, scope: Scope, env: Dict[str, Any]) -> bool:
        """``@overload(f)``, ``@register_model(T)``, ``@typeof_impl.register(C)``,
        ``@registry.register_attr``: a decorator numba's extension API makes."""
        return _is_extension(self.evaluator.evaluate(decorator, scope, env)) or self.extension_callee(
            decorator, scope, env)

    def extension_callee(self, expr: ast.expr, scope: Scope, env: Dict[str, Any]) -> bool:
        """Whether a call (or the decorator expression) is made by numba's extension API, read
        from its callee only (its arguments may name what is being made): ``overload(...)``,
        ``typeof_impl.register(...)``, ``registry.register_attr``."""
        func = expr.func if isinstance(expr, ast.Call) else expr
        if isinstance(expr, ast.Call) and _is_extension(self.evaluator.evaluate(func, scope, env)):
            return True
        return isinstance(func, ast.Attribute) and _extension_owner(self.evaluator.evaluate(func.value, scope, env))

    def _given_a_type(self, module: PyModule, node: ast.ClassDef, scope: Scope) -> bool:
        """A plain class that an extension beside it types (``@typeof_impl.register(Interval)``,
        ``@type_callable(Interval)``)."""
        body = scope.functions[-1].body if scope.functions else module.tree.body
        for statement in _statements_in(body):
            for decorator in getattr(statement, "decorator_list", ()):
                if isinstance(decorator, ast.Call) and any(
                        isinstance(a, ast.Name) and a.id == node.name for a in decorator.args):
                    try:
                        if self.extension_callee(decorator, scope, {}):
                            return True
                    except Unresolved:
                        continue
        return False

    def _make_class(self, module: PyModule, node: ast.ClassDef, bases: Sequence[type], frees: Sequence[str],
                    values: Sequence[Any], constants: Sequence[ast.Assign], constant_values: Sequence[Any]):
        """The class of a ClassDef, made in the slice namespace: its methods bound to their
        closure, its constant attributes to the values the evaluator gave."""
        made_node = copy.copy(node)
        made_node.decorator_list = []
        made_node.bases, made_node.keywords = [ast.Name(id=f"__kernlint_base_{i}__", ctx=ast.Load())
                                               for i in range(len(node.bases))], []
        body = []
        for statement in node.body:
            if statement in constants:
                index = constants.index(statement)
                statement = ast.Assign(targets=statement.targets,
                                       value=ast.Name(id=f"__kernlint_value_{index}__", ctx=ast.Load()))
            body.append(statement)
        made_node.body = body
        parameters = list(frees) + [f"__kernlint_value_{i}__" for i in range(len(constants))] + [
            f"__kernlint_base_{i}__" for i in range(len(node.bases))]
        maker = ast.FunctionDef(
            name="__kernlint_class__",
            args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=n) for n in parameters], kwonlyargs=[],
                               kw_defaults=[], defaults=[]),
            body=[made_node, ast.Return(value=ast.Name(id=node.name, ctx=ast.Load()))],
            decorator_list=[], returns=None, type_comment=None)
        if "type_params" in ast.FunctionDef._fields:
            maker.type_params = []
        tree = ast.fix_missing_locations(ast.Module(body=[maker], type_ignores=[]))
        namespace = self.namespaces.of(module)
        scratch: Dict[str, Any] = {}
        exec(compile(tree, module.path, "exec"), namespace, scratch)  # defines the maker only
        # the class statement runs: it defines the methods and binds the given values
        made = scratch["__kernlint_class__"](*values, *constant_values, *bases)
        made.__qualname__ = node.name
        return made
