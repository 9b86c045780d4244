"""Signatures from the kernel body, tried last: array ranks from indexing, integer arrays from
their use as indices, scalars from their use; tried in a few variants (``VARIANTS``) until
numba types one. Each is marked as inferred."""

from __future__ import annotations

import ast
import copy
from typing import Dict, List, Optional, Sequence, Set, Tuple

from ..project import Project
from ..static_types import XOROSHIRO, dtype_name
from ..syntax import KernelDef, PyModule, Scope, bound_item, child_nodes, walk_nodes
from .allocations import AttributeAllocations, _is_test, _levels, attribute_allocations, package_widths
from .evidence import Evidence, kernel_evidence
from .table import RANK_UNKNOWN

_INT_SOURCES = ("numba.cuda.grid", "numba.cuda.gridsize", "builtins.len", "builtins.range", "builtins.int")
_INTEGER_TYPES = ("int8", "int16", "int32", "int64", "intp", "uint8", "uint16", "uint32", "uint64")
_INT_ATTRIBUTES = ("threadIdx", "blockIdx", "blockDim", "gridDim", "laneid", "warpsize")

# The variants tried, in order, until numba types one (README, "Signatures").
VARIANTS = (
    ("as read", {}),
    ("integers as int32", {"int": "int32"}),
    ("floats as float32", {"float": "float32"}),
    ("arrays not contiguous", {"layout": "A"}),
    ("other scalars as int64", {"scalar": "int64"}),
)


class _Use:
    def __init__(self):
        self.ndim = 0
        self.array = False
        self.index = False  # used as an index or a range bound: an integer
        self.integer_only = False  # where numba takes nothing else (a subscript, a range, a shift): surely one
        self.int_elements = None  # an element type an integer array's stores or uses show
        self.stored_float = False
        self.float_widths: Set[str] = set()  # `a[i] = np.float32(v)`: the widths its stores name
        self.complex_elements = False  # stores complex values (1j, cmath)
        self.record = None  # a record dtype a library function takes it as (random states)
        self.flag = False  # tested for truth alone
        self.zero_d = False  # indexed with `()`: a 0-d array (`r[()] = x[()] + 1`)
        self.copied_from: Set[str] = set()  # `a[i] = b[j]`: the parameters whose elements it holds
        self.unpacked: Optional[List["_Use"]] = None  # `dt, n = params`: a tuple, and its items' uses
        self.grid = False  # `g.sync()`: the grid group `cuda.cg.this_grid()` gives
        self.int_tuple = 0  # read only as `p[0]`, `p[1]` of integers: a tuple of that many (a shape)
        self.passed_view = False  # `f(a[i])`: a part of it passed on, so it may have more dimensions


def closure_use(kernel_node, module: PyModule, scope: Scope, name: str) -> "_Use":
    """What a kernel's body shows about a name it closes over (as `_parameter_uses` does for
    its parameters): an integer, an array and its rank and elements."""
    return _parameter_uses(kernel_node, module, scope, set(), (name,))[name]


def inferred_signatures(kernel: KernelDef, launches: Sequence[Sequence[Optional[str]]] = (),
                        evidence: Sequence[Optional[Evidence]] = (),
                        package: Optional[Dict[str, Tuple[str, str]]] = None,
                        attributes: Optional[AttributeAllocations] = None,
                        package_kernels: Sequence[KernelDef] = ()) -> List[Tuple[str, str]]:
    """(signature, variant) candidates for a kernel from its body, most likely first. Where
    launches give some argument types (the others unknown), those are taken from them: an
    argument every such launch types alike. Then what the host code says of an argument
    (``evidence``, one entry per parameter: an annotation, a dtype check, an ``astype``...).
    A parameter the body says nothing of (or an array whose elements it does not say) is
    then typed as the kernels its factory makes with it use it, as the package allocates the
    attribute of its name (``attributes``: ``self.r_im = np.zeros((n, 3), np.int32)``), as
    the package's other kernels (``package_kernels``) use their parameter of that name; one
    never read that they take as a grid group is a placeholder's int64. Then the widths the
    kernel's code names, then those its package allocates with (``package``), then the
    body's float64 and int64. A variant that took host evidence ends in ``@`` and what it
    took (``x: annotation at path:line``)."""
    node = kernel.node
    if node.args.vararg or node.args.kwarg or node.args.kwonlyargs:
        return []
    params = [a.arg for a in node.args.posonlyargs + node.args.args]
    uses = _parameter_uses(node, kernel.module, kernel.scope, set())
    fitting = [list(types) for types in launches if len(types) == len(params)]
    known: List[Optional[str]] = [None] * len(params)
    if fitting:
        known = [column[0] if column[0] is not None and len(set(column)) == 1 else None
                 for column in zip(*fitting)]
    launched = (sum(1 for k in known if k is not None and not k.endswith(RANK_UNKNOWN)),
                sum(1 for k in known if k is not None and k.endswith(RANK_UNKNOWN)))
    taken: List[str] = []
    # a factory's kernels are made together and launched with the values it is given; a file's
    # top-level kernels may be unrelated (a test module's)
    siblings = [k for k in kernel.module.kernels if kernel.scope.functions and k.outer == kernel.outer
                and k.node is not kernel.node]
    namesakes = _namesakes(kernel, params, uses, known, siblings)
    for param, sibling in namesakes.items():
        taken.append(f"{param}: use in `{sibling.name}` at {sibling.module.path}:{sibling.line}")
    host = 0
    if len(evidence) == len(params):
        for index, (param, found) in enumerate(zip(params, evidence)):
            if known[index] is None and found is not None:
                known[index] = found.type
                taken.append(f"{param}: {found.said()}")
                host += 1
    for index, param in enumerate(params):
        # asked only where the body leaves something to say (reading one follows callers)
        allocated_as = attributes.get(param) if attributes is not None and known[index] is None \
            and param not in namesakes and (_says_nothing(uses[param]) or uses[param].array) else None
        if allocated_as is not None:
            found, rank = allocated_as
            if _take_allocated(uses[param], rank):
                known[index] = found.type
                taken.append(f"{param}: allocated as `{param}` at {found.path}:{found.line}")
                host += 1
    # the package's other kernels: the arrays they name alike
    others = _namesakes(kernel, params, uses, [k if k is None and p not in namesakes else "taken"
                                               for p, k in zip(params, known)],
                        [k for k in package_kernels if k.node is not kernel.node], package=True)
    for param, sibling in others.items():
        taken.append(f"{param}: use in `{sibling.name}` at {sibling.module.path}:{sibling.line}")
    unread = _never_read(node, params)
    for index, param in enumerate(params):
        if known[index] is None and param in unread and param not in namesakes and param not in others:
            group = _grid_group_namesake(param, list(siblings) + list(package_kernels))
            if group is not None:
                # a kernel cannot take the grid group the device-function form of it takes
                # (`cuda.jit(device=gridsync)(step)`): its host passes a placeholder (`0`)
                known[index] = "int64"
                taken.append(f"{param}: never read, a grid group in `{group.name}` at {group.module.path}:"
                             f"{group.line}: a placeholder")
    preferred = _widths_written(kernel)
    allocated: List[str] = []
    for key, (width, why) in (package or {}).items():
        if key not in preferred:
            preferred[key] = width
            allocated.append(why)
    candidates = _candidates(params, uses, known, preferred, launched, host, bool(allocated),
                             len(namesakes) + len(others))
    said = "; ".join(taken + allocated)
    return [(signature, f"{label}@{said}" if said else label) for signature, label in candidates]


def _says_nothing(use: "_Use") -> bool:
    """A parameter the body only passes on (to what cannot be followed) or never reads."""
    return not (use.array or use.index or use.flag or use.grid or use.unpacked or use.int_tuple
                or use.complex_elements or use.record or use.zero_d)


