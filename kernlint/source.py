"""The user's source file: decoded text, comments, and exact columns from its AST.

numba-cuda's line info has no columns (always 1), so a finding's column comes
from the Python AST: the ``print(`` call, the ``int(`` conversion, the ``raise``.
"""

from __future__ import annotations

import ast
import io
import os
import re
import tokenize
from collections import defaultdict
from functools import cached_property
from typing import Callable, Dict, Iterator, List, Optional, Tuple

_CONVERSION_NAME = re.compile(
    r"^(u?int(8|16|32|64|p|c|_)?|u?long(long)?|u?short|u?byte|unchecked_int|saturating_int)$"
)

NodeFilter = Callable[[ast.AST], bool]

# Files whose contents come from elsewhere than the disk: an editor's buffer piped to
# `kernlint check - --stdin-filename PATH` is read as PATH by every layer.
_BUFFERS: Dict[str, bytes] = {}


def use_buffer(path: str, data: bytes) -> None:
    _BUFFERS[os.path.abspath(path)] = data


def buffers() -> Dict[str, bytes]:
    return dict(_BUFFERS)


def drop_buffer(path: str) -> None:
    _BUFFERS.pop(os.path.abspath(path), None)


def read_bytes(path: str) -> bytes:
    """A file's bytes: its buffer where one is registered, else the disk's (OSError if none)."""
    data = _BUFFERS.get(os.path.abspath(path))
    if data is not None:
        return data
    with open(path, "rb") as handle:
        return handle.read()


def _call_name(node: ast.AST) -> str:
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name):
            return func.id
        if isinstance(func, ast.Attribute):
            return func.attr
    return ""


def is_print(node: ast.AST) -> bool:
    return _call_name(node) == "print"


def is_conversion(node: ast.AST) -> bool:
    return bool(_CONVERSION_NAME.match(_call_name(node)))


def is_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call)


def is_raise(node: ast.AST) -> bool:
    return isinstance(node, (ast.Raise, ast.Assert))


def undecodable(data: bytes):
    """(line, reason) for source Python could not decode."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        encoding = "utf-8"
    if b"\0" in data:
        return data[: data.index(b"\0")].count(b"\n") + 1, "cannot read: binary data (a NUL byte)"
    try:
        data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        start = getattr(exc, "start", 0)
        return (data[:start].count(b"\n") + 1,
                f"cannot read: not valid {encoding.upper()} text and no coding declaration says otherwise")
    return 1, "cannot read: invalid coding declaration"


# the sources each target covers
SUFFIXES = {"cuda": (".py",), "rocm": (".hip", ".ll", ".bc")}
SOURCE_SUFFIXES = (".py", ".hip", ".ll", ".bc")


def suffixes(target: str = "auto"):
    """The sources a target covers: numba.cuda Python, or ROCm's HIP and IR; auto: all."""
    return SUFFIXES.get(target, SOURCE_SUFFIXES)


_SKIP_DIRS = frozenset({"__pycache__", "node_modules", "site-packages", "dist-packages", "build", "dist"})


def walk(directory: str, suffixes: Tuple[str, ...]) -> Iterator[str]:
    """Files under a directory with one of the suffixes, in a stable order, leaving out hidden
    folders, virtual environments, build outputs and installed packages."""
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(
            d for d in dirs
            if not d.startswith(".") and d not in _SKIP_DIRS
            and not os.path.exists(os.path.join(root, d, "pyvenv.cfg"))
        )
        yield from (os.path.join(root, f) for f in sorted(files) if f.endswith(suffixes))


def decode_source(data: bytes) -> str:
    """Decode as Python does (PEP 263 coding cookie, BOM); raises on bad bytes."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding)


class SourceFile:
    def __init__(self, path: str, text: str):
        self.path = path
        self.text = text
        self.lines = text.splitlines()

    @classmethod
    def read(cls, path: str) -> "SourceFile":
        return cls(path, decode_source(read_bytes(path)))

    @classmethod
    def read_or_none(cls, path: str) -> Optional["SourceFile"]:
        """The file, or None where it cannot be read or decoded (its diagnostic comes elsewhere)."""
        try:
            return cls.read(path)
        except (OSError, UnicodeDecodeError, SyntaxError, LookupError):
            return None

    def line(self, number: int) -> str:
        return self.lines[number - 1] if 0 < number <= len(self.lines) else ""

    @cached_property
    def tree(self) -> Optional[ast.AST]:
        try:
            return ast.parse(self.text)
        except (SyntaxError, ValueError):
            return None

    @cached_property
    def _nodes_by_line(self) -> Dict[int, List[ast.AST]]:
        """The nodes that start on each line, leftmost first."""
        return {line: sorted(nodes, key=lambda n: n.col_offset)
                for line, nodes in self._walk_order_by_line.items()}

    def nodes_at(self, line: int) -> List[ast.AST]:
        """The nodes that start on ``line``, in ``ast.walk`` order."""
        return self._walk_order_by_line.get(line, [])

    @cached_property
    def _walk_order_by_line(self) -> Dict[int, List[ast.AST]]:
        by_line: Dict[int, List[ast.AST]] = defaultdict(list)
        if self.tree is not None:
            for node in ast.walk(self.tree):
                lineno = getattr(node, "lineno", None)
                if lineno is not None:
                    by_line[lineno].append(node)
        return by_line

    @cached_property
    def edits(self) -> "SourceEdits":
        """Where statements are and how to edit them: built once per file, shared by its kernels."""
        return SourceEdits(self)

    def column_of(self, line: int, accept: NodeFilter) -> int:
        """1-based column of the first node on ``line`` that ``accept`` takes, or 0."""
        text = self.line(line)
        for node in self._nodes_by_line.get(line, ()):
            if accept(node):
                return len(text.encode()[: node.col_offset].decode(errors="replace")) + 1
        return 0

    def column(self, line: int, *filters: NodeFilter) -> int:
        """1-based column of the first node on ``line`` accepted by a filter, tried in order;
        else of the line's first non-blank character."""
        for accept in filters:
            column = self.column_of(line, accept)
            if column:
                return column
        text = self.line(line)
        return len(text) - len(text.lstrip()) + 1 if text.strip() else 1

    def comments_above(self, line: int) -> List[str]:
        """The contiguous comment lines directly above ``line`` (nearest last)."""
        comments: List[str] = []
        number = line - 1
        while number >= 1 and self.line(number).lstrip().startswith("#"):
            comments.append(self.line(number).strip())
            number -= 1
        return list(reversed(comments))


