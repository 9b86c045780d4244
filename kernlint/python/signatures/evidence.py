"""What the host code says about a kernel's arguments where no launch types them (the launch
is made at run time, or passes what the reader cannot type): the element types of the arrays,
and scalars' widths, read at each launch of the kernel the project's text shows.

An argument's expression says it (``x.astype(np.float32)``, ``np.zeros(n, dtype=DTYPE)``,
``cuda.device_array(n, np.int32)``, ``cuda.to_device(a)`` of one of those), or the name it is:
a local assigned one; an attribute (``self.nblist``) every assignment in its class agrees
on; a parameter of the function that launches, typed by its annotation
(``x: npt.NDArray[np.float32]``), a check of its dtype (``assert x.dtype == np.float32``, ``if
x.dtype != ...: raise``, ``_check_dtype(x, (np.float32,))``), its numpydoc entry (``x :
ndarray of float32``), or what the functions calling it pass (through calls too). Evidence
that disagrees (one branch ``astype(np.float32)``, another ``astype(np.float64)``) says
nothing, but among one name's or attribute's values an allocator's unstated default
(``np.zeros(n)``) yields to the one dtype the code states (``.astype(int)``).

Inference weighs this below launches, recordings and written signatures and above the body's
float64 default; the signature stays ``inferred`` and says which evidence it took.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Set, Tuple

from ..host.docstrings import documented_elements
from ..project import Project
from ..static_types import ArrayType, ScalarType, array_arithmetic, dtype_name, numeric
from ..syntax import FunctionNode, KernelDef, PyModule, Scope, child_nodes, mapped_items, tree_nodes, walk_nodes
from .table import RANK_UNKNOWN

# how deep a value is followed: names, attributes, calls and callers together
_DEPTH = 8

_LIBRARIES = ("numpy", "cupy", "numba")
# allocators whose dtype is their second positional argument (or `dtype=`), float64 without one
_SIZED = {"zeros": 1, "ones": 1, "empty": 1, "device_array": 1, "pinned_array": 1, "mapped_array": 1,
          "managed_array": 1}
# conversions whose dtype is `dtype=` (or the second positional), else their input's
_CONVERTING = {"array": 1, "asarray": 1, "ascontiguousarray": 1, "asfortranarray": 1, "zeros_like": 1,
               "ones_like": 1, "empty_like": 1, "device_array_like": None, "pinned_array_like": None,
               "to_device": None, "as_cuda_array": None, "copy": None}
# allocators whose dtype is `dtype=` or the positional argument given, else the numbers they are given
_FILLED = {"arange": 3, "full": 2, "linspace": 5}
# methods that keep the elements of the array they are called on
_KEEPING = ("reshape", "ravel", "flatten", "copy", "transpose", "squeeze", "copy_to_device", "copy_to_host",
            "get", "view")
# Python numbers as numba types them
_LITERALS = {int: "int64", float: "float64", bool: "boolean", complex: "complex128"}
# NumPy's (and CuPy's, SciPy's) FFTs: complex results, of the input's width; the inverse real
# ones real
_FFT_COMPLEX = ("fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "rfft2", "rfftn", "ihfft")
_FFT_REAL = ("irfft", "irfft2", "irfftn", "hfft")
# calls that give a Python number of one type whatever they are given
_PYTHON_NUMBERS = {"builtins.len": "int64", "builtins.int": "int64", "builtins.float": "float64"}
# the float constants of NumPy and math
_FLOAT_CONSTANTS = ("numpy.pi", "numpy.e", "numpy.inf", "numpy.nan", "math.pi", "math.e", "math.tau", "math.inf",
                    "math.nan")
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
# names of functions that validate an argument's dtype (`_check_dtype(x, (np.float32,))`)
_VALIDATING = ("dtype", "check", "valid", "ensure", "assert", "require")


@dataclass(frozen=True)
class Evidence:
    """One argument's type as the host code says it: an array's elements (its rank comes from
    the kernel's body) or a scalar's type, and where it is said."""

    dtype: str
    array: bool
    kind: str  # annotation, dtype check, validation call, docstring, astype, allocation, conversion
    path: str
    line: int
    # False where no code names the dtype: an allocator's default (`np.zeros(n)`, `np.arange(n)`)
    stated: bool = True

    @property
    def type(self) -> str:
        """As inference's launch-given types spell it: ``float32[?]`` an array of unknown rank."""
        return f"{self.dtype}{RANK_UNKNOWN}" if self.array else self.dtype

    def said(self) -> str:
        return f"{self.kind} at {self.path}:{self.line}"


def kernel_evidence(project: Project, kernel: KernelDef) -> List[Optional[Evidence]]:
    """For each positional parameter of ``kernel``, what its launches in the project pass as
    the host code says it; None where they say nothing or disagree."""
    params = kernel.node.args.posonlyargs + kernel.node.args.args
    reader = _HostEvidence(project)
    seen: List[List[Tuple[PyModule, Evidence]]] = [[] for _ in params]
    for module, call, function in _launches(project, kernel):
        if call.keywords or any(isinstance(a, ast.Starred) for a in call.args) or len(call.args) != len(params):
            continue
        for index, arg in enumerate(call.args):
            found = reader.value(module, arg, function, 0)
            if found is not None:
                seen[index].append((module, found))
    agreed = [_by_priority(found) for found in seen]
    # what launches leave unsaid, the kernel's own annotation says (`out: Storage`, an alias of
    # `npt.NDArray[np.float64]`): what its author declares it is launched with
    for index, param in enumerate(params):
        if agreed[index] is None and param.annotation is not None:
            declared = reader.annotation(kernel.module, param.annotation, kernel.scope)
            if declared is not None:
                agreed[index] = Evidence(declared[0], declared[1], "kernel annotation", kernel.module.path,
                                         param.lineno)
    return agreed


def _agreed(found: Sequence[Evidence], yielding: bool = False) -> Optional[Evidence]:
    """The one type every piece of evidence gives (the first of them says where); None where
    they disagree or there is none. With ``yielding`` (the values of one name or attribute),
    an unstated dtype (an allocator's default) yields to the one dtype the code states for it
    (``astype(int)`` in one branch, ``np.zeros(n)`` in another: the integers; the default is
    what was left unsaid, the dtype what was chosen). Callers that disagree are different
    launches: nothing yields there."""
    kinds = {(e.dtype, e.array) for e in found}
    if len(kinds) == 1:
        return found[0]
    if not yielding:
        return None
    stated = [e for e in found if e.stated]
    if len(stated) < len(found) and len({(e.dtype, e.array) for e in stated}) == 1 and all(
            e.array == stated[0].array for e in found):
        return stated[0]
    return None


def _launches(project: Project, kernel: KernelDef) -> List[Tuple[PyModule, ast.Call, Optional[FunctionNode]]]:
    """``k[grid, block](args)`` of this kernel, by its name or an attribute of that name, in
    its file and in the project's files that name it, each with the function it is in."""
    names = set(kernel.names) | {kernel.name}
    qualified = {f"{kernel.module.name}.{name}" for name in names} if kernel.module.name else set()
    paths = [kernel.module.path] + [p for p in project.files_naming(kernel.module.path, kernel.name)
                                    if p != kernel.module.path]
    found = []
    inside = _Nodes(kernel.scope.functions[-1]) if kernel.scope.functions else _Nodes(None)
    for path in paths:
        module = project.module(path)
        if module is None:
            continue
        for call, function in _calls_in(project, module):
            if not isinstance(call.func, ast.Subscript):
                continue
            target = call.func.value
            if isinstance(target, ast.Name) and target.id in names:
                scope = Scope(module).inner(function) if function is not None else Scope(module)
                if module is kernel.module and kernel.scope.functions:
                    # a factory's kernel by its local name: launched in that factory (another
                    # factory of the file may make a kernel of the same name)
                    if call in inside:
                        found.append((module, call, function))
                elif module is kernel.module or module.dotted(target, scope) in qualified:
                    found.append((module, call, function))
            elif isinstance(target, ast.Attribute) and target.attr in names and (
                    module is kernel.module or kernel.owner is None
                    and module.dotted(target, Scope(module)) in qualified):
                found.append((module, call, function))  # `self.k[...]`, `Cls.k[...]`, `mod.k[...]`
    return found


class _Nodes:
    """The nodes of a function, by identity (built when first asked)."""

    def __init__(self, function: Optional[FunctionNode]):
        self.function = function
        self._ids: Optional[Set[int]] = None

    def __contains__(self, node: ast.AST) -> bool:
        if self._ids is None:
            self._ids = {id(n) for n in walk_nodes(self.function)} if self.function is not None else set()
        return id(node) in self._ids


def _calls_in(project: Project, module: PyModule) -> List[Tuple[ast.Call, Optional[FunctionNode]]]:
    """Every call in a module with the innermost function it is in (None: module level)."""

    def compute():
        found = []

        def visit(node, function):
            for child in child_nodes(node):
                inner = child if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
                if isinstance(child, ast.Call):
                    found.append((child, function))
                visit(child, inner)

        visit(module.tree, None)
        return found

    return project.memo("calls with their functions", module.tree, compute)


def _parents(project: Project, module: PyModule) -> Dict[int, ast.AST]:
    return project.memo("parents", module.tree, lambda: {
        id(child): parent for parent in tree_nodes(module.tree) for child in child_nodes(parent)})


class _HostEvidence:
    """Reads values in the host code of a project, memoizing what each name says."""

    def __init__(self, project: Project):
        self.project = project
        self._resolving: Set[Tuple[int, str]] = set()
        # module-level names: their value is the same wherever they are read
        self._module_names: Dict[Tuple[int, str], Optional[Evidence]] = {}

    # -- values -------------------------------------------------------------------------
    def value(self, module: PyModule, expr: ast.expr, function: Optional[FunctionNode], depth: int
              ) -> Optional[Evidence]:
        if depth > _DEPTH:
            return None
        if isinstance(expr, ast.Constant) and type(expr.value) in _LITERALS:
            return Evidence(_LITERALS[type(expr.value)], False, "literal", module.path, expr.lineno)
        if isinstance(expr, ast.Call):
            return self._call(module, expr, function, depth)
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, _ARITHMETIC):
            return self._arithmetic(module, expr, function, depth)
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
            return self.value(module, expr.operand, function, depth)  # a part of the expression: no step
        if isinstance(expr, ast.Subscript) and any(isinstance(e, ast.Slice) for e in (
                expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice])):
            return self.value(module, expr.value, function, depth + 1)  # a view: the same elements
        if isinstance(expr, ast.Attribute) and (module.dotted(expr, _scope(module, function)) or "") in _FLOAT_CONSTANTS:
            return Evidence("float64", False, "literal", module.path, expr.lineno)  # `np.pi`: a Python float
        if isinstance(expr, ast.Attribute) and expr.attr == "T":
            return self.value(module, expr.value, function, depth + 1)
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and function is not None \
                and _receiver(function) == expr.value.id:
            return self._attribute(module, function, expr.attr, depth, self.value)
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Attribute) and isinstance(
                expr.value.value, ast.Name) and function is not None and _receiver(function) == expr.value.value.id:
            # `self.state.Ex` of `self.state = EMState(...)`: what that class stores in `Ex`
            held = self._held_class(module, function, expr.value.attr)
            if held is not None:
                return self._attribute(held[0], None, expr.attr, depth + 1, self.value, owner=held[1])
        if isinstance(expr, ast.Name):
            return self._name(module, expr.id, function, depth, self.value, self._parameter)
        return None

    def _arithmetic(self, module: PyModule, expr: ast.BinOp, function, depth: int) -> Optional[Evidence]:
        """``np.arange(n) * dh``, ``x.astype(np.float32) / 2``: the elements NumPy 2's rules give
        an array and a number (a Python number takes the array's type where it is of the
        same kind) or two arrays; None where an operand is not known."""
        # the operands are parts of the expression (finite), not steps through names or calls
        left = self.value(module, expr.left, function, depth)
        right = self.value(module, expr.right, function, depth) if left is not None else None
        if left is None or right is None or not (numeric(left.dtype) and numeric(right.dtype)):
            return None
        if not (left.array or right.array) and left.kind == right.kind == "literal":
            python = {"boolean": 0, "int64": 1, "float64": 2, "complex128": 3}
            dtype = max(left.dtype, right.dtype, key=python.get)  # Python's own numbers
            if isinstance(expr.op, ast.Div) and dtype in ("boolean", "int64"):
                dtype = "float64"
            return Evidence(dtype, False, "literal", module.path, expr.lineno)

        def typed(found: Evidence):
            # a NumPy scalar (`np.float32(dt)`) keeps its width as an array does (NEP 50)
            return ScalarType(found.dtype, weak=True) if found.kind == "literal" else ArrayType(found.dtype, 1)

        result = array_arithmetic(expr.op, typed(left), typed(right))
        if result is None or result.dtype is None:
            return None
        said = left if left.array or not right.array else right
        return Evidence(result.dtype, left.array or right.array, said.kind, said.path, said.line,
                        stated=left.stated and right.stated)

    def _call(self, module: PyModule, call: ast.Call, function, depth: int) -> Optional[Evidence]:
        scope = _scope(module, function)
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr == "astype" and call.args:
            dtype = self.dtype(module, call.args[0], function, depth + 1)
            return Evidence(dtype, True, "astype", module.path, call.lineno) if dtype else None
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute) and func.value.attr == "fft" \
                and func.attr in _FFT_COMPLEX + _FFT_REAL and call.args:
            # `xp.fft.rfft(x)` whatever module `xp` is (`get_array_module(x)`): complex of the
            # input's width, float64's where the input is not known
            given = self.value(module, call.args[0], function, depth + 1)
            single = given is not None and given.dtype in ("float32", "complex64", "float16")
            if func.attr in _FFT_REAL:
                dtype = "float32" if single else "float64"
            else:
                dtype = "complex64" if single else "complex128"
            return Evidence(dtype, True, "fft", module.path, call.lineno)
        name = module.dotted(func, scope) or ""
        library, last = name.partition(".")[0], name.rpartition(".")[2]
        if name in _PYTHON_NUMBERS and len(call.args) == 1 and not call.keywords:
            # `len(x)`, `int(n / 2)`, `float(dx)`: a Python number, as numba types it
            return Evidence(_PYTHON_NUMBERS[name], False, "literal", module.path, call.lineno)
        if library in _LIBRARIES and last in _FILLED:
            given = _keyword(call, "dtype")
            position = _FILLED[last]
            if given is None and len(call.args) > position:
                given = call.args[position]
            if given is not None:
                dtype = self.dtype(module, given, function, depth + 1)
            elif last == "linspace":
                return Evidence("float64", True, "allocation", module.path, call.lineno, stated=False)
            else:  # `np.arange(16)`, `np.full(n, 0.5)`: the numbers given
                numbers = call.args[1:2] if last == "full" else call.args
                dtype = self._numbers(module, numbers, function, depth, count=last == "arange")
                # the numbers' dtype, not one the code names
                return Evidence(dtype, True, "allocation", module.path, call.lineno, stated=False) if dtype else None
            return Evidence(dtype, True, "allocation", module.path, call.lineno) if dtype else None
        if library in _LIBRARIES:
            given = _keyword(call, "dtype")
            if last in _SIZED or last in _CONVERTING:
                position = _SIZED.get(last, _CONVERTING.get(last))
                if given is None and position is not None and len(call.args) > position:
                    given = call.args[position]
                if given is not None:
                    dtype = self.dtype(module, given, function, depth + 1)
                    return Evidence(dtype, True, "allocation", module.path, call.lineno) if dtype else None
                if last in _SIZED:  # NumPy's, CuPy's and numba-cuda's default
                    return Evidence("float64", True, "allocation", module.path, call.lineno, stated=False)
                if call.args and isinstance(call.args[0], (ast.List, ast.Tuple)):
                    # `np.array([[1, 0], [0, 1]])`: the numbers written, as NumPy types them
                    dtype = self._written(module, call.args[0], function, depth)
                    return Evidence(dtype, True, "allocation", module.path, call.lineno, stated=False) \
                        if dtype else None
                if call.args:
                    given = self.value(module, call.args[0], function, depth + 1)
                    if given is not None and not given.array:
                        # `cuda.to_device(10000)`: an array of the number's type (its rank the body's)
                        return Evidence(given.dtype, True, given.kind, given.path, given.line, given.stated)
                    return given
                return None
            dtype = dtype_name(last) if last not in ("bool", "float", "int", "complex") else None
            if dtype and numeric(dtype) and len(call.args) == 1 and not call.keywords:
                return Evidence(dtype, False, "conversion", module.path, call.lineno)  # `np.float32(dt)`
            return None
        if isinstance(func, ast.Attribute) and func.attr in _KEEPING and not (
                func.attr == "view" and call.args):
            return self.value(module, func.value, function, depth + 1)
        return None

    def _written(self, module: PyModule, items: ast.expr, function, depth: int) -> Optional[str]:
        """The dtype NumPy gives a (nested) list of numbers written out: booleans alone
        ``bool``, else as ``_numbers`` says; None where an item is not a number known."""
        leaves, stack = [], [items]
        while stack:
            item = stack.pop()
            if isinstance(item, (ast.List, ast.Tuple)):
                stack.extend(item.elts)
            elif isinstance(item, ast.Starred):
                return None
            else:
                leaves.append(item)
        if leaves and all(isinstance(leaf, ast.Constant) and type(leaf.value) is bool for leaf in leaves):
            return "boolean"
        return self._numbers(module, leaves, function, depth, count=False) if leaves else None

    def _numbers(self, module: PyModule, numbers: Sequence[ast.expr], function, depth: int, count: bool
                 ) -> Optional[str]:
        """The dtype NumPy gives an array made of these numbers (``np.arange(0, n, 0.5)``,
        ``np.full(n, fill)``): float64 where one is a float, int64 where all are integers.
        With ``count`` (``np.arange(n)``), one number no reading says is a float is a count:
        an integer."""
        kinds = []
        for number in numbers:
            found = self.value(module, number, function, depth + 1)
            kinds.append(found.dtype if found is not None and not found.array and numeric(found.dtype) else None)
        if any(k is not None and k.startswith(("float", "complex")) for k in kinds):
            return "complex128" if any(k and k.startswith("complex") for k in kinds) else "float64"
        if kinds and all(k is not None for k in kinds):
            return "int64"
        return "int64" if count and len(kinds) == 1 else None

    def _attribute(self, module: PyModule, function: FunctionNode, attr: str, depth: int, read,
                   owner: Optional[ast.ClassDef] = None):
        """``self.attr``: what every assignment to it in the class's methods (and the class
        body) says, read with ``read`` (a value or a dtype); of ``owner`` where given, else
        of the class ``function`` is a method of."""
        owner = owner if owner is not None else _owner(self.project, module, function)
        if owner is None:
            return None
        key = (id(owner), "." + attr + ("" if read == self.value else ":dtype"))
        if key in self._resolving:
            return None
        self._resolving.add(key)
        try:
            found = []
            for statement in owner.body:
                if isinstance(statement, ast.Assign) and any(
                        isinstance(t, ast.Name) and t.id == attr for t in statement.targets):
                    found.append(read(module, statement.value, None, depth + 1))
                if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                receiver = _receiver(statement)
                for sub in walk_nodes(statement):
                    targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target] if isinstance(
                        sub, ast.AnnAssign) and sub.value is not None else []
                    for target in targets:
                        for item, value in _paired(target, sub.value, module):  # `self.a, self.b = a, b`
                            if isinstance(item, ast.Attribute) and item.attr == attr and isinstance(
                                    item.value, ast.Name) and item.value.id == receiver:
                                if isinstance(value, ast.Constant) and value.value is None:
                                    continue  # `self.buffer = None` until it is made: never launched with
                                if not _updates_itself(value, item):
                                    found.append(read(module, value, statement, depth + 1) if value is not None
                                                 else None)
            # one assignment not known: it may be anything
            return _agreed_values(found, all_known=True, yielding=True)
        finally:
            self._resolving.discard(key)

    def _name(self, module: PyModule, name: str, function, depth: int, read, parameter):
        """A name's value: its assignments in the function (and the parameter's own value
        where one is conditional), else the parameter, else the module's binding of it."""
        key = (id(function) if function is not None else id(module), name + ("" if read == self.value else ":dtype"))
        if function is None and key not in self._resolving:
            # a module's constant is read whole, however deep its reader was (`omega = 1 / (3 *
            # nulb + 0.5)` of `nulb = uLB * r / Re` of ...): once, its chain guarded by `_resolving`
            if key not in self._module_names:
                self._module_names[key] = self._bound_name(module, name, None, 0, read, parameter, key)
            return self._module_names[key]
        return self._bound_name(module, name, function, depth, read, parameter, key)

    def _held_class(self, module: PyModule, function: FunctionNode, attr: str
                    ) -> Optional[Tuple[PyModule, ast.ClassDef]]:
        """The project class every object ``self.<attr>`` is assigned is made from (``self.state
        = EMState(...)`` in each method that sets it; ``None`` placeholders aside); None where
        one is anything else or they differ."""
        owner = _owner(self.project, module, function)
        if owner is None:
            return None
        classes = set()
        for method in owner.body:
            if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            receiver = _receiver(method)
            for sub in walk_nodes(method):
                targets = sub.targets if isinstance(sub, ast.Assign) else []
                for target in targets:
                    for item, value in _paired(target, sub.value, module):
                        if not (isinstance(item, ast.Attribute) and item.attr == attr and isinstance(
                                item.value, ast.Name) and item.value.id == receiver):
                            continue
                        if isinstance(value, ast.Constant) and value.value is None:
                            continue
                        made = self.project.definition(module.dotted(value.func, _scope(module, method)) or "", module) \
                            if isinstance(value, ast.Call) else None
                        if made is None or made[1].kind != "class":
                            return None
                        classes.add((made[0].path, made[1].node))
        if len(classes) != 1:
            return None
        path, node = classes.pop()
        held = self.project.module(path)
        return (held, node) if held is not None else None

    def _bound_name(self, module: PyModule, name: str, function, depth: int, read, parameter, key):
        if key in self._resolving:  # `x = np.asarray(x)`: the parameter's own value, else unknown
            return parameter(module, function, name, depth) if function is not None and name in _parameter_names(
                function) else None
        self._resolving.add(key)
        try:
            where = function if function is not None else module.tree
            assigned, nested = _assignments(where, name, module)
            found = [read(module, value, function, depth + 1) for value in assigned]
            is_parameter = function is not None and name in _parameter_names(function)
            if is_parameter and (nested or not assigned):
                found.append(parameter(module, function, name, depth))
            if not assigned and not is_parameter and function is not None:
                # the module's own binding: one step with the import it may be
                return self._name(module, name, None, depth, read, parameter)
            if not assigned and function is None:
                return self._imported(module, name, depth, read, parameter)
            return _agreed_values(found, all_known=not is_parameter, yielding=True)
        finally:
            self._resolving.discard(key)

    def _imported(self, module: PyModule, name: str, depth: int, read, parameter) -> Optional[Evidence]:
        """A module-level name imported from the project (``from .params import v``, ``from
        params import *``): its value in the module that assigns it."""
        binding = module.bindings.get(name)
        if binding is not None:
            if binding.kind != "import" or not binding.attr or not binding.module:
                return None
            found = self.project.definition(binding.imported, module)
            if found is None or found[0] is module or found[1].kind != "assign":
                return None
            return self._name(found[0], found[1].name, None, depth + 1, read, parameter)
        owner = module.star_source(name)  # `from params import *`
        return self._name(owner, name, None, depth + 1, read, parameter) if owner is not None else None

    # -- parameters ---------------------------------------------------------------------
    def _parameter(self, module: PyModule, function: FunctionNode, name: str, depth: int) -> Optional[Evidence]:
        arg = next(a for a in function.args.posonlyargs + function.args.args + function.args.kwonlyargs
                   if a.arg == name)
        scope = _scope(module, function)
        if arg.annotation is not None:
            found = self.annotation(module, arg.annotation, scope)
            if found is not None:
                dtype, array = found
                return Evidence(dtype, array, "annotation", module.path, arg.lineno)
        checked = self._checked(module, function, name, scope)
        if checked is not None:
            return checked
        documented = self.project.memo("documented elements", function, lambda: documented_elements(function)).get(name)
        if documented is not None:
            dtype, array = documented
            return Evidence(dtype, array, "docstring", module.path, function.lineno)
        if depth >= _DEPTH:
            return None
        return _by_priority([(caller, self.value(caller, passed, around, depth + 1))
                             for caller, passed, around in self._passed(module, function, name)])

    def annotation(self, module: PyModule, annotation: ast.expr, scope, depth: int = 0
                   ) -> Optional[Tuple[str, bool]]:
        """(dtype, array) an annotation names: ``npt.NDArray[np.float32]``, ``np.ndarray[Any,
        np.dtype[np.float32]]``, ``np.float32``, ``float``, and a type alias of one, of this
        module or imported (``Storage: TypeAlias = npt.NDArray[np.float64]``)."""
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            try:
                annotation = ast.parse(annotation.value, mode="eval").body
            except SyntaxError:
                return None
        if isinstance(annotation, ast.Subscript):
            base = (module.dotted(annotation.value, scope) or "").rpartition(".")[2] or (
                annotation.value.attr if isinstance(annotation.value, ast.Attribute) else "")
            inner = annotation.slice
            if base == "NDArray":
                dtype = _literal_dtype(module, inner, scope)
                return (dtype, True) if dtype else None
            if base == "ndarray" and isinstance(inner, ast.Tuple) and len(inner.elts) == 2 and isinstance(
                    inner.elts[1], ast.Subscript):
                dtype = _literal_dtype(module, inner.elts[1].slice, scope)
                return (dtype, True) if dtype else None
            return None
        name = module.dotted(annotation, scope) or ""
        if name.startswith(("numpy.", "numba.", "builtins.")) and name.rpartition(".")[2] in (
                "float", "int", "complex", "float32", "float64", "int32", "int64", "uint32", "uint64",
                "complex64", "complex128", "int8", "int16", "uint8", "uint16", "float16"):
            return dtype_name(name.rpartition(".")[2]), False
        if depth < 4 and isinstance(annotation, (ast.Name, ast.Attribute)):
            alias = _alias(self.project, module, annotation, name, scope)
            if alias is not None:
                owner, value = alias
                return self.annotation(owner, value, Scope(owner), depth + 1)
        return None

    def _checked(self, module: PyModule, function: FunctionNode, name: str, scope) -> Optional[Evidence]:
        """A dtype the function demands of its parameter: ``assert x.dtype == np.float32``,
        ``if x.dtype != np.float32: raise ...``, ``check_dtype(x, (np.float32,))``."""
        for sub in walk_nodes(function):
            test, kind = None, "dtype check"
            if isinstance(sub, ast.Assert):
                test, wanted = sub.test, (ast.Eq, ast.Is, ast.In)
            elif isinstance(sub, ast.If) and sub.body and isinstance(sub.body[-1], ast.Raise):
                test, wanted = sub.test, (ast.NotEq, ast.IsNot, ast.NotIn)
            if test is not None and isinstance(test, ast.Compare) and len(test.ops) == 1 \
                    and isinstance(test.ops[0], wanted):
                sides = [test.left, test.comparators[0]]
                if any(_dtype_of(side, name) for side in sides):
                    other = next(side for side in sides if not _dtype_of(side, name))
                    dtype = _one_dtype(module, other, scope)
                    if dtype:
                        return Evidence(dtype, True, kind, module.path, sub.lineno)
            if isinstance(sub, ast.Call) and any(isinstance(a, ast.Name) and a.id == name for a in sub.args):
                called = (module.dotted(sub.func, scope) or getattr(sub.func, "attr", None)
                          or getattr(sub.func, "id", "")).rpartition(".")[2]
                if any(word in called.lower() for word in _VALIDATING) and not called.startswith("as"):
                    others = [a for a in sub.args if not (isinstance(a, ast.Name) and a.id == name)] + [
                        k.value for k in sub.keywords]
                    dtypes = {d for d in (_one_dtype(module, o, scope) for o in others) if d}
                    if len(dtypes) == 1:
                        return Evidence(dtypes.pop(), True, "validation call", module.path, sub.lineno)
        return None

    def _passed(self, module: PyModule, function: FunctionNode, name: str
                ) -> List[Tuple[PyModule, ast.expr, Optional[FunctionNode]]]:
        """What calls of ``function`` in the project pass as its parameter ``name``: calls by
        its name (resolved to it), ``self.f(...)`` in its own class, ``Cls(...)`` for its
        ``__init__``, and calls of what a factory returning it gave (``run = make(f)`` then
        ``run(a)``)."""
        params = function.args.posonlyargs + function.args.args
        index = next((i for i, a in enumerate(params) if a.arg == name), None)
        found = []
        for other, call, around, shift in self._calls_of(module, function) + self._returned_calls(module, function):
            if any(isinstance(a, ast.Starred) for a in call.args):
                continue
            keyword = _keyword(call, name)
            if keyword is not None:
                found.append((other, keyword, around))
            elif index is not None and 0 <= index - shift < len(call.args):
                found.append((other, call.args[index - shift], around))
        return found

    def _calls_of(self, module: PyModule, function: FunctionNode
                  ) -> List[Tuple[PyModule, ast.Call, Optional[FunctionNode], int]]:
        """(module, call, the function it is in, how many parameters the call binds before
        its arguments) of each call of ``function`` the project shows."""
        owner = _owner(self.project, module, function)
        bound = 1 if owner is not None and _receiver(function) is not None else 0
        qualified = f"{module.name}.{function.name}" if module.name else None
        # `Op(t, h)` calls `Op.__init__(self, t, h)`: the class by its name, here or imported
        constructed = owner if owner is not None and function.name == "__init__" and bound else None
        found = []
        for path in [module.path] + [p for p in self.project.files_naming(
                module.path, constructed.name if constructed is not None else function.name) if p != module.path]:
            other = self.project.module(path)
            if other is None:
                continue
            for call, around in _calls_in(self.project, other):
                func = call.func
                if constructed is not None:
                    if not (isinstance(func, (ast.Name, ast.Attribute)) and (
                            func.id if isinstance(func, ast.Name) else func.attr) == constructed.name
                            and self._is_class(other, func, around, module, constructed)):
                        continue
                    shift = 1
                elif owner is None and isinstance(func, ast.Name) and func.id == function.name:
                    resolved = other.dotted(func, _scope(other, around))
                    if not (other is module and _is_module_function(module, function)) and resolved != qualified \
                            and not self._defines(resolved, other, function):
                        continue
                    shift = 0
                elif owner is None and isinstance(func, (ast.Name, ast.Attribute)) and self._defines(
                        other.dotted(func, _scope(other, around)), other, function):
                    # `kernel_relu(...)` of `from .kernel import relu as kernel_relu`, `gpu.relu(...)`
                    # of a package re-exporting it: what the name is, wherever it is imported from
                    shift = 0
                elif owner is not None and isinstance(func, ast.Attribute) and func.attr == function.name \
                        and other is module and around is not None and _owner(self.project, module, around) is owner \
                        and isinstance(func.value, ast.Name) and func.value.id == _receiver(around):
                    shift = bound  # `self.f(a, b)`: self is bound
                else:
                    continue
                found.append((other, call, around, shift))
        return found

    def _defines(self, resolved: Optional[str], importer: PyModule, function: FunctionNode) -> bool:
        """Is the qualified name (as ``importer`` imports it) the def of ``function``?"""
        if not resolved or resolved.partition(".")[0] in _LIBRARIES + ("builtins",):
            return False
        found = self.project.definition(resolved, importer)
        return found is not None and found[1].node is function

    def _returned_calls(self, module: PyModule, function: FunctionNode
                        ) -> List[Tuple[PyModule, ast.Call, Optional[FunctionNode], int]]:
        """Calls of a function its factory returns (``def make(f): ... def run(x): ...;
        return run``): where a call of the factory is bound to a name (``run = make(g)``),
        the calls of that name in the same function (or module level)."""
        factory = _parents(self.project, module).get(id(function))
        if not isinstance(factory, (ast.FunctionDef, ast.AsyncFunctionDef)) or not any(
                isinstance(s, ast.Return) and isinstance(s.value, ast.Name) and s.value.id == function.name
                for s in factory.body):
            return []
        found = []
        for other, call, around, shift in self._calls_of(module, factory):
            bound = _parents(self.project, other).get(id(call))
            if shift or not (isinstance(bound, ast.Assign) and len(bound.targets) == 1
                             and isinstance(bound.targets[0], ast.Name)):
                continue
            name = bound.targets[0].id
            found.extend((other, made, where, 0) for made, where in _calls_in(self.project, other)
                         if where is around and isinstance(made.func, ast.Name) and made.func.id == name)
        return found

    def _is_class(self, other: PyModule, func: ast.expr, around, module: PyModule, cls: ast.ClassDef) -> bool:
        """Whether ``func`` (a name or ``pkg.mod.Name``) in ``other`` is the class ``cls`` of
        ``module``, defined there or imported (through a package's re-export too)."""
        if other is module and isinstance(func, ast.Name) and cls in module.tree.body:
            return True
        resolved = other.dotted(func, _scope(other, around))
        if not resolved:
            return False
        found = self.project.definition(resolved, other)
        if found is not None:
            return found[0] is module and getattr(found[1], "node", None) is cls
        package = self.project.module_named(resolved.rpartition(".")[0], other)
        return package is not None and _star_exports(self.project, package, module, cls.name, 0)

    # -- dtypes -------------------------------------------------------------------------
    def dtype(self, module: PyModule, expr: ast.expr, function, depth: int) -> Optional[str]:
        """The dtype an expression names: a literal one, a constant, ``self.dtype``, a
        parameter's default or what its callers pass, ``x.dtype`` of an array known."""
        if depth > _DEPTH:
            return None
        scope = _scope(module, function)
        literal = _literal_dtype(module, expr, scope)
        if literal:
            return literal
        if isinstance(expr, ast.Call) and (module.dotted(expr.func, scope) or "").rpartition(".")[2] == "dtype" \
                and len(expr.args) == 1:
            return self.dtype(module, expr.args[0], function, depth + 1)  # np.dtype(DTYPE)
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and function is not None \
                and _receiver(function) == expr.value.id:
            found = self._attribute(module, function, expr.attr, depth, self._dtype_evidence)
            return found.dtype if found is not None else None
        if isinstance(expr, ast.Attribute) and expr.attr == "dtype":
            found = self.value(module, expr.value, function, depth + 1)
            return found.dtype if found is not None and found.array else None
        if isinstance(expr, ast.Name):
            found = self._name(module, expr.id, function, depth, self._dtype_evidence, self._dtype_parameter)
            return found.dtype if found is not None else None
        return None

    def _dtype_evidence(self, module, expr, function, depth) -> Optional[Evidence]:
        dtype = self.dtype(module, expr, function, depth)
        return Evidence(dtype, False, "dtype", module.path, getattr(expr, "lineno", 0)) if dtype else None

    def _dtype_parameter(self, module: PyModule, function: FunctionNode, name: str, depth: int):
        """A dtype parameter: its default and what the callers pass, where they agree."""
        arguments = function.args
        positional = arguments.posonlyargs + arguments.args
        defaults = dict(zip([a.arg for a in positional[len(positional) - len(arguments.defaults):]],
                            arguments.defaults))
        defaults.update({a.arg: d for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None})
        found = [self._dtype_evidence(module, defaults[name], None, depth + 1)] if name in defaults else []
        if depth < _DEPTH:
            found += [self._dtype_evidence(caller, passed, around, depth + 1)
                      for caller, passed, around in self._passed(module, function, name)]
        return _agreed_values(found, all_known=True)


