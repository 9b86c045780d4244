"""Does a change keep kernlint's output byte for byte? Record the output of ``kernlint check``
before and after, then compare.

    python benchmarks/identical_output.py record OUT_DIR [CORPUS_DIR] [--only NAME,...] [--timeout S]
                                                [--commit SHA] [--check-options "--select KL5 --preview"]
    python benchmarks/identical_output.py --compare BEFORE_DIR AFTER_DIR [RESULT.json] [--control AGAIN_DIR]

``record`` runs ``kernlint check --no-cache --timeout 1200`` twice over each target — text
output, and ``--output-format json --show-signatures`` (the findings as JSON on stdout, the
signature list on stderr) — and keeps stdout, stderr and the exit code of each run in ``OUT_DIR/<target>/``,
with ``OUT_DIR/manifest.json`` (per target: the commit, the places it was recorded in, the
outputs' sha256, the time taken). ``--check-options`` adds options to both runs (``--select KL5
--preview``: the host rules alone, which compile nothing, on a large corpus); the manifest keeps
them, and ``--compare`` marks a target recorded with different options on its two sides as
different. The targets:

- ``examples``: ``examples/``;
- ``fixtures``: every fixture the suite checks in its one run (the entries of ``fixtures/``
  but ``recorded/``), and ``fixtures-recorded-mdlite``, checked with its own signatures file;
- every project of ``benchmarks/realworld_corpus.toml`` that has a copy in ``CORPUS_DIR/<name>``
  (the corpus stays out of this repository: the file says how to make the copies), and
  ``numba-cuda-tests``: the installed numba-cuda's own test suite.

Each run's working directory is the target's root and its paths are relative to it. The JSON
output still names files by absolute path: ``--compare`` reads each output with the target's
directory written as ``<target>``, the Python environment's as ``<prefix>`` and the
checkout's as ``<checkout>`` (the manifest keeps them), so two recordings made in different
places compare alike (memory addresses that numba's messages quote are left out too: they
change from run to run). It says per target whether every output is identical (and whether a
kernel ran past the time limit, which says how busy the machine was), and writes the result
as JSON. ``--control AGAIN_DIR``, a second recording of the after side, marks the outputs
that differ between two runs of one kernlint (the order of ``--show-signatures`` rows that
sort alike, a variant named by the repr of a random array): those say nothing about the
change.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
import time
import tomllib
from typing import Dict, List, Optional, Sequence, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CORPUS = os.path.join(HERE, "realworld_corpus.toml")
# long enough that no kernel runs past it on a busy machine (fbpic's largest take over a minute
# alone): a kernel past the limit is a KL902 that depends on the load, not on kernlint
TIMEOUT = 1200.0
# name -> the check's arguments; stdout and stderr of each run are kept
RUNS = {
    "text": [],
    "json": ["--output-format", "json", "--show-signatures"],
}


def numba_cuda_tests() -> Optional[str]:
    """The installed numba-cuda's test suite (``numba_cuda/numba/cuda/tests``)."""
    spec = importlib.util.find_spec("numba.cuda")
    if spec is None or not spec.submodule_search_locations:
        return None
    tests = os.path.join(list(spec.submodule_search_locations)[0], "tests")
    return tests if os.path.isdir(tests) else None


def targets(corpus_dir: Optional[str]) -> List[Tuple[str, str, List[str]]]:
    """(name, working directory, paths to check relative to it)."""
    fixtures = os.path.join(ROOT, "fixtures")
    recorded = os.path.join(fixtures, "recorded")
    found = [
        ("examples", ROOT, ["examples"]),
        ("fixtures", ROOT, sorted(os.path.relpath(os.path.join(fixtures, entry), ROOT)
                                  for entry in os.listdir(fixtures)
                                  if os.path.join(fixtures, entry) != recorded and entry != "__pycache__")),
    ]
    for entry in sorted(os.listdir(recorded)):
        if os.path.isdir(os.path.join(recorded, entry)):
            found.append((f"fixtures-recorded-{entry}", os.path.join(recorded, entry), ["."]))
    if corpus_dir:
        with open(CORPUS, "rb") as handle:
            projects = tomllib.load(handle).get("project", {})
        for name in projects:
            root = os.path.join(corpus_dir, name)
            if name == "numba-cuda-tests":  # always the installed wheel's: the version kernlint runs with
                root = numba_cuda_tests() or ""
            if os.path.isdir(root):
                found.append((name, root, ["."]))
            else:
                print(f"identical_output: no copy of {name}: left out", file=sys.stderr)
    return found


