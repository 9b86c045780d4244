"""kernlint on real code: a corpus of public numba.cuda projects, read from local copies.

    python benchmarks/realworld.py CORPUS_DIR [CORPUS_DIR ...] [OUT.json] [--jobs N]
        [--half developed|held-out|held-out-2|held-out-3|held-out-4|held-out-5|held-out-6|held-out-7|held-out-8|held-out-9|held-out-10|held-out-11|held-out-12|held-out-13|held-out-14|held-out-15|held-out-16|all] [--select CODES]
    python benchmarks/realworld.py --combine RUN.json [RUN.json ...] OUT.json

CORPUS_DIR holds one directory per project (the corpus stays out of this repository;
``benchmarks/realworld_corpus.toml`` names each project's repository and commit, and how
to make the copies). Per project this reports: the kernels present (counted from the
syntax tree: every ``@cuda.jit`` kernel that is not a device function), the kernels
checked and by which signature source, KL902/KL903 by cause, every finding of a rule
(kernel and host rules; not kernlint's own KL9xx) with its hand verdict from
``benchmarks/realworld_verdicts.toml`` (true/false and one line why; findings without one
are listed as unjudged), precision per rule over the judged findings, internal errors
(KL905), and the wall time of the run.

Where ``benchmarks/results/recorded/<project>.toml`` holds a signatures file that ``kernlint
record`` wrote from the project's own tests (run here under numba's CUDA simulator; the
command is the corpus entry's ``record``), the project is measured a second time with it,
copied to the project's root as a user would commit it: kernels checked and launched kernels
by signature source, with what that run saw (signatures, and what factory-made kernels closed over).

The corpus is split in halves (``half`` in ``benchmarks/realworld_corpus.toml``): the rules
were developed on one, the others are held out and judge them. ``held-out`` was read once its
final run was done, so it no longer judges honestly, nor do ``held-out-2``, ``held-out-3`` and
``held-out-4`` to ``held-out-12`` since their runs (each labelled, its true patterns written
down, before anything ran on it), nor ``held-out-13`` to ``held-out-22`` since their runs (each was the fresh one, run once at the end). ``--half`` picks the projects of the CORPUS_DIRs that are run: ``developed``
(the default), one of the held-out halves (only when asked: a held-out set is run once, at the
end) or ``all``. Besides precision, each rule gets its recall
against the true patterns found by reading the projects' host code (``[expected."<project>"]``
in the verdicts file), and the output's ``summary`` gives both per half and per rule, with the
false findings counted by their shape (the ``[shape]`` a false verdict names). ``--select``
reports only those rules (``KL5``: the host rules); with host rules alone no kernel is compiled
(the coverage fields then say so), and the recorded run is skipped. Preview rules run (``preview=True``): they
are what is measured before a rule leaves preview.

``--combine`` puts runs made separately (one per half, or per corpus directory to use more
cores) into one file, each finding judged again with the verdicts file as it is now, and the
summary per half and per rule over them all: ``benchmarks/results/realworld.json`` is made so.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import sys
import time
import tomllib
from collections import Counter, defaultdict
from typing import Dict, List, Tuple

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kernlint.engine import Options, check_paths, discover, worth_checking  # noqa: E402
from kernlint.python.host.reader import file_host_facts  # noqa: E402
from kernlint.python.project import Project  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
VERDICTS = os.path.join(HERE, "realworld_verdicts.toml")
RECORDED = os.path.join(HERE, "results", "recorded")
CORPUS = os.path.join(HERE, "realworld_corpus.toml")

# KL902/KL903 messages -> a short cause
_CAUSES = [
    (r"is being resolved \(a cycle\)", "name rebound to its jitted self (cycle)"),
    (r"numba stops on it too \(NameError\)", "name defined nowhere (the kernel's own slip)"),
    (r"`[\w.]+` is not defined in this module", "module or name not resolved"),
    (r"is a parameter of .* that no call", "factory parameter without a readable value"),
    (r"`self\.\w+` is (not assigned|assigned \d+ times|changed after)", "instance attribute set at run time"),
    (r"float64 stand-ins", "library constant stand-in"),
    (r"not imported|safe-imports|is imported from", "library value not imported"),
    (r"no signature found \(no launch site with known argument types, no recorded signature[^)]*\); inferred",
     "inferred candidates rejected by numba"),
    (r"no signature found", "no signature source"),
    (r"TypingError|typing of|Cannot determine Numba type|No implementation of function", "numba typing error"),
    (r"LoweringError|lowering", "numba lowering error"),
    (r"failed to compile", "other compile error"),
    (r"not compiled", "other unresolved global"),
]


def cause(message: str) -> str:
    for pattern, label in _CAUSES:
        if re.search(pattern, message):
            return label
    return "other"


def kernels_present(root: str) -> Tuple[Dict[str, List[Tuple[str, int]]], set]:
    """(path -> (qualname, def line) of the kernels, not device functions, that the syntax tree
    defines; the (path, def line) of those launched somewhere in the project: a ``name[...](...)``
    call in any of its files' host code naming one of the names the kernel is bound to, where
    that file defines no kernel of that name itself (then the launch is of its own); one inside a
    kernel's body is not a launch: numba.cuda launches no kernel from the GPU), and every kernel
    a launch the host reader follows starts (through attributes, dicts, picks, a kernel passed
    to a launching helper: the facts the signatures are read from), whatever its name there."""
    project = Project()
    found: Dict[str, List[Tuple[str, int]]] = {}
    names: Dict[tuple, set] = defaultdict(set)
    launched_in: Dict[str, set] = {}
    defined_in: Dict[str, set] = {}
    for path in discover([root], "cuda"):
        if not path.endswith(".py"):
            continue
        module = project.module(path)
        if module is None:
            continue
        launched_in[path] = set()
        for node in _host_nodes(module):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript):
                target = node.func.value
                if isinstance(target, ast.Name):
                    launched_in[path].add(target.id)
                elif isinstance(target, ast.Attribute):
                    launched_in[path].add(target.attr)
        kernels = [k for k in module.kernels if not k.device]
        defined_in[path] = {name for k in kernels for name in (k.names or [k.name])}
        if not worth_checking(path, project):
            continue
        if kernels:
            found[path] = [(k.qualname, k.line) for k in kernels]
            for kernel in kernels:
                names[(path, kernel.line)].update(kernel.names or [kernel.name])
    launched = _followed(project, launched_in)
    for key, bound in names.items():
        for path, called in launched_in.items():
            reaching = called if path == key[0] else called - defined_in[path]
            if bound & reaching:
                launched.add(key)
                break
    return found, launched


def _followed(project: Project, paths) -> set:
    """(path, def line) of the kernels the host reader's launches in ``paths`` start."""
    started = set()
    for path in paths:
        facts = file_host_facts(project, path)
        for launch in (facts.launches + facts.passed_launches) if facts is not None else ():
            module = project.module(launch.kernel.path) if launch.kernel is not None else None
            kernel = next((k for k in module.kernels if k.qualname == launch.kernel.qualname), None) \
                if module is not None else None
            if kernel is not None and not kernel.device:
                started.add((module.path, kernel.line))
    return started


def _host_nodes(module):
    """The module's nodes, less the bodies of its kernels and device functions."""
    pending = [module.tree]
    while pending:
        node = pending.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not (isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and module.kernel_for(child)):
                pending.append(child)


HALVES = ("developed", "held-out", "held-out-2", "held-out-3", "held-out-4", "held-out-5", "held-out-6", "held-out-7", "held-out-8", "held-out-9", "held-out-10", "held-out-11", "held-out-12", "held-out-13", "held-out-14", "held-out-15", "held-out-16", "held-out-17", "held-out-18", "held-out-19", "held-out-20", "held-out-21", "held-out-22")


def load_verdicts(path: str = VERDICTS) -> Tuple[Dict[str, Dict[str, str]], Dict[str, List[dict]]]:
    """(project -> finding key -> verdict, project -> the true patterns found by reading its code)."""
    if not os.path.isfile(path):
        return {}, {}
    with open(path, "rb") as handle:
        data = tomllib.load(handle)
    expected = data.pop("expected", {})
    return data, expected


def shape(verdict: str) -> str:
    """The shape a false verdict names (`false [periodic]: ...`); '' for true or unjudged ones."""
    if not verdict.startswith("false"):
        return ""
    found = re.match(r"false \[([^\]]+)\]", verdict)
    return found.group(1) if found else "unclassified"


def statement_end(root: str, path: str, line: int) -> int:
    """The last line of the statement a true pattern names by its first line (a call spread over
    lines, ``a, b = reproduce(g,\n ...)``: a finding at the call's line is that pattern); the
    header's last line for a compound statement; ``line`` where the file does not say."""
    try:
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError):
        return line
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and node.lineno == line:
            body = getattr(node, "body", None)
            if isinstance(body, list) and body:
                return max(line, body[0].lineno - 1)
            return max(line, node.end_lineno or line)
    return line


