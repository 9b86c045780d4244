"""The ROCm toolchain (Debian's hipcc, from scripts/setup.sh), run on a HIP source."""

from __future__ import annotations

import os
import shutil
import subprocess
from typing import List, Optional

from ..source import buffers


def hipcc() -> Optional[str]:
    return shutil.which("hipcc")


def hip_command(path: str, output: str, offload_arch: str, side: str, optimization: str) -> List[str]:
    """hipcc compiling one side (``--cuda-device-only`` or ``--cuda-host-only``) to bitcode, with
    debug locations (``HIP_PLATFORM=amd``: otherwise hipcc picks nvcc)."""
    return [hipcc() or "hipcc", "-x", "hip", f"--offload-arch={offload_arch}", side, "-emit-llvm", "-c",
            optimization, "-g", path, "-o", output]


def run_hipcc(arguments: List[str], path: str, scratch: str, timeout: float) -> subprocess.CompletedProcess:
    """Run hipcc on ``path``; where an editor's buffer stands for it, on a copy in ``scratch``
    whose includes and debug locations still resolve to ``path``'s folder. Raises
    subprocess.TimeoutExpired."""
    directory = os.path.dirname(path)
    buffered = buffers().get(path)
    copy = None
    if buffered is not None:
        copy = os.path.join(scratch, "source", os.path.basename(path))
        os.makedirs(os.path.dirname(copy), exist_ok=True)
        with open(copy, "wb") as handle:
            handle.write(buffered)
        arguments = [copy if a == path else a for a in arguments]
        arguments[1:1] = [f"-I{directory}", f"-fdebug-prefix-map={os.path.dirname(copy)}={directory}"]
    done = subprocess.run(arguments, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "HIP_PLATFORM": "amd"},
                          cwd=directory if os.path.isdir(directory) else scratch)
    if copy is not None:
        done.stderr = done.stderr.replace(copy, path)
    return done
