"""Where a lazy kernel's signatures come from,, besides its decorator:

1. ``# kernlint: sig=`` comments and the configuration (read by the frontend and config);
2. **launch sites**: ``k[grid, block](args)`` anywhere in the checked files or elsewhere in
   the kernel's project, with every argument's type known statically (``launch_sites``);
3. **recorded** signatures: ``kernlint record -- COMMAND`` runs the user's program and writes
   the types of every launch to ``kernlint-signatures.toml``, which ``check`` reads (``recorded``);
4. the **kernel body**, last (with what the host code around its launches says of the arrays:
   ``evidence``, and the widths its package allocates with: ``allocations``): array ranks from
   indexing, integer arrays from their use as
   indices, scalars from their use; tried in a few variants until numba types one
   (``inference``).

Each signature carries its source (``eager``, ``comment``, ``config``, ``launch-site``,
``recorded``, ``inferred``). Everything here reads syntax; nothing is imported or run.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence

from ..project import Project
from .allocations import package_files
from .inference import inferred_by_kernel
from .launch_sites import launch_signatures
from .recorded import read_recorded
from .table import PartialLaunches, Signatures, Uncached, add


def gather(project: Project, checked: Sequence[str], configured: Dict[str, Dict[str, List[str]]],
           recorded_file: Optional[str] = None, facts=Uncached, asked: Sequence[str] = ()) -> Signatures:
    """Every signature the checked files' kernels get besides their decorators and comments:
    configuration, launch sites, the recorded file, and (tried last) the kernel body.
    ``facts`` keeps what is read from each file between runs; ``asked``: every file the
    user asked to check (those that launch a kernel are read for its launches)."""
    found: Signatures = {}
    for path, kernels in configured.items():
        for kernel, signatures in kernels.items():
            for signature in signatures:
                add(found, path, kernel, signature, "config")
    partial: PartialLaunches = {}
    for path, kernels in launch_signatures(project, checked, partial, facts, asked).items():
        for kernel, entries in kernels.items():
            for signature, source in entries:
                add(found, path, kernel, signature, source)
    if recorded_file:
        for path, kernels in read_recorded(recorded_file).items():
            for kernel, entries in kernels.items():
                for signature, source in entries:
                    add(found, path, kernel, signature, source)
    for path in checked:
        module = project.module(path) if path.endswith(".py") else None
        if module is None:
            continue
        given = {kernel.qualname: partial.get((module.path, kernel.qualname), []) for kernel in module.kernels}
        # a file added to the package may change the widths it allocates with: the files are the key too
        inferred = facts.get("inferred", path, lambda: inferred_by_kernel(project, module, given),
                             extra=[given, package_files(path)])
        for qualname, candidates in inferred.items():
            for signature, variant in candidates:
                found.setdefault(path, {}).setdefault(qualname, []).append((signature, f"inferred:{variant}"))
    return found
