"""Constants read through a project class or one of its objects, without running the class
body or its ``__init__``: ``p.g`` where ``class p: g = np.float32(9.8)``, ``params.g`` where
``params = Params()`` and ``__init__`` assigns ``self.g = 9.81`` or a dataclass field defaults
to it. Each attribute is read from the one statement that sets it, evaluated alone (a sibling
the kernel never reads may fail here, ``np.float(0.1)`` on today's NumPy, without harm);
an attribute set in more than one place, or changed from outside, stays unresolved."""

from __future__ import annotations

import ast
import types
from typing import Any, Dict, List, Optional, Sequence

from ..syntax import PyModule, Scope, tree_nodes, walk_nodes
from .unresolved import Unresolved, _known
from .uses import _changed_in

_DATACLASS = ("dataclasses.dataclass",)  # the decorator that keeps a class readable


def _class_body_assignments(node: ast.ClassDef, attr: str) -> List[ast.stmt]:
    """The class body's statements that bind ``attr``: top-level assignments, and any binding
    nested in the body's if/for/with/try (which make it depend on what ran)."""
    found = []
    for statement in node.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if statement.name == attr:
                found.append(statement)
            continue
        for inner in walk_nodes(statement):
            if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            if isinstance(inner, ast.Name) and inner.id == attr and isinstance(inner.ctx, (ast.Store, ast.Del)):
                found.append(statement)
                break
    return found


def _changed_outside(module: PyModule, node: ast.ClassDef, attr: str) -> Optional[int]:
    """The line of a store to ``<name>.attr`` (or ``setattr``) outside the class's own methods,
    where ``<name>`` is not ``self``: the class or an object of it may be changed there. The
    names are not followed, so any object's such store counts: the reading stays faithful."""
    inside = {id(n) for n in walk_nodes(node)}
    for found in tree_nodes(module.tree):
        if id(found) in inside:
            continue
        if isinstance(found, ast.Attribute) and found.attr == attr and isinstance(found.ctx, (ast.Store, ast.Del)) \
                and not (isinstance(found.value, ast.Name) and found.value.id == "self"):
            return found.lineno
        if isinstance(found, ast.Call) and isinstance(found.func, ast.Name) and found.func.id == "setattr" \
                and len(found.args) > 1 and not (isinstance(found.args[1], ast.Constant)
                                                 and found.args[1].value != attr) \
                and not (isinstance(found.args[0], ast.Name) and found.args[0].id == "self"):
            return found.lineno
    return None


def _annotated_fields(node: ast.ClassDef) -> List[ast.AnnAssign]:
    """A dataclass's fields in order: annotated names of its body, ``ClassVar`` ones excluded."""
    return [s for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
            and "ClassVar" not in ast.unparse(s.annotation)]


