"""Launch sites as written: ``k[grid, block](...)``, ``k.forall(n)(...)``, the compile calls
that stand for a launch (``k.compile(sig)``, ``k.specialize(t)``), calls handed to ``map`` or
a thread, whether a function launches what it is given, and a launch argument of a type.
Syntax only: which kernel a target names is ``kernels``'s job. May import ``python.syntax``,
``python.static_types`` and ``analysis.host``.
"""

from __future__ import annotations

import ast
import functools
import re
from typing import Callable, Dict, List, Optional, Set, Tuple

from ...analysis.host import Arg
from ..static_types import ArrayType, Maybe
from ..static_types.operators import OperatorNode
from ..syntax import FunctionNode, PyModule, child_nodes, own_nodes, walk_nodes


def handed_call(call: ast.Call, called: Optional[str]) -> Optional[ast.Call]:
    """The call a function handed to ``map`` makes (``map(f, xs)``, ``executor.map(f, xs)``,
    ``pool.imap(f, xs)``: ``f(xs[0])``; ``executor.submit(f, x)``: ``f(x)``; the target of
    ``threading.Thread(target=f, args=(x,), kwargs={'n': 1})`` or ``multiprocessing.Process``:
    ``f(x, n=1)``; ``timeit.timeit(lambda: f(x), number=1)``: ``f(x)``); None otherwise."""
    if called in ("threading.Thread", "multiprocessing.Process") and not call.args:
        return thread_target_call(call)
    if called in ("timeit.timeit", "timeit.repeat"):
        return stopwatch_call(call)
    attr = call.func.attr if isinstance(call.func, ast.Attribute) else None
    if not call.args or call.keywords or any(isinstance(a, ast.Starred) for a in call.args) or not isinstance(
            call.args[0], (ast.Name, ast.Attribute)):
        return None
    if called == "builtins.map" or attr in ("map", "imap", "imap_unordered") and len(call.args) == 2:
        items = [ast.Subscript(value=values, slice=ast.Constant(0), ctx=ast.Load()) for values in call.args[1:]]
    elif attr == "submit":
        items = list(call.args[1:])
    else:
        return None
    return ast.copy_location(ast.Call(func=call.args[0], args=items, keywords=[]), call)


def stopwatch_call(call: ast.Call) -> Optional[ast.Call]:
    """The call a lambda given to ``timeit.timeit``/``timeit.repeat`` with ``number=1`` makes
    (``timeit(lambda: render(camera), number=1)``): a stopwatch around one call, which runs
    where the timing is. A larger ``number`` repeats the call to measure it (a benchmark),
    and timeit's default (a million runs) is one too: not the program's own work."""
    stmt = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "stmt"), None)
    number = next((k.value for k in call.keywords if k.arg == "number"), None)
    if number is None and len(call.args) > 3:  # `timeit(stmt, setup, timer, number)`
        number = call.args[3]
    if not (isinstance(number, ast.Constant) and number.value == 1) or not isinstance(stmt, ast.Lambda):
        return None
    arguments = stmt.args
    if arguments.args or arguments.posonlyargs or arguments.vararg or arguments.kwonlyargs:
        return None  # timeit calls it with no arguments
    return stmt.body if isinstance(stmt.body, ast.Call) else None


def thread_target_call(call: ast.Call) -> Optional[ast.Call]:
    """``f(*args, **kwargs)`` of ``Thread(target=f, args=(...), kwargs={...})``, where the
    target is named and its arguments are written out."""
    given = {k.arg: k.value for k in call.keywords}
    target, args, kwargs = given.get("target"), given.get("args"), given.get("kwargs")
    if not isinstance(target, (ast.Name, ast.Attribute)) or None in given:
        return None
    if args is not None and (not isinstance(args, (ast.Tuple, ast.List)) or any(
            isinstance(a, ast.Starred) for a in args.elts)):
        return None
    if kwargs is not None and (not isinstance(kwargs, ast.Dict) or not all(
            isinstance(k, ast.Constant) and isinstance(k.value, str) for k in kwargs.keys)):
        return None
    keywords = [ast.keyword(arg=k.value, value=v) for k, v in zip(kwargs.keys, kwargs.values)] if kwargs else []
    return ast.copy_location(ast.Call(func=target, args=list(args.elts) if args else [], keywords=keywords), call)


