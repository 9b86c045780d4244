"""What kernlint reports: findings, and the kernels they were found in."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple


@dataclass(frozen=True)
class Frame:
    """One step of the chain through which a location was reached."""

    path: str
    line: int
    column: int
    function: str


@dataclass(frozen=True)
class Edit:
    """Replace the text from (line, column) to (end_line, end_column) with ``text``: lines
    1-based, columns 0-based characters, the end exclusive (ruff's and LSP's convention)."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    text: str


@dataclass
class Fix:
    """A source edit that removes a finding. ``applicability`` is ``safe`` (the code behaves
    as before) or ``unsafe`` (it behaves differently outside the safe range)."""

    applicability: str
    description: str
    edits: List[Edit] = field(default_factory=list)


@dataclass
class Finding:
    code: str
    path: str
    line: int
    column: int
    message: str
    kernel: str = ""
    signature: str = ""
    fixable: bool = False
    inlined_at: List[Frame] = field(default_factory=list)
    kernels: List[str] = field(default_factory=list)
    kernel_line: int = 0  # the kernel's def line: suppressions there cover the whole kernel
    resources: Optional[Dict[str, Any]] = None  # --resources: the kernel's cost with and without it
    signature_source: str = ""  # where the signature came from (SIGNATURE_SOURCES)
    signature_from: str = ""  # launch-site: the launch that gave it (`path:line`); inferred: the host evidence taken
    fix: Optional[Fix] = None  # a source fix (kernlint check --fix), if one is offered
    # values the kernel was compiled with stand-ins for: a library's numbers (`c (scipy.constants.c)`), what a factory reads from a parameter no call gives (`D (int 1 for ...)`)
    standins: List[str] = field(default_factory=list)
    rewritable: bool = False  # kernlint rewrite fixes it in the IR
    tried: List[Dict[str, str]] = field(default_factory=list)  # KL903: {signature, inferred (how), error} each

    @property
    def key(self) -> Tuple[str, str, int]:
        """A location is reported once per (code, line), whichever kernels reach it."""
        return (self.code, self.path, self.line)

    @property
    def sort_key(self):
        return (self.path, self.line, self.column, self.code)

    def to_dict(self) -> Dict[str, Any]:
        data = asdict(self)
        data["kernels"] = self.kernels or ([self.kernel] if self.kernel else [])
        del data["kernel_line"]
        data["fix"] = self.fix.applicability if self.fix else None
        data["fix_edits"] = [asdict(e) for e in self.fix.edits] if self.fix else []
        if self.fix:
            data["fix_description"] = self.fix.description
        if self.resources is None:
            del data["resources"]
        if not self.tried:
            del data["tried"]
        return data


@dataclass
class KernelInfo:
    """A kernel or device function, one signature of it, as the frontend found it."""

    name: str
    path: str
    line: int  # the def line
    column: int
    kind: str = "kernel"  # or "device"
    signature: str = ""
    options: Dict[str, Any] = field(default_factory=dict)
    option_lines: Dict[str, Tuple[int, int]] = field(default_factory=dict)  # keyword -> (line, col)
    signature_source: str = ""  # where the signature came from (SIGNATURE_SOURCES)
    signature_from: str = ""  # launch-site: the launch that gave it (`path:line`); inferred: the host evidence taken
    variant: str = ""  # for a kernel made by a factory: the parameter values it was made with
    standins: Tuple[str, ...] = ()  # values its slice compiled as stand-ins (library numbers, unread factory parameters)

    @property
    def label(self) -> str:
        return f"{self.name}({self.signature})" if self.signature else self.name


# Where a kernel's signature came from, most trusted first (docs/how-it-works.md).
SIGNATURE_SOURCES = ("eager", "comment", "config", "launch-site", "recorded", "stand-in", "inferred")


def launch_origin(path: str, line: int) -> str:
    """The origin of a signature a launch at ``path:line`` gives (``split_origin`` reads it)."""
    return f"launch-site@{path}:{line}"


def split_origin(origin: str) -> Tuple[str, str]:
    """(the signature source, the launch that gave it or "") of an origin."""
    source, _, where = origin.partition("@")
    return source, where


# -- the tool's own diagnostics (KL9xx) ---------------------------------------------------
# Their kinds live here so that the readers and compilers can emit them without importing the rule
# catalog; each one's documentation is its module in ``kernlint/rules/``.

UNREADABLE_FILE = "KL901"
COMPILE_FAILED = "KL902"
NO_SIGNATURE = "KL903"
INVALID_IR = "KL904"
INTERNAL_ERROR = "KL905"


