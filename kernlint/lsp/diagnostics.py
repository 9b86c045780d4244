"""Findings as LSP diagnostics: code, severity, the range of the construct, the inlined-at
chain as related information, and a link to the rule's documentation.

Positions here are (0-based line, 0-based character) in code points until ``to_client``
converts a column to the units the editor negotiated (UTF-16 unless it chose UTF-8/32).
"""

from __future__ import annotations

import ast
import os
from typing import Dict, List, Optional, Tuple
from pathlib import Path
from urllib.parse import unquote, urlparse

from lsprotocol import types

from .. import __version__, rules
from ..findings import Finding
from ..fsutil import write_atomic
from ..source import SourceFile

SOURCE = "kernlint"
Span = Tuple[int, int, int, int]  # start line, start character, end line, end character

# statements with a body: a finding at one is shown on its first line, not over the body
_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.FunctionDef,
             ast.AsyncFunctionDef, ast.ClassDef, ast.Match) + ((ast.TryStar,) if hasattr(ast, "TryStar") else ())


def path_to_uri(path: str) -> str:
    return Path(os.path.abspath(path)).as_uri()


def uri_to_path(uri: str) -> Optional[str]:
    """The file a ``file:`` URI names; None for other schemes (``untitled:``, ``git:``)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return os.path.abspath(unquote(parsed.path))


_PAGES: Dict[str, str] = {}  # code -> its page's URI, written once per process


def documentation_url(code: str) -> str:
    """The link a diagnostic gives to its rule's documentation. The one place that decides it:
    the installed kernlint's own text (what ``kernlint rule CODE`` prints), written as a
    Markdown page under the user's cache, so that the link works offline and describes the
    rule as this version checks it."""
    if code not in _PAGES:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        page = os.path.join(base, "kernlint", __version__, "rules", f"{code.lower()}.md")
        text = "# " + rules.documentation(code) + "\n"
        try:
            with open(page) as handle:
                current = handle.read()
        except OSError:
            current = None
        if current != text:
            try:
                os.makedirs(os.path.dirname(page), exist_ok=True)
                write_atomic(page, text)
            except OSError:
                pass  # an unwritable cache: the link still names the rule
        _PAGES[code] = path_to_uri(page)
    return _PAGES[code]


def severity(code: str) -> types.DiagnosticSeverity:
    """Findings are warnings, as a linter's are; a file or kernel that could not be checked is
    an error (it hides whatever it holds); a kernel skipped for want of a signature is
    information (it is checked once a launch or a comment gives one)."""
    if code in ("KL901", "KL902", "KL904"):
        return types.DiagnosticSeverity.Error
    if code == "KL903":
        return types.DiagnosticSeverity.Information
    return types.DiagnosticSeverity.Warning


def to_client(line: str, character: int, encoding: str) -> int:
    """A code-point column as the editor counts: UTF-16 code units (LSP's default), UTF-8
    bytes, or code points."""
    prefix = line[:character]
    if encoding == types.PositionEncodingKind.Utf8:
        return len(prefix.encode("utf-8"))
    if encoding == types.PositionEncodingKind.Utf32:
        return len(prefix)
    return len(prefix.encode("utf-16-le")) // 2


def span(source: SourceFile, line: int, column: int) -> Span:
    """The range of what a finding at (1-based line, 1-based character column) points at: in
    Python, the largest expression or simple statement that starts there (the ``int(v)``
    call, the ``print(...)`` statement), the first line of a statement with a body; elsewhere
    (HIP, IR), the rest of the line."""
    text = source.line(line)
    start = max(0, min(column - 1, len(text)))
    if not text[start:].strip():
        start = len(text) - len(text.lstrip())
    elif text[start].isspace():  # a line's column 1 (IR line info has no columns): its first character
        start += len(text[start:]) - len(text[start:].lstrip())
    best: Optional[ast.AST] = None
    if source.path.endswith(".py"):
        for node in source.nodes_at(line):
            if source.edits.char_column(line, node.col_offset) != start or isinstance(node, _COMPOUND):
                continue
            end = (getattr(node, "end_lineno", None) or line, getattr(node, "end_col_offset", None) or 0)
            if best is None or end > (best.end_lineno, best.end_col_offset):
                best = node
    if best is not None and best.end_lineno is not None and best.end_col_offset is not None:
        return (line - 1, start, best.end_lineno - 1,
                source.edits.char_column(best.end_lineno, best.end_col_offset))
    end = len(_without_comment(text, source.path).rstrip())
    return (line - 1, start, line - 1, max(end, start))


def _without_comment(text: str, path: str) -> str:
    """A HIP or IR line without its trailing comment (``//``, ``;``), quotes respected."""
    leader = "//" if not path.endswith(".ll") else ";"
    quoted = False
    for index, char in enumerate(text):
        if char == '"' and (index == 0 or text[index - 1] != "\\"):
            quoted = not quoted
        elif not quoted and text.startswith(leader, index):
            return text[:index]
    return text


def _launch(where: str) -> Optional[Tuple[str, int]]:
    """``/abs/main.py:42`` -> (path, 42)."""
    path, _, line = where.rpartition(":")
    return (path, int(line)) if path and line.isdigit() else None


class DiagnosticMaker:
    """Diagnostics for one document, from the text that was checked."""

    def __init__(self, path: str, text: str, encoding: str):
        self.path = path
        self.source = SourceFile(path, text)
        self.encoding = encoding
        self._others: Dict[str, Optional[SourceFile]] = {}

    def _source(self, path: str) -> Optional[SourceFile]:
        if path == self.path:
            return self.source
        if path not in self._others:
            self._others[path] = SourceFile.read_or_none(path)
        return self._others[path]

    def range(self, path: str, line: int, column: int) -> types.Range:
        source = self._source(path)
        if source is None:
            return types.Range(types.Position(max(line - 1, 0), 0), types.Position(max(line - 1, 0), 0))
        first, start, last, end = span(source, line, column)
        return types.Range(types.Position(first, to_client(source.line(first + 1), start, self.encoding)),
                           types.Position(last, to_client(source.line(last + 1), end, self.encoding)))

    def place(self, finding: Finding) -> Optional[Tuple[int, int, str]]:
        """(line, column, note) where the finding shows in this document: its own place, or,
        for one in a function of another file that this file's kernel inlines, the call here
        that reaches it; None where the document has no part in it."""
        if finding.path == self.path:
            return finding.line, finding.column, ""
        for frame in finding.inlined_at:
            if frame.path == self.path:
                where = f"{os.path.basename(finding.path)}:{finding.line}"
                return frame.line, 0, f" (in {where}, reached through this call)"
        return None

    def diagnostic(self, finding: Finding) -> Optional[types.Diagnostic]:
        placed = self.place(finding)
        if placed is None:
            return None
        line, column, note = placed
        message = finding.message + note
        if finding.signature_source == "inferred" and not finding.code.startswith("KL9"):
            message += (f"\nsignature inferred from the kernel's body: {finding.signature} (pin it with "
                        f"`# kernlint: sig={finding.signature}` above the decorator)")
        if finding.standins and not finding.code.startswith("KL9"):
            message += f"\ncompiled with stand-ins for {', '.join(finding.standins)}"
        related = [types.DiagnosticRelatedInformation(
            types.Location(path_to_uri(frame.path), self.range(frame.path, frame.line, frame.column or 1)),
            f"inlined at {os.path.basename(frame.path)}:{frame.line}" + (
                f" ({frame.function})" if frame.function else "")) for frame in finding.inlined_at]
        if note:
            related.insert(0, types.DiagnosticRelatedInformation(
                types.Location(path_to_uri(finding.path), self.range(finding.path, finding.line, finding.column)),
                f"{finding.code} is here"))
        # an inferred signature's `signature_from` is the host evidence it took, not a launch
        launch = _launch(finding.signature_from) if finding.signature_source == "launch-site" else None
        if launch is not None:  # the launch whose arguments typed the kernel
            related.append(types.DiagnosticRelatedInformation(
                types.Location(path_to_uri(launch[0]), self.range(launch[0], launch[1], 1)),
                f"`{finding.kernel}` checked as {finding.signature}, the types of this launch"))
        data = {"kernels": finding.kernels or ([finding.kernel] if finding.kernel else []),
                "signature": finding.signature, "signature_source": finding.signature_source}
        if finding.fix is not None:
            data["fix"] = finding.fix.applicability
        return types.Diagnostic(
            range=self.range(self.path, line, column or self._first_column(line)),
            message=message,
            severity=severity(finding.code),
            code=finding.code,
            code_description=types.CodeDescription(href=documentation_url(finding.code))
            if finding.code in rules.BY_CODE else None,
            source=SOURCE,
            related_information=related or None,
            data=data,
        )

    def _first_column(self, line: int) -> int:
        text = self.source.line(line)
        return len(text) - len(text.lstrip()) + 1

    def diagnostics(self, findings: List[Finding]) -> List[types.Diagnostic]:
        made = (self.diagnostic(f) for f in findings)
        return [d for d in made if d is not None]


def problem(message: str) -> types.Diagnostic:
    """A diagnostic at the top of a document for what stopped it being checked (its
    configuration)."""
    return types.Diagnostic(range=types.Range(types.Position(0, 0), types.Position(0, 0)), message=message,
                            severity=types.DiagnosticSeverity.Error, source=SOURCE)