def mark_reported(patterns: List[dict], keys) -> List[dict]:
    """Each true pattern with ``reported``: a finding of its rule in its file on a line of the
    statement it names."""
    lines = defaultdict(set)
    for key in keys:
        path, line, code = key.rsplit(":", 2)
        lines[(path, code)].add(int(line))
    return [dict(p, reported=any(p["line"] <= found <= p.get("end_line", p["line"])
                                 for found in lines[(p["path"], p["code"])])) for p in patterns]


def rule_scores(findings: List[dict], expected: List[dict]) -> Dict[str, Dict[str, object]]:
    """Per rule: findings, judged, true, precision (true / judged), the expected true patterns,
    those reported (a finding of that rule in that file on a line of the statement it names),
    recall, and the false
    findings by shape."""
    codes = sorted({f["key"].rsplit(":", 1)[1] for f in findings} | {e["code"] for e in expected})
    scores = {}
    for code in codes:
        mine = [f for f in findings if f["key"].rsplit(":", 1)[1] == code]
        judged = [f for f in mine if f["verdict"] != "unjudged"]
        true = [f for f in judged if f["verdict"].startswith("true")]
        wanted = [e for e in expected if e["code"] == code]
        reported = [e for e in wanted if e["reported"]]
        scores[code] = {
            "findings": len(mine), "judged": len(judged), "true": len(true),
            "precision": round(len(true) / len(judged), 3) if judged else None,
            "expected": len(wanted), "expected_reported": len(reported),
            "recall": round(len(reported) / len(wanted), 3) if wanted else None,
            "false_by_shape": dict(Counter(shape(f["verdict"]) for f in judged
                                           if not f["verdict"].startswith("true"))),
        }
    return scores