def _star_exports(project: Project, package: PyModule, module: PyModule, name: str, depth: int) -> bool:
    """Whether ``package`` exports ``module``'s ``name`` through ``from .mod import *``
    (directly or through another such module), as ``pkg.Name`` is found at run time."""
    if depth > 3 or name.startswith("_"):
        return False
    for statement in package.tree.body:
        if not (isinstance(statement, ast.ImportFrom) and any(alias.name == "*" for alias in statement.names)):
            continue
        target = package.absolute_module(statement.module or "", statement.level)
        if target == module.name:
            exported = module.bindings.get("__all__")
            if exported is None or not isinstance(exported.value, (ast.List, ast.Tuple)):
                return True  # no `__all__`: its public names
            return any(isinstance(e, ast.Constant) and e.value == name for e in exported.value.elts)
        inner = project.module_named(target, package) if target else None
        if inner is not None and inner is not package and _star_exports(project, inner, module, name, depth + 1):
            return True
    return False


def _alias(project: Project, module: PyModule, expr: ast.expr, name: str, scope
           ) -> Optional[Tuple[PyModule, ast.expr]]:
    """The module and value a type alias names is bound to: ``Storage`` of ``Storage:
    TypeAlias = npt.NDArray[np.float64]`` (or ``Storage = ...``), here or in the project's
    module it is imported from; None for a library's name or one bound otherwise."""
    if isinstance(expr, ast.Name) and not name:
        binding, local_to = scope.lookup(expr.id)
        if binding is not None and local_to is None and binding.kind == "assign" and not binding.path \
                and binding.value is not None:
            return module, binding.value
        return None
    if not name or name.partition(".")[0] in _LIBRARIES + ("builtins", "typing", "typing_extensions"):
        return None
    found = project.definition(name, module)
    if found is None:
        return None
    owner, binding = found
    if binding.kind == "assign" and not binding.path and binding.value is not None:
        return owner, binding.value
    return None


