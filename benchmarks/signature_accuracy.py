"""How right are the signatures kernlint finds by reading? Compared with those a run records.

    python benchmarks/signature_accuracy.py PROJECT_DIR OUT.json [--timeout S] -- TEST COMMAND...
    python benchmarks/signature_accuracy.py PROJECT_DIR OUT.json --recorded SIGNATURES.toml

Runs ``kernlint record -- TEST COMMAND`` in PROJECT_DIR under numba's CUDA simulator (the
project's tests, launching its kernels with the types they really get), writing the recorded
signatures outside the project. Then checks the project by reading alone (no recorded
signatures: eager, comment, config, launch-site and inferred ones), and compares, for each
kernel the tests launched: was it checked, and does a signature kernlint checked it with
equal one the run recorded (per signature source)? A disagreement is listed with both sides.
With ``--recorded``, the signatures are those of a recording made before, elsewhere (a GPU
run of ``benchmarks/record_corpus.py``, kept in ``benchmarks/results/recorded/``), its keys
relative to PROJECT_DIR. The project's test dependencies must be installed in this environment. numba-cuda's tests,
as its wheel ships them, need the fixture its repository's conftest gives:
``PYTHONPATH=benchmarks ... -- python -m pytest -p numba_cuda_tests_plugin tests``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from typing import Dict, List, Set, Tuple

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kernlint.engine import Options, check_paths, discover  # noqa: E402
from kernlint.python.project import Project  # noqa: E402
from kernlint.python.signatures.recorded import SIGNATURES_FILE, read_recorded  # noqa: E402


def record(root: str, command: List[str], timeout: float) -> Tuple[Dict, float, int]:
    """path -> qualname -> recorded signatures, the run's seconds and exit status."""
    scratch = tempfile.mkdtemp(prefix="kernlint-accuracy-")
    output = os.path.join(scratch, SIGNATURES_FILE)
    started = time.perf_counter()
    try:
        status = subprocess.call([sys.executable, "-m", "kernlint", "record", "--simulator", "-o", output, "--"]
                                 + command, cwd=root, timeout=timeout)
    except subprocess.TimeoutExpired:
        status = 124  # what was recorded before the limit is lost: the file is written at the end
    seconds = time.perf_counter() - started
    recorded = {path: {kernel: {s for s, _ in entries} for kernel, entries in kernels.items()}
                for path, kernels in read_recorded(output).items()}
    return recorded, seconds, status


def recorded_in(path: str, root: str) -> Dict[str, Dict[str, Set[str]]]:
    """path -> qualname -> signatures of a signatures file, its keys read relative to ``root``."""
    import tomllib

    with open(path, "rb") as handle:
        table = tomllib.load(handle).get("signatures", {})
    found: Dict[str, Dict[str, Set[str]]] = defaultdict(lambda: defaultdict(set))
    for key, values in table.items():
        file_part, kernel = key.rsplit("::", 1)
        found[os.path.abspath(os.path.join(root, file_part))][kernel].update(values)
    return found


def qualnames(root: str) -> Dict[Tuple[str, int], str]:
    """(path, def line) -> qualified name, for every kernel and device function read."""
    project = Project()
    found = {}
    for path in discover([root], "cuda"):
        module = project.module(path) if path.endswith(".py") else None
        if module is not None:
            for kernel in module.kernels:
                # a module function a test jits (`cuda.jit(sig)(helper)`) is recorded under its own name
                found[(path, kernel.line)] = kernel.node.name if kernel.applied is not None else kernel.qualname
    return found


def _normal(signature: str) -> str:
    """A signature as numba reads it (``bool`` and ``boolean``, ``intp`` and ``int64`` are one)."""
    from kernlint.compile.numba_cuda import parse_signature

    try:
        args, _ = parse_signature(signature)
    except Exception:  # noqa: BLE001 - one numba does not parse is compared as written
        return signature
    return "(" + ", ".join(str(a) for a in args) + ")"