def checked_kernels(report) -> Dict[tuple, str]:
    """(path, def line) -> the most trusted source of a signature each kernel compiled with."""
    checked: Dict[tuple, str] = {}
    rank = ["eager", "comment", "config", "launch-site", "recorded", "stand-in", "inferred"]
    for stat in report.stats:
        if stat.host:
            continue
        key = (stat.path, stat.line)
        source = (stat.signature_source or "").partition(":")[0] or "eager"
        if key not in checked or rank.index(source) < rank.index(checked[key]):
            checked[key] = source
    return checked


TRUSTED = ("eager", "comment", "config", "launch-site", "recorded")


def coverage(present_keys: set, launched: set, checked: Dict[tuple, str]) -> Dict[str, object]:
    # a kernel counts as checked when one of its signatures compiled (matched by file and def line:
    # kernels of one file often share a name)
    checked_present = {key: checked[key] for key in present_keys if key in checked}
    # kernels launched in the project: is the signature from a launch (or written), not the body?
    launched_from = Counter(checked_present.get(key, "unchecked") for key in launched)
    return {
        "kernels_present": len(present_keys),
        "kernels_checked": len(checked_present),
        "checked_share": round(len(checked_present) / len(present_keys), 3) if present_keys else None,
        "by_signature_source": dict(Counter(checked_present.values())),
        "kernels_launched": len(launched),
        "launched_by_signature_source": dict(launched_from),
        "launched_share_from_launch_or_written": round(
            sum(n for source, n in launched_from.items() if source in TRUSTED) / len(launched), 3)
        if launched else None,
    }


