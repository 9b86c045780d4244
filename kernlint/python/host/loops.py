"""Loops: a loop's facts (``analysis.host.Loop``) as its syntax gives them — what it binds and
rebinds, what decides when it ends (its kind, and how often each statement in it runs, are
``frequency``'s). May import ``python.syntax`` and ``analysis.host``.
"""

from __future__ import annotations

import ast

from ...analysis.host import Loop
from ..syntax import PyModule
from .frames import Frame, place_of
from .names import names_read, rebinds, target_names, whole_targets



class LoopReader:
    """Reads the loops of one file (``module``)."""

    def __init__(self, module: PyModule):
        self.module = module

    def read(self, node: ast.AST, kind: str, frame: Frame, number: int) -> Loop:
        """The facts of loop ``number``, a ``for`` or ``while`` (``kind``) read in ``frame``."""
        parent = frame.loops[-1] if frame.loops else None
        loop = Loop(number, place_of(self.module.path, node), kind, frame.qualname, parent)
        inside = [sub for statement in getattr(node, "body", []) for sub in ast.walk(statement)]
        if isinstance(node, (ast.For, ast.AsyncFor)):
            loop.varying.update(target_names(node.target))
            loop.targets.update(target_names(node.target))
            loop.rebound.update(whole_targets(node.target))
        for sub in inside:
            loop.rebound |= rebinds(sub)
            if isinstance(sub, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
                for target in targets:
                    loop.varying.update(target_names(target))
            elif isinstance(sub, (ast.For, ast.AsyncFor, ast.comprehension)):
                loop.varying.update(target_names(sub.target))
            elif isinstance(sub, ast.If) and any(isinstance(s, ast.Break) for s in sub.body):
                loop.deciding.update(names_read(sub.test))
        if isinstance(node, ast.While):
            loop.deciding.update(names_read(node.test))
        return loop
