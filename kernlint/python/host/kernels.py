"""Kernel references: the kernel definition a launch's target (or any expression) refers to,
through the same name resolution the frontend uses: aliases, imports of other project modules,
``self.kernel`` attributes set in ``__init__``, kernels defined in the same function, kernels
returned by factories. May import the rest of ``kernlint.python`` and ``analysis.host``.

A launch may start one of several kernels the code picks between (``resolve_all``): a name
bound on both sides of an ``if`` or to a conditional expression, an attribute its class (or a
base) assigns in more than one place, an item of a literal dict or list taken with a literal key.

What the resolution needs of the reading (the module's frame of the pass being read, what
``self.<attr>`` was assigned, an expression's type) it asks of a ``KernelContext``.
"""

from __future__ import annotations

import ast
from typing import List, Optional, Protocol, Sequence, Tuple

from ...analysis.host import KernelRef
from ..project import Project
from ..static_types import instance, instance_of
from ..syntax import KernelDef, PyModule, Scope, flatten, walk_nodes
from .classes import method_of
from .frames import Frame, frame_for
from .functions import default_of
from .launches import configured_kernel, configured_returns, launch_target
from .picks import assigned_to_self, conditions_at, excluded, literal_getattr, literal_item, stored_at


class KernelContext(Protocol):
    """What kernel resolution asks of the reading of its file."""

    def module_frame(self) -> Optional[Frame]:
        """The module's frame in the pass being read (None before the first)."""

    def stored_expr(self, owner: str, attr: str) -> Optional[Tuple[ast.expr, Frame]]:
        """The expression last assigned to ``self.<attr>`` in class ``owner``, with its frame."""

    def type_of(self, expr: ast.expr, frame: Frame) -> object:
        """An expression's type, read in ``frame``."""

    def kernels_of(self, module: PyModule) -> "KernelResolver":
        """The resolution of another file of the project (a factory it defines)."""