def configured_attributes(klass: ast.ClassDef, module: PyModule) -> Set[str]:
    """The ``self`` attributes a class assigns what one of its methods (or a function of the
    module) returns configured for launch: ``self.update = self.make(n)`` where every
    ``return`` of ``make`` is ``cuda.jit(step)[blocks, threads]``: calling one launches."""
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    methods = {item.name: item for item in klass.body if isinstance(item, functions)}
    module_functions = {item.name: item for item in module.tree.body if isinstance(item, functions)}
    found: Set[str] = set()
    for item in methods.values():
        for sub in walk_nodes(item):
            if not (isinstance(sub, ast.Assign) and isinstance(sub.value, ast.Call)):
                continue
            func = sub.value.func
            factory = methods.get(func.attr) if isinstance(func, ast.Attribute) and isinstance(
                func.value, ast.Name) and func.value.id == "self" else module_functions.get(func.id) if isinstance(
                func, ast.Name) else None
            if factory is None or configured_returns(factory) is None:
                continue
            found.update(t.attr for t in sub.targets if isinstance(t, ast.Attribute) and isinstance(
                t.value, ast.Name) and t.value.id == "self")
    return found


def launches_through_factories(klass: ast.ClassDef, module: PyModule) -> bool:
    """Whether a method of the class calls an attribute it assigns a kernel a factory returns
    configured (``self.update = self.make(n)``, ``self.update(d_x)``): a launch that
    ``k[grid, block](`` in the text does not show."""
    held = configured_attributes(klass, module)
    return bool(held) and any(
        isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and isinstance(sub.func.value, ast.Name)
        and sub.func.value.id == "self" and sub.func.attr in held for sub in walk_nodes(klass))


def configured_returns(function: FunctionNode) -> Optional[List[Tuple[ast.expr, bool]]]:
    """(the kernel expression, on a stream) that each ``return`` of the function itself (not
    of those nested in it) gives configured for launch (``return step[blocks, threads]``);
    None where one gives anything else, or there is none."""
    returns = [node for node in own_nodes(function) if isinstance(node, ast.Return)]
    configured = [configured_kernel(r.value) if r.value is not None else None for r in returns]
    return configured if configured and None not in configured else None


