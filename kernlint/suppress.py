"""``# noqa: KL101`` and ``# kernlint: ignore[KL101,KL301]`` on a finding's line or on its
kernel's ``def`` line; a bare ``# noqa`` there suppresses every code."""

from __future__ import annotations

import re
from typing import Optional, Set, Tuple

from .findings import Finding
from .source import SourceFile

# `#` in Python, `//` in HIP C++, `;` in LLVM IR
_NOQA = re.compile(r"(?:#|//|;)\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*))?", re.I)
_IGNORE = re.compile(r"(?:#|//|;)\s*kernlint:\s*ignore\[(?P<codes>[^\]]*)\]", re.I)
ALL = None  # a bare noqa


def directives(line: str) -> Optional[Set[str]]:
    """The codes a line suppresses: a set, ALL (None) for a bare noqa, or an empty set."""
    codes: Set[str] = set()
    for match in _NOQA.finditer(line):
        if not match.group("codes"):
            return ALL
        codes |= {c.strip().upper() for c in match.group("codes").split(",")}
    for match in _IGNORE.finditer(line):
        codes |= {c.strip().upper() for c in match.group("codes").split(",") if c.strip()}
    return codes


def is_suppressed(finding: Finding, source: Optional[SourceFile]) -> bool:
    if source is None:
        return False
    for number in {finding.line, finding.kernel_line} - {0}:
        codes = directives(source.line(number))
        if codes is ALL or any(finding.code.startswith(code) for code in codes):
            return True
    return False


def noqa_insertion(line: str, code: str, comment: str = "#") -> Optional[Tuple[int, str]]:
    """(character column, text) that makes ``line`` suppress ``code``: the code added to the
    line's ``noqa`` directive, or a directive appended (``  # noqa: KL101``, ``//`` in HIP,
    ``;`` in LLVM IR). None where the line suppresses it already, or where no comment can
    follow it (a Python line continued with a backslash)."""
    codes = directives(line)
    if codes is ALL or any(code.startswith(c) for c in codes):
        return None
    match = _NOQA.search(line)
    if match:
        return match.end(), f", {code}"
    content = line.rstrip()
    if comment == "#" and content.endswith("\\"):
        return None
    return len(content), f"  {comment} noqa: {code}"
