"""Constant expressions the slice evaluates, read, not run: values as Python gives them."""
import numpy as np
import pytest

from kernlint.python.project import Project
from kernlint.python.slicing.slicer import Slicer
from kernlint.python.slicing.unresolved import Unresolved


def value_of(tmp_path, source, name):
    path = tmp_path / "constants.py"
    path.write_text(source)
    project = Project()
    module = project.module(str(path))
    try:
        return Slicer(project).globals.global_value(module, name)
    except Unresolved as exc:  # the diagnostic a kernel reading it would get
        return exc


def test_a_lambda_a_library_calls_is_evaluated_with_its_arguments(tmp_path):
    source = ("import numpy as np\n"
              "E = np.array([[0, 0], [0, 1], [0, -1], [1, 0], [-1, 0]])\n"
              "OPP = np.apply_along_axis(lambda r: np.where(r)[0], 0,\n"
              "    np.array([[-E[i, 0], -E[i, 1]] == E for i in np.arange(0, 5)]).all(axis=2))[0]\n"
              "KEYED = sorted([3, 1, 2], key=lambda v, sign=-1: v * sign)\n")
    assert value_of(tmp_path, source, "OPP").tolist() == [0, 2, 1, 4, 3]
    assert value_of(tmp_path, source, "KEYED") == [3, 2, 1]


def test_a_comparison_gives_what_python_gives(tmp_path):
    source = "import numpy as np\nA = np.arange(3) == 1\nB = 1 < 2 < 3\nC = 1 < 3 < 2\nD = 0 < 1 == 1\n"
    assert value_of(tmp_path, source, "A").tolist() == [False, True, False]
    assert (value_of(tmp_path, source, "B"), value_of(tmp_path, source, "C"), value_of(tmp_path, source, "D")) == (
        True, False, True)


@pytest.mark.parametrize("expression", ["lambda x: x", "(lambda x: x)(2)"])
def test_a_lambda_outside_a_library_call_is_not_a_value(tmp_path, expression):
    # numba cannot compile it in a kernel, and a called lambda is the user's code
    found = value_of(tmp_path, f"F = {expression}\n", "F")
    assert isinstance(found, Unresolved)


def test_a_lambda_given_to_cuda_jit_is_not_compiled(tmp_path):
    found = value_of(tmp_path, "from numba import cuda\nK = cuda.jit(lambda a: None)\n", "K")
    assert isinstance(found, Unresolved) and "lambda" in found.reason


CHOOSER = '''
def choose(kind, scale=2.0):
    half = scale / 2
    if kind == "full":
        return scale
    elif kind == "half":
        return half
    raise ValueError(kind)
'''


@pytest.mark.parametrize("call, expected", [('choose("full")', 2.0), ('choose("half", scale=6.0)', 3.0)])
def test_a_helper_choosing_its_return_by_its_arguments_is_read(tmp_path, call, expected):
    assert value_of(tmp_path, CHOOSER + f"X = {call}\n", "X") == expected


@pytest.mark.parametrize("source, reason", [
    (CHOOSER + 'X = choose("none")\n', "raises for these arguments"),
    # a branch that assigns as well: not read (its binding would not be the branch's)
    ("def pick(k):\n    if k:\n        v = 1\n        return v\n    return 0\nX = pick(1)\n", "does not run it"),
    ("import os\ndef pick(k):\n    if os.environ.get(k):\n        return 1\n    return 0\nX = pick('A')\n", ""),
])
def test_a_helper_whose_choice_cannot_be_read_is_not_run(tmp_path, source, reason):
    found = value_of(tmp_path, source, "X")
    assert isinstance(found, Unresolved) and reason in found.reason
