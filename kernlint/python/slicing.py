"""Build each kernel from a slice of its module, without running the module.

A kernel needs, to be compiled, the values of the globals it reads. They are found
statically (``syntax``) and evaluated here by a small evaluator that runs nothing of
the user's: literals and constant expressions, numba and numpy type objects, calls of
functions that belong to the safe modules (numba, numpy, math, cmath, operator and
what the configuration adds; never their file I/O, never numba.cuda's device
operations), device functions and kernels (from their ``def``, made into numba-cuda
dispatchers here), user modules (read through the project, never imported).

What cannot be evaluated raises ``Unresolved``, which names the global, the line and
how to supply it. One exception, by design: a name imported from a library kernlint
does not import (``from scipy.constants import c``) that a kernel only uses as a number
in arithmetic or comparisons compiles as a float64 stand-in (1.0): the IR's structure,
and so every finding, does not depend on its value.

This module imports numba: it runs in the compile workers.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import copy
import functools
import importlib
import itertools
import json
import operator
import os
import sys
import types
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .project import FrontendSettings, Project
from .signatures.closures import EMPTY, Unrebuildable, functions_within, rebuild
from .syntax import (JIT_OPTIONS, Binding, FunctionNode, KernelDef, PyModule, Scope, _target_names, bound_item,
                     wrapped_argument, wrapped_interface)

STANDIN_VALUE = 1.0
# the key of a variant made from a recorded closure: that record (its options and signatures)
RECORDED = "<recorded>"
MAX_VARIANTS = 8
MAX_ITEMS = 10_000  # items a comprehension the slice evaluates may have
MAX_RECORDED = 8  # the recorded closures a kernel is made with (the first, in the file's order)

# Builtins a constant expression may call: pure functions of their arguments.
_BUILTIN_CALLS = {name: getattr(builtins, name) for name in (
    "abs", "all", "any", "bool", "bytes", "chr", "complex", "dict", "divmod", "enumerate", "float",
    "frozenset", "hex", "int", "isinstance", "len", "list", "max", "min", "oct", "ord", "pow", "range",
    "reversed", "round", "set", "slice", "sorted", "str", "sum", "tuple", "zip", "repr")}
_BUILTIN_VALUES = {"True": True, "False": False, "None": None, "Ellipsis": Ellipsis,
                   "NotImplemented": NotImplemented}
# Functions of safe modules that touch files or the GPU: never called at check time.
_IO_NAMES = frozenset({"load", "save", "dump", "savez", "savez_compressed", "loadtxt", "savetxt", "genfromtxt",
                       "fromfile", "tofile", "memmap", "fromregex", "DataSource", "open", "system",
                       "recfromtxt", "recfromcsv", "open_memmap"})
# numba.cuda's module-level functions that need no GPU and allocate nothing.
# numba-cuda calls a constant expression may make: pure type builders, and jit made lazy
_NUMBA_CUDA_CALLS = frozenset({"declare_device", "jit", "from_dtype", "as_dtype", "signature", "typeof"})
# numba's extension API (numba.cuda.extending, the typing and lowering registries): applying
# one wraps or registers a function for the compiler, which calls it only while compiling
_NUMBA_EXTENSION_CALLS = frozenset({
    "intrinsic", "overload", "overload_attribute", "overload_classmethod", "overload_method", "register_jitable",
    "type_callable", "make_attribute_wrapper", "lower_builtin", "lower_cast", "lower_getattr",
    "lower_getattr_generic", "lower_setattr", "lower_setattr_generic", "lower", "lower_attr", "lower_constant",
    "register_global", "register_attr", "register", "infer", "infer_global", "infer_getattr", "register_model",
    "typeof_impl"})

_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
           ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.BitOr: operator.or_,
           ast.BitXor: operator.xor, ast.BitAnd: operator.and_, ast.MatMult: operator.matmul}
_UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg, ast.Not: operator.not_, ast.Invert: operator.invert}
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
            ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}


class Unresolved(Exception):
    """A value the slice cannot give without running the user's code."""

    def __init__(self, name: str, path: str, line: int, reason: str, hint: str = "", library: str = ""):
        super().__init__(f"`{name}` {reason}")
        self.name = name
        self.path = path
        self.line = line
        self.reason = reason
        self.hint = hint
        self.library = library  # set where the name comes from a library kernlint does not import
        self.use: Optional[Tuple[str, int, int]] = None  # where the function that needs it reads it
        # a parameter or loop variable of an enclosing function: (its binding, the function);
        # the kernel is then made once per value its calls or loop give
        self.local: Optional[Tuple[Binding, FunctionNode]] = None
        # the value needs a factory parameter no call gives (`_Unread`): (the parameter, the
        # factory); a kernel's closure variable computed from it may get a stand-in by its use
        self.unread: Optional[Tuple[str, str]] = None

    def of_local(self, binding: Binding, function: FunctionNode) -> "Unresolved":
        self.local = (binding, function)
        return self

    def used_at(self, path: str, line: int, column: int = 1) -> "Unresolved":
        """A copy located at the read that needed it (the first one located keeps its place)."""
        if self.use is not None:
            return self
        located = Unresolved(self.name, self.path, self.line, self.reason, self.hint, self.library)
        located.use = (path, line, column)
        located.local = self.local
        located.unread = self.unread
        return located

    @property
    def text(self) -> str:
        return f"`{self.name}` {self.reason}" + (f": {self.hint}" if self.hint else "")


class _Missing:
    pass


MISSING = _Missing()


class _Unread:
    """The value of a factory parameter that no call in the file gives (the factory is called
    from other files, with objects made at run time). Anything computed from it is unread;
    a kernel's closure variable that is gets a stand-in by its use (`_closure_standin`)."""

    def __init__(self, why: Unresolved, factory: str):
        why.unread = (why.name, factory)
        self.why = why

    def __repr__(self) -> str:
        return "?"


def _known(value: Any) -> Any:
    """``value``, where it is no unread factory parameter (else why it is not known)."""
    if isinstance(value, _Unread):
        raise value.why
    return value


def _hint_constant(module: PyModule, name: str) -> str:
    relative = os.path.basename(module.path)
    return (f'give its value in [tool.kernlint] constants = {{ "{relative}::{name}" = ... }}, '
            f"or check the file with --import-modules")


