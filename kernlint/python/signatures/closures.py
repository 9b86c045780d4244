"""What a factory-made kernel closed over in a recorded run (``kernlint record``).

A kernel made in a function (``def get_kernel(self, configuration): ... D = configuration.D``)
closes over values computed at run time, often from objects the user's script builds;
reading the source cannot give them. ``kernlint record`` writes what each launched kernel
closed over into the signatures file, one ``[[closures]]`` table per distinct closure, with
the signatures launched with it::

    [[closures]]
    kernel = "pkg/integrators.py::NVE.get_kernel.step"
    line = 24
    signatures = ["void(float32[:, ::1], int32)"]
    options = { fastmath = false }
    values = { D = 3, dt = { scalar = 0.005, dtype = "float32" }, apply_pbc = { function = ... } }

A value is a TOML number, boolean or string, or a table saying what it is: ``tuple``,
``scalar`` (a NumPy scalar with its ``dtype``), ``array`` (dtype, shape, order, and the
elements where the run's array was small), ``numpy`` (a NumPy type), ``numba_type``,
``function`` (a def of the project, by qualified name, path and line, with its own
``closure`` and how it was jitted), ``named`` (a class or builtin function by its dotted
name: ``math.sin``, ``numpy.sqrt``), ``empty`` (a cell never bound), ``unsupported``.
This module reads and writes them; ``slicing`` rebuilds the values (functions from their defs).
"""

from __future__ import annotations

import json
import math
import os
import re
import tomllib
from typing import Any, Callable, Dict, List, Optional

# path -> kernel qualified name -> [{"values": {...}, "options": {...}, "signatures": [...]}]
Closures = Dict[str, Dict[str, List[Dict[str, Any]]]]

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


class Unrebuildable(Exception):
    """A recorded value kernlint cannot turn back into a value (it says what it was)."""


class Empty:
    """A closure cell the run never bound (``if compute_k: k_id = ...``)."""

    def __repr__(self) -> str:
        return "<empty cell>"


EMPTY = Empty()


def add_closure(into: Closures, path: str, kernel: str, values: Dict[str, Any], options: Dict[str, Any],
                signatures, line: Optional[int] = None) -> None:
    """One recorded closure, merged with an equal one already there (their signatures joined).
    ``line`` is the function's first line: defs of one name in one function are told apart."""
    entries = into.setdefault(path, {}).setdefault(kernel, [])
    for entry in entries:
        if entry["values"] == values and entry["options"] == options and entry.get("line") == line:
            entry["signatures"] = sorted(set(entry["signatures"]) | set(signatures))
            return
    entry = {"values": values, "options": dict(options), "signatures": sorted(set(signatures))}
    if line is not None:
        entry["line"] = line
    entries.append(entry)


def _paths(value: Any, change: Callable[[str], str]) -> Any:
    """The value with each recorded function's path changed (relative in the file, absolute in memory)."""
    if isinstance(value, list):
        return [_paths(v, change) for v in value]
    if not isinstance(value, dict):
        return value
    changed = {k: _paths(v, change) for k, v in value.items()}
    if "function" in value and isinstance(value.get("path"), str):
        changed["path"] = change(value["path"])
    return changed


def absolute(values: Dict[str, Any], base: str) -> Dict[str, Any]:
    return _paths(values, lambda p: os.path.abspath(os.path.join(base, p)))


def relative(values: Dict[str, Any], base: str) -> Dict[str, Any]:
    def change(path: str) -> str:
        inside = os.path.abspath(path).startswith(os.path.abspath(base).rstrip(os.sep) + os.sep)
        return os.path.relpath(path, base).replace(os.sep, "/") if inside else path
    return _paths(values, change)


def functions_within(closures: Closures) -> Closures:
    """The functions the recorded closures hold (device functions a kernel calls, made by
    factories too), each with its own closure: path -> qualified name -> closures, as for a
    kernel (with the signatures it was compiled for, where the run compiled it)."""
    found: Closures = {}

    def walk(value: Any) -> None:
        if isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            if "function" in value and isinstance(value.get("path"), str):
                add_closure(found, value["path"], value["function"], value.get("closure", {}),
                            value.get("options", {}), value.get("signatures", []), value.get("line"))
            for item in value.values():
                walk(item)

    for kernels in closures.values():
        for entries in kernels.values():
            for entry in entries:
                walk(entry["values"])
    return found


