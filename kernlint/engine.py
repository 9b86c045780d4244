"""Run the pipeline over paths: read and compile (python, compile, hip, workers) -> IR -> analysis
-> rules -> findings."""

from __future__ import annotations

import os
import re
import time
from dataclasses import asdict, dataclass, field, replace
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from . import rules
from .analysis.program import KernelAnalysis, Program
from .compile.numba_cuda import CompiledKernel, FileResult
from .compile.toolchain import NVVM_EXTRAS
from .findings import INTERNAL_ERROR, TIMED_OUT, Finding, internal_error, invalid_ir, kernlint_frames, merge
from .discovery import Rules as DiscoveryRules
from .discovery import discover as discover_files
from .ir.reader import IRSyntaxError, parse_module
from .python.project import FrontendSettings, Project
from .rules.base import KernelContext
from .source import SourceFile, decode_source, read_bytes, suffixes
from .suppress import is_suppressed

# Library code numba compiles into a kernel: findings walk out of it to the user's call site.
_LIBRARY_PARTS = (os.sep + "numba" + os.sep, os.sep + "numba_cuda" + os.sep, os.sep + "llvmlite" + os.sep)


@dataclass
class Options:
    arch: str = "sm_90"
    timeout: float = 60.0
    jobs: Optional[int] = None
    select: Optional[Sequence[str]] = None
    ignore: Sequence[str] = ()
    preview: bool = False  # run the rules still in preview (rules.PREVIEW_CODES)
    explicit_preview_rules: bool = False  # ... only those selected by their whole code
    per_file_ignores: Callable[[str], Sequence[str]] = lambda path: ()
    signatures: Dict[str, Dict[str, List[str]]] = field(default_factory=dict)  # from the configuration
    signatures_file: Optional[str] = None  # kernlint-signatures.toml (kernlint record); None: not read
    cache_root: Optional[str] = None  # where .kernlint_cache/ lives; None: no cache
    target: str = "auto"  # cuda: numba.cuda Python; rocm: HIP and IR files; auto: both
    offload_arch: str = "gfx90a"
    resources: bool = False  # measure each finding's cost (registers, stack) with the backends
    frontend: FrontendSettings = field(default_factory=FrontendSettings)  # how Python files are read
    discovery: DiscoveryRules = field(default_factory=DiscoveryRules)  # exclude, extend-exclude, .gitignore


@dataclass
class KernelStats:
    path: str
    kernel: str
    signature: str
    numba_seconds: float
    kernlint_seconds: float
    signature_source: str = ""
    signature_from: str = ""  # launch-site: the launch that gave it (`path:line`); inferred: the host evidence taken
    variant: str = ""  # a factory-made kernel: the parameter values it was made with
    host: bool = False  # the host code of a HIP file (its compile and the host rules), not a kernel
    line: int = 0  # its def line: kernels of one file may share a name
    standins: List[str] = field(default_factory=list)  # the values it was compiled with stand-ins for


@dataclass
class Report:
    findings: List[Finding] = field(default_factory=list)
    stats: List[KernelStats] = field(default_factory=list)
    files: int = 0
    skipped: List[Finding] = field(default_factory=list)  # KL903: kernels with no signature (before filtering)
    discovered: int = 0  # source files found under the paths, after exclusions
    excluded: Dict[str, str] = field(default_factory=dict)  # paths left out -> why

    @property
    def incomplete(self) -> bool:
        """kernlint failed on some construct (KL905): exit 2, whatever else was found."""
        return any(f.code == INTERNAL_ERROR for f in self.findings)

    @property
    def kernels(self) -> int:
        return sum(1 for s in self.stats if not s.host)


def discover(paths: Sequence[str], target: str = "auto", rules: Optional[DiscoveryRules] = None) -> List[str]:
    """Sources under the given paths (files as given, directories walked for the target's kinds,
    less what ``exclude``, ``extend-exclude`` and ``.gitignore`` leave out), each once."""
    return discover_files(paths, suffixes(target), rules).files


def worth_checking(path: str, project: Optional[Project] = None) -> bool:
    """Python files go to the compile workers when they define kernels or device functions
    (read statically: wrappers and aliases included), or cannot be read while mentioning
    cuda (to be reported as KL901). With ``--import-modules``, every file that mentions cuda."""
    if not path.endswith(".py"):
        return True
    if project is not None and not project.settings.import_modules:
        module = project.module(path)
        if module is not None:
            return bool(module.kernels)
    try:
        data = read_bytes(path)
    except OSError:
        return True  # let the frontend report why it cannot be read
    if b"cuda" in data or b"\0" in data:
        return True
    try:
        decode_source(data)
    except (UnicodeDecodeError, SyntaxError, LookupError):
        return True
    return False