# -- source edits (kernlint check --fix) ----------------------------------------------------

def _parents(tree: ast.AST) -> Dict[int, ast.AST]:
    parents: Dict[int, ast.AST] = {}
    for parent in ast.walk(tree):
        for child in ast.iter_child_nodes(parent):
            parents[id(child)] = parent
    return parents


class SourceEdits:
    """Where statements are in a file, and the edits that delete or replace them. Columns
    are characters (ast's are UTF-8 byte offsets)."""

    def __init__(self, source: SourceFile):
        self.source = source
        self.tree = source.tree
        self.parents = _parents(self.tree) if self.tree is not None else {}

    def char_column(self, line: int, byte_offset: int) -> int:
        return len(self.source.line(line).encode()[:byte_offset].decode(errors="replace"))

    def parent(self, node: ast.AST) -> Optional[ast.AST]:
        return self.parents.get(id(node))

    def function_of(self, node: ast.AST) -> Optional[ast.AST]:
        current = self.parent(node)
        while current is not None and not isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef)):
            current = self.parent(current)
        return current

    def statements_at(self, line: int) -> List[ast.stmt]:
        """Statements whose first line is ``line``, outermost first."""
        return [n for n in self.source.nodes_at(line) if isinstance(n, ast.stmt)]

    @cached_property
    def _guards(self) -> List[ast.stmt]:
        """Every ``if`` and ``assert``, in ``ast.walk`` order (one walk per file, not per query)."""
        if self.tree is None:
            return []
        return [n for n in ast.walk(self.tree) if isinstance(n, (ast.If, ast.Assert))]

    def guard_at(self, line: int) -> Optional[ast.stmt]:
        """The innermost ``if`` whose test covers ``line``, or the ``assert`` there."""
        found = None
        for node in self._guards:
            if isinstance(node, ast.If) and node.test.lineno <= line <= (node.test.end_lineno or node.lineno):
                if found is None or node.lineno >= found.lineno:
                    found = node
            elif isinstance(node, ast.Assert) and node.lineno <= line <= (node.end_lineno or node.lineno):
                found = node
        return found

    def owns_lines(self, node: ast.stmt) -> bool:
        """The statement alone on its lines (no `a; b`, nothing after it on its last line)."""
        first, last = self.source.line(node.lineno), self.source.line(node.end_lineno or node.lineno)
        before = first.encode()[: node.col_offset].decode(errors="replace")
        after = last.encode()[node.end_col_offset:].decode(errors="replace") if node.end_col_offset else ""
        return not before.strip() and (not after.strip() or after.strip().startswith("#"))

    def delete(self, node: ast.stmt, path: str):
        """Delete a statement's lines; where it is its block's only statement, leave `pass`."""
        from .findings import Edit

        parent = self.parent(node)
        siblings = next((getattr(parent, f) for f in ("body", "orelse", "finalbody", "handlers")
                         if node in getattr(parent, f, [])), [node])
        end = node.end_lineno or node.lineno
        if len(siblings) == 1:
            indent = self.source.line(node.lineno)[: self.char_column(node.lineno, node.col_offset)]
            return Edit(path, node.lineno, 0, end + 1, 0, f"{indent}pass\n")
        return Edit(path, node.lineno, 0, end + 1, 0, "")

    def replace(self, node: ast.AST, text: str, path: str):
        from .findings import Edit

        return Edit(path, node.lineno, self.char_column(node.lineno, node.col_offset), node.end_lineno,
                    self.char_column(node.end_lineno, node.end_col_offset), text)

    def segment(self, node: ast.AST) -> str:
        return ast.get_source_segment(self.source.text, node) or ast.unparse(node)


def apply_edits(text: str, edits) -> str:
    """The text with non-overlapping edits applied (an edit inside another is dropped)."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(line: int, column: int) -> int:
        if line - 1 >= len(lines):
            return len(text)
        return starts[line - 1] + column

    spans = sorted(((offset(e.line, e.column), offset(e.end_line, e.end_column), e.text) for e in edits),
                   key=lambda s: (s[0], -s[1]))
    kept = []
    for start, end, replacement in spans:
        if kept and start < kept[-1][1]:
            continue  # inside (or across) an edit already taken
        kept.append((start, end, replacement))
    for start, end, replacement in reversed(kept):
        text = text[:start] + replacement + text[end:]
    return text
