"""Values only the run decides: a module global computed from the command line (``sys.argv``,
``argparse``), the environment (``os.environ``, ``os.getenv``), a module imported by a computed
name (``importlib.import_module(sys.argv[1])``) or a file read at run time (``open``,
``json.load``, ``np.load``, ``configparser``). Read from the syntax, following the module's
own names back to where they come from; nothing is run.

A kernel that reads such a value is compiled with a stand-in of the type its use asks for
(``functions.FunctionMaker``): no value the reader could give would be the one the run gives,
and the code paths kernlint looks for do not depend on it."""

from __future__ import annotations

import ast
from typing import Dict, List, Optional, Set, Tuple

from ..syntax import Binding, PyModule, Scope, walk_nodes

# names whose value is the run's own
_READS = {
    "sys.argv": "the command line",
    "sys.stdin": "standard input",
    "os.environ": "the environment",
    "os.environb": "the environment",
}

# calls whose result is the run's own (a module imported by a computed name only where the
# name is computed: `importlib.import_module("numpy")` is an import like any other)
_CALLS = {
    "os.getenv": "the environment",
    "os.getenvb": "the environment",
    "importlib.import_module": "a module imported by a name computed at run time",
    "builtins.__import__": "a module imported by a name computed at run time",
    "builtins.input": "standard input",
    "builtins.open": "a file read at run time",
    "io.open": "a file read at run time",
    "pathlib.Path.read_text": "a file read at run time",
    "json.load": "a file read at run time",
    "pickle.load": "a file read at run time",
    "marshal.load": "a file read at run time",
    "tomllib.load": "a file read at run time",
    "toml.load": "a file read at run time",
    "tomli.load": "a file read at run time",
    "yaml.load": "a file read at run time",
    "yaml.safe_load": "a file read at run time",
    "yaml.full_load": "a file read at run time",
    "yaml.unsafe_load": "a file read at run time",
    "configparser.ConfigParser": "a configuration file read at run time",
    "configparser.RawConfigParser": "a configuration file read at run time",
    "configparser.SafeConfigParser": "a configuration file read at run time",
    "numpy.load": "a file read at run time",
    "numpy.loadtxt": "a file read at run time",
    "numpy.genfromtxt": "a file read at run time",
    "numpy.fromfile": "a file read at run time",
    "numpy.memmap": "a file read at run time",
    "numpy.lib.format.open_memmap": "a file read at run time",
    "h5py.File": "a file read at run time",
    "scipy.io.loadmat": "a file read at run time",
    "pandas.read_csv": "a file read at run time",
    "netCDF4.Dataset": "a file read at run time",
    "xarray.open_dataset": "a file read at run time",
}

# methods whose result is the run's own whatever they are called on
_METHODS = {"parse_args": "the command line", "parse_known_args": "the command line",
            "read_text": "a file read at run time", "read_bytes": "a file read at run time"}

# the calls that import a module: their result is a module (its attributes are read)
_IMPORTERS = frozenset({"importlib.import_module", "builtins.__import__"})

_DEPTH = 20  # names followed back, one through another


class RunSource:
    """Where a value the run decides comes from: the expression (``sys.argv``), what it is
    (the command line) and whether it is a module (attributes are read from it)."""

    def __init__(self, text: str, what: str, module: bool):
        self.text = text
        self.what = what
        self.module = module

    @property
    def said(self) -> str:
        return f"{self.what} (`{self.text}`)"


def rebound_at_run_time(module: PyModule, name: str, declared: Dict[str, List[ast.AST]]
                        ) -> Optional[Tuple[RunSource, int]]:
    """Where a function of the module (``declared``: ``rebinding_functions``) rebinds the
    global ``name`` (``global BANDS`` then ``BANDS = image.shape[-1]``) with what it computes,
    not a literal: numba reads a global when it compiles, at the first launch, after such a
    set-up has run, so the module-level value is a placeholder. (RunSource, line of the
    assignment), or None."""
    for function in declared.get(name, ()):
        for node in walk_nodes(function):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None and any(
                    isinstance(target, ast.Name) and target.id == name
                    for target in (node.targets if isinstance(node, ast.Assign) else [node.target])) \
                    and not isinstance(node.value, ast.Constant):
                return RunSource(f"{function.name}(): global {name}", "a set-up function at run time", False), node.lineno
    return None


