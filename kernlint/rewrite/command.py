"""``kernlint rewrite``: rewrite every kernel with fixable KL101 findings, verify, write."""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple

from ..analysis.program import KernelAnalysis, Program
from ..compile.numba_cuda import CompiledKernel, parse_cc
from ..engine import Options, discover, kernel_signatures, say_nvvm_once, worth_checking
from ..findings import Finding
from ..fsutil import write_atomic
from ..ir.reader import parse_module
from ..analysis.conversions import checked_conversions
from .edit import ModuleEdit, dialect_of, plan, rewrite_module
from .verify import VerificationError, verify


@dataclass
class KernelRewrite:
    path: str
    kernel: str
    signature: str
    original: List[str]
    rewritten: List[str]
    edits: List[ModuleEdit] = field(default_factory=list)
    ptx: str = ""
    refused: str = ""  # why the rewrite was not written
    unfixable: int = 0  # checked conversions whose guards test other things too
    unguarded: int = 0  # checked conversions whose guards were removed

    @property
    def conversions(self) -> int:
        return sum(edit.rewritten_conversions for edit in self.edits)

    @property
    def removed_blocks(self) -> int:
        return sum(edit.removed_blocks for edit in self.edits)


def rewrite_kernel(compiled: CompiledKernel, mode: str, cc) -> Optional[KernelRewrite]:
    """Rewrite one compiled kernel; None when it has no checked conversion."""
    program = Program([parse_module(text) for text in compiled.modules])
    analysis = KernelAnalysis(program, compiled.entry)
    checked = list(checked_conversions(analysis))
    if not checked:
        return None
    targets = list(compiled.target_modules)
    result = KernelRewrite(
        path=compiled.info.path,
        kernel=compiled.info.name,
        signature=compiled.info.signature,
        original=targets,
        rewritten=list(targets),
        unfixable=sum(1 for c in checked if not c.fixable),
        unguarded=sum(1 for c in checked if c.fixable),
    )
    index = {id(module): number for number, module in enumerate(program.modules)}
    try:
        for module, plans in plan(checked).items():
            number = index[id(module)]
            edit = rewrite_module(targets[number], list(plans.values()), mode)
            edit.index = number
            result.edits.append(edit)
            result.rewritten[number] = edit.rewritten
        result.ptx = verify(result.rewritten, dialect_of(targets[0]), cc, compiled.options)
    except (VerificationError, KeyError, ValueError) as exc:
        result.refused = str(exc)
        result.rewritten = list(targets)
    return result


def slug(signature: str) -> str:
    """A file-name part; a C++ parameter list keeps its pointers and references apart
    (``long*`` and ``long`` are two overloads)."""
    marked = signature.replace("*", " p ").replace("&", " r ")
    return re.sub(r"[^A-Za-z0-9]+", "_", marked).strip("_") or "nosig"


def output_base(outdir: str, rewrite: KernelRewrite) -> str:
    stem = os.path.splitext(os.path.basename(rewrite.path))[0]
    return os.path.join(outdir, stem, f"{rewrite.kernel}-{slug(rewrite.signature)}")


def write_outputs(outdir: str, rewrite: KernelRewrite) -> List[str]:
    base = output_base(outdir, rewrite)
    written = []
    for number, text in enumerate(rewrite.rewritten):
        path = f"{base}.ll" if number == 0 else f"{base}.m{number}.ll"
        write_atomic(path, text)
        written.append(path)
    if rewrite.ptx:
        write_atomic(f"{base}.ptx", rewrite.ptx)
        written.append(f"{base}.ptx")
    return written


def unified_diff(rewrite: KernelRewrite) -> str:
    chunks = []
    label = f"{os.path.basename(rewrite.path)}::{rewrite.kernel}({rewrite.signature})"
    for edit in rewrite.edits:
        chunks.extend(difflib.unified_diff(
            edit.original.splitlines(keepends=True),
            edit.rewritten.splitlines(keepends=True),
            fromfile=f"a/{label}/module{edit.index}.ll",
            tofile=f"b/{label}/module{edit.index}.ll",
        ))
    return "".join(chunks)


def rewrite_paths(paths: Sequence[str], options: Options, mode: str) -> Tuple[List[KernelRewrite], List[Finding]]:
    """The rewrites of every kernel with checked conversions, and why any kernel or file could
    not be compiled (those kernels are not rewritten: the user must hear of them)."""
    from ..workers.worker import compile_files

    cc = parse_cc(options.arch)
    from ..python.project import Project

    project = Project(options.frontend)
    discovered = discover(paths, options.target, options.discovery)
    files = [p for p in discovered if worth_checking(p, project)]
    signatures = kernel_signatures(project, files, options, asked=discovered)
    rewrites: List[KernelRewrite] = []
    failures: List[Finding] = []
    for result in compile_files(files, options.arch, options.timeout, options.jobs,
                                signatures, runnable=True, offload_arch=options.offload_arch,
                                settings=options.frontend):
        # every kernel not rewritten for want of a compile, KL903's (no signature) too: named, not counted silently
        failures.extend(f for f in result.diagnostics if f.code in ("KL901", "KL902", "KL903", "KL904", "KL905"))
        for compiled in result.kernels:
            rewrite = rewrite_kernel(compiled, mode, cc)
            if rewrite is not None:
                rewrites.append(rewrite)
    return (sorted(rewrites, key=lambda r: (r.path, r.kernel, r.signature)),
            say_nvvm_once(sorted(failures, key=lambda f: (f.path, f.line, f.column))))
