"""Command-line options: what ``parser.parse_args()`` gives, read from the ``add_argument``
calls on that parser in the same function (or at the module's top level). Scripts pass
``args.dt`` and ``args.n`` to their launches; each option's type is what argparse makes of
it: ``type=float`` a Python float, ``action="store_true"`` a bool, no ``type`` a string."""

from __future__ import annotations

import ast
from typing import Dict, List, Optional, Set

from ..static_types import Maybe, Namespace, ScalarType, StrType, Type, TypeReader
from ..syntax import own_nodes

# argparse's converters of the builtins: the numba type of the value each makes
_CONVERTED = {"builtins.int": "int64", "builtins.float": "float64", "builtins.bool": "boolean"}
# actions whose value is known whatever the command line says
_ACTIONS = {"store_true": "boolean", "store_false": "boolean"}
_PARSER = "argparse.ArgumentParser"
_GROUPS = ("add_argument_group", "add_mutually_exclusive_group")


def parsed_options(call: ast.Call, scope: ast.AST, reader: TypeReader) -> Optional[Namespace]:
    """The namespace ``parser.parse_args()`` gives, ``parser`` a name that ``scope`` (a function
    or the module) binds to an ``argparse.ArgumentParser``; None for any other call, and where
    the parser is also given subcommands or defaults the reading does not follow."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "parse_args"
            and isinstance(call.func.value, ast.Name)):
        return None
    parser = call.func.value.id
    nodes = list(own_nodes(scope))
    holders = _parser_names(nodes, parser, reader)
    if holders is None:
        return None
    options: Dict[str, Type] = {}
    for node in nodes:
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id in holders):
            continue
        if node.func.attr in ("add_subparsers", "set_defaults", "parse_known_args"):
            return None  # options that come from elsewhere: unknown
        if node.func.attr == "add_argument":
            dest = _destination(node)
            if dest is None:
                return None
            options[dest] = None if dest in options else _option_type(node, reader)
    return Namespace(tuple(sorted(options.items())))


def _parser_names(nodes: List[ast.AST], parser: str, reader: TypeReader) -> Optional[Set[str]]:
    """The parser's name and those of its argument groups, where the scope binds the parser
    once, to an ``argparse.ArgumentParser``; None otherwise."""
    bound = [node.value for node in nodes if isinstance(node, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == parser for t in node.targets)]
    if len(bound) != 1 or not (isinstance(bound[0], ast.Call) and reader.dotted(bound[0].func) == _PARSER):
        return None
    names = {parser}
    for node in nodes:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute) \
                and node.value.func.attr in _GROUPS and isinstance(node.value.func.value, ast.Name) \
                and node.value.func.value.id in names:
            names.add(node.targets[0].id)
    return names


def _destination(call: ast.Call) -> Optional[str]:
    """The attribute an ``add_argument`` call stores its option in, as argparse names it: its
    ``dest``, else its first long option (``--lattice-n``: ``lattice_n``), else its first short
    one, else the positional's name; None where a name is not a literal."""
    for keyword in call.keywords:
        if keyword.arg == "dest":
            return keyword.value.value if isinstance(keyword.value, ast.Constant) and isinstance(
                keyword.value.value, str) else None
    names = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    if not names or len(names) != len(call.args):
        return None
    long = [n for n in names if n.startswith("--")]
    if long:
        return long[0][2:].replace("-", "_")
    if names[0].startswith("-"):
        return names[0].lstrip("-").replace("-", "_")
    return names[0]


def _option_type(call: ast.Call, reader: TypeReader) -> Type:
    """The type of one option's value: its ``type``'s (a builtin number or ``str``), or its
    action's; ``None`` too where it is optional without a default; unknown for lists (``nargs``),
    other actions and converters, and defaults of another type (argparse converts only strings)."""
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    if "nargs" in keywords or "const" in keywords:
        return None
    action = keywords.get("action")
    if action is not None:
        name = action.value if isinstance(action, ast.Constant) else None
        if name in _ACTIONS and "type" not in keywords and "default" not in keywords:
            return ScalarType(_ACTIONS[name], weak=True)
        if name != "store":
            return None
    converter = keywords.get("type")
    if converter is None:
        made: Type = StrType()
    elif reader.dotted(converter) in _CONVERTED:
        made = ScalarType(_CONVERTED[reader.dotted(converter)], weak=True)
    elif reader.dotted(converter) == "builtins.str":
        made = StrType()
    else:
        return None
    positional = not all(isinstance(a, ast.Constant) and str(a.value).startswith("-") for a in call.args)
    required = positional or isinstance(keywords.get("required"), ast.Constant) and keywords["required"].value is True
    default = keywords.get("default")
    if default is None or isinstance(default, ast.Constant) and default.value is None:
        return made if required else Maybe(made)
    if not isinstance(default, ast.Constant):
        return None
    if isinstance(default.value, str):
        return made  # argparse converts a string default as it converts the command line
    literal = reader.type_of(default)
    if isinstance(made, ScalarType) and isinstance(literal, ScalarType) and literal.dtype == made.dtype:
        return made
    return None