def compare(root: str, recorded: Dict[str, Dict[str, Set[str]]]) -> Dict[str, object]:
    if os.path.exists(os.path.join(root, SIGNATURES_FILE)):
        raise SystemExit(f"{root} has a {SIGNATURES_FILE}: reading alone is what is measured")
    report = check_paths([root], Options(timeout=120))
    names = qualnames(root)
    static: Dict[Tuple[str, str], Dict[str, str]] = defaultdict(dict)  # -> signature -> source
    for stat in report.stats:
        if stat.host:
            continue
        qualname = names.get((stat.path, stat.line), stat.kernel)
        static[(stat.path, qualname)][stat.signature] = (stat.signature_source or "eager").partition(":")[0]
    outcomes: Counter = Counter()
    by_source: Dict[str, Counter] = defaultdict(Counter)
    disagreements = []
    read = {(path, qualname) for (path, _), qualname in names.items()}
    for path, kernels in sorted(recorded.items()):
        for qualname, signatures in sorted(kernels.items()):
            found = static.get((path, qualname))
            if not found:
                # not found: made by code kernlint's reader does not take for a kernel
                # (`cuda.jit(sig)(parameter)` in a test's helper); else found, not checked
                outcomes["not checked" if (path, qualname) in read else "not found"] += 1
                continue
            sources = set(found.values())
            source = next(s for s in ("eager", "comment", "config", "launch-site", "recorded", "stand-in", "inferred")
                          if s in sources) if sources else "?"
            if source == "eager":
                outcomes["eager"] += 1  # written in the decorator: numba compiles exactly that, not a guess
                continue
            signatures = {_normal(s) for s in signatures}
            found = {_normal(s): origin for s, origin in found.items()}
            agreed = set(found) & signatures
            outcome = "agrees" if agreed else "differs"
            outcomes[outcome] += 1
            by_source[source][outcome] += 1
            if set(found) <= signatures:
                outcomes["all recorded"] += 1  # no signature kernlint checked is one the tests never used
            if not agreed:
                disagreements.append({"kernel": f"{os.path.relpath(path, root)}::{qualname}",
                                      "kernlint": sorted(found), "source": source,
                                      "recorded": sorted(signatures)})
    compared = outcomes["agrees"] + outcomes["differs"]  # agrees: one signature kernlint checked was recorded
    return {
        "kernels_launched_by_tests": sum(len(k) for k in recorded.values()),
        "checked_by_guess": compared,
        "agree": outcomes["agrees"],
        "all_signatures_recorded": outcomes["all recorded"],
        "differ": outcomes["differs"],
        "not_checked": outcomes["not checked"],
        "not_found_as_kernels": outcomes["not found"],
        "eager_not_compared": outcomes["eager"],
        "agreement_of_checked": round(outcomes["agrees"] / compared, 3) if compared else None,
        "by_source": {source: dict(counter) for source, counter in sorted(by_source.items())},
        "disagreements": disagreements,
    }


def main(argv: List[str]) -> int:
    if "--recorded" in argv:
        at = argv.index("--recorded")
        given, args, command = argv[at + 1], argv[:at] + argv[at + 2:], []
    elif "--" in argv:
        split = argv.index("--")
        given, args, command = None, argv[:split], argv[split + 1:]
    else:
        print(__doc__)
        return 2
    timeout = 1800.0
    if "--timeout" in args:
        timeout = float(args[args.index("--timeout") + 1])
        args = [a for a in args if a not in ("--timeout", str(args[args.index("--timeout") + 1]))]
    if not args or not (command or given):
        print(__doc__)
        return 2
    root = os.path.abspath(args[0])
    if given:
        recorded, seconds, status = recorded_in(given, root), 0.0, 0
        row = {"project": os.path.basename(root), "recorded": os.path.basename(given)}
    else:
        recorded, seconds, status = record(root, command, timeout)
        row = {"project": os.path.basename(root), "command": " ".join(command),
               "record_seconds": round(seconds, 1), "command_status": status}
    row.update(compare(root, recorded))
    print(f"{row['project']}: {row['kernels_launched_by_tests']} kernels launched by the tests "
          f"({row.get('record_seconds', 0.0)} s, exit {status}); kernlint checked {row['checked_by_guess']} of them with "
          f"signatures it found by reading (not written ones): "
          f"{row['agree']} checked with a signature the run recorded ({row['all_signatures_recorded']} with "
          f"no other), {row['differ']} differ (agreement {row['agreement_of_checked']}); "
          f"not checked {row['not_checked']}; eager (not compared) {row['eager_not_compared']}; "
          f"not found as kernels {row['not_found_as_kernels']}")
    for source, counter in row["by_source"].items():
        print(f"    {source}: " + ", ".join(f"{k} {v}" for k, v in sorted(counter.items())))
    for entry in row["disagreements"][:40]:
        print(f"    differs ({entry['source']}): {entry['kernel']}: kernlint {entry['kernlint']} / "
              f"recorded {entry['recorded']}")
    if len(args) > 1:
        with open(args[1], "w") as handle:
            json.dump(row, handle, indent=1)
            handle.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