def _by_priority(found: Sequence[Tuple[PyModule, Optional[Evidence]]]) -> Optional[Evidence]:
    """What callers pass, the package's own code first: where its callers agree, that;
    where none of them says, what the project's tests and examples agree on (they call the
    public API with the dtypes it is used with)."""
    package = [e for caller, e in found if not _is_test_or_example(caller.path)]
    return _agreed_values(package) or (None if any(e is not None for e in package) else _agreed_values(
        [e for caller, e in found if _is_test_or_example(caller.path)]))


def _is_test_or_example(path: str) -> bool:
    name = os.path.basename(path)
    folders = os.path.normpath(path).split(os.sep)[-4:-1]
    return name.startswith(("test_", "plot_")) or name.endswith("_test.py") or name == "conftest.py" or any(
        f in ("tests", "test", "testing", "pytests", "examples", "example", "tutorials", "benchmarks")
        for f in folders)


def _agreed_values(found: Sequence[Optional[Evidence]], all_known: bool = False, yielding: bool = False
                   ) -> Optional[Evidence]:
    """The evidence the known values agree on (all of them known, with ``all_known``; an
    unstated dtype yielding to a stated one, with ``yielding``)."""
    known = [f for f in found if f is not None]
    if not known or all_known and len(known) != len(found):
        return None
    return _agreed(known, yielding)