def _commit(given: Optional[str]) -> Dict[str, object]:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()

    # what the output depends on: kernlint's code (this script and the results are not part of it)
    changed = git("status", "--porcelain", "--", "kernlint", "setup.cfg", "setup.py")
    return {"commit": given or git("rev-parse", "HEAD") or "unknown",
            "kernlint_changed_since_commit": bool(changed) if not given else False}


def record(out_dir: str, corpus_dir: Optional[str], only: Optional[List[str]], timeout: float,
           commit: Optional[str], check_options: Sequence[str] = ()) -> int:
    os.makedirs(out_dir, exist_ok=True)
    manifest_path = os.path.join(out_dir, "manifest.json")
    manifest = {"targets": {}}
    if os.path.isfile(manifest_path):  # --only replaces some targets of an earlier recording
        with open(manifest_path) as handle:
            manifest = json.load(handle)
    # where and from what each target was recorded: the places are left out when comparing
    made = {**_commit(commit), "root": ROOT, "prefix": sys.prefix, "timeout": timeout,
            "check_options": list(check_options)}
    # this checkout's kernlint, whatever is installed; a warm worker server of other code is not
    # reused (its key holds kernlint's code)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))}
    for name, cwd, paths in targets(corpus_dir):
        if only and name not in only:
            continue
        folder = os.path.join(out_dir, name)
        os.makedirs(folder, exist_ok=True)
        entry = {**made, "paths": paths, "cwd": cwd, "outputs": {}, "seconds": {}}
        for run, options in RUNS.items():
            started = time.monotonic()
            done = subprocess.run([sys.executable, "-m", "kernlint", "check", "--no-cache", "--timeout", str(timeout),
                                   *options, *check_options, *paths], cwd=cwd, env=env, capture_output=True)
            entry["seconds"][run] = round(time.monotonic() - started, 1)
            for stream, data in (("stdout", done.stdout), ("stderr", done.stderr),
                                 ("rc", f"{done.returncode}\n".encode())):
                file = f"{run}.{stream}"
                with open(os.path.join(folder, file), "wb") as handle:
                    handle.write(data)
                entry["outputs"][file] = hashlib.sha256(data).hexdigest()
            print(f"{name} {run}: exit {done.returncode}, {entry['seconds'][run]} s", flush=True)
        manifest["targets"][name] = entry
        with open(manifest_path, "w") as handle:
            json.dump(manifest, handle, indent=1, sort_keys=True)
            handle.write("\n")
    return 0


def compare(before_dir: str, after_dir: str, result: Optional[str], control_dir: Optional[str] = None) -> int:
    """``control_dir``: a second recording of the after side's code: an output that differs
    between two runs of one kernlint is marked as such (it says nothing about the change)."""
    manifests = []
    for folder in (before_dir, after_dir, control_dir):
        if folder is None:
            manifests.append({})
            continue
        with open(os.path.join(folder, "manifest.json")) as handle:
            manifests.append(json.load(handle)["targets"])
    before, after, control = manifests
    rows = {}
    for name in sorted(set(before) | set(after)):
        old, new = before.get(name), after.get(name)
        if old is None or new is None:
            rows[name] = {"identical": False, "missing_in": "before" if old is None else "after"}
            print(f"{name}: only {'after' if old is None else 'before'}")
            continue
        differing = sorted(f for f in set(old["outputs"]) | set(new["outputs"])
                           if _normalized(before_dir, old, name, f) != _normalized(after_dir, new, name, f))
        options = [old.get("check_options", []), new.get("check_options", [])]
        if options[0] != options[1]:  # two different checks: their outputs say nothing of the change
            differing.append("check_options")
        # a kernel past the time limit says how busy the machine was, not what kernlint does
        timed_out = {side: _timed_out(folder, name) for side, folder in (("before", before_dir), ("after", after_dir))}
        rows[name] = {"identical": not differing, "differing": differing, "outputs": len(old["outputs"]),
                      "commit_before": old["commit"], "commit_after": new["commit"],
                      "timeout": [old["timeout"], new["timeout"]], "kernels_timed_out": timed_out,
                      "check_options": options[1],
                      "seconds_before": old["seconds"], "seconds_after": new["seconds"]}
        findings = _findings(os.path.join(before_dir, name, "json.stdout"))
        if findings is not None:
            rows[name]["findings"] = findings
        again = control.get(name)
        if again is not None and differing:
            rows[name]["differing_between_two_runs_of_after"] = sorted(
                f for f in differing if _normalized(after_dir, new, name, f) != _normalized(control_dir, again, name, f))
        print(f"{name}: {'identical' if not differing else 'DIFFERENT: ' + ', '.join(differing)}"
              f" ({findings if findings is not None else '?'} findings"
              + (f"; kernels past the time limit: {timed_out}" if any(timed_out.values()) else "") + ")")
        for file in differing:
            if file == "check_options":
                print(f"    recorded with {options[0]} before, {options[1]} after")
                continue
            _show_difference(_normalized(before_dir, old, name, file), _normalized(after_dir, new, name, file))
    identical = all(row["identical"] for row in rows.values())
    summary = {
        "runs": {run: ["kernlint", "check", "--no-cache", "--timeout", "T", *options] for run, options in RUNS.items()},
        "all_identical": identical,
        "any_timed_out": any(any(row.get("kernels_timed_out", {}).values()) for row in rows.values()),
        "targets": rows,
    }
    if result:
        with open(result, "w") as handle:
            json.dump(summary, handle, indent=1, sort_keys=True)
            handle.write("\n")
    print("all identical" if identical else "some outputs differ")
    return 0 if identical else 1


