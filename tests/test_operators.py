"""Operators read as the method calls they make: `a + b` is `a.__add__(b)`, else
`b.__radd__(a)`; on an object of a project class, its type is what the method returns."""
import ast

from kernlint.python.static_types import ArrayType, ScalarType, TypeReader, instance
from kernlint.python.static_types.operators import operator_calls, symbol


def expression(source):
    return ast.parse(source, mode="eval").body


def test_an_operator_calls_the_left_operands_method_then_the_right_operands_reflected_one():
    node = expression("x @ w")
    assert [ast.unparse(c) for c in operator_calls(node)] == ["x.__matmul__(w)", "w.__rmatmul__(x)"]
    assert [ast.unparse(c) for c in operator_calls(expression("-h"))] == ["h.__neg__()"]
    assert [ast.unparse(c) for c in operator_calls(expression("out > 0.5"))] == ["out.__gt__(0.5)",
                                                                                "0.5.__lt__(out)"]
    assert operator_calls(expression("a < b < c")) == () and operator_calls(expression("a in b")) == ()
    assert operator_calls(expression("f(x)")) == () and operator_calls(expression("not x")) == ()
    # made once per node: readers key what they learn of a call by its identity
    assert operator_calls(node)[0] is operator_calls(node)[0]
    assert operator_calls(node)[0].lineno == node.lineno and operator_calls(node)[0].col_offset == node.col_offset
    assert (symbol(node), symbol(expression("-h")), symbol(expression("f(x)"))) == ("@", "-", "")


def test_an_operator_on_a_project_object_gives_what_its_method_returns():
    tensor = instance("/p/tensor.py", "Tensor")
    names = {"x": tensor, "w": tensor, "a": ArrayType("float64", 1, "C", "host", "numpy")}
    asked = []

    def construct(call):
        asked.append(ast.unparse(call))
        return tensor if call.func.attr in ("__mul__", "__add__", "__rsub__") else None

    reader = TypeReader(lambda e: None, lambda name, want_dtype=False: None if want_dtype else names.get(name),
                        construct=construct)
    assert reader.type_of(expression("x * w + 1.0")) == tensor
    assert reader.type_of(expression("1.0 - x")) == tensor  # the reflected method: a float has no `__sub__` here
    assert "x.__mul__(w)" in asked and "(x * w).__add__(1.0)" in asked
    asked.clear()
    # NumPy arrays and numbers are typed as before, and no method of theirs is asked for
    assert reader.type_of(expression("a * 2.0")) == ArrayType("float64", 1, "C", "host", "numpy")
    assert reader.type_of(expression("2 + 3")) == ScalarType("int64", weak=True)
    assert asked == []
    # a class that leaves the operator out: what the operator gives stays unknown
    assert reader.type_of(expression("x / w")) is None


def test_a_long_expression_types_each_operand_once():
    # a 40-term stencil sum: the operator's method lookup and its arithmetic share the operands'
    # types, so the names are looked up once each (typing both again doubled the work per level)
    terms = [f"u{i}[i + {i}]" for i in range(40)]
    looked_up = []

    def lookup(name, want_dtype=False):
        looked_up.append(name)
        if want_dtype:
            return None
        return ScalarType("int64") if name == "i" else ArrayType("float32", 1, "C", "host", "numpy")

    reader = TypeReader(lambda e: None, lookup)
    assert reader.type_of(expression(" + ".join(terms))) == ScalarType("float32")
    assert sorted(set(looked_up)) == sorted({f"u{i}" for i in range(40)} | {"i"})
    assert len(looked_up) == 80  # each `u<k>` and each `i` once

    # on a project class's objects each operator asks its method once, its operands typed once
    tensor = instance("/p/tensor.py", "Tensor")
    asked, looked_up[:] = [], []
    objects = TypeReader(lambda e: None, lambda name, want_dtype=False: looked_up.append(name) or (
        None if want_dtype else tensor), construct=lambda call: asked.append(call) or tensor)
    assert objects.type_of(expression(" * ".join(f"t{i}" for i in range(40)))) == tensor
    assert len(asked) == 39 and len(looked_up) <= 40


def test_a_call_through_a_class_runs_its_class_method_and_what_cls_calls_on_that_class(tmp_path):
    from kernlint.python.host.class_methods import class_method_calls
    from kernlint.python.project import Project
    from kernlint.python.syntax import Scope

    (tmp_path / "ops.py").write_text(
        "class Function:\n"
        "    @classmethod\n"
        "    def apply(cls, *v):\n"
        "        return cls.forward(*v)\n"
        "    def plain(self):\n"
        "        return self\n"
        "class Mul(Function):\n"
        "    @staticmethod\n"
        "    def forward(a, b):\n"
        "        return a\n"
        "class Neg(Function):\n"
        "    @staticmethod\n"
        "    def forward(a):\n"
        "        return a\n"
        "def run(a, b):\n"
        "    Mul.apply(a, b)\n"
        "    Neg.forward(a)\n"
        "    Mul.plain(a)\n"
        "    a.apply(b)\n")
    project = Project()
    module = project.module(str(tmp_path / "ops.py"))
    calls = [node for node in ast.walk(module.tree.body[-1]) if isinstance(node, ast.Call)]
    ops = str(tmp_path / "ops.py")
    found = [class_method_calls(project, module, call, Scope(module)) for call in calls]
    # each subclass's own `forward`, never another subclass's; an object's method is not one
    assert found == [[(ops, "Function.apply"), (ops, "Mul.forward")], [(ops, "Neg.forward")], [], []]
