"""Read a Python file without running it: what its names mean, and which functions are kernels.

This layer only reads syntax (``ast`` and ``symtable``); it never imports numba or the
user's code, so the CLI, the host rules and the signature finder use it as freely as
the compile workers do.

Names are resolved the way Python would bind them when the module runs, read off the
syntax tree: imports (relative ones through the file's package), assignments (the last
one wins; each remembers the ``if``/``try`` it sits in, which the evaluator decides),
``def`` and ``class`` statements. ``dotted()`` turns an expression into the qualified
name it stands for (``nc.jit`` -> ``numba.cuda.jit`` after ``from numba import cuda as
nc``), which is how kernels are recognised whatever the user called things.
"""

from __future__ import annotations

import ast
import builtins
import re
import symtable
import weakref
from collections import deque
from dataclasses import dataclass, field
from functools import cached_property
from typing import Dict, Iterator, List, Optional, Sequence, Set, Tuple, Union

from .mangling import PRIVATE_NAME, mangle_private_names

JIT = "numba.cuda.jit"
# Options of numba.cuda.jit that change the code it generates, or whether it is a kernel.
JIT_OPTIONS = ("device", "debug", "opt", "lineinfo", "fastmath", "inline", "forceinline")

FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef]


@dataclass
class Binding:
    """One statement that binds a name at module (or function) level."""

    name: str
    kind: str  # import | assign | def | class | param | loop | other
    node: ast.AST
    order: int
    conditions: Tuple[Tuple[Optional[ast.expr], bool], ...] = ()  # (if-test, branch); None test: try body
    module: str = ""  # import: absolute module name ("" where a relative import leaves the package)
    attr: Optional[str] = None  # from-import: the imported name
    value: Optional[ast.expr] = None  # assign: the right-hand side
    path: Tuple[int, ...] = ()  # assign: index path into tuple unpacking
    line: int = 0

    @property
    def imported(self) -> str:
        """``module.attr`` for from-imports, ``module`` for imports."""
        return f"{self.module}.{self.attr}" if self.attr else self.module


@dataclass
class Scope:
    """Where a name is looked up: a module, and the functions around a point in it
    (innermost last). Class bodies are not scopes for the functions inside them."""

    module: "PyModule"
    functions: Tuple[FunctionNode, ...] = ()

    def inner(self, function: FunctionNode) -> "Scope":
        return Scope(self.module, self.functions + (function,))

    def within(self, function: FunctionNode) -> "Scope":
        """The scope inside ``function``, one of the functions around this point."""
        return Scope(self.module, self.functions[:self.functions.index(function) + 1])

    def around(self, function: FunctionNode) -> "Scope":
        """The scope ``function`` itself is defined in."""
        return Scope(self.module, self.functions[:self.functions.index(function)])

    def lookup(self, name: str) -> Tuple[Optional[Binding], Optional[FunctionNode]]:
        """The binding of ``name`` and the function it is local to (None: module level)."""
        for function in reversed(self.functions):
            binding = self.module.local_bindings(function).get(name)
            if binding is not None:
                return binding, function
        return self.module.bindings.get(name), None


@dataclass
class JitArg:
    expr: ast.expr
    scope: Scope


@dataclass
class JitSpec:
    """The arguments numba.cuda.jit receives for a kernel, each with the scope it is read in."""

    args: List[JitArg] = field(default_factory=list)
    keywords: Dict[str, JitArg] = field(default_factory=dict)
    via: str = JIT  # numba.cuda.jit, or the wrapper decorator's qualified name

    def literal(self, keyword: str, default=None):
        arg = self.keywords.get(keyword)
        if arg is None:
            return default
        if isinstance(arg.expr, ast.Constant):
            return arg.expr.value
        return default

    @property
    def device(self) -> bool:
        return bool(self.literal("device", False))


def _same_jit(one: JitSpec, other: JitSpec) -> bool:
    """Whether two jit calls say the same (their arguments' text): the same kernel twice."""
    def text(spec: JitSpec):
        return ([ast.dump(a.expr) for a in spec.args],
                sorted((k, ast.dump(a.expr)) for k, a in spec.keywords.items()), spec.via)
    return text(one) == text(other)


@dataclass
class KernelDef:
    """A function that numba.cuda.jit compiles: a kernel or a device function."""

    node: FunctionNode
    module: "PyModule"
    jit: JitSpec
    scope: Scope  # where the def statement is (its enclosing functions)
    names: List[str]  # the names the dispatcher is bound to in that scope
    owner: Optional[ast.ClassDef] = None  # the class whose body defines it
    outer: Tuple[str, ...] = ()  # the classes and functions around the def, outermost first
    # ``fast = cuda.jit(sig, fastmath=True)(helper)`` in a function, of a module-level ``def helper``
    # that is no kernel itself: the jit call (each one is a kernel of its own); ``outer`` and
    # ``names`` are then those of the assignment
    applied: Optional[ast.Call] = None

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def qualname(self) -> str:
        """Python's ``__qualname__`` without its ``<locals>`` steps: ``Tests.test_add.add``; for
        a jit applied in a function, the name it is bound to there: ``Tests.test_add.fast``."""
        return ".".join(self.outer + (self.names[0] if self.applied is not None else self.node.name,))

    @property
    def line(self) -> int:
        return self.node.lineno

    @property
    def column(self) -> int:
        return self.node.col_offset + 1

    @property
    def first_line(self) -> int:
        """The first decorator's line (comments above it carry ``# kernlint: sig=``)."""
        return min([d.lineno for d in self.node.decorator_list] + [self.node.lineno])

    @property
    def device(self) -> bool:
        """A device function: ``device=True``, or a lazy ``@cuda.jit`` whose body returns a value
        (a kernel cannot; numba-cuda compiles it as a device function where a kernel calls it), or
        one that calls a parameter and is not told ``device=False`` (no launch passes a function)."""
        if self.jit.device:
            return True
        if self.jit.args:
            return False
        return returns_value(self.node) or (
            self.jit.literal("device", None) is not False and calls_parameter(self.node))

    @property
    def nested(self) -> bool:
        return bool(self.scope.functions)


