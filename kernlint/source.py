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
from typing import Callable, Dict, List, Optional

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
        by_line: Dict[int, List[ast.AST]] = defaultdict(list)
        if self.tree is not None:
            for node in ast.walk(self.tree):
                lineno = getattr(node, "lineno", None)
                if lineno is not None:
                    by_line[lineno].append(node)
        for nodes in by_line.values():
            nodes.sort(key=lambda n: n.col_offset)
        return by_line

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
