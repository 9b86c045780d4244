"""The widths a package allocates its arrays with: where nearly every float array its host
code makes with a written dtype is float32 (``np.zeros(n, dtype=np.float32)``,
``cuda.device_array(n, np.float32)``, ``.astype(np.float32)``, a package constant naming one),
a kernel of that package whose body names no width is given float32 arrays, and so for
integer arrays. The nearest code decides: the kernel's own file, then its package's directory,
then the whole top package. Test files are no sign (a test allocates what it tests with).

And the arrays a package keeps in attributes (``self.r_im = np.zeros((N, D), dtype=self.itype)``,
``conf.ptype = np.zeros(N, np.int32)``): their elements and rank, by the attribute's name,
where every allocation of that name in the package agrees (``attribute_allocations``)."""

from __future__ import annotations

import ast
import os
from collections import Counter
from typing import Dict, List, Optional, Tuple

from ..project import Project
from ..syntax import PyModule, Scope, tree_nodes
from .evidence import _CONVERTING, _FILLED, _LIBRARIES, _SIZED, Evidence, _agreed, _assignments, _calls_in, \
    _HostEvidence, _keyword, _literal_dtype

# a level decides a width when it has this many allocations of that kind, this share of one width
MIN_ALLOCATIONS = 3
MIN_SHARE = 0.9
MAX_PACKAGE_FILES = 400
GENERIC = "generic"  # an allocation whose dtype is passed along, not written


def package_widths(project: Project, module: PyModule) -> Dict[str, Tuple[str, str]]:
    """``{"float": (width, why), "int_elements": (width, why)}`` for the kernels of ``module``:
    the width nearly all of the nearest code's float (integer) allocations have."""
    if _is_test(module.path):
        return {}
    levels = _levels(module.path)
    found: Dict[str, Tuple[str, str]] = {}
    for kind in ("float", "int"):
        for where, paths in levels:
            counts: Counter = Counter()
            for path in paths:
                other = project.module(path)
                if other is not None:
                    counts.update(w for w in project.memo("allocated widths", other.tree, lambda: _widths(other))
                                  if w.startswith(kind) or w == GENERIC)
            # a dtype the code passes along (`dtype=self.dtype`, `x.dtype`) may be any width:
            # code generic in its dtype names none
            generic = counts.pop(GENERIC, 0)
            total = sum(counts.values())
            if total < MIN_ALLOCATIONS:
                continue  # too few here to say: the wider level decides
            width, count = counts.most_common(1)[0]
            if count / (total + generic) >= MIN_SHARE:
                found["float" if kind == "float" else "int_elements"] = (
                    width, f"{count} of {total + generic} {kind} allocations in {where} are {width}"
                    if not generic else f"{count} of {total} {kind} allocations in {where} are {width} "
                                        f"({generic} more pass a dtype along)")
            break
    return found


def _levels(path: str) -> List[Tuple[str, List[str]]]:
    """(name, files) of the file itself, its package folder and its top package, nearest first."""
    levels = [(os.path.basename(path), [path])]
    directory = os.path.dirname(path)
    if os.path.isfile(os.path.join(directory, "__init__.py")):
        levels.append((os.path.basename(directory), _files_under(directory)))
        top = directory
        while os.path.isfile(os.path.join(os.path.dirname(top), "__init__.py")):
            top = os.path.dirname(top)
        if top != directory:
            levels.append((os.path.basename(top), _files_under(top)))
    return levels


def package_files(path: str) -> List[str]:
    """The files whose allocations may decide the widths of ``path``'s kernels (a result kept
    between runs is valid while these are the same files)."""
    return sorted({f for _, files in _levels(os.path.abspath(path)) for f in files})


def _is_test(path: str) -> bool:
    name = os.path.basename(path)
    folders = os.path.normpath(path).split(os.sep)[-4:-1]  # the package's own folders, not where it lives
    return name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py" or any(
        p in ("tests", "test", "testing") for p in folders)


def _files_under(directory: str) -> List[str]:
    found: List[str] = []
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in ("tests", "test", "__pycache__"))
        found.extend(os.path.join(root, f) for f in sorted(files) if f.endswith(".py") and not _is_test(f))
        if len(found) >= MAX_PACKAGE_FILES:
            break
    return found[:MAX_PACKAGE_FILES]


def _widths(module: PyModule) -> List[str]:
    """The widths a module's allocations write out (one entry per allocation)."""
    found: List[str] = []
    scope = Scope(module)
    for node in tree_nodes(module.tree):
        if not isinstance(node, ast.Call):
            continue
        given: Optional[ast.expr] = None
        if isinstance(node.func, ast.Attribute) and node.func.attr == "astype" and node.args:
            given = node.args[0]
        else:
            name = module.dotted(node.func, scope) or ""
            last = name.rpartition(".")[2]
            if name.partition(".")[0] in _LIBRARIES and (last in _SIZED or last in _CONVERTING or last in (
                    "full", "arange", "full_like")):
                given = _keyword(node, "dtype")
                position = _SIZED.get(last, _CONVERTING.get(last))
                if given is None and position is not None and len(node.args) > position:
                    given = node.args[position]
        dtype = _literal_dtype(module, given, scope) if given is not None else None
        if dtype and dtype.startswith(("float", "int", "uint")):
            found.append(dtype)
        elif given is not None and dtype is None and not isinstance(given, ast.Constant):
            found.append(GENERIC)
    return found


def attribute_allocations(project: Project, module: PyModule) -> "AttributeAllocations":
    """What the package of ``module`` (its top package; tests aside) allocates into attributes,
    asked by name: a package keeps its state in attributes and hands them to its kernels
    under the same names."""
    return AttributeAllocations(project, module)