def _keyword(call: ast.Call, name: str) -> Optional[ast.expr]:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _scope(module: PyModule, function: Optional[FunctionNode]) -> Scope:
    return Scope(module).inner(function) if function is not None else Scope(module)


def _parameter_names(function: FunctionNode) -> Set[str]:
    arguments = function.args
    return {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}


def _receiver(function: FunctionNode) -> Optional[str]:
    """The first parameter's name of a method (``self``); None for a static method."""
    if any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in function.decorator_list):
        return None
    positional = function.args.posonlyargs + function.args.args
    return positional[0].arg if positional else None


def _owner(project: Project, module: PyModule, function: FunctionNode) -> Optional[ast.ClassDef]:
    """The class whose body defines ``function`` (a method), else None."""
    parent = _parents(project, module).get(id(function))
    return parent if isinstance(parent, ast.ClassDef) else None


def _is_module_function(module: PyModule, function: FunctionNode) -> bool:
    return function in module.tree.body


def _assignments(where: ast.AST, name: str, module: Optional[PyModule] = None) -> Tuple[List[ast.expr], bool]:
    """The values assigned to ``name`` in a function's own body (or a module's top level),
    not in functions or classes inside it; and whether one is under a branch or a loop."""
    values: List[ast.expr] = []
    nested = False

    def visit(statements, inside):
        nonlocal nested
        for statement in statements:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
                targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                paired = [value for t in targets for item, value in _paired(t, statement.value, module)
                          if isinstance(item, ast.Name) and item.id == name]
                if paired:
                    # `dt, dh = 0.005, 1` pairs its items; unpacked from anything else: unknown
                    values.extend(v if v is not None else ast.Constant(None) for v in paired)
                    nested = nested or inside
                elif any(isinstance(n, ast.Name) and n.id == name for t in targets for n in walk_nodes(t)):
                    values.append(ast.Constant(None))  # unpacked from something: unknown
                    nested = nested or inside
            elif isinstance(statement, (ast.AugAssign, ast.For, ast.With)) and any(
                    isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
                    for n in walk_nodes(statement.target if not isinstance(statement, ast.With) else statement)):
                values.append(ast.Constant(None))
                nested = True
            for field in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(statement, field, None)
                if isinstance(inner, list) and not isinstance(statement, (ast.FunctionDef, ast.ClassDef)):
                    visit(inner, True)

    visit(where.body if hasattr(where, "body") else [], False)
    return values, nested