class Slicer:
    """Per-worker: the slice namespaces of the modules one file's kernels need."""

    def __init__(self, project: Project, settings: Optional[FrontendSettings] = None):
        self.project = project
        self.settings = settings or project.settings
        self._namespaces: Dict[str, Dict[str, Any]] = {}
        self._globals: Dict[Tuple[str, str], Any] = {}
        self._conditions: Dict[int, Optional[bool]] = {}
        self._functions: Dict[Tuple[int, Tuple], Any] = {}
        # id(function made from a plain def) -> (its module, def, scope): a one-return helper's
        # result is read from its return expression
        self._made_from: Dict[int, Tuple[PyModule, FunctionNode, Scope]] = {}
        self._returning = 0  # helpers being read, one inside another
        # which stand-ins each global and kernel rests on: the sets being collected (innermost
        # last), and what each global's or dispatcher's making used
        self._collecting: List[set] = []
        self._standins_of: Dict[Any, frozenset] = {}
        # id -> ClassDef of the numba types (types.Type subclasses) made from the user's classes
        self._numba_types: Dict[int, ast.ClassDef] = {}
        self._prepared: set = set()
        self._called_in_records: Optional[Dict[str, Any]] = None  # closures.functions_within, read once
        self.standins: Dict[Tuple[str, str], str] = {}  # (path, name) -> what it stands for

    # -- namespaces -----------------------------------------------------------

    def namespace(self, module: PyModule) -> Dict[str, Any]:
        namespace = self._namespaces.get(module.path)
        if namespace is None:
            stem = module.name or os.path.splitext(os.path.basename(module.path))[0]
            # a module object's namespace, known to sys.modules: numba looks functions' modules
            # up there (a typing registry's register_global)
            made = types.ModuleType(f"_kernlint_slice.{stem}")
            namespace = made.__dict__
            namespace.update({"__file__": module.path, "__builtins__": builtins, "__package__": module.package})
            sys.modules.setdefault(made.__name__, made)
            self._namespaces[module.path] = namespace
        return namespace

    def configure(self, module: PyModule) -> List[Unresolved]:
        """Apply the module's settings of numba's configuration (this worker process is the
        file's own); what cannot be evaluated is returned."""
        from numba.core import config

        problems = []
        for attribute, expr, line in module.numba_configuration():
            try:
                setattr(config, attribute, self.evaluate(expr, Scope(module), {}))
            except Unresolved as exc:
                problems.append(exc)
        return problems

    # -- module globals -----------------------------------------------------

    def constant(self, module: PyModule, name: str) -> Any:
        """A value the configuration gives (``path.py::NAME`` first, then ``NAME``)."""
        constants = self.settings.constants
        if not constants:
            return MISSING
        relative = os.path.relpath(module.path, self.settings.root) if self.settings.root else module.path
        for key in (f"{relative}::{name}", f"{os.path.basename(module.path)}::{name}", name):
            if key in constants:
                value = constants[key]
                return tuple(value) if isinstance(value, list) else value
        return MISSING

    @contextlib.contextmanager
    def collecting(self):
        """The keys of the stand-ins what runs inside rests on (made there, or before by the
        globals it reads)."""
        used: set = set()
        self._collecting.append(used)
        try:
            yield used
        finally:
            self._collecting.pop()
            for outer in self._collecting:
                outer |= used

    def _stood_in(self, key: Tuple[str, str], what: str) -> None:
        self.standins[key] = what
        for frame in self._collecting:
            frame.add(key)

    def _rests_on(self, key: Any) -> None:
        for frame in self._collecting:
            frame |= self._standins_of.get(key, frozenset())

    def global_value(self, module: PyModule, name: str, line: int = 0) -> Any:
        key = (module.path, name)
        if key not in self._globals:
            self._globals[key] = Unresolved(name, module.path, line, "is being resolved (a cycle)")
            with self.collecting() as used:
                try:
                    self._globals[key] = self._resolve_global(module, name, line)
                except Unresolved as exc:
                    self._globals[key] = exc
            self._standins_of[key] = frozenset(used)
        else:
            self._rests_on(key)
        value = self._globals[key]
        if isinstance(value, Unresolved):
            raise value
        return value

    def _resolve_global(self, module: PyModule, name: str, line: int) -> Any:
        configured = self.constant(module, name)
        if configured is not MISSING:
            return configured
        binding = self._chosen_binding(module, module.history.get(name, []))
        if binding is None:
            if name in _BUILTIN_VALUES:
                return _BUILTIN_VALUES[name]
            if hasattr(builtins, name):
                return getattr(builtins, name)
            if name in ("__file__", "__name__"):
                return self.namespace(module)[name]
            raise Unresolved(name, module.path, line, "is not defined in this module or by its imports")
        env: Dict[str, Any] = {}
        if binding.kind == "assign" and any(isinstance(n, ast.Name) and n.id == name
                                            for n in ast.walk(binding.value)):
            # `push = cuda.jit(push, device=True)`: the right-hand side reads the binding before
            earlier = self._chosen_binding(module, module.bindings_before(binding))
            if earlier is None:
                raise Unresolved(name, module.path, binding.line, f"is read at line {binding.line} before "
                                                                  f"it is bound")
            env[name] = self._binding_value(module, earlier, Scope(module), {})
        handled = self._handler_binding(module, binding) if self._try_fails(module, binding) else None
        if handled is not None:  # the try body's imports fail here: Python runs the handler
            return self._binding_value(module, handled, Scope(module), {})
        try:
            return self._binding_value(module, binding, Scope(module), env)
        except Unresolved as exc:
            if exc.name == name or binding.kind in ("def", "import"):
                raise
            raise Unresolved(name, module.path, binding.line,
                             f"is computed at line {binding.line} from `{exc.name}`, which {exc.reason}",
                             _hint_constant(module, name), library=exc.library) from None

    def _handler_binding(self, module: PyModule, binding: Binding) -> Optional[Binding]:
        """The binding of the same name in the ``except`` handler of the ``try`` whose body
        binds ``binding``; None where it is not in a try body or no handler binds the name."""
        if not binding.conditions or binding.conditions[-1] != (None, True):
            return None
        handler = binding.conditions[:-1] + ((None, False),)
        for other in module.history.get(binding.name, []):
            if other.conditions == handler and other.line > binding.line and other.kind in ("import", "assign"):
                return other
        return None

    def _try_fails(self, module: PyModule, binding: Binding) -> bool:
        """Whether the ``try`` body around a binding stops, at or before it, at an import of a
        safe module that fails here (then the binding never happens: ``from numba.cuda.types
        import A`` failing skips ``from numba.cuda.extending import B`` after it)."""
        if not binding.conditions or binding.conditions[-1] != (None, True):
            return False
        statement = next((node for node in ast.walk(module.tree) if isinstance(node, ast.Try)
                          and any(item is binding.node for item in node.body)), None)
        if statement is None:
            return False
        return any(self._import_fails(module, item) for item in statement.body
                   if isinstance(item, (ast.Import, ast.ImportFrom)) and item.lineno <= binding.line)

    def _import_fails(self, module: PyModule, statement: ast.stmt) -> bool:
        """An import statement of safe modules that raises ImportError here."""
        key = ("import fails", id(statement))
        if key not in self._functions:
            self._functions[key] = self._imports_fail(statement)
        return self._functions[key]

    def _imports_fail(self, statement: ast.stmt) -> bool:
        if isinstance(statement, ast.Import):
            targets = [(alias.name, None) for alias in statement.names]
        else:
            if statement.level or not statement.module:
                return False
            targets = [(statement.module, alias.name) for alias in statement.names]
        for target, attr in targets:
            if not self.settings.is_safe(target):
                return False  # not imported by kernlint: whether it fails is unknown here
            try:
                imported = importlib.import_module(target)
                if attr is not None and attr != "*" and not hasattr(imported, attr):
                    importlib.import_module(f"{target}.{attr}")
            except ImportError:
                return True
            except Exception:  # noqa: BLE001 - failing otherwise at import: not what `except ImportError` catches
                return False
        return False

    def _chosen_binding(self, module: PyModule, history: Sequence[Binding]) -> Optional[Binding]:
        """The binding the module ends with: the last one whose if-tests hold (a test kernlint
        cannot evaluate counts as its first branch taken; a try body as not raising)."""
        for binding in reversed(history):
            if all(self._condition_holds(module, test, branch) for test, branch in binding.conditions):
                return binding
        return None

    def _condition_holds(self, module: PyModule, test: Optional[ast.expr], branch: bool) -> bool:
        if test is None:
            return branch
        if id(test) not in self._conditions:
            self._conditions[id(test)] = None
            try:
                self._conditions[id(test)] = bool(self.evaluate(test, Scope(module), {}))
            except Exception:  # noqa: BLE001 - a test kernlint cannot evaluate is undecided
                pass
        value = self._conditions[id(test)]
        return branch if value is None else value == branch

    def _binding_value(self, module: PyModule, binding: Binding, scope: Scope, env: Dict[str, Any]) -> Any:
        name, line = binding.name, binding.line
        if binding.kind == "import":
            return self._import_value(module, binding)
        if binding.kind == "assign":
            applied = module.applied_jit(binding.value, scope)
            if applied is not None:
                kernel = module.applied_kernel(binding.value) or self._kernel_named(module, applied[1], scope)
                if kernel is not None:
                    return self.dispatcher(kernel, env)
            expr, path = bound_item(binding.value, binding.path)  # only the item bound is read
            value = self.evaluate(expr, scope, env)
            for index in path:
                value = _known(value)[index]
            return value
        if binding.kind == "def":
            kernel = module.kernel_for(binding.node)
            if kernel is not None:
                return self.dispatcher(kernel, env)
            return self.plain_function(module, binding.node, scope, env)
        if binding.kind == "class":
            made = self._plain_class(module, binding.node, scope, env)
            if made is None:
                made = self._extension_class(module, binding.node, scope, env)
            if made is not None:
                return made
            raise Unresolved(name, module.path, line, "is a class, whose body kernlint does not run",
                             "check the file with --import-modules")
        if binding.kind == "param":
            raise Unresolved(name, module.path, line, "is a parameter")
        raise Unresolved(name, module.path, line, f"is computed by code kernlint does not run (line {line})",
                         _hint_constant(module, name))

    def _kernel_named(self, module: PyModule, expr: ast.expr, scope: Scope) -> Optional[KernelDef]:
        if not isinstance(expr, ast.Name):
            return None
        binding, _ = scope.lookup(expr.id)
        if binding is None or binding.kind != "def":
            return None
        return module.kernel_for(binding.node)

    def _import_value(self, module: PyModule, binding: Binding) -> Any:
        name, line = binding.name, binding.line
        if not binding.module:
            raise Unresolved(name, module.path, line, "is imported relative to a package this file is not in")
        target = binding.module
        if self.settings.is_safe(target):
            try:
                imported = importlib.import_module(target)
                if binding.attr is None:
                    for alias in getattr(binding.node, "names", []):
                        if alias.asname is None and alias.name.split(".")[0] == target:
                            importlib.import_module(alias.name)  # `import numba.cuda` binds numba
                    return imported
                if hasattr(imported, binding.attr):
                    return getattr(imported, binding.attr)
                return importlib.import_module(binding.imported)
            except ImportError as exc:
                # a package whose import needs a GPU (numba.cuda.tests.cudapy): its source is read
                dotted = binding.imported if binding.attr else target
                source = _source_of(dotted)
                user = self.project.module(source) if source else None
                if user is not None:
                    return UserModule(self, user, dotted, module)
                source = _source_of(target) if binding.attr else None
                owner = self.project.module(source) if source else None
                if owner is not None and binding.attr in owner.bindings:
                    return self.global_value(owner, binding.attr, line)
                raise Unresolved(name, module.path, line, f"is imported from `{target}`, which cannot be "
                                 f"imported here ({exc})") from None
        definition = self.project.definition(binding.imported, module) if binding.attr else None
        if definition is not None:
            owner, found = definition
            # `from . import core` where the package re-imports its own submodule (even under an
            # if): the submodule itself, as Python's import gives it
            submodule = found.kind == "import" and self.project.find(binding.imported, module) is not None
            if not submodule and (owner is not module or found is not binding):
                return self.global_value(owner, found.name, line)
        user = self.project.module_named(binding.imported, module) if binding.attr else None
        if user is None and not binding.attr:
            user = self.project.module_named(target, module)
        if user is not None or self.project.find(binding.imported if binding.attr else target, module):
            return UserModule(self, user, binding.imported if binding.attr else target, module)
        if target == "cupy" and (binding.attr is None or binding.attr in _CUPY_SCALARS):
            return _cupy_scalars(binding.attr)  # not safe to import (else imported above): NumPy's
        what = f"is imported from `{target}`" if binding.attr else f"is the module `{target}`"
        raise Unresolved(
            name, module.path, line, f"{what}, a library kernlint does not import",
            f"add `{target.split('.')[0]}` to [tool.kernlint] safe-imports if importing it is safe, "
            f"or {_hint_constant(module, name)}", library=binding.imported)

    # -- functions -------------------------------------------------------------

    def prepare(self, module: PyModule, node: FunctionNode) -> None:
        """Put every global the function reads into its module's slice namespace."""
        if id(node) in self._prepared:
            return
        self._prepared.add(id(node))
        namespace = self.namespace(module)
        global_names, _ = module.outside_names(node)
        annotating = _annotation_names(node)
        for name in global_names:
            if name in annotating:
                continue  # `its: CudaArray = ...`: the function is made without its annotations
            if name in namespace:
                self._rests_on((module.path, name))
                continue
            line, column = module.first_use_at(node, name)
            try:
                namespace[name] = realise(self.global_value(module, name, line), node, name, line)
            except Unresolved as exc:
                with self.collecting() as used:
                    standin = self._standin(module, node, name, exc)
                if standin is MISSING:
                    self._prepared.discard(id(node))
                    raise exc.used_at(module.path, line, column) from None
                self._standins_of[(module.path, name)] = self._standins_of.get((module.path, name), frozenset()) | used
                namespace[name] = standin

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
        if binding.attr is not None:  # from lib import c: c itself is the number
            if all(_numeric_use(use, parents) for use, parents in uses):
                self._stood_in((module.path, name), exc.library)
                return STANDIN_VALUE
            return MISSING
        # import lib as m: m.c is the number
        stand = types.ModuleType(binding.module)
        for use, parents in uses:
            attribute = parents[0] if parents else None
            if not isinstance(attribute, ast.Attribute) or attribute.value is not use:
                return MISSING
            if not _numeric_use(attribute, parents[1:]):
                return MISSING
            setattr(stand, attribute.attr, STANDIN_VALUE)
            self._stood_in((module.path, f"{name}.{attribute.attr}"), f"{binding.module}.{attribute.attr}")
        return stand

    def _make(self, module: PyModule, node: FunctionNode, qualname: str, frees: Sequence[str],
              values: Sequence[Any]):
        """The Python function of a def, made in the slice namespace with its closure bound."""
        inner = _without_annotations(node)  # numba ignores them; made here, they would be read
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
        namespace = self.namespace(module)
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

    def _plain_class(self, module: PyModule, node: ast.ClassDef, scope: Scope, env: Dict[str, Any]) -> Any:
        """An exception or enum class whose body only names constants (``class KernelError(
        Exception): pass``, ``class Mode(IntEnum): FAST = 1``): made as Python would make it,
        since making it runs none of the user's code. None for any other class."""
        key = ("class", id(node))
        if key in self._functions:
            return self._functions[key]
        if node.decorator_list or node.keywords:
            return None
        try:
            bases = tuple(self.evaluate(base, scope, env) for base in node.bases)
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
                namespace[statement.targets[0].id] = self.evaluate(statement.value, scope, env)
            except Unresolved:
                return None

        def body(made_namespace) -> None:  # the class body's names, in order (an enum counts them)
            made_namespace["__module__"] = self.namespace(module)["__name__"]
            made_namespace["__qualname__"] = node.name
            for attribute, value in namespace.items():
                made_namespace[attribute] = value

        try:
            made = types.new_class(node.name, bases, exec_body=body)
        except Exception as exc:  # noqa: BLE001 - Python refused the class (an enum with a bad value)
            raise Unresolved(node.name, module.path, node.lineno,
                             f"is a class Python refuses to make ({type(exc).__name__}: {exc})") from None
        self._functions[key] = made
        return made

    def plain_function(self, module: PyModule, node: FunctionNode, scope: Scope, env: Dict[str, Any]):
        """A def that is not a kernel: numba's own decorators (njit, register_jitable) are
        applied; any other decorator is the user's code, which is not run."""
        decorators = []
        for decorator in node.decorator_list:
            value = self.evaluate(decorator, scope, env)
            if not self._extension_decorator(decorator, scope, env) and not _may_call(value, self.settings):
                raise Unresolved(node.name, module.path, node.lineno,
                                 f"is decorated with `{ast.unparse(decorator)}`, which kernlint does not run",
                                 "check the file with --import-modules")
            decorators.append(value)
        frees, values = self._closure(module, node, scope, env)
        key = (id(node), tuple(map(_identity, values)))
        if key not in self._functions:
            self.prepare(module, node)
            function = self._make(module, node, node.name, frees, values)
            for decorator in reversed(decorators):
                function = decorator(function)
            self._functions[key] = function  # before its registrations, which name it
            self._made_from[id(function)] = (module, node, scope)
            self._register_extensions(module, node, scope, env, function)
        return self._functions[key]

    def _register_extensions(self, module: PyModule, node, scope: Scope, env: Dict[str, Any], made) -> None:
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
            self.namespace(module).setdefault(node.name, made)
        for statement in _statements_in(body):
            if statement is node:
                continue
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                    names_it(decorator) for decorator in statement.decorator_list):
                self.plain_function(module, statement, scope, inner)
            elif isinstance(statement, ast.ClassDef) and statement.decorator_list and (
                    any(names_it(decorator) for decorator in statement.decorator_list) or keyed_by_it(statement)):
                if self._extension_class(module, statement, scope, inner) is None:
                    raise Unresolved(statement.name, module.path, statement.lineno,
                                     "is a class, whose body kernlint does not run",
                                     "check the file with --import-modules")
            elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
                registration = statement.value
                if names_it(registration.func):  # overload(f)(impl), as a statement
                    if self._extension_callee(registration.func, scope, inner):
                        register = self.evaluate(registration.func, scope, inner)
                        register(*(self.evaluate(arg, scope, inner) for arg in registration.args))
                elif names_it(registration) and self._extension_callee(registration, scope, inner):
                    self.evaluate(registration, scope, inner)  # make_attribute_wrapper(T, "x", "x")

    def _register_methods(self, kernel: KernelDef, env: Dict[str, Any]) -> None:
        """Apply the ``@overload_method(T, "name")`` / ``@overload_attribute(T, "name")``
        registrations, in the kernel's module or the functions around it, of the names the
        kernel reads as attributes (``A.foo()``): numba types ``A.foo`` through them."""
        read = {node.attr for node in ast.walk(kernel.node) if isinstance(node, ast.Attribute)}
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

    def _extension_class(self, module: PyModule, node: ast.ClassDef, scope: Scope, env: Dict[str, Any]) -> Any:
        """A class of numba's extension API: a numba type (``class IntervalType(types.Type)``),
        its data model or typing template (made for a decorator of the extension API), or the
        plain Python class the extension gives a type to. Made from a body of methods, a
        docstring and constant attributes: making it runs none of the user's code. None for
        any other class."""
        cache = ("extension class", id(node))
        if cache in self._functions:
            return self._functions[cache]
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
            bases = [self.evaluate(base, scope, env) for base in node.bases]
            if not all(self._extension_decorator(d, scope, env) for d in node.decorator_list):
                return None
            decorators = [self.evaluate(d, scope, env) for d in node.decorator_list]
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
                self.prepare(module, method)
            except Unresolved:
                pass  # a global only a method numba never calls reads: that call would fail
        values = []
        for name in frees:
            line, _ = module.first_use_at(node, name)
            values.append(self.name_value(ast.Name(id=name, ctx=ast.Load(), lineno=line), scope, env))
        constant_values = [self.evaluate(c.value, scope, env) for c in constants]
        made = self._make_class(module, node, bases, frees, values, constants, constant_values)
        for decorator in reversed(decorators):
            made = decorator(made) or made
        self._functions[cache] = made
        if isinstance(made, type) and issubclass(made, _numba_type()):
            self._numba_types[id(made)] = node
        self._register_extensions(module, node, scope, env, made)
        return made

    def _extension_decorator(self, decorator: ast.expr, scope: Scope, env: Dict[str, Any]) -> bool:
        """``@overload(f)``, ``@register_model(T)``, ``@typeof_impl.register(C)``,
        ``@registry.register_attr``: a decorator numba's extension API makes."""
        return _is_extension(self.evaluate(decorator, scope, env)) or self._extension_callee(decorator, scope, env)

    def _extension_callee(self, expr: ast.expr, scope: Scope, env: Dict[str, Any]) -> bool:
        """Whether a call (or the decorator expression) is made by numba's extension API, read
        from its callee only (its arguments may name what is being made): ``overload(...)``,
        ``typeof_impl.register(...)``, ``registry.register_attr``."""
        func = expr.func if isinstance(expr, ast.Call) else expr
        if isinstance(expr, ast.Call) and _is_extension(self.evaluate(func, scope, env)):
            return True
        return isinstance(func, ast.Attribute) and _extension_owner(self.evaluate(func.value, scope, env))

    def _given_a_type(self, module: PyModule, node: ast.ClassDef, scope: Scope) -> bool:
        """A plain class that an extension beside it types (``@typeof_impl.register(Interval)``,
        ``@type_callable(Interval)``)."""
        body = scope.functions[-1].body if scope.functions else module.tree.body
        for statement in _statements_in(body):
            for decorator in getattr(statement, "decorator_list", ()):
                if isinstance(decorator, ast.Call) and any(
                        isinstance(a, ast.Name) and a.id == node.name for a in decorator.args):
                    try:
                        if self._extension_callee(decorator, scope, {}):
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
        namespace = self.namespace(module)
        scratch: Dict[str, Any] = {}
        exec(compile(tree, module.path, "exec"), namespace, scratch)  # defines the maker only
        # the class statement runs: it defines the methods and binds the given values
        made = scratch["__kernlint_class__"](*values, *constant_values, *bases)
        made.__qualname__ = node.name
        return made

    def _closure(self, module: PyModule, node: FunctionNode, scope: Scope, env: Dict[str, Any]):
        _, frees = module.outside_names(node)
        values = []
        for name in frees:
            line, column = module.first_use_at(node, name)
            try:
                value = _known(self.name_value(ast.Name(id=name, ctx=ast.Load(), lineno=line), scope, env))
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
        self._stood_in((module.path, name), f"{described} for `{factory}`'s `{parameter}`")
        return value

    def _function_standin(self, returned: Any):
        """A device function that takes any arguments and returns ``returned`` (None: does nothing)."""
        key = ("function stand-in", repr(returned))
        if key not in self._functions:
            def standin(*args):
                return returned

            self._functions[key] = make_dispatcher(standin, [], {"device": True})
        return self._functions[key]

    # -- kernels ---------------------------------------------------------------

    def dispatcher(self, kernel: KernelDef, env: Dict[str, Any]):
        """The numba-cuda dispatcher of a kernel or device function (lazy; signatures recorded)."""
        module = kernel.module
        recorded = env.get(RECORDED)
        if recorded is not None and recorded.get("failed") is not None:
            raise recorded["failed"]
        frees, values = self._closure(module, kernel.node, kernel.scope, env)
        if recorded is not None:
            for key in recorded["standins"]:
                self._stood_in(key, self.standins[key])
        # the signature as written: cuda.jit(sig, ...) or cuda.jit(func_or_sig=sig, ...)
        written = list(kernel.jit.args) or [a for k, a in kernel.jit.keywords.items() if k == "func_or_sig"]
        try:
            args = [_known(self.evaluate(a.expr, a.scope, env)) for a in written]
        except Unresolved:
            if recorded is None:
                raise
            args = []  # the run's launches give the signatures
        keywords = {}
        for keyword, argument in kernel.jit.keywords.items():
            if keyword not in JIT_OPTIONS:
                continue  # link=, lto=, cache=... act after the IR kernlint reads
            try:
                keywords[keyword] = _known(self.evaluate(argument.expr, argument.scope, env))
            except Unresolved as exc:
                if exc.unread and recorded is None:
                    # `cuda.jit(device=gridsync)` with the flag from a factory's parameter:
                    # numba's default (a device function is still one where it returns a value)
                    parameter, factory = exc.unread
                    self._stood_in((module.path, f"{keyword}="), f"numba's default for `{factory}`'s `{parameter}`")
                    continue
                if recorded is None or (keyword != "device" and keyword not in recorded["options"]):
                    raise
                # what the run made it with: a launched kernel is no device function
                keywords[keyword] = recorded["options"].get(keyword, False)
        # a jit applied in a function may take its signature from the function's parameters
        made_with = tuple(map(_identity, args)) + tuple((k, _identity(v)) for k, v in sorted(keywords.items())) \
            if kernel.applied is not None else ()
        key = (id(kernel.node), id(kernel.applied), tuple(map(_identity, values)), made_with)
        if key in self._functions:
            self._rests_on(("dispatcher", key))
            return self._functions[key]
        with self.collecting() as used:
            made = self._new_dispatcher(kernel, module, key, frees, values, args, keywords, env)
        self._standins_of[("dispatcher", key)] = frozenset(used)
        return made

    def _new_dispatcher(self, kernel: KernelDef, module: PyModule, key, frees, values, args, keywords,
                        env: Dict[str, Any]):
        if kernel.device and not kernel.jit.device:
            keywords["device"] = True  # returns a value: what numba-cuda makes of it where it is called
        function = self._make(module, kernel.node, kernel.qualname, frees, values)
        dispatcher = make_dispatcher(function, args, keywords)
        dispatcher._kernlint_def = kernel
        # made before its globals resolve: a recursive device function (`fib(n - 1)`) reads itself
        self._functions[key] = dispatcher
        namespace = self.namespace(module)
        own = kernel.name if not kernel.nested and kernel.applied is None and kernel.name not in namespace else None
        if own is not None:
            namespace[own] = dispatcher
        try:
            self._register_methods(kernel, env)
            self.prepare(module, kernel.node)
        except BaseException:
            del self._functions[key]
            if own is not None:
                namespace.pop(own, None)
            raise
        return dispatcher

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
                self.dispatcher(kernel, labelled[0][1])
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
                with self.collecting() as used:
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
                           lambda what: self._stood_in((module.path, name), what), self._recorded_named)
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
        if key in self._functions:
            self._rests_on(("dispatcher", key))
            return self._functions[key]
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
        with self.collecting() as used:
            values = [self._rebuilt(module, node, name, closure[name]) for name in frees]
            function = self._make(module, node, qualname, frees, values)
            options = {k: v for k, v in recorded.get("options", {}).items() if k in JIT_OPTIONS and k != "device"}
            dispatcher = make_dispatcher(function, [], dict(options, device=True))
            self._functions[key] = dispatcher  # before its globals: it may call itself
            try:
                self.prepare(module, node)
            except BaseException:
                del self._functions[key]
                raise
        self._standins_of[("dispatcher", key)] = frozenset(used)
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
        shown = [label(v, loop_names or list(v)) for v in variants]
        if len(set(shown)) < len(shown):
            shown = [label(v, list(v)) for v in variants]
        return list(zip(shown, variants))

    def _loop_values(self, loop: ast.AST, scope: Scope, env: Dict[str, Any]) -> List[Dict[str, Any]]:
        """The values a loop's target names take, one dict per element of its iterable
        (the first MAX_VARIANTS)."""
        try:
            iterable = _known(self.evaluate(loop.iter, scope, env))
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
        configured = {n: self.constant(module, f"{function.name}.{n}") for n in names}
        if all(v is not MISSING for v in configured.values()):
            return [configured]
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
                values[n] = self.evaluate(defaults[n], _made_in(kernel).around(function), {})
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
                values[positional[index]] = self.evaluate(arg, scope, env)
        for keyword in call.keywords:
            if keyword.arg in names:
                values[keyword.arg] = self.evaluate(keyword.value, scope, env)
        defaults = _defaults(function)
        for name in names:
            if name not in values:
                if name not in defaults:
                    raise Unresolved(name, scope.module.path, call.lineno, "is not passed")
                values[name] = self.evaluate(defaults[name], Scope(scope.module), {})
        return values

    # -- expressions ---------------------------------------------------------

    def name_value(self, node: ast.Name, scope: Scope, env: Dict[str, Any]) -> Any:
        name = node.id
        if name in env:
            return env[name]
        module = scope.module
        binding, function = scope.lookup(name)
        if function is None:
            return self.global_value(module, name, getattr(node, "lineno", 0))
        if binding.kind == "assign" and any(isinstance(n, ast.Name) and n.id == name
                                            for n in ast.walk(binding.value)):
            # `f = numba.njit(f)` in a function: its right-hand side reads the binding before it
            earlier = self._chosen_binding(module, module.bindings_before(binding, function))
            if earlier is None:
                raise Unresolved(name, module.path, binding.line,
                                 f"is read at line {binding.line} of `{function.name}` before it is bound")
            previous = self._local_value(module, earlier, function, scope, env, node)
            return self._local_value(module, binding, function, scope, dict(env, **{name: previous}), node)
        return self._local_value(module, binding, function, scope, env, node)

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
                return self.dispatcher(kernel, env)
            return self.plain_function(module, binding.node, outer, env)
        if binding.kind in ("assign", "import"):
            return self._binding_value(module, binding, outer, env)
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
            if isinstance(base, UserModule):
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
            left = value(expr.left)
            for op, right_node in zip(expr.ops, expr.comparators):
                right = value(right_node)
                if not _operate(expr, module.path, _COMPARE[type(op)], left, right):
                    return False
                left = right
            return True
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
            self._stood_in((scope.module.path, ast.unparse(expr)[:60]),
                           f"a device array of its dtype and shape for `cuda.{name}` (its pointer never read)")
            return DeviceArrayStandin(value)
        self._stood_in((scope.module.path, ast.unparse(expr)[:60]), f"a host array for `cuda.{name}`")
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
        owner = next((node for node in ast.walk(module.tree) if isinstance(node, ast.ClassDef)
                      and any(item is function for item in node.body)), None)
        if owner is None:
            return MISSING
        assigned = [(method, statement.value) for method in owner.body
                    if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef))
                    for statement in ast.walk(method) if isinstance(statement, ast.Assign)
                    for target in statement.targets
                    if isinstance(target, ast.Attribute) and target.attr == expr.attr
                    and isinstance(target.value, ast.Name) and target.value.id == "self"]
        name, line = f"self.{expr.attr}", getattr(expr, "lineno", 0)

        def run_time(reason: str) -> _Unread:  # what a kernel reads of it may be stood in for
            return _Unread(Unresolved(name, module.path, line, reason), owner.name)

        if not assigned and any(isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == expr.attr
                                for item in owner.body):
            return run_time(f"is a method of `{owner.name}`, which kernlint does not run")  # `self.make_update()`
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
        read = {n.id for n in ast.walk(assigned_value) if isinstance(n, ast.Name)}
        env: Dict[str, Any] = {}
        for argument in method.args.posonlyargs + method.args.args[1:] + method.args.kwonlyargs:
            if argument.arg not in read:
                continue
            if argument.arg in defaults:
                env[argument.arg] = self.evaluate(defaults[argument.arg], scope.around(function), {})
            else:
                env[argument.arg] = _Unread(Unresolved(
                    argument.arg, module.path, line,
                    f"is a parameter of `{owner.name}.{method.name}`, given where the object is made",
                    "pass the value to the kernel as an argument, or record a run that makes the kernel "
                    "(`kernlint record -- python -m pytest`)"), f"{owner.name}.{method.name}")
        return self.evaluate(assigned_value, inner, env)

    def _helper_result(self, function: Any, expr: ast.Call, scope: Scope, env: Dict[str, Any]) -> Any:
        """What a call of the user's one-return helper gives (``def make(a): return
        cuda.to_device(a)``, also after defs and plain assignments: a factory of device
        functions): its return expression, read by this evaluator with the parameters bound
        to the call's values. Any other function is not run."""
        module, node, outer = self._made_from[id(function)]
        described = ast.unparse(expr.func)
        body = node.body[1:] if node.body and isinstance(node.body[0], ast.Expr) and isinstance(
            node.body[0].value, ast.Constant) else node.body
        # a factory of device functions (`def utils(n): @cuda.jit(device=True) def f(...): ...;
        # return f, g`): its defs and plain assignments are read as its return needs them
        made = all(isinstance(s, (ast.FunctionDef, ast.Assign)) for s in body[:-1])
        if not body or not made or not isinstance(body[-1], ast.Return) or body[-1].value is None or \
                self._returning > 4:
            raise Unresolved(described, scope.module.path, expr.lineno,
                             "is called at import time, and kernlint does not run it",
                             _hint_constant(scope.module, described))
        args, keywords = self._plain_arguments(expr, scope, env)
        import inspect

        try:
            bound = inspect.signature(function).bind(*args, **keywords)
        except TypeError as exc:
            raise Unresolved(described, scope.module.path, expr.lineno, f"is called wrongly ({exc})") from None
        bound.apply_defaults()
        self._returning += 1
        try:
            return self.evaluate(body[-1].value, outer.inner(node), dict(bound.arguments))
        finally:
            self._returning -= 1

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
            self._stood_in((scope.module.path, ast.unparse(operand)[:60]), exc.library)
            return STANDIN_VALUE

    def _call(self, expr: ast.Call, scope: Scope, env: Dict[str, Any]) -> Any:
        module = scope.module
        line = expr.lineno
        wrapped = self._project_wrapper(expr, scope, env)
        if wrapped is not MISSING:
            return wrapped
        callee = _known(self.evaluate(expr.func, scope, env))
        described = ast.unparse(expr.func)
        standin = self._device_array_standin(callee, expr, scope, env)
        if standin is not MISSING:
            return standin
        if id(callee) in self._made_from and _users_function(callee):
            return self._helper_result(callee, expr, scope, env)
        if id(callee) in self._numba_types:
            # `interval_type = IntervalType()`: an instance of the user's numba type is how numba
            # names it; its constructor names the type, as numba's own types do (one that does
            # anything else is not run)
            if not _names_a_type(self._numba_types[id(callee)]):
                raise Unresolved(described, module.path, line,
                                 "is a numba type whose constructor does more than name it, which kernlint does "
                                 "not run", _hint_constant(module, described))
            args, keywords = self._plain_arguments(expr, scope, env)
            try:
                return callee(*args, **keywords)
            except Exception as exc:  # noqa: BLE001 - the user's type refused these arguments
                raise Unresolved(ast.unparse(expr.func), module.path, line,
                                 f"fails when made ({type(exc).__name__}: {exc})") from None
        if not _may_call(callee, self.settings):
            raise Unresolved(described, module.path, line,
                             "is called at import time, and kernlint does not run it",
                             _hint_constant(module, described))
        args: List[Any] = []
        for arg in expr.args:
            if isinstance(arg, ast.Starred):
                args.extend(_known(self.evaluate(arg.value, scope, env)))
            else:
                args.append(_known(self.evaluate(arg, scope, env)))
        keywords: Dict[str, Any] = {}
        for keyword in expr.keywords:
            if keyword.arg is None:
                keywords.update(_known(self.evaluate(keyword.value, scope, env)))
            elif not _after_ir(callee, keyword.arg):
                keywords[keyword.arg] = _known(self.evaluate(keyword.value, scope, env))
        if _is_cuda_jit(callee):
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


