"""Reading code again for its launches' signatures: a loop's body once per pass over a literal
tuple (``for dtype in (np.float32, np.float64)``), a function once per call of it in the file
(its parameters bound to that call's types, kernels and expressions), and, inside such a
reading, a method of the class that launches what it is handed (``self._getasm(fn,
sig=sig)``) once for that call. A launch read in a variant gives a signature, nothing else;
whatever else the reading changes is undone (``VariantContext.again``).

What it needs of the statement reading it asks of a ``VariantContext``; what the file's own
calls pass is handed to it (``PassedCalls``). May import the rest of ``kernlint.python`` and
``analysis.host``; never compiles.
"""

from __future__ import annotations

import ast
from typing import Callable, ContextManager, Dict, List, Optional, Protocol, Sequence, Tuple

from ...analysis.host import KernelRef
from ..project import Project
from ..static_types import TupleType, TypeReader, instance
from ..syntax import FunctionNode, PyModule, Scope, walk_nodes
from .classes import method_of
from .frames import Frame
from .functions import positional_parameters, receiver_of
from .kernels import KernelResolver
from .launches import launches_given

MAX_CALL_VARIANTS = 64  # calls of one launching helper read for their own signatures

# what the file's own calls pass to a function, per qualname: [(positional, keywords)] of their
# types, [(positional, keywords)] of the kernels they name, [(positional, keywords, frame)] as written
PassedCalls = Tuple[Dict[str, List[Tuple[List[object], Dict[str, object]]]],
                    Dict[str, List[Tuple[List[Optional[KernelRef]], Dict[str, Optional[KernelRef]]]]],
                    Dict[str, List[Tuple[List[ast.expr], Dict[str, ast.expr], Frame]]]]


class VariantContext(Protocol):
    """What reading code again asks of the statement reading of its file."""

    def read_body(self, body: Sequence[ast.stmt], frame: Frame) -> None:
        """Read these statements in ``frame``, as the file's own reading does."""

    def value_type(self, value: ast.expr, frame: Frame) -> object:
        """What a value bound to a name gives it: its type, or a dtype alias's dtype."""

    def types(self, frame: Frame) -> TypeReader:
        """The types of expressions read in ``frame``."""

    def module_frame(self) -> Optional[Frame]:
        """The module's frame in the pass being read."""

    def again(self, frame: Frame) -> ContextManager[None]:
        """A reading done again for its launches' signatures alone: what it changes (``frame``'s
        names, what classes store, the loops found) is undone when it ends."""


