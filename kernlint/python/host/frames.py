"""Where the host reader is: a frame (the function or class body being read, its scope, the
types of its names, the loops around it), and the place of a node in a file. May import
``python.syntax`` and ``analysis.host``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Dict, Optional, Tuple

from ...analysis.host import Place
from ..syntax import FunctionNode, Scope


@dataclass
class Frame:
    """A function's (or a class body's, or the module's) reading: its names' types in ``env``
    (shared, the same dict, by the frames of the loops inside it)."""

    function: Optional[FunctionNode]
    qualname: str
    scope: Scope
    env: Dict[str, object] = field(default_factory=dict)
    parent: Optional["Frame"] = None
    owner: Optional[str] = None  # the class a method belongs to
    loops: Tuple[int, ...] = ()
    owner_node: Optional[ast.ClassDef] = None  # that class's definition (in the class body's frame)


def frame_for(frame: Frame, function: FunctionNode) -> Frame:
    """The frame, of ``frame`` and those around it, that reads ``function``."""
    current: Optional[Frame] = frame
    while current is not None:
        if current.function is function:
            return current
        current = current.parent
    return frame


def nested_qualname(frame: Frame, function: FunctionNode, name: str) -> str:
    owner = frame_for(frame, function)
    return f"{owner.qualname}.{name}" if owner.qualname else name


def within(frame: Frame, loop: int) -> Frame:
    """The same frame (same names) seen from inside a loop."""
    return Frame(frame.function, frame.qualname, frame.scope, frame.env, frame.parent, frame.owner,
                 frame.loops + (loop,))


def place_of(path: str, node: ast.AST) -> Place:
    return Place(path, getattr(node, "lineno", 1), getattr(node, "col_offset", 0) + 1)
