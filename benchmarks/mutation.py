"""Mutation testing of the code that decides whether a rule fires and whether a fix or a
rewrite is safe: mutmut 3 over ``kernlint/rules/``, ``kernlint/rewrite/``,
``kernlint/decorator.py``, the source fix (``kernlint/fix.py`` and the edits of
``kernlint/source.py``) and ``kernlint/analysis/conversions.py``.

Not part of CI (every mutant of a module takes from minutes to hours on two cores). Run it from
the repository root, in the environment of ``scripts/setup.sh test``, with the tool installed::

    .venv/bin/pip install -e '.[mutation]'
    nice -n 19 .venv/bin/python benchmarks/mutation.py --sample 10       # 10 mutants of each module
    nice -n 19 .venv/bin/python benchmarks/mutation.py --modules rewrite/edit.py fix.py
    nice -n 19 .venv/bin/python benchmarks/mutation.py                   # every mutant: many hours
    .venv/bin/python benchmarks/mutation.py --report-only                # rewrite the JSON

``--sample N`` draws N mutants of each module (all of a smaller one), seeded per module
(``--seed``), so that every module is represented; a larger N extends a smaller one's draw.
The JSON says how many of how many mutants each module had tested, and the score is then an
estimate. The mutants are made, and the tests mapped to the functions they reach, once.

It writes ``benchmarks/results/mutation.json``: the tool and its version, the modules run,
``killed``, ``total``, the score per module and in all, the time taken, and every mutant that
survived with its place, its diff and the verdict ``benchmarks/mutation_verdicts.toml`` gives
it (``killed by <test>``: a test added for it in one of ``NEW_TESTS``, which the report runs
against the mutant to confirm; ``equivalent: <why>``), and the score of each group of modules.
A survivor without a verdict is listed as ``unexamined``.

How it stays feasible: the work is done in a copy of the repository (``--scratch``), where
mutmut keeps its state, so an interrupted run goes on where it stopped. Each module is tested
with the test files that exercise it (``TESTS``), not the whole suite, and mutmut runs for each
mutant only the tests that reached its function. Compiling kernels to IR (most of the suite's
time, and the same for every mutant) is done once per file and arguments
(``benchmarks/mutation_hooks.py``); processes the tests start import the mutated copy and
report the functions they reach.
"""

from __future__ import annotations

import argparse
import configparser
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Dict, List, Optional, Sequence

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "mutation.json"
VERDICTS = ROOT / "benchmarks" / "mutation_verdicts.toml"
HOOKS = ROOT / "benchmarks" / "mutation_hooks.py"
# the tests written for survivors: the conditions that keep KL101, its fixes and the rewrite safe,
# and what every other rule reports and where
NEW_TESTS = ["tests/test_safety_conditions.py", "tests/test_rule_findings.py"]