class Variants:
    """Reads one file's (``module``) loops, functions and methods again per variant. While a
    function is read for one call, ``kernel_parameters`` and ``parameter_exprs`` hold the
    kernels and the expressions (with their frame) that call passes to its parameters."""

    def __init__(self, project: Project, module: PyModule, kernels: KernelResolver, reading: VariantContext,
                 subclasses: Callable[[str], List[str]], max_depth: int):
        """``subclasses``: a class's subclasses in this file; ``max_depth``: how many methods
        deep a call's variant follows what it hands on (``nested``)."""
        self.project = project
        self.module = module
        self._kernels = kernels
        self._reading = reading
        self._subclasses = subclasses
        self._max_depth = max_depth
        self.kernel_parameters: Dict[str, KernelRef] = {}
        self.parameter_exprs: Dict[str, Tuple[ast.expr, Frame]] = {}
        self._depth = 0  # helpers read within a call's variant (`nested`)

    def loop_values(self, statement: ast.For, frame: Frame) -> Optional[List[Dict[str, object]]]:
        """What each pass of a loop over a literal tuple or list binds, as types (or dtypes):
        its one variable (``for dtype in (np.float32, np.float64)``), or the names it unpacks
        each literal tuple into (``for dtype, values in [(np.int32, [10, 20]), (np.float64,
        [1.5])]``); None for other loops, and where a pass binds nothing reading can type."""
        values = statement.iter
        if isinstance(values, ast.Name):
            binding, _ = frame.scope.lookup(values.id)
            values = binding.value if binding is not None and binding.kind == "assign" and not binding.path else None
        if not isinstance(values, (ast.Tuple, ast.List)) or not values.elts or len(values.elts) > 16:
            return None
        target = statement.target
        value_type = self._reading.value_type
        if isinstance(target, ast.Name):
            passes = [{target.id: value_type(element, frame)} for element in values.elts]
        elif isinstance(target, (ast.Tuple, ast.List)) and all(isinstance(t, ast.Name) for t in target.elts) and all(
                isinstance(e, (ast.Tuple, ast.List)) and len(e.elts) == len(target.elts) for e in values.elts):
            passes = [{t.id: value_type(item, frame) for t, item in zip(target.elts, element.elts)}
                      for element in values.elts]
        else:
            return None
        return passes if all(any(kind is not None for kind in bound.values()) for bound in passes) else None

    def loop(self, statement: ast.For, values: List[Dict[str, object]], frame: Frame, inner: Frame) -> None:
        """The loop's body read once more for each pass's values: the launches in it give one
        signature per pass (as the loop launches them), not events."""
        with self._reading.again(frame):
            for bound in values:
                frame.env.update(bound)
                self._reading.read_body(statement.body, inner)

    def calls(self, function: FunctionNode, qualname: str, outer: Frame, inner: Frame, passed: PassedCalls) -> None:
        """A function that launches a kernel it is given, forwards its ``*args`` to a launch
        (``def check(kernel, expected, *args): out = cuda.to_device(np.zeros_like(expected));
        kernel[1, 1](out, *args)``), or launches what its calls give different types
        (``self._test_count(np.int16)``, ``self._test_count(np.int64)``), read once more for
        each call of it in the file (``passed``), its parameters bound to that call's types and
        kernels: each launch in it gives one signature per call, its locals typed from that
        call's arguments."""
        keys = [qualname]
        if outer.owner is not None and qualname == f"{outer.owner}.{function.name}":
            # `self.check(...)` in a subclass of this file names the method by the subclass
            keys += [f"{klass}.{function.name}" for klass in self._subclasses(outer.owner)]
        types, kernels, exprs = passed
        calls = [(given, named_kernels, ([(e, caller) for e in written], {k: (v, caller) for k, v in named.items()}))
                 for key in keys for given, named_kernels, (written, named, caller) in zip(
                     types.get(key, []), kernels.get(key, []), exprs.get(key, []))]
        given_to_it = self.project.memo("launches what it is given", function, lambda: launches_given(function)) \
            or self.project.memo("hands to a launcher", function, lambda: self.hands_to_launcher(function, outer))
        if not given_to_it and len({repr(given) for given, _, _ in calls}) < 2:
            return  # its calls agree: the first reading had their types
        self._read(function, outer, inner, calls[:MAX_CALL_VARIANTS])

    def nested(self, call: ast.Call, frame: Frame) -> None:
        """In a call's variant, ``self.helper(fn, sig=sig)`` of a method of this file that
        launches or compiles what it is given: that method read for this call too, what
        this variant knows of its own parameters passed on."""
        func = call.func
        if self._depth >= self._max_depth:
            return
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"
                and frame.owner) or any(isinstance(a, ast.Starred) for a in call.args):
            return
        found = method_of(self.project, self.module.path, frame.owner.rsplit(".", 1)[-1], func.attr)
        if found is None or found[0] is not self.module:
            return
        _, klass, method = found
        if not self.project.memo("launches what it is given", method, lambda: launches_given(method)):
            return

        def forwarded(expr: ast.expr):  # (the expression, its frame): a parameter's is its caller's
            if isinstance(expr, ast.Name) and expr.id in self.parameter_exprs:
                return self.parameter_exprs[expr.id]
            return expr, frame

        def kernel_of(expr: ast.expr) -> Optional[KernelRef]:
            if isinstance(expr, ast.Name) and expr.id in self.kernel_parameters:
                return self.kernel_parameters[expr.id]
            return self._kernels.ref(expr, frame)

        value_type = self._reading.value_type
        keywords = {k.arg: k.value for k in call.keywords if k.arg}
        one_call = (([value_type(a, frame) for a in call.args],
                     {name: value_type(value, frame) for name, value in keywords.items()}),
                    ([kernel_of(a) for a in call.args], {name: kernel_of(value) for name, value in keywords.items()}),
                    ([forwarded(a) for a in call.args], {name: forwarded(v) for name, v in keywords.items()}))
        owner = Frame(None, klass, Scope(self.module), {}, self._reading.module_frame(), klass)
        inner = Frame(method, f"{klass}.{method.name}", owner.scope.inner(method), {}, owner, owner.owner)
        self._depth += 1
        try:
            self._read(method, owner, inner, [one_call])
        finally:
            self._depth -= 1

    def hands_to_launcher(self, function: FunctionNode, outer: Frame) -> bool:
        """Does a method hand one of its parameters to another method of its class that
        launches or compiles what it is given (``self._getasm(fn, sig=sig)``)?"""
        if outer.owner is None:
            return False
        arguments = function.args
        parameters = {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
        for sub in walk_nodes(function):
            if not (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute)
                    and isinstance(sub.func.value, ast.Name) and sub.func.value.id == "self"):
                continue
            if not any(isinstance(a, ast.Name) and a.id in parameters
                       for a in sub.args + [k.value for k in sub.keywords]):
                continue
            found = method_of(self.project, self.module.path, outer.owner.rsplit(".", 1)[-1], sub.func.attr)
            if found is not None and found[0] is self.module and self.project.memo(
                    "launches what it is given", found[2], lambda: launches_given(found[2])):
                return True
        return False

    def _read(self, function: FunctionNode, outer: Frame, inner: Frame, calls) -> None:
        """``function``'s body read once for each of ``calls`` ((types, keywords), (kernels,
        kernel keywords), (expressions, expression keywords), each expression with the frame
        it is read in)."""
        positional = positional_parameters(function, outer)
        arguments = function.args
        defaults = dict(zip([a.arg for a in positional[len(positional) - len(arguments.defaults):]],
                            arguments.defaults))
        reader = self._reading.types(outer)
        with self._reading.again(inner):
            saved = self.kernel_parameters, self.parameter_exprs
            try:
                for (types, keywords), (kernels, kernel_keywords), (exprs, expr_keywords) in calls:
                    env: Dict[str, object] = {}
                    given: Dict[str, KernelRef] = {}
                    written: Dict[str, Tuple[ast.expr, Frame]] = {}
                    for at, arg in enumerate(positional):
                        if arg.arg in keywords:
                            env[arg.arg], kernel = keywords[arg.arg], kernel_keywords.get(arg.arg)
                            written[arg.arg] = expr_keywords[arg.arg]
                        elif at < len(types):
                            env[arg.arg], kernel = types[at], kernels[at]
                            written[arg.arg] = exprs[at]
                        else:
                            env[arg.arg], kernel = reader.type_of(defaults.get(arg.arg)), None
                        if kernel is not None:
                            given[arg.arg] = kernel
                    if arguments.vararg is not None:
                        env[arguments.vararg.arg] = TupleType(tuple(types[len(positional):]))
                    inner.env.clear()
                    inner.env.update({k: v for k, v in env.items() if v is not None})
                    receiver = receiver_of(function, outer)
                    if receiver is not None:
                        inner.env[receiver] = instance(self.module.path, outer.owner)
                    self.kernel_parameters, self.parameter_exprs = given, written
                    self._reading.read_body(function.body, inner)
            finally:
                self.kernel_parameters, self.parameter_exprs = saved