def _normalized(folder: str, entry: dict, target: str, file: str) -> Optional[bytes]:
    """An output with the places the recording was made in replaced by placeholders (the
    target's directory first, then the environment's: they may lie inside the checkout), and
    the memory addresses numba's messages quote (``<function ones at 0x7f5d5b4399e0>``, in a
    KL903's reasons) written as ``0x?``: they differ from one process to the next."""
    try:
        with open(os.path.join(folder, target, file), "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    for place, placeholder in ((entry["cwd"], b"<target>"), (entry["prefix"], b"<prefix>"), (entry["root"], b"<checkout>")):
        data = data.replace(os.path.join(place, "").encode(), placeholder + b"/").replace(place.encode(), placeholder)
    return _ADDRESS.sub(b" at 0x?", data)


_ADDRESS = re.compile(rb" at 0x[0-9a-f]+")


def _timed_out(folder: str, target: str) -> int:
    """Kernels the JSON run reports as past the time limit (KL902)."""
    try:
        with open(os.path.join(folder, target, "json.stdout")) as handle:
            findings = json.load(handle)
    except (OSError, ValueError):
        return 0
    return sum(1 for f in findings if f.get("code") == "KL902" and "--timeout" in f.get("message", ""))


def _findings(path: str) -> Optional[int]:
    try:
        with open(path) as handle:
            return len(json.load(handle))
    except (OSError, ValueError):
        return None


def _show_difference(old: Optional[bytes], new: Optional[bytes], lines: int = 20) -> None:
    import difflib

    old_lines = (old or b"").decode("utf-8", "replace").splitlines()
    new_lines = (new or b"").decode("utf-8", "replace").splitlines()
    diff = list(difflib.unified_diff(old_lines, new_lines, "before", "after", lineterm=""))
    for line in diff[:lines]:
        print("    " + line)
    if len(diff) > lines:
        print(f"    ... {len(diff) - lines} more lines")


def main(argv: List[str]) -> int:
    import argparse

    if len(argv) >= 3 and argv[0] == "--compare":
        control = None
        if "--control" in argv:
            at = argv.index("--control")
            control = argv[at + 1]
            argv = argv[:at] + argv[at + 2:]
        return compare(argv[1], argv[2], argv[3] if len(argv) > 3 else None, control)
    if not argv or argv[0] != "record":
        print(__doc__)
        return 2
    parser = argparse.ArgumentParser(prog="identical_output.py record")
    parser.add_argument("out_dir")
    parser.add_argument("corpus_dir", nargs="?")
    parser.add_argument("--only", help="these targets (comma-separated), replacing theirs in OUT_DIR")
    parser.add_argument("--timeout", type=float, default=TIMEOUT,
                        help=f"kernlint's --timeout (default {TIMEOUT:g} s)")
    parser.add_argument("--commit", help="the commit this checkout is, where it is no git checkout (a git archive)")
    parser.add_argument("--check-options", default="",
                        help="more options for both runs of `kernlint check`, as one string (`--select KL5 --preview`)")
    args = parser.parse_args(argv[1:])
    return record(args.out_dir, args.corpus_dir, args.only.split(",") if args.only else None, args.timeout,
                  args.commit, shlex.split(args.check_options))


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