def _operate(expr: ast.expr, path: str, operation, *operands):
    """An operator applied to values the slice gave; where the user's expression fails with
    them (``gamma**2`` with a parameter's default ``None``), the expression is unresolved."""
    try:
        return operation(*operands)
    except (TypeError, ValueError, ArithmeticError) as exc:
        shown = ", ".join(repr(o)[:40] for o in operands)
        raise Unresolved(ast.unparse(expr), path, getattr(expr, "lineno", 0),
                         f"fails when evaluated with the values kernlint has for it ({shown}): "
                         f"{type(exc).__name__}: {exc}") from None


class UserModule:
    """A user module or package imported by name: its attributes are resolved in its slice."""

    def __init__(self, slicer: Slicer, module: Optional[PyModule], dotted: str, importer: PyModule):
        self.slicer = slicer
        self.module = module
        self.dotted = dotted
        self.importer = importer

    def attribute(self, name: str, line: int = 0) -> Any:
        if self.module is not None and name in self.module.history:
            return self.slicer.global_value(self.module, name, line)
        child = f"{self.dotted}.{name}"
        project = self.slicer.project
        found = project.module_named(child, self.importer)
        if found is not None or project.find(child, self.importer):
            return UserModule(self.slicer, found, child, self.importer)
        raise Unresolved(child, self.importer.path, line, "is not defined in the project")

    def as_module(self, chains: Sequence[Sequence[str]], line: int = 0) -> types.ModuleType:
        """A real module object with the attribute chains a kernel reads (numba types it as a module)."""
        result = types.ModuleType(self.dotted)
        for chain in chains:
            target, current = result, self
            for index, part in enumerate(chain):
                value = current.attribute(part, line)
                if isinstance(value, UserModule):
                    existing = getattr(target, part, None)
                    if not isinstance(existing, types.ModuleType):
                        existing = types.ModuleType(value.dotted)
                        setattr(target, part, existing)
                    target, current = existing, value
                else:
                    setattr(target, part, value)
                    break
        return result


