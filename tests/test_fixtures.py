"""Every fixture states its expected findings inline; kernlint must find exactly those."""
import shutil

import pytest

from conftest import FIXTURES, RECORDED_FIXTURES, expected_findings

FIXTURE_FILES = sorted(p for p in FIXTURES.rglob("*") if p.suffix in (".py", ".hip", ".ll")
                       and RECORDED_FIXTURES not in p.parents)
HAVE_HIPCC = shutil.which("hipcc") is not None


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=[str(p.relative_to(FIXTURES)) for p in FIXTURE_FILES])
def test_fixture_findings(path, fixture_report):
    if path.suffix == ".hip" and not HAVE_HIPCC:
        pytest.skip("needs hipcc (scripts/setup.sh installs Debian's)")
    found = {(f.code, f.line) for f in fixture_report.findings if f.path == str(path)}
    assert found == expected_findings(path)


def test_every_rule_has_a_positive_fixture(fixture_report):
    from kernlint import rules

    found = {f.code for f in fixture_report.findings}
    needs_hip = set() if HAVE_HIPCC else {"KL303"}  # numba.cuda has no device assert
    # KL905 is kernlint's own bug: no fixture may give it (test_readers_total.py injects one)
    assert set(rules.BY_CODE) - needs_hip - {"KL905"} <= found
    assert "KL905" not in found


def test_findings_name_their_kernel_and_signature(fixture_report):
    finding = next(f for f in fixture_report.findings if f.path.endswith("print_guard.py") and f.code == "KL101")
    assert finding.kernel == "print_guarded"
    assert finding.signature == "void(int64[::1], float64[::1])"
    assert finding.column == 16  # the `int(` call, not the line start
    assert finding.fixable


def test_device_function_location_carries_the_call_chain(fixture_report):
    finding = next(f for f in fixture_report.findings if f.path.endswith("device_print.py"))
    assert finding.code == "KL301" and finding.line == 8
    assert sorted(finding.kernels) == ["calls_scaled", "calls_scaled_too"]
    caller = finding.inlined_at[0]
    assert caller.path.endswith("device_print.py") and caller.line in (16, 23)


def test_each_kernel_is_compiled_per_signature(fixture_report):
    lazy = [s for s in fixture_report.stats if s.kernel == "lazy_checked"]
    assert sorted(s.signature for s in lazy) == [
        "void(int64[::1], float32[::1])",
        "void(int64[::1], float64[::1])",
    ]


def _checked_marks():
    """``def k(...):  # checked: void(...) launch-site``: the signature a kernel must be checked
    with (``void(...) | void(...)``: each of them), and where it must come from (fixture
    packages carry no annotation)."""
    import re

    marks = []
    for path in FIXTURE_FILES:
        if path.suffix != ".py":
            continue
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            match = re.match(r"\s*def (\w+)\(.*#\s*checked:\s*(\S.*\))\s+(\S+)\s*$", line)
            if match:
                marks.append(pytest.param(path, match.group(1), match.group(2), match.group(3),
                                          id=f"{path.relative_to(FIXTURES)}::{match.group(1)}"))
    return marks


@pytest.mark.parametrize("path, kernel, signature, source", _checked_marks())
def test_kernels_are_checked_with_the_signature_their_package_gives(path, kernel, signature, source,
                                                                     fixture_report):
    checked = [(s.signature, s.signature_source) for s in fixture_report.stats
               if s.path == str(path) and s.kernel == kernel]
    # each variant of a factory's kernel
    assert checked and set(checked) == {(one, source) for one in signature.split(" | ")}


def test_a_test_suite_kernel_is_made_once_per_value_its_loops_and_calls_give(fixture_report):
    variants = sorted(s.variant for s in fixture_report.stats if s.path.endswith("suite/test_kernels.py"))
    assert variants == [""] * 15 + ["alignment=16", "alignment=64",
                        "pyfunc=to_int32", "pyfunc=to_int8",
                        "shape=(2,), dtype=float32", "shape=(2,), dtype=int32",
                        "shape=(4,), dtype=float32", "shape=(4,), dtype=int32"]
    # cuda.jit(sig, fastmath=True)(threshold) and cuda.jit(sig)(threshold): two kernels
    made = sorted((s.kernel, s.signature_source) for s in fixture_report.stats if s.kernel == "threshold")
    assert made == [("threshold", "eager")] * 2
    # a function returning a value is a device function: checked through its caller, not skipped
    assert [f.kernel for f in fixture_report.skipped if f.path.endswith("suite/test_kernels.py")] == []


def test_kl501_says_what_to_do_in_that_code(fixture_report):
    """A buffer kept after the step needs a pool; a frame-sized one, one buffer or a pool."""
    by_line = {f.line: f.message for f in fixture_report.findings
               if f.path.endswith("host/allocation.py") and f.code == "KL501"}
    lines = (FIXTURES / "host" / "allocation.py").read_text().splitlines()
    kept = by_line[lines.index("            self.snapshots.append(out)") - 1]  # (the allocation two lines up)
    assert "outlives the iteration (`self.snapshots.append(out)`)" in kept and "pool" in kept
    assert "allocate once before the loop and reuse" not in kept
    frame = by_line[lines.index("    for frame in frames:") + 2]
    assert "for each `frame`" in frame and "where sizes differ, use a pool" in frame
