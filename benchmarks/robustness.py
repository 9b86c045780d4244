"""Robustness on real Python: every file of a large body of code through kernlint's readers.

Discovery (the syntax tree: kernels, bindings, imports), static types and host facts
(``python.host``), launch-site and body-inferred signatures, and the host rules run over each
``.py`` file; nothing is compiled (kernels are typed by numba only in ``check``). Every
internal error counts: a KL905 that a reader recorded, or an exception that escaped.
Goal: 0.

    python benchmarks/robustness.py [OUT.json] [--quick] [DIR...]

Without directories it reads CPython's standard library and the installed numpy, numba,
numba-cuda (its test suite included), llvmlite, hypothesis and pytest. ``--quick`` reads
numba-cuda's test suite and every 20th standard-library file (the CI smoke subset). The
standard library is read from a copy without its site-packages: a project of its own.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import sysconfig
import tempfile
import time
from typing import Dict, List, Sequence

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kernlint.engine import host_findings  # noqa: E402
from kernlint.findings import INTERNAL_ERROR  # noqa: E402
from kernlint.python.project import FrontendSettings, Project  # noqa: E402
from kernlint.python.signatures.gather import gather  # noqa: E402
from kernlint.source import walk  # noqa: E402


def installed(package: str) -> str:
    import importlib.util

    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"robustness: {package} is not installed")
    return list(spec.submodule_search_locations)[0]


def stdlib_copy(scratch: str) -> List[str]:
    """The standard library's files, copied to ``scratch``: read as a project of its own. In
    place, its folder holds site-packages, so every search of the project's files for a name
    (what names a class, what imports a file) would walk thousands of installed packages' files
    too, which no user's project holds."""
    stdlib = sysconfig.get_paths()["stdlib"]
    copied = []
    for source in sorted(walk(stdlib, (".py",))):
        relative = os.path.relpath(source, stdlib)
        if relative.split(os.sep)[0] == "site-packages":
            continue
        target = os.path.join(scratch, relative)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(source, target)
        copied.append(target)
    return copied


def default_corpus(quick: bool, scratch: str) -> Dict[str, List[str]]:
    """name -> files."""
    numba_cuda = os.path.join(os.path.dirname(installed("numba.cuda")), "cuda")
    corpus = {"numba-cuda tests": sorted(walk(os.path.join(numba_cuda, "tests"), (".py",)))}
    stdlib_files = stdlib_copy(scratch)
    if quick:
        corpus["stdlib (every 20th file)"] = stdlib_files[::20]
        return corpus
    corpus["stdlib"] = stdlib_files
    tests = os.path.join(numba_cuda, "tests")
    corpus["numba-cuda"] = sorted(f for f in walk(numba_cuda, (".py",)) if not f.startswith(tests))
    for package in ("numpy", "numba", "llvmlite", "hypothesis", "_pytest"):
        root = installed(package)
        files = sorted(walk(root, (".py",)))
        if package == "numba":  # numba.cuda is its own entry above
            files = [f for f in files if not f.startswith(os.path.join(root, "cuda") + os.sep)]
        corpus[package.lstrip("_")] = files
    return corpus


def read_files(files: Sequence[str], chunk: int = 400) -> Dict[str, object]:
    """Run the readers over files; the internal errors found, and the counts."""
    errors: List[Dict[str, object]] = []
    kernels = parsed = 0
    started = time.perf_counter()
    for start in range(0, len(files), chunk):  # one project per chunk: memory stays bounded
        project = Project(FrontendSettings())
        batch = list(files[start:start + chunk])
        for path in batch:
            try:
                module = project.module(path)
                if module is not None:
                    parsed += 1
                    kernels += len(module.kernels)
                    for finding in host_findings(project, path):
                        if finding.code == INTERNAL_ERROR:
                            errors.append({"path": finding.path, "line": finding.line, "error": finding.message})
            except Exception as exc:  # noqa: BLE001 - what escaped the readers: counted, never hidden
                errors.append({"path": path, "line": 0, "error": f"escaped: {type(exc).__name__}: {exc}"})
        try:
            gather(project, [p for p in batch if project.module(p) is not None and project.module(p).kernels], {})
        except Exception as exc:  # noqa: BLE001
            errors.append({"path": batch[0], "line": 0, "error": f"escaped from signatures: {type(exc).__name__}: {exc}"})
        for finding in project.failures:
            errors.append({"path": finding.path, "line": finding.line, "error": finding.message})
    unique = {(e["path"], e["line"], e["error"]): e for e in errors}
    return {"files": len(files), "parsed": parsed, "kernels_found": kernels, "internal_errors": list(unique.values()),
            "seconds": round(time.perf_counter() - started, 2)}


def main(argv: Sequence[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    quick = "--quick" in argv
    out = args[0] if args and args[0].endswith(".json") else None
    directories = args[1:] if out else args
    with tempfile.TemporaryDirectory(prefix="kernlint-robustness-") as scratch:
        if directories:
            corpus = {d: sorted(walk(d, (".py",))) for d in directories}
        else:
            corpus = default_corpus(quick, scratch)
        rows = []
        for name, files in corpus.items():
            row = {"corpus": name, **read_files(files)}
            for error in row["internal_errors"]:  # the standard library's own path, not the copy's
                if str(error["path"]).startswith(scratch + os.sep):
                    error["path"] = os.path.join(sysconfig.get_paths()["stdlib"], os.path.relpath(error["path"], scratch))
            rows.append(row)
            print(f"{name:28} {row['files']:6d} files {row['kernels_found']:5d} kernels "
                  f"{len(row['internal_errors']):3d} internal errors {row['seconds']:7.1f} s", flush=True)
            for error in row["internal_errors"][:20]:
                print(f"    {error['path']}:{error['line']}: {error['error'][:200]}")
    total = sum(len(r["internal_errors"]) for r in rows)
    summary = {"python": sys.version.split()[0], "files": sum(r["files"] for r in rows),
               "internal_errors": total, "seconds": round(sum(r["seconds"] for r in rows), 1), "corpora": rows}
    print(f"total: {summary['files']} files, {total} internal errors, {summary['seconds']} s")
    if out:
        with open(out, "w") as handle:
            json.dump(summary, handle, indent=1)
            handle.write("\n")
    return 1 if total else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