_RULE_TESTS = ["tests/test_rules_ir.py", "tests/test_fixtures.py", "tests/test_rule_findings.py"]
# module (under kernlint/) -> the test files that exercise it; safety-critical modules first
TESTS: Dict[str, List[str]] = {
    # the in-process tests: the rule's and the rewrite's decisions on every fixture and on written IR
    "analysis/conversions.py": ["tests/test_rules_ir.py", "tests/test_fixtures.py", "tests/test_rewrite.py",
                                "tests/test_safety_conditions.py"],
    "rules/kl101_checked_float_to_int.py": _RULE_TESTS + ["tests/test_safety_conditions.py"],
    "rewrite/edit.py": ["tests/test_rewrite.py", "tests/test_rewrite_equivalence.py",
                        "tests/test_safety_conditions.py"],
    "rewrite/verify.py": ["tests/test_rewrite.py", "tests/test_safety_conditions.py"],
    "rewrite/command.py": ["tests/test_rewrite.py", "tests/test_cli.py", "tests/test_safety_conditions.py"],
    "decorator.py": ["tests/test_decorator.py", "tests/test_safety_conditions.py"],
    "fix.py": ["tests/test_fix.py", "tests/test_fixtures.py", "tests/test_safety_conditions.py"],
    "rules/kl401_dropped_exception.py": _RULE_TESTS + ["tests/test_fix.py", "tests/test_safety_conditions.py"],
    "rules/base.py": _RULE_TESTS,
    "rules/__init__.py": _RULE_TESTS + ["tests/test_cli.py"],
    "rules/kl201_error_path_allocates.py": _RULE_TESTS,
    "rules/kl202_hot_path_allocates.py": _RULE_TESTS,
    "rules/kl301_printf_hostcall.py": _RULE_TESTS + ["tests/test_fix.py"],
    "rules/kl302_hostcall.py": _RULE_TESTS,
    "rules/kl303_assert_hostcall.py": _RULE_TESTS,
    "rules/kl402_debug_exception_sync.py": _RULE_TESTS,
    "rules/kl501_device_alloc_in_loop.py": _RULE_TESTS + ["tests/test_hip_host.py"],
    "rules/kl502_host_array_launch.py": _RULE_TESTS + ["tests/test_hip_host.py"],
    "rules/kl503_sync_in_loop.py": _RULE_TESTS + ["tests/test_hip_host.py"],
    "rules/kl504_unsynchronized_timing.py": _RULE_TESTS + ["tests/test_hip_host.py"],
    "rules/kl505_foreign_array_launch.py": _RULE_TESTS,
    "rules/kl901_unreadable_file.py": _RULE_TESTS + ["tests/test_robustness.py"],
    "rules/kl902_compile_failed.py": _RULE_TESTS + ["tests/test_robustness.py"],
    "rules/kl903_no_signature.py": _RULE_TESTS,
    "rules/kl904_invalid_ir.py": _RULE_TESTS + ["tests/test_robustness.py"],
    "rules/kl905_internal_error.py": _RULE_TESTS + ["tests/test_robustness.py"],
    "rules/page.py": ["tests/test_docs.py"],
    # the source fix's edits (deleting a guard, replacing a call); the rest of source.py reads files
    "source.py": ["tests/test_fix.py", "tests/test_fixtures.py", "tests/test_safety_conditions.py"],
}
SAFETY_CRITICAL = list(TESTS)[:8]
# modules of which only some functions are in scope: the mutants sampled and counted are those
# whose name (mutmut's: x_function, xǁClassǁmethod) matches
SCOPE: Dict[str, "re.Pattern[str]"] = {
    "source.py": re.compile(r"\.(xǁSourceEditsǁ\w+|x_apply_edits|x__parents)__mutmut_\d+$"),
}


# the groups a score is given for (every module of TESTS is in exactly one)
GROUPS: Dict[str, List[str]] = {
    "conversion check (KL101 and its decision)": ["analysis/conversions.py", "rules/kl101_checked_float_to_int.py"],
    "device rules (KL2xx-KL4xx)": [m for m in TESTS if re.match(r"rules/kl[234]\d\d_", m)
                                   and "kl101" not in m],
    "host rules (KL5xx)": [m for m in TESTS if m.startswith("rules/kl5")],
    "file and compile rules (KL9xx)": [m for m in TESTS if m.startswith("rules/kl9")],
    "rule registry and documentation": ["rules/base.py", "rules/__init__.py", "rules/page.py"],
    "rewrite": [m for m in TESTS if m.startswith("rewrite/")],
    "decorator": ["decorator.py"],
    "source fix": ["fix.py", "source.py"],
}


def in_scope(module: str, name: str) -> bool:
    return module not in SCOPE or bool(SCOPE[module].search(name))

# mutmut's exit codes -> status (mutmut.stats.status_by_exit_code, for the codes it writes)
_STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests", 34: "skipped",
           35: "suspicious", 36: "timeout", 37: "caught by type check", 24: "timeout", -24: "timeout",
           152: "timeout", 255: "timeout", -11: "segfault", -9: "segfault", None: "not checked"}


_NOT_RUN = ("not checked", "skipped")
# a mutant that makes the tests time out or crash is detected as well as one they fail on
_KILLED = ("killed", "timeout", "segfault", "caught by type check")


def _tracked_files() -> List[str]:
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                            capture_output=True).stdout.decode()
    return [name for name in listed.split("\0") if name]


