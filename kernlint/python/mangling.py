"""Private names as Python compiles them: inside a class body, ``self.__x`` is the attribute
``_Class__x`` (the class's name without its leading underscores), and ``def __m`` defines
``_Class__m``. A subclass's ``self.__x`` is therefore another attribute than its base's, and a
subclass that reads the base's writes it out whole (``self._Base__x``). Reading the tree with
the names mangled lets every reader match writes and reads the way the program does.

Only syntax: this module imports nothing of kernlint's.
"""

from __future__ import annotations

import ast
import re
from typing import Dict, Optional

# decorators under which a method is still a plain attribute of the class: renaming it is safe
# for every reader (a kernel's decorator is not among them: its definition is compiled from
# its own text, which keeps the written name)
_PLAIN_DECORATORS = frozenset({"staticmethod", "classmethod", "property", "setter", "getter", "deleter",
                               "cached_property", "abstractmethod"})


def mangled(name: str, klass: Optional[str]) -> str:
    """``name`` as Python stores it when written inside class ``klass`` (None: outside any)."""
    if klass is None or not name.startswith("__") or name.endswith("__") or "." in name:
        return name
    stripped = klass.lstrip("_")
    return f"_{stripped}{name}" if stripped else name


def mangle_private_names(tree: ast.Module, renamed: Optional[Dict[str, str]] = None) -> ast.Module:
    """Rename, in place, the attributes (``obj.__x``) and the methods (``def __m``) written in
    class bodies as Python does; ``renamed`` (if given) gets each new name and the name written."""
    stack = [(node, None) for node in tree.body]  # (node, the class whose body holds it)
    while stack:  # not recursive: a long chain of `+` is deeper than the recursion limit
        node, klass = stack.pop()
        if isinstance(node, ast.ClassDef):
            # the bases, keywords and decorators are evaluated outside the class's own body
            stack.extend((outer, klass) for outer in node.bases + node.keywords + node.decorator_list)
            for statement in node.body:
                if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and all(
                        _decorator_name(d) in _PLAIN_DECORATORS for d in statement.decorator_list):
                    statement.name = _renamed(statement.name, node.name, renamed)
                stack.append((statement, node.name))
            continue
        if klass is not None and isinstance(node, ast.Attribute):
            node.attr = _renamed(node.attr, klass, renamed)
        stack.extend((child, klass) for child in ast.iter_child_nodes(node))
    return tree


def _renamed(name: str, klass: str, renamed: Optional[Dict[str, str]]) -> str:
    new = mangled(name, klass)
    if renamed is not None and new != name:
        renamed[new] = name
    return new


def as_written(message: str, renamed: Dict[str, str], line: str = "") -> str:
    """``message`` with the names mangled while reading (``self._Sim__d``) put back as the
    code writes them (``self.__d``): a message quotes the user's code. A mangled name the
    finding's ``line`` spells out itself (a subclass reading ``self._Base__x``) is kept: there
    it is what the code says."""
    if not renamed or "__" not in message:
        return message
    for new, name in renamed.items():
        if new in message and new not in line:
            message = re.sub(rf"(?<![\w]){re.escape(new)}(?![\w])", name, message)
    return message


# a private name somewhere in the text (`__x`, not `__init__`): only then is there anything to rename
PRIVATE_NAME = re.compile(r"(?<![\w])__\w*[^\W_]\b")


def _decorator_name(expr: ast.expr) -> str:
    if isinstance(expr, ast.Call):
        expr = expr.func
    if isinstance(expr, ast.Attribute):
        return expr.attr
    return expr.id if isinstance(expr, ast.Name) else ""
