"""What ``if``s on one flag say of each other: a name bound differently on the two sides of
``if use_cuda:`` holds the first side's value under a later ``if use_cuda:`` (or ``if not
use_cuda:``) too, and a name assigned from a flag (``use_cuda = self.use_cuda``) stands for it.

The statement reading tells ``FlagSplits`` what it assigns and what an ``if`` binds on each
side; it keeps that per names (a frame's env, the dict the reading changes in place). May
import the rest of ``kernlint.python``; never compiles.
"""

from __future__ import annotations

import ast
from typing import Dict, Optional, Tuple

from .branches import flag_text, same_type

# (the flag, whether the test negates it)
Flag = Tuple[str, bool]


class FlagSplits:
    """For each names (by id, kept with them): a flag's alias -> the flag it was assigned from,
    and a name an ``if`` on a flag bound differently on its two sides -> (the flag, its value
    when the flag holds, when not, the merge after the ``if``)."""

    def __init__(self) -> None:
        self._aliases: Dict[int, Tuple[dict, Dict[str, str]]] = {}
        self._splits: Dict[int, Tuple[dict, Dict[str, tuple]]] = {}

    @staticmethod
    def _per_names(table: Dict[int, tuple], env: dict) -> dict:
        """``table``'s entry for these names (a dict that outlives the frame may share its id)."""
        held = table.get(id(env))
        if held is None or held[0] is not env:
            held = table[id(env)] = (env, {})
        return held[1]

    def tested(self, test: ast.expr, env: dict) -> Optional[Flag]:
        """(the flag, whether negated) an ``if`` tests: ``use_cuda``, ``not self.use_cuda``, a
        name assigned from a flag standing for it; None for any other test."""
        negated = False
        while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, negated = test.operand, not negated
        text = flag_text(test)
        if text is None:
            return None
        return self._per_names(self._aliases, env).get(text, text), negated

    def sides(self, flag: Flag, env: dict, when_true: dict, when_false: dict) -> None:
        """Names an earlier ``if`` on the same flag bound, still holding that ``if``'s merge:
        their value on each side of this one (added to ``when_true``/``when_false``)."""
        for name, (tested, if_set, if_not, merged) in list(self._per_names(self._splits, env).items()):
            if tested == flag[0] and name in env and env[name] == merged:
                when_true.setdefault(name, if_not if flag[1] else if_set)
                when_false.setdefault(name, if_set if flag[1] else if_not)

    def merged(self, flag: Optional[Flag], name: str, one: object, other: object, env: dict) -> None:
        """After an ``if``: ``name`` held ``one`` after its body and ``other`` after its
        ``else``, and ``env[name]`` is their merge; two different types on a flag's two sides
        are kept for the next ``if`` on that flag."""
        if flag is not None and one is not None and other is not None and same_type(one, other) is None \
                and "." not in name:
            if_set, if_not = (other, one) if flag[1] else (one, other)
            self._per_names(self._splits, env)[name] = (flag[0], if_set, if_not, env[name])

    def assigned(self, name: str, value: ast.expr, env: dict) -> None:
        """``name = value``: what it holds now is this, and it stands for the flag ``value``
        names, if any."""
        self._per_names(self._splits, env).pop(name, None)
        aliases = self._per_names(self._aliases, env)
        aliases.pop(name, None)
        if isinstance(value, (ast.Name, ast.Attribute)) and flag_text(value) is not None:
            aliases[name] = aliases.get(flag_text(value), flag_text(value))