def realise(value: Any, node: FunctionNode, name: str, line: int = 0) -> Any:
    """What goes into a namespace for ``name``: user modules become module objects."""
    if isinstance(value, UserModule):
        return value.as_module(_attribute_chains(node, name), line)
    return value


def _attribute_chains(node: ast.AST, name: str) -> List[List[str]]:
    chains = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute):
            parts = []
            current = sub
            while isinstance(current, ast.Attribute):
                parts.append(current.attr)
                current = current.value
            if isinstance(current, ast.Name) and current.id == name:
                chains.append(list(reversed(parts)))
    return chains


def _uses(node: ast.AST, name: str) -> List[Tuple[ast.Name, List[ast.AST]]]:
    """Each load of ``name`` in a function, with its parents (innermost first)."""
    parents: Dict[int, ast.AST] = {}
    for parent in ast.walk(node):
        for child in ast.iter_child_nodes(parent):
            parents[id(child)] = parent
    uses = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id == name and isinstance(sub.ctx, ast.Load):
            chain = []
            current = parents.get(id(sub))
            while current is not None and current is not node:
                chain.append(current)
                current = parents.get(id(current))
            uses.append((sub, chain))
    return uses


@dataclass(frozen=True)
class _Returns:
    """A stand-in for a function a kernel calls: a device function returning ``value`` (None for
    one called for its effects; a number, an integer (an index), a tuple of numbers it indexes)."""

    value: Any