class PyModule:
    """One Python file, read: bindings, dotted names, kernels."""

    def __init__(self, path: str, text: str, name: str, package: str,
                 project: Optional["ProjectLike"] = None):
        self.path = path
        self.text = text
        self.name = name  # dotted module name ("" for a script outside any package)
        self.package = package  # the package relative imports start from
        self.project = project
        self.tree: ast.Module = ast.parse(text, filename=path)
        self.private_names: Dict[str, str] = {}  # a name mangled while reading -> as written
        if PRIVATE_NAME.search(text):  # `self.__x` in a class is `self._Class__x`, as Python runs it
            mangle_private_names(self.tree, self.private_names)
        self.bindings: Dict[str, Binding] = {}
        self.history: Dict[str, List[Binding]] = {}
        self._reexports: Dict[str, str] = {}  # a name imported from a project module -> where it is from
        self._dotted: Dict[tuple, Optional[str]] = {}  # (name, scope's module and functions, depth) -> `dotted`
        self._stars = 0  # the star imports `dotted` looked through so far
        self._local: Dict[int, Dict[str, Binding]] = {}
        self._local_history: Dict[int, Dict[str, List[Binding]]] = {}
        self._order = 0
        self._collect(self.tree.body, self.bindings, self.history, ())
        self._collect_declared_global()

    def _collect_declared_global(self) -> None:
        """A name no module-level statement binds, that one function declares ``global`` and
        assigns once (``global cufoo; cufoo = cuda.jit(sig, device=True)(foo)``): bound to that
        assignment, as if it ran (a kernel reading it runs after it)."""
        if not re.search(r"^[ \t]+global[ \t]", self.text, re.M):  # most files: no tree walked again
            return
        assigned: Dict[str, List[ast.stmt]] = {}
        for function in walk_nodes(self.tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            own = list(own_nodes(function))  # a nested def's body is its own function's
            declared = {name for node in own if isinstance(node, ast.Global) for name in node.names}
            for node in own:
                if declared and isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    for target in targets:
                        for name, _ in _target_names(target):
                            if name in declared:
                                assigned.setdefault(name, []).append(node)
        for name, statements in assigned.items():
            if name in self.bindings or len(statements) != 1 or not isinstance(statements[0], ast.Assign):
                continue
            for binding in self._bindings_of(statements[0], ((None, True),)):
                if binding.name == name:
                    self._order += 1
                    binding.order = self._order
                    self.history.setdefault(name, []).append(binding)
                    self.bindings[name] = binding

    # -- bindings ---------------------------------------------------------

    def _collect(self, body: Sequence[ast.stmt], into: Dict[str, Binding], history: Dict[str, List[Binding]],
                 conditions: Tuple) -> None:
        for statement in body:
            for binding in self._bindings_of(statement, conditions):
                self._order += 1
                binding.order = self._order
                history.setdefault(binding.name, []).append(binding)
                # the static view takes first branches and try bodies (an except handler's
                # `cuda = None` does not undo `from numba import cuda`); the slicer decides tests
                if all(branch for _, branch in conditions) or binding.name not in into:
                    into[binding.name] = binding
            if isinstance(statement, ast.If):
                self._collect(statement.body, into, history, conditions + ((statement.test, True),))
                self._collect(statement.orelse, into, history, conditions + ((statement.test, False),))
            elif isinstance(statement, (ast.Try, getattr(ast, "TryStar", ast.Try))):
                self._collect(statement.body, into, history, conditions + ((None, True),))
                for handler in statement.handlers:
                    self._collect(handler.body, into, history, conditions + ((None, False),))
                self._collect(statement.orelse, into, history, conditions + ((None, True),))
                self._collect(statement.finalbody, into, history, conditions)
            elif isinstance(statement, (ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While)):
                self._collect(statement.body, into, history, conditions)
                self._collect(getattr(statement, "orelse", []), into, history, conditions)

    def _bindings_of(self, statement: ast.stmt, conditions: Tuple) -> Iterator[Binding]:
        line = statement.lineno
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                if alias.asname:
                    yield Binding(alias.asname, "import", statement, 0, conditions, module=alias.name, line=line)
                else:  # `import a.b.c` binds `a`
                    top = alias.name.split(".")[0]
                    yield Binding(top, "import", statement, 0, conditions, module=top, line=line)
        elif isinstance(statement, ast.ImportFrom):
            module = self.absolute_module(statement.module or "", statement.level)
            for alias in statement.names:
                if alias.name == "*":
                    continue
                yield Binding(alias.asname or alias.name, "import", statement, 0, conditions,
                              module=module, attr=alias.name, line=line)
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield Binding(statement.name, "def", statement, 0, conditions, line=line)
        elif isinstance(statement, ast.ClassDef):
            yield Binding(statement.name, "class", statement, 0, conditions, line=line)
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if statement.value is None:
                return
            for target in targets:
                for name, path in _target_names(target):
                    yield Binding(name, "assign" if path is not None else "other", statement, 0, conditions,
                                  value=statement.value, path=path or (), line=line)
        elif isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name):
            yield Binding(statement.target.id, "other", statement, 0, conditions, line=line)
        elif isinstance(statement, (ast.For, ast.AsyncFor)):
            # a loop variable: one value per element of the iterable (a test's `for dtype in ...`)
            for name, path in _target_names(statement.target):
                yield Binding(name, "loop" if path is not None else "other", statement, 0, conditions,
                              value=statement.iter, path=path or (), line=line)
        elif isinstance(statement, (ast.With, ast.AsyncWith)):
            for item in statement.items:
                if item.optional_vars is not None:
                    for name, _ in _target_names(item.optional_vars):
                        yield Binding(name, "other", statement, 0, conditions, line=line)

    def bindings_before(self, binding: Binding, function: Optional[FunctionNode] = None) -> List[Binding]:
        """The bindings of the same name before this one, at module level or in ``function``:
        what its right-hand side reads of that name (``f = cuda.jit(f, device=True)``)."""
        if function is not None:
            self.local_bindings(function)
        history = (self.history if function is None else self._local_history[id(function)]).get(binding.name, [])
        return history[:history.index(binding)] if binding in history else []

    def bindings_of(self, name: str, function: Optional[FunctionNode] = None) -> List[Binding]:
        """Every binding of ``name`` at module level or in ``function``, in the file's order."""
        if function is None:
            return list(self.history.get(name, []))
        self.local_bindings(function)
        return list(self._local_history[id(function)].get(name, []))

    def local_bindings(self, function: FunctionNode) -> Dict[str, Binding]:
        """A function's own bindings: parameters, then its statements (not nested defs' bodies)."""
        found = self._local.get(id(function))
        if found is None:
            found = {}
            arguments = function.args
            every = arguments.posonlyargs + arguments.args + arguments.kwonlyargs
            every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
            for arg in every:
                found[arg.arg] = Binding(arg.arg, "param", arg, 0, line=function.lineno)
            history: Dict[str, List[Binding]] = {}
            self._collect(function.body, found, history, ())
            self._local[id(function)] = found
            self._local_history[id(function)] = history
        return found

    def absolute_module(self, module: str, level: int) -> str:
        if not level:
            return module
        parts = self.package.split(".") if self.package else []
        if level - 1 > len(parts) or not self.package and (level > 1 or not module):
            return ""  # beyond the top package: Python would refuse it too
        # (`from .model import f` in a folder without `__init__.py`: a namespace package, run as
        # `python -m src.train`; its siblings are found beside the file, where `find` looks first)
        base = parts[: len(parts) - (level - 1)]
        return ".".join(base + ([module] if module else []))

    # -- dotted names -------------------------------------------------------

    def dotted(self, expr: ast.AST, scope: Optional[Scope] = None, _depth: int = 0) -> Optional[str]:
        """The qualified name an expression stands for, through imports and simple aliases."""
        scope = scope or Scope(self)
        if _depth > 20:
            return None
        if isinstance(expr, ast.Attribute):
            base = self.dotted(expr.value, scope, _depth + 1)
            return f"{base}.{expr.attr}" if base else None
        if not isinstance(expr, ast.Name):
            return None
        # a name's qualified name, found once per scope (host reading asks again at each level
        # and pass); not where a star import is looked through: that notes where it looked
        key = (expr.id, scope.module, scope.functions, _depth)
        known = self._dotted.get(key, _UNSEEN)
        if known is not _UNSEEN:
            return known
        stars = self._stars
        found = self._dotted_name(expr, scope, _depth)
        if self._stars == stars:
            self._dotted[key] = found
        return found

    def _dotted_name(self, expr: ast.Name, scope: Scope, _depth: int) -> Optional[str]:
        binding, function = scope.lookup(expr.id)
        if binding is None:
            if expr.id in _BUILTIN_NAMES:
                return f"builtins.{expr.id}"
            self._stars += 1
            return self.star_imported(expr.id)
        if binding.kind == "import":
            if binding.attr and binding.module and self.project is not None:
                return self._reexported(binding.imported)
            return binding.imported or None
        if binding.kind == "assign" and not binding.path and isinstance(binding.value, (ast.Name, ast.Attribute)):
            return self.dotted(binding.value, scope, _depth + 1)
        if binding.kind == "assign" and not binding.path and _imported_by_call(self.dotted(
                binding.value.func, scope, _depth + 1) if isinstance(binding.value, ast.Call) else None, binding.value):
            return binding.value.args[0].value  # cp = pytest.importorskip("cupy"): the module
        if binding.kind in ("def", "class") and function is None:
            return f"{self.name}.{expr.id}" if self.name else expr.id
        return None

    def star_imported(self, name: str, _seen: Optional[Set[str]] = None) -> Optional[str]:
        """The qualified name a module-level ``from pkg.common import *`` binds ``name`` to, where
        the project's ``pkg/common.py`` binds it (``from numba import cuda``: ``numba.cuda``)
        and exports it; the last such import wins, as in Python. None where no star import of
        the project's modules binds it (a library's star import is not read: what it binds
        depends on its version)."""
        owner = self.star_source(name, _seen)
        return owner.dotted(ast.Name(id=name, ctx=ast.Load())) if owner is not None else None

    def star_source(self, name: str, _seen: Optional[Set[str]] = None) -> Optional["PyModule"]:
        """The project's module whose own binding of ``name`` a module-level ``from pkg.common
        import *`` brings here (through further star imports); None where none does."""
        if name.startswith("_") or self.project is None or "*" not in self.text:
            return None
        seen = _seen if _seen is not None else set()
        if self.path in seen:
            return None
        seen.add(self.path)
        stars = [statement for statement in self.tree.body if isinstance(statement, ast.ImportFrom)
                 and any(alias.name == "*" for alias in statement.names)]
        for statement in reversed(stars):
            owner = self.project.module_named(self.absolute_module(statement.module or "", statement.level), self)
            if owner is None or owner is self or not exports(owner, name):
                continue
            if name in owner.bindings:
                return owner
            found = owner.star_source(name, seen)
            if found is not None:
                return found
        return None

    def _reexported(self, imported: str) -> str:
        """What a name imported from a module of the project is where that module got it:
        ``from pkg.utils import cuda`` where pkg/utils.py has ``from numba import cuda`` is
        ``numba.cuda``."""
        known = self._reexports.get(imported)
        if known is None:
            found = self.project.definition(imported, self)
            known = imported
            if found is not None and found[0] is not self and found[1].kind == "import" and found[1].imported:
                known = found[1].imported
            self._reexports[imported] = known
        return known

    def is_jit(self, expr: ast.AST, scope: Optional[Scope] = None) -> bool:
        return self.dotted(expr, scope) == JIT

    def numba_configuration(self) -> List[Tuple[str, ast.expr, int]]:
        """Module-level settings of numba's configuration (``config.CUDA_ENABLE_NRT = True``):
        (attribute, value, line). They change what numba compiles, so they are applied."""
        found = []
        for statement in flatten(self.tree.body):
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
                target = statement.targets[0]
                if isinstance(target, ast.Attribute) and self.dotted(target.value) in (
                        "numba.config", "numba.core.config", "numba.cuda.config"):
                    found.append((target.attr, statement.value, statement.lineno))
        return found

    # -- kernels --------------------------------------------------------------

    @cached_property
    def symbols(self) -> Optional[symtable.SymbolTable]:
        try:
            return symtable.symtable(self.text, self.path, "exec")
        except (SyntaxError, ValueError):
            return None

    def function_table(self, node: FunctionNode) -> Optional[symtable.SymbolTable]:
        return self._tables.get((node.name, node.lineno))

    @cached_property
    def _tables(self) -> Dict[Tuple[str, int], symtable.SymbolTable]:
        tables: Dict[Tuple[str, int], symtable.SymbolTable] = {}
        stack = [self.symbols] if self.symbols is not None else []
        while stack:
            table = stack.pop()
            if table.get_type() == "function":
                tables.setdefault((table.get_name(), table.get_lineno()), table)
            stack.extend(table.get_children())
        return tables

    def outside_names(self, node: FunctionNode) -> Tuple[List[str], List[str]]:
        """(globals, free variables) a function and the functions nested in it read."""
        table = self.function_table(node)
        if table is None:
            return [], []
        globals_: Dict[str, None] = {}
        stack = [table]
        while stack:
            current = stack.pop()
            if current.get_type() == "function":
                for name in current.get_globals():
                    globals_.setdefault(name)
            stack.extend(current.get_children())
        return list(globals_), sorted(table.get_frees())

    def first_use_at(self, node: ast.AST, name: str) -> Tuple[int, int]:
        """(line, 1-based column) where a function's body first reads ``name``."""
        body = node.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else [node]
        places = [(n.lineno, n.col_offset + 1) for statement in body for n in walk_nodes(statement)
                  if isinstance(n, ast.Name) and n.id == name]
        return min(places) if places else (getattr(node, "lineno", 1), getattr(node, "col_offset", 0) + 1)

    @cached_property
    def kernels(self) -> List[KernelDef]:
        found: List[KernelDef] = []
        self._find_kernels(self.tree.body, Scope(self), None, found, ())
        seen = set()
        unique = []
        for kernel in found:
            key = (id(kernel.node), id(kernel.applied))
            if key not in seen:
                seen.add(key)
                unique.append(kernel)
        return sorted(unique, key=lambda k: (k.line, k.column, getattr(k.applied, "lineno", 0)))

    def function_named(self, qualname: str, line: int = 0) -> Optional[FunctionNode]:
        """The def whose ``__qualname__`` (without ``<locals>``) is ``qualname``; of several, the
        one at ``line`` (the code's first line: its first decorator's, or the def's)."""
        found: List[FunctionNode] = []

        def walk(node: ast.AST, outer: Tuple[str, ...]) -> None:
            for child in child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    inner = outer + (child.name,)
                    if not isinstance(child, ast.ClassDef) and ".".join(inner) == qualname:
                        found.append(child)
                    walk(child, inner)
                else:
                    walk(child, outer)

        walk(self.tree, ())
        at = [f for f in found if line in (f.lineno, min([d.lineno for d in f.decorator_list] + [f.lineno]))]
        return (at or found or [None])[0]

    def kernel_for(self, node: ast.AST) -> Optional[KernelDef]:
        """The kernel a def statement makes (not those jit calls elsewhere make of it)."""
        return next((k for k in self.kernels if k.node is node and k.applied is None), None)

    def applied_kernel(self, call: ast.AST) -> Optional[KernelDef]:
        """The kernel ``cuda.jit(...)(helper)`` makes in a function, by that call."""
        return next((k for k in self.kernels if k.applied is call), None)

    def _find_kernels(self, body: Sequence[ast.stmt], scope: Scope, owner: Optional[ast.ClassDef],
                      found: List[KernelDef], outer: Tuple[str, ...]) -> None:
        defs: Dict[str, FunctionNode] = {}
        for statement in flatten(body):
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                defs[statement.name] = statement
                for decorator in statement.decorator_list:
                    spec = self.jit_spec(decorator, scope)
                    if spec is not None:
                        found.append(KernelDef(statement, self, spec, scope, [statement.name], owner, outer))
                        break
                self._find_kernels(statement.body, scope.inner(statement), None, found, outer + (statement.name,))
            elif isinstance(statement, ast.ClassDef):
                self._find_kernels(statement.body, scope, statement, found, outer + (statement.name,))
            elif isinstance(statement, ast.Return) and scope.functions and statement.value is not None:
                # a factory's `return cuda.jit(device=False)(step)` of a def of its own, or
                # that kernel configured for its launches (`...(step)[blocks, threads]`)
                value = statement.value.value if isinstance(statement.value, ast.Subscript) else statement.value
                applied = self.applied_jit(value, scope)
                function = applied[1] if applied is not None else None
                if isinstance(function, ast.Name) and function.id in defs and not any(
                        k.node is defs[function.id] for k in found):
                    found.append(KernelDef(defs[function.id], self, applied[0], scope, [function.id], owner, outer))
            elif isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
                kernel = self._assigned_kernel(statement, scope, defs, owner, outer)
                if kernel is not None:
                    existing = next((k for k in found if k.node is kernel.node and kernel.applied is None
                                     and k.applied is None), None)
                    if existing is not None and not _same_jit(existing.jit, kernel.jit):
                        # `axpy_f64 = cuda.jit(sig64)(axpy)` after `axpy_f32 = cuda.jit(sig32)(axpy)`:
                        # one function compiled as two kernels, each with its own written signatures
                        kernel.applied = statement.value
                        found.append(kernel)
                    elif existing is not None:
                        existing.names.extend(n for n in kernel.names if n not in existing.names)
                    else:
                        found.append(kernel)
                else:
                    found.extend(self._held_kernels(statement, scope, defs, owner, outer))

    def _assigned_kernel(self, statement, scope: Scope, defs: Dict[str, FunctionNode],
                         owner, outer: Tuple[str, ...]) -> Optional[KernelDef]:
        """``g = cuda.jit(f, device=True)``, ``g = cuda.jit("sig")(f)``, ``g = wrapper(f)``."""
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        if not names:
            return None
        applied = self.applied_jit(statement.value, scope)
        if applied is None:
            return None
        spec, function = applied
        if not isinstance(function, ast.Name):
            return None
        if function.id in defs:
            return KernelDef(defs[function.id], self, spec, scope, names, owner, outer)
        binding, local_to = scope.lookup(function.id)
        if (scope.functions and local_to is None and binding is not None and binding.kind == "def"
                and not any(self.jit_spec(d, Scope(self)) for d in binding.node.decorator_list)):
            return KernelDef(binding.node, self, spec, Scope(self), names, None, outer, applied=statement.value)
        return None

    def _held_kernels(self, statement, scope: Scope, defs: Dict[str, FunctionNode],
                      owner, outer: Tuple[str, ...]) -> List[KernelDef]:
        """``self.k = cuda.jit(sig)(f)``, ``kernels = {"axpy": cuda.jit(sig)(f), ...}``,
        ``[cuda.jit(sig)(f), ...]``: each jit call is a kernel of its own (one function may be
        compiled with several signatures), named by its dict key or attribute, else by ``f``."""
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        attrs = [t.attr for t in targets if isinstance(t, ast.Attribute)]
        held: List[Tuple[ast.expr, Optional[str]]] = []
        if isinstance(statement.value, ast.Call) and attrs:
            held.append((statement.value, attrs[0]))
        elif isinstance(statement.value, ast.Dict):
            held.extend((v, k.value if isinstance(k, ast.Constant) and isinstance(k.value, str)
                         and k.value.isidentifier() else None)
                        for k, v in zip(statement.value.keys, statement.value.values) if k is not None)
        elif isinstance(statement.value, (ast.List, ast.Tuple)):
            held.extend((v, None) for v in statement.value.elts)
        kernels = []
        for call, name in held:
            applied = self.applied_jit(call, scope) if isinstance(call, ast.Call) else None
            if applied is None or not isinstance(applied[1], ast.Name):
                continue
            spec, function = applied
            node = defs.get(function.id)
            def_scope = scope
            if node is None:
                binding, local_to = scope.lookup(function.id)
                if binding is None or binding.kind != "def" or local_to is not None:
                    continue  # not a def of this module (a parameter, an import: not followed)
                node, def_scope = binding.node, Scope(self)
            if any(self.jit_spec(d, def_scope) for d in node.decorator_list):
                continue  # already a kernel by its decorator: this jits a dispatcher
            kernels.append(KernelDef(node, self, spec, def_scope, [name or function.id],
                                     owner if def_scope is scope else None, outer, applied=call))
        return kernels

    def applied_jit(self, expr: ast.expr, scope: Scope) -> Optional[Tuple[JitSpec, ast.expr]]:
        """``cuda.jit(f, ...)`` / ``cuda.jit(...)(f)`` / ``wrapper(f)`` -> (spec, f)."""
        if not isinstance(expr, ast.Call) or not expr.args:
            return None
        if self.is_jit(expr.func, scope):
            first = expr.args[0]
            if isinstance(first, ast.Name) and not _looks_like_signature(first, scope):
                spec = JitSpec([JitArg(a, scope) for a in expr.args[1:]], _jit_keywords(expr.keywords, scope))
                return spec, first
            return None
        if len(expr.args) == 1 and not expr.keywords:
            spec = self.jit_spec(expr.func, scope)
            if spec is not None:
                return spec, expr.args[0]
        return None

    def jit_spec(self, decorator: ast.expr, scope: Scope) -> Optional[JitSpec]:
        """What numba.cuda.jit receives when ``decorator`` decorates a function, or None
        when it is not a jit decorator."""
        if self.is_jit(decorator, scope):
            return JitSpec()
        if isinstance(decorator, ast.Call) and self.is_jit(decorator.func, scope):
            return JitSpec([JitArg(a, scope) for a in decorator.args], _jit_keywords(decorator.keywords, scope))
        if self.project is None:
            return None
        call = decorator if isinstance(decorator, ast.Call) else None
        target = self.dotted(call.func if call else decorator, scope)
        if not target:
            return None
        if target in self.project.jit_decorators:
            return _configured_spec(call, scope, target)
        wrapper = self.project.wrapper(target, self)
        if wrapper is None:
            return None
        return wrapper.spec(call, scope, target)


