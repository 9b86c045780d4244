"""Calls across the project: which of the project's functions, classes or methods a call runs,
and what it gives — an object of the class it constructs (a named tuple, an array wrapper), or
the type a helper returns for the call's arguments, read off its assignments and ``return``
statements (kept for the whole project where it reads nothing of the file being read). May
import the rest of ``kernlint.python`` and ``analysis.host``.

What it asks of the reading under way (an attribute of an object of a project class, another
file's facts, the module's names as read so far) goes through a ``CallContext``.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import Dict, List, Optional, Protocol, Set, Tuple

from ...analysis.host import HostFacts
from ..project import Project
from ..static_types import ArrayType, TypeReader, instance, instance_of, named_tuple_subclass, unpacked
from ..syntax import FunctionNode, PyModule, Scope, own_nodes, wrapped_argument, wrapped_interface
from .branches import DEAD, either_type, narrowed, tests_above
from .classes import method_of
from .frames import Frame
from .functions import memoized_returns, returned_type

MAX_RETURN_DEPTH = 2  # helpers whose return types are read within one another's


class CallContext(Protocol):
    """What reading a call's result asks of the reading of the file it is in."""

    def member(self, obj, attr: str, depth: int = 0):
        """The type of an attribute of an object of a project class."""

    def facts_of(self, path: str) -> Optional[HostFacts]:
        """Another file's host facts, read for this one's sake."""

    def module_frame(self) -> Optional[Frame]:
        """The module's frame in the pass being read (None before the first)."""


class ProjectCalls:
    """The calls of one file (``module``) into the project's own code; ``level``: how many
    files deep the reading looks (``read_host``); ``gpu_code``: whether helpers' return types
    are read at all (code that may launch, or read for another file's sake)."""

    def __init__(self, project: Project, module: PyModule, context: CallContext, level: int, gpu_code: bool):
        self.project = project
        self.module = module
        self._context = context
        self._level = level
        self._gpu_code = gpu_code
        self._returning: Set[int] = set()  # helper functions whose return type is being read
        self._returns: Dict[tuple, object] = {}  # (id(function), its arguments' types) -> what it returns
        self._pure: List[bool] = []  # for each return type being read: whether it reads only other files

    def new_pass(self) -> None:
        """A new pass over the file: what later methods store in `self` may change what helpers return."""
        self._returns = {}

    def project_call(self, call: ast.Call, module: PyModule, scope: Scope, reader: TypeReader):
        """What a call of the project's own code gives: an object of its class (whose methods'
        parameters then take the argument types), or what its helper function or method
        returns for these arguments (``alloc(n, np.int64)`` -> ``int64[::1]``,
        ``self.comm.divide_into_domain()`` -> a tuple)."""
        target = self.called(call, module, scope, reader)
        if target is None:
            return None
        owner, node, receiver = target
        if isinstance(node, ast.ClassDef):
            wrapped = self.project.memo("wrapped interface", node, lambda: wrapped_interface(node))
            if wrapped is not None:
                return interface_array(call, wrapped, reader)
            named = self.project.memo("named tuple", node, lambda: named_tuple_subclass(
                node, [owner.dotted(base, Scope(owner)) for base in node.bases]))
            if named is not None:
                return named.made(call, reader)
            return instance(owner.path, node.name)
        if not self._gpu_code or any(isinstance(a, ast.Starred) for a in call.args):
            return None
        return self.returned(owner, node, call, reader, receiver)

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
        found = self.project.definition(dotted, module) if dotted else None
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
        if isinstance(func, ast.Attribute):
            obj = reader.type_of(func.value)
            where = instance_of(obj)
            method = method_of(self.project, where[0], where[1], func.attr) if where is not None else None
            if method is not None:
                owner, _, node = method
                static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)
                return owner, node, None if static else obj
        return None

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
        for param in params + node.args.kwonlyargs:
            expr = passed.get(param.arg)
            if expr is not None:
                bound[param.arg] = reader.type_of(expr) or reader.dtype(expr)
            elif param.arg in defaults:
                bound[param.arg] = ("default", defaults[param.arg])
        key = (id(node), tuple(sorted(bound.items(), key=lambda item: item[0])), tuple(self._returning))
        if key in self._returns:
            return self._returns[key]
        # what does not depend on this file's reading under way is the same for every file
        # read at this level: kept for the project
        shared = (key, self._level if self._gpu_code else -1)
        found = self.project.returns.get(shared)
        if found is not None:
            return found[1]
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

        def lookup(name: str, want_dtype: bool = False):
            value = local[name] if name in local else bound.get(name, module_names.get(name))
            if isinstance(value, tuple) and value and value[0] == "default":
                value = callee_reader.type_of(value[1]) or callee_reader.dtype(value[1])
            return value if value is not None and isinstance(value, str) == want_dtype else None

        callee_reader = TypeReader(lambda e: owner.dotted(e, scope), lookup, member=self._context.member,
                                   construct=lambda c: self.project_call(c, owner, scope, callee_reader))
        statements = self.project.memo("assignments and returns", node, lambda: sorted(
            (s for s in own_nodes(node) if isinstance(s, (ast.Assign, ast.Return))),
            key=lambda s: (s.lineno, s.col_offset)))
        conditions = self.project.memo("conditions", node, lambda: tests_above(node))
        memoized = self.project.memo("memoized returns", node, lambda: memoized_returns(node))
        self._returning.add(id(node))
        self._pure.append(True)
        kinds = []
        try:
            for statement in statements:
                # under an `if`: skipped on a side its test rules out, certain where it rules out the other
                under = conditions.get(id(statement), ())
                sides = [(narrowed(test, callee_reader), in_body) for test, in_body in under]
                if any(DEAD in told[0 if in_body else 1] for told, in_body in sides):
                    continue
                certain = all(DEAD in told[1 if in_body else 0] for told, in_body in sides)
                if isinstance(statement, ast.Return):
                    if statement.value is not None and id(statement) not in memoized:
                        kinds.append(callee_reader.type_of(statement.value))
                    continue
                value = callee_reader.type_of(statement.value) or callee_reader.dtype(statement.value)
                for target in statement.targets:
                    for name, item in unpacked(target, value):
                        # a name bound twice keeps what both bindings give (an array of either
                        # place); a parameter rebound where a test may not hold: its own type too
                        if name in local:
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
        if pure:
            self.project.returns[shared] = (node, returned)  # the node kept: its id stays its own
        return returned

    def own_state_read(self) -> None:
        """What is being worked out reads this file's names or objects, as read so far."""
        self._pure[:] = [False] * len(self._pure)


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
               for n in ast.walk(function))


# how many files deep a file's own reading looks across the project: a launch's arguments
# that a script passes to a simulation's constructor, which passes them on to a field object's,
# which stores them for a method that launches
