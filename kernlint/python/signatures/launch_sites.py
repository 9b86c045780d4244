"""Signatures from launch sites: ``k[grid, block](args)`` anywhere in the checked files or
elsewhere in the kernel's project, with every argument's type known statically (the host
reader, ``python.host``).

A launch whose arrays have known elements but ranks the host code does not say
(``cupy.empty(data.shape, dtype="f4")`` of a parameter ``data``) still gives the signature
where the kernel's body indexes each such array with one number of subscripts
(``out[i, j]``: two): the launch's types, the body's ranks. Anything less goes to inference
as the types some launches give.

An attribute that holds None until a method stores an array in it (``self.out = None`` in
``__init__``) launches as that array: numba cannot index None, so the array is what such a
launch runs with. Where the kernel compares the parameter with None, None is a launch of its
own, and the launch gives no signature."""

from __future__ import annotations

import ast
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from ...findings import launch_origin
from ..host.reader import file_host_facts
from ..project import Project
from ..syntax import KernelDef, child_nodes, walk_nodes
from .inference import inferred_signatures
from .table import RANK_UNKNOWN, PartialLaunches, Signatures, Uncached, add


def launch_signatures(project: Project, checked: Sequence[str],
                      partial: Optional[PartialLaunches] = None, facts=Uncached,
                      asked: Sequence[str] = ()) -> Signatures:
    """Signatures the launch sites give the kernels of the checked files. Launches are read
    from the checked files, from the other Python files of each kernel's project that
    mention one of its kernels by name, and from the files the user asked to check
    (``asked``) that do: a script beside a folder of kernel modules, in a checkout without a
    project marker, is the kernels' host code. Launches that give only some argument types go
    into ``partial``: inference takes those types from them."""
    kernels: Dict[Tuple[str, str], KernelDef] = {}
    names: Set[str] = set()
    for path in checked:
        module = project.module(path) if path.endswith(".py") else None
        if module is None:
            continue
        for kernel in module.kernels:
            kernels[(module.path, kernel.qualname)] = kernel
            names.update(kernel.names + [kernel.name])
    found: Signatures = {}
    if not kernels:
        return found
    completed: Dict[tuple, Optional[str]] = {}
    readers = list(dict.fromkeys([p for p in checked if p.endswith(".py")] + _mentioning(
        project, sorted({path for path, _ in kernels}), names) + [
        p for p in asked if p.endswith(".py") and project.names_any(p, names)]))
    for path in readers:
        for kernel_path, qualname, signature, types, line, optional in facts.get(
                "launches", path, lambda: _launches(project, path)):
            if (kernel_path, qualname) not in kernels:
                continue
            if optional and _none_tested(kernels[(kernel_path, qualname)], optional):
                continue  # the kernel takes None there too: the array is one of the types it runs with
            if signature is None and types is not None:
                key = (kernel_path, qualname, tuple(types))
                if key not in completed:  # a kernel launched alike in many places: read its body once
                    completed[key] = with_body_ranks(kernels[(kernel_path, qualname)], types)
                signature = completed[key]
                if partial is not None:
                    partial.setdefault((kernel_path, qualname), []).append(types)
            if signature is not None:
                add(found, kernel_path, qualname, signature, launch_origin(path, line))
    return found


def _launches(project: Project, path: str
              ) -> List[Tuple[str, str, Optional[str], Optional[List[Optional[str]]], int, Tuple[int, ...]]]:
    """(kernel's file, kernel, signature or None, argument types where the launch gives only
    some of them, the launch's line, the arguments that may also be None) for each launch in
    the file of a kernel kernlint found."""
    facts = file_host_facts(project, path)
    if facts is None:
        return []
    found = []
    for launch in facts.launches + facts.passed_launches:
        if launch.kernel is None:
            continue
        some = any(a.type or a.dtype for a in launch.args) and not any(a.name.startswith("*") for a in launch.args)
        # an array of known elements but unknown rank: `float32[?]`, its rank from the body
        found.append((launch.kernel.path, launch.kernel.qualname, launch.signature,
                      [a.type or (f"{a.dtype}{RANK_UNKNOWN}" if a.dtype else None) for a in launch.args]
                      if launch.signature is None and some else None, launch.place.line,
                      tuple(at for at, a in enumerate(launch.args) if a.optional)))
    return found


def _none_tested(kernel: KernelDef, indices: Sequence[int]) -> bool:
    """Whether the kernel compares one of the parameters at ``indices`` with None (``if b is
    not None:``): numba compiles it for None too, so None is a launch of its own there."""
    params = [a.arg for a in kernel.node.args.posonlyargs + kernel.node.args.args]
    names = {params[i] for i in indices if i < len(params)}
    for node in walk_nodes(kernel.node):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(isinstance(o, ast.Constant) and o.value is None for o in operands) and any(
                    isinstance(o, ast.Name) and o.id in names for o in operands):
                return True
    return False


def _mentioning(project: Project, checked: Iterable[str], names: Set[str]) -> List[str]:
    """Python files of the checked files' projects whose text names one of the kernels."""
    found: Set[str] = set()
    for path in checked:
        for name in names:
            if name:
                found.update(project.files_naming(path, name))
    return sorted(found)