class ProjectLike:  # pragma: no cover - the interface PyModule needs from the project
    jit_decorators: Sequence[str]

    def wrapper(self, qualified: str, importer: "PyModule") -> Optional["Wrapper"]: ...

    def module_named(self, dotted: str, importer: "PyModule") -> Optional["PyModule"]: ...


@dataclass
class Wrapper:
    """A function that returns ``numba.cuda.jit(...)`` applied to its argument.

    ``factory`` is the outer function when the decorator is called first
    (``@gpu_jit(device=True)``); its parameters may be forwarded into the jit call.
    """

    function: FunctionNode
    module: PyModule
    jit_call: ast.Call  # the numba.cuda.jit(...) call (the spec part, not the function)
    function_arg: bool  # True: cuda.jit(fn, ...) form (jit_call.args[0] is the function)
    factory: Optional[FunctionNode] = None

    def spec(self, call: Optional[ast.Call], scope: Scope, via: str) -> Optional[JitSpec]:
        if (self.factory is None) != (call is None):
            return None  # used as @wrapper(...) but is a plain wrapper, or the other way round
        inner_scope = Scope(self.module, (self.factory,) if self.factory else ())
        bound = _bind(self.factory, call, scope, Scope(self.module)) if self.factory is not None else {}
        args = self.jit_call.args[1:] if self.function_arg else self.jit_call.args
        spec = JitSpec(via=via)
        for arg in args:
            if isinstance(arg, ast.Starred) and isinstance(arg.value, ast.Name):
                forwarded = bound.get(arg.value.id)
                if isinstance(forwarded, list):
                    spec.args.extend(forwarded)
                continue
            spec.args.append(_substitute(arg, bound, inner_scope))
        for keyword in self.jit_call.keywords:
            if keyword.arg is None and isinstance(keyword.value, ast.Name):
                forwarded = bound.get(keyword.value.id)
                if isinstance(forwarded, dict):
                    spec.keywords.update(forwarded)
                continue
            if keyword.arg:
                spec.keywords[keyword.arg] = _substitute(keyword.value, bound, inner_scope)
        return spec


