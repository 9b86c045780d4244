"""``kernlint check --fix`` / ``--unsafe-fixes`` / ``--diff``: apply the source fixes the
rules offer, the way ruff does, and keep none that does not verify.

Every fix is verified before it is kept: the edited file must parse, and the kernels that
reach it (its own, and those of other files whose findings land in it) are compiled and
checked again from the edited text (nothing is written yet): each code may only lose
findings, never gain one, and the fixed findings must be gone. Fixes are tried together
per run first; where that fails, each file's fixes together, then one at a time, keeping
those that verify. Files are written atomically.
"""

from __future__ import annotations

import ast
import difflib
import os
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Dict, List, Sequence, Tuple

from .engine import Options, Report, check_paths
from .findings import Finding
from .fsutil import write_atomic
from .source import apply_edits, drop_buffer, read_bytes, use_buffer


@dataclass
class FixOutcome:
    applied: List[Finding] = field(default_factory=list)
    refused: List[Tuple[Finding, str]] = field(default_factory=list)  # (finding, why its fix was not kept)
    texts: Dict[str, Tuple[str, str]] = field(default_factory=dict)  # path -> (original, fixed)

    def diff(self) -> str:
        chunks = []
        for path, (original, fixed) in sorted(self.texts.items()):
            shown = os.path.relpath(path)
            chunks.extend(difflib.unified_diff(original.splitlines(keepends=True), fixed.splitlines(keepends=True),
                                               fromfile=f"a/{shown}", tofile=f"b/{shown}"))
        return "".join(chunks)


def applicable(finding: Finding, unsafe: bool) -> bool:
    return finding.fix is not None and (finding.fix.applicability == "safe" or unsafe)


def hidden(findings: Sequence[Finding], unsafe: bool) -> int:
    """Fixes that --unsafe-fixes would add."""
    return sum(1 for f in findings if f.fix is not None and not applicable(f, unsafe))


def plan(report: Report, paths: Sequence[str], options: Options, unsafe: bool) -> FixOutcome:
    """The fixes that verify, and the texts they make (nothing is written here)."""
    outcome = FixOutcome()
    chosen = [f for f in report.findings if applicable(f, unsafe)]
    if not chosen:
        return outcome
    originals: Dict[str, str] = {}
    for finding in chosen:
        for edit in finding.fix.edits:
            if edit.path not in originals:
                originals[edit.path] = read_bytes(edit.path).decode("utf-8")
    kept, _ = _verified(chosen, originals, report, paths, options)
    if not kept:  # file by file; within a file that fails, fix by fix
        for path in originals:
            mine = [f for f in chosen if _touches(f) == {path}]
            accepted, _ = _verified(mine, originals, report, paths, options)
            if accepted:
                kept.extend(accepted)
                continue
            good: List[Finding] = []
            for finding in mine:
                accepted, reason = _verified(good + [finding], originals, report, paths, options)
                if accepted:
                    good = accepted
                else:
                    outcome.refused.append((finding, reason))
            kept.extend(good)
    outcome.applied = kept
    for path, original in originals.items():
        edits = [e for f in kept for e in f.fix.edits if e.path == path]
        if edits:
            outcome.texts[path] = (original, apply_edits(original, edits))
    return outcome


def write(outcome: FixOutcome) -> None:
    for path, (_, fixed) in outcome.texts.items():
        write_atomic(path, fixed)


def _touches(finding: Finding) -> set:
    return {e.path for e in finding.fix.edits} if finding.fix else set()


def _verified(fixes: List[Finding], originals: Dict[str, str], report: Report, paths: Sequence[str],
              options: Options) -> Tuple[List[Finding], str]:
    """(fixes, "") when together they verify; ([], why) when not."""
    if not fixes:
        return [], "nothing to fix"
    texts = {}
    for path in {e.path for f in fixes for e in f.fix.edits}:
        edits = [e for f in fixes for e in f.fix.edits if e.path == path]
        texts[path] = apply_edits(originals[path], edits)
        try:
            ast.parse(texts[path], filename=path)
        except SyntaxError as exc:
            return [], f"the edited file does not parse (line {exc.lineno}: {exc.msg})"
    recheck = _files_to_recheck(texts, report, paths)
    for path, text in texts.items():
        use_buffer(path, text.encode())
    try:
        again = check_paths(recheck, replace(options, cache_root=None))
    finally:
        for path in texts:
            drop_buffer(path)
    for path in texts:
        before = Counter(f.code for f in report.findings if f.path == path)
        fixed = Counter(f.code for f in fixes if f.path == path)
        after = Counter(f.code for f in again.findings if f.path == path)
        for code, count in after.items():
            if code.startswith("KL9") and count > before.get(code, 0):
                problem = next(f for f in again.findings if f.path == path and f.code == code)
                return [], f"the fixed file does not compile: {problem.message}"
            if count > before.get(code, 0) - fixed.get(code, 0):
                return [], f"after the fix {count} {code} finding(s) remain where {before.get(code, 0)} were"
    return fixes, ""


def _files_to_recheck(texts: Dict[str, str], report: Report, paths: Sequence[str]) -> List[str]:
    """The edited files and the files of the kernels whose findings land in them."""
    kernels = {k for f in report.findings if f.path in texts for k in (f.kernels or [f.kernel]) if k}
    files = set(texts)
    for stat in report.stats:
        if stat.kernel in kernels:
            files.add(stat.path)
    return sorted(p for p in files if p.endswith(".py"))


def summary(outcome: FixOutcome, hidden_unsafe: int, remaining: int, diff: bool) -> List[str]:
    lines = []
    for finding, why in outcome.refused:
        lines.append(f"{os.path.relpath(finding.path)}:{finding.line}: {finding.code} fix not applied: {why}")
    count = len(outcome.applied)
    verb = "Would fix" if diff else "Fixed"
    text = f"{verb} {count} finding{'s' if count != 1 else ''} in {len(outcome.texts)} file{'s' if len(outcome.texts) != 1 else ''}"
    if not diff:
        text += f"; {remaining} remaining"
    if hidden_unsafe:
        text += f" ({hidden_unsafe} more fixable with --unsafe-fixes)"
    lines.append(text + ".")
    return lines