_SHAPED = ("local.array", "shared.array")  # their first argument (or shape=) is a shape: integers


def _closure_use(module: PyModule, scope: Scope, node: FunctionNode, name: str):
    """What ``node`` does with ``name``, which it closes over: (a stand-in value, what it is)
    where that says a flag, an integer, an array or a number; else a phrase saying what it
    does instead (``"calls it"``)."""
    import numpy

    from .signatures.inference import closure_use  # what the body shows of a name, as inference reads parameters

    loads = _uses(node, name)
    if not loads:
        return "does not read it itself"
    flag = integer = number = called = returns = False
    ndim = 0
    results: List[str] = []  # the locals a called function's result is bound to
    for use, parents in loads:
        parent = parents[0] if parents else None
        if isinstance(parent, ast.Call) and parent.func is use:
            if len(parents) > 1 and isinstance(parents[1], ast.Expr):
                called = True  # `apply_boundary(r, image, box)`: for its effects
            elif _used_as_number(parent, parents[1:]):
                returns = True  # `d2 = dist_sq(ri, rj, box)`, `if moved(r, r0, skin):`: a number
                bound = parents[1] if len(parents) > 1 and isinstance(parents[1], ast.Assign) else None
                if bound is not None and len(bound.targets) == 1 and isinstance(bound.targets[0], ast.Name):
                    results.append(bound.targets[0].id)  # what the kernel does with it says which
            else:
                return "calls it and uses what it returns as no number"
            continue
        if isinstance(parent, ast.keyword) and parent.arg == "dtype":
            return "makes arrays of it (a dtype)"
        if isinstance(parent, ast.Compare) and all(isinstance(o, ast.Constant) and o.value is None
                                                   for o in [parent.left] + parent.comparators if o is not use):
            continue  # `if action is not None:`: whatever stands in for it is not None
        if isinstance(parent, ast.Attribute):
            if parent.attr not in ("shape", "size", "ndim", "dtype"):
                return f"reads its attribute `{parent.attr}`"
            ndim = max(ndim, 1)
        elif isinstance(parent, ast.Subscript) and parent.value is use:
            depth, inner = 0, use  # `a[i][j]`: two dimensions
            for outer in parents:
                if not (isinstance(outer, ast.Subscript) and outer.value is inner):
                    break
                depth += len(outer.slice.elts) if isinstance(outer.slice, ast.Tuple) else 1
                inner = outer
            ndim = max(ndim, depth)
        elif isinstance(parent, (ast.Subscript, ast.Slice)) or (
                isinstance(parent, ast.Tuple) and len(parents) > 1 and isinstance(parents[1], ast.Subscript)):
            integer = True  # an index
        elif isinstance(parent, (ast.If, ast.While, ast.IfExp)) and parent.test is use or isinstance(
                parent, ast.BoolOp) or isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not):
            flag = True
        else:
            number = True
            shape_of = next((p for p in parents if isinstance(p, ast.Call)), None)
            if shape_of is not None and ast.unparse(shape_of.func).endswith(_SHAPED) and (
                    any(use is a or use in ast.walk(a) for a in shape_of.args[:1]) or
                    any(k.arg == "shape" and use in ast.walk(k.value) for k in shape_of.keywords)):
                integer = True
    if called or returns:
        if flag or integer or number or ndim:
            return "calls it and uses it otherwise too"
        kept = [closure_use(node, module, scope, local) for local in results]
        if returns and any(use.array for use in kept):
            if any(use.index for use in kept):
                return "calls it and uses what it returns as an index and as an array"
            # `p = params_of(i, j)` then `p[-1]`: a tuple of numbers, as long as its indices need
            length = max([1] + [_index_needs(node, local) for local in results])
            return _Returns((STANDIN_VALUE,) * length), f"a device function returning a tuple of {length} float64 1.0"
        if returns and any(use.index for use in kept):
            return _Returns(1), "a device function returning int 1"
        if returns:
            return _Returns(STANDIN_VALUE), "a device function returning float64 1.0"
        return _Returns(None), "a device function that does nothing"
    known = closure_use(node, module, scope, name)
    if ndim or known.array:
        ndim = max(ndim, known.ndim, 1)
        dtype = "complex128" if known.complex_elements else known.int_elements if (
            known.int_elements and not known.stored_float) else "float64"
        return numpy.zeros((1,) * ndim, dtype=dtype), f"zeros of {dtype}, {ndim}-dimensional"
    if integer or known.index:
        return 1, "int 1"
    if flag and not number:
        return True, "True"
    return STANDIN_VALUE, "float64 1.0"