def find_wrapper(module: PyModule, name: str) -> Optional[Wrapper]:
    """Is module-level ``name`` a simple wrapper around numba.cuda.jit?"""
    binding = module.bindings.get(name)
    if binding is not None and binding.kind == "class":
        return _class_wrapper(module, binding.node)
    if binding is None or binding.kind != "def":
        return None
    function = binding.node
    simple = _returns_jit_of_param(module, function, Scope(module))
    if simple is not None:
        return Wrapper(function, module, simple[0], simple[1])
    scope = Scope(module, (function,))
    for statement in flatten(function.body):
        if isinstance(statement, ast.Return) and isinstance(statement.value, ast.Name):
            inner = module.local_bindings(function).get(statement.value.id)
            if inner is not None and inner.kind == "def":
                found = _returns_jit_of_param(module, inner.node, scope)
                if found is not None:
                    return Wrapper(inner.node, module, found[0], found[1], factory=function)
    return None


def _class_wrapper(module: PyModule, klass: ast.ClassDef) -> Optional[Wrapper]:
    """A decorator class that keeps the function (``self.python_func = func`` in ``__init__``)
    and compiles it with numba.cuda.jit in a method, with signatures known only at run time
    (a kernel cache that launches through CuPy, say): its kernels are lazy numba.cuda kernels,
    with the options its jit call gives as literals."""
    methods = [s for s in klass.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
    init = next((m for m in methods if m.name == "__init__"), None)
    if init is None or len(init.args.args) < 2:
        return None
    param = init.args.args[1].arg
    kept = {target.attr for statement in walk_nodes(init) if isinstance(statement, ast.Assign)
            and _is_name(statement.value, param)
            for target in statement.targets if isinstance(target, ast.Attribute) and _is_name(target.value, "self")}
    if not kept:
        return None

    def is_kept(expr: ast.expr) -> bool:
        return isinstance(expr, ast.Attribute) and _is_name(expr.value, "self") and expr.attr in kept

    for method in methods:
        scope = Scope(module, (method,))
        for call in walk_nodes(method):
            if not isinstance(call, ast.Call):
                continue
            if module.is_jit(call.func, scope) and call.args and is_kept(call.args[0]):
                jit = call  # cuda.jit(self.func, ...)
            elif isinstance(call.func, ast.Call) and module.is_jit(call.func.func, scope) and len(
                    call.args) == 1 and is_kept(call.args[0]):
                jit = call.func  # cuda.jit(signature)(self.func)
            else:
                continue
            literal = [k for k in jit.keywords if k.arg and isinstance(k.value, ast.Constant)]
            spec = ast.Call(func=jit.func, args=[], keywords=literal)
            ast.copy_location(spec, jit)
            return Wrapper(init, module, spec, False)
    return None


def _returns_jit_of_param(module: PyModule, function: FunctionNode, scope: Scope):
    params = function.args.posonlyargs + function.args.args
    if not params:
        return None
    param = params[0].arg
    inner = scope.inner(function)
    local = module.local_bindings(function)
    for statement in flatten(function.body):
        if not isinstance(statement, ast.Return) or statement.value is None:
            continue
        value = statement.value
        if isinstance(value, ast.Name):  # jitted = cuda.jit(...)(fn); return jitted
            binding = local.get(value.id)
            if binding is None or binding.kind != "assign" or binding.path:
                continue
            value = binding.value
        if not isinstance(value, ast.Call):
            continue
        if module.is_jit(value.func, inner) and value.args and _is_name(value.args[0], param):
            return value, True
        if (isinstance(value.func, ast.Call) and module.is_jit(value.func.func, inner)
                and len(value.args) == 1 and _is_name(value.args[0], param)):
            return value.func, False
    return None


def child_nodes(node: ast.AST) -> List[ast.AST]:
    """``ast.iter_child_nodes``'s nodes, as a list: the readers ask it millions of times on a
    large project, and reading the fields directly costs half of the library's generators."""
    children: List[ast.AST] = []
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            children.append(value)
        elif isinstance(value, list):
            children.extend([item for item in value if isinstance(item, ast.AST)])
    return children


def walk_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """``ast.walk``: the node and everything under it, breadth first in the library's order."""
    # (``child_nodes``' loop written out: a call per node would cost most of what this saves)
    pending = deque([node])
    while pending:
        node = pending.popleft()
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, ast.AST):
                pending.append(value)
            elif isinstance(value, list):
                pending.extend([item for item in value if isinstance(item, ast.AST)])
        yield node