def with_record(name: str, root: str, present_keys: set, launched: set, verdicts: Dict[str, str], jobs=None):
    """The coverage with the committed recording of the project's tests; None where there is none."""
    recorded = os.path.join(RECORDED, f"{name}.toml")
    if not os.path.isfile(recorded):
        return None
    target = os.path.join(root, "kernlint-signatures.toml")
    shutil.copy(recorded, target)
    try:
        started = time.perf_counter()
        report = check_paths([root], Options(timeout=120, jobs=jobs, signatures_file=target, preview=True))
        seconds = time.perf_counter() - started
    finally:
        os.remove(target)
    row = coverage(present_keys, launched, checked_kernels(report))
    diagnostics = defaultdict(Counter)
    for finding in report.findings:
        if finding.code in ("KL902", "KL903"):
            diagnostics[finding.code][cause(finding.message)] += 1
    row.update({"diagnostics": {code: dict(counter) for code, counter in diagnostics.items()},
                "findings": [{"key": key, "verdict": verdicts.get(key, "unjudged")} for key in sorted(
                    {f"{os.path.relpath(f.path, root)}:{f.line}:{f.code}" for f in report.findings
                     if not f.code.startswith("KL9")})],
                "internal_errors": sum(1 for f in report.findings if f.code == "KL905"),
                "seconds": round(seconds, 1)})
    return row


def measure(name: str, root: str, verdicts: Dict[str, str], jobs=None, expected=(), select=None,
            half=None) -> Dict[str, object]:
    present, launched = kernels_present(root)
    started = time.perf_counter()
    report = check_paths([root], Options(timeout=120, jobs=jobs, select=select, preview=True))
    seconds = time.perf_counter() - started
    checked = checked_kernels(report)
    present_keys = {(path, line) for path, kernels in present.items() for _, line in kernels}
    diagnostics = defaultdict(Counter)
    for finding in report.findings:
        if finding.code in ("KL902", "KL903"):
            diagnostics[finding.code][cause(finding.message)] += 1
    judged_findings = []
    for finding in report.findings:
        if finding.code.startswith("KL9"):
            continue
        key = f"{os.path.relpath(finding.path, root)}:{finding.line}:{finding.code}"
        judged_findings.append({"key": key, "message": finding.message, "verdict": verdicts.get(key, "unjudged")})
    for finding in judged_findings:
        finding["shape"] = shape(finding["verdict"])
    precision = {}
    for code in sorted({h["key"].rsplit(":", 1)[1] for h in judged_findings}):
        judged = [h for h in judged_findings if h["key"].endswith(code) and h["verdict"] != "unjudged"]
        true = [h for h in judged if h["verdict"].startswith("true")]
        precision[code] = {"findings": sum(1 for h in judged_findings if h["key"].endswith(code)), "judged": len(judged),
                           "true": len(true), "precision": round(len(true) / len(judged), 3) if judged else None}
    # the true patterns read in the project's host code: is each one reported, by its rule, where it is?
    patterns = [dict(entry, end_line=statement_end(root, entry["path"], entry["line"])) for entry in expected]
    patterns = mark_reported(patterns, {h["key"] for h in judged_findings})
    return {
        "project": name,
        "half": half,
        "select": ",".join(select) if select else None,
        **coverage(present_keys, launched, checked),
        "diagnostics": {code: dict(counter) for code, counter in diagnostics.items()},
        # each KL902/KL903 whole, to read what stops a kernel without running the project again
        "unchecked": [f"{os.path.relpath(f.path, root)}:{f.line}: {f.code} {f.message}"
                      for f in report.findings if f.code in ("KL902", "KL903")],
        "internal_errors": [f"{os.path.relpath(f.path, root)}:{f.line}: {f.message[:160]}"
                            for f in report.findings if f.code == "KL905"],
        "findings": judged_findings,
        "precision": precision,
        "findings_by_code": dict(Counter(f.code for f in report.findings)),
        "expected": patterns,
        "scores": rule_scores(judged_findings, patterns),
        "seconds": round(seconds, 1),
        # a recorded run is a second coverage measurement: not with a rule selection
        "with_recorded_run": None if select else with_record(name, root, present_keys, launched, verdicts, jobs),
    }


def projects(corpus_dirs: List[str], manifest: Dict[str, dict],
             half: str) -> Tuple[List[Tuple[str, str]], List[str]]:
    """(name, root) of the projects of the corpus directories in the half asked for, and the
    names left out for being in the other half. A project the manifest does not list has no
    half: it runs only with `all`."""
    chosen, left_out = [], []
    for corpus_dir in corpus_dirs:
        for name in sorted(os.listdir(corpus_dir)):
            root = os.path.join(corpus_dir, name)
            if not os.path.isdir(root):
                continue
            if half == "all" or manifest.get(name, {}).get("half") == half:
                chosen.append((name, root))
            else:
                left_out.append(name)
    return chosen, left_out