def _annotations(node: ast.AST) -> List[ast.expr]:
    found: List[ast.expr] = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.arg) and sub.annotation is not None:
            found.append(sub.annotation)
        elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)) and sub.returns is not None:
            found.append(sub.returns)
        elif isinstance(sub, ast.AnnAssign):
            found.append(sub.annotation)
    return found


def _annotation_names(node: ast.AST) -> set:
    """Names a function reads only in annotations (of its parameters, its return, its locals)."""
    inside = {id(n) for annotation in _annotations(node) for n in ast.walk(annotation)}
    annotating = {n.id for annotation in _annotations(node) for n in ast.walk(annotation) if isinstance(n, ast.Name)}
    elsewhere = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and id(n) not in inside}
    return annotating - elsewhere


def _without_annotations(node: FunctionNode) -> FunctionNode:
    """A copy of a def with no annotations on its parameters, its return or its locals."""
    class Strip(ast.NodeTransformer):
        def visit_arg(self, arg):
            arg.annotation = None
            return arg

        def visit_FunctionDef(self, function):
            function.returns = None
            return self.generic_visit(function)

        visit_AsyncFunctionDef = visit_FunctionDef

        def visit_AnnAssign(self, statement):
            if statement.value is None:
                return None  # `x: int` binds nothing
            return ast.copy_location(ast.Assign(targets=[statement.target], value=statement.value), statement)

    stripped = Strip().visit(copy.deepcopy(node))
    return ast.fix_missing_locations(stripped)