def _paired(target: ast.expr, value: ast.expr, module: Optional[PyModule] = None
            ) -> List[Tuple[ast.expr, Optional[ast.expr]]]:
    """(target, the value it is given) of an assignment, a tuple written on both sides paired
    item by item (``a, b = x, y``), or mapped over one (``a, b = map(cuda.to_device, (x, y))``:
    ``cuda.to_device(x)``, ...); an item unpacked from anything else is given None."""
    if not isinstance(target, (ast.Tuple, ast.List)):
        return [(target, value)]
    items = value.elts if isinstance(value, (ast.Tuple, ast.List)) else mapped_items(
        value, lambda e: module.dotted(e, Scope(module))) if module is not None else None
    if items is not None and len(items) == len(target.elts) and not any(
            isinstance(e, ast.Starred) for e in target.elts + items):
        return [pair for item, given in zip(target.elts, items) for pair in _paired(item, given, module)]
    return [(item, None) for element in target.elts for item in walk_nodes(element)
            if isinstance(item, (ast.Name, ast.Attribute))]


def _updates_itself(value: Optional[ast.expr], target: ast.expr) -> bool:
    """``self.h = self.h ** 2``, ``self.h = -self.h``: an update of a value by an integer
    constant, which keeps its elements (what its other assignments say)."""
    same = ast.dump(target.value) if isinstance(target, ast.Attribute) else None

    def itself(expr):
        return isinstance(expr, ast.Attribute) and expr.attr == target.attr and ast.dump(expr.value) == same

    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub):
        return itself(value.operand)
    if isinstance(value, ast.BinOp) and not isinstance(value.op, ast.Div):
        other = value.right if itself(value.left) else value.left if itself(value.right) else None
        return isinstance(other, ast.Constant) and type(other.value) is int
    return False


