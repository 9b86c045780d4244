"""An object's modes: tests on its attributes read as formulas, and the worlds they make."""
import ast

import pytest

from kernlint.python.host import modes

NONE, ZERO, TRUE = ("V", "None"), ("V", "== 0.0"), ("V", "true")


def read(test, receiver="self", aliases=None):
    return modes.formula(ast.parse(test, mode="eval").body, modes.attribute_of(receiver, aliases))


@pytest.mark.parametrize("test, expected", [
    ("self.V is None", ("atom", NONE)),
    ("self.V is not None", ("not", ("atom", NONE))),
    ("V is None or V == 0", ("or", (("atom", NONE), ("atom", ZERO)))),  # a parameter stored in self.V
    ("self.V != 0.", ("not", ("atom", ZERO))),  # 0 and 0. are one value
    ("not self.V", ("not", ("atom", TRUE))),
    ("self.kind == 'fast'", ("atom", ("kind", "== 'fast'"))),
    ("self.V > 0", None),  # an order: not a mode
    ("self.V is None or n > 2", None),  # a part that tests something else: no formula
    ("other.V is None", None),  # another object
    ("self.V is True", None),
])
def test_a_test_on_the_objects_attributes_is_a_formula(test, expected):
    assert read(test, aliases={"V": "V"}) == expected


@pytest.mark.parametrize("world, expected", [
    ({NONE: True, ZERO: False}, True),
    ({NONE: False, ZERO: True}, True),
    ({NONE: False, ZERO: False}, False),
    ({NONE: False}, None),  # the world does not say whether V == 0
    ({NONE: True}, True),  # ... and need not
])
def test_a_formula_holds_where_the_world_decides_it(world, expected):
    assert modes.holds(read("V is None or V == 0", aliases={"V": "V"}), world) is expected


def test_worlds_are_the_assignments_one_object_can_have():
    """None equals no value and is false; an attribute equals one value at most."""
    assert modes.worlds([NONE, ZERO]) == [{NONE: True, ZERO: False}, {NONE: False, ZERO: True},
                                          {NONE: False, ZERO: False}]
    assert {NONE: True, TRUE: True} not in modes.worlds([NONE, TRUE])
    fast, exact = ("kind", "== 'fast'"), ("kind", "== 'exact'")
    assert {fast: True, exact: True} not in modes.worlds([fast, exact])
    assert len(modes.worlds([fast, exact])) == 3


def test_a_parameter_stored_unchanged_stands_for_its_attribute():
    method = ast.parse("def __init__(self, V, n, dt):\n"
                       "    self.V = V\n"
                       "    self.n = n\n"
                       "    n = n + 1\n"
                       "    if dt:\n"
                       "        self.dt = dt\n").body[0]
    assert modes.stored_aliases(method, "self") == {"V": "V"}  # `n` is bound again; `dt` stored in an `if`