def _take_allocated(use: "_Use", rank: Optional[int]) -> bool:
    """Whether an attribute allocated with ``rank`` dimensions (None: not known) fits a
    parameter's use, and then puts its rank in ``use``: one the body says nothing of (a 1-d
    array where the allocation does not say), or an array whose elements the body does not
    say, of that rank (more, where the body passes a part of it on)."""
    if _says_nothing(use):
        use.array, use.ndim = True, rank or 1
        return True
    if use.array and _use_elements(use) is None and not use.copied_from and not use.zero_d and (
            rank is None or rank == use.ndim or use.passed_view and rank > use.ndim):
        use.ndim = max(use.ndim, rank or 0)
        return True
    return False


def _grid_group_namesake(param: str, kernels: Sequence[KernelDef]) -> Optional[KernelDef]:
    """The first of ``kernels`` (device functions) whose parameter named ``param`` is a grid
    group (``grid.sync()``), where none of them uses it as anything else."""
    found = None
    for other in kernels:
        if param not in [a.arg for a in other.node.args.posonlyargs + other.node.args.args]:
            continue
        use = _uses_of(other)[param]
        if use.grid and found is None:
            found = other
        elif not use.grid and not _says_nothing(use):
            return None
    return found


def _uses_of(kernel: KernelDef) -> Dict[str, "_Use"]:
    """What a kernel's body shows of its parameters, read once a run (its project keeps it)."""
    project = getattr(kernel.module, "project", None)
    if project is None:
        return _parameter_uses(kernel.node, kernel.module, kernel.scope, set())
    return project.memo("parameter uses", kernel.node, lambda: _parameter_uses(
        kernel.node, kernel.module, kernel.scope, set()))


def _never_read(node, params: List[str]) -> Set[str]:
    """The parameters a function's body never names."""
    named = {sub.id for statement in node.body for sub in walk_nodes(statement) if isinstance(sub, ast.Name)}
    return set(params) - named


def package_kernels(project: Project, module: PyModule) -> List[KernelDef]:
    """The kernels and device functions of the package ``module`` is in (its top package,
    tests aside), as its other kernels name their parameters; none for a lone file."""
    levels = _levels(module.path)
    if len(levels) < 2 or _is_test(module.path):
        return []
    files = levels[-1][1]
    anchor = project.module(files[0]) if files else None
    if anchor is None:
        return []

    found = []
    for path in files:  # each time: a kept reading of this file is keyed by the files it looked at
        other = project.module(path)
        if other is not None:
            found.extend(other.kernels)
    return found


def _namesakes(kernel: KernelDef, params: List[str], uses: Dict[str, "_Use"], known: Sequence[Optional[str]],
               siblings: Sequence[KernelDef], package: bool = False) -> Dict[str, KernelDef]:
    """Parameters the body says nothing of, typed as ``siblings`` (the kernels and device
    functions written with it: made by the same factory, or the package's) use a parameter
    of the same name, where every one that uses it says the same: kernels a factory makes
    together name the same arrays alike (``nbflag``, ``sim_box`` passed on by one, indexed by
    the others). With ``package`` (kernels written apart, which may reuse a name for another
    thing: ``y`` an output here, a complex one there), only a parameter the body says nothing
    of is typed, and only where two or more kernels say it is an array, alike: a package
    names the arrays it hands around alike. Their uses are put in ``uses``; the kernel each
    one came from is returned."""
    # said nothing of, or an array whose elements nothing says
    quiet = [p for p, k in zip(params, known) if k is None and (
        _says_nothing(uses[p]) or not package and uses[p].array and _use_elements(uses[p]) is None
        and not uses[p].copied_from)]
    if not quiet or not siblings:
        return {}
    found: Dict[str, KernelDef] = {}
    for param in quiet:
        seen = []
        for sibling in siblings:
            theirs = [a.arg for a in sibling.node.args.posonlyargs + sibling.node.args.args]
            if param not in theirs:
                continue
            use = _uses_of(sibling)[param]
            if not _says_nothing(use) and not (package and not use.array):
                seen.append((sibling, use))
        mine = uses[param]
        if mine.array:
            # an array already: what its namesakes say of its elements, and of its rank where it
            # passes a part of itself on (`distance(r[i], ...)`: `r` may have more dimensions)
            seen = [(k, u) for k, u in seen if u.array and (u.ndim == mine.ndim or mine.passed_view and u.ndim > mine.ndim)
                    and (_use_elements(u) is not None or u.ndim > mine.ndim)]
        shapes = {_use_shape(use) for _, use in seen}
        elements = {_use_elements(use) for _, use in seen} - {None}
        if len(shapes) == 1 and len(elements) <= 1 and (not package or len(seen) > 1):
            # the one that says the elements, where one does
            sibling, use = next(((k, u) for k, u in seen if _use_elements(u) is not None), seen[0])
            uses[param] = copy.copy(use)
            found[param] = sibling
    return found


def _use_shape(use: "_Use"):
    """What a use says of a value's shape: an array and its rank, a number, a tuple..."""
    if use.array:
        return ("array", use.ndim, use.zero_d)
    return ("scalar", use.index, use.flag, use.grid, use.int_tuple, use.unpacked is not None)


def _use_elements(use: "_Use") -> Optional[str]:
    """What kind of elements an array's use shows (None: it does not say)."""
    if not use.array:
        return None
    if use.record or use.complex_elements:
        return use.record or "complex"
    if use.int_elements or use.index and not use.stored_float:
        return "int"
    return "float" if use.stored_float else None


def _widths_written(kernel: KernelDef) -> Dict[str, str]:
    """The variant a kernel's code says: the GPU code written with it (its body; where a
    function makes it, every kernel and device function that function makes: a factory's
    step and its helpers are written together) names widths (`numba.float32(0.5)`,
    `cuda.local.array(3, np.float32)`, `np.int32(0)`); where it names float32 and no other
    float, floats are float32; where it names int32 and no other integer, integer array
    elements are int32 (a Python int scalar stays int64, as numba types it). Python's own
    `float(x)` counts as float64. (The arrays the file's host code makes are no such sign:
    a test module's kernels are unrelated, and a host's `np.float32(dt)` is a scalar.)"""
    module = kernel.module
    together = [k for k in module.kernels if k.outer == kernel.outer] if kernel.scope.functions else [kernel]
    named = _widths_named(module, together)
    variant: Dict[str, str] = {}
    if {w for w in named if w.startswith("float")} == {"float32"}:
        variant["float"] = "float32"
    if {w for w in named if w.startswith("int")} == {"int32"}:
        variant["int_elements"] = "int32"
    return variant


def _widths_named(module: PyModule, kernels: Sequence[KernelDef]) -> Set[str]:
    """The number widths ``kernels`` name: calls of a width (`np.float32(x)`,
    `numba.int32(0)`, `float(n)`) and widths passed to calls (`cuda.local.array(3,
    numba.float32)`, `dtype=np.int32`)."""
    widths: Set[str] = set()
    for kernel in kernels:
        for node in walk_nodes(kernel.node):
            if not isinstance(node, ast.Call):
                continue
            named = [node.func] + [a for a in node.args if isinstance(a, (ast.Name, ast.Attribute))] \
                + [k.value for k in node.keywords if k.arg == "dtype"]
            for expr in named:
                if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
                    library, name = "numpy", expr.value  # dtype="float32"
                else:
                    library, _, name = (module.dotted(expr, kernel.scope) or "").rpartition(".")
                if library == "builtins" and name == "int" and expr is node.func:
                    continue  # `int(x)` converts a value; `dtype=int` names int64
                if library in ("numpy", "cupy", "builtins") or library.startswith("numba"):
                    width = dtype_name(name) if name in ("float", "int") or library != "builtins" else None
                    if width and width.startswith(("float", "int")):
                        widths.add(width)
    return widths


