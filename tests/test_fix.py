"""Source fixes the ruff way: --diff, --fix, --unsafe-fixes; every fix verified before it is kept."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import FIXTURES, ROOT

SNAPSHOTS = ROOT / "tests" / "snapshots"


def kernlint(*args, cwd):
    return subprocess.run([sys.executable, "-m", "kernlint", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=900, env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.fixture
def guards(tmp_path):
    shutil.copy(FIXTURES / "fixes" / "guards.py", tmp_path / "guards.py")
    return tmp_path


def test_diff_is_pinned_and_writes_nothing(guards):
    before = (guards / "guards.py").read_text()
    run = kernlint("check", "--no-cache", "--diff", "--unsafe-fixes", "guards.py", cwd=guards)
    assert run.returncode == 1, run.stderr  # something would change
    assert run.stdout == (SNAPSHOTS / "guards.unsafe.diff").read_text()
    assert (guards / "guards.py").read_text() == before


def test_fix_alone_changes_no_behaviour(guards):
    """Every fix kernlint offers changes what some run sees (a guard's error path outside the
    safe range; a raise the simulator and debug=True report): plain --fix applies none."""
    run = kernlint("check", "--no-cache", "--fix", "guards.py", cwd=guards)
    assert "Fixed 0 findings in 0 files" in run.stderr and "9 more fixable with --unsafe-fixes" in run.stderr
    assert (guards / "guards.py").read_text() == (FIXTURES / "fixes" / "guards.py").read_text()
    assert run.returncode == 1  # findings remain
    again = kernlint("check", "--no-cache", "--diff", "guards.py", cwd=guards)
    assert again.returncode == 0 and again.stdout == ""  # nothing safe to do


def test_kl401s_fix_is_unsafe_and_makes_the_raise_a_return(guards):
    run = kernlint("check", "--no-cache", "--fix", "--unsafe-fixes", "--select", "KL401", "guards.py", cwd=guards)
    assert "Fixed 3 findings in 1 file" in run.stderr, run.stderr
    text = (guards / "guards.py").read_text()
    assert 'raise OverflowError' not in text and "if math.isnan(v): return" in text
    assert 'print("bad value at", i, v)' in text  # KL101's guard deletions were not selected
    assert 'raise ValueError("NaN")' in text  # a device function's raise: no fix


def test_unsafe_fixes_edit_exactly_the_guards_that_qualify(guards):
    run = kernlint("check", "--no-cache", "--fix", "--unsafe-fixes", "--output-format", "json", "guards.py",
                   cwd=guards)
    assert "Fixed 9 findings in 1 file" in run.stderr, run.stderr
    text = (guards / "guards.py").read_text()
    expected = (FIXTURES / "fixes" / "guards.py").read_text()
    diff = (SNAPSHOTS / "guards.unsafe.diff").read_text()
    assert text != expected and "if i == 7:" in text and "v != v or i == 7" not in text
    assert "if v != v and strict:" in text and text.count("else:") == 1  # left as they were
    remaining = {(f["code"], f["kernel"]) for f in json.loads(run.stdout)}
    assert remaining == {("KL301", "mixed_and"), ("KL301", "with_else"), ("KL101", "with_else")}
    assert diff.count("\n-") > 0


def test_a_fix_that_does_not_verify_is_not_written(guards):
    from kernlint import fix
    from kernlint.engine import Options, check_paths
    from kernlint.findings import Edit

    path = str(guards / "guards.py")
    report = check_paths([path], Options())
    target = next(f for f in report.findings if f.code == "KL401" and f.kernel == "raise_guard")
    edit = target.fix.edits[0]
    # a "fix" that prints on the normal path: a new KL301 appears, so it must be refused
    target.fix.edits = [Edit(edit.path, edit.line, edit.column, edit.end_line, edit.end_column,
                             'print("still bad")')]
    others = [f for f in report.findings if f is not target]
    for finding in others:
        finding.fix = None
    outcome = fix.plan(report, [path], Options(), unsafe=True)
    assert outcome.applied == [] and outcome.texts == {}
    assert [(f.code, why.split(" finding")[0]) for f, why in outcome.refused] == [
        ("KL401", "after the fix 5 KL301")]
    target.fix.edits = [Edit(edit.path, edit.line, edit.column, edit.end_line, edit.end_column, "return (")]
    outcome = fix.plan(report, [path], Options(), unsafe=True)
    assert "does not parse" in outcome.refused[0][1]
    assert (guards / "guards.py").read_text() == (FIXTURES / "fixes" / "guards.py").read_text()


def test_json_and_sarif_say_which_fix_is_offered(guards):
    found = json.loads(kernlint("check", "--no-cache", "--output-format", "json", "guards.py", cwd=guards).stdout)
    kinds = {(f["code"], f["kernel"]): f["fix"] for f in found}
    assert kinds[("KL401", "raise_guard")] == "unsafe" and kinds[("KL101", "print_guard")] == "unsafe"
    assert kinds[("KL301", "print_guard")] is None and kinds[("KL101", "with_else")] is None
    sarif = json.loads(kernlint("check", "--no-cache", "--output-format", "sarif", "guards.py", cwd=guards).stdout)
    fixed = [r for r in sarif["runs"][0]["results"] if r.get("fixes")]
    assert {r["properties"]["fix"] for r in fixed} == {"unsafe"}
    replacement = fixed[0]["fixes"][0]["artifactChanges"][0]["replacements"][0]
    assert set(replacement) == {"deletedRegion", "insertedContent"}


# -- the benchmark kernels, source-fixed: equal to the originals in the safe range --------

@pytest.fixture(scope="module")
def fixed_benchmark_kernels(tmp_path_factory):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import source_fix

    path = source_fix.fixed_copy(str(tmp_path_factory.mktemp("fixed")))
    text = open(path).read()
    assert "print(" not in text.split("def hand_")[0] and "raise " not in text
    return source_fix.kernels_of(str(ROOT / "benchmarks" / "kernels.py")), source_fix.kernels_of(path)


@pytest.mark.parametrize("kernel, target, integral", [
    ("print_guard_f64", "int64", False), ("exact_guard_f64", "int64", True),
    ("grid_stride_f32", "int32", False), ("raise_guard_f32", "int32", False),
])
def test_source_fixed_kernels_equal_the_originals_in_the_safe_range(fixed_benchmark_kernels, kernel, target,
                                                                   integral):
    import math

    import numpy as np
    from hypothesis import given, strategies as st

    from hostjit import ARRAY_ARGTYPES, HostModule, array_args

    from kernlint.analysis.conversions import safe_range

    lo, hi = safe_range(target)  # the conversion's, not where the guard passes
    original, fixed = fixed_benchmark_kernels
    f32 = kernel.endswith("f32")
    source_type, target_type = (np.float32, np.int32) if f32 else (np.float64, np.int64)
    modules = [(HostModule(k[kernel].runnable), k[kernel].entry) for k in (original, fixed)]

    def run(module, entry, values):
        out = np.full(values.size, 7, target_type)
        function = module.function(entry, None, *(ARRAY_ARGTYPES * 2))
        before = module.vprintf_calls
        for thread in range(values.size):
            module.set_thread(tid=thread, ntid=1, ctaid=0, nctaid=1)
            function(*array_args(out), *array_args(values))
        return out.tobytes(), module.vprintf_calls - before

    values = st.floats(lo, hi, exclude_max=True, width=32 if f32 else 64, allow_nan=False)
    if integral:
        values = values.map(math.floor).filter(lambda v: lo <= v < hi).map(float)

    @given(st.lists(values, min_size=1, max_size=16))
    def check(items):
        inputs = np.array(items, dtype=source_type)
        assert run(*modules[0], inputs) == run(*modules[1], inputs)

    check()


def test_the_configuration_can_ask_for_fixes(guards):
    (guards / "pyproject.toml").write_text("[tool.kernlint]\nfix = true\nunsafe-fixes = true\n")
    run = kernlint("check", "--no-cache", "guards.py", cwd=guards)
    assert "Fixed 9 findings in 1 file" in run.stderr
    (guards / "pyproject.toml").write_text('[tool.kernlint]\nunsafe-fixes = "yes"\n')
    bad = kernlint("check", "--no-cache", "guards.py", cwd=guards)
    assert bad.returncode == 2 and "unsafe-fixes" in bad.stderr