def prepare(scratch: Path, modules: List[str], deselect: Sequence[str] = ()) -> Dict[str, str]:
    """The copy mutmut works in, its configuration, and the environment of its run."""
    scratch.mkdir(parents=True, exist_ok=True)
    top = set()
    for name in _tracked_files():
        source, target = ROOT / name, scratch / name
        if not source.is_file():
            continue
        top.add(name.split("/", 1)[0])
        target.parent.mkdir(parents=True, exist_ok=True)
        # the copy mutmut mutates is re-made only where the source changed: it keeps its results
        if not target.exists() or target.read_bytes() != source.read_bytes():
            shutil.copy2(source, target)
    tests = sorted({test for module in modules for test in TESTS[module] if (ROOT / test).exists()})
    config = configparser.ConfigParser()
    config.read(scratch / "setup.cfg")
    config["mutmut"] = {
        "source_paths": "kernlint",
        "only_mutate": "\n" + "\n".join(f"kernlint/{module}" for module in modules),
        # everything the tests read by path: fixtures, examples, the README, the benchmarks
        "also_copy": "\n" + "\n".join(sorted(top - {"kernlint", "tests"})),
        "pytest_add_cli_args": "\n" + "\n".join(["-p", "_kernlint_mutation_hooks", "-p", "no:cacheprovider"]
                                                + [f"--deselect={test}" for test in deselect]),
        "pytest_add_cli_args_test_selection": "\n" + "\n".join(tests),
        "use_git_change_detection": "false",
        # the tests start processes (kernlint's forkserver and worker server) that outlive them:
        # mutmut's fork runner takes any child's exit for a mutant's, its fork server does not
        "process_isolation": "forkserver",
        # mutmut limits a mutant's CPU time from its tests' own times, which leave out pytest's
        # start and session fixtures (one compiles every fixture): without room for those, a
        # mutant the tests would not kill is stopped and counted as killed
        "timeout_constant": "300",
    }
    with open(scratch / "setup.cfg", "w") as out:
        config.write(out)
    mutants = scratch / "mutants"
    mutants.mkdir(exist_ok=True)
    for module in modules:
        # copied unmutated by an earlier run that did not mutate it: mutmut takes a copy newer
        # than its source for an already mutated one, so it must be copied again
        copied = mutants / "kernlint" / module
        if copied.exists() and not copied.with_name(copied.name + ".meta").exists():
            copied.unlink()
    # on the path of every process of the run: mutmut's, pytest's and the tests' subprocesses
    # (which set PYTHONPATH to the repository root, here the mutated copy)
    shutil.copy2(HOOKS, mutants / "_kernlint_mutation_hooks.py")
    (mutants / "sitecustomize.py").write_text("import _kernlint_mutation_hooks\n"
                                              "_kernlint_mutation_hooks.install()\n")
    environment = dict(os.environ)
    environment.pop("MUTANT_UNDER_TEST", None)
    environment.update({
        "PYTHONPATH": str(mutants),
        "KERNLINT_MUTATION_IR": str(scratch / "ir"),
        # no worker server shared with a developer's runs; short-lived between mutants
        "KERNLINT_SERVER_IDLE": "20",
    })
    environment.pop("PYTHONDONTWRITEBYTECODE", None)  # each mutant's pytest would compile the tree again
    return environment


def _mutmut(scratch: Path, environment: Dict[str, str], *args: str, check: bool = True) -> str:
    done = subprocess.run([str(Path(sys.executable).with_name("mutmut")), *args], cwd=scratch, env=environment,
                          capture_output=True, text=True)
    if check and done.returncode != 0:
        raise SystemExit(f"mutmut {' '.join(args)} failed ({done.returncode}):\n{done.stdout[-4000:]}"
                         f"\n{done.stderr[-4000:]}")
    return done.stdout


def _statuses(scratch: Path, module: str) -> Dict[str, Dict]:
    meta = scratch / "mutants" / "kernlint" / (module + ".meta")
    if not meta.exists():
        return {}
    data = json.loads(meta.read_text())
    return {name: {"status": _STATUS.get(code, "suspicious")} for name, code in data["exit_code_by_key"].items()
            if in_scope(module, name)}