def _parameter_uses(node, module: PyModule, outer_scope, visiting: Set[int], closed_over: Sequence[str] = ()
                    ) -> Dict[str, "_Use"]:
    """What a function's body (and the user device functions it calls, their bodies in turn)
    shows about each parameter, and about the names in ``closed_over`` it reads from around it."""
    visiting = visiting | {id(node)}
    params = [a.arg for a in node.args.posonlyargs + node.args.args]
    uses = {p: _Use() for p in params + list(closed_over)}
    # `dt, n, states = params`: a tuple parameter, each item typed by its use as a parameter is
    items: Dict[str, List[str]] = {}
    for sub in walk_nodes(node):
        if isinstance(sub, ast.Assign) and isinstance(sub.value, ast.Name) and sub.value.id in uses and all(
                isinstance(t, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Name) for e in t.elts)
                for t in sub.targets):
            items[sub.value.id] = [e.id for e in sub.targets[0].elts]
    for names in items.values():
        uses.update({name: _Use() for name in names if name not in uses})
    ints = _integer_locals(module, node, outer_scope)
    # a store makes an integer array only of values integers for sure (an index, `int(v)`), not
    # of a counter (`c = 0; c += i` stores as well into a float array)
    sourced = _integer_locals(module, node, outer_scope, arithmetic=False)
    scope = outer_scope.inner(node)
    complex_names = _complex_locals(module, node, scope)
    local_values: Dict[str, List[ast.expr]] = {}  # what each local name is assigned
    for sub in walk_nodes(node):
        if isinstance(sub, ast.Assign) and len(sub.targets) == 1 and isinstance(sub.targets[0], ast.Name) \
                and sub.targets[0].id not in uses:
            local_values.setdefault(sub.targets[0].id, []).append(sub.value)
        elif isinstance(sub, ast.AugAssign) and isinstance(sub.target, ast.Name) and sub.target.id not in uses:
            local_values.setdefault(sub.target.id, []).append(sub.value)
        elif isinstance(sub, ast.Assign) and len(sub.targets) == 1 and isinstance(sub.targets[0], (ast.Tuple, ast.List)):
            # `i, j, k = cells[n]`: each name is an item of the row (an index made of it makes
            # `cells` hold integers); `i, j = p, q`: each the value in its place
            names = sub.targets[0].elts
            values = sub.value.elts if isinstance(sub.value, (ast.Tuple, ast.List)) and len(sub.value.elts) == len(
                names) else [sub.value] * len(names) if isinstance(sub.value, ast.Subscript) else []
            for name, value in zip(names, values):
                if isinstance(name, ast.Name) and name.id not in uses:
                    local_values.setdefault(name.id, []).append(value)
        elif isinstance(sub, ast.For):
            # `for dx, dy in offsets:` / `for k in picks:`: each name is an item of the array (an
            # index made of it makes `offsets` hold integers)
            for iterated, target in _loop_items(sub):
                if iterated.id not in uses:
                    continue
                item = ast.Subscript(value=iterated, slice=ast.Constant(value=0), ctx=ast.Load())
                for name in (target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]):
                    if isinstance(name, ast.Name) and name.id not in uses:
                        local_values.setdefault(name.id, []).append(item)

    def is_int(expr: ast.expr, names: Set[str] = ints) -> bool:
        if isinstance(expr, ast.Constant):
            return isinstance(expr.value, int) and not isinstance(expr.value, bool)
        if isinstance(expr, ast.Name):
            return expr.id in names or (expr.id in uses and uses[expr.id].index and not uses[expr.id].array)
        if isinstance(expr, ast.BinOp) and not isinstance(expr.op, ast.Div):
            return is_int(expr.left, names) and is_int(expr.right, names)
        if isinstance(expr, ast.Attribute):
            return expr.attr in ("size", "ndim") or _int_attribute(module, expr, scope)
        if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Attribute):
            return expr.value.attr == "shape"
        if isinstance(expr, ast.Call):
            name = module.dotted(expr.func, scope) or ""
            return name in _INT_SOURCES or name.rsplit(".", 1)[-1] in ("int32", "int64", "intp", "uint32")
        return False

    tuples = {target.id: sub.value for sub in walk_nodes(node) if isinstance(sub, ast.Assign)
              and isinstance(sub.value, ast.Tuple) for target in sub.targets if isinstance(target, ast.Name)}
    # `h = hs[i, j]` (or `hs[i][j]`) then `h[k, l]`: `hs` has four dimensions
    # (`f = hs[i]; g = f[j]`: views of views, `g` two dimensions into `hs`)
    # (`d = cuda.const.array_like(w)`, `a = w`: the same array under another name, no dimension taken)
    chains = [(target.id, chained) for sub in walk_nodes(node)
              if isinstance(sub, ast.Assign) and (chained := _chained_index(sub.value) or _same_array(
                  sub.value, lambda expr: module.dotted(expr, scope))) is not None
              for target in sub.targets if isinstance(target, ast.Name) and target.id not in uses]
    # `cv = cuda.const.array_like(v)`: a copy of the whole array, indexed as it is
    chains += [(target.id, (sub.value.args[0].id, 0)) for sub in walk_nodes(node)
               if isinstance(sub, ast.Assign) and isinstance(sub.value, ast.Call) and len(sub.value.args) == 1
               and isinstance(sub.value.args[0], ast.Name)
               and module.dotted(sub.value.func, outer_scope.inner(node)) == "numba.cuda.const.array_like"
               for target in sub.targets if isinstance(target, ast.Name) and target.id not in uses]
    # `for centroid in centroids:` then `centroid[k]`: each item is a row, one dimension into the array
    chains += [(target.id, (iterated.id, 1)) for sub in walk_nodes(node) if isinstance(sub, (ast.For, ast.comprehension))
               for iterated, target in _loop_items(sub) if isinstance(target, ast.Name) and target.id not in uses]
    views: Dict[str, Tuple[str, int]] = {}
    for _ in range(len(chains)):
        found = {name: (base, taken) if base in uses else (views[base][0], views[base][1] + taken)
                 for name, (base, taken) in chains if base in uses or base in views}
        if found == views:
            break
        views = found
    for _ in range(2):  # a second round sees the integers the first one found
        for sub in walk_nodes(node):
            if isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Name) and sub.value.id in views:
                owner, taken = views[sub.value.id]
                uses[owner].array = True
                uses[owner].ndim = max(uses[owner].ndim, taken + _index_count(sub.slice))
            elif isinstance(sub, ast.Subscript) and (chained := _chained_index(sub)) is not None \
                    and chained[0] in views:  # `phi = fields[0]` then `phi[i][j]`: `fields` has three
                owner, taken = views[chained[0]]
                uses[owner].ndim = max(uses[owner].ndim, taken + chained[1])
            if isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Attribute) and sub.value.attr == "shape" \
                    and isinstance(sub.value.value, ast.Name) and sub.value.value.id in views \
                    and isinstance(sub.slice, ast.Constant) and isinstance(sub.slice.value, int):
                owner, taken = views[sub.value.value.id]  # `c = fields[0]` then `c.shape[1]`
                uses[owner].ndim = max(uses[owner].ndim, taken + sub.slice.value + 1)
            if isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Name) and sub.value.id in uses:
                use = uses[sub.value.id]
                use.array = True
                index = sub.slice
                if isinstance(index, ast.Name) and isinstance(tuples.get(index.id), ast.Tuple):
                    index = tuples[index.id]  # `cell = (i, j, k)` then `cells[cell]`
                use.ndim = max(use.ndim, _index_count(index))
                use.zero_d = use.zero_d or isinstance(sub.slice, ast.Tuple) and not sub.slice.elts
                for index in (sub.slice.elts if isinstance(sub.slice, ast.Tuple) else [sub.slice]):
                    _mark_index(index, uses, local_values)
            elif isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Name):
                for index in (sub.slice.elts if isinstance(sub.slice, ast.Tuple) else [sub.slice]):
                    _mark_index(index, uses, local_values)  # `TABLE[rows[i], j]`: any array's indices
            elif isinstance(sub, ast.Subscript) and (chained := _chained_index(sub)) is not None \
                    and chained[0] in uses:
                uses[chained[0]].array = True
                uses[chained[0]].ndim = max(uses[chained[0]].ndim, chained[1])  # p[i][j]
                for index in (sub.slice.elts if isinstance(sub.slice, ast.Tuple) else [sub.slice]):
                    _mark_index(index, uses, local_values)
            if isinstance(sub, ast.Attribute) and sub.attr in ("real", "imag", "conjugate"):
                inner = sub.value.value if isinstance(sub.value, ast.Subscript) else sub.value
                if isinstance(inner, ast.Name) and inner.id in uses:
                    uses[inner.id].complex_elements = True  # `rho.real`, `E[i, j].imag`: complex values
            if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id in uses:
                if sub.attr in _ARRAY_ATTRIBUTES:
                    uses[sub.value.id].array = True
                    uses[sub.value.id].ndim = max(uses[sub.value.id].ndim, 1)
            elif isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id in views \
                    and sub.attr in _ARRAY_ATTRIBUTES:
                owner, taken = views[sub.value.id]  # `r = rs[i]` then `r.dtype`: `rs` has a dimension more
                uses[owner].ndim = max(uses[owner].ndim, taken + 1)
            if isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Attribute) and sub.value.attr == "shape" \
                    and isinstance(sub.value.value, ast.Name) and sub.value.value.id in uses \
                    and isinstance(sub.slice, ast.Constant) and isinstance(sub.slice.value, int):
                use = uses[sub.value.value.id]
                use.ndim = max(use.ndim, sub.slice.value + 1)
            if isinstance(sub, ast.Assign) and isinstance(sub.value, ast.Subscript) \
                    and any(isinstance(target, (ast.Tuple, ast.List)) for target in sub.targets):
                # `low, high = limits[i]`: what the index gives is unpacked, so it is a row, not a number
                value, index = sub.value.value, sub.value.slice
                if isinstance(value, ast.Name) and value.id in uses:
                    uses[value.id].ndim = max(uses[value.id].ndim, _dims_taken(index) + 1)
                elif isinstance(value, ast.Name) and value.id in views:
                    owner, taken = views[value.id]
                    uses[owner].ndim = max(uses[owner].ndim, taken + _dims_taken(index) + 1)
                elif (chained := _chained_index(sub.value)) is not None and chained[0] in uses:
                    uses[chained[0]].ndim = max(uses[chained[0]].ndim, chained[1] + 1)
            if isinstance(sub, ast.Assign) and isinstance(sub.value, ast.Attribute) and sub.value.attr == "shape" \
                    and isinstance(sub.value.value, ast.Name) and sub.value.value.id in uses:
                target = sub.targets[0]
                if isinstance(target, ast.Tuple):
                    use = uses[sub.value.value.id]
                    use.ndim = max(use.ndim, len(target.elts))
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr == "sync" \
                    and isinstance(sub.func.value, ast.Name) and sub.func.value.id in uses:
                uses[sub.func.value.id].grid = True
            for iterated, target in (_loop_items(sub) if isinstance(sub, (ast.For, ast.comprehension)) else ()):
                if iterated.id in uses:  # `for v in values`: a scalar cannot be iterated
                    uses[iterated.id].array = True  # `for dx, dy in offsets`: its rows are unpacked
                    rows = isinstance(target, (ast.Tuple, ast.List))
                    uses[iterated.id].ndim = max(uses[iterated.id].ndim, 2 if rows else 1)
            if isinstance(sub, (ast.For, ast.comprehension)) and (chained := _chained_index(sub.iter)) is not None \
                    and chained[0] in uses:  # `for item in histories[i][j]`: what the index leaves is iterated
                rows = isinstance(sub.target, (ast.Tuple, ast.List))
                uses[chained[0]].ndim = max(uses[chained[0]].ndim, chained[1] + (2 if rows else 1))
            if isinstance(sub, ast.Call):
                name = module.dotted(sub.func, scope) or ""
                if name == "builtins.range" or name in _INTEGER_PREDICATES:
                    for arg in sub.args:  # a range's bounds; a block vote's predicate (an int32)
                        _mark_index(arg, uses, local_values)
                if name in ("builtins.min", "builtins.max") and any(is_int(arg) for arg in sub.args):
                    for arg in sub.args:
                        _mark_integer_terms(arg, uses)  # `min(ir, Nr - 1)`: clamps an index
                if name == "builtins.enumerate" and sub.args and isinstance(sub.args[0], ast.Name) \
                        and sub.args[0].id in uses:  # `enumerate(freqs)`: iterated, so an array
                    uses[sub.args[0].id].array = True
                    uses[sub.args[0].id].ndim = max(uses[sub.args[0].id].ndim, 1)
                if name == "builtins.len" and sub.args and isinstance(sub.args[0], ast.Name) and sub.args[0].id in uses:
                    uses[sub.args[0].id].array = True
                    uses[sub.args[0].id].ndim = max(uses[sub.args[0].id].ndim, 1)
                if name.startswith("numba.cuda.random.xoroshiro128p_") and sub.args and isinstance(
                        sub.args[0], ast.Name) and sub.args[0].id in uses:
                    uses[sub.args[0].id].array = True  # the generator states
                    uses[sub.args[0].id].record = XOROSHIRO
                    uses[sub.args[0].id].ndim = 1
                target = sub.args[0] if sub.args else None
                if isinstance(target, ast.Attribute) and target.attr in ("real", "imag") and isinstance(
                        target.value, ast.Name) and target.value.id in uses:
                    uses[target.value.id].complex_elements = True  # atomic.add(rho.real, i, v): complex
                    target = target.value
                taken = 0
                if name.startswith("numba.cuda.atomic.") and (chained := _chained_index(target)) is not None \
                        and chained[0] in uses:
                    target, taken = ast.Name(id=chained[0], ctx=ast.Load()), chained[1]  # atomic.add(v[f_id], (i, k), x)
                if name.startswith("numba.cuda.atomic.") and isinstance(target, ast.Name) and target.id in uses:
                    use = uses[target.id]
                    use.array = True
                    value = sub.args[2] if len(sub.args) > 2 else None
                    if value is not None and is_int(value, sourced) and not use.stored_float \
                            and not use.int_elements:
                        use.int_elements = "int64"  # `atomic.exch(cells, index, i)`: the array holds what it stores
                    if name in ("numba.cuda.atomic.inc", "numba.cuda.atomic.dec") and not use.stored_float:
                        # numba types these on unsigned arrays only; the wrap value says which width
                        wide = isinstance(value, ast.Constant) and isinstance(value.value, int) \
                            and value.value > 0xFFFFFFFF
                        use.int_elements = "uint64" if wide else "uint32"
                    index = sub.args[1] if len(sub.args) > 1 else None
                    if isinstance(index, ast.Name):
                        index = tuples.get(index.id, index)  # `ind = (i, j)` then atomic.add(y, ind, v)
                    if index is not None:
                        use.ndim = max(use.ndim, taken + _index_count(index))
                        for element in (index.elts if isinstance(index, ast.Tuple) else [index]):
                            _mark_index(element, uses, local_values)
                    else:
                        use.ndim = max(use.ndim, taken + 1)
            if isinstance(sub, ast.Compare):
                operands = [sub.left] + list(sub.comparators)
                if any(is_int(o) for o in operands):
                    for operand in operands:
                        _mark_integer_terms(operand, uses)  # `i < n`, `i > n - 1`
            if isinstance(sub, ast.AugAssign) and isinstance(sub.target, ast.Name) and sub.target.id in ints \
                    and not isinstance(sub.op, ast.Div):
                _mark_integer_terms(sub.value, uses)  # `iz += Nz`: an integer index stays one
            if isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Mod) and is_int(sub.left):
                # `int(x) % counts[k]`: a modulus of an integer wraps an index, an integer too
                divisor = sub.right
                if isinstance(divisor, ast.Subscript) and isinstance(divisor.value, ast.Name) \
                        and divisor.value.id in uses and not uses[divisor.value.id].stored_float:
                    uses[divisor.value.id].int_elements = uses[divisor.value.id].int_elements or "int64"
                else:
                    _mark_integer_terms(divisor, uses)
            if isinstance(sub, ast.BinOp) and isinstance(sub.op, (ast.BitAnd, ast.BitOr, ast.BitXor,
                                                                   ast.LShift, ast.RShift)):
                for operand in (sub.left, sub.right):
                    if isinstance(operand, ast.Name) and operand.id in uses:
                        uses[operand.id].index = True
                # numba has no bitwise operator on floats: a shift's operands, and a mask's where
                # it is taken against integer arithmetic (`index & (2 ** bit)`), are integers,
                # down to the elements and locals they are computed from
                if isinstance(sub.op, (ast.LShift, ast.RShift)) or any(
                        _integer_arithmetic(operand) for operand in (sub.left, sub.right)):
                    for operand in (sub.left, sub.right):
                        _mark_index(operand, uses, local_values)
            if isinstance(sub, (ast.Assign, ast.AugAssign)):
                targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
                for target in targets:
                    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                            and target.value.id in uses:
                        element = "complex" if _mentions(sub.value, complex_names) else _element_type(
                            module, sub.value, scope, lambda e: is_int(e, sourced))
                        if isinstance(sub, ast.Assign) and isinstance(sub.value, ast.Constant) \
                                and sub.value.value == 0 and element == "int64":
                            element = None  # `a[i, j] = 0` clears a float array as well as an integer one
                        use = uses[target.value.id]
                        if isinstance(sub, ast.Assign) and isinstance(sub.value, ast.Subscript) and isinstance(
                                sub.value.value, ast.Name) and sub.value.value.id in uses:
                            use.copied_from.add(sub.value.value.id)
                        elif isinstance(sub, ast.Assign) and isinstance(sub.value, ast.Call) and sub.value.args \
                                and isinstance(sub.value.args[0], ast.Name) and sub.value.args[0].id in uses and (
                                    module.dotted(sub.value.func, scope) or "").startswith("numba.cuda.atomic."):
                            use.copied_from.add(sub.value.args[0].id)  # an atomic gives the old element back
                        if element == "complex":
                            use.complex_elements = True
                        elif element in ("float", "float32", "float64"):
                            use.stored_float = True
                            use.float_widths.add(element)
                        elif element and not use.stored_float:
                            use.int_elements = element
            if isinstance(sub, (ast.If, ast.While)) and isinstance(sub.test, ast.Name) and sub.test.id in uses:
                uses[sub.test.id].flag = True
            if isinstance(sub, ast.Call):
                for arg in sub.args:
                    chained = _chained_index(arg) if isinstance(arg, ast.Subscript) else None
                    if chained is not None and chained[0] in uses:
                        uses[chained[0]].passed_view = True
            if isinstance(sub, ast.Call) and len(visiting) < 8:
                _merge_callee_uses(sub, module, scope, uses, visiting, local_values)
    for name, names in items.items():
        uses[name].unpacked = [uses[item] for item in names]
    for name, count in _integer_tuples(node, params, is_int).items():
        if uses[name].ndim <= 1 and not uses[name].unpacked:
            uses[name].int_tuple = count
    return uses


