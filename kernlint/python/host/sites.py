"""Launch and compile sites as facts: a launch's ``Launch`` with the kernel it starts and what
it passes (each argument's type, a spread tuple, ``*args`` forwarded from the function's own
parameters), what a call of a project function passes (its launches on those parameters
read as each call binds them), and the types a program makes numba compile a kernel for (``k.compile(sig)``,
``k.specialize(...)``, ``k.inspect_asm(...)``); and whether a file can start kernels at all.

The statement reading hands in what it knows: the kernel a target resolves to, the types of
expressions in the frame, and, in a call's variant, the kernels and expressions that call
passes to the function's parameters (``variants.Variants``). May import the rest of
``kernlint.python`` and ``analysis.host``; never compiles.
"""

from __future__ import annotations

import ast
from typing import Callable, Dict, List, Mapping, Optional, Set, Tuple

from ...analysis.host import Arg, KernelRef, Launch
from ..project import Project
from ..static_types import TupleType, TypeReader
from ..syntax import KernelDef, PyModule, Scope, tree_nodes, walk_nodes
from .frames import Frame, place_of
from .driving import calls_reach_launch
from .kernels import KernelResolver
from .launches import CUDA_TARGET, GPU_WORDS, compile_target, gpu_compiled, launch_arg, uncopied
from .signature_text import numba_type_text, signature_types


def kernel_ref(kernel: Optional[KernelDef], target: ast.expr, given: Mapping[str, KernelRef]) -> Optional[KernelRef]:
    """The kernel a launch or compile target starts: the one it resolves to, else, for a
    parameter of a call's variant, the kernel that call passes (``given``)."""
    if kernel is not None:
        return KernelRef(kernel.module.path, kernel.qualname)
    return given.get(target.id) if isinstance(target, ast.Name) else None


def launch_site(call: ast.Call, target: ast.expr, stream: bool, frame: Frame, path: str, ref: Optional[KernelRef],
                types: TypeReader, exposed: Callable[[object], object] = lambda kind: kind) -> Launch:
    """The launch ``target[grid, block, stream](...)`` at ``call``, its arguments typed in
    ``frame`` (``exposed``: the array an argument's type hands numba, if any); a launch whose arguments cannot be told one by one (keywords, a spread of
    unknown length) passes one unknown ``*``."""
    args = positional_args(call, frame, types, exposed)
    if args is None or call.keywords:
        args = [Arg(None, "", "*")]
    return Launch("launch", place_of(path, call), frame.qualname, frame.loops,
                  what=ast.unparse(target), kernel=ref, args=tuple(args), stream=stream,
                  detail={"stream": stream_text(call)} if stream else {})


def stream_text(call: ast.Call) -> str:
    """The stream of ``k[grid, block, stream](...)`` or ``k.forall(n, stream)(...)``, as written."""
    func = call.func
    if isinstance(func, ast.Subscript) and isinstance(func.slice, ast.Tuple) and len(func.slice.elts) >= 3:
        return ast.unparse(func.slice.elts[2])
    if isinstance(func, ast.Call):
        given = func.args[1] if len(func.args) > 1 else next((k.value for k in func.keywords if k.arg == "stream"),
                                                              None)
        return ast.unparse(given) if given is not None else ""
    return ""


def passed_args(call: ast.Call, frame: Frame, types: TypeReader, exposed: Callable[[object], object]
                ) -> Optional[Tuple[Tuple[Arg, ...], Dict[str, Arg]]]:
    """What a call of a project function passes, as launch arguments (positional, by keyword),
    so that the callee's launches on its parameters read as this call binds them
    (``HostFacts.expand``); None where they cannot be told one by one (``**kw``, a spread)."""
    args = positional_args(call, frame, types, exposed)
    if args is None or any(k.arg is None for k in call.keywords):
        return None
    parameters = _parameters(frame)
    return tuple(args), {k.arg: launch_arg(exposed(types.type_of(k.value)), ast.unparse(k.value),
                                           isinstance(k.value, ast.Name) and k.value.id in parameters,
                                           isinstance(k.value, ast.Attribute), isinstance(k.value, ast.Call))
                         for k in call.keywords if k.arg is not None}