class StaticClass:
    """A project class whose body kernlint does not run, read one attribute at a time."""

    def __init__(self, evaluator, module: PyModule, node: ast.ClassDef, scope: Scope):
        self.evaluator = evaluator
        self.module = module
        self.node = node
        self.scope = scope  # where the class statement is
        self._reading: set = set()

    @property
    def path(self) -> str:
        return self.module.path

    @property
    def dataclass(self) -> bool:
        for decorator in self.node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            if self.module.dotted(target, self.scope) not in _DATACLASS:
                return False
        return bool(self.node.decorator_list)

    def readable(self) -> bool:
        """No base but ``object``, no metaclass, no decorator but ``dataclass``: an attribute
        its body sets is then what reading it gives."""
        plain_bases = all(isinstance(b, ast.Name) and b.id == "object" for b in self.node.bases)
        return plain_bases and not self.node.keywords and (not self.node.decorator_list or self.dataclass)

    def _unresolved(self, attr: str, line: int, reason: str, made: bool = False) -> Unresolved:
        shown = f"{self.node.name}(...).{attr}" if made else f"{self.node.name}.{attr}"
        return Unresolved(shown, self.module.path, line, reason,
                          "pass the value to the kernel as an argument, or check the file with --import-modules")

    def attribute(self, attr: str, line: int = 0) -> Any:
        """``Cls.attr``: the value the class body's one assignment gives it."""
        changed = _changed_outside(self.module, self.node, attr)
        if changed is not None:
            raise self._unresolved(attr, line, f"may be changed at line {changed}")
        return self._body_value(attr, line)

    def _body_value(self, attr: str, line: int) -> Any:
        statements = _class_body_assignments(self.node, attr)
        if not statements:
            raise self._unresolved(attr, line, f"is not set in the body of class `{self.node.name}`")
        statement = statements[0]
        if len(statements) > 1 or statement not in self.node.body or not (
                isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)
                or isinstance(statement, ast.AnnAssign) and statement.value is not None):
            raise self._unresolved(attr, line, f"is not set by one plain assignment in class `{self.node.name}`")
        if self.dataclass and isinstance(statement, ast.AnnAssign) and isinstance(statement.value, ast.Call) \
                and self.module.dotted(statement.value.func, self.scope) == "dataclasses.field":
            # `field(default=...)`, `field(default_factory=...)`: the class attribute is not the call
            raise self._unresolved(attr, line, "is a dataclass field made by a call, which kernlint does not run")
        if attr in self._reading:
            raise self._unresolved(attr, line, "is read while it is being read (a cycle)")
        self._reading.add(attr)
        try:
            # the class body sees its own earlier names before the module's
            env = {}
            for name in {n.id for n in walk_nodes(statement.value) if isinstance(n, ast.Name)}:
                earlier = _class_body_assignments(self.node, name)
                if earlier and all(s.lineno < statement.lineno for s in earlier):
                    env[name] = self._body_value(name, line)
            return self.evaluator.evaluate(statement.value, self.scope, env)
        finally:
            self._reading.discard(attr)

    def instance(self, args: Sequence[Any], keywords: Dict[str, Any], line: int) -> "StaticInstance":
        return StaticInstance(self, args, keywords, line)

    def as_module(self, chains: Sequence[Sequence[str]], line: int = 0) -> types.ModuleType:
        return holder(self, f"{self.node.name}@{id(self):x}", chains, line)