# Headers of the toolchains (HIP's runtime, clang's wrappers): findings walk out of them too.
_SYSTEM_PREFIXES = ("/usr/include/", "/usr/lib/", "/usr/local/include/", "/opt/rocm", "/usr/share/")


def is_user_path(path: str) -> bool:
    return (bool(path) and not any(part in path for part in _LIBRARY_PARTS)
            and not path.startswith(_SYSTEM_PREFIXES))


def run_rules(compiled: CompiledKernel, source: Optional[SourceFile],
              user_path: Callable[[str], bool] = is_user_path) -> List[Finding]:
    """The rules over one kernel's IR; IR the reader cannot follow raises IRSyntaxError."""
    program = Program([parse_module(text) for text in compiled.modules])
    analysis = KernelAnalysis(program, compiled.entry)
    context = KernelContext(compiled.info, analysis, source, user_path)
    findings: List[Finding] = []
    for rule in rules.IR_RULES:
        findings.extend(rule.check(context))
    return findings


def analyse_kernel(
    compiled: CompiledKernel,
    source: Optional[SourceFile],
    user_path: Callable[[str], bool] = is_user_path,
    debug: bool = False,
) -> List[Finding]:
    """Run every IR rule on one kernel. IR kernlint cannot follow gives a KL904 finding, a
    failure of the analysis or a rule a KL905 (kernlint's bug), never an exception: one
    kernel must not stop the run."""
    info = compiled.info
    try:
        return run_rules(compiled, source, user_path)
    except RecursionError:
        reason = "the IR nests too deeply to analyse"
    except Exception as exc:  # noqa: BLE001 - reported as a diagnostic with the kernel's location
        if debug:
            raise
        ours = [module for module in kernlint_frames(exc) if module]
        if not (isinstance(exc, IRSyntaxError) or ours and ours[-1].startswith("ir" + os.sep)):  # not the IR reader
            finding = internal_error(info.path, info.line, info.column, f"analysing kernel `{info.name}`", exc,
                                     kernel=info.name)
            finding.signature = info.signature
            return [finding]
        line = getattr(exc, "lineno", None)
        reason = f"{type(exc).__name__}: {exc}" + (f" (IR line {line + 1})" if line is not None else "")
    finding = invalid_ir(info.path, info.line, info.column, f"kernel `{info.name}` could not be analysed: {reason}",
                         kernel=info.name)
    finding.signature = info.signature
    return [finding]


# What only a compile finds: the kernel rules and the diagnostics of compiling and reading IR.
_COMPILED_CODES = tuple(rule.CODE for rule in rules.IR_RULES) + ("KL902", "KL903", "KL904", "KL905")


def compiles_kernels(options: Options) -> bool:
    """Whether a selected rule needs kernels compiled: ``--select KL5`` (the host rules, read
    from the syntax tree) compiles no Python kernel and no IR file; HIP files still compile,
    their host rules read the host side's IR."""
    def selected(code: str) -> bool:
        if options.select and not any(code.startswith(s) for s in options.select):
            return False
        return not any(code.startswith(i) for i in options.ignore)

    return any(selected(code) for code in _COMPILED_CODES)


def _selected(finding: Finding, options: Options) -> bool:
    code = finding.code
    if not rules.enabled(code, options.select, options.preview, options.explicit_preview_rules):
        return False
    ignored = list(options.ignore) + list(options.per_file_ignores(finding.path))
    return not any(code.startswith(i) for i in ignored)


