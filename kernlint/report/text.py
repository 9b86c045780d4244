"""ruff-style text: ``path:line:col: CODE message [*]``, then a summary line."""

from __future__ import annotations

import os
import textwrap
from typing import Dict, List, Optional, Sequence, TextIO, Tuple

from ..engine import Report
from ..findings import Finding


def display_path(path: str) -> str:
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return path if relative.startswith("..") else relative


# ruff's colours: the path bold, the separators and position plain (cyan), the code red and bold,
# the fix mark cyan
_BOLD, _RED, _CYAN, _RESET = "\x1b[1m", "\x1b[31m", "\x1b[36m", "\x1b[0m"


def use_color(stream: TextIO) -> bool:
    """Colour on a terminal; ``NO_COLOR`` (no-color.org) turns it off, ``FORCE_COLOR`` on
    (a non-empty value: a CI log that renders ANSI), NO_COLOR winning, as ruff reads them."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    try:
        return stream.isatty() and os.environ.get("TERM") != "dumb"
    except (AttributeError, ValueError):
        return False


def format_finding(finding: Finding, color: bool = False) -> str:
    fix = " [*]" if finding.fixable else ""
    if color:
        where = (f"{_BOLD}{display_path(finding.path)}{_RESET}{_CYAN}:{_RESET}{finding.line}{_CYAN}:{_RESET}"
                 f"{finding.column}{_CYAN}:{_RESET}")
        head = f"{where} {_BOLD}{_RED}{finding.code}{_RESET} {finding.message}"
        fix = f" {_CYAN}[*]{_RESET}" if finding.fixable else ""
    else:
        head = f"{display_path(finding.path)}:{finding.line}:{finding.column}: {finding.code} {finding.message}"
    lines = [head + fix]
    for frame in finding.inlined_at:
        where = f" ({frame.function})" if frame.function else ""
        lines.append(f"    inlined at {display_path(frame.path)}:{frame.line}{where}")
    if finding.resources:
        lines.append(f"    resources {format_resources(finding.resources)}")
    if finding.standins and not finding.code.startswith("KL9"):
        lines.append(f"    compiled with stand-ins for {', '.join(finding.standins)} (values kernlint cannot "
                     f"read without running code)")
    if finding.signature_source == "inferred" and finding.code != "KL903":
        lines.append(f"    signature inferred from the kernel's body: {finding.signature} "
                     f"(pin it: `# kernlint: sig={finding.signature}`)")
    return "\n".join(lines)


_UNITS = {"registers": "registers", "vgpr": "VGPR", "sgpr": "SGPR", "stack_bytes": "B stack",
          "scratch_bytes": "B scratch", "spill_stores": "B spill stores", "spill_loads": "B spill loads",
          "instructions": "instructions"}


def format_resources(resources) -> str:
    if "as_is" not in resources:
        return f"not measured: {resources.get('error', 'no backend for this target')}"
    as_is, without = resources["as_is"], resources.get("without")
    if without is None:
        cells = [f"{as_is[k]} {unit}" for k, unit in _UNITS.items() if k in as_is]
        return f"({resources['target']}): {', '.join(cells)} (the finding is not on a removable error path)"
    cells = [f"{as_is[k]} -> {without[k]} {unit}" for k, unit in _UNITS.items() if k in as_is]
    return f"({resources['target']}, as is -> without this path): {', '.join(cells)}"


def summary(report: Report) -> str:
    kernels = f"{report.kernels} kernel{'s' if report.kernels != 1 else ''}"
    files = f"{report.files} file{'s' if report.files != 1 else ''}"
    count = len(report.findings)
    if not count:
        return f"All checks passed ({kernels} in {files})."
    safe = sum(1 for f in report.findings if f.fix is not None and f.fix.applicability == "safe")
    unsafe = sum(1 for f in report.findings if f.fix is not None and f.fix.applicability == "unsafe")
    rewrite = sum(1 for f in report.findings if f.rewritable)
    parts = []
    if safe:
        parts.append(f"{safe} fixable with --fix")
    if unsafe:
        parts.append(f"{unsafe} {'more with' if safe else 'fixable with'} --fix --unsafe-fixes")
    if rewrite:
        parts.append(f"{rewrite} with `kernlint rewrite`")
    fix = f" ({'; '.join(parts)})" if parts else ""
    return f"Found {count} finding{'s' if count != 1 else ''}{fix} in {kernels}, {files}."


def inferred_note(report: Report) -> Optional[str]:
    """A line for standard error where kernels were checked only with signatures inferred from
    their bodies: "All checks passed" then says nothing of how sure their types are."""
    sources: Dict[Tuple[str, str], set] = {}
    for s in report.stats:
        if not s.host:
            sources.setdefault((s.path, s.kernel), set()).add(s.signature_source)
    inferred = sum(1 for found in sources.values() if found == {"inferred"})
    if not inferred:
        return None
    one = inferred == 1
    return (f"kernlint: note: {inferred} kernel{' was' if one else 's were'} checked with "
            f"{'a signature' if one else 'signatures'} inferred from {'its body' if one else 'their bodies'}, "
            f"not from a launch (element types and ranks may be wrong): `--show-signatures` lists "
            f"{'it' if one else 'them'}; `kernlint record -- <your tests>` records the types a run launches "
            f"{'it' if one else 'them'} with")


def statistics(report: Report, wrap: bool = False) -> List[str]:
    # compile: numba-cuda's IR generation (Python), hipcc (HIP, shared by the file's kernels)
    rows = [("kernel", "signature", "compile ms", "kernlint ms", "ratio")]
    for s in sorted(report.stats, key=lambda s: s.host):  # the HIP host code's rows last
        ratio = f"{s.kernlint_seconds / s.numba_seconds:.3f}" if s.numba_seconds else "-"
        rows.append((
            f"{display_path(s.path)}::{s.kernel}" + (f"[{s.variant}]" if s.variant else ""), s.signature,
            f"{s.numba_seconds * 1e3:.1f}", f"{s.kernlint_seconds * 1e3:.2f}", ratio,
        ))
    numba = sum(s.numba_seconds for s in report.stats)
    kernlint = sum(s.kernlint_seconds for s in report.stats)
    rows.append(("total", "", f"{numba * 1e3:.1f}", f"{kernlint * 1e3:.2f}",
                 f"{kernlint / numba:.3f}" if numba else "-"))
    return table(rows, limits=(60, 44, 0, 0, 0) if wrap else (0,) * 5, right=(2, 3, 4))


def _wrap(cell: str, limit: int) -> List[str]:
    """A cell over ``limit`` characters as lines of at most that, broken after commas first
    (a signature's arguments), then anywhere; continuation lines indented by two."""
    if not limit or len(cell) <= limit:
        return [cell]
    pieces = cell.replace(", ", ",\0").split("\0")
    lines: List[str] = []
    current = ""
    for piece in pieces:
        if current and len(current) + 1 + len(piece) > limit:
            lines.append(current)
            current = "  " + piece
        else:
            current = f"{current} {piece}" if current else piece
    lines.append(current)
    wrapped: List[str] = []
    for line in lines:  # a single argument longer than the limit
        wrapped.extend(textwrap.wrap(line, limit, subsequent_indent="  ", break_on_hyphens=False,
                                     break_long_words=False) or [""])
    return wrapped


def table(rows: Sequence[Sequence[str]], limits: Sequence[int], right: Sequence[int] = ()) -> List[str]:
    """Columns two spaces apart; a cell longer than its column's limit (0: none) wraps onto the
    next lines, so that a table with long signatures still fits a terminal (on a terminal only:
    piped, each row stays one line for tools)."""
    cells = [[_wrap(cell, limit) for cell, limit in zip(row, limits)] for row in rows]
    widths = [max(len(line) for row in cells for line in row[i]) for i in range(len(limits))]
    out = []
    for row in cells:
        for n in range(max(len(c) for c in row)):
            parts = []
            for i, (cell, width) in enumerate(zip(row, widths)):
                text = cell[n] if n < len(cell) else ""
                parts.append(text.rjust(width) if i in right and text else text.ljust(width))
            out.append("  ".join(parts).rstrip())
    return out


def _launch_place(where: str) -> str:
    """``/abs/main.py:42`` as the rest of the output names files."""
    path, _, line = where.rpartition(":")
    return f"{display_path(path)}:{line}"


def signatures(report: Report, wrap: bool = False) -> List[str]:
    """--show-signatures: each kernel, each signature it was checked with, and its source; then
    each value it was compiled with a stand-in for (source ``stand-in``: what stood in, and why)."""
    rows = [("kernel", "signature", "source")]
    entries = [(s.path, s.kernel, s.variant, s.signature, (s.signature_source or "-") + (
                   f" ({_launch_place(s.signature_from)})" if s.signature_from else "")) for s in report.stats
               if not s.host]
    stood_in = {(s.path, s.kernel, s.variant, standin) for s in report.stats if not s.host for standin in s.standins}
    for path, kernel, variant, standin in stood_in:  # once a kernel, whatever its signatures
        name, _, what = standin.partition(" (")
        entries.append((path, kernel, variant, name, f"stand-in: {what[:-1] if what.endswith(')') else what}"))
    for f in report.skipped:  # KL903: what was tried, each with why it failed
        entries += [(f.path, f.kernel, "", t["signature"],
                     f"inferred{' (' + t['inferred'] + ')' if t['inferred'] else ''}; failed (KL903): {t['error']}")
                    for t in f.tried] or [(f.path, f.kernel, "", "-", "none (KL903)")]
    # a kernel's signatures, then what stood in for its values
    for path, kernel, variant, signature, source in sorted(
            entries, key=lambda e: (e[0], e[1], e[2], e[4].startswith("stand-in"), e[3] if e[4].startswith(
                "stand-in") else "")):
        rows.append((f"{display_path(path)}::{kernel}" + (f"[{variant}]" if variant else ""), signature, source))
    return table(rows, limits=(60, 56, 64) if wrap else (0, 0, 0))


def write(report: Report, out: TextIO, stats: bool = False, show_signatures: bool = False,
          color: Optional[bool] = None) -> None:
    color = use_color(out) if color is None else color
    for finding in report.findings:
        out.write(format_finding(finding, color) + "\n")
    out.write(summary(report) + "\n")
    wrap = is_terminal(out)
    if stats:
        out.write("\n" + "\n".join(statistics(report, wrap)) + "\n")
    if show_signatures:
        out.write("\n" + "\n".join(signatures(report, wrap)) + "\n")


def is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