class StaticInstance:
    """An object of a ``StaticClass``, made by a call whose arguments the slice evaluated:
    its attributes are what ``__init__``'s one assignment of each, a dataclass's field or the
    class body gives them."""

    def __init__(self, owner: StaticClass, args: Sequence[Any], keywords: Dict[str, Any], line: int):
        self.owner = owner
        self.args = list(args)
        self.keywords = dict(keywords)
        self.line = line

    @property
    def path(self) -> str:
        return self.owner.module.path

    def attribute(self, attr: str, line: int = 0) -> Any:
        owner, node = self.owner, self.owner.node
        changed = _changed_outside(owner.module, node, attr)
        if changed is not None:
            raise owner._unresolved(attr, line, f"may be changed at line {changed}", made=True)
        dynamic = next((n.lineno for n in walk_nodes(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                        and n.func.id in ("setattr", "vars") or isinstance(n, ast.Attribute) and n.attr in (
                            "__dict__", "__setattr__") or isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                        and n.name in ("__getattr__", "__getattribute__", "__new__")), None)
        if dynamic is not None:  # attributes made by name: which ones is known only when it runs
            raise owner._unresolved(attr, line, f"may be set by name in `{node.name}` (line {dynamic})", made=True)
        methods = [m for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
        init = next((m for m in methods if m.name == "__init__"), None)
        assigned = [(method, statement) for method in methods for statement in walk_nodes(method)
                    if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign))
                    for target in (statement.targets if isinstance(statement, ast.Assign) else [statement.target])
                    for part in walk_nodes(target)
                    if isinstance(part, ast.Attribute) and part.attr == attr
                    and isinstance(part.value, ast.Name) and part.value.id == "self"]
        if assigned:
            method, statement = assigned[0]
            if len(assigned) > 1 or method is not init or statement not in init.body or not isinstance(
                    statement, ast.Assign) or len(statement.targets) != 1 or not isinstance(
                    statement.targets[0], ast.Attribute) or _changed_in(node, attr):
                raise owner._unresolved(attr, line, f"is set more than once, conditionally or by a method "
                                                    f"other than `__init__` of `{node.name}`", made=True)
            return self._init_value(init, statement.value, line)
        if init is None and owner.dataclass:
            fields = _annotated_fields(node)
            names = [f.target.id for f in fields]
            if attr in names:
                if attr in self.keywords:
                    return self.keywords[attr]
                if names.index(attr) < len(self.args):
                    return self.args[names.index(attr)]
        if init is None and not owner.dataclass and (self.args or self.keywords):
            raise owner._unresolved(attr, line, "is read from an object made with arguments its class does not take", made=True)
        return owner._body_value(attr, line)

    def _init_value(self, init: ast.FunctionDef, value: ast.expr, line: int) -> Any:
        """``value`` read in ``__init__`` with its parameters bound to the call's arguments."""
        owner = self.owner
        arguments = init.args
        if arguments.vararg is not None or arguments.kwarg is not None:
            raise owner._unresolved(ast.unparse(value)[:40], line, "is set from `*args`/`**kwargs` of `__init__`")
        positional = [a.arg for a in arguments.posonlyargs + arguments.args][1:]
        defaults = dict(zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults))
        defaults.update({a.arg: d for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None})
        if len(self.args) > len(positional) or set(self.keywords) - set(positional) - {
                a.arg for a in arguments.kwonlyargs}:
            raise owner._unresolved(ast.unparse(value)[:40], line, f"comes from a call `{owner.node.name}(...)` "
                                                                   f"whose arguments `__init__` does not take")
        env: Dict[str, Any] = dict(zip(positional, self.args))
        env.update(self.keywords)
        read = {n.id for n in walk_nodes(value) if isinstance(n, ast.Name)}
        for name, default in defaults.items():
            if name not in env and name in read:
                env[name] = _known(owner.evaluator.evaluate(default, owner.scope, {}))
        inner = owner.scope.inner(init)
        return owner.evaluator.evaluate(value, inner, env)

    def as_module(self, chains: Sequence[Sequence[str]], line: int = 0) -> types.ModuleType:
        # each object its own name: numba tells modules apart by theirs
        return holder(self, f"{self.owner.node.name}(...)@{id(self):x}", chains, line)


def holder(reading: Any, name: str, chains: Sequence[Sequence[str]], line: int) -> types.ModuleType:
    """A module object with the attributes a kernel reads (numba folds a module's attributes
    as constants); one read as anything but an attribute chain cannot be held so."""
    held = types.ModuleType(name)
    held.__kernlint_reading__ = reading  # another function of the module may read more of it
    fill(held, chains, line)
    return held


def fill(held: types.ModuleType, chains: Sequence[Sequence[str]], line: int = 0) -> None:
    """Add to a holder the attributes of ``chains`` it does not hold yet."""
    reading = held.__kernlint_reading__
    tails: Dict[str, List[Sequence[str]]] = {}
    for chain in chains:
        if chain:
            tails.setdefault(chain[0], []).append(chain[1:])
    for attr, rest in tails.items():
        current = getattr(held, attr, None)
        if isinstance(current, types.ModuleType) and hasattr(current, "__kernlint_reading__"):
            fill(current, rest, line)
            continue
        if current is not None:
            continue
        value = reading.attribute(attr, line)
        if isinstance(value, (StaticClass, StaticInstance)) or getattr(value, "read_as_module", False):
            value = value.as_module(rest, line)  # a class, an object or a project's module: held too
        setattr(held, attr, value)


def is_static(value: Any) -> bool:
    return isinstance(value, (StaticClass, StaticInstance))


def is_holder(value: Any) -> bool:
    return isinstance(value, types.ModuleType) and hasattr(value, "__kernlint_reading__")