def diagnostic(code: str, path: str, line: int, column: int, message: str, kernel: str = "",
               signature: str = "") -> Finding:
    return Finding(code=code, path=path, line=max(line, 1), column=max(column, 1), message=message,
                   kernel=kernel, signature=signature, kernel_line=line if kernel else 0)


def unreadable_file(path: str, line: int, column: int, reason: str) -> Finding:
    return diagnostic(UNREADABLE_FILE, path, line, column, f"file not checked: {reason}")


TIMED_OUT = "(--timeout)"  # in the message of what ran past the time limit (never cached)


def compile_failed(path: str, line: int, column: int, kernel: str, signature: str, reason: str) -> Finding:
    target = f" for {signature}" if signature else ""
    return diagnostic(COMPILE_FAILED, path, line, column, f"kernel `{kernel}` failed to compile{target}: {reason}",
                      kernel=kernel, signature=signature)


def file_compile_failed(path: str, line: int, column: int, reason: str) -> Finding:
    return diagnostic(COMPILE_FAILED, path, line, column, f"HIP file failed to compile: {reason}")


def no_signature(path: str, line: int, column: int, kernel: str, why: str = "",
                 tried: Sequence[Tuple[str, str, str]] = ()) -> Finding:
    """KL903; ``tried``: (signature, how it was inferred, why it failed) of each signature inferred from the body. The
    message names the first only (a line stays readable); ``--show-signatures`` and JSON list all."""
    reason = f"kernel `{kernel}` skipped: no signature found" + (f" ({why})" if why else "")
    if tried:
        first, _, failure = tried[0]
        failure = failure.splitlines()[0] if failure.strip() else failure
        failure = failure if len(failure) <= 120 else failure[:117].rstrip() + "..."
        others = f"; {len(tried) - 1} more tried (`--show-signatures` lists them)" if len(tried) > 1 else ""
        reason += f"; inferred from its body, `{first}` failed: {failure}{others}"
    finding = diagnostic(NO_SIGNATURE, path, line, column,
                         f"{reason}; add `# kernlint: sig=void(...)` directly above its decorator", kernel=kernel)
    finding.tried = [{"signature": signature, "inferred": how, "error": failure} for signature, how, failure in tried]
    return finding


def invalid_ir(path: str, line: int, column: int, reason: str, kernel: str = "") -> Finding:
    return diagnostic(INVALID_IR, path, line, column, f"invalid IR: {reason}", kernel=kernel)


def internal_error(path: str, line: int, column: int, doing: str, exc: BaseException, kernel: str = "") -> Finding:
    """KL905: kernlint itself failed on a construct here (a bug in kernlint, not in the code);
    the rest of the run goes on, and the exit code is 2 so that CI notices."""
    text = str(exc).strip().splitlines()
    detail = f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__
    return diagnostic(INTERNAL_ERROR, path, line, column,
                      f"kernlint failed on this construct while {doing} ({detail}; {versions()}): the rest "
                      f"was checked; please report it to kernlint's issue tracker with this line and the "
                      f"construct (`kernlint check --debug` shows the traceback)", kernel=kernel)


def kernlint_frames(exc: BaseException) -> List[str]:
    """The traceback of ``exc``, outermost first: each frame's kernlint module relative to
    the package (``ir/reader.py``), or "" for numba, libraries and user code kernlint ran."""
    import os
    import traceback

    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    files = [os.path.abspath(frame.f_code.co_filename) for frame, _ in traceback.walk_tb(exc.__traceback__)]
    return [f[len(package):] if f.startswith(package) else "" for f in files]


def raised_in(exc: BaseException) -> str:
    """The kernlint module that raised ``exc`` (its innermost frame), or "" where numba, a
    library or the user's code that kernlint evaluated raised it."""
    frames = kernlint_frames(exc)
    return frames[-1] if frames else ""


def versions() -> str:
    """kernlint's and numba-cuda's versions, for a bug report (read from the installed
    metadata: nothing is imported)."""
    from importlib import metadata

    from . import __version__

    try:
        numba_cuda = metadata.version("numba-cuda")
    except metadata.PackageNotFoundError:
        numba_cuda = "not installed"
    return f"kernlint {__version__}, numba-cuda {numba_cuda}"


def merge(findings: List[Finding]) -> List[Finding]:
    """Keep one finding per (code, path, line); remember every kernel that reached it."""
    merged: Dict[Tuple[str, str, int], Finding] = {}
    for finding in findings:
        kept = merged.get(finding.key)
        if kept is None:
            finding.kernels = [finding.kernel] if finding.kernel else []
            merged[finding.key] = finding
        elif finding.kernel and finding.kernel not in kept.kernels:
            kept.kernels.append(finding.kernel)
    return sorted(merged.values(), key=lambda f: f.sort_key)