_TREE_NODES: "weakref.WeakKeyDictionary[ast.AST, List[ast.AST]]" = weakref.WeakKeyDictionary()


def tree_nodes(tree: ast.AST) -> List[ast.AST]:
    """Every node of a file's tree in ``ast.walk``'s order, walked once per tree: the many
    whole-file questions the readers ask share one walk (the tree is never changed after
    parsing)."""
    found = _TREE_NODES.get(tree)
    if found is None:
        found = _TREE_NODES[tree] = list(walk_nodes(tree))
    return found


def own_nodes(function: FunctionNode) -> Iterator[ast.AST]:
    """The nodes of a function's body, less the bodies of the functions and classes in it."""
    pending = list(function.body)
    while pending:
        node = pending.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            pending.extend(child_nodes(node))


def _bind(factory: FunctionNode, call: ast.Call, scope: Scope, factory_scope: Scope) -> Dict[str, object]:
    """The factory's parameters bound to the call's arguments (expressions in the caller's
    scope; defaults in the scope the factory is defined in)."""
    arguments = factory.args
    positional = arguments.posonlyargs + arguments.args
    bound: Dict[str, object] = {}
    extra: List[JitArg] = []
    for index, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            continue
        if index < len(positional):
            bound[positional[index].arg] = JitArg(arg, scope)
        else:
            extra.append(JitArg(arg, scope))
    keywords: Dict[str, JitArg] = {}
    names = {a.arg for a in positional + arguments.kwonlyargs}
    for keyword in call.keywords:
        if keyword.arg is None:
            continue
        if keyword.arg in names:
            bound[keyword.arg] = JitArg(keyword.value, scope)
        else:
            keywords[keyword.arg] = JitArg(keyword.value, scope)
    if arguments.vararg is not None:
        bound[arguments.vararg.arg] = extra
    if arguments.kwarg is not None:
        bound[arguments.kwarg.arg] = keywords
    defaults = list(arguments.defaults)
    for arg, default in zip(positional[len(positional) - len(defaults):], defaults):
        bound.setdefault(arg.arg, JitArg(default, factory_scope))
    for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults):
        if default is not None:
            bound.setdefault(arg.arg, JitArg(default, factory_scope))
    return bound