def _integer_tuples(node, params: List[str], is_int) -> Dict[str, int]:
    """Parameters read only as ``p[0]``, ``p[1]`` (literal indices, never stored into, passed
    on or sliced), whose items are integers where the code says (``ix < dims[0]``,
    ``shape[1] // 2``, ``range(n[0])``): a tuple of that many integers, as numba types a
    shape or a tuple of sizes (``x.shape``, ``(nx, nz)``), not an array."""
    reads: Dict[str, Set[int]] = {p: set() for p in params}
    parents = {id(child): parent for parent in walk_nodes(node) for child in child_nodes(parent)}
    integer_items: Set[str] = set()
    for sub in walk_nodes(node):
        if not isinstance(sub, ast.Name) or sub.id not in reads:
            continue
        parent = parents.get(id(sub))
        if not (isinstance(parent, ast.Subscript) and parent.value is sub and isinstance(parent.ctx, ast.Load)
                and isinstance(parent.slice, ast.Constant) and type(parent.slice.value) is int
                and parent.slice.value >= 0):
            reads.pop(sub.id)  # read whole, stored into, indexed otherwise: not only a tuple's items
            continue
        reads[sub.id].add(parent.slice.value)
        around = parents.get(id(parent))
        others: List[ast.expr] = []
        if isinstance(around, ast.Compare):
            others = [e for e in [around.left, *around.comparators] if e is not parent]
        elif isinstance(around, ast.BinOp) and not isinstance(around.op, ast.Div):
            others = [around.right if around.left is parent else around.left]
        elif isinstance(around, ast.Call) and isinstance(around.func, ast.Name) and around.func.id == "range":
            integer_items.add(sub.id)
        if any(is_int(other) for other in others):
            integer_items.add(sub.id)
    return {name: max(indices) + 1 for name, indices in reads.items()
            if indices and name in integer_items and len(indices) == max(indices) + 1}