def generate(scratch: Path, environment: Dict[str, str], modules: List[str]) -> None:
    """Make the mutants of modules that have none yet, and learn which test reaches which
    function, testing no mutant: mutmut does both before it looks for the mutants it was asked
    for, and a name no mutant has makes it stop there."""
    def generated(module: str) -> bool:
        return (scratch / "mutants" / "kernlint" / (module + ".meta")).exists()

    if all(generated(module) for module in modules):
        return
    with open(scratch / "mutmut.log", "a") as log:
        subprocess.run([str(Path(sys.executable).with_name("mutmut")), "run", "kernlint.no-such-mutant"],
                       cwd=scratch, env=environment, stdout=log, stderr=subprocess.STDOUT)
    missing = [module for module in modules if not generated(module)]
    if missing:
        raise SystemExit(f"mutmut did not mutate {', '.join(missing)}: see {scratch / 'mutmut.log'}")


def sample(scratch: Path, modules: List[str], size: int, seed: int) -> List[str]:
    """``size`` mutants of each module (all where it has fewer), and those with a verdict."""
    import random

    verdicts = tomllib.loads(VERDICTS.read_text()) if VERDICTS.exists() else {}
    chosen = []
    for module in modules:
        names = sorted(_statuses(scratch, module))
        if not names:
            continue  # nothing to mutate (a rule that is only its documentation and constants)
        random.Random(f"{seed}:{module}").shuffle(names)  # a larger sample extends a smaller one
        chosen += names[:size]
        chosen += [name for name in names if name in verdicts and name not in chosen]
    return chosen


def _function_line(module: str, name: str, diff: str) -> str:
    """The mutant's place in the original source: the first removed line, looked up inside the
    mutated function (mutmut names it ``x_function`` or ``xǁClassǁmethod``)."""
    import ast

    mangled = name.rsplit("__mutmut_", 1)[0].rsplit(".", 1)[-1]
    parts = mangled.split("ǁ")
    wanted = parts[1:] if len(parts) == 3 else [mangled[2:]]  # [class, method] or [function]
    path = ROOT / "kernlint" / module
    source = path.read_text()
    lines = source.splitlines()
    span = (1, len(lines))
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef) and len(wanted) == 2 and node.name == wanted[0]:
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == wanted[1]:
                    span = (item.lineno, item.end_lineno)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and len(wanted) == 1 \
                and node.name == wanted[0] and node.col_offset == 0:
            span = (node.lineno, node.end_lineno)
    removed = [text[1:] for text in diff.splitlines() if text.startswith("-") and not text.startswith("---")]
    for number in range(span[0], span[1] + 1):
        if removed and lines[number - 1] == removed[0]:
            return f"kernlint/{module}:{number}"
    return f"kernlint/{module}:{span[0]}"


def _new_tests(module: str, name: str):
    """The tests written for survivors that exercise the module, and the key a mutant's result
    against them is remembered by (per version of the tests: a report written again, or one after
    --runner files ran them all, does not run them again)."""
    import hashlib

    files = [test for test in NEW_TESTS if test in TESTS[module] and (ROOT / test).exists()]
    digest = hashlib.sha256(b"".join((ROOT / test).read_bytes() for test in files)).hexdigest()[:16]
    return files, f"{name} {digest}"


def _killing_test(scratch: Path, environment: Dict[str, str], module: str, name: str) -> Optional[str]:
    """The first of the tests written for survivors (``NEW_TESTS`` that exercise the module,
    copied in as they are now) that fails with the mutant active, as mutmut runs a test: in the
    mutated copy, the mutant named in MUTANT_UNDER_TEST. None if none fails."""
    files, key = _new_tests(module, name)
    if not files:
        return None
    remembered = scratch / "killers.json"
    known = json.loads(remembered.read_text()) if remembered.exists() else {}
    if key in known:
        return known[key]
    _sync_copy(scratch)
    # a test that fails without any mutant would be taken for one that kills them all
    baseline = "baseline " + key.split()[-1]
    if baseline not in known:
        clean = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
                                "_kernlint_mutation_hooks", *files], cwd=scratch / "mutants",
                               env={**environment, "MUTANT_UNDER_TEST": ""}, capture_output=True, text=True)
        if clean.returncode != 0:
            raise SystemExit(f"{' '.join(files)} fail without a mutant:\n{clean.stdout[-4000:]}")
        known[baseline] = "passed"
        remembered.write_text(json.dumps(known, indent=1))
    done = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p",
                           "_kernlint_mutation_hooks", *files], cwd=scratch / "mutants",
                          env={**environment, "MUTANT_UNDER_TEST": name}, capture_output=True, text=True)
    failed = re.search(r"^FAILED (.+?)(?: - .*)?$", done.stdout, re.M)
    known[key] = failed.group(1) if failed else None
    remembered.write_text(json.dumps(known, indent=1))
    return known[key]


