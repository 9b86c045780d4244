"""Run the pipeline over paths: frontends -> IR -> analysis -> rules -> findings."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional, Sequence

from . import rules
from .analysis.program import KernelAnalysis, Program
from .findings import Finding, merge
from .frontends.numba_cuda import CompiledKernel, FileResult
from .ir.reader import parse_module
from .rules.base import KernelContext
from .source import SourceFile

PYTHON_SUFFIXES = (".py",)
_SKIP_DIRS = {"__pycache__", "node_modules", "site-packages", "dist-packages", "build", "dist"}
# Library code numba compiles into a kernel: findings walk out of it to the user's call site.
_LIBRARY_PARTS = (os.sep + "numba" + os.sep, os.sep + "numba_cuda" + os.sep, os.sep + "llvmlite" + os.sep)


@dataclass
class Options:
    arch: str = "sm_90"
    timeout: float = 60.0
    jobs: Optional[int] = None
    select: Optional[Sequence[str]] = None
    ignore: Sequence[str] = ()
    signatures: Dict[str, Dict[str, List[str]]] = field(default_factory=dict)


@dataclass
class KernelStats:
    path: str
    kernel: str
    signature: str
    numba_seconds: float
    kernlint_seconds: float


@dataclass
class Report:
    findings: List[Finding] = field(default_factory=list)
    stats: List[KernelStats] = field(default_factory=list)
    files: int = 0

    @property
    def kernels(self) -> int:
        return len(self.stats)


def discover(paths: Sequence[str]) -> List[str]:
    """Python files under the given paths (files as given, directories walked)."""
    found: List[str] = []
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(
                    d for d in dirs
                    if not d.startswith(".") and d not in _SKIP_DIRS
                    and not os.path.exists(os.path.join(root, d, "pyvenv.cfg"))
                )
                found.extend(os.path.join(root, f) for f in sorted(files) if f.endswith(PYTHON_SUFFIXES))
        else:
            found.append(path)
    return [os.path.abspath(p) for p in dict.fromkeys(found)]


def mentions_cuda(path: str) -> bool:
    """Files that never mention cuda define no numba.cuda kernels: skip their import."""
    try:
        with open(path, "rb") as handle:
            return b"cuda" in handle.read()
    except OSError:
        return True  # let the frontend report why it cannot be read


def is_user_path(path: str) -> bool:
    return bool(path) and not any(part in path for part in _LIBRARY_PARTS)


def analyse_kernel(
    compiled: CompiledKernel,
    source: Optional[SourceFile],
    user_path: Callable[[str], bool] = is_user_path,
) -> List[Finding]:
    program = Program([parse_module(text) for text in compiled.modules])
    analysis = KernelAnalysis(program, compiled.entry)
    context = KernelContext(compiled.info, analysis, source, user_path)
    findings: List[Finding] = []
    for rule in rules.IR_RULES:
        findings.extend(rule.check(context))
    return findings


def _selected(finding: Finding, options: Options) -> bool:
    code = finding.code
    if options.select and not any(code.startswith(s) for s in options.select):
        return False
    return not any(code.startswith(i) for i in options.ignore)


def check_results(results: Iterable[FileResult], options: Options, report: Report) -> Report:
    collected: List[Finding] = []
    for result in results:
        report.files += 1
        collected.extend(result.diagnostics)
        source: Optional[SourceFile] = None
        if result.kernels:
            try:
                source = SourceFile.read(result.path)
            except (OSError, UnicodeDecodeError, SyntaxError):
                source = None
        for compiled in result.kernels:
            started = time.process_time()
            collected.extend(analyse_kernel(compiled, source))
            report.stats.append(
                KernelStats(
                    path=result.path,
                    kernel=compiled.info.name,
                    signature=compiled.info.signature,
                    numba_seconds=compiled.compile_seconds,
                    kernlint_seconds=time.process_time() - started,
                )
            )
    report.findings = merge([f for f in collected if _selected(f, options)])
    return report


def check_paths(paths: Sequence[str], options: Options) -> Report:
    from .frontends.worker import compile_files

    files = [p for p in discover(paths) if mentions_cuda(p)]
    results = compile_files(files, options.arch, options.timeout, options.jobs, options.signatures)
    return check_results(results, options, Report())