class KernelResolver:
    """Resolves the kernel references of one file (``module``)."""

    def __init__(self, project: Project, module: PyModule, context: KernelContext):
        self.project = project
        self.module = module
        self._context = context

    def resolve(self, expr: ast.expr, frame: Frame, depth: int = 0) -> Optional[KernelDef]:
        """The kernel definition an expression refers to, or None."""
        if depth > 8:
            return None
        if isinstance(expr, ast.Call) and depth > 0:
            # a value assigned to an attribute or a name: `self.kernel = cuda.jit(f)`, `self.kernel =
            # make_kernel(n)`, as `k = make_kernel(n)` (`_kernel_of_binding`). A factory called at
            # the launch itself (`make(n)[1, 1](x)`) is left to a recording, with its closure
            applied = next((k for k in self.module.kernels if k.applied is expr), None)
            return applied if applied is not None else self._factory_result(expr, frame, depth)
        if isinstance(expr, ast.Name):
            binding, function = frame.scope.lookup(expr.id)
            module = self.module
            if binding is None:  # `from kernels import *`: the kernel that module defines
                dotted = module.star_imported(expr.id)
                return self._kernel_named(dotted) if dotted else None
            if binding.kind == "param" and function is not None and function is frame.scope.functions[0]:
                # `def __init__(self, n, kernel=axpy)`: the kernel a call that leaves it out launches
                # (the default is read where the module-level function or method is defined)
                default = default_of(function, expr.id)
                return self.resolve(default, self._context.module_frame() or frame, depth + 1) \
                    if default is not None else None
            if function is not None:
                inner = frame_for(frame, function)
                return self._kernel_of_binding(module, binding, inner, depth)
            return self._kernel_of_binding(module, binding, self._context.module_frame() or frame, depth)
        if isinstance(expr, ast.Attribute):
            if isinstance(expr.value, ast.Name) and expr.value.id in ("self", "cls") and frame.owner:
                stored = self._context.stored_expr(frame.owner, expr.attr)
                if stored is not None:
                    return self.resolve(stored[0], stored[1], depth + 1)
                return self._class_kernel(frame.owner.rsplit(".", 1)[-1], expr.attr)
            dotted = self.module.dotted(expr, frame.scope)
            if dotted:
                found = self._kernel_named(dotted)
                if found is not None:
                    return found
            if isinstance(expr.value, ast.Name):  # Class.kernel
                binding, _ = frame.scope.lookup(expr.value.id)
                if binding is not None and binding.kind == "class":
                    return self._class_kernel(expr.value.id, expr.attr)
        return None

    def resolve_all(self, expr: ast.expr, frame: Frame, depth: int = 0) -> List[KernelDef]:
        """Every kernel an expression may refer to where the code picks one of several
        (``k = a if flag else b``; ``if flag: k = a`` / ``else: k = b``; ``KERNELS["x"]``;
        ``self.kernel`` assigned in more than one place, or by a base class): each is launched
        with the same arguments. The one ``resolve`` gives comes first; none: an empty list."""
        if depth > 8:
            return []
        picked: List[KernelDef] = []
        if isinstance(expr, ast.IfExp):
            picked = self.resolve_all(expr.body, frame, depth + 1) + self.resolve_all(expr.orelse, frame, depth + 1)
        elif isinstance(expr, ast.Subscript):
            picked = [kernel for value, resolver, where in self._items(expr, frame, depth)
                      for kernel in resolver.resolve_all(value, where, depth + 1)]
        elif isinstance(expr, ast.Name):
            reaching = self._reaching(expr, frame, depth)
            if reaching:  # the bindings that reach the launch, not the name's last one in the file
                return _unique(reaching)
        elif isinstance(expr, ast.Call) and literal_getattr(expr) is not None:
            # `getattr(kernels_module, "collide")`, `getattr(self, "kernel")`: that attribute
            attribute = ast.copy_location(ast.Attribute(value=expr.args[0], attr=literal_getattr(expr),
                                                        ctx=ast.Load()), expr)
            return self.resolve_all(attribute, frame, depth + 1)
        elif isinstance(expr, ast.Call) and (names := self._getattr_names(expr, frame, depth)):
            # `getattr(gates, GATES[op])`, `for name in ("x", "y"): getattr(gates, name)`: the
            # attribute of each name the code can pick, every one launched with the call's arguments
            return _unique([kernel for name in names for kernel in self.resolve_all(ast.copy_location(
                ast.Attribute(value=expr.args[0], attr=name, ctx=ast.Load()), expr), frame, depth + 1)])
        elif _on_self(expr, frame):
            picked = [kernel for value, resolver, where in self._attribute_values(
                self.module, frame.owner, expr.attr) for kernel in resolver.resolve_all(value, where, depth + 1)]
        return _unique([self.resolve(expr, frame, depth)] + picked)

    def _getattr_names(self, call: ast.Call, frame: Frame, depth: int) -> List[str]:
        """The names ``getattr(obj, name)`` (no default) may take where the code draws ``name``
        from a finite set of literals: a name bound only to such values (a loop over a literal
        tuple or list of strings, an assignment, a conditional expression), or an item of a
        literal dict, list or tuple of strings taken with any key. Empty: not known."""
        if not (isinstance(call.func, ast.Name) and call.func.id == "getattr" and len(call.args) == 2
                and not call.keywords):
            return []
        return list(dict.fromkeys(self._literal_names(call.args[1], frame, depth) or ()))

    def _literal_names(self, chosen: ast.expr, frame: Frame, depth: int) -> Optional[List[str]]:
        if depth > 8:
            return None
        if isinstance(chosen, ast.Constant):
            return [chosen.value] if isinstance(chosen.value, str) else None
        if isinstance(chosen, ast.IfExp):
            body, orelse = (self._literal_names(e, frame, depth + 1) for e in (chosen.body, chosen.orelse))
            return body + orelse if body is not None and orelse is not None else None
        if isinstance(chosen, ast.Name):
            binding, function = frame.scope.lookup(chosen.id)
            if binding is None or binding.kind not in ("assign", "loop"):
                return None
            where = frame_for(frame, function) if function is not None else (self._context.module_frame() or frame)
            found: List[str] = []
            for bound in self.module.bindings_of(chosen.id, function):
                if bound.path or bound.kind not in ("assign", "loop"):
                    return None
                if bound.kind == "loop":  # each item of a literal tuple or list in turn
                    items = bound.value.elts if isinstance(bound.value, (ast.Tuple, ast.List)) else None
                    names = [n for item in items for n in (self._literal_names(item, where, depth + 1) or [None])] \
                        if items is not None else None
                else:
                    names = self._literal_names(bound.value, where, depth + 1)
                if names is None or None in names:
                    return None
                found.extend(names)
            return found
        if isinstance(chosen, ast.Subscript) and not isinstance(chosen.slice, ast.Slice):
            found = []
            for literal, _, _ in self._containers(chosen.value, frame, depth):
                values = literal.values if isinstance(literal, ast.Dict) and None not in literal.keys else \
                    literal.elts if isinstance(literal, (ast.List, ast.Tuple)) else None
                if values is None or not all(isinstance(v, ast.Constant) and isinstance(v.value, str)
                                             for v in values):
                    return None
                found.extend(v.value for v in values)
            return found or None
        return None

    def _reaching(self, name: ast.Name, frame: Frame, depth: int) -> List[KernelDef]:
        """The kernels the bindings of a name that may reach ``name`` hold: going back from it,
        each binding not on the other side of an ``if`` it is in, up to one that runs on every
        path to it (``k = a`` / ``else: k = b`` gives both)."""
        binding, function = frame.scope.lookup(name.id)
        if binding is None:
            return []
        body = function.body if function is not None else self.module.tree.body
        # a name of an enclosing function (or of the module, read in a function): bound before
        # the function runs, by its last bindings on each path
        here = function is frame.function or function is None and frame.function is None
        place = (name.lineno, name.col_offset) if here else (float("inf"), 0)
        at = conditions_at(body, name) if here else ()
        where = frame_for(frame, function) if function is not None else (self._context.module_frame() or frame)
        groups: List[List[KernelDef]] = []  # per binding, latest first
        for bound in reversed(self.module.bindings_of(name.id, function)):
            if (bound.line, getattr(bound.node, "col_offset", 0)) >= place or excluded(bound.conditions, at):
                continue
            if bound.kind == "assign" and not bound.path and not isinstance(bound.value, ast.Call):
                groups.append(self.resolve_all(bound.value, where, depth + 1))
            elif bound.kind == "loop" and not bound.path and isinstance(bound.value, (ast.Tuple, ast.List)):
                # `for kernel in (scale, shift): kernel[g, b](...)`: each item in turn
                groups.append([k for item in bound.value.elts for k in self.resolve_all(item, where, depth + 1)])
            else:
                kernel = self._kernel_of_binding(self.module, bound, where, depth)
                if kernel is None and bound.kind == "assign" and not bound.path:
                    groups.append(self.resolve_all(bound.value, where, depth + 1))  # `k = getattr(mod, "k")`
                else:
                    groups.append([kernel] if kernel is not None else [])
            if tuple(bound.conditions) == tuple(at[:len(bound.conditions)]):
                break  # it runs on every path that reaches the name: nothing earlier does
        return [kernel for group in reversed(groups) for kernel in group]  # in the file's order

    def _items(self, subscript: ast.Subscript, frame: Frame, depth: int
               ) -> List[Tuple[ast.expr, "KernelResolver", Frame]]:
        """``KERNELS["x"]``, ``kernels[0]``, ``self.table["a"]``, ``mod.KERNELS["x"]``: the item a
        literal key takes from a literal dict or list the container was assigned, with the
        resolver and frame it is read in."""
        key = subscript.slice
        if isinstance(key, ast.UnaryOp) and isinstance(key.op, ast.USub) and isinstance(key.operand, ast.Constant) \
                and type(key.operand.value) is int:  # `kernels[-1]`
            key = ast.Constant(-key.operand.value)
        if not isinstance(key, ast.Constant) or isinstance(key.value, bool) or not isinstance(
                key.value, (str, int)):
            return []
        found = []
        for literal, resolver, where in self._containers(subscript.value, frame, depth):
            item = literal_item(literal, key.value)
            if item is not None:
                found.append((item, resolver, where))
        return found or self._stored_items(subscript.value, key.value, frame)

    def _stored_items(self, container: ast.expr, key, frame: Frame) -> List[Tuple[ast.expr, "KernelResolver", Frame]]:
        """``KERNELS["x"] = kx`` (where ``KERNELS`` is bound: the module's statements, or the
        function's), ``self.table["x"] = kx`` (in the class's methods): what is stored at ``key``."""
        if isinstance(container, ast.Name):
            binding, function = frame.scope.lookup(container.id)
            if binding is None:
                return []
            body = function.body if function is not None else self.module.tree.body
            where = frame_for(frame, function) if function is not None else (self._context.module_frame() or frame)
            return [(value, self, where) for value in stored_at(flatten(body), container.id, None, key)]
        if not _on_self(container, frame) or "." in frame.owner:
            return []
        klass = self.module.bindings.get(frame.owner)
        found = []
        for method in klass.node.body if klass is not None and klass.kind == "class" else ():
            if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and method.args.args:
                receiver = method.args.args[0].arg
                where = Frame(method, f"{frame.owner}.{method.name}", Scope(self.module).inner(method),
                              {receiver: instance(self.module.path, frame.owner)}, Frame(None, "", Scope(self.module)),
                              frame.owner)
                stored = stored_at(walk_nodes(method), receiver, container.attr, key)
                found.extend((value, self, where) for value in stored)
        return found

    def _containers(self, expr: ast.expr, frame: Frame, depth: int
                    ) -> List[Tuple[ast.expr, "KernelResolver", Frame]]:
        """The values a container expression (a name, ``self.<attr>``, ``module.NAME``) was assigned."""
        if isinstance(expr, ast.Name):
            binding, function = frame.scope.lookup(expr.id)
            if binding is None:
                return []
            if binding.kind == "assign" and not binding.path:
                where = frame_for(frame, function) if function is not None else (
                    self._context.module_frame() or frame)
                return [(binding.value, self, where)]
            if binding.kind == "import" and binding.attr:
                return self._defined(binding.imported)
            return []
        if _on_self(expr, frame):
            return self._attribute_values(self.module, frame.owner, expr.attr)
        dotted = self.module.dotted(expr, frame.scope) if isinstance(expr, ast.Attribute) else None
        return self._defined(dotted) if dotted else []

    def _defined(self, qualified: str) -> List[Tuple[ast.expr, "KernelResolver", Frame]]:
        """The value a module-level name of the project (``pkg.mod.KERNELS``) is assigned."""
        found = self.project.definition(qualified, self.module)
        if found is None or found[1].kind != "assign" or found[1].path:
            return []
        owner, binding = found
        resolver = self if owner is self.module else self._context.kernels_of(owner)
        return [(binding.value, resolver, Frame(None, "", Scope(owner)))]

    def _attribute_values(self, module: PyModule, klass: str, attr: str, depth: int = 0
                          ) -> List[Tuple[ast.expr, "KernelResolver", Frame]]:
        """What the methods of a class of the project assign to ``self.<attr>``, each with the
        resolver and frame (the method's) it is read in: the class's own assignments, else its
        bases' (``self.kernel = collide`` in a base's ``__init__``)."""
        binding = module.bindings.get(klass.rsplit(".", 1)[-1]) if "." not in klass else None
        if binding is None or binding.kind != "class" or depth > 4:
            return []
        resolver = self if module is self.module else self._context.kernels_of(module)
        found = []
        for method in binding.node.body:
            if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or not method.args.args:
                continue
            receiver = method.args.args[0].arg
            where = None
            for value in assigned_to_self(method, receiver, attr):
                if where is None:
                    where = Frame(method, f"{klass}.{method.name}", Scope(module).inner(method),
                                  {receiver: instance(module.path, klass)}, Frame(None, "", Scope(module)), klass)
                found.append((value, resolver, where))
        if found:
            return found
        for base in binding.node.bases:
            dotted = module.dotted(base, Scope(module))
            defined = self.project.definition(dotted, module) if dotted else None
            if defined is not None and defined[1].kind == "class":
                found.extend(self._attribute_values(defined[0], defined[1].name, attr, depth + 1))
        if not found and depth == 0:
            # a base class that launches what each subclass stores (`class Collision(Operator):
            # self.kernel = collide`): each of them
            for sub_module, sub in self._subclasses(module, binding.node):
                found.extend(self._attribute_values(sub_module, sub.name, attr, depth + 1))
        return found

    def _subclasses(self, module: PyModule, klass: ast.ClassDef) -> List[Tuple[PyModule, ast.ClassDef]]:
        """The module-level classes of the project that name ``klass`` among their bases."""
        found = []
        for path in [module.path] + [p for p in self.project.files_naming(module.path, klass.name)
                                     if p != module.path]:
            other = self.project.module(path)
            for statement in other.tree.body if other is not None else ():
                if isinstance(statement, ast.ClassDef) and statement is not klass and any(
                        self._is_class(other, base, klass) for base in statement.bases):
                    found.append((other, statement))
        return found

    def _is_class(self, module: PyModule, expr: ast.expr, klass: ast.ClassDef) -> bool:
        """Whether ``expr``, read in ``module``, names the class ``klass``."""
        dotted = module.dotted(expr, Scope(module))
        defined = self.project.definition(dotted, module) if dotted else None
        return defined is not None and defined[1].node is klass

    def _kernel_of_binding(self, module: PyModule, binding, frame: Frame, depth: int) -> Optional[KernelDef]:
        if binding.kind == "def":
            return module.kernel_for(binding.node)
        if binding.kind == "assign" and not binding.path:
            # `compiled = cuda.jit(helper)` in a function, of a module's `def helper`: that kernel
            kernel = next((k for k in module.kernels if k.applied is not None and k.applied is binding.value), None) or \
                next((k for k in module.kernels if binding.name in k.names
                      and k.scope.functions == frame.scope.functions), None)
            if kernel is not None:
                return kernel
            value = binding.value
            if isinstance(value, ast.Call):
                return self._factory_result(value, frame, depth)
            return self.resolve(value, frame, depth + 1)
        if binding.kind == "import" and binding.imported:
            return self._kernel_named(binding.imported) or self._moved_kernel(binding.imported)
        return None

    def _moved_kernel(self, qualified: str) -> Optional[KernelDef]:
        """``from utils.gpu import step`` where the project's own ``utils`` has no ``gpu`` (the
        module moved, the import was not updated): the one module-level kernel of that name the
        project defines, if exactly one does. An import of a library is left alone."""
        module_part, _, name = qualified.rpartition(".")
        top = module_part.split(".")[0]
        if not module_part or self.project.find(top, self.module) is None or \
                self.project.find(module_part, self.module) is not None:
            return None
        found = []
        for path in self.project.files_naming(self.module.path, name):
            owner = self.project.module(path)
            if owner is not None:
                found.extend(k for k in owner.kernels if k.qualname == name and not k.jit.device)
        return found[0] if len(found) == 1 else None

    def _kernel_named(self, qualified: str) -> Optional[KernelDef]:
        found = self.project.definition(qualified, self.module)
        if found is None:
            return None
        owner, binding = found
        if binding.kind == "def":
            return owner.kernel_for(binding.node)
        if binding.kind == "assign":
            kernel = next((k for k in owner.kernels if binding.name in k.names and not k.nested), None)
            if kernel is not None:
                return kernel
            if owner is not self.module and isinstance(binding.value, ast.Call):
                return self._context.kernels_of(owner)._factory_result(binding.value, Frame(
                    None, "", Scope(owner)), 1)
        return None

    def _factory_of(self, call: ast.Call, frame: Frame) -> Optional[Tuple[PyModule, ast.AST]]:
        """(its module, the def) of the project function or method a call runs, or None."""
        func = call.func
        if not isinstance(func, (ast.Name, ast.Attribute)):
            return None
        dotted = self.module.dotted(func, frame.scope)
        if isinstance(func, ast.Name):
            binding, _ = frame.scope.lookup(func.id)
            if binding is not None and binding.kind == "def":
                return self.module, binding.node
        if dotted:
            found = self.project.definition(dotted, self.module)
            if found is not None and found[1].kind == "def":
                return found[0], found[1].node
        if isinstance(func, ast.Attribute):
            # `f = self.make(sigs)`, `kernel = integrator.get_kernel(...)`: a method of an object
            # of the project's classes, its own or a base's
            where = instance_of(self._context.type_of(func.value, frame))
            method = method_of(self.project, where[0], where[1], func.attr) if where is not None else None
            if method is not None:
                return method[0], method[2]
        return None

    def _factory_result(self, call: ast.Call, frame: Frame, depth: int) -> Optional[KernelDef]:
        """``k = make_kernel(...)``: the kernel the factory returns (configured for launch or not:
        ``return cuda.jit(device=0)(step)[blocks, threads]``)."""
        found = self._factory_of(call, frame)
        if found is None:
            return None
        owner, factory = found
        locals_ = owner.local_bindings(factory)
        for statement in flatten(factory.body):
            if not isinstance(statement, ast.Return):
                continue
            value = statement.value
            configured = configured_kernel(value) if value is not None else None
            if configured is not None:
                value = configured[0]
            if isinstance(value, ast.Call):
                # `return cuda.jit(device=0)(kernel)`: the kernel that call makes
                kernel = next((k for k in owner.kernels if k.applied is value), None)
                applied = owner.applied_jit(value, Scope(owner).inner(factory)) if kernel is None else None
                if applied is not None and isinstance(applied[1], ast.Name):
                    binding = locals_.get(applied[1].id)
                    kernel = owner.kernel_for(binding.node) if binding is not None and binding.kind == "def" else None
                if kernel is not None:
                    return kernel
            if isinstance(value, ast.Name):
                binding = locals_.get(value.id)
                if binding is not None and binding.kind == "def":
                    kernel = owner.kernel_for(binding.node)
                    if kernel is not None:
                        return kernel
                if binding is not None and binding.kind == "assign":
                    kernel = next((k for k in owner.kernels if value.id in k.names
                                   and k.scope.functions and k.scope.functions[-1] is factory), None)
                    if kernel is not None:
                        return kernel
                if binding is None:  # `return step[blocks, threads]` of the module's kernel
                    kernel = next((k for k in owner.kernels if value.id in k.names and not k.scope.functions), None)
                    if kernel is not None:
                        return kernel
        return None

    def _configured_by_factory(self, func: ast.expr, frame: Frame) -> Optional[Tuple[ast.expr, bool]]:
        """``self.update = self.make_updater(n)`` (or ``run = make_updater(n)``, bound once)
        where every ``return`` of the factory gives a kernel configured for launch (``return
        cuda.jit(device=0)(step)[blocks, (pb, tp)]``): (the attribute or name, on a stream),
        its call being a launch of the kernel the factory makes; None otherwise."""
        value = None
        if _on_self(func, frame):
            stored = self._context.stored_expr(frame.owner, func.attr)
            value, frame = stored if stored is not None else (None, frame)
        elif isinstance(func, ast.Name):
            binding, function = frame.scope.lookup(func.id)
            if binding is not None and binding.kind == "assign" and not binding.path and len(
                    self.module.bindings_of(func.id, function)) == 1:
                value = binding.value
        if not isinstance(value, ast.Call):
            return None
        found = self._factory_of(value, frame)
        if found is None:
            return None
        configured = self.project.memo("configured returns", found[1], lambda: configured_returns(found[1]))
        if configured is None:
            return None
        return func, any(stream for _, stream in configured)

    def _class_kernel(self, class_name: str, attr: str) -> Optional[KernelDef]:
        return next((k for k in self.module.kernels if k.owner is not None and k.owner.name == class_name
                     and attr in k.names), None)

    def configured_launch(self, call: ast.Call, frame: Frame) -> Optional[Tuple[ast.expr, bool]]:
        """``run = kernel[blocks, threads]`` then ``run(a, n)``: a launch of ``kernel``, as
        ``launch_target`` gives it, where a name of the function (or module) holds a kernel
        configured for launch; also where a name or ``self`` attribute holds what a factory
        returns configured (``self.update(d_x, d_bins)``)."""
        made = self._configured_by_factory(call.func, frame)
        if made is not None and self.resolve(made[0], frame) is not None:
            return made
        if not isinstance(call.func, ast.Name):
            return None
        binding, _ = frame.scope.lookup(call.func.id)
        if binding is None or binding.kind != "assign" or binding.path or not isinstance(binding.value, ast.Subscript):
            return None
        configured = launch_target(ast.Call(func=binding.value, args=[], keywords=[]))
        if configured is None or self.resolve(configured[0], frame) is None:
            return None
        return configured

    def ref(self, expr: ast.expr, frame: Frame) -> Optional[KernelRef]:
        """The kernel a name refers to, as a reference; None for anything else."""
        kernel = self.resolve(expr, frame) if isinstance(expr, ast.Name) else None
        return KernelRef(kernel.module.path, kernel.qualname) if kernel is not None else None


def _unique(kernels: Sequence[Optional[KernelDef]]) -> List[KernelDef]:
    found: List[KernelDef] = []
    for kernel in kernels:
        if kernel is not None and all(kernel is not other for other in found):
            found.append(kernel)
    return found


def _on_self(expr: ast.expr, frame: Frame) -> bool:
    return isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id in (
        "self", "cls") and frame.owner is not None