def analyse_result(result: FileResult, options: Optional[Options] = None,
                   kernels=None) -> Tuple[List[Finding], List[KernelStats]]:
    """Findings (diagnostics included) and statistics for one compiled file; with a
    KernelCache, those of the kernels the worker did not compile come from it, and each
    compiled kernel's are stored in it."""
    findings: List[Finding] = list(result.diagnostics)
    stats: List[KernelStats] = []
    if kernels is not None:
        from .cache import finding_from_dict

        for key, info in result.reused:
            entry = kernels.load(key)
            if entry is None:  # removed since the worker was told of it: report it as not checked
                findings.append(internal_error(info.path, info.line, info.column,
                                               f"reading kernel `{info.name}`'s cached findings",
                                               RuntimeError("the cache entry disappeared during the run; "
                                                            "run again"), kernel=info.name))
                continue
            findings.extend(finding_from_dict(f) for f in entry["findings"])
            stats.append(KernelStats(**entry["stats"]))
    source = SourceFile.read_or_none(result.path) if result.kernels else None
    for compiled in result.kernels:
        started = time.process_time()
        found = analyse_kernel(compiled, source, debug=options is not None and options.frontend.debug)
        if options is not None and options.resources:
            from .compile.numba_cuda import parse_cc
            from .resources import attach

            attach(found, compiled, parse_cc(options.arch), options.offload_arch)
        for finding in found:
            if finding.kernel == compiled.info.name and finding.signature == compiled.info.signature:
                finding.signature_source = compiled.info.signature_source
                finding.signature_from = compiled.info.signature_from
                finding.standins = list(compiled.info.standins)
        findings.extend(found)
        stats.append(KernelStats(
            path=result.path,
            kernel=compiled.info.name,
            line=compiled.info.line,
            signature=compiled.info.signature,
            numba_seconds=compiled.compile_seconds,
            kernlint_seconds=time.process_time() - started,
            signature_source=compiled.info.signature_source,
            signature_from=compiled.info.signature_from,
            variant=compiled.info.variant,
            standins=list(compiled.info.standins),
        ))
        if kernels is not None and compiled.cache_key and not any(
                f.code.startswith("KL90") for f in found):
            kernels.store(compiled.cache_key, found, asdict(stats[-1]))
    if result.host_facts is not None:  # HIP: the host rules over the facts its host IR gave
        started = time.process_time()
        findings.extend(_host_rules(result.host_facts, options is not None and options.frontend.debug))
        stats.append(KernelStats(path=result.path, kernel="(host code)", signature="",
                                 numba_seconds=result.host_seconds,
                                 kernlint_seconds=time.process_time() - started, host=True))
    return findings, stats


Progress = Callable[[int, int, str], None]


def host_checked(discovered: Sequence[str], project: Optional[Project] = None) -> List[str]:
    """Python files whose host code the host rules read: those that mention CUDA or CuPy, or
    launch (kernels imported from the project's other modules); with ``project``, also those
    whose loops call methods of objects of a package that launches (a training script over a
    network whose layers launch: what each step costs is reported at its call there)."""
    read, bases = [], set()
    for path in discovered:
        if not path.endswith(".py"):
            continue
        try:
            data = read_bytes(path)
        except OSError:
            continue
        gpu = b"cuda" in data or b"cupy" in data or bool(_LAUNCH_BYTES.search(data))
        if gpu:
            bases.update(name.rsplit(b".", 1)[-1] for name in _BASES.findall(data))
        read.append((path, gpu, () if gpu else set(_CLASSES.findall(data))))
    # a base class whose time loop calls methods that GPU subclasses override names no GPU
    # library itself: its file is read too (what the overrides cost is reported at its calls)
    return [path for path, gpu, classes in read if gpu or classes & bases or project is not None and _drives(
        project, path)]


def _drives(project: Project, path: str) -> bool:
    from .python.host.sites import drives_kernels

    module = project.module(path)
    return module is not None and drives_kernels(project, module)


# `class GpuEngine(Engine):`, `class GpuEngine(base.Engine, Mixin):`: the first base's name
_BASES = re.compile(rb"^\s*class\s+\w+\s*\(\s*([\w.]+)", re.MULTILINE)
_CLASSES = re.compile(rb"^\s*class\s+(\w+)", re.MULTILINE)


# `kernel[grid, block](`: kernels imported from elsewhere (a comma: not `handlers[key](...)`)
_LAUNCH_BYTES = re.compile(rb"\w\[[^\]\n]*,[^\]\n]*\]\(")


def host_findings(project: Project, path: str) -> List[Finding]:
    """The host rules (KL5xx) over one Python file: syntax only, nothing compiled or run."""
    from .python.host.reader import file_host_facts

    facts = file_host_facts(project, path)
    if facts is None:
        return []
    findings = _host_rules(facts, project.settings.debug)
    for finding in findings:
        finding.message = project.as_written(finding.message, finding.path, finding.line)
    return findings


def _host_rules(facts, debug: bool) -> List[Finding]:
    """Every host rule over one file's facts; a rule that fails is a KL905, the others still run."""
    findings: List[Finding] = []
    for rule in rules.HOST_RULES:
        try:
            findings.extend(rule.check_host(facts))
        except Exception as exc:  # noqa: BLE001 - kernlint's bug: located at the file, the run goes on
            if debug:
                raise
            findings.append(internal_error(facts.path, 1, 1, f"running {rule.CODE} over the file's host code", exc))
    return findings


