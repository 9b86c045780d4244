"""The slice's record of its stand-ins: what each one stands for, and which stand-ins each
global and dispatcher rests on (made while it was made, or before by the globals it read),
so that a kernel lists every stand-in its IR depends on."""

from __future__ import annotations

import contextlib
from typing import Any, Dict, List, Tuple


class Standins:
    """Shared by the slicer's parts: each reports the stand-ins it makes and the values it reuses."""

    def __init__(self):
        # (path, name, ...) -> what it stands for (a name may stand in differently in two functions)
        self.described: Dict[Tuple[str, ...], str] = {}
        # which stand-ins each global and kernel rests on: the sets being collected (innermost
        # last), and what each global's or dispatcher's making used
        self._collecting: List[set] = []
        self.standins_of: Dict[Any, frozenset] = {}

    @contextlib.contextmanager
    def collecting(self):
        """The keys of the stand-ins what runs inside rests on (made there, or before by the
        globals it reads)."""
        used: set = set()
        self._collecting.append(used)
        try:
            yield used
        finally:
            self._collecting.pop()
            for outer in self._collecting:
                outer |= used

    def stood_in(self, key: Tuple[str, ...], what: str) -> None:
        self.described[key] = what
        for frame in self._collecting:
            frame.add(key)

    def rests_on(self, key: Any) -> None:
        for frame in self._collecting:
            frame |= self.standins_of.get(key, frozenset())