def rebinding_functions(module: PyModule) -> Dict[str, List[ast.AST]]:
    """The functions of the module declaring each name ``global``."""
    declared: Dict[str, List[ast.AST]] = {}
    for node in walk_nodes(module.tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for statement in walk_nodes(node):
                if isinstance(statement, ast.Global):
                    for declared_name in statement.names:
                        declared.setdefault(declared_name, []).append(node)
    return declared


def run_source(module: PyModule, binding: Binding) -> Optional[RunSource]:
    """Where a module-level binding's value comes from, when only the run decides it; None
    when nothing in it does (it is unresolved for another reason). Its ``module`` says whether
    the binding is that module itself (``PARA = importlib.import_module(...)``, not
    ``cosa = np.cos(PARA.alpha)``)."""
    found = _binding_source(module, binding, set(), 0)
    if found is not None:
        found = RunSource(found.text, found.what, _is_imported_module(module, binding, 0))
    return found


def _is_imported_module(module: PyModule, binding: Binding, depth: int) -> bool:
    """``p = importlib.import_module(name)``, or a plain alias of such a name (``q = p``)."""
    value = binding.value
    if binding.kind != "assign" or binding.path or value is None or depth > _DEPTH:
        return False
    if isinstance(value, ast.Call):
        return module.dotted(value.func, Scope(module)) in _IMPORTERS
    if isinstance(value, ast.Name):
        return any(_is_imported_module(module, other, depth + 1) for other in module.history.get(value.id, []))
    return False


def _binding_source(module: PyModule, binding: Binding, seen: Set[int], depth: int) -> Optional[RunSource]:
    if id(binding.node) in seen or depth > _DEPTH:
        return None
    seen.add(id(binding.node))
    statement = binding.node
    if binding.kind == "import":
        return None
    if isinstance(statement, (ast.With, ast.AsyncWith)):  # `with open(path) as f:`
        for item in statement.items:
            if item.optional_vars is not None and any(
                    isinstance(n, ast.Name) and n.id == binding.name for n in walk_nodes(item.optional_vars)):
                return expression_source(module, item.context_expr, seen, depth + 1)
        return None
    if isinstance(statement, ast.AugAssign):  # `NX *= 2`: the earlier value too
        found = expression_source(module, statement.value, seen, depth + 1)
        if found is None:
            for earlier in module.bindings_before(binding):
                found = found or _binding_source(module, earlier, seen, depth + 1)
        return found
    value = binding.value if binding.value is not None else getattr(statement, "value", None)
    if isinstance(statement, (ast.For, ast.AsyncFor)):
        value = statement.iter
    return expression_source(module, value, seen, depth + 1) if value is not None else None


def expression_source(module: PyModule, expr: ast.AST, seen: Optional[Set[int]] = None,
                      depth: int = 0) -> Optional[RunSource]:
    """The first part of a module-level expression whose value only the run decides."""
    seen = set() if seen is None else seen
    scope = Scope(module)
    for node in walk_nodes(expr):
        if isinstance(node, ast.Call):
            called = module.dotted(node.func, scope)
            if called in _CALLS:
                if called in _IMPORTERS and all(isinstance(a, ast.Constant) for a in node.args):
                    continue  # a constant name: an import kernlint reads like any other
                return RunSource(ast.unparse(node), _CALLS[called], called in _IMPORTERS)
            if isinstance(node.func, ast.Attribute) and node.func.attr in _METHODS and called not in _CALLS:
                return RunSource(ast.unparse(node), _METHODS[node.func.attr], False)
        elif isinstance(node, (ast.Attribute, ast.Name)) and isinstance(node.ctx, ast.Load):
            read = module.dotted(node, scope)
            if read in _READS:
                return RunSource(ast.unparse(node), _READS[read], False)
            if isinstance(node, ast.Name):
                for binding in reversed(module.history.get(node.id, [])):
                    found = _binding_source(module, binding, seen, depth + 1)
                    if found is not None:
                        return found
    return None


# what a conversion written around the value says of its type: `int(sys.argv[1])`
_CONVERSIONS = {"builtins.int": "int", "builtins.float": "float", "builtins.bool": "bool",
                "builtins.round": "int", "builtins.len": "int",
                "math.floor": "int", "math.ceil": "int"}
_CONFIG_GETTERS = {"getint": "int", "getfloat": "float", "getboolean": "bool"}


def written_kind(module: PyModule, expr: Optional[ast.AST], depth: int = 0) -> Optional[str]:
    """The type a module-level expression's own syntax gives its value, where it says one:
    ``int``, ``float``, ``bool`` or a NumPy scalar type's name (``float32``); None otherwise.
    ``int(sys.argv[1]) * 2`` is an int, ``float(os.environ["DT"]) / 2`` a float,
    ``config.getint("grid", "nx")`` an int."""
    if expr is None or depth > _DEPTH:
        return None
    scope = Scope(module)
    if isinstance(expr, ast.Constant) and type(expr.value) in (int, float, bool):
        return type(expr.value).__name__
    if isinstance(expr, ast.Call):
        called = module.dotted(expr.func, scope) or ""
        if called in _CONVERSIONS:
            return _CONVERSIONS[called]
        if called.split(".")[0] in ("numpy", "numba") and called.split(".")[-1] in _NUMPY_SCALARS:
            return called.split(".")[-1]  # np.float32(...), numba's float64(...): that width
        if isinstance(expr.func, ast.Attribute) and expr.func.attr in _CONFIG_GETTERS:
            return _CONFIG_GETTERS[expr.func.attr]
        return None
    if isinstance(expr, ast.UnaryOp):
        return "bool" if isinstance(expr.op, ast.Not) else written_kind(module, expr.operand, depth + 1)
    if isinstance(expr, ast.Compare):
        return "bool"
    if isinstance(expr, ast.BinOp):
        if isinstance(expr.op, ast.Div):
            return "float"
        kinds = {written_kind(module, expr.left, depth + 1), written_kind(module, expr.right, depth + 1)}
        if None in kinds:
            return None
        if len(kinds) == 1:
            return kinds.pop()
        return "float" if kinds & {"float", "float32", "float64"} else None
    if isinstance(expr, ast.IfExp):
        body, orelse = written_kind(module, expr.body, depth + 1), written_kind(module, expr.orelse, depth + 1)
        return body if body == orelse else None
    if isinstance(expr, ast.Name):
        binding = module.bindings.get(expr.id)
        if binding is not None and binding.kind == "assign" and not binding.path:
            return written_kind(module, binding.value, depth + 1)
    return None


def item_kind(module: PyModule, expr: Optional[ast.AST]) -> Optional[str]:
    """The type a container's written items have: ``map(int, sys.argv[1:3])``,
    ``tuple(int(v) for v in ...)``, ``[float(v) for v in ...]``, ``(int(a), int(b))``."""
    if isinstance(expr, ast.Call) and module.dotted(expr.func, Scope(module)) in (
            "builtins.tuple", "builtins.list") and len(expr.args) == 1:
        expr = expr.args[0]
    if isinstance(expr, (ast.GeneratorExp, ast.ListComp)):
        return written_kind(module, expr.elt)
    if isinstance(expr, ast.Call) and module.dotted(expr.func, Scope(module)) == "builtins.map" and expr.args:
        converter = module.dotted(expr.args[0], Scope(module))
        return _CONVERSIONS.get(converter) if converter else None
    if isinstance(expr, (ast.Tuple, ast.List)) and expr.elts:
        kinds = {written_kind(module, e) for e in expr.elts}
        return kinds.pop() if len(kinds) == 1 else None
    return None


_NUMPY_SCALARS = frozenset({"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
                            "uint16", "uint32", "uint64", "bool_", "complex64", "complex128"})


# -- the stand-ins -------------------------------------------------------------------------

def standin_by_use(module: PyModule, node, name: str, kind: Optional[str], items: Optional[str] = None):
    """(value, what it is) for a value only the run decides, by what ``node`` does with the
    name (``uses._closure_use``: an integer where it is an index, a range bound or a shape, an
    array of the rank its indexing shows, a flag, float64 otherwise); a conversion written
    around the value (``int(sys.argv[1])``) decides a scalar's type, and ``items`` (``map(int,
    sys.argv[1:3])``) the type of a tuple's items. A value read only at constant indices
    (``SHAPE[0]``, ``SHAPE[1]``) is a tuple, each item by its own use. A phrase saying what the
    function does with it instead where no stand-in fits (``"calls it"``)."""
    found = item_reads(node, name)
    if found is not None:
        standing, tree = found
        values, said = [], []
        for index in range(max(standing) + 1):
            chosen = _scalar_by_use(module, tree, standing[index], items) if index in standing else (1.0, "float64 1.0")
            if isinstance(chosen, str):
                return f"{chosen.replace(' it', f' its item {index}', 1)}"
            values.append(chosen[0])
            said.append(chosen[1])
        return tuple(values), f"a tuple ({', '.join(said)})"
    return _scalar_by_use(module, node, name, kind)


def _scalar_by_use(module: PyModule, node, name: str, kind: Optional[str]):
    import numpy

    from .uses import _closure_use, _Returns

    use = _closure_use(module, Scope(module), node, name)
    if isinstance(use, str):
        return use
    value, described = use
    if isinstance(value, _Returns):
        return "calls it"
    if isinstance(value, numpy.ndarray) or kind is None:
        return value, described
    if kind == "int":
        return 1, "int 1"
    if kind == "float":
        return 1.0, "float64 1.0"
    if kind == "bool":
        return True, "True"
    return getattr(numpy, kind)(1), f"{kind} {'1.0' if kind.startswith('float') else '1'}"


def item_reads(node, name: str):
    """The constant indices a function reads ``name`` at, when it reads it only so
    (``SHAPE[0]``, ``SHAPE[1]``: a tuple), and a copy of its syntax in which each such read is a
    name of its own, whose uses say what each item must be; None otherwise."""
    import copy

    tree = copy.deepcopy(node)
    standing = {}

    class Reads(ast.NodeTransformer):
        def visit_Subscript(self, subscript):
            index = subscript.slice
            if isinstance(subscript.value, ast.Name) and subscript.value.id == name and isinstance(
                    subscript.ctx, ast.Load) and isinstance(index, ast.Constant) and type(index.value) is int \
                    and 0 <= index.value < 64:
                item = standing.setdefault(index.value, f"__kernlint_{name}_{index.value}")
                return ast.copy_location(ast.Name(id=item, ctx=ast.Load()), subscript)
            return self.generic_visit(subscript)

    tree = Reads().visit(tree)
    if not standing or any(isinstance(n, ast.Name) and n.id == name for n in walk_nodes(tree)):
        return None
    return standing, tree


_SHAPED = ("local.array", "shared.array")  # their shape must be a constant numba can read


class RunReads:
    """The reads of values only the run decides in one function, and how its code reads them:
    from a module object of stand-ins (``holder``), an attribute read numba cannot fold into
    its constant-branch pruning (a global's value would prune `if NX > 1:` by the stand-in's
    value, and the branch not taken would go unchecked); a global name in an array's shape as
    the plain global it is, a constant, as numba reads it there (an attribute of a module
    stays one: numba refuses it in a shape, and so does the check)."""

    def __init__(self, holder: str):
        self.holder = holder
        self.values = {}  # attribute of the holder -> stand-in
        self.names = {}  # global name -> attribute
        self.chains = {}  # (module name, attribute) -> attribute of the holder
        self.constants = {}  # the globals a shape reads -> their values

    def rewrite(self, tree: ast.AST) -> ast.AST:
        """The function's syntax with the reads replaced (a copy's: the tree is changed)."""
        return ast.fix_missing_locations(_Rewriter(self).visit(tree))


class _Rewriter(ast.NodeTransformer):
    def __init__(self, reads: RunReads):
        self.reads = reads
        self.in_shape = 0

    def _holder(self, key: str, like: ast.AST) -> ast.AST:
        return ast.copy_location(ast.Attribute(value=ast.copy_location(ast.Name(id=self.reads.holder, ctx=ast.Load()),
                                                                       like),
                                               attr=key, ctx=ast.Load()), like)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if ast.unparse(node.func).endswith(_SHAPED):
            node.func = self.visit(node.func)
            for position, arg in enumerate(node.args):
                node.args[position] = self._shape(arg) if position == 0 else self.visit(arg)
            for keyword in node.keywords:
                keyword.value = self._shape(keyword.value) if keyword.arg == "shape" else self.visit(keyword.value)
            return node
        return self.generic_visit(node)

    def _shape(self, node: ast.AST) -> ast.AST:
        self.in_shape += 1
        try:
            return self.visit(node)
        finally:
            self.in_shape -= 1

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if isinstance(node.value, ast.Name) and isinstance(node.ctx, ast.Load):
            key = self.reads.chains.get((node.value.id, node.attr))
            if key is not None:  # (in a shape too: numba reads a module's attribute as no constant)
                return self._holder(key, node)
        return self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        key = self.reads.names.get(node.id)
        if key is None or not isinstance(node.ctx, ast.Load):
            return node
        if self.in_shape:
            self.reads.constants[node.id] = self.reads.values[key]
            return node
        return self._holder(key, node)


def attribute_reads(node, name: str):
    """The attributes a function reads of a module ``name`` (``params.dx``), and a copy of its
    syntax in which each such read is a name of its own (``__kernlint_params_dx``), whose uses
    say what each attribute must be; None where it uses the module otherwise (passes it on,
    reads ``params.grid.dx``)."""
    import copy

    tree = copy.deepcopy(node)
    attributes = {}

    class Reads(ast.NodeTransformer):
        def visit_Attribute(self, attribute):
            if isinstance(attribute.value, ast.Name) and attribute.value.id == name and isinstance(
                    attribute.ctx, ast.Load):
                standing = attributes.setdefault(attribute.attr, f"__kernlint_{name}_{attribute.attr}")
                return ast.copy_location(ast.Name(id=standing, ctx=ast.Load()), attribute)
            return self.generic_visit(attribute)

    tree = Reads().visit(tree)
    if any(isinstance(n, ast.Name) and n.id == name for n in walk_nodes(tree)):
        return None
    return attributes, tree