def kernel_signatures(project: Project, files: Sequence[str], options: Options, facts=None,
                      asked: Sequence[str] = ()) -> Dict:
    """Signatures beyond the decorators and comments, for the checked files' kernels (``facts``:
    what is read from each file, kept between runs; ``asked``: every file the run was given,
    read for launches too)."""
    from .python.signatures.gather import gather
    from .python.signatures.table import Uncached

    if options.frontend.import_modules:
        return {path: {name: [(s, "config") for s in sigs] for name, sigs in kernels.items()}
                for path, kernels in options.signatures.items()}
    from .config import ConfigError

    try:
        return gather(project, files, options.signatures, options.signatures_file, facts or Uncached, asked)
    except ValueError as exc:  # the signatures file does not parse
        raise ConfigError(str(exc)) from None


def cache_settings(path: str, options: Options, signatures: Optional[Dict] = None,
                   called: Optional[Dict] = None) -> Dict:
    """What a file's cached findings depend on besides its bytes and the toolchain (``called``:
    closures.functions_within the recorded closures: a device function of this file may be
    made from the closure of a kernel recorded in another)."""
    if not path.endswith(".py"):
        return {"offload_arch": options.offload_arch}
    frontend = options.frontend
    return {"arch": options.arch, "signatures": (signatures if signatures is not None else options.signatures).get(
                path, {}),
            "safe_imports": list(frontend.safe_imports), "jit_decorators": list(frontend.jit_decorators),
            "constants": repr(sorted(frontend.constants.items())), "import_modules": frontend.import_modules,
            "closures": [frontend.closures.get(path, {}), (called or {}).get(path, {})]}


def with_recorded_closures(options: Options) -> Options:
    """The options with what the signatures file recorded of factory-made kernels' closures."""
    if not options.signatures_file or options.frontend.closures or options.frontend.import_modules:
        return options
    from .config import ConfigError
    from .python.signatures.closures import read_closures

    try:
        closures = read_closures(options.signatures_file)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    if not closures:
        return options
    return replace(options, frontend=replace(options.frontend, closures=closures))


def check_paths(paths: Sequence[str], options: Options, progress: Optional[Progress] = None) -> Report:
    from .cache import RunCache

    found = discover_files(paths, suffixes(options.target), options.discovery)
    discovered = found.files
    options = with_recorded_closures(options)
    run_cache = None
    if options.cache_root and not options.resources:
        run_cache = RunCache(options.cache_root, paths, _run_settings(options))
    stored = run_cache.load(discovered) if run_cache else None
    if stored is not None:
        from .cache import finding_from_dict

        report = Report(stats=[KernelStats(**s) for s in stored["stats"]], files=stored["file_count"])
        collected = [finding_from_dict(f) for f in stored["findings"]]
    else:
        report, collected, project, dependencies = _check(discovered, options, progress)
        if run_cache and _cacheable(collected):
            run_cache.store(discovered, project.modules_read() + dependencies, sorted(project.absent),
                            collected, [asdict(s) for s in report.stats], report.files)
    report.discovered, report.excluded = len(discovered), found.excluded
    return _report(report, collected, options)


def _cacheable(findings: Sequence[Finding]) -> bool:
    """A file that could not be read or imported (KL901), or kernels compiled without NVVM,
    say nothing about the next run: not cached. A kernel past the time limit is (with that
    limit: a longer one compiles it again), or every run would wait for it again."""
    return not any(f.code == "KL901" or NVVM_EXTRAS in f.message for f in findings)


def _time_limited(findings: Sequence[Finding]) -> bool:
    return any(f.code != "KL901" and TIMED_OUT in f.message for f in findings)


def _run_settings(options: Options) -> Dict:
    """What a run's findings depend on besides the files it reads (selection, ignores and
    suppressions are applied after the cache)."""
    frontend = options.frontend
    signatures_file = options.signatures_file
    try:
        with open(signatures_file, "rb") as handle:
            signatures_text = handle.read().decode("utf-8", "replace")
    except (OSError, TypeError):
        signatures_text = None
    return {"arch": options.arch, "offload_arch": options.offload_arch, "target": options.target,
            "kernels": compiles_kernels(options),
            "timeout": options.timeout, "signatures": options.signatures, "signatures_file": signatures_text,
            # the closures are the signatures file's (its text is above)
            "frontend": {key: getattr(frontend, key) for key in sorted(vars(frontend)) if key != "closures"}}