class AttributeAllocations:
    """Attribute name -> (its elements, its rank or None): the arrays a package allocates into
    attributes of that name (``self.r_im = ...``, its device copy ``self.d_r_im = ...``),
    where every allocation whose dtype reading finds agrees (an allocator's default yielding
    to the one dtype the others state). Read only for the names asked
    (reading an allocation may follow its dtype through callers), once a run."""

    def __init__(self, project: Project, module: PyModule):
        self.project = project
        levels = _levels(module.path)
        # a lone script's attributes are no package's state; a test's are what it tests with
        self.files = tuple(levels[-1][1]) if len(levels) > 1 and not _is_test(module.path) else ()

    def get(self, name: str) -> Optional[Tuple[Evidence, Optional[int]]]:
        if not self.files:
            return None
        anchor = self.project.module(self.files[0])
        if anchor is None:
            return None
        found = self.project.memo("attribute allocations", anchor.tree, dict)
        if name not in found:
            with self.project.recording() as looked:
                found[name] = (self._read(name), looked)
        value, looked = found[name]
        # a kept reading of the asking file is keyed by what this one looked at
        self.project.note_again(("attribute allocations", self.files[0], name), looked)
        return value

    def _read(self, name: str) -> Optional[Tuple[Evidence, Optional[int]]]:
        reader = _HostEvidence(self.project)
        inside = set(self.files)
        names = (name, "d_" + name, "h_" + name)
        paths = sorted({p for n in names for p in self.project.files_naming(self.files[0], n) if p in inside})
        entries: List[Tuple[Evidence, Optional[int]]] = []
        for path in paths:
            module = self.project.module(path)
            if module is None:
                continue
            assigned = self.project.memo("calls assigned to attributes", module.tree, lambda: _assigned_calls(
                self.project, module))
            for node, function in [found for n in names for found in assigned.get(n, ())]:
                rank = _allocated_rank(module, node.value, function)
                if rank is False:
                    continue  # not an allocation
                found = reader.value(module, node.value, function, 0)
                if found is not None and found.array:
                    entries.append((found, rank))
        ranks = {rank for _, rank in entries} - {None}
        agreed = _agreed([e for e, _ in entries], yielding=True)
        if agreed is not None and len(ranks) <= 1:
            return agreed, (ranks.pop() if ranks else None)
        return None


def _assigned_calls(project: Project, module: PyModule) -> Dict[str, List[Tuple[ast.Assign, Optional[ast.AST]]]]:
    """Attribute name -> the assignments of a call to it in a module (``x.name = f(...)``),
    each with the function it is in."""
    functions = {id(call): function for call, function in _calls_in(project, module)}
    found: Dict[str, List[Tuple[ast.Assign, Optional[ast.AST]]]] = {}
    for node in tree_nodes(module.tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(
                node.targets[0], ast.Attribute) and isinstance(node.value, ast.Call):
            found.setdefault(node.targets[0].attr, []).append((node, functions.get(id(node.value))))
    return found


# methods of an array that keep its elements and say its new rank
_RESHAPING = ("ravel", "flatten", "reshape", "copy")


def _allocated_rank(module: PyModule, call: ast.Call, function):
    """The rank of the array an allocation makes where its shape says (``np.zeros((n, 3))``:
    2; ``np.zeros(n)``, ``np.zeros(self.N)``: a size, 1), None where it does not (a shape
    taken from elsewhere, a conversion); False where the call allocates nothing."""
    if isinstance(call.func, ast.Attribute) and call.func.attr == "astype":
        return None
    if isinstance(call.func, ast.Attribute) and call.func.attr in _RESHAPING and isinstance(call.func.value, ast.Call):
        # `np.tile(...).astype(int).ravel()`: an allocation reshaped on the way to its attribute
        made = _allocated_rank(module, call.func.value, function)
        if made is False or call.func.attr == "copy":
            return made
        if call.func.attr in ("ravel", "flatten"):
            return 1
        sizes = call.args[0].elts if len(call.args) == 1 and isinstance(call.args[0], ast.Tuple) else call.args
        if len(sizes) == 1 and not isinstance(sizes[0], (ast.Constant, ast.UnaryOp)):
            return None  # `reshape(shape)`: a shape taken from elsewhere
        return len(sizes) if sizes and not any(isinstance(e, ast.Starred) for e in sizes) else None
    name = module.dotted(call.func, Scope(module) if function is None else Scope(module).inner(function)) or ""
    last = name.rpartition(".")[2]
    if name.partition(".")[0] not in _LIBRARIES or not (last in _SIZED or last in _CONVERTING or last in _FILLED):
        return False
    if last not in _SIZED and last != "full":
        return 1 if last in ("arange", "linspace") else None
    shape = call.args[0] if call.args else _keyword(call, "shape")
    if isinstance(shape, ast.Name) and function is not None:
        assigned, _ = _assignments(function, shape.id)  # `shape = (n, 3)` first
        if len(assigned) == 1:
            shape = assigned[0]
    if isinstance(shape, (ast.Tuple, ast.List)):
        return len(shape.elts) if not any(isinstance(e, ast.Starred) for e in shape.elts) else None
    if isinstance(shape, ast.Constant):
        return 1 if type(shape.value) is int else None
    if isinstance(shape, ast.Attribute) and shape.attr == "shape" or isinstance(shape, ast.Subscript):
        return None  # another array's shape, or a part of one
    return 1 if isinstance(shape, (ast.Name, ast.Attribute, ast.BinOp)) else None