_ARRAY_ATTRIBUTES = ("shape", "size", "ndim", "T", "strides", "dtype")


def _chained_index(expr: ast.expr) -> Optional[Tuple[str, int]]:
    """``a[i][j, k]``: (``a``, the dimensions the chain of indexing takes, 3); None where it
    is no chain of indexing (one a slice ends) on a name."""
    taken = 0
    while isinstance(expr, ast.Subscript):
        if isinstance(expr.slice, ast.Slice):
            return None
        taken += _dims_taken(expr.slice)
        expr = expr.value
    return (expr.id, taken) if isinstance(expr, ast.Name) and taken else None


def _same_array(expr: ast.expr, dotted) -> Optional[Tuple[str, int]]:
    """``w`` and ``cuda.const.array_like(w)`` (numba hands the argument itself back): (``w``,
    no dimension taken); None otherwise."""
    if isinstance(expr, ast.Call) and len(expr.args) == 1 and not expr.keywords and isinstance(
            expr.args[0], ast.Name) and dotted(expr.func) == "numba.cuda.const.array_like":
        expr = expr.args[0]
    return (expr.id, 0) if isinstance(expr, ast.Name) else None


def _index_count(index: ast.expr) -> int:
    return len(index.elts) if isinstance(index, ast.Tuple) else 1


def _dims_taken(index: ast.expr) -> int:
    """Dimensions an index removes: ``a[i, :]`` one, ``a[i, j]`` two."""
    elements = index.elts if isinstance(index, ast.Tuple) else [index]
    return sum(1 for e in elements if not isinstance(e, ast.Slice))


