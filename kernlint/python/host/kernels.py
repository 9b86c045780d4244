"""Kernel references: the kernel definition a launch's target (or any expression) refers to,
through the same name resolution the frontend uses: aliases, imports of other project modules,
``self.kernel`` attributes set in ``__init__``, kernels defined in the same function, kernels
returned by factories. May import the rest of ``kernlint.python`` and ``analysis.host``.

What the resolution needs of the reading (the module's frame of the pass being read, what
``self.<attr>`` was assigned, an expression's type) it asks of a ``KernelContext``.
"""

from __future__ import annotations

import ast
from typing import Optional, Protocol, Tuple

from ...analysis.host import KernelRef
from ..project import Project
from ..static_types import instance_of
from ..syntax import KernelDef, PyModule, Scope, flatten
from .classes import method_of
from .frames import Frame, frame_for
from .launches import launch_target


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
        if isinstance(expr, ast.Name):
            binding, function = frame.scope.lookup(expr.id)
            module = self.module
            if binding is None:
                return None
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
            return self._kernel_named(binding.imported)
        return None

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

    def _factory_result(self, call: ast.Call, frame: Frame, depth: int) -> Optional[KernelDef]:
        """``k = make_kernel(...)``: the kernel the factory returns."""
        func = call.func
        if not isinstance(func, (ast.Name, ast.Attribute)):
            return None
        dotted = self.module.dotted(func, frame.scope)
        owner, factory = self.module, None
        if isinstance(func, ast.Name):
            binding, _ = frame.scope.lookup(func.id)
            if binding is not None and binding.kind == "def":
                factory = binding.node
        if factory is None and dotted:
            found = self.project.definition(dotted, self.module)
            if found is not None and found[1].kind == "def":
                owner, factory = found[0], found[1].node
        if factory is None and isinstance(func, ast.Attribute):
            # `f = self.make(sigs)`, `kernel = integrator.get_kernel(...)`: a method of an object
            # of the project's classes, its own or a base's
            where = instance_of(self._context.type_of(func.value, frame))
            method = method_of(self.project, where[0], where[1], func.attr) if where is not None else None
            if method is not None:
                owner, factory = method[0], method[2]
        if factory is None:
            return None
        locals_ = owner.local_bindings(factory)
        for statement in flatten(factory.body):
            if isinstance(statement, ast.Return) and isinstance(statement.value, ast.Name):
                binding = locals_.get(statement.value.id)
                if binding is not None and binding.kind == "def":
                    kernel = owner.kernel_for(binding.node)
                    if kernel is not None:
                        return kernel
                if binding is not None and binding.kind == "assign":
                    kernel = next((k for k in owner.kernels if statement.value.id in k.names
                                   and k.scope.functions and k.scope.functions[-1] is factory), None)
                    if kernel is not None:
                        return kernel
        return None

    def _class_kernel(self, class_name: str, attr: str) -> Optional[KernelDef]:
        return next((k for k in self.module.kernels if k.owner is not None and k.owner.name == class_name
                     and attr in k.names), None)

    def configured_launch(self, call: ast.Call, frame: Frame) -> Optional[Tuple[ast.expr, bool]]:
        """``run = kernel[blocks, threads]`` then ``run(a, n)``: a launch of ``kernel``, as
        ``launch_target`` gives it, where a name of the function (or module) holds a kernel
        configured for launch."""
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
