"""What an operator calls: ``a + b`` is ``a.__add__(b)``, or ``b.__radd__(a)`` where ``a``'s
class leaves it out; ``-a`` is ``a.__neg__()``; ``a < b`` is ``a.__lt__(b)``, else
``b.__gt__(a)``. Where an operand is an object of a project class (a tensor whose operators
launch kernels), the operator is read as the method call it makes: its result's type is what
the method returns, and what the method costs counts where the operator is written. Imports
nothing of kernlint."""

from __future__ import annotations

import ast
import weakref
from typing import Tuple

BINARY = {ast.Add: ("add", "+"), ast.Sub: ("sub", "-"), ast.Mult: ("mul", "*"), ast.MatMult: ("matmul", "@"),
          ast.Div: ("truediv", "/"), ast.FloorDiv: ("floordiv", "//"), ast.Mod: ("mod", "%"),
          ast.Pow: ("pow", "**"), ast.LShift: ("lshift", "<<"), ast.RShift: ("rshift", ">>"),
          ast.BitOr: ("or", "|"), ast.BitXor: ("xor", "^"), ast.BitAnd: ("and", "&")}
UNARY = {ast.USub: ("__neg__", "-"), ast.UAdd: ("__pos__", "+"), ast.Invert: ("__invert__", "~")}
# a comparison's method, and the one its right operand's class answers with (`a < b`: `b > a`)
COMPARE = {ast.Lt: ("__lt__", "__gt__", "<"), ast.LtE: ("__le__", "__ge__", "<="), ast.Gt: ("__gt__", "__lt__", ">"),
           ast.GtE: ("__ge__", "__le__", ">="), ast.Eq: ("__eq__", "__eq__", "=="), ast.NotEq: ("__ne__", "__ne__", "!=")}

OperatorNode = (ast.BinOp, ast.UnaryOp, ast.Compare)

# node -> its calls, made once: readers key what they learn of a call by its identity
_made: "weakref.WeakKeyDictionary[ast.AST, Tuple[ast.Call, ...]]" = weakref.WeakKeyDictionary()


def operator_calls(node: ast.AST) -> Tuple[ast.Call, ...]:
    """The method calls an operator expression may make, in the order Python tries them (the
    left operand's method, then the right operand's reflected one); none for another node, a
    chained comparison or ``is``/``in``. Each call is placed where the operator is written."""
    if not isinstance(node, OperatorNode):
        return ()
    made = _made.get(node)
    if made is None:
        made = _made[node] = tuple(ast.copy_location(call, node) for call in _calls(node))
    return made


def symbol(node: ast.AST) -> str:
    """The operator as written (``+``, ``@``, unary ``-``); empty for another node."""
    if isinstance(node, ast.BinOp) and type(node.op) in BINARY:
        return BINARY[type(node.op)][1]
    if isinstance(node, ast.UnaryOp) and type(node.op) in UNARY:
        return UNARY[type(node.op)][1]
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in COMPARE:
        return COMPARE[type(node.ops[0])][2]
    return ""


def _calls(node: ast.AST):
    def method(value: ast.expr, name: str, *args: ast.expr) -> ast.Call:
        return ast.Call(func=ast.Attribute(value=value, attr=name, ctx=ast.Load()), args=list(args), keywords=[])

    if isinstance(node, ast.BinOp) and type(node.op) in BINARY:
        name = BINARY[type(node.op)][0]
        return method(node.left, f"__{name}__", node.right), method(node.right, f"__r{name}__", node.left)
    if isinstance(node, ast.UnaryOp) and type(node.op) in UNARY:
        return (method(node.operand, UNARY[type(node.op)][0]),)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in COMPARE:
        direct, reflected, _ = COMPARE[type(node.ops[0])]
        return method(node.left, direct, node.comparators[0]), method(node.comparators[0], reflected, node.left)
    return ()