def _check(discovered: List[str], options: Options, progress: Optional[Progress]):
    from .cache import Cache, FileFacts, finding_from_dict, finding_to_dict

    kernels_wanted = compiles_kernels(options)
    early = kernels_wanted and any(path.endswith(".py") for path in discovered) and not options.resources
    if early:
        from .workers.worker import start_early

        start_early()  # numba-cuda's import in the worker daemon overlaps the reading below
    project = Project(options.frontend)
    facts = None
    if options.cache_root and not options.resources:
        facts = FileFacts(options.cache_root, project, _run_settings(options)["frontend"])
    dependencies: List[str] = []  # the user modules the compiled files imported
    files = [p for p in discovered if (kernels_wanted or p.endswith(".hip")) and worth_checking(p, project)]
    signatures = kernel_signatures(project, files, options, facts, discovered)
    cache = Cache(options.cache_root) if options.cache_root and not options.resources else None
    report = Report()
    collected: List[Finding] = []
    pending: List[str] = []
    done = 0

    from .python.signatures.closures import functions_within

    called = functions_within(options.frontend.closures)

    def settings(path: str) -> Dict:
        return cache_settings(path, options, signatures, called)

    for path in files:
        entry = cache.load(path, settings(path), options.timeout) if cache else None
        if entry is None:
            pending.append(path)
            continue
        collected.extend(finding_from_dict(f) for f in entry["findings"])
        dependencies.extend(entry.get("dependencies", {}))
        report.stats.extend(KernelStats(**s) for s in entry["stats"])
        report.files += 1
        done += 1
        if progress:
            progress(done, len(files), path)
    if pending:
        from .cache import KernelCache
        from .compile.numba_cuda import KernelReuse
        from .workers.worker import compile_files

        kernels = KernelCache(options.cache_root) if cache and not options.frontend.import_modules else None
        reuse = KernelReuse(kernels.salt, kernels.known()) if kernels else None
        counts = {}
        for path in pending:
            module = project.module(path) if path.endswith(".py") else None
            counts[path] = len(module.kernels) if module is not None else 0
        for result in compile_files(pending, options.arch, options.timeout, options.jobs, signatures,
                                    runnable=options.resources, offload_arch=options.offload_arch,
                                    settings=options.frontend, reuse=reuse, kernel_counts=counts):
            findings, stats = analyse_result(result, options, kernels)
            collected.extend(findings)
            report.stats.extend(stats)
            report.files += 1
            done += 1
            dependencies.extend(result.dependencies)
            if cache and _cacheable(result.diagnostics):
                cache.store(result.path, settings(result.path), findings, [asdict(s) for s in stats],
                            result.dependencies, options.timeout if _time_limited(result.diagnostics) else None)
            if progress:
                progress(done, len(files), result.path)
    if early and not pending:
        from .workers.worker import stop_unused

        stop_unused()
    host_files = host_checked(discovered, project)
    for path in host_files:
        if facts is None:
            collected.extend(host_findings(project, path))
        else:
            kept = facts.get("host", path, lambda: [finding_to_dict(f) for f in host_findings(project, path)])
            collected.extend(finding_from_dict(f) for f in kept)
    report.files += len(set(host_files) - set(files))
    collected.extend(project.failures)
    return report, collected, project, dependencies


def _report(report: Report, collected: List[Finding], options: Options) -> Report:
    """Selection, ignores and suppressions over everything found (cached or not)."""
    sources: Dict[str, Optional[SourceFile]] = {}

    def visible(finding: Finding) -> bool:
        if not _selected(finding, options):
            return False
        if finding.path not in sources:
            sources[finding.path] = SourceFile.read_or_none(finding.path)
        return not is_suppressed(finding, sources[finding.path])

    report.skipped = [f for f in collected if f.code == "KL903"]
    report.findings = say_nvvm_once(merge([f for f in collected if visible(f)]))
    return report


def say_nvvm_once(findings: List[Finding]) -> List[Finding]:
    """Without NVVM every kernel fails alike: the first finding says why and what to install,
    the others point to it."""
    said = False
    for finding in findings:
        if NVVM_EXTRAS not in finding.message:
            continue
        if said:
            start = finding.message.find("no usable NVVM")
            finding.message = finding.message[:start] + "no usable NVVM (see the first such finding)"
        said = True
    return findings