def rejudge(row: dict, verdicts: Dict[str, str], expected: List[dict], half=None) -> dict:
    """A measured row judged again with the verdicts and true patterns as the files hold them now
    (the findings are what the run printed; only their judgement changes)."""
    row = dict(row, half=half or row.get("half"))
    findings = [dict(f, verdict=verdicts.get(f["key"], "unjudged")) for f in row["findings"]]
    for finding in findings:
        finding["shape"] = shape(finding["verdict"])
    precision = {}
    for code in sorted({f["key"].rsplit(":", 1)[1] for f in findings}):
        mine = [f for f in findings if f["key"].rsplit(":", 1)[1] == code]
        judged = [f for f in mine if f["verdict"] != "unjudged"]
        true = [f for f in judged if f["verdict"].startswith("true")]
        precision[code] = {"findings": len(mine), "judged": len(judged), "true": len(true),
                           "precision": round(len(true) / len(judged), 3) if judged else None}
    # (the statement's last line, read from the source at the run, carried over)
    ends = {(e["path"], e["line"]): e["end_line"] for e in row.get("expected", ()) if e.get("end_line")}
    patterns = [dict(entry, end_line=ends.get((entry["path"], entry["line"]), entry["line"])) for entry in expected]
    patterns = mark_reported(patterns, {f["key"] for f in findings})
    row.update(findings=findings, precision=precision, expected=patterns, scores=rule_scores(findings, patterns))
    return row


def summary(rows: List[dict]) -> Dict[str, Dict[str, Dict[str, object]]]:
    """Per half (and `all`), per rule: rule_scores over the half's projects together."""
    out = {}
    for half in sorted({row["half"] or "unlisted" for row in rows}) + ["all"]:
        mine = [row for row in rows if half == "all" or (row["half"] or "unlisted") == half]
        out[half] = {"projects": [row["project"] for row in mine],
                     "rules": rule_scores([f for row in mine for f in row["findings"]],
                                          [e for row in mine for e in row["expected"]])}
    return out


