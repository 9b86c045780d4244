"""`np.int` and NumPy's other removed aliases of builtins: the kernel is checked as its code
meant, and the stand-in says which alias NumPy >= 1.24 refuses."""
import ast

import numpy
import pytest

from conftest import FIXTURES
from kernlint.engine import Options, check_paths
from kernlint.python.slicing.numpy_aliases import removed_aliases_read, with_removed_aliases

FIXTURE = FIXTURES / "removed_numpy_aliases.py"


@pytest.fixture(scope="module")
def report():
    return check_paths([str(FIXTURE)], Options(timeout=120))


def _standins(report, kernel):
    return sorted({s for stat in report.stats if stat.kernel == kernel for s in stat.standins})


def test_each_kernel_lists_the_aliases_it_reads_and_only_those(report):
    assert not report.skipped
    reach = _standins(report, "reach")  # through its device function
    assert [s.partition(" (")[0] for s in reach] == ["np.int"]
    assert "the builtin `int`" in reach[0] and "NumPy 1.24" in reach[0]
    assert [s.partition(" (")[0] for s in _standins(report, "binned")] == ["np.float", "np.int"]
    assert _standins(report, "narrowed") == []


def test_the_names_numpy_2_removed_are_the_values_they_were(report):
    """`np.Infinity` and `np.float_` (NEP 52): the kernel is checked, the stand-ins say what to write."""
    standins = _standins(report, "nearest_centroid")
    assert [s.partition(" (")[0] for s in standins] == ["np.Infinity", "np.float_"]
    assert all("NumPy 2.0" in s for s in standins)
    assert "write `np.inf`" in standins[0] and "write `np.float64`" in standins[1]
    aliased = with_removed_aliases(numpy)
    assert aliased.Infinity == numpy.inf and aliased.NINF == -numpy.inf and aliased.float_ is numpy.float64


def test_the_finding_in_a_kernel_reading_an_alias_says_so(report):
    finding = next(f for f in report.findings if f.code == "KL101")
    assert finding.kernel == "binned"
    assert [s.partition(" (")[0] for s in finding.standins] == ["np.float", "np.int"]


def test_an_alias_the_installed_numpy_has_is_numpys_own():
    """NumPy 2 brought `np.bool` back (as `np.bool_`): no stand-in for it."""
    node = ast.parse("def f(x):\n    return np.bool(x) + np.int(x)\n").body[0]
    read = removed_aliases_read(node, "np")
    assert ("bool" in read) == (not hasattr(numpy, "bool"))
    assert read["int"].instead == "int" and read["int"].version == "1.24"
    assert removed_aliases_read(node, "numpy") == {}  # not the name the function reads NumPy by


def test_only_numpy_is_given_the_aliases():
    aliased = with_removed_aliases(numpy)
    assert aliased.int is int and aliased.float32 is numpy.float32 and aliased.linalg is numpy.linalg
    assert with_removed_aliases(aliased) is aliased
    assert with_removed_aliases(ast) is None
