"""The command line as users run it: output formats, exit codes, statistics, rule docs."""
import json
import shutil
import subprocess
import sys

import pytest

from conftest import EXAMPLES, FIXTURES, ROOT


def kernlint(*args, cwd=ROOT):
    return subprocess.run(
        [sys.executable, "-m", "kernlint", *args], cwd=cwd, capture_output=True, text=True, timeout=600
    )


def test_findings_exit_1_with_ruff_style_lines_and_a_summary():
    run = kernlint("check", "fixtures/print_guard.py", "fixtures/clean.py")
    assert run.returncode == 1, run.stderr
    lines = run.stdout.splitlines()
    assert "fixtures/print_guard.py:11:13: KL301 " in lines[0]
    assert lines[1].startswith("fixtures/print_guard.py:13:16: KL101 ") and lines[1].endswith(" [*]")
    assert lines[-1] == ("Found 2 findings (1 fixable with --fix --unsafe-fixes; 1 with `kernlint rewrite`) "
                         "in 4 kernels, 2 files.")


def test_clean_file_exits_0():
    run = kernlint("check", str(FIXTURES / "clean.py"))
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip() == "All checks passed (3 kernels in 1 file)."


def test_kernels_checked_only_with_an_inferred_signature_are_counted_on_stderr(tmp_path):
    """"All checks passed" says nothing of how sure the types were: a note on stderr does,
    where a kernel had no launch; stdout stays the summary tools parse."""
    source = ("import numpy as np\nfrom numba import cuda\n\n\n@cuda.jit\ndef scale(x, k):\n"
              "    i = cuda.grid(1)\n    if i < x.size:\n        x[i] *= k\n")
    (tmp_path / "guessed.py").write_text(source)
    (tmp_path / "launched.py").write_text(source + "\n\nscale[1, 32](np.ones(32, np.float32), np.float32(2))\n")
    guessed = kernlint("check", "--no-cache", str(tmp_path / "guessed.py"))
    assert guessed.returncode == 0 and guessed.stdout.strip() == "All checks passed (1 kernel in 1 file)."
    assert guessed.stderr.startswith("kernlint: note: 1 kernel was checked with a signature inferred from its body")
    assert "kernlint record" in guessed.stderr
    launched = kernlint("check", "--no-cache", str(tmp_path / "launched.py"))
    assert launched.returncode == 0 and "note" not in launched.stderr
    quiet = kernlint("check", "--no-cache", "--output-format", "json", str(tmp_path / "guessed.py"))
    assert "note" not in quiet.stderr and json.loads(quiet.stdout) == []  # JSON says it per finding


def test_json_output_and_statistics():
    run = kernlint("check", "--output-format", "json", "--statistics", str(EXAMPLES))
    assert run.returncode == 1, run.stderr
    data = json.loads(run.stdout)
    assert {"code", "path", "line", "column", "kernel", "message", "fixable"} <= set(data[0])
    assert {(d["code"], d["line"]) for d in data} >= {("KL101", 20), ("KL301", 18)}
    # statistics go to stderr when stdout carries JSON; one row per kernel plus a total
    rows = [line for line in run.stderr.splitlines() if "::" in line]
    # the .py kernels; the .hip ones and the .hip file's host code
    assert len(rows) == 4 + (3 if shutil.which("hipcc") else 0)
    total = run.stderr.splitlines()[-1].split()
    assert total[0] == "total" and float(total[-1]) < 0.5


def test_statistics_table_in_text_output():
    run = kernlint("check", "--statistics", "fixtures/raise_guard.py")
    assert "compile ms" in run.stdout and "kernlint ms" in run.stdout
    assert "fixtures/raise_guard.py::raise_guarded" in run.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (("check", "no/such/file.py"), "no such file or directory"),
        (("check", "--arch", "banana", "fixtures"), "not a CUDA architecture"),
        (("check", "--select", "KL999", "fixtures"), "unknown rule code"),
        (("check", "--output-format", "xml", "fixtures"), "invalid choice"),
        (("rule", "KL000"), "unknown rule"),
    ],
)
def test_kernlint_own_failures_exit_2(args, message):
    run = kernlint(*args)
    assert run.returncode == 2
    assert message in run.stderr
    assert "Traceback" not in run.stderr


def test_select_and_ignore():
    run = kernlint("check", "--select", "KL3", "--output-format", "json", "fixtures/print_guard.py")
    assert [d["code"] for d in json.loads(run.stdout)] == ["KL301"]
    run = kernlint("check", "--ignore", "KL101,KL301", "fixtures/print_guard.py")
    assert run.returncode == 0


def test_rule_documentation():
    run = kernlint("rule", "KL101")
    assert run.returncode == 0
    for heading in ("## What it does", "## Why is this bad?", "## Example", "## Fix safety"):
        assert heading in run.stdout
    listing = kernlint("rule", "--all").stdout.splitlines()
    assert [line.split()[0] for line in listing] == [
        "KL101", "KL201", "KL202", "KL301", "KL302", "KL303", "KL401", "KL402", "KL501", "KL502", "KL503", "KL504",
        "KL505", "KL901", "KL902", "KL903", "KL904", "KL905"]
    assert listing[0].startswith("KL101  checked-float-to-int")
    assert any(line.startswith("KL504  unsynchronized-timing") for line in listing)


def test_every_rule_documents_itself():
    from kernlint import rules

    for rule in rules.ALL:
        doc = rules.documentation(rule.CODE)
        assert doc.startswith(f"{rule.CODE} {rule.NAME}"), rule.CODE
        for heading in ("## What it does", "## Why is this bad?", "## Example", "## Fix safety"):
            assert heading in doc, (rule.CODE, heading)
