"""Record a corpus project's own tests with ``kernlint record`` (for realworld.py's second measurement).

    python benchmarks/record_corpus.py CORPUS_DIR PROJECT [--gpu] [--jobs N] [--max-timeout S] [--out DIR]
                                       [--only PATH,PATH...]

Runs the ``record`` entries of the project in ``benchmarks/realworld_corpus.toml`` in the
project's copy, under numba's CUDA simulator (or on the GPU with ``--gpu``): each entry's
command once per path its ``paths`` globs give, followed by the entry's ``args`` (N at a time;
each stopped after ``timeout`` seconds, and what a run launched before it was stopped is
kept; ``--only`` runs only the paths it names, relative to the project), with ``env`` set, and
``simulator_env`` / ``gpu_env`` for the one mode. Entries marked ``gpu = true`` run only on
the GPU (tests that need CuPy); ``numpy1_names = true`` puts ``shims/numpy1`` on the
command's path (NumPy 1 names the project's code still uses). Each run writes its own file; they are merged into the
project's ``kernlint-signatures.toml`` and copied to ``DIR/PROJECT.toml`` (default
``benchmarks/results/recorded``; paths in it are relative to the project's root, as a user
would commit it). The project's test dependencies must be importable (``requires``).
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from kernlint.python.signatures.closures import read_closures  # noqa: E402
from kernlint.python.signatures.recorded import read_recorded, write_recorded  # noqa: E402

CORPUS = os.path.join(HERE, "realworld_corpus.toml")
RECORDED = os.path.join(HERE, "results", "recorded")


def _option(argv, name, default):
    if name in argv:
        index = argv.index(name)
        value = argv[index + 1]
        del argv[index:index + 2]
        return value
    return default


def main(argv) -> int:
    argv = list(argv)
    jobs = int(_option(argv, "--jobs", "1"))
    # a limit below the entries' own, for runs that must end together (one GPU machine's call)
    longest = float(_option(argv, "--max-timeout", "inf"))
    out = _option(argv, "--out", RECORDED)
    only = [p for p in _option(argv, "--only", "").split(",") if p]
    gpu = "--gpu" in argv
    argv = [a for a in argv if a != "--gpu"]
    if len(argv) != 2:
        print(__doc__)
        return 2
    corpus_dir, name = argv
    with open(CORPUS, "rb") as handle:
        entries = [e for e in tomllib.load(handle)["project"][name].get("record", []) if gpu or not e.get("gpu")]
    if not entries:
        print(f"{name}: no `record` entry for this mode in {CORPUS}")
        return 2
    root = os.path.abspath(os.path.join(corpus_dir, name))
    runs = []
    for entry in entries:
        env = {**os.environ, **entry.get("env", {}), **entry.get("gpu_env" if gpu else "simulator_env", {})}
        # `numpy1_names`: the project's own code still uses names NumPy 2 removed (shims/numpy1)
        shims = [os.path.join(HERE, "shims", "numpy1")] if entry.get("numpy1_names") else []
        env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(HERE), HERE, root] + shims
                                            + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        command = [sys.executable if word == "python" else word for word in entry["command"]]
        patterns = entry.get("paths", [])
        patterns = [patterns] if isinstance(patterns, str) else patterns
        paths = sorted({p for pattern in patterns for p in glob.glob(os.path.join(root, pattern), recursive=True)}) \
            if patterns else [None]
        for path in paths:
            target = [os.path.relpath(path, root)] if path else []
            if only and not set(target) & set(only):
                continue
            runs.append((command + target + entry.get("args", []), env, min(entry.get("timeout", 600), longest)))
    if not runs:
        print(f"{name}: no run of its `record` entries matches {only}")
        return 2
    scratch = os.path.join(root, ".kernlint-record")
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)

    def record(numbered):
        number, (command, env, timeout) = numbered
        output = os.path.join(scratch, f"{number}.toml")
        begun = time.perf_counter()
        run = subprocess.run([sys.executable, "-m", "kernlint", "record", "--gpu" if gpu else "--simulator", "-o",
                              output, "--", "timeout", str(timeout)] + command, cwd=root, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
        # kernlint record's own last line says what it saw; an error before it says why the run ended
        lines = [line for line in run.stdout.splitlines() if line.strip()]
        said = next((line for line in reversed(lines) if line.startswith("kernlint record: ") and "launch(es)" in line), "")
        error = next((line for line in reversed(lines) if "Error" in line or "error:" in line), "")
        print(f"{' '.join(command[-2:])}: {time.perf_counter() - begun:.0f} s, exit {run.returncode}; "
              f"{said.split(';')[0][len('kernlint record: '):]}" + (f"; {error.strip()[:160]}" if error else ""),
              flush=True)
        return output

    started = time.perf_counter()
    with ThreadPoolExecutor(jobs) as pool:
        outputs = list(pool.map(record, enumerate(runs)))
    # one file: each run's, merged (paths are read absolute and written relative to the root)
    output = os.path.join(root, "kernlint-signatures.toml")
    if os.path.exists(output):
        os.remove(output)
    for part in outputs:
        if os.path.isfile(part):
            # the file keeps the first recording's header: the commands are listed in the corpus entry
            write_recorded(output, read_recorded(part), [f"benchmarks/record_corpus.py ({name})"], read_closures(part))
    shutil.rmtree(scratch, ignore_errors=True)
    if not os.path.isfile(output):
        print(f"{name}: nothing was recorded")
        return 1
    os.makedirs(out, exist_ok=True)
    shutil.copy(output, os.path.join(out, f"{name}.toml"))
    print(f"{name}: {len(runs)} runs recorded in {time.perf_counter() - started:.0f} s -> {out}/{name}.toml")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
