"""Types a function's docstring gives its parameters (numpydoc, Google or reST): a number, an
array of known rank and elements, or an object of a project class it names (``fld : a Fields
object``). May import ``python.project`` and ``python.static_types``.
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass
from typing import Dict, Optional

from ..project import Project
from ..static_types import ArrayType, Maybe, ScalarType, dtype_name, instance
from ..syntax import FunctionNode


_SINGULAR_TITLES = {"Parameter": "Parameters", "Argument": "Arguments"}


def _numpydoc_title(indent: str, title: str) -> str:
    return f"{indent}{title}\n{indent}{'-' * len(title)}"


def documented_types(function: FunctionNode) -> Dict[str, object]:
    """Parameters the function's docstring (numpydoc, Google or reST, read by docstring_parser)
    gives one type: a Python number (``zmin, zmax : float (zmin, optional)``, float64) or an
    array of known rank and elements (``kz : 2darray of float``, ``x : ndarray of complex, shape
    (n, m)``; contiguous, wherever it lives). A type with alternatives (``float or array``,
    ``array_like``) says none."""
    return _documented(function, documented_type)


def _documented(function: FunctionNode, read_type) -> Dict[str, object]:
    """Each parameter the docstring documents, with what ``read_type`` makes of its type text
    (None: says nothing)."""
    import docstring_parser

    text = ast.get_docstring(function)
    if not text:
        return {}
    # `Parameters:` over its dashes, or dashes longer than the title, or `Parameter`, as many
    # write them: docstring_parser reads numpydoc's titles only as written to the letter
    text = re.sub(r"^([ \t]*)(\w[\w ]*?):?[ \t]*\n[ \t]*-{3,}[ \t]*$",
                  lambda m: _numpydoc_title(m[1], _SINGULAR_TITLES.get(m[2], m[2])), text, flags=re.M)
    try:
        parsed = docstring_parser.parse(text)
    except Exception:  # noqa: BLE001 - a docstring the parser cannot read says nothing
        return {}
    arguments = function.args
    names = {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
    found: Dict[str, object] = {}
    for param in parsed.params:
        kind = read_type(param.type_name or "")
        if kind is None:
            continue
        for name in (n.strip().lstrip("*") for n in param.arg_name.split(",")):
            if name in names:
                found[name] = kind
    return found


@dataclass(frozen=True)
class NamedClass:
    """A docstring's ``a Fields object``: a class by its name (the reader finds it in the project)."""

    name: str


def documented_type(text: str):
    """``float``, ``int, optional``, ``float, seconds``: a number; ``1darray of float``,
    ``ndarray of complex, shape (nz, nr)``, ``(n, 3) ndarray of int``: an array; ``a Fields
    object``: an object of a class by that name; ``float or None``, ``Optional[float]``:
    ``Maybe`` one of those; else None."""
    # `an instance of :any:`Smoother``, `a pkg.fields.Smoother`, `an fbpic Species object`: the class's name
    plain = re.sub(r":\w+:`~?([\w.]+)`", r"\1", text)
    named = re.fullmatch(r"\s*(?:an? )?(?:instance of )?(?:[a-z_]\w* )?(?:[a-z_]\w*\.)*([A-Z]\w*)(?: object| instance)?\s*"
                         r"(?:,\s*optional)?(?:\s+(?:corresponding|for|of|that|which|with|containing)\b.*)?\s*", plain)
    if named is not None and not documented_scalar(named.group(1).lower()) and named.group(1) not in (
            "None", "NoneType", "String", "True", "False"):
        return NamedClass(named.group(1))
    alone = re.fullmatch(r"\s*(?:optional\[(.*)\]|(.*?)\s*(?:,\s*)?\bor\s+none|none\s+or\s+(.*?))\s*(,\s*optional)?\s*",
                         text, flags=re.I)
    if alone is not None:
        kind = documented_type(next(g for g in alone.groups()[:3] if g is not None))
        return Maybe(kind) if kind is not None else None
    text = text.lower()
    if re.search(r"\bor\b|\||array_like|array-like|list|tuple|sequence|none", text):
        return None
    words = re.findall(r"\w+", re.sub(r"\(.*?\)", " ", text))
    if words[:1] in (["np"], ["numpy"]):
        words = words[1:]  # `np.float32`
    if not words:
        return None
    if documented_scalar(words[0]):
        if any(documented_scalar(w) or "array" in w for w in words[1:]):
            return None
        return ScalarType(documented_scalar(words[0]))
    ranked = re.search(r"\b([1-9])[ -]?d[ -]?(?:numpy |np |cupy )?(?:nd)?array\b", text)
    shape = re.search(r"\(([^()]*)\)\s*(?:numpy\.|np\.)?ndarray|shape\s*\(([^()]*)\)", text)
    element = re.search(r"\barrays? of (\w+)|ndarray of (\w+)|\bof (?:dtype )?(\w+)", text)
    if element is None or not (ranked or shape) or "array" not in text:
        return None
    word = next(w for w in element.groups() if w)
    dtype = documented_scalar(word) or documented_scalar(word.rstrip("s"))
    if dtype is None:
        return None
    if ranked:
        ndim = int(ranked.group(1))
    else:
        inside = next(g for g in shape.groups() if g is not None)
        ndim = len([d for d in inside.split(",") if d.strip()])
    return ArrayType(dtype, ndim, "C", "", "") if ndim else None