def _parameters(frame: Frame) -> set:
    function = frame.function
    return {a.arg for a in function.args.posonlyargs + function.args.args + function.args.kwonlyargs
            } if function is not None else set()


def positional_args(call: ast.Call, frame: Frame, types: TypeReader,
                    exposed: Callable[[object], object] = lambda kind: kind) -> Optional[List[Arg]]:
    """A call's positional arguments typed in ``frame``; a spread of the function's own
    ``*args`` at the end stays one argument bound by its callers; None for another spread of
    unknown length."""
    function = frame.function
    parameters = _parameters(frame)
    args: List[Arg] = []
    forwards = function is not None and function.args.vararg is not None
    for arg in call.args:
        if isinstance(arg, ast.Starred):
            inner = uncopied(arg.value)
            spread = types.type_of(inner)
            if isinstance(spread, TupleType) and all(item is not None for item in spread.items):
                # `*args` of a call's variant, `*(a, b)`, `*out.tuple()`: each item named by its place
                args.extend(launch_arg(item, f"{ast.unparse(inner)}[{at}]") for at, item in enumerate(spread.items))
                continue
            if forwards and arg is call.args[-1] and isinstance(inner, ast.Name) and \
                    inner.id == function.args.vararg.arg:
                # `kernel[g, b](out, *args)`: what each call passes beyond the named parameters
                args.append(Arg(None, "", "*" + inner.id, parameter=True, via="*" + inner.id))
                continue
            return None
        args.append(launch_arg(exposed(types.type_of(arg)), ast.unparse(arg),
                               isinstance(arg, ast.Name) and arg.id in parameters, isinstance(arg, ast.Attribute),
                               isinstance(arg, ast.Call)))
    return args


def compile_site(call: ast.Call, frame: Frame, module: PyModule, kernels: KernelResolver,
                 given: Mapping[str, KernelRef], parameter_exprs: Mapping[str, Tuple[ast.expr, Frame]]
                 ) -> Optional[Launch]:
    """``k.compile("void(float32[::1])")``, ``k.specialize(float32[::1])``,
    ``k.inspect_asm((int32[:],))``: where the program makes numba compile a kernel for
    types it writes, as a launch does for its arguments' types; None for other calls.
    ``given``, ``parameter_exprs``: what a call's variant passes to the function's parameters."""
    found = compile_target(call)
    if found is None:
        return None
    target, written = found
    ref = kernel_ref(kernels.resolve(target, frame), target, given)
    if ref is None:
        return None
    texts = signature_types(written, module, frame.scope, parameter_exprs) if isinstance(
        written, ast.expr) else [numba_type_text(expr, module, frame.scope) for expr in written]
    if not texts or any(text is None for text in texts):
        return None
    return Launch("launch", place_of(module.path, call), frame.qualname, frame.loops,
                  what=ast.unparse(call.func), kernel=ref, args=tuple(Arg(text, "", text) for text in texts))


def may_launch_kernels(project: Project, module: PyModule) -> bool:
    """Whether what looks like a launch (``k[a, b](...)``) in ``module`` can start a kernel:
    the file names numba, CUDA or CuPy, or a module it imports (or one that module imports: a
    package's ``__init__``) defines kernels. ``Mapping[str, int](...)`` in a test of typing
    does not, and reading the types it passes around across the project would take minutes."""
    if GPU_WORDS.search(module.text):
        return True
    seen: Set[str] = set()
    frontier = [module.path]
    for _ in range(2):
        following = []
        for path in frontier:
            for target in sorted(project.direct_imports(path) - seen):
                seen.add(target)
                imported = project.module(target)
                if imported is not None and imported.kernels:
                    return True
                following.append(target)
        frontier = following
    return False


def defines_cuda_ufuncs(module: PyModule) -> bool:
    """Whether the file defines a CUDA ufunc (``@guvectorize(..., target='cuda')``, at module
    level or made by a factory): calling one launches, though no ``k[grid, block](`` is written."""
    if not CUDA_TARGET.search(module.text):
        return False
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.decorator_list
               and gpu_compiled(node, module, Scope(module)) == "ufunc" for node in walk_nodes(module.tree))