def with_body_ranks(kernel: KernelDef, types: Sequence[Optional[str]]) -> Optional[str]:
    """The signature a launch gives where it knows every argument's type but some arrays' ranks
    (``float32[?]``): each of those ranks the one the kernel's body indexes the array with
    everywhere; None where a type is unknown or the body does not say one rank."""
    if any(t is None for t in types):
        return None
    params = [a.arg for a in kernel.node.args.posonlyargs + kernel.node.args.args]
    if len(params) != len(types) or kernel.node.args.vararg or kernel.node.args.kwonlyargs:
        return None
    ranks = _ranks_indexed(kernel.node, lambda expr: kernel.module.dotted(expr, kernel.scope))
    unknown = [p for p, t in zip(params, types) if t.endswith(RANK_UNKNOWN)]
    if any(len(ranks.get(p, ())) != 1 for p in unknown):
        return None
    candidates = inferred_signatures(kernel, [list(types)])
    if not candidates:
        return None
    signature = candidates[0][0]
    # the body's reading of each array must be the rank it indexes with (and the launch's elements)
    texts = _argument_texts(signature)
    if texts is None or len(texts) != len(params):
        return None
    for param, launched, text in zip(params, types, texts):
        if launched.endswith(RANK_UNKNOWN):
            dtype, rank = launched[:-len(RANK_UNKNOWN)], next(iter(ranks[param]))
            if not (text.startswith(dtype + "[") and text.count(",") + 1 == rank):
                return None
        elif text != launched:
            return None
    return signature


def _ranks_indexed(function: ast.AST, dotted=lambda expr: None) -> Dict[str, Set[int]]:
    """For each name the function subscripts (``a[i, j]``, ``a[i]``, ``a[1:-1, j]``, and
    chained: ``a[k][j][i]``: three) or walks (``for v in a:``): the numbers of subscripts it is
    indexed with. A name rebound in the body is left out. ``dotted`` names what a callee refers to."""
    ranks: Dict[str, Set[int]] = {}
    rebound: Set[str] = set()
    iterated: List[Tuple[str, str]] = []  # (array, loop variable) of `for v in a:`
    loop_targets: Set[int] = set()  # their targets: bound by the walk, not rebound
    nested = {id(node.value) for node in walk_nodes(function)
              if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Subscript)}
    for node in walk_nodes(function):
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Name) and isinstance(node.target, ast.Name):
            iterated.append((node.iter.id, node.target.id))
            loop_targets.add(id(node.target))
        if isinstance(node, ast.Subscript) and id(node) not in nested:
            count, base = 0, node
            while isinstance(base, ast.Subscript) and count is not None:
                one = _subscripts(base.slice)
                count = None if one is None else count + one
                base = base.value
            if count is not None and isinstance(base, ast.Name):
                ranks.setdefault(base.id, set()).add(count)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and id(node) not in loop_targets:
            rebound.add(node.id)
    # `for v in a:` walks a's first axis: a has one more dimension than v, and a v that is
    # neither indexed nor walked in turn is a number (numba iterates arrays only)
    for array, variable in iterated:
        if variable in rebound:
            continue
        if variable in ranks:
            inner = ranks[variable]
        elif variable in {a for a, _ in iterated} or _read_as_array(function, variable, dotted):
            continue
        else:
            inner = {0}
        ranks.setdefault(array, set()).update(rank + 1 for rank in inner)
    return {name: found for name, found in ranks.items() if name not in rebound}


def _subscripts(index: ast.expr) -> Optional[int]:
    """How many dimensions one ``[...]`` indexes; None where it does not say (``...``, ``*idx``)."""
    if isinstance(index, ast.Tuple):
        if any(isinstance(e, ast.Starred) or isinstance(e, ast.Constant) and e.value is Ellipsis
               for e in index.elts):
            return None
        return len(index.elts)
    if isinstance(index, ast.Constant) and index.value is Ellipsis:
        return None
    return 1


# callees that take numbers only: an argument of theirs is a scalar
_NUMBER_MODULES = ("math.", "cmath.")
_NUMBER_BUILTINS = frozenset({"builtins.abs", "builtins.min", "builtins.max", "builtins.float", "builtins.int",
                              "builtins.round", "builtins.bool", "builtins.complex"})


def _read_as_array(function: ast.AST, name: str, dotted) -> bool:
    """May the function read ``name`` as an array? Only where every read of it is a number's:
    an operand of arithmetic or a comparison, an index, an argument of ``math``'s functions
    or a numeric builtin; anything else (``v.shape``, ``t = v``, a call of the user's) may
    take it whole."""
    parents = {id(child): node for node in walk_nodes(function) for child in child_nodes(node)}
    for node in walk_nodes(function):
        if not (isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)):
            continue
        parent = parents.get(id(node))
        if isinstance(parent, (ast.Compare, ast.BinOp, ast.UnaryOp, ast.BoolOp)):
            continue
        if isinstance(parent, ast.AugAssign) and parent.value is node:
            continue
        if isinstance(parent, ast.Subscript) and parent.slice is node or isinstance(parent, ast.Tuple) and isinstance(
                parents.get(id(parent)), ast.Subscript) and parents[id(parent)].slice is parent:
            continue
        if isinstance(parent, ast.Call) and node in parent.args:
            callee = dotted(parent.func) or ""
            if callee.startswith(_NUMBER_MODULES) or callee in _NUMBER_BUILTINS:
                continue
        return True
    return False


def _argument_texts(signature: str) -> Optional[List[str]]:
    """``void(float32[:, ::1], int64)`` -> its argument types, split at top-level commas."""
    if not signature.startswith("void(") or not signature.endswith(")"):
        return None
    inner, texts, depth, start = signature[5:-1], [], 0, 0
    for at, char in enumerate(inner):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == "," and depth == 0:
            texts.append(inner[start:at].strip())
            start = at + 1
    if inner.strip():
        texts.append(inner[start:].strip())
    return texts
