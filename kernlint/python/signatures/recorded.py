"""Recorded signatures: ``kernlint record -- COMMAND`` runs the user's program and writes the
types of every launch (and what factory-made kernels closed over: ``closures``) to
``kernlint-signatures.toml``, which ``check`` reads."""

from __future__ import annotations

import json
import os
import tomllib
from typing import Optional, Sequence

from ...fsutil import write_atomic
from .closures import Closures, add_closure, closure_lines, read_closures
from .table import Signatures, add

SIGNATURES_FILE = "kernlint-signatures.toml"


def signatures_file(root: str, configured: Optional[str] = None) -> str:
    return os.path.abspath(os.path.join(root, configured or SIGNATURES_FILE))


def read_recorded(path: str) -> Signatures:
    """The signatures file: ``"relative/path.py::Qualified.name" = ["void(...)", ...]``.
    A file that is missing gives nothing; one that does not parse raises ValueError."""
    if not os.path.isfile(path):
        return {}
    try:
        with open(path, "rb") as handle:
            table = tomllib.load(handle).get("signatures", {})
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path}: cannot read: {exc}") from None
    base = os.path.dirname(path)
    found: Signatures = {}
    for key, values in table.items():
        if "::" not in key or not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise ValueError(f'{path}: [signatures] {key!r}: expected "path.py::kernel" = ["void(...)", ...]')
        file_part, kernel = key.rsplit("::", 1)
        for value in values:
            add(found, os.path.abspath(os.path.join(base, file_part)), kernel, value, "recorded")
    return found


def write_recorded(path: str, recorded: Signatures, command: Sequence[str],
                   closures: Optional[Closures] = None) -> int:
    """Merge new recordings (and the closures factory-made kernels were launched with) into
    the signatures file (sorted, one signature per line, so that it diffs well); returns the
    number of signatures written. TOML is written by hand: the standard library only reads it."""
    merged: Signatures = {}
    kept: Closures = {}
    if os.path.isfile(path):
        for file, kernels in read_recorded(path).items():
            for kernel, entries in kernels.items():
                for signature, _ in entries:
                    add(merged, file, kernel, signature, "recorded")
        kept = read_closures(path)
    for file, kernels in recorded.items():
        for kernel, entries in kernels.items():
            for signature, _ in entries:
                add(merged, file, kernel, signature, "recorded")
    for file, kernels in (closures or {}).items():
        for kernel, entries in kernels.items():
            for entry in entries:
                add_closure(kept, file, kernel, entry["values"], entry["options"], entry["signatures"],
                            entry.get("line"))
    base = os.path.dirname(path)
    shown = [os.path.basename(command[0])] + list(command[1:]) if command else []
    lines = [
        f"# Kernel signatures recorded by `kernlint record -- {' '.join(shown)}`.",
        "# `kernlint check` compiles them for kernels that have no signature of their own, and",
        "# makes a factory's kernels with the values they closed over ([[closures]]).",
        "# Review and commit this file like code; `kernlint record` adds to it.",
        "",
        "[signatures]",
    ]
    count = 0
    for file in sorted(merged, key=lambda p: os.path.relpath(p, base)):
        for kernel in sorted(merged[file]):
            key = f"{os.path.relpath(file, base)}::{kernel}"
            lines.append(f"{json.dumps(key)} = [")
            for signature in sorted(s for s, _ in merged[file][kernel]):
                lines.append(f"    {json.dumps(signature)},")
                count += 1
            lines.append("]")
    lines += closure_lines(kept, base)
    write_atomic(path, "\n".join(lines) + "\n")
    return count
