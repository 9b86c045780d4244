"""A module's globals, as the slice gives them: the binding the module ends with (its if-tests
evaluated, a ``try`` whose imports fail here taking its handler), the configuration's
constants, imports of safe modules (imported), of the project's modules (read through the
project, never imported) and of other libraries (unresolved, saying how to supply them).""" 

from __future__ import annotations

import ast
import builtins
import importlib
import os
import re
from typing import Any, Dict, Optional, Sequence, Set, Tuple

from ..project import FrontendSettings, Project
from ..syntax import Binding, KernelDef, PyModule, Scope, bound_item, exports, tree_nodes, walk_nodes
from .class_constants import StaticClass
from .device_arrays import _CUPY_SCALARS, _cupy_scalars
from .namespaces import Namespaces
from .runtime import RunSource, run_source
from .standins import Standins
from .unresolved import MISSING, Unresolved, _hint_constant, _known
from .user_modules import UserModule, _source_of
from .uses import _is_container, _mutated_after


_BUILTIN_VALUES = {"True": True, "False": False, "None": None, "Ellipsis": Ellipsis,
                   "NotImplemented": NotImplemented}

class GlobalResolver:
    """The values of modules' globals, each resolved once. Evaluates right-hand sides with
    ``evaluator``; makes the functions and classes a global binds with ``functions`` and
    ``classes`` (set by the ``Slicer`` that owns it)."""

    def __init__(self, project: Project, settings: FrontendSettings, namespaces: Namespaces, ledger: Standins):
        self.project = project
        self.settings = settings
        self.namespaces = namespaces
        self.ledger = ledger
        self.evaluator = None
        self.functions = None
        self.classes = None
        self._globals: Dict[Tuple[str, str], Any] = {}
        self._conditions: Dict[int, Optional[bool]] = {}
        self._made: Dict[Any, Any] = {}  # whether an import statement fails here, by its id

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

    def global_value(self, module: PyModule, name: str, line: int = 0) -> Any:
        key = (module.path, name)
        if key not in self._globals:
            self._globals[key] = Unresolved(name, module.path, line, "is being resolved (a cycle)")
            with self.ledger.collecting() as used:
                try:
                    self._globals[key] = self._resolve_global(module, name, line)
                except Unresolved as exc:
                    self._globals[key] = exc
            self.ledger.standins_of[key] = frozenset(used)
        else:
            self.ledger.rests_on(key)
        value = self._globals[key]
        if isinstance(value, Unresolved):
            raise value
        return value

    def _resolve_global(self, module: PyModule, name: str, line: int) -> Any:
        configured = self.constant(module, name)
        if configured is not MISSING:
            return configured
        binding = self.chosen_binding(module, module.history.get(name, []))
        if binding is None:
            if name in _BUILTIN_VALUES:
                return _BUILTIN_VALUES[name]
            if hasattr(builtins, name):
                return getattr(builtins, name)
            if name in ("__file__", "__name__"):
                return self.namespaces.of(module)[name]
            starred = self._star_imported(module, name, line, set())
            if starred is not MISSING:
                return starred
            generated = self._generated_star(module)
            if generated is not None:  # only the run decides it: a kernel may take a stand-in
                failed = Unresolved(name, module.path, line, f"can only come from {generated.said}, "
                                    "which only the run decides", _hint_constant(module, name))
                failed.runtime = generated
                raise failed
            if self._defined_nowhere(module, name):
                raise Unresolved(name, module.path, line, "is not defined in this module or by its imports, and no "
                                 "code sets it at run time: numba stops on it too (NameError)")
            raise Unresolved(name, module.path, line, "is not defined in this module or by its imports")
        env: Dict[str, Any] = {}
        handled = self._handler_binding(module, binding) if self._try_fails(module, binding) else None
        if handled is not None:  # the try body's imports fail here: Python runs the handler
            return self.binding_value(module, handled, Scope(module), {})
        try:
            if binding.kind == "assign" and any(isinstance(n, ast.Name) and n.id == name
                                                for n in walk_nodes(binding.value)):
                # `push = cuda.jit(push, device=True)`: the right-hand side reads the binding before
                earlier = self.chosen_binding(module, module.bindings_before(binding))
                if earlier is None:
                    raise Unresolved(name, module.path, binding.line, f"is read at line {binding.line} before "
                                                                      f"it is bound")
                env[name] = self.binding_value(module, earlier, Scope(module), {})
            return self.binding_value(module, binding, Scope(module), env)
        except Unresolved as exc:
            if binding.kind in ("def", "import"):
                raise
            source = run_source(module, binding)
            if source is not None:  # only the run decides it: a kernel may take a stand-in
                failed = Unresolved(name, module.path, binding.line,
                                    f"comes from {source.said} at line {binding.line}, which only the run decides",
                                    _hint_constant(module, name))
                failed.runtime = source
                raise failed from None
            if exc.name == name:
                raise
            raise Unresolved(name, module.path, binding.line,
                             f"is computed at line {binding.line} from `{exc.name}`, which {exc.reason}",
                             _hint_constant(module, name), library=exc.library) from None

    def _defined_nowhere(self, module: PyModule, name: str, seen: Optional[Set[str]] = None) -> bool:
        """Does nothing in the module set ``name``, even at run time? No function declares it
        ``global``, every star import is one kernlint reads (a safe library's, a project
        module's), and the module does not write its namespace otherwise (``globals()``,
        ``setattr``, ``exec``). Then the name is a slip in the kernel, not a value kernlint
        cannot see."""
        seen = set() if seen is None else seen
        if module.path in seen:
            return True
        seen.add(module.path)
        if re.search(r"\bglobals\(\)|\bsetattr\(|\bexec\(|\b__builtins__\b|\bvars\(", module.text):
            return False
        for node in tree_nodes(module.tree):
            if isinstance(node, ast.Global) and name in node.names:
                return False
            if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names):
                target = module.absolute_module(node.module or "", node.level)
                if target and self.settings.is_safe(target):
                    continue
                owner = self.project.module_named(target, module) if target else None
                if owner is None or not self._defined_nowhere(owner, name, seen):
                    return False  # a star import kernlint does not read may give it
        return True

    def _generated_star(self, module: PyModule) -> Optional[RunSource]:
        """``from pkg.env_config import *`` where ``pkg`` is the project's own package and
        ``env_config`` is in no checkout: a module the project writes before it runs (from a
        template, for the run's sizes), the only star import kernlint cannot read; what it
        binds only the run decides. None where another unread star import (a library's) may
        bind the name too, or where every star import is read."""
        generated = None
        for node in tree_nodes(module.tree):  # (module level, in a `try` too: Python allows no other)
            if not (isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names)):
                continue
            target = module.absolute_module(node.module or "", node.level)
            if not target or self.settings.is_safe(target) or self.project.find(target, module):
                continue
            package = target.rpartition(".")[0]
            if not package or not self.project.find(package, module) or generated is not None:
                return None  # a library's star import, or two the project makes: not one source
            generated = RunSource(f"from {target} import *", "a module the project writes at run time "
                                  f"(`{target}` is not in the project)", False)
        return generated

    def _star_imported(self, module: PyModule, name: str, line: int, seen: Set[str]) -> Any:
        """``from .constants import *``: a name the module binds nowhere else, from the last
        module-level star import that exports it (its ``__all__``, else its public names): a
        project module's value, or a safe library's; MISSING where none does."""
        if name.startswith("_") or module.path in seen:
            return MISSING
        seen.add(module.path)
        stars = [statement for statement in module.tree.body if isinstance(statement, ast.ImportFrom)
                 and any(alias.name == "*" for alias in statement.names)]
        for statement in reversed(stars):
            target = module.absolute_module(statement.module or "", statement.level)
            if not target:
                continue
            if self.settings.is_safe(target):
                try:
                    imported = importlib.import_module(target)
                except Exception:  # noqa: BLE001 - a library that fails to import exports nothing here
                    continue
                exported = getattr(imported, "__all__", None)
                if (name in exported if exported is not None else True) and hasattr(imported, name):
                    return getattr(imported, name)
                continue
            owner = self.project.module_named(target, module)
            if owner is None or not exports(owner, name):
                continue
            if owner.history.get(name):
                return self.global_value(owner, name, line)
            found = self._star_imported(owner, name, line, seen)
            if found is not MISSING:
                return found
        return MISSING

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
        statement = next((node for node in tree_nodes(module.tree) if isinstance(node, ast.Try)
                          and any(item is binding.node for item in node.body)), None)
        if statement is None:
            return False
        return any(self._import_fails(module, item) for item in statement.body
                   if isinstance(item, (ast.Import, ast.ImportFrom)) and item.lineno <= binding.line)

    def _import_fails(self, module: PyModule, statement: ast.stmt) -> bool:
        """An import statement of safe modules that raises ImportError here."""
        key = ("import fails", id(statement))
        if key not in self._made:
            self._made[key] = self._imports_fail(statement)
        return self._made[key]

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

    def chosen_binding(self, module: PyModule, history: Sequence[Binding]) -> Optional[Binding]:
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
                self._conditions[id(test)] = bool(self.evaluator.evaluate(test, Scope(module), {}))
            except Exception:  # noqa: BLE001 - a test kernlint cannot evaluate is undecided
                pass
        value = self._conditions[id(test)]
        return branch if value is None else value == branch

    def binding_value(self, module: PyModule, binding: Binding, scope: Scope, env: Dict[str, Any]) -> Any:
        name, line = binding.name, binding.line
        if binding.kind == "import":
            return self._import_value(module, binding)
        if binding.kind == "assign":
            applied = module.applied_jit(binding.value, scope)
            if applied is not None:
                kernel = module.applied_kernel(binding.value) or self._kernel_named(module, applied[1], scope)
                if kernel is not None:
                    return self.functions.dispatcher(kernel, env)
            if not binding.path and _is_container(binding.value):
                where = scope.functions[-1] if scope.functions else module.tree
                changed = _mutated_after(where, name, getattr(binding.node, "end_lineno", line) or line)
                if changed is not None:  # `fns = []` then `fns.append(f)` in a loop: not the empty list
                    raise Unresolved(name, module.path, line, f"is changed in place after its assignment "
                                     f"(`{changed[1]}` at line {changed[0]}), which kernlint does not follow",
                                     "" if scope.functions else _hint_constant(module, name))
            expr, path = bound_item(binding.value, binding.path)  # only the item bound is read
            value = self.evaluator.evaluate(expr, scope, env)
            for index in path:
                value = _known(value)[index]
            return value
        if binding.kind == "def":
            kernel = module.kernel_for(binding.node)
            if kernel is not None:
                return self.functions.dispatcher(kernel, env)
            return self.functions.plain_function(module, binding.node, scope, env)
        if binding.kind == "class":
            made = self.classes.plain_class(module, binding.node, scope, env)
            if made is None:
                made = self.classes.extension_class(module, binding.node, scope, env)
            if made is not None:
                return made
            static = StaticClass(self.evaluator, module, binding.node, scope)
            if static.readable():  # its attributes are read one at a time, where they are read
                return static
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
        if user is None and binding.attr:
            # `from pkg.kernels import helper`, where pkg/kernels.py has it from a star import of its own
            owner = self.project.module_named(target, module)
            if owner is not None and not owner.history.get(binding.attr):
                found = self._star_imported(owner, binding.attr, line, set())
                if found is not MISSING:
                    return found
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
