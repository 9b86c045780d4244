"""What every part of the slicer shares: ``Unresolved`` (a value the slice cannot give without
running the user's code, saying how to supply it), the markers ``MISSING`` and unread factory
parameters (``_Unread``), the stand-in value for a library's number, and the limits."""

from __future__ import annotations

import ast
import os
from typing import Any, Optional, Tuple

from ..syntax import Binding, FunctionNode, PyModule


STANDIN_VALUE = 1.0

# the key of a variant made from a recorded closure: that record (its options and signatures)
RECORDED = "<recorded>"
# the key of a variant's parameters whose values are defaults standing in for what the run
# passes: name -> (the ledger's key, what it stands for), said where the name is read
STOOD_IN = "<stood in>"
MAX_VARIANTS = 8
MAX_ITEMS = 10_000  # items a comprehension the slice evaluates may have
MAX_RECORDED = 8  # the recorded closures a kernel is made with (the first, in the file's order)


class Unresolved(Exception):
    """A value the slice cannot give without running the user's code."""

    def __init__(self, name: str, path: str, line: int, reason: str, hint: str = "", library: str = ""):
        super().__init__(f"`{name}` {reason}")
        self.name = name
        self.path = path
        self.line = line
        self.reason = reason
        self.hint = hint
        self.library = library  # set where the name comes from a library kernlint does not import
        self.use: Optional[Tuple[str, int, int]] = None  # where the function that needs it reads it
        # a parameter or loop variable of an enclosing function: (its binding, the function);
        # the kernel is then made once per value its calls or loop give
        self.local: Optional[Tuple[Binding, FunctionNode]] = None
        # the value needs a factory parameter no call gives (`_Unread`): (the parameter, the
        # factory); a kernel's closure variable computed from it may get a stand-in by its use
        self.unread: Optional[Tuple[str, str]] = None
        # the value comes from what only the run decides (`sys.argv`, a file): a kernel that
        # reads it gets a stand-in by its use (`runtime.RunSource`)
        self.runtime = None

    def of_local(self, binding: Binding, function: FunctionNode) -> "Unresolved":
        self.local = (binding, function)
        return self

    def used_at(self, path: str, line: int, column: int = 1) -> "Unresolved":
        """A copy located at the read that needed it (the first one located keeps its place)."""
        if self.use is not None:
            return self
        located = Unresolved(self.name, self.path, self.line, self.reason, self.hint, self.library)
        located.use = (path, line, column)
        located.local = self.local
        located.unread = self.unread
        located.runtime = self.runtime
        return located

    @property
    def text(self) -> str:
        return f"`{self.name}` {self.reason}" + (f": {self.hint}" if self.hint else "")


class _Missing:
    pass


MISSING = _Missing()


class _Unread:
    """The value of a factory parameter that no call in the file gives (the factory is called
    from other files, with objects made at run time). Anything computed from it is unread;
    a kernel's closure variable that is gets a stand-in by its use (`_closure_standin`)."""

    def __init__(self, why: Unresolved, factory: str):
        why.unread = (why.name, factory)
        self.why = why

    def __repr__(self) -> str:
        return "?"


def _known(value: Any) -> Any:
    """``value``, where it is no unread factory parameter (else why it is not known)."""
    if isinstance(value, _Unread):
        raise value.why
    return value


def _hint_constant(module: PyModule, name: str) -> str:
    relative = os.path.basename(module.path)
    return (f'give its value in [tool.kernlint] constants = {{ "{relative}::{name}" = ... }}, '
            f"or check the file with --import-modules")


def _operate(expr: ast.expr, path: str, operation, *operands):
    """An operator applied to values the slice gave; where the user's expression fails with
    them (``gamma**2`` with a parameter's default ``None``), the expression is unresolved."""
    try:
        return operation(*operands)
    except (TypeError, ValueError, ArithmeticError) as exc:
        shown = ", ".join(repr(o)[:40] for o in operands)
        raise Unresolved(ast.unparse(expr), path, getattr(expr, "lineno", 0),
                         f"fails when evaluated with the values kernlint has for it ({shown}): "
                         f"{type(exc).__name__}: {exc}") from None
