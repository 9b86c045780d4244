"""What a file's reading takes from the facts of the other files it consults, part by part.

A file read one level deeper gives the same facts where every file its reading consulted
gives the same at the next level (``reader.read_host``). Comparing those files' whole
``HostFacts.types()`` asks too much: a test module consulted for one global's type differs
between levels in its own classes' attributes, which the reading never looked at, and the
file is read again at every level. So the reading sees another file's facts through
:class:`Consulted`, which notes each part and key it takes (``facts.globals.get(name)``:
that name; iterating a part: the whole part), and :func:`same_uses` compares only those.
"""

from __future__ import annotations

from typing import Dict, Optional, Set

from ...analysis.host import HostFacts

# the parts of another file's facts a reading may take (``HostFacts.types()``)
PARTS = ("globals", "class_attributes", "class_bases", "class_places", "outgoing", "class_modes",
         "stored_through", "outgoing_variants")
WHOLE = object()  # a part iterated (or measured) as a whole
ANYTHING = "*"  # something else of the facts: compared as ``types()`` whole
_ABSENT = object()

Uses = Dict[str, Dict[str, Set[object]]]  # file -> part -> the keys taken (WHOLE: all of it)


class _Part:
    """One part (a dict) of another file's facts, noting the keys read."""

    __slots__ = ("_data", "_seen")

    def __init__(self, data: dict, seen: Set[object]):
        self._data = data
        self._seen = seen

    def get(self, key, default=None):
        self._seen.add(key)
        return self._data.get(key, default)

    def __getitem__(self, key):
        self._seen.add(key)
        return self._data[key]

    def __contains__(self, key) -> bool:
        self._seen.add(key)
        return key in self._data

    def _whole(self) -> dict:
        self._seen.add(WHOLE)
        return self._data

    def items(self):
        return self._whole().items()

    def keys(self):
        return self._whole().keys()

    def values(self):
        return self._whole().values()

    def __iter__(self):
        return iter(self._whole())

    def __len__(self) -> int:
        return len(self._whole())

    def __bool__(self) -> bool:
        return bool(self._whole())


class Consulted:
    """Another file's facts as a reading sees them: each part read is noted in ``uses``."""

    def __init__(self, facts: HostFacts, uses: Dict[str, Set[object]]):
        self._facts = facts
        self._uses = uses
        self.path = facts.path

    def __getattr__(self, name: str):
        value = getattr(self._facts, name)
        if name in PARTS:
            return _Part(value, self._uses.setdefault(name, set()))
        self._uses.setdefault(ANYTHING, set())
        return value


def merge(into: Uses, uses: Uses) -> None:
    """Add ``uses`` to ``into``."""
    for path, parts in uses.items():
        mine = into.setdefault(path, {})
        for part, keys in parts.items():
            mine.setdefault(part, set()).update(keys)


def same_uses(new: HostFacts, old: HostFacts, parts: Optional[Dict[str, Set[object]]]) -> bool:
    """Whether a file's facts at two levels give the same in every part and key a reading took
    (``parts``; None: nothing was taken from them)."""
    for part, keys in (parts or {}).items():
        if part == ANYTHING:
            if new.types() != old.types():
                return False
            continue
        ours, theirs = getattr(new, part), getattr(old, part)
        if WHOLE in keys:
            if ours != theirs:
                return False
            continue
        if any(ours.get(key, _ABSENT) != theirs.get(key, _ABSENT) for key in keys):
            return False
    return True