def launches_within(node: ast.AST, module: PyModule, depth: int,
                     elsewhere: Optional[Callable[[PyModule, ast.expr], Optional[Tuple[PyModule, FunctionNode]]]] = None
                     ) -> bool:
    """Whether ``node`` launches a kernel, or calls a module-level function of ``module`` that
    does, ``depth`` calls deep at most; with ``elsewhere`` (which project function a call's
    target names, in another file: ``from .kernel import sum_rows``, ``gpu.norm``), through
    those as well."""
    launches, calls = _calls_of(node)
    if launches or isinstance(node, ast.ClassDef) and launches_through_factories(node, module):
        return True
    if depth == 0:
        return False
    # (`obj.f` only where another file's functions are followed)
    called = calls if elsewhere is not None else {name: func for name, func in calls.items() if "." not in name}
    functions = {s.name: s for s in module.tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for name, func in called.items():
        if name in functions:
            if functions[name] is not node and module.kernel_for(functions[name]) is None \
                    and launches_within(functions[name], module, depth - 1, elsewhere):
                return True
            continue
        found = elsewhere(module, func) if elsewhere is not None else None
        if found is not None and found[0] is not module and found[0].kernel_for(found[1]) is None \
                and launches_within(found[1], found[0], depth - 1, elsewhere):
            return True
    return False


@functools.lru_cache(maxsize=4096)
def _calls_of(node: ast.AST) -> Tuple[bool, Dict[str, ast.expr]]:
    """(whether ``node`` launches a kernel itself, the first call target of each name it calls:
    ``f`` and ``obj.f``), found once per node (``launches_within`` asks again for each caller)."""
    called: Dict[str, ast.expr] = {}
    for sub in walk_nodes(node):
        if isinstance(sub, ast.Call):
            if launch_target(sub) is not None:
                return True, {}
            if isinstance(sub.func, ast.Name):
                called.setdefault(sub.func.id, sub.func)
            elif isinstance(sub.func, ast.Attribute) and isinstance(sub.func.value, ast.Name):
                called.setdefault(f"{sub.func.value.id}.{sub.func.attr}", sub.func)
    return False, called


def launches_given(function: FunctionNode) -> bool:
    """Does the function launch (or compile) a kernel that is one of its parameters, or
    forward its ``*args`` to a launch?"""
    arguments = function.args
    parameters = {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
    for sub in walk_nodes(function):
        if not isinstance(sub, ast.Call):
            continue
        launched = launch_target(sub) or compile_target(sub)
        if launched is None:
            continue
        target = launched[0]
        if isinstance(target, ast.Name) and target.id in parameters:
            return True
        last = sub.args[-1] if sub.args else None
        if arguments.vararg is not None and isinstance(last, ast.Starred) and isinstance(
                uncopied(last.value), ast.Name) and uncopied(last.value).id == arguments.vararg.arg:
            return True
    return False


def compile_target(call: ast.Call):
    """(the kernel expression, the signature expression or the type expressions) for
    ``k.compile(sig)``, ``k.inspect_asm(sig)`` (and ``inspect_llvm``, ``inspect_sass``,
    ``inspect_types``) and ``k.specialize(t1, t2)``; None for other calls."""
    func = call.func
    if not isinstance(func, ast.Attribute) or call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    if func.attr == "specialize" and call.args:
        return func.value, list(call.args)
    if func.attr in ("compile", "inspect_asm", "inspect_llvm", "inspect_sass", "inspect_types") and len(call.args) == 1:
        return func.value, call.args[0]
    return None


def uncopied(expr: ast.expr) -> ast.expr:
    """``copy.deepcopy(args)``, ``copy.copy(args)``, ``tuple(args)``, ``list(args)``: ``args``
    (what is copied has the original's types)."""
    while isinstance(expr, ast.Call) and len(expr.args) == 1 and not expr.keywords and (
            ast.unparse(expr.func) in ("copy.deepcopy", "copy.copy", "deepcopy", "tuple", "list")):
        expr = expr.args[0]
    return expr


def launch_target(call: ast.Call) -> Optional[Tuple[ast.expr, bool]]:
    """(the kernel expression, launched on a stream) for ``k[grid, block(, stream)](...)`` and
    ``k.forall(n)(...)``; None for other calls."""
    return configured_kernel(call.func)


def configured_kernel(func: ast.expr) -> Optional[Tuple[ast.expr, bool]]:
    """(the kernel expression, on a stream) for a kernel configured for launch, not yet called:
    ``k[grid, block(, stream)]``, ``k.forall(n)``; None for other expressions."""
    if isinstance(func, ast.Subscript):
        config = func.slice
        size = len(config.elts) if isinstance(config, ast.Tuple) else 1
        if isinstance(config, ast.Tuple) and not 2 <= size <= 4:
            return None
        return func.value, size >= 3
    if (isinstance(func, ast.Call) and isinstance(func.func, ast.Attribute) and func.func.attr == "forall"):
        return func.func.value, len(func.args) > 1 or any(k.arg == "stream" for k in func.keywords)
    return None


def calls_in_order(expr: ast.AST, operators: bool = False) -> List[Tuple[ast.AST, Tuple[ast.comprehension, ...]]]:
    """Calls in an expression, inner ones first (arguments are evaluated before the call), each
    with the comprehension generators (outermost first) whose variables it sees: a
    comprehension's first iterable is read outside it. ``operators``: operator expressions
    too (``a + b``, ``-a``, ``a < b``), where their operands are evaluated."""
    found: List[Tuple[ast.Call, Tuple[ast.comprehension, ...]]] = []

    def visit(node: ast.AST, generators: Tuple[ast.comprehension, ...]) -> None:
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            inner = generators
            for number, generator in enumerate(node.generators):
                visit(generator.iter, generators if number == 0 else inner)
                inner = inner + (generator,)
                for test in generator.ifs:
                    visit(test, inner)
            for part in ("key", "value", "elt"):
                if getattr(node, part, None) is not None:
                    visit(getattr(node, part), inner)
            return
        for child in child_nodes(node):
            if not isinstance(child, ast.Lambda):
                visit(child, generators)
        if isinstance(node, ast.Call) or operators and isinstance(node, OperatorNode):
            found.append((node, generators))

    visit(expr, ())
    return found


# a file that names numba, CUDA or CuPy
GPU_WORDS = re.compile(r"\b(?:numba|cuda|cupy)\b")
# `target='cuda'` (`'gpu'`: numbapro) as `gpu_compiled` reads it, for a quick look at a file's text
CUDA_TARGET = re.compile(r"""\btarget\s*=\s*['"](?:cuda|gpu)['"]""")
# `kernel[blocks, threads](`, `kernel.forall(n)(`: a file that may launch (a comma: not
# `handlers[key](...)`); `k[\n grid, block](` over lines too, and a grid that indexes a shape
# (`k[(x.shape[0] + 63) // 64, 64](`)
_INDEXED = r"(?:[^\[\]]|\[[^\[\]]*\])*"
LAUNCH_TEXT = re.compile(rf"\w\[{_INDEXED},{_INDEXED}\]\(|\.forall\(")


def launch_arg(kind, name: str, parameter: bool = False, attribute: bool = False, made: bool = False) -> Arg:
    """A launch argument of a type (None: unknown), written as ``name``. An ``attribute``
    (``self.out``) that holds None or an array (``Maybe``: `None` in ``__init__``, the array
    where the object is used) is typed as the array, marked optional, and lives where the class
    puts its arrays (``ClassAttributes.stored``: unknown where they are in several places). A local that may be None is left unknown: a
    path reaches the launch with None."""
    if attribute and isinstance(kind, Maybe) and isinstance(kind.value, ArrayType) and (kind.value.text or
                                                                                         kind.value.dtype):
        # (a launch on None fails: where the class puts its arrays, as far as it says, is where this one is;
        # of an unknown rank: the elements alone, the rank from the kernel's body)
        return Arg(kind.value.text, kind.value.where, name, bool(kind.value.where), kind.value.library, parameter,
                   kind.value.dtype, name if parameter else "", optional=True, made=made)
    array = isinstance(kind, ArrayType)
    return Arg(getattr(kind, "text", None) if kind is not None else None, kind.where if array else "", name, array,
               kind.library if array else "", parameter, (kind.dtype or "") if array else "", name if parameter else "",
               made=made)


# numba's (and numbapro's, its CUDA predecessor's) compilers that build for the GPU given
# `target='cuda'` (`'gpu'` in numbapro's spelling): a call of what `vectorize`/`guvectorize`
# make is a launch, as `k[grid, block](...)` is for what `jit` makes
_GPU_COMPILERS = {"vectorize": "ufunc", "guvectorize": "ufunc", "jit": "kernel", "autojit": "kernel"}


def host_compiled(function: ast.AST, module: PyModule, scope) -> bool:
    """Whether numba compiles ``function`` for the CPU (``@njit``, ``@jit`` without a GPU
    target): its dispatcher cannot be given a launch configuration."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    for decorator in function.decorator_list:
        name = module.dotted(decorator.func if isinstance(decorator, ast.Call) else decorator, scope) or ""
        library, _, last = name.rpartition(".")
        if library in ("numba", "numba.core.decorators") and last in ("njit", "jit"):
            return gpu_compiled(function, module, scope) is None
    return False


def gpu_compiled(function: ast.AST, module: PyModule, scope) -> Optional[str]:
    """``"ufunc"`` for a function decorated ``@vectorize(..., target='cuda')`` or
    ``@guvectorize(..., target='cuda')``, ``"kernel"`` for ``@jit(..., target='gpu')`` (both
    spellings of the target each time), of numba or numbapro; None otherwise."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    for decorator in function.decorator_list:
        if not isinstance(decorator, ast.Call):
            continue
        name = module.dotted(decorator.func, scope) or ""
        library, _, last = name.rpartition(".")
        if library.split(".")[0] not in ("numba", "numbapro") or last not in _GPU_COMPILERS:
            continue
        target = next((k.value for k in decorator.keywords if k.arg == "target"), None)
        if isinstance(target, ast.Constant) and target.value in ("cuda", "gpu"):
            return _GPU_COMPILERS[last]
    return None
