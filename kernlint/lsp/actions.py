"""Code actions: each finding's fix, "fix all" for the document, and "disable KLxxx for this
line" (``# noqa: KLxxx``).

Fixes follow ``kernlint check --fix``: a safe fix is always offered, an unsafe one (it changes
behaviour outside the safe range) only where ``unsafe-fixes`` is on, and its title says so.
The edits are those the rules computed on the text that was checked; once the document has
changed since, the server offers nothing until its new diagnostics arrive. A fix after which
the Python no longer parses is not offered; what ``--fix`` verifies beyond that (compiling and
checking the result again) is what the new diagnostics after the edit show.
"""

from __future__ import annotations

import ast
import difflib
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from lsprotocol import types

from ..findings import Edit, Finding
from ..source import apply_edits
from ..suppress import noqa_insertion
from .diagnostics import path_to_uri, to_client

FIX_ALL = types.CodeActionKind.SourceFixAll + ".kernlint"  # "source.fixAll.kernlint"
KINDS = [types.CodeActionKind.QuickFix, FIX_ALL]

# the comment leader a suppression takes, by the file's kind
_COMMENTS = {".hip": "//", ".cu": "//", ".cpp": "//", ".cc": "//", ".h": "//", ".hpp": "//", ".ll": ";"}


def comment_leader(path: str) -> str:
    return next((leader for suffix, leader in _COMMENTS.items() if path.endswith(suffix)), "#")


def wanted(kind: str, only: Optional[Sequence[str]]) -> bool:
    """Whether the client asked for actions of this kind (``only`` lists kinds or their
    parents: ``source.fixAll`` takes ``source.fixAll.kernlint``)."""
    return not only or any(kind == k or kind.startswith(k + ".") for k in only)


def offered(finding: Finding, unsafe: bool) -> bool:
    return finding.fix is not None and bool(finding.fix.edits) and (
        finding.fix.applicability == "safe" or unsafe)


class ActionMaker:
    """Code actions for one document, from its last check (``text``: the text checked;
    ``text_of``: another file's text, for a fix that edits it too)."""

    def __init__(self, uri: str, path: str, text: str, encoding: str, unsafe: bool,
                 text_of: Callable[[str], Optional[str]]):
        self.uri, self.path, self.text, self.encoding, self.unsafe = uri, path, text, encoding, unsafe
        self.lines = text.splitlines()
        self.text_of = text_of

    def _line(self, lines: List[str], number: int) -> str:
        return lines[number] if 0 <= number < len(lines) else ""

    def text_edits(self, edits: Sequence[Edit], lines: List[str]) -> List[types.TextEdit]:
        return [types.TextEdit(types.Range(
            types.Position(e.line - 1, to_client(self._line(lines, e.line - 1), e.column, self.encoding)),
            types.Position(e.end_line - 1, to_client(self._line(lines, e.end_line - 1), e.end_column, self.encoding))),
            e.text) for e in edits]

    def workspace_edit(self, edits: Sequence[Edit]) -> Optional[types.WorkspaceEdit]:
        changes: Dict[str, List[types.TextEdit]] = {}
        for path in dict.fromkeys(e.path for e in edits):
            if path == self.path:
                uri, lines = self.uri, self.lines
            else:
                text = self.text_of(path)
                if text is None:
                    return None  # a file the fix needs cannot be read: no half fix
                uri, lines = path_to_uri(path), text.splitlines()
            changes[uri] = self.text_edits([e for e in edits if e.path == path], lines)
        return types.WorkspaceEdit(changes=changes)

    def parses(self, edits: Sequence[Edit]) -> bool:
        """Whether this document still parses with the edits made (``--fix``'s first check; the
        compile and re-check it goes on with are the new diagnostics the edit brings)."""
        if not self.path.endswith(".py"):
            return True
        try:
            ast.parse(apply_edits(self.text, [e for e in edits if e.path == self.path]))
        except (SyntaxError, ValueError):
            return False
        return True

    def fix(self, finding: Finding, diagnostic: types.Diagnostic) -> Optional[types.CodeAction]:
        if not offered(finding, self.unsafe) or not self.parses(finding.fix.edits):
            return None
        edit = self.workspace_edit(finding.fix.edits)
        if edit is None:
            return None
        safe = finding.fix.applicability == "safe"
        title = f"{finding.code}: {finding.fix.description}" + ("" if safe else " (unsafe fix)")
        return types.CodeAction(title=title, kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic],
                                edit=edit, is_preferred=safe)

    def noqa(self, finding: Finding, diagnostic: types.Diagnostic) -> Optional[types.CodeAction]:
        """``# noqa: CODE`` on the finding's line (in this document only: a suppression
        belongs where the finding is)."""
        if finding.path != self.path:
            return None
        line = self._line(self.lines, finding.line - 1)
        insertion = noqa_insertion(line, finding.code, comment_leader(self.path))
        if insertion is None:
            return None
        column, text = insertion
        position = types.Position(finding.line - 1, to_client(line, column, self.encoding))
        edit = types.WorkspaceEdit(changes={self.uri: [types.TextEdit(types.Range(position, position), text)]})
        return types.CodeAction(title=f"Disable {finding.code} for this line", kind=types.CodeActionKind.QuickFix,
                                diagnostics=[diagnostic], edit=edit)

    def fix_all(self, findings: Sequence[Finding]) -> Optional[types.CodeAction]:
        """Every offered fix whose edits stay in this document, as ``--fix`` applies them
        (an edit inside another is dropped), sent as the lines that change."""
        edits = [e for f in findings if offered(f, self.unsafe) and all(e.path == self.path for e in f.fix.edits)
                 for e in f.fix.edits]
        if not edits:
            return None
        fixed = apply_edits(self.text, edits)
        if fixed == self.text or not self.parses(edits):
            return None
        count = sum(1 for f in findings if offered(f, self.unsafe) and all(e.path == self.path for e in f.fix.edits))
        changes = line_edits(self.text, fixed)
        return types.CodeAction(title=f"kernlint: fix all ({count} finding{'s' if count != 1 else ''})",
                                kind=FIX_ALL, edit=types.WorkspaceEdit(changes={self.uri: changes}))


def line_edits(before: str, after: str) -> List[types.TextEdit]:
    """Whole-line edits that turn ``before`` into ``after`` (the editor keeps the cursor and
    folds of the lines that do not change)."""
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    edits = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        edits.append(types.TextEdit(types.Range(types.Position(i1, 0), types.Position(i2, 0)), "".join(new[j1:j2])))
    return edits


def overlaps(a: types.Range, b: types.Range) -> bool:
    def key(p: types.Position) -> Tuple[int, int]:
        return p.line, p.character

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)