def read_closures(path: str) -> Closures:
    """The ``[[closures]]`` tables of the signatures file (function paths made absolute).
    A missing file gives nothing; one that does not parse, or a malformed table, raises ValueError."""
    if not os.path.isfile(path):
        return {}
    try:
        with open(path, "rb") as handle:
            tables = tomllib.load(handle).get("closures", [])
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path}: cannot read: {exc}") from None
    base = os.path.dirname(path)
    found: Closures = {}
    for number, table in enumerate(tables if isinstance(tables, list) else [tables], 1):
        kernel = table.get("kernel") if isinstance(table, dict) else None
        signatures = table.get("signatures", []) if isinstance(table, dict) else None
        values = table.get("values", {}) if isinstance(table, dict) else None
        options = table.get("options", {}) if isinstance(table, dict) else None
        line = table.get("line") if isinstance(table, dict) else None
        if not isinstance(kernel, str) or "::" not in kernel or not isinstance(values, dict) or \
                not isinstance(options, dict) or not isinstance(signatures, list) or \
                not all(isinstance(s, str) for s in signatures) or not isinstance(line, (int, type(None))):
            raise ValueError(f'{path}: [[closures]] table {number}: expected kernel = "path.py::kernel", '
                             f'line = N, signatures = ["void(...)", ...], values = {{ ... }}')
        file_part, qualname = kernel.rsplit("::", 1)
        add_closure(found, os.path.abspath(os.path.join(base, file_part)), qualname,
                    absolute(values, base), options, signatures, line)
    return found


def closure_lines(closures: Closures, base: str) -> List[str]:
    """The ``[[closures]]`` tables of the signatures file, sorted so that it diffs well."""
    lines: List[str] = []
    for file in sorted(closures, key=lambda p: os.path.relpath(p, base)):
        for kernel in sorted(closures[file]):
            entries = sorted(closures[file][kernel], key=lambda e: json.dumps(
                [e.get("line", 0), e["values"], e["options"]], sort_keys=True))
            for entry in entries:
                key = f"{os.path.relpath(file, base).replace(os.sep, '/')}::{kernel}"
                lines += ["", "[[closures]]", f"kernel = {json.dumps(key)}"]
                if entry.get("line") is not None:
                    lines.append(f"line = {entry['line']}")
                lines += [f"signatures = {toml_value(sorted(entry['signatures']))}",
                          f"options = {toml_value(entry['options'])}",
                          f"values = {toml_value(relative(entry['values'], base))}"]
    return lines


def toml_value(value: Any) -> str:
    """A value as TOML, inline (standard library Python reads TOML but does not write it)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # JSON's string escapes are TOML's basic-string escapes
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f"{k if _BARE_KEY.match(k) else json.dumps(k)} = {toml_value(v)}"
                 for k, v in sorted(value.items()) if v is not None]
        return "{ " + ", ".join(items) + " }"
    raise TypeError(f"cannot write {type(value).__name__} as TOML")


def rebuild(value: Any, function: Callable[[Dict[str, Any]], Any], standin: Callable[[str], None],
            named: Callable[[str], Any] = None) -> Any:
    """The Python value of a recorded one. ``function`` makes a recorded function from its
    table, ``named`` finds a class or builtin function by its dotted name (``math.sin``);
    ``standin`` is told what was stood in (an array recorded without its elements)."""
    if isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        return tuple(rebuild(v, function, standin, named) for v in value)
    if not isinstance(value, dict):
        raise Unrebuildable(f"a {type(value).__name__}")
    import numpy as np

    if "unsupported" in value:
        raise Unrebuildable(f"a `{value['unsupported']}`")
    if "empty" in value:
        return EMPTY
    if "none" in value:
        return None
    if "tuple" in value:
        return tuple(rebuild(v, function, standin, named) for v in value["tuple"])
    if "function" in value:
        return function(value)
    if "named" in value:
        if named is None:
            raise Unrebuildable(f"`{value['named']}`")
        return named(value["named"])
    try:
        if "complex" in value:
            real, imag = value["complex"]
            return np.dtype(value["dtype"]).type(complex(real, imag)) if "dtype" in value else complex(real, imag)
        if "scalar" in value:
            return np.dtype(value["dtype"]).type(value["scalar"])
        if "shape" in value:
            dtype, shape, order = np.dtype(value["dtype"]), tuple(value["shape"]), value.get("order", "C")
            if value.get("array") is None:
                standin(f"zeros of {dtype}{list(shape)} (the run's array was too large to record)")
                return np.zeros(shape, dtype=dtype, order=order)
            return np.array(value["array"], dtype=dtype).reshape(shape, order=order)
        if "numpy" in value:
            found = getattr(np, value["numpy"], None)
            if isinstance(found, type):
                return found
        elif "dtype" in value:
            return np.dtype(value["dtype"])
        if "numba_type" in value:
            from numba.core import types

            from ..static_types import evaluate_type_text

            try:  # spelled as in signatures
                found = evaluate_type_text(value["numba_type"])
            except Exception:  # noqa: BLE001 - any spelling it cannot read
                found = None
            if isinstance(found, types.Type):
                return found
            raise Unrebuildable(f"the numba type `{value['numba_type']}`")
    except (TypeError, ValueError, KeyError) as exc:
        raise Unrebuildable(f"{json.dumps(value)[:80]} ({exc})") from None
    if "module" in value:
        raise Unrebuildable(f"the module `{value['module']}`")
    raise Unrebuildable(json.dumps(value)[:80])