def documented_scalar(word: str) -> Optional[str]:
    """The element type a docstring's word names: NumPy's names (`float`, `int32`, `double`),
    and the English `integer` and `boolean`."""
    return {"integer": "int64", "boolean": "boolean"}.get(word) or dtype_name(word)


def documented_class(kind, project: Project, here: str):
    """A docstring's type with the project's classes it names (``fld : a Fields object``)
    made objects of them: the one class of the project by that name (of several, the one
    nearest ``here``, the file read)."""
    named = kind.value if isinstance(kind, Maybe) else kind
    if not isinstance(named, NamedClass):
        return kind
    made = None
    # the name as written; where no class has it, the other number (`a Field object` of a
    # class `Fields`): prose names a class as it reads
    other = named.name[:-1] if named.name.endswith("s") else named.name + "s"
    for name in (named.name, other):
        found = [module.path for module in (project.module(path) for path in project.files_naming(
            here, name)) if module is not None and any(
            isinstance(s, ast.ClassDef) and s.name == name for s in module.tree.body)]
        if not found:
            continue
        # of several by that name, the one nearest this file (its own package before others)
        nearness = {path: len(os.path.commonpath([path, here])) for path in found}
        nearest = [path for path in found if nearness[path] == max(nearness.values())]
        made = instance(nearest[0], name) if len(nearest) == 1 else None
        break
    return Maybe(made) if isinstance(kind, Maybe) and made is not None else made


# `ndarray of float32`, `array of dtype float32`, `ndarray, dtype float32`, `float32 ndarray`
_ELEMENTS = (re.compile(r"(?<![a-z])(?:nd|[1-9]d)?arrays?\s+of\s+(?:dtype\s+)?(?:np\.|numpy\.|cp\.|cupy\.)?(\w+)"),
             re.compile(r"\b(?:nd)?array\b[^,]*?(?:,|\bwith)?\s*\bdtype\s*[=:]?\s*(?:np\.|numpy\.|cp\.|cupy\.)?(\w+)"),
             re.compile(r"^(?:np\.|numpy\.)?(\w+)\s+(?:numpy\s+|np\s+|cupy\s+)?(?:nd)?array\b"))


def documented_elements(function: FunctionNode) -> Dict[str, tuple]:
    """Parameters whose docstring entry gives their element type, whatever it says of the
    rank (``data : np.ndarray of float32``, ``x : ndarray, dtype float32``, ``float32 ndarray``):
    (dtype, True); a number (``dt : float``): (its type, False). Alternatives say nothing."""
    return _documented(function, _documented_elements)


def _documented_elements(text: str):
    plain = re.sub(r":\w+:`~?([\w.]+)`", r"\1", text).strip().lower()
    plain = re.sub(r",\s*optional\b.*$", "", plain)
    if re.search(r"\bor\b|\||array_like|array-like|\blist\b|\btuple\b|sequence|\bnone\b", plain):
        return None
    if "array" in plain:
        for pattern in _ELEMENTS:
            match = pattern.search(plain)
            if match is not None:
                dtype = documented_scalar(match.group(1)) or documented_scalar(match.group(1).rstrip("s"))
                return (dtype, True) if dtype else None
        return None
    kind = documented_type(text)
    return (kind.dtype, False) if isinstance(kind, ScalarType) else None