def _merge_callee_uses(call: ast.Call, module: PyModule, scope, uses: Dict[str, "_Use"], visiting: Set[int],
                       local_values: Optional[Dict[str, List[ast.expr]]] = None) -> None:
    """A parameter passed on to a device function of the project is used as that function
    uses its own parameter: ``searchsorted(edges, v)`` indexing ``a`` makes ``edges`` an array,
    and an element (or a local holding one) passed where the callee wants an integer makes
    ``bit(qubits[q], i)``'s ``qubits`` an array of integers."""
    passed = [(i, a.id) for i, a in enumerate(call.args) if isinstance(a, ast.Name) and a.id in uses]
    # `f(other[y, x])`: an element's worth of integer indices taken, the rest of it passed on
    parts = {i: (a.value.id, len(a.slice.elts) if isinstance(a.slice, ast.Tuple) else 1)
             for i, a in enumerate(call.args) if isinstance(a, ast.Subscript) and isinstance(a.value, ast.Name)
             and a.value.id in uses and not any(isinstance(e, ast.Slice) for e in walk_nodes(a.slice))}
    if not passed and not parts or getattr(module, "project", None) is None:
        return
    name = module.dotted(call.func, scope)
    found = None
    callee_scope = None
    if name is None and isinstance(call.func, ast.Name):
        binding, local_to = scope.lookup(call.func.id)
        if binding is not None and binding.kind == "assign" and local_to is None and module.name:
            name = f"{module.name}.{call.func.id}"  # `f = cuda.jit(f, device=True)` at module level
        elif binding is not None and local_to is not None:
            # a device function the same factory defines: `check(vectors, ...)`, also one it
            # rebinds to its jitted self (`check = cuda.jit(device=flag)(check)`)
            if binding.kind == "assign" and isinstance(binding.value, ast.Call):
                earlier = [b for b in module.bindings_before(binding, local_to) if b.kind == "def"]
                wrapped = {n.id for n in walk_nodes(binding.value) if isinstance(n, ast.Name)}
                if earlier and call.func.id in wrapped:
                    binding = earlier[-1]
                else:  # `dot, step = utilities(...)`: the defs a factory of device functions returns
                    found, callee_scope = _factory_def(module, binding, scope) or (None, None)
            if binding.kind == "def":
                found, callee_scope = (module, binding.node), scope.within(local_to)
    if found is None:
        found = _function_def(module.project, name, module) if name else None
    if found is None:
        return
    owner, callee = found
    if id(callee) in visiting or callee.args.vararg:
        return

    callee_params = [a.arg for a in callee.args.posonlyargs + callee.args.args]
    callee_uses = _parameter_uses(callee, owner, callee_scope or Scope(owner), visiting)
    for index, argument in enumerate(call.args):
        wanted = callee_uses[callee_params[index]] if index < len(callee_params) else None
        # (only where the callee takes nothing but an integer there: `val <= 0` alone does not say)
        if wanted is not None and wanted.integer_only and not wanted.array and not (
                isinstance(argument, ast.Name) and argument.id in uses):  # a parameter: merged below
            _mark_index(argument, uses, local_values)
    for index, (argument, taken) in parts.items():
        if index < len(callee_params) and callee_uses[callee_params[index]].array:
            uses[argument].array = True  # the callee indexes or iterates the part: more dimensions
            uses[argument].ndim = max(uses[argument].ndim, taken + callee_uses[callee_params[index]].ndim)
    for index, argument in passed:
        if index >= len(callee_params):
            continue
        theirs, ours = callee_uses[callee_params[index]], uses[argument]
        ours.array = ours.array or theirs.array
        ours.ndim = max(ours.ndim, theirs.ndim)
        ours.index = ours.index or theirs.index  # an integer, or an array of integers (`array` merged above)
        ours.integer_only = ours.integer_only or theirs.integer_only
        ours.stored_float = ours.stored_float or theirs.stored_float
        ours.float_widths |= theirs.float_widths
        ours.int_elements = ours.int_elements or theirs.int_elements
        ours.complex_elements = ours.complex_elements or theirs.complex_elements
        ours.record = ours.record or theirs.record
        ours.grid = ours.grid or theirs.grid
        if ours.unpacked is None and theirs.unpacked is not None and not ours.array:
            ours.unpacked = theirs.unpacked  # the callee unpacks it: a tuple, its items as the callee uses them


def _factory_def(module: PyModule, binding, scope):
    """((module, def), its scope) of the device function ``dot, step = utilities(...)`` binds:
    the def of that name in the function called, which returns it (alone or in a tuple)."""
    name = module.dotted(binding.value.func, scope)
    made = _function_def(module.project, name, module) if name and getattr(module, "project", None) else None
    if made is None:
        return None
    owner, factory = made
    if not factory.body or not isinstance(factory.body[-1], ast.Return) or factory.body[-1].value is None:
        return None
    returned, left = bound_item(factory.body[-1].value, binding.path)
    if left or not isinstance(returned, ast.Name):
        return None
    inner = next((s for s in factory.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                  and s.name == returned.id), None)
    return ((owner, inner), Scope(owner).inner(factory)) if inner is not None else None


def _function_def(project: Project, name: str, importer: PyModule, depth: int = 0
                  ) -> Optional[Tuple[PyModule, ast.FunctionDef]]:
    """The project's ``def`` that ``pkg.mod.name`` calls, also where the module rebinds the name
    to its jitted self (``f = cuda.jit(f, device=True)`` after ``from .inline import f``)."""
    found = project.definition(name, importer)
    if found is None or depth > 4:
        return None
    owner, binding = found
    if binding.kind == "def" and isinstance(binding.node, ast.FunctionDef):
        return owner, binding.node
    if binding.kind != "assign" or binding.value is None or binding.path:
        return None
    applied = owner.applied_jit(binding.value, Scope(owner))
    if applied is None or not isinstance(applied[1], ast.Name):
        return None
    function = applied[1].id
    earlier = owner.bindings_before(binding) if function == binding.name else owner.history.get(function, [])
    for previous in reversed(earlier):
        if previous.kind == "def" and isinstance(previous.node, ast.FunctionDef):
            return owner, previous.node
        if previous.kind == "import" and previous.attr and previous.module:
            return _function_def(project, previous.imported, owner, depth + 1)
        break
    return None


def _candidates(params: List[str], uses: Dict[str, "_Use"], known: Sequence[Optional[str]],
                preferred: Optional[Dict[str, str]] = None, launched: Tuple[int, int] = (0, 0), host: int = 0,
                allocated: bool = False, together: int = 0) -> List[Tuple[str, str]]:
    """The candidates in the order tried; ``launched``: how many of the ``known`` types
    launches give whole and as array elements alone, ``host``: how many the host code says,
    ``together``: how many are typed as the kernels written with it use their namesakes."""
    candidates: List[Tuple[str, str]] = []
    given, elements = launched
    launched_dtypes = {param: text.partition("[")[0] for param, text in zip(params, known)
                       if text is not None and text.endswith("]")}
    for param in params:  # `a[i] = b[j]` with nothing else said of `a`: `b`'s elements
        use = uses[param]
        if use.array and not (use.int_elements or use.stored_float or use.complex_elements or use.record):
            sources = {launched_dtypes.get(source) for source in use.copied_from}
            if any(uses[source].complex_elements for source in use.copied_from) or any(
                    (dtype or "").startswith("complex") for dtype in sources):
                use.complex_elements = True
            elif use.copied_from and not use.index and all(
                    _use_elements(uses[source]) == "int" for source in use.copied_from):
                use.int_elements = next((uses[source].int_elements for source in sorted(use.copied_from)
                                         if uses[source].int_elements), "int64")  # `a[i] = cells[j]`: integers
    variants = list(VARIANTS)
    if preferred:
        label = ("as its package allocates: " if allocated else "as its code writes: ") + ", ".join(
            ([f"floats as {preferred['float']}"] if "float" in preferred else [])
            + ([f"integer elements as {preferred['int_elements']}"] if "int_elements" in preferred else []))
        variants.insert(0, (label, preferred))
    for label, variant in variants:
        types = []
        for param, given_type in zip(params, known):
            types.append(_type_from_use(uses[param], given_type, variant))
        signature = f"void({', '.join(types)})"
        if given:
            label = f"{label}, {given} of {len(params)} argument types from launch sites"
        if elements:
            label = f"{label}, {elements} array element types from launch sites"
        if host:
            label = f"{label}, {host} of {len(params)} argument types from the host code"
        if together:
            label = f"{label}, {together} of {len(params)} parameters as the code written with it uses them"
        if all(signature != s for s, _ in candidates):
            candidates.append((signature, label))
    return candidates


