"""Signatures from launch sites: ``k[grid, block](args)`` anywhere in the checked files or
elsewhere in the kernel's project, with every argument's type known statically (the host
reader, ``python.host``)."""

from __future__ import annotations

from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from ...findings import launch_origin
from ..host.reader import file_host_facts
from ..project import Project
from ..syntax import KernelDef
from .table import RANK_UNKNOWN, PartialLaunches, Signatures, Uncached, add


def launch_signatures(project: Project, checked: Sequence[str],
                      partial: Optional[PartialLaunches] = None, facts=Uncached) -> Signatures:
    """Signatures the launch sites give the kernels of the checked files. Launches are read
    from the checked files and from the other Python files of each kernel's project that
    mention one of its kernels by name. Launches that give only some argument types go into
    ``partial``: inference takes those types from them."""
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
    readers = list(dict.fromkeys([p for p in checked if p.endswith(".py")] + _mentioning(
        project, sorted({path for path, _ in kernels}), names)))
    for path in readers:
        for kernel_path, qualname, signature, types, line in facts.get("launches", path,
                                                                       lambda: _launches(project, path)):
            if (kernel_path, qualname) not in kernels:
                continue
            if signature is not None:
                add(found, kernel_path, qualname, signature, launch_origin(path, line))
            elif partial is not None and types is not None:
                partial.setdefault((kernel_path, qualname), []).append(types)
    return found


def _launches(project: Project, path: str) -> List[Tuple[str, str, Optional[str], Optional[List[Optional[str]]], int]]:
    """(kernel's file, kernel, signature or None, argument types where the launch gives only
    some of them, the launch's line) for each launch in the file of a kernel kernlint found."""
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
                      if launch.signature is None and some else None, launch.place.line))
    return found


def _mentioning(project: Project, checked: Iterable[str], names: Set[str]) -> List[str]:
    """Python files of the checked files' projects whose text names one of the kernels."""
    found: Set[str] = set()
    for path in checked:
        for name in names:
            if name:
                found.update(project.files_naming(path, name))
    return sorted(found)