def _substitute(expr: ast.expr, bound: Dict[str, object], scope: Scope) -> JitArg:
    if isinstance(expr, ast.Name) and isinstance(bound.get(expr.id), JitArg):
        return bound[expr.id]  # type: ignore[return-value]
    return JitArg(expr, scope)


def _configured_spec(call: Optional[ast.Call], scope: Scope, via: str) -> JitSpec:
    """A decorator the configuration names as a jit wrapper: its signatures (string
    arguments) and the jit options it is given are passed on; the rest is its own."""
    spec = JitSpec(via=via)
    if call is None:
        return spec
    for arg in call.args:
        if isinstance(arg, (ast.Constant, ast.List, ast.Tuple)) and not isinstance(arg, ast.Starred):
            spec.args.append(JitArg(arg, scope))
            break
    for keyword in call.keywords:
        if keyword.arg in JIT_OPTIONS:
            spec.keywords[keyword.arg] = JitArg(keyword.value, scope)
    return spec


def _jit_keywords(keywords: List[ast.keyword], scope: Scope) -> Dict[str, JitArg]:
    """The options a jit call passes: its keywords, and ``**OPTIONS`` where ``OPTIONS`` is a
    dict literal with string keys, bound once (``OPTIONS = {"debug": True}``)."""
    found: Dict[str, JitArg] = {}
    for keyword in keywords:
        if keyword.arg:
            found[keyword.arg] = JitArg(keyword.value, scope)
            continue
        spread = keyword.value
        if isinstance(spread, ast.Name):
            binding, function = scope.lookup(spread.id)
            once = binding is not None and binding.kind == "assign" and not binding.path and \
                len(scope.module.bindings_of(spread.id, function)) == 1
            spread = binding.value if once else None
        if isinstance(spread, ast.Dict):
            for key, value in zip(spread.keys, spread.values):
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    found[key.value] = JitArg(value, scope)
    return found