def _type_from_use(use: "_Use", launched: Optional[str], variant: Dict[str, str]) -> str:
    """A parameter's type as its use in the body says (what launches say first), in a variant
    of the choices (`VARIANTS`)."""
    if launched is not None and not launched.endswith(RANK_UNKNOWN):
        return launched
    if use.grid:
        return "GridGroup"
    if use.int_tuple and launched is None:
        return f"UniTuple(int64, {use.int_tuple})"
    if use.unpacked and not use.array and launched is None:
        items = [_type_from_use(item, None, variant) for item in use.unpacked]
        return f"UniTuple({items[0]}, {len(items)})" if len(set(items)) == 1 else f"Tuple(({', '.join(items)},))"
    if use.array or launched is not None:
        dtype = use.int_elements or ("int64" if use.index and not use.stored_float else "float64")
        if launched is not None:
            dtype = launched[:-len(RANK_UNKNOWN)]  # the launch's elements, the body's rank
        elif use.record:
            dtype = use.record
        elif use.complex_elements:
            dtype = "complex64" if variant.get("float") == "float32" else "complex128"
        elif dtype.startswith("int"):
            dtype = variant.get("int", variant.get("int_elements", dtype))
        elif use.float_widths in ({"float32"}, {"float64"}):
            dtype = next(iter(use.float_widths))  # every store names its width: `np.float32(0.)`
        else:
            dtype = variant.get("float", dtype)
        layout = variant.get("layout", "C")
        if use.zero_d and use.ndim == 0:
            return f"Array({dtype}, 0, '{layout}')"  # no [...] spelling has no dimensions
        dims = [":"] * max(use.ndim, 1)
        if layout == "C":
            dims[-1] = "::1"
        return f"{dtype}[{', '.join(dims)}]"
    if use.index:
        return variant.get("int", "int64")
    if use.flag:
        return "boolean"
    return variant.get("scalar", variant.get("float", "float64"))


# numba.cuda calls whose arguments are integers: a float predicate has no implementation
_INTEGER_PREDICATES = frozenset({"numba.cuda.syncthreads_count", "numba.cuda.syncthreads_and",
                                 "numba.cuda.syncthreads_or"})


def _loop_items(loop) -> List[Tuple[ast.Name, ast.expr]]:
    """The arrays a loop iterates, each with the target its items go to: ``for v in values``,
    ``for i, (a, b) in enumerate(pairs)``, ``for x, y in zip(xs, ys)``."""
    iterated, target = loop.iter, loop.target
    if isinstance(iterated, ast.Name):
        return [(iterated, target)]
    if not (isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name) and not iterated.keywords):
        return []
    if iterated.func.id == "enumerate" and len(iterated.args) == 1 and isinstance(iterated.args[0], ast.Name) \
            and isinstance(target, ast.Tuple) and len(target.elts) == 2:
        return [(iterated.args[0], target.elts[1])]
    if iterated.func.id == "zip" and isinstance(target, ast.Tuple) and len(target.elts) == len(iterated.args):
        return [(array, item) for array, item in zip(iterated.args, target.elts) if isinstance(array, ast.Name)]
    return []


def _mark_index(expr: ast.expr, uses: Dict[str, _Use], local_values: Optional[Dict[str, List[ast.expr]]] = None,
                seen: Optional[Set[str]] = None) -> None:
    """A parameter used as an index (directly, through an element of it, or through a local
    computed from it: ``k = offset + counts[i]`` then ``x[k]``) is an integer."""
    if isinstance(expr, ast.Name) and expr.id in uses:
        uses[expr.id].index = True
        uses[expr.id].integer_only = True
    elif isinstance(expr, ast.Name) and local_values and expr.id in local_values:
        seen = seen if seen is not None else set()
        if expr.id not in seen:
            seen.add(expr.id)
            for value in local_values[expr.id]:
                _mark_index(value, uses, local_values, seen)
    elif isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name) and expr.value.id in uses:
        uses[expr.value.id].index = True  # x[idx[i]]: idx holds integers
    elif isinstance(expr, ast.Subscript) and (chained := _chained_index(expr)) is not None and chained[0] in uses:
        uses[chained[0]].index = True  # `cell = edges[e][0]` then `x[cell]`: edges holds integers
    elif isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod,
                                                              ast.Pow, ast.LShift, ast.RShift, ast.BitAnd,
                                                              ast.BitOr, ast.BitXor)):
        _mark_index(expr.left, uses, local_values, seen)
        _mark_index(expr.right, uses, local_values, seen)
    elif isinstance(expr, ast.Tuple):  # `cell = (i + di, j)` then `cells[cell]`: each an index
        for element in expr.elts:
            _mark_index(element, uses, local_values, seen)


def _integer_arithmetic(expr: ast.expr) -> bool:
    """An integer literal, a power of one or a shift (``1``, ``2 ** k``, ``1 << k``): integer
    arithmetic for any integer operand, so a bitwise operator taken against it wants integers."""
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, int) and not isinstance(expr.value, bool)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.LShift, ast.RShift)):
        return True
    return isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Pow) and _integer_arithmetic(expr.left)


def _complex_locals(module: PyModule, node, scope) -> Set[str]:
    """Local names assigned complex values (``shift = 1. + 0.j``, ``shift *= c[i]`` after it)."""
    found: Set[str] = set()
    for _ in range(3):  # a few rounds: names computed from the names found
        for sub in walk_nodes(node):
            if isinstance(sub, (ast.Assign, ast.AugAssign)):
                targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
                if _complex_valued(module, sub.value, scope) or _mentions(sub.value, found):
                    found.update(t.id for t in targets if isinstance(t, ast.Name))
    return found


def _mentions(value: ast.expr, names: Set[str]) -> bool:
    """Whether an expression computes with one of ``names`` (not through ``.real``, ``.imag``,
    ``abs``, which make real numbers of complex ones)."""
    if not names:
        return False
    if isinstance(value, ast.Name):
        return value.id in names
    if isinstance(value, ast.Attribute):
        return value.attr not in ("real", "imag") and _mentions(value.value, names)
    if isinstance(value, ast.Call):
        if isinstance(value.func, ast.Name) and value.func.id == "abs":
            return False
        return _mentions(value.func, names) or any(_mentions(a, names) for a in value.args)
    return any(_mentions(child, names) for child in child_nodes(value) if isinstance(child, ast.expr))


def _integer_terms(expr: ast.expr) -> Optional[List[ast.Name]]:
    """The names of a sum or product of names and integer literals (``n - 1``: ``n``); None
    where anything else takes part (an element, a call, a float literal)."""
    if isinstance(expr, ast.Name):
        return [expr]
    if isinstance(expr, ast.Constant):
        return [] if isinstance(expr.value, int) and not isinstance(expr.value, bool) else None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)):
        left, right = _integer_terms(expr.left), _integer_terms(expr.right)
        return None if left is None or right is None else left + right
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        return _integer_terms(expr.operand)
    return None


def _mark_integer_terms(expr: ast.expr, uses: Dict[str, _Use]) -> None:
    for name in _integer_terms(expr) or ():
        if name.id in uses and not uses[name.id].array:
            uses[name.id].index = True


def _element_type(module: PyModule, value: ast.expr, scope, is_int) -> Optional[str]:
    """What a store into an array says about its elements: an integer width, "float",
    "complex", or None."""
    if _complex_valued(module, value, scope):
        return "complex"
    if isinstance(value, ast.Call):
        name = (module.dotted(value.func, scope) or "").rsplit(".", 1)[-1]
        if name == "int":
            return "int64"
        if name in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"):
            return name
        if f"numba.cuda.{name}" in _INTEGER_PREDICATES:
            return "int32"  # a block vote's count or answer
        if name in ("unchecked_int", "saturating_int") and len(value.args) > 1:
            width = (module.dotted(value.args[1], scope) or "").rsplit(".", 1)[-1]
            return width if width.startswith(("int", "uint")) else None
        if name in ("float32", "float64") and module.dotted(value.func, scope) in (
                f"numpy.{name}", f"numba.{name}", f"numba.types.{name}", f"numba.core.types.{name}"):
            return name  # the width the store names
        if name in ("float", "float32", "float64", "sqrt", "exp", "log", "sin", "cos"):
            return "float"
    if isinstance(value, ast.Constant) and isinstance(value.value, float):
        return "float"
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Div):
        return "float"
    if is_int(value):
        return "int64"
    return None