def _result(scratch: Path, name: str) -> Optional[int]:
    """A mutant's exit code in mutmut's results (None: not checked yet)."""
    for meta in (scratch / "mutants" / "kernlint").rglob("*.meta"):
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        if name in codes:
            return codes[name]
    return None


def _generated_none(scratch: Path, module: str) -> bool:
    meta = scratch / "mutants" / "kernlint" / (module + ".meta")
    return meta.exists() and not json.loads(meta.read_text())["exit_code_by_key"]


def _mutant_rate(scratch: Path) -> Dict:
    """The time per mutant of the mutation step alone (mutmut's last "N mutations/second" line),
    without generating the mutants and running the tests once to map them to functions."""
    log = scratch / "mutmut.log"
    rates = re.findall(r"([\d.]+) mutations/second", log.read_text(errors="replace")) if log.exists() else []
    if not rates or float(rates[-1]) == 0:
        return {}
    return {"seconds_per_mutant_testing_only": round(1 / float(rates[-1]), 1)}


def report(scratch: Path, environment: Dict[str, str], modules: List[str], wall_seconds: Optional[float] = None,
           sampling: Optional[Dict] = None) -> Dict:
    verdicts = tomllib.loads(VERDICTS.read_text()) if VERDICTS.exists() else {}
    previous = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    per_module = dict(previous.get("modules", {}))
    version = _mutmut(scratch, environment, "--version").strip().split()[-1]
    for module in modules:
        statuses = _statuses(scratch, module)
        if not statuses:
            continue
        survivors = []
        for name, info in sorted(statuses.items()):
            verdict = verdicts.get(name)
            # a timeout may be the CPU limit's doing (see prepare): tried like a survivor
            if info["status"] in _NOT_RUN or info["status"] in _KILLED and info["status"] != "timeout":
                continue
            diff = _mutmut(scratch, environment, "show", name, check=False)
            diff = "\n".join(line for line in diff.splitlines() if not line.startswith("# "))
            in_run = info["status"]
            if verdict is None or not verdict.startswith("equivalent"):
                # survived the run: a test written for it since may kill it now
                killer = _killing_test(scratch, environment, module, name)
                verdict = f"killed by {killer}" if killer else (verdict or "unexamined")
                info["status"] = "killed" if killer else "survived"
            else:
                info["status"] = "survived"  # equivalent: no test can kill it
            survivors.append({"mutant": name, "in_run": in_run, "location": _function_line(module, name, diff),
                              "mutation": diff.strip(), "verdict": verdict})
        counted = {name: info for name, info in statuses.items() if info["status"] not in _NOT_RUN}
        killed = sum(info["status"] in _KILLED for info in counted.values())
        killed_in_run = killed - sum(s["verdict"].startswith("killed by") for s in survivors)
        equivalent = sum(s["verdict"].startswith("equivalent") for s in survivors)
        if not counted:
            continue  # none of its mutants tested yet
        per_module[module] = {
            "tests": TESTS[module],
            "generated": len(statuses), "killed": killed, "total": len(counted),
            "killed_in_run": killed_in_run,  # by the tests as they were when the run started
            # stopped at the CPU limit: counted killed only where a test kills them now
            "timeouts": sum(s["in_run"] == "timeout" for s in survivors),
            "not_checked": len(statuses) - len(counted),
            "equivalent": equivalent,
            "score": round(killed / len(counted), 3) if counted else None,
            "score_without_equivalent": round(killed / (len(counted) - equivalent), 3)
            if len(counted) > equivalent else None,
            "survivors": survivors,
        }
    # results written before sampling was recorded per run had one draw for all of them
    earlier_draw = previous.get("sampling") if "per_module" in (previous.get("sampling") or {}) else None
    runs_before = [{**run, "sampling": run.get("sampling", earlier_draw)} for run in previous.get("runs", [])]
    without_mutants = sorted(set(previous.get("modules_without_mutants", []))
                             | {m for m in modules if m not in per_module and _generated_none(scratch, m)})
    for module, entry in per_module.items():
        # the sample each module's mutants were drawn in: this run's, or the run that tested it
        if module in modules and sampling:
            entry["sampling"] = {**sampling, "tested": entry["total"], "of": entry["generated"],
                                 "share": round(entry["total"] / entry["generated"], 3)}
        elif "sampling" not in entry and earlier_draw:
            entry["sampling"] = {**earlier_draw,
                                 "tested": entry["total"], "of": entry["generated"],
                                 "share": round(entry["total"] / entry["generated"], 3)}
    tested = sum(per_module[m]["total"] for m in modules if m in per_module)
    killed = sum(m["killed"] for m in per_module.values())
    killed_in_run = sum(m["killed_in_run"] for m in per_module.values())
    total = sum(m["total"] for m in per_module.values())
    generated = sum(m["generated"] for m in per_module.values())
    equivalent = sum(m["equivalent"] for m in per_module.values())
    groups = {}
    for group, members in GROUPS.items():
        entries = [per_module[m] for m in members if m in per_module]
        group_total = sum(e["total"] for e in entries)
        group_killed = sum(e["killed"] for e in entries)
        groups[group] = {"modules": members, "killed": group_killed, "total": group_total,
                         "generated": sum(e["generated"] for e in entries),
                         "score": round(group_killed / group_total, 3) if group_total else None}
    unexamined = sum(s["verdict"] == "unexamined" for m in per_module.values() for s in m["survivors"])
    result = {
        "tool": "mutmut", "version": version,
        "sample": (f"a seeded sample, drawn per module: {total} of the {generated} mutants mutmut makes of "
                   f"these modules were tested ({100 * total / generated:.1f}%); the score estimates the "
                   "whole set's" if total < generated else "every mutant tested") if generated else None,
        # killed and total count the mutants tested; with a sample, the rest are not checked
        # each run's draw (mutants per module, seed) is under "runs" and each module's under "modules"
        "sampling": {"tested": total, "generated": generated,
                     "share": round(total / generated, 3) if generated else None},
        "modules_run": sorted(per_module),
        # rules that are only their documentation and constants: mutmut finds nothing to mutate
        "modules_without_mutants": without_mutants,
        "modules_not_run": [module for module in TESTS if module not in per_module and module not in without_mutants],
        "killed": killed, "total": total, "equivalent": equivalent, "killed_in_run": killed_in_run,
        "unexamined": unexamined,
        "score_in_run": round(killed_in_run / total, 3) if total else None,
        "score": round(killed / total, 3) if total else None,
        "score_without_equivalent": round(killed / (total - equivalent), 3) if total > equivalent else None,
        "groups": groups,
        # each run: its wall time (generating mutants, learning which test reaches which function,
        # the tests without a mutant, then the mutants, --max-children at a time) and what it tested
        "runs": runs_before + ([{"modules": modules, "sampling": sampling,
                                               "wall_seconds": round(wall_seconds, 1),
                                               "mutants_tested": tested,
                                               "seconds_per_mutant": round(wall_seconds / tested, 1)
                                               if tested else None,
                                               **_mutant_rate(scratch)}] if wall_seconds else []),
        "modules": per_module,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    return result


# the order a mutant's test files are run in by --runner files: fast, focused files first, so
# that most mutants are killed before the files that compile every fixture or run hipcc
_FILE_ORDER = ["tests/test_rule_findings.py", "tests/test_safety_conditions.py", "tests/test_rules_ir.py",
               "tests/test_docs.py", "tests/test_rewrite.py", "tests/test_decorator.py", "tests/test_fix.py",
               "tests/test_fixtures.py", "tests/test_cli.py", "tests/test_robustness.py",
               "tests/test_rewrite_equivalence.py", "tests/test_hip_host.py"]


# files whose every test starts kernlint processes or hipcc: a mutant meets them only once it
# survived the others (the second pass of --runner files)
_SLOW_FILES = {"tests/test_hip_host.py", "tests/test_cli.py", "tests/test_robustness.py",
               "tests/test_rewrite_equivalence.py"}


def _sync_copy(scratch: Path) -> None:
    """The mutated copy's tests, fixtures and other files as they are now (new tests and
    fixtures included); kernlint/ itself stays as mutmut made it."""
    for name in _tracked_files():
        source, target = ROOT / name, scratch / "mutants" / name
        if name.startswith("kernlint/") or not source.is_file():
            continue
        if not target.exists() or target.read_bytes() != source.read_bytes():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def _interleaved(names: List[str]) -> List[str]:
    """The sample's mutants one module at a time in turn (the first of each, then the second),
    so that a run stopped at its deadline has tested every module about as much."""
    by_module: Dict[str, List[str]] = {}
    for name in names:
        by_module.setdefault(name.rsplit(".", 1)[0], []).append(name)
    queues = list(by_module.values())
    return [queue[i] for i in range(max(map(len, queues), default=0)) for queue in queues if i < len(queue)]


def run_files(scratch: Path, environment: Dict[str, str], modules: List[str], names: List[str],
              children: int, deadline: Optional[float], per_mutant: float) -> int:
    """Test each mutant against its module's whole test files (``TESTS``), cheapest first,
    stopping at the first failing test, as mutmut's own runner does (the mutated copy, the
    mutant named in MUTANT_UNDER_TEST), and record the outcome in mutmut's results.

    mutmut gives a mutant only the tests it saw reach the mutated function, and a function
    reached inside a session fixture (``fixture_report`` checks every fixture once) is seen by
    the first test that asked for the fixture alone: a host rule's mutant then meets one
    fixture's expectations, and survives tests that would kill it. Here it meets all of them.
    Returns how many mutants were tested; those left at the deadline stay not checked."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    tests = scratch / "mutants" / "tests"
    _sync_copy(scratch)
    module_of = {}
    for module in modules:
        for name in _statuses(scratch, module):
            module_of[name] = module
    todo = [name for name in _interleaved(names) if name in module_of]
    timings = scratch / "times.json"
    seconds = json.loads(timings.read_text()) if timings.exists() else {}
    written = threading.Lock()

    partial_file = scratch / "partial.json"  # survivors the slow files have not been run on yet
    partial = json.loads(partial_file.read_text()) if partial_file.exists() else {}

    def one(name: str, slow: bool = False) -> Optional[int]:
        if deadline is not None and time.time() > deadline:
            return None
        module = module_of[name]
        files = sorted((t for t in TESTS[module] if (ROOT / t).exists() and (t in _SLOW_FILES) == slow),
                       key=lambda t: _FILE_ORDER.index(t) if t in _FILE_ORDER else len(_FILE_ORDER))
        if not files:
            return None
        started = time.monotonic()
        try:
            done = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p",
                                   "_kernlint_mutation_hooks", *files], cwd=tests.parent,
                                  env={**environment, "MUTANT_UNDER_TEST": name}, capture_output=True,
                                  text=True, timeout=per_mutant)
            # pytest: 0 passed (survived), 1 a test failed, 3 an internal error (both killed)
            code = done.returncode if done.returncode in (0, 1, 3) else 35
        except subprocess.TimeoutExpired:
            code = 36
        with written:  # the tests run in parallel, the shared result files are written in turn
            seconds[name] = round(seconds.get(name, 0.0) * slow + time.monotonic() - started, 1)
            slow_files = [t for t in TESTS[module] if t in _SLOW_FILES and (ROOT / t).exists()]
            if code == 0 and not slow and slow_files:
                partial[name] = files  # survived these; the slow files come in the second pass
            else:
                partial.pop(name, None)
            partial_file.write_text(json.dumps(partial, indent=1))
            meta = scratch / "mutants" / "kernlint" / (module + ".meta")
            data = json.loads(meta.read_text())
            data["exit_code_by_key"][name] = code
            meta.write_text(json.dumps(data, indent=4))
            timings.write_text(json.dumps(seconds, indent=1))
            if code == 0:  # it passed the new tests among the files
                remembered = scratch / "killers.json"
                known = json.loads(remembered.read_text()) if remembered.exists() else {}
                known[_new_tests(module, name)[1]] = None
                remembered.write_text(json.dumps(known, indent=1))
        print(f"{_STATUS.get(code, 'suspicious'):>9} {seconds[name]:7.1f}s {name}", flush=True)
        return code

    with ThreadPoolExecutor(max_workers=children) as pool:
        outcomes = list(pool.map(one, todo))
        # the survivors, against the slow files, while there is time
        outcomes += list(pool.map(lambda name: one(name, slow=True), [n for n in todo if n in partial]))
    return sum(outcome is not None for outcome in outcomes)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--modules", nargs="+", choices=list(TESTS), metavar="MODULE",
                        help="modules under kernlint/ (default: all, the safety-critical ones first)")
    parser.add_argument("--safety-critical", action="store_true", help="only " + ", ".join(SAFETY_CRITICAL))
    parser.add_argument("--scratch", type=Path, default=Path("/tmp/kernlint-mutation"),
                        help="the copy mutmut works in (kept: a second run goes on where one stopped)")
    parser.add_argument("--max-children", type=int, default=2, help="mutants tested at once")
    parser.add_argument("--mutants", nargs="+", default=(), help="test only these mutants again (by name)")
    parser.add_argument("--deselect", nargs="+", default=(), metavar="TEST",
                        help="tests that fail without any mutant (mutmut needs a passing baseline)")
    parser.add_argument("--sample", type=int, metavar="N",
                        help="test N mutants of each module, drawn at random (--seed), and the survivors "
                             "benchmarks/mutation_verdicts.toml names: an estimate where the whole set "
                             "would take too long (the mutants come from an earlier run's first step)")
    parser.add_argument("--seed", type=int, default=41)
    parser.add_argument("--runner", choices=("mutmut", "files"), default="mutmut",
                        help="files: test each mutant against its module's whole test files, cheapest "
                             "first (see run_files), in turn per module, until --minutes have passed")
    parser.add_argument("--minutes", type=float, help="with --runner files: start no mutant after this")
    parser.add_argument("--per-mutant-limit", type=float, default=1800.0,
                        help="with --runner files: seconds before a mutant's tests count as timed out")
    parser.add_argument("--report-only", action="store_true", help="write the JSON from the copy's results")
    parser.add_argument("--wall-seconds", type=float, help="with --report-only: how long the run took")
    args = parser.parse_args(argv)
    modules = args.modules or (SAFETY_CRITICAL if args.safety_critical else list(TESTS))
    wall_seconds = None
    environment = prepare(args.scratch, modules, args.deselect)
    mutants = list(args.mutants)
    if args.sample:
        generate(args.scratch, environment, modules)
        mutants += sample(args.scratch, modules, args.sample, args.seed)
    if not args.report_only and args.runner == "files":
        if not args.sample and not mutants:
            raise SystemExit("--runner files tests a sample (--sample) or named mutants (--mutants)")
        started = time.monotonic()
        deadline = time.time() + 60 * args.minutes if args.minutes else None
        # a mutant tested already keeps its result unless named with --mutants
        fresh = [name for name in dict.fromkeys(mutants[len(args.mutants):] + mutants[:len(args.mutants)])
                 if name in args.mutants or _result(args.scratch, name) is None]
        run_files(args.scratch, environment, modules, fresh, args.max_children, deadline, args.per_mutant_limit)
        wall_seconds = time.monotonic() - started
    elif not args.report_only:
        # one mutmut run for all the modules: its tests (the union of theirs) are run once to
        # learn which test reaches which function, then each mutant gets only those tests
        started = time.monotonic()
        with open(args.scratch / "mutmut.log", "a") as log:
            done = subprocess.run([str(Path(sys.executable).with_name("mutmut")), "run", "--max-children",
                                   str(args.max_children), *mutants], cwd=args.scratch, env=environment,
                                  stdout=log, stderr=subprocess.STDOUT)
        wall_seconds = time.monotonic() - started
        if done.returncode != 0:
            print(f"mutmut run failed ({done.returncode}): see {args.scratch / 'mutmut.log'}", file=sys.stderr)
    sampling = {"per_module": args.sample, "seed": args.seed, "runner": args.runner} if args.sample else None
    result = report(args.scratch, environment, modules, wall_seconds or args.wall_seconds, sampling)
    print(f"killed {result['killed']} of {result['total']} ({result['score']}); results in "
          f"{RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