def drives_kernels(project: Project, module: PyModule) -> bool:
    """Whether a file that launches nothing itself may still run kernels on every step: it
    calls methods of objects (``net.learn(x)``, ``self.layers[i].backward(g)``,
    ``engine.add(Thermostat(n))``), and kernels are defined in a module it imports, directly
    or through others (a training script over a package whose layer classes launch), or in
    one that a file naming one of its classes and importing it imports (an engine whose
    integrators a script adds), and a call of it can reach a launch in the project's code, call by
    call (``driving``: a library's scripts and tests over its host-only classes do not). Its
    objects' classes are then read across the project, as a launching file's are."""
    # (asked for every function of a driving file read: answered once, what finding it looked
    # at noted again for each reading under way, as the cache needs)
    known = project.memo("drives kernels", module.tree, dict)
    if not known:
        with project.recording() as looked:
            known["drives"] = _drives_kernels(project, module)
        known["looked"] = frozenset(looked)
    project.note_again(("drives kernels", module.path), known["looked"])
    return known["drives"]


def _drives_kernels(project: Project, module: PyModule) -> bool:
    if not project.memo("calls methods", module.tree, lambda: any(
            isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute)
            and isinstance(sub.func.value, (ast.Name, ast.Attribute, ast.Subscript, ast.Call))
            for sub in tree_nodes(module.tree))):
        return False
    return _near_kernels(project, module) and calls_reach_launch(project, module)


def _near_kernels(project: Project, module: PyModule) -> bool:
    """Whether kernels are defined in a module a file imports, directly or through others, or in
    one that a file naming one of its classes and importing it imports."""
    if _imports_kernels(project, module.path):
        return True
    classes = sorted(s.name for s in module.tree.body if isinstance(s, ast.ClassDef))
    for name in classes:
        for path in project.files_naming(module.path, name):
            if path != module.path and module.path in project.imports_of_file(path) and _imports_kernels(
                    project, path):
                return True
    return False


def _imports_kernels(project: Project, path: str) -> bool:
    """Whether a module a file imports, directly or through others, defines kernels."""
    for imported_path in sorted(project.imports_of_file(path)):
        imported = project.module(imported_path)
        if imported is not None and imported.kernels:
            return True
    return False


# builtins a kernel calls on an array only to read it
_READERS = {"len", "range", "min", "max", "abs", "float", "int", "bool", "print", "enumerate", "zip"}


def written_arguments(call: ast.Call, kernels: List[KernelDef]) -> List[str]:
    """The arguments (as written) of a launch ``call`` that one of ``kernels`` may write: its
    parameter stored into (``out[i] = v``, ``out[i] += v``), updated atomically or handed to a
    device function (which may store into it). Arguments after a spread (``*coords``) are left
    out: which parameter they bind to is not read here."""
    written: Set[str] = set()
    for kernel in kernels:
        node = kernel.node
        names = [a.arg for a in node.args.posonlyargs + node.args.args]
        stored = _stored_parameters(node, set(names))
        for name, arg in zip(names, call.args):
            if isinstance(arg, ast.Starred):
                break
            if name in stored:
                written.add(ast.unparse(arg))
    return sorted(written)


def _stored_parameters(function: ast.AST, parameters: Set[str]) -> Set[str]:
    stored: Set[str] = set()
    for node in walk_nodes(function):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, (ast.AugAssign, ast.AnnAssign)) else []
        for target in targets:
            base = target
            while isinstance(base, (ast.Subscript, ast.Attribute)):
                base = base.value
            if base is not target and isinstance(base, ast.Name) and base.id in parameters:
                stored.add(base.id)
        if isinstance(node, ast.Call) and (  # `cuda.atomic.add(out, i, v)`, `helper(out, i)`
                ".atomic." in ast.unparse(node.func) or isinstance(node.func, ast.Name) and node.func.id not in _READERS):
            for arg in node.args:  # the array or a view of it (`helper(out[y, x], v)`)
                while isinstance(arg, ast.Subscript):
                    arg = arg.value
                if isinstance(arg, ast.Name) and arg.id in parameters:
                    stored.add(arg.id)
    return stored