def _looks_like_signature(expr: ast.expr, scope: Scope) -> bool:
    """``cuda.jit(SIG)(f)`` passes a signature held in a name; ``cuda.jit(f)`` a function."""
    binding, local_to = scope.lookup(expr.id) if isinstance(expr, ast.Name) else (None, None)
    if binding is not None and binding.kind == "assign" and binding.value is not None \
            and any(node is expr for node in walk_nodes(binding.value)):
        # `f = cuda.jit(f, device=True)`, at module level or in a factory: what `f` holds is
        # the binding before this one
        earlier = scope.module.bindings_before(binding, local_to)
        binding = earlier[-1] if earlier else None
    return binding is not None and binding.kind == "assign"


def _is_name(expr: ast.AST, name: str) -> bool:
    return isinstance(expr, ast.Name) and expr.id == name


def _target_names(target: ast.AST, path: Tuple[int, ...] = ()) -> Iterator[Tuple[str, Optional[Tuple[int, ...]]]]:
    """Names an assignment target binds, with their index path (None where not a plain unpacking)."""
    if isinstance(target, ast.Name):
        yield target.id, path
    elif isinstance(target, (ast.Tuple, ast.List)):
        star = next((i for i, e in enumerate(target.elts) if isinstance(e, ast.Starred)), None)
        for index, element in enumerate(target.elts):
            if isinstance(element, ast.Starred):
                for name, _ in _target_names(element.value):
                    yield name, None
            else:
                # `a, *rest, z = items`: `a` is items[0], `z` items[-1]
                at = index if star is None or index < star else index - len(target.elts)
                yield from _target_names(element, path + (at,))


