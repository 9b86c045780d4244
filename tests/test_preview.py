"""Preview rules, as ruff has them: a rule still in preview runs only in preview mode
(``--preview``, ``preview = true``); there a selector that matches it enables it, or only
its whole code with ``explicit-preview-rules``; without preview mode selecting it does
nothing, and kernlint says so."""
import json
import shutil
import subprocess
import sys

import pytest

from conftest import FIXTURES, ROOT, expected_findings
from kernlint import config, rules

HOST = FIXTURES / "host"


def test_the_host_rules_are_in_preview_and_the_kernel_rules_stable():
    assert rules.PREVIEW_CODES == ["KL501", "KL502", "KL503", "KL504", "KL505"]
    assert not any(rules.is_preview(rule.CODE) for rule in rules.IR_RULES)
    assert not any(rules.is_preview(code) for code in rules.BY_CODE if code.startswith("KL9"))


@pytest.mark.parametrize("code, select, preview, explicit, runs", [
    ("KL503", None, False, False, False),  # the default run: stable rules only
    ("KL503", None, True, False, True),  # preview mode: every rule the default selects
    ("KL503", ["KL503"], False, False, False),  # selecting it is not enough
    ("KL503", ["KL5"], True, False, True),  # a prefix selects it in preview mode
    ("KL503", ["KL5"], True, True, False),  # ... unless preview rules must be named
    ("KL503", ["KL1", "KL503"], True, True, True),
    ("KL503", ["KL1"], True, False, False),  # not selected at all
    ("KL101", None, False, False, True),
    ("KL101", ["KL1"], True, True, True),  # explicit-preview-rules leaves stable rules alone
    ("KL101", ["KL3"], True, False, False),
    ("KL902", None, False, False, True),
])
def test_which_rules_run(code, select, preview, explicit, runs):
    assert rules.enabled(code, select, preview, explicit) is runs


def test_a_selection_that_gets_nothing_says_why():
    assert rules.selection_warnings(["KL1", "KL"], preview=False) == []
    warnings = rules.selection_warnings(["KL503", "KL5", "KL1"], preview=False)
    assert [w.split("`")[1] for w in warnings] == ["KL503", "KL5"]
    assert all("preview is not enabled" in w for w in warnings)
    assert rules.selection_warnings(["KL503", "KL5"], preview=True) == []
    explicit = rules.selection_warnings(["KL503", "KL5"], preview=True, explicit_preview=True)
    assert len(explicit) == 1 and "`KL5`" in explicit[0] and "whole code" in explicit[0]


def test_the_rule_says_it_is_in_preview():
    assert "in preview" in rules.documentation("KL503").split("## What it does")[0]
    assert rules.documentation("KL503").startswith("KL503 sync-in-loop\n")
    assert "preview" not in rules.documentation("KL101").split("## What it does")[0]
    listing = subprocess.run([sys.executable, "-m", "kernlint", "rule", "--all"], cwd=ROOT, capture_output=True,
                             text=True, timeout=120).stdout.splitlines()
    marked = [line.split()[0] for line in listing if line.split()[-1] == "preview"]
    assert marked == rules.PREVIEW_CODES
    assert any(line.split()[0] == "KL101" and line.split()[-1] == "fixable" for line in listing)


def test_configuration_keys(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text("[tool.kernlint]\npreview = true\nexplicit-preview-rules = true\n")
    loaded = config.load(str(pyproject))
    assert loaded.preview and loaded.explicit_preview_rules
    setup_cfg = tmp_path / "setup.cfg"
    setup_cfg.write_text("[kernlint]\npreview = yes\n")
    assert config.load(str(setup_cfg)).preview
    pyproject.write_text('[tool.kernlint]\npreview = "sometimes"\n')
    with pytest.raises(config.ConfigError, match="preview"):
        config.load(str(pyproject))


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A copy of the sync fixtures (a package: they import their kernels)."""
    root = tmp_path_factory.mktemp("preview")
    package = root / "host"
    package.mkdir()
    for name in ("__init__.py", "kernels.py", "syncs.py"):
        shutil.copy(HOST / name, package / name)
    return root


def check(project, *args, pyproject=""):
    (project / "pyproject.toml").write_text(pyproject)
    run = subprocess.run([sys.executable, "-m", "kernlint", "check", "--no-cache", "--output-format", "json", *args,
                          "host/syncs.py"], cwd=project, capture_output=True, text=True, timeout=600)
    assert run.returncode in (0, 1), run.stderr
    found = {(f["code"], f["line"]) for f in json.loads(run.stdout)}
    assert run.returncode == (1 if found else 0)
    return found, run.stderr


def test_the_default_run_leaves_preview_rules_out(project):
    expected = expected_findings(HOST / "syncs.py")
    assert {code for code, _ in expected} == {"KL502", "KL503"}
    assert check(project) == (set(), "")
    assert check(project, "--preview")[0] == expected
    assert check(project, pyproject="[tool.kernlint]\npreview = true\n")[0] == expected
    assert check(project, "--no-preview", pyproject="[tool.kernlint]\npreview = true\n")[0] == set()


def test_selecting_a_preview_rule_without_preview_warns(project):
    found, stderr = check(project, "--select", "KL503")
    assert found == set()
    assert "warning: selection `KL503` has no effect because preview is not enabled" in stderr
    found, stderr = check(project, "--select", "KL503", "--preview")
    assert found == {(code, line) for code, line in expected_findings(HOST / "syncs.py") if code == "KL503"}
    assert "warning" not in stderr


def test_explicit_preview_rules_need_the_whole_code(project):
    explicit = "[tool.kernlint]\npreview = true\nexplicit-preview-rules = true\n"
    found, stderr = check(project, pyproject=explicit + 'select = ["KL1", "KL5"]\n')
    assert found == set() and "`KL5` has no effect" in stderr
    found, _ = check(project, pyproject=explicit + 'select = ["KL1", "KL502"]\n')
    assert found == {(code, line) for code, line in expected_findings(HOST / "syncs.py") if code == "KL502"}