def _index_needs(node: FunctionNode, name: str) -> int:
    """How long a tuple ``name`` must be for the constant indices the body reads it at
    (``p[2]``: 3, ``p[-1]``: 1); 1 where it has none."""
    needs = 1
    for sub in ast.walk(node):
        if isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Name) and sub.value.id == name:
            index = sub.slice
            negative = isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub)
            constant = index.operand if negative else index
            if isinstance(constant, ast.Constant) and type(constant.value) is int:
                needs = max(needs, constant.value if negative else constant.value + 1)
    return needs


def _used_as_number(expr: ast.AST, parents: Sequence[ast.AST]) -> bool:
    """A value a kernel computes with, stores or tests: an operand, what a plain assignment or
    a store binds, a condition, an argument of a call."""
    parent = parents[0] if parents else None
    return _numeric_use(expr, parents) or (
        isinstance(parent, ast.Assign) and not any(isinstance(t, (ast.Tuple, ast.List)) for t in parent.targets)) or (
        isinstance(parent, (ast.If, ast.While, ast.IfExp)) and parent.test is expr) or isinstance(parent, ast.BoolOp) or (
        isinstance(parent, ast.Call) and expr in parent.args)


def _numeric_use(expr: ast.AST, parents: Sequence[ast.AST]) -> bool:
    """An operand of arithmetic or of a comparison."""
    parent = parents[0] if parents else None
    return isinstance(parent, (ast.BinOp, ast.UnaryOp, ast.Compare)) or (
        isinstance(parent, ast.AugAssign) and parent.value is expr)


def _parameters_needed(module: PyModule, node: FunctionNode, scope: Scope, seen=None):
    """Parameters of the enclosing functions a nested def reads, directly or through the
    other defs of those functions it reads (a factory's device functions): (name, function)."""
    seen = set() if seen is None else seen
    if id(node) in seen:
        return []
    seen.add(id(node))
    found = []
    _, frees = module.outside_names(node)
    for name in frees:
        binding, function = scope.lookup(name)
        if binding is None or function is None:
            continue
        if binding.kind in ("param", "loop"):
            if (name, function) not in found:
                found.append((name, function))
        elif binding.kind == "def":
            inner = scope.within(function)
            for pair in _parameters_needed(module, binding.node, inner, seen):
                if pair not in found:
                    found.append(pair)
    return found


def _names_a_type(node: ast.ClassDef) -> bool:
    """A numba type's ``__init__`` (if it has one) only calls its base's with arguments and
    stores its parameters: ``super().__init__(name=f"Interval({dtype})")``, ``self.dtype = dtype``."""
    init = next((item for item in node.body if isinstance(item, ast.FunctionDef) and item.name == "__init__"), None)
    if init is None:
        return True
    simple = (ast.Name, ast.Constant, ast.Attribute, ast.JoinedStr, ast.FormattedValue, ast.Tuple, ast.BinOp,
              ast.Load, ast.operator, ast.keyword, ast.Subscript, ast.Slice)
    for statement in init.body:
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue  # a docstring
        if isinstance(statement, ast.Assign) and all(
                isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
                for t in statement.targets) and all(isinstance(n, simple) for n in ast.walk(statement.value)):
            continue
        call = statement.value if isinstance(statement, ast.Expr) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "__init__" \
                and all(isinstance(n, simple) or n is call.func.value or (isinstance(call.func.value, ast.Call)
                        and n in (call.func.value, call.func.value.func)) or n is call
                        for n in ast.walk(call)):
            continue
        return False
    return True


def _changed_in(owner: ast.ClassDef, attr: str) -> bool:
    """Whether a class's methods may change ``self.<attr>``'s value after assigning it:
    ``self.sid[k] = v``, ``self.sid += ...``, ``self.sid.update(...)`` (any method called on it)."""
    def is_it(node: ast.AST) -> bool:
        return isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.value, ast.Name) \
            and node.value.id == "self"

    for node in ast.walk(owner):
        if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)) \
                and is_it(node.value):
            return True
        if isinstance(node, ast.AugAssign) and (is_it(node.target) or isinstance(
                node.target, (ast.Subscript, ast.Attribute)) and is_it(node.target.value)):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and is_it(node.func.value):
            return True
    return False


def _source_of(dotted: str) -> Optional[str]:
    """The source file of a module of an installed package, found from the deepest package
    that imports (its parents' own imports may fail here: they need a GPU), not imported."""
    parts = dotted.split(".")
    for depth in range(len(parts) - 1, 0, -1):
        try:
            package = importlib.import_module(".".join(parts[:depth]))
        except Exception:  # noqa: BLE001 - any failure at import: try a shallower package
            continue
        for directory in getattr(package, "__path__", []):
            base = os.path.join(directory, *parts[depth:])
            for candidate in (base + ".py", os.path.join(base, "__init__.py")):
                if os.path.isfile(candidate):
                    return candidate
        return None
    return None


def _numba_type() -> type:
    """numba's base of types (imported where used: this module is loaded before numba is)."""
    from numba.core.types import Type

    return Type


def _is_numba_type(value: Any) -> bool:
    """A numba type (its str is numba's spelling: ``array(float32, 1d, A)``)."""
    return isinstance(value, _numba_type())


def _made_in(kernel: KernelDef) -> Scope:
    """Where a kernel is made: its def's scope, or, for ``cuda.jit(sig)(helper)`` in a function,
    the scope of that call (whose signature may read the function's parameters)."""
    if kernel.nested or kernel.applied is None:
        return kernel.scope
    for arg in list(kernel.jit.args) + list(kernel.jit.keywords.values()):
        if arg.scope.functions:
            return arg.scope
    return kernel.scope


def _calls_of(module: PyModule, function: FunctionNode):
    """Calls of a function in its module: ``make(...)``, and ``self.make(...)`` for methods."""
    for scope_functions, node in _walk_with_scope(module.tree, ()):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if (isinstance(func, ast.Name) and func.id == function.name) or (
                isinstance(func, ast.Attribute) and func.attr == function.name
                and isinstance(func.value, ast.Name) and func.value.id in ("self", "cls")):
            yield node, Scope(module, scope_functions)


def _walk_with_scope(node: ast.AST, functions: Tuple):
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield from _walk_with_scope(child, functions + (child,))
        else:
            yield functions, child
            yield from _walk_with_scope(child, functions)


def _defaults(function: FunctionNode) -> Dict[str, ast.expr]:
    arguments = function.args
    positional = arguments.posonlyargs + arguments.args
    found = {a.arg: d for a, d in zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults)}
    found.update({a.arg: d for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None})
    return found


def _identity(value: Any):
    try:
        hash(value)
        return (type(value).__name__, value)
    except TypeError:
        return ("id", id(value))


def _short(value: Any) -> str:
    text = getattr(value, "__name__", None) or (str(value) if _is_numba_type(value) else repr(value))
    if hasattr(value, "py_func"):
        text = value.py_func.__name__
    return text if len(text) <= 30 else text[:27] + "..."


def _is_cuda_jit(callee: Any) -> bool:
    import numba.cuda

    return callee is numba.cuda.jit


# CuPy's scalar types and constants are NumPy's (a kernel reads `cp.float32(2 * pi)` at import)
_CUPY_SCALARS = ("bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
                 "float32", "float64", "complex64", "complex128", "intp", "uintp", "pi", "e", "inf", "nan",
                 "euler_gamma", "newaxis", "dtype")