def mapped_items(value: ast.expr, dotted) -> Optional[List[ast.expr]]:
    """``map(f, (a, b))`` (or ``list(map(...))``, a list written out) as the calls it makes,
    ``[f(a), f(b)]``, each located at its item, for an assignment that unpacks it (``d_a, d_b =
    map(cuda.to_device, (a, b))``); None for anything else. ``dotted`` names a callee."""
    if isinstance(value, ast.Call) and dotted(value.func) in ("builtins.list", "builtins.tuple") \
            and len(value.args) == 1 and not value.keywords:
        value = value.args[0]
    if not (isinstance(value, ast.Call) and dotted(value.func) == "builtins.map" and len(value.args) == 2
            and not value.keywords and isinstance(value.args[1], (ast.Tuple, ast.List))
            and not any(isinstance(e, ast.Starred) for e in value.args[1].elts)):
        return None
    return [ast.copy_location(ast.Call(func=value.args[0], args=[item], keywords=[]), item)
            for item in value.args[1].elts]


def bound_item(expr: ast.expr, path: Sequence[int]) -> Tuple[ast.expr, Tuple[int, ...]]:
    """The part of ``expr`` a binding's index path picks out of tuple literals, and what is
    left of the path (``a, b = x.a, y.b``: ``b`` is ``y.b``, nothing left)."""
    path = tuple(path)
    while path and isinstance(expr, (ast.Tuple, ast.List)) and isinstance(path[0], int) and \
            not any(isinstance(e, ast.Starred) for e in expr.elts) and -len(expr.elts) <= path[0] < len(expr.elts):
        expr, path = expr.elts[path[0]], path[1:]
    return expr, path


def returns_value(function: FunctionNode) -> bool:
    """Does the function's own body (not its nested defs) return something other than None?"""
    stack: List[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Return) and node.value is not None and not (
                isinstance(node.value, ast.Constant) and node.value.value is None):
            return True
        stack.extend(child_nodes(node))
    return False


def calls_parameter(function: FunctionNode) -> bool:
    """Does the function's own body call one of its parameters (``apply(f, x)`` calling ``f``)?"""
    params = {a.arg for a in function.args.posonlyargs + function.args.args + function.args.kwonlyargs}
    stack: List[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in params:
            return True
        stack.extend(child_nodes(node))
    return False


def flatten(body: Sequence[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements of a body, with those inside if/try/with/loops, not inside defs and classes."""
    for statement in body:
        yield statement
        if isinstance(statement, ast.If):
            yield from flatten(statement.body)
            yield from flatten(statement.orelse)
        elif isinstance(statement, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            yield from flatten(statement.body)
            for handler in statement.handlers:
                yield from flatten(handler.body)
            yield from flatten(statement.orelse)
            yield from flatten(statement.finalbody)
        elif isinstance(statement, (ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While)):
            yield from flatten(statement.body)
            yield from flatten(getattr(statement, "orelse", []))


_BUILTIN_NAMES = frozenset(dir(builtins))
_UNSEEN = object()  # a name `dotted` has not looked up in that scope yet


def _imported_by_call(called: Optional[str], call: ast.expr) -> bool:
    """``pytest.importorskip("cupy")``, ``importlib.import_module("numpy")``: a module by its name."""
    return called in ("pytest.importorskip", "importlib.import_module") and isinstance(call, ast.Call) and bool(
        call.args) and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str)


def wrapped_interface(klass: ast.ClassDef) -> Optional[Tuple[int, str]]:
    """(position after ``self``, name) of the ``__init__`` parameter whose array a class's
    objects expose as their own ``__cuda_array_interface__`` (``self.__cuda_array_interface__ =
    arr.__cuda_array_interface__``, or a property returning ``self._arr.__cuda_array_interface__``
    with ``self._arr = arr``): numba types such an object as that array. None otherwise."""
    methods = {s.name: s for s in klass.body if isinstance(s, ast.FunctionDef)}
    init = methods.get("__init__")
    if init is None or len(init.args.args) < 2:
        return None
    receiver = init.args.args[0].arg
    params = [a.arg for a in init.args.args[1:]]
    held: Dict[str, str] = {}  # self.<attribute> -> the parameter stored there
    exposed = None
    for statement in walk_nodes(init):
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
            continue
        target, value = statement.targets[0], statement.value
        if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                and target.value.id == receiver):
            continue
        if isinstance(value, ast.Name) and value.id in params:
            held[target.attr] = value.id
        elif target.attr == "__cuda_array_interface__" and isinstance(value, ast.Attribute) and \
                value.attr == "__cuda_array_interface__" and isinstance(value.value, ast.Name) and \
                value.value.id in params:
            exposed = value.value.id
    prop = methods.get("__cuda_array_interface__")
    if exposed is None and prop is not None and len(prop.body) == 1 and isinstance(prop.body[0], ast.Return) \
            and prop.args.args and any(isinstance(d, ast.Name) and d.id == "property" for d in prop.decorator_list):
        value = prop.body[0].value
        if isinstance(value, ast.Attribute) and value.attr == "__cuda_array_interface__" and isinstance(
                value.value, ast.Attribute) and isinstance(value.value.value, ast.Name) and \
                value.value.value.id == prop.args.args[0].arg:
            exposed = held.get(value.value.attr)
    return (params.index(exposed), exposed) if exposed is not None else None


def wrapped_argument(call: ast.Call, wrapped: Tuple[int, str]) -> Optional[ast.expr]:
    """The expression a call of such a class (``wrapped_interface``) passes for the parameter
    whose array it wraps; None where a ``*args`` hides it or the call passes none."""
    position, name = wrapped
    if any(isinstance(a, ast.Starred) for a in call.args[:position + 1]):
        return None
    if position < len(call.args):
        return call.args[position]
    return next((k.value for k in call.keywords if k.arg == name), None)


def exports(module: PyModule, name: str) -> bool:
    """Whether ``from module import *`` binds ``name``: its literal ``__all__`` says, else every
    public name does."""
    declared = module.history.get("__all__", [])
    if len(declared) == 1 and isinstance(declared[0].value, (ast.List, ast.Tuple)):
        return any(isinstance(item, ast.Constant) and item.value == name for item in declared[0].value.elts)
    return True