def _complex_valued(module: PyModule, value: ast.expr, scope, depth: int = 0) -> bool:
    """Whether an expression computes with complex numbers: a ``1j``, ``cmath.exp(...)``,
    ``np.complex64(...)``, or a module-level constant made of one (``IMG = cp.complex64(1j)``)."""
    for sub in walk_nodes(value):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, complex):
            return True
        if isinstance(sub, ast.Call):
            name = module.dotted(sub.func, scope) or ""
            last = name.rsplit(".", 1)[-1]
            if name.startswith("cmath.") and last in ("exp", "rect", "sqrt", "log") or last in (
                    "complex64", "complex128", "complex") or (
                    isinstance(sub.func, ast.Attribute) and sub.func.attr == "conjugate"):
                return True
        if isinstance(sub, ast.Name) and depth < 3 and scope.lookup(sub.id)[1] is None:
            binding = module.bindings.get(sub.id)
            if binding is not None and binding.kind == "assign" and binding.value is not None and \
                    _complex_valued(module, binding.value, Scope(module), depth + 1):
                return True
    return False


def _integer_locals(module: PyModule, node, outer_scope, arithmetic: bool = True) -> Set[str]:
    """Local names that hold integers: thread indices, loop counters, sizes, and (with
    ``arithmetic``) names every assignment of which computes an integer from those
    (``iz0 = iz - 1``, ``ir = min(i, n)``, ``c = 0; c += i``)."""
    scope = outer_scope.inner(node)
    params = {a.arg for a in node.args.posonlyargs + node.args.args}
    unpacked: Set[str] = set()  # `i, j = cuda.grid(2)`, `n, m = a.shape`
    loops: Set[str] = set()
    assigned: Dict[str, List[ast.expr]] = {}
    for sub in walk_nodes(node):
        if isinstance(sub, ast.Assign):
            for target in sub.targets:
                if isinstance(target, ast.Name):
                    assigned.setdefault(target.id, []).append(sub.value)
                elif _integer_call(module, sub.value, scope) or isinstance(sub.value, ast.Attribute) and (
                        sub.value.attr == "shape"):
                    unpacked.update(n.id for n in walk_nodes(target) if isinstance(n, ast.Name))
                else:
                    for name in walk_nodes(target):
                        if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store):
                            assigned.setdefault(name.id, []).append(sub.value)  # an unknown item
        elif isinstance(sub, ast.AugAssign) and isinstance(sub.target, ast.Name):
            value = sub.value
            if isinstance(sub.op, (ast.Add, ast.Sub)) and isinstance(value, ast.Name) and value.id in params:
                value = ast.Constant(0)  # `iz += Nz` wraps an index around: Nz is taken for an integer
            assigned.setdefault(sub.target.id, []).append(ast.BinOp(sub.target, sub.op, value))
        elif isinstance(sub, ast.For) and isinstance(sub.iter, ast.Call) and (
                module.dotted(sub.iter.func, scope) == "builtins.range"):
            loops.update(n.id for n in walk_nodes(sub.target) if isinstance(n, ast.Name))
        elif isinstance(sub, (ast.For, ast.With, ast.NamedExpr)):
            for name in walk_nodes(sub.target if isinstance(sub, (ast.For, ast.NamedExpr)) else sub):
                if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store):
                    assigned.setdefault(name.id, []).append(ast.Constant(None))  # not known to be one

    # the largest set of names whose assignments all compute integers from the set itself
    ints = (set(assigned) | unpacked | loops) - params
    while True:
        known = ints | unpacked | loops
        dropped = {name for name in ints if name in assigned and not all(
            _integer_valued(module, value, scope, known, params) if arithmetic else _integer_source(
                module, value, scope) for value in assigned[name])}
        if not dropped:
            return ints | unpacked | loops
        ints -= dropped


def _integer_call(module: PyModule, value: ast.expr, scope) -> bool:
    return isinstance(value, ast.Call) and (module.dotted(value.func, scope) or "") in _INT_SOURCES


def _integer_source(module: PyModule, value: ast.expr, scope) -> bool:
    """An integer straight from its source: ``cuda.grid(1)``, ``int(v)``, ``a.size``, ``a.shape[0]``."""
    if isinstance(value, ast.Attribute):
        return value.attr == "size" or _int_attribute(module, value, scope)
    if isinstance(value, ast.Subscript):
        return isinstance(value.value, ast.Attribute) and value.value.attr == "shape"
    return _integer_call(module, value, scope)


def _integer_valued(module: PyModule, value: ast.expr, scope, ints: Set[str], params: Set[str] = frozenset()
                    ) -> bool:
    """Whether an expression computes an integer, given the names known to hold one."""
    if isinstance(value, ast.Constant):
        return isinstance(value.value, int) and not isinstance(value.value, bool)
    if isinstance(value, ast.Name):
        return value.id in ints
    if isinstance(value, ast.BinOp):
        return not isinstance(value.op, (ast.Div, ast.Pow, ast.MatMult)) and _integer_valued(
            module, value.left, scope, ints, params) and _integer_valued(module, value.right, scope, ints, params)
    if isinstance(value, ast.UnaryOp):
        return isinstance(value.op, (ast.USub, ast.UAdd, ast.Invert)) and _integer_valued(
            module, value.operand, scope, ints, params)
    if isinstance(value, ast.IfExp):
        return _integer_valued(module, value.body, scope, ints, params) and _integer_valued(
            module, value.orelse, scope, ints, params)
    if _integer_source(module, value, scope):
        return True
    if isinstance(value, ast.Call):
        name = module.dotted(value.func, scope) or ""
        if name.rsplit(".", 1)[-1] in _INTEGER_TYPES:
            return True
        if name in ("builtins.min", "builtins.max") and value.args and not value.keywords:
            # `min(ir, nr - 1)` clamps an index: the parameters in it are taken for integers
            return any(_integer_valued(module, arg, scope, ints) for arg in value.args) and all(
                _integer_valued(module, arg, scope, ints | params) for arg in value.args)
    return False


def _int_attribute(module: PyModule, expr: ast.Attribute, scope) -> bool:
    """``cuda.threadIdx.x`` and the like."""
    inner = expr.value if expr.attr in ("x", "y", "z") else expr
    name = module.dotted(inner, scope) or ""
    return name.startswith("numba.cuda.") and name.rsplit(".", 1)[-1] in _INT_ATTRIBUTES


def inferred_by_kernel(project: Project, module: PyModule, given: Dict[str, List[List[Optional[str]]]]
              ) -> Dict[str, List[Tuple[str, str]]]:
    """Each lazy kernel's inferred candidates, from its body and the launches that give some types."""
    found: Dict[str, List[Tuple[str, str]]] = {}
    for kernel in module.kernels:
        if kernel.device or kernel.jit.args:
            continue  # device functions are checked through their callers; eager ones need nothing
        try:
            # defs of one name in a factory's branches share the qualified name (the key here):
            # each is tried with every one's candidates, in the order of the defs, and takes
            # the first numba accepts
            mine = inferred_signatures(kernel, given.get(kernel.qualname, ()), kernel_evidence(project, kernel),
                                       package_widths(project, module), attribute_allocations(project, module),
                                       package_kernels(project, module))
            earlier = found.get(kernel.qualname, [])
            found[kernel.qualname] = earlier + [c for c in mine if c not in earlier]
        except RecursionError:
            continue
        except Exception as exc:  # noqa: BLE001 - kernlint's bug: a KL905 at the kernel, others go on
            project.failed(module.path, kernel.line, kernel.column, f"inferring a signature for `{kernel.name}`",
                           exc, kernel=kernel.name)
    return found