def _cupy_scalars(attr: Optional[str]) -> Any:
    """``import cupy as cp`` without CuPy: a module with NumPy's scalar types and constants
    under CuPy's names (the same values); any other attribute stays unresolved."""
    import numpy

    if attr is not None:
        return getattr(numpy, attr)
    stand = types.ModuleType("cupy")
    for name in _CUPY_SCALARS:
        setattr(stand, name, getattr(numpy, name))
    return stand


class DeviceArrayStandin:
    """A device array a module makes at import time, without a GPU: numba-cuda types an
    object with ``__cuda_array_interface__`` as it types the device array (a writable array)
    and lowers it by embedding its pointer, so the kernel's IR is the program's. The pointer
    is the host array's and nothing ever reads it (nothing runs); the module's other
    expressions read the host array's attributes (``G.shape``, ``len(G)``)."""

    def __init__(self, host):
        self._host = host
        self.__cuda_array_interface__ = {
            "shape": host.shape, "typestr": host.dtype.str, "version": 3,
            "strides": None if host.flags.c_contiguous else host.strides, "data": (host.ctypes.data, False)}

    def __getattr__(self, name: str):
        if name.startswith("__"):  # (`__dlpack__` would have numba type it as the host array)
            raise AttributeError(name)
        return getattr(self._host, name)

    def __len__(self) -> int:
        return len(self._host)

    def __getitem__(self, index):
        return self._host[index]

    def copy_to_host(self):
        return self._host.copy()

    def __repr__(self) -> str:  # what the cache's kernel digest reads: the array, not the pointer
        import hashlib

        data = hashlib.sha256(self._host.tobytes()).hexdigest()[:16]
        return f"DeviceArrayStandin({self._host.dtype.str}, {self._host.shape}, {data})"


def _captures_device_arrays() -> bool:
    """Whether this numba-cuda lowers a captured ``__cuda_array_interface__`` object by its
    pointer (0.20 has no such lowering: a host array stands in there)."""
    try:
        from numba.cuda.np import arrayobj
    except ImportError:
        return False
    return hasattr(arrayobj, "_lower_constant_device_array")


_DEVICE_MAKERS = ("to_device", "device_array", "device_array_like", "pinned_array", "pinned_array_like",
                  "mapped_array", "mapped_array_like", "managed_array")


def _may_call(callee: Any, settings: FrontendSettings) -> bool:
    """Calls a constant expression may make: pure builtins, numba types, safe modules' functions
    other than their file I/O, numba.cuda's declare_device (and jit, made lazy)."""
    if any(callee is f for f in _BUILTIN_CALLS.values()):
        return True
    try:
        from numba.core import types as numba_types

        if isinstance(callee, numba_types.Type):
            return True  # void(float32[:]): a signature
    except ImportError:  # pragma: no cover
        pass
    if isinstance(callee, (types.FunctionType, types.MethodType)) and getattr(callee, "__module__", "").startswith(
            "_kernlint_slice"):
        return False  # the user's own function
    name = getattr(callee, "__name__", "") or type(callee).__name__
    if name in _IO_NAMES:
        return False
    owner = getattr(callee, "__module__", None) or type(callee).__module__ or ""
    bound_to = getattr(callee, "__self__", None)
    if owner == "builtins" and bound_to is not None and type(bound_to).__module__ == "numpy":
        owner = "numpy"  # a NumPy array's method: `np.arange(100).reshape(10, 10)`
    if owner == "_operator":
        owner = "operator"
    if owner.startswith("numba.cuda"):
        return name in _NUMBA_CUDA_CALLS or name in _NUMBA_EXTENSION_CALLS or _is_extension_api(callee)
    return settings.is_safe(owner) or settings.is_safe(owner.lstrip("_"))


def _is_extension(callee: Any) -> bool:
    """A function of numba's extension API (numba.extending, numba.cuda.extending, the
    typing and lowering registries' decorators)."""
    owner = getattr(callee, "__module__", "") or ""
    return (owner.startswith("numba") and getattr(callee, "__name__", "") in _NUMBA_EXTENSION_CALLS
            or _is_extension_api(callee))


# the extension API's decorators that register a method or attribute of a type by its name
_MEMBER_REGISTRATIONS = frozenset({"overload_method", "overload_attribute", "overload_classmethod"})


def _extension_owner(value: Any) -> bool:
    """A numba typing or lowering registry (``cuda_registry.register_attr``), or an extension
    function with registering attributes (``typeof_impl.register``)."""
    kind = type(value)
    return (kind.__module__ or "").startswith("numba") and "Registry" in kind.__name__ or _is_extension(value)


def _is_extension_api(callee: Any) -> bool:
    """One of numba.cuda.extending's decorators (``intrinsic`` is a wrapper named ``wrapper``)."""
    try:
        import numba.cuda.extending as extending
    except ImportError:  # pragma: no cover
        return False
    return any(callee is getattr(extending, name, None) for name in _NUMBA_EXTENSION_CALLS)


# itertools' functions that arrange their arguments without calling them
_ARRANGING = frozenset({"product", "chain", "repeat", "zip_longest", "islice", "cycle", "combinations",
                        "combinations_with_replacement", "permutations", "tee", "count"})


def _may_be_called(callee, args: Sequence[Any], keywords: Dict[str, Any]) -> List[Any]:
    """The arguments a call may call: builtins call only a ``key=``; itertools' arranging
    functions, kernlint's own (jit made lazy), declare_device and numba's extension API (it
    keys its registries by the function; the compiler calls what it registers) none; anything
    else all."""
    owner = getattr(callee, "__module__", "") or ""
    name = getattr(callee, "__name__", "")
    if owner.startswith("kernlint") or name == "declare_device" or (
            owner == "itertools" and name in _ARRANGING) or _is_extension(callee) or (
            owner.startswith("numba") and name in ("njit", "jit")):  # `numba.njit(f)` compiles f lazily
        return []
    if any(callee is f for f in _BUILTIN_CALLS.values()):
        return list(keywords.values())
    return list(args) + list(keywords.values())


def _users_function(value: Any) -> bool:
    """A function the slice made from the user's code (or a container holding one)."""
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(_users_function(v) for v in value)
    if isinstance(value, dict):
        return any(_users_function(v) for v in value.values())
    return isinstance(value, (types.FunctionType, types.MethodType)) and getattr(
        value, "__module__", "").startswith("_kernlint_slice")


def _after_ir(callee, keyword: str) -> bool:
    """Is ``keyword`` of this numba-cuda call one that acts only after the LLVM IR kernlint
    reads (linking, PTX options)? Its value is then not needed: ``link=[self.lib]`` in a test."""
    if _is_cuda_jit(callee):
        return keyword not in JIT_OPTIONS
    return getattr(callee, "__name__", "") == "declare_device" and keyword in ("link", "use_cooperative")


def make_dispatcher(function, args: Sequence[Any], keywords: Dict[str, Any]):
    """numba.cuda.jit(function, ...) made lazy, with the user's signatures and codegen options
    remembered (eager compilation would need a GPU)."""
    import numba.cuda
    from numba.core import sigutils

    signatures: List[Any] = []
    if args:
        first = args[0]
        if sigutils.is_signature(first):
            signatures = [first]
        elif isinstance(first, (list, tuple)) and all(sigutils.is_signature(s) for s in first):
            signatures = list(first)
    options = {k: v for k, v in keywords.items() if k in JIT_OPTIONS}
    return remember(numba.cuda.jit(function, **options), signatures, options)


def remember(dispatcher, signatures, options: Dict[str, Any]):
    """Keep on a lazy dispatcher the signatures and codegen options its ``cuda.jit`` was given
    (kernlint compiles them itself), and ask for line info: it only adds ``!dbg`` locations."""
    dispatcher._kernlint_signatures = list(signatures or [])
    dispatcher._kernlint_options = {
        "debug": bool(options.get("debug")),
        "opt": bool(options.get("opt", True)),
        "lineinfo": bool(options.get("lineinfo")),
        "fastmath": bool(options.get("fastmath")),
    }
    if not dispatcher.targetoptions.get("debug"):
        dispatcher.targetoptions["lineinfo"] = True
    return dispatcher


def _statements_in(body) -> List[ast.stmt]:
    """The statements of one scope's body, branches and handlers included, not the bodies
    of the functions and classes it defines."""
    found = []
    for statement in body:
        found.append(statement)
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field_name in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(statement, field_name, None)
            if isinstance(inner, list):
                found.extend(_statements_in(inner))
    return found
