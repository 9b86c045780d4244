"""The signatures found for a project's kernels, whatever their source: a table of path ->
kernel -> (signature, source), and what the sources share."""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

# path -> kernel (qualified name) -> [(signature, source)]
Signatures = Dict[str, Dict[str, List[Tuple[str, str]]]]


def add(into: Signatures, path: str, kernel: str, signature: str, source: str) -> None:
    entries = into.setdefault(path, {}).setdefault(kernel, [])
    if all(existing != signature for existing, _ in entries):
        entries.append((signature, source))


# (path, kernel) -> the argument types of each launch that gives some but not all of them
PartialLaunches = Dict[Tuple[str, str], List[List[Optional[str]]]]


# an array of known elements but unknown rank (`float32[?]`): its rank comes from the body
RANK_UNKNOWN = "[?]"


class Uncached:
    """Reads each time (``cache.FileFacts`` keeps what is read from a file between runs)."""

    @staticmethod
    def get(kind: str, path: str, compute, extra=None):
        return compute()