def _dtype_of(expr: ast.expr, name: str) -> bool:
    """``x.dtype`` of the name."""
    return isinstance(expr, ast.Attribute) and expr.attr == "dtype" and isinstance(expr.value, ast.Name) \
        and expr.value.id == name


def _one_dtype(module: PyModule, expr: ast.expr, scope) -> Optional[str]:
    """The dtype an expression names, or the one dtype a tuple or list of them names."""
    if isinstance(expr, (ast.Tuple, ast.List, ast.Set)):
        dtypes = {_literal_dtype(module, e, scope) for e in expr.elts}
        return dtypes.pop() if len(dtypes) == 1 and None not in dtypes else None
    return _literal_dtype(module, expr, scope)


def _literal_dtype(module: PyModule, expr: ast.expr, scope, depth: int = 0) -> Optional[str]:
    """``np.float32``, ``numba.int32``, ``cp.complex64``, ``"float32"``, ``float``, and a
    module constant bound to one (``DTYPE = np.float32``)."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        found = dtype_name(expr.value)
        return found if found and numeric(found) else None
    if isinstance(expr, ast.Call) and (module.dotted(expr.func, scope) or "").endswith(".dtype") and len(
            expr.args) == 1:
        return _literal_dtype(module, expr.args[0], scope)
    name = module.dotted(expr, scope) if isinstance(expr, (ast.Name, ast.Attribute)) else None
    if not name:
        if isinstance(expr, ast.Name) and depth < 4:
            binding, local_to = scope.lookup(expr.id)  # a constant of this module
            if binding is not None and local_to is None and binding.kind == "assign" and binding.value is not None \
                    and not binding.path and binding.value is not expr:
                return _literal_dtype(module, binding.value, Scope(module), depth + 1)
        return None
    library, last = name.partition(".")[0], name.rpartition(".")[2]
    if library in _LIBRARIES or library == "builtins" and last in ("float", "int", "complex"):
        found = dtype_name(last) if last != "bool" else "boolean"
        return found if found and numeric(found) else None
    if depth < 4 and getattr(module, "project", None) is not None:
        # a constant of the project (`REAL = np.float32`, here or imported from its settings)
        found = module.project.definition(name, module)
        if found is not None:
            owner, binding = found
            if binding.kind == "assign" and binding.value is not None and not binding.path:
                return _literal_dtype(owner, binding.value, Scope(owner), depth + 1)
    return None
