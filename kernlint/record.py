"""``kernlint record -- COMMAND...``: run the user's program or tests and write the
argument types of every numba.cuda launch to the signatures file, with what each
factory-made kernel closed over (``python/signatures/closures.py``).

The command runs with a ``sitecustomize`` first on its ``PYTHONPATH`` that wraps numba-cuda's
launch (``record_hook``); where no CUDA driver is found it runs under numba's CUDA
simulator (``NUMBA_ENABLE_CUDASIM=1``), so recording needs no GPU. Every process the
command starts (pytest-xdist workers too) writes what it saw; kernlint merges it into
``kernlint-signatures.toml``, keeping only kernels defined in the project's own files.
"""

from __future__ import annotations

import ctypes.util
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
from typing import List, Optional, Sequence

from . import record_hook
from .python.signatures.closures import Closures, add_closure
from .python.signatures.recorded import write_recorded
from .python.signatures.table import Signatures, add

_LIBRARY_PARTS = (os.sep + "site-packages" + os.sep, os.sep + "dist-packages" + os.sep)


def has_cuda_driver() -> bool:
    return ctypes.util.find_library("cuda") is not None


def record(command: Sequence[str], output: str, simulator: Optional[bool] = None,
           log=sys.stderr) -> int:
    """Run ``command`` observing launches; merge them into ``output``. Returns the command's
    exit status. A run that saw no launch writes nothing (an empty file would only hide that
    the command failed or launched nothing); one that failed after launches writes what it saw,
    and says the command failed."""
    # the project: where the command runs, and where the signatures file goes
    roots = {os.path.dirname(os.path.abspath(output)), os.getcwd()}
    scratch = tempfile.mkdtemp(prefix="kernlint-record-")
    try:
        hook = os.path.join(scratch, "hook")
        found = os.path.join(scratch, "found")
        os.makedirs(hook)
        os.makedirs(found)
        shutil.copy(record_hook.__file__, os.path.join(hook, "_kernlint_record_hook.py"))
        with open(os.path.join(hook, "sitecustomize.py"), "w") as handle:
            handle.write(record_hook.SITECUSTOMIZE)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([hook] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        env["KERNLINT_RECORD_DIR"] = found
        if simulator is None:
            simulator = env.get("NUMBA_ENABLE_CUDASIM") == "1" or not has_cuda_driver()
        if simulator:
            env["NUMBA_ENABLE_CUDASIM"] = "1"
        where = "under numba's CUDA simulator" if simulator else "on the GPU"
        print(f"kernlint record: running {' '.join(command)} ({where})", file=log)
        try:
            status = subprocess.call(list(command), env=env)
        except OSError as exc:
            print(f"kernlint: error: cannot run {command[0]}: {exc.strerror or exc}", file=log)
            return 2
        recorded, closures, launches, skipped = _collect(found, roots)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    kernels = sum(len(k) for k in recorded.values())
    failed = f"the command failed (exit status {status})" if status else ""
    if not launches:
        why = (f"{failed} before any numba.cuda launch" if failed else
               "no numba.cuda launch was seen: does the command launch kernels, and does it run Python "
               "without -I/-S (which skip sitecustomize)?")
        print(f"kernlint record: {why}; {os.path.relpath(output)} not written", file=log)
        return status or 1
    count = write_recorded(output, recorded, command, closures)
    print(f"kernlint record: {launches} launch(es) of {kernels} kernel(s) in the project seen; "
          f"{count} signature(s) in {os.path.relpath(output)}"
          + (f" ({skipped} kernel(s) outside the project left out)" if skipped else ""), file=log)
    if failed:
        print(f"kernlint record: warning: {failed}: what it launched before is recorded; "
              f"kernels it did not reach have no recorded signature", file=log)
    return status


def _collect(directory: str, roots):
    recorded: Signatures = {}
    closures: Closures = {}
    launches = 0
    skipped = set()
    for name in sorted(glob.glob(os.path.join(directory, "*.json"))):
        try:
            with open(name) as handle:
                data = json.load(handle)
        except (OSError, ValueError):
            continue
        launches += int(data.get("launches", 0))
        for entry in data.get("kernels", []):
            path = entry.get("path", "")
            inside = os.path.isfile(path) and not any(p in path for p in _LIBRARY_PARTS) and any(
                os.path.abspath(path).startswith(root.rstrip(os.sep) + os.sep) for root in roots)
            if not inside:
                skipped.add((path, entry.get("kernel")))
                continue
            for signature in entry.get("signatures", []):
                add(recorded, os.path.abspath(path), entry["kernel"], signature, "recorded")
            for closure in entry.get("closures", []):
                add_closure(closures, os.path.abspath(path), entry["kernel"], closure.get("closure", {}),
                            closure.get("options", {}), closure.get("signatures", []), closure.get("line"))
    return recorded, closures, launches, len(skipped)


def main(arguments: List[str], output: str, simulator: Optional[bool]) -> int:
    if not arguments:
        print("kernlint: error: record needs a command after `--`, e.g. "
              "kernlint record -- python -m pytest tests", file=sys.stderr)
        return 2
    return record(arguments, output, simulator)