def combine(inputs: List[str], out: str, manifest_path: str, verdicts_path: str) -> int:
    """Earlier runs' projects in one file, judged with today's verdicts (a project measured twice:
    the later input wins), each run's `half` and `select` kept per project."""
    if not inputs or not out.endswith(".json"):
        raise SystemExit("realworld.py --combine IN.json [IN.json ...] OUT.json")
    verdicts, expected = load_verdicts(verdicts_path)
    manifest = {}
    if os.path.isfile(manifest_path):
        with open(manifest_path, "rb") as handle:
            manifest = tomllib.load(handle).get("project", {})
    rows: Dict[str, dict] = {}
    for path in inputs:
        with open(path) as handle:
            for row in json.load(handle)["projects"]:
                name = row["project"]
                rows[name] = rejudge(row, verdicts.get(name, {}), expected.get(name, []),
                                     manifest.get(name, {}).get("half"))
    ordered = sorted(rows.values(), key=lambda r: (HALVES.index(r["half"]) if r["half"] in HALVES else len(HALVES),
                                                  r["project"]))
    totals = summary(ordered)
    with open(out, "w") as handle:
        json.dump({"half": "all", "select": None, "sources": [os.path.basename(p) for p in inputs],
                   "projects": ordered, "summary": totals}, handle, indent=1)
        handle.write("\n")
    for half, part in totals.items():
        print(f"{half} ({len(part['projects'])} projects):")
        for code, p in part["rules"].items():
            print(f"    {code}: precision {p['precision']} ({p['true']}/{p['judged']} of {p['findings']}); "
                  f"recall {p['recall']} ({p['expected_reported']}/{p['expected']})")
    return 0


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(prog="realworld.py", description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", metavar="CORPUS_DIR [OUT.json]",
                        help="directories holding one directory per project; a path ending in .json is the output")
    parser.add_argument("--jobs", type=int, default=None, help="files compiled in parallel")
    parser.add_argument("--half", choices=HALVES + ("all",), default="developed",
                        help="which half of the corpus to run (default: developed)")
    parser.add_argument("--select", default=None, help="only these codes (e.g. KL5: the host rules)")
    parser.add_argument("--manifest", default=CORPUS,
                        help="the corpus list (default: benchmarks/realworld_corpus.toml)")
    parser.add_argument("--verdicts", default=VERDICTS,
                        help="the hand verdicts (default: benchmarks/realworld_verdicts.toml)")
    parser.add_argument("--combine", action="store_true",
                        help="the paths are earlier outputs (the last one is written): their projects in one "
                             "file, judged again with the verdicts file as it is now, with the summary per half")
    options = parser.parse_args(argv)
    if options.combine:
        return combine(options.paths[:-1], options.paths[-1], options.manifest, options.verdicts)
    outs = [p for p in options.paths if p.endswith(".json")]
    corpus_dirs = [p for p in options.paths if not p.endswith(".json")]
    if len(outs) > 1 or not corpus_dirs:
        parser.error("one or more CORPUS_DIRs and at most one OUT.json")
    out = outs[0] if outs else None
    jobs = options.jobs
    select = [code.strip() for code in options.select.split(",") if code.strip()] if options.select else None
    verdicts, expected = load_verdicts(options.verdicts)
    manifest = {}
    if os.path.isfile(options.manifest):
        with open(options.manifest, "rb") as handle:
            manifest = tomllib.load(handle).get("project", {})
    chosen, left_out = projects(corpus_dirs, manifest, options.half)
    if left_out:
        print(f"not run (not in the {options.half} half): {', '.join(left_out)}", flush=True)
    rows = []
    for name, root in chosen:
        half = manifest.get(name, {}).get("half")
        row = measure(name, root, verdicts.get(name, {}), jobs, expected.get(name, []), select, half)
        row.update({k: v for k, v in manifest.get(name, {}).items() if k in ("repository", "commit", "kind")})
        rows.append(row)
        source = ", ".join(f"{k} {v}" for k, v in sorted(row["by_signature_source"].items()))
        print(f"{name}: {row['kernels_checked']}/{row['kernels_present']} kernels checked ({source}); "
              f"findings {len(row['findings'])}; KL905 {len(row['internal_errors'])}; {row['seconds']} s",
              flush=True)
        launched = ", ".join(f"{k} {v}" for k, v in sorted(row["launched_by_signature_source"].items()))
        print(f"    launched in the project: {row['kernels_launched']} ({launched}); from a launch or "
              f"written: {row['launched_share_from_launch_or_written']}")
        for code, causes in row["diagnostics"].items():
            print(f"    {code}: " + "; ".join(f"{c} {n}" for c, n in sorted(causes.items(), key=lambda i: -i[1])))
        for code, p in row["scores"].items():
            shapes = ", ".join(f"{k} {v}" for k, v in sorted(p["false_by_shape"].items(), key=lambda i: -i[1]))
            print(f"    {code}: {p['true']}/{p['judged']} judged true of {p['findings']}"
                  + (f"; false by shape: {shapes}" if shapes else "")
                  + (f"; reported {p['expected_reported']}/{p['expected']} of the true patterns read"
                     if p["expected"] else ""))
        recorded = row["with_recorded_run"]
        if recorded:
            source = ", ".join(f"{k} {v}" for k, v in sorted(recorded["launched_by_signature_source"].items()))
            print(f"    with the recorded run: {recorded['kernels_checked']}/{recorded['kernels_present']} checked; "
                  f"launched: {source}; from a launch or written: {recorded['launched_share_from_launch_or_written']}"
                  f"; findings {len(recorded['findings'])}; KL905 {recorded['internal_errors']}")
            for finding in recorded["findings"]:
                if finding["verdict"] == "unjudged":
                    print(f"      unjudged: {finding['key']}")
            for code, causes in recorded["diagnostics"].items():
                print(f"      {code}: " + "; ".join(f"{c} {n}" for c, n in sorted(causes.items(), key=lambda i: -i[1])))
    totals = summary(rows)
    for half, part in totals.items():
        print(f"{half} ({len(part['projects'])} projects):")
        for code, p in part["rules"].items():
            print(f"    {code}: precision {p['precision']} ({p['true']}/{p['judged']} of {p['findings']}); "
                  f"recall {p['recall']} ({p['expected_reported']}/{p['expected']})")
    if out:
        with open(out, "w") as handle:
            json.dump({"half": options.half, "select": options.select, "projects": rows, "summary": totals},
                      handle, indent=1)
            handle.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
