"""The toolchains kernlint drives: ROCm's hipcc (Debian's, from scripts/setup.sh) on a HIP
source, and the NVVM that numba-cuda loads (from the ``kernlint[cu12]``/``[cu13]`` extras, a
conda CUDA toolkit or ``CUDA_HOME``)."""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from typing import Dict, List, Optional

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


# The smallest module NVVM compiles; the PTX it writes names its CUDA release.
_NVVM_PROBE = """target triple = "nvptx64-nvidia-cuda"
target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
define void @kernlint_probe() {
  ret void
}
!nvvmir.version = !{!0}
!0 = !{%s}
"""

NVVM_EXTRAS = ("install kernlint[cu13] (CUDA 13 driver) or kernlint[cu12] (CUDA 12 driver), "
               "or point CUDA_HOME at a CUDA toolkit")


@dataclass(frozen=True)
class Nvvm:
    """The NVVM numba-cuda loads here, or why it loads none."""

    path: Optional[str] = None  # the shared library, where the platform tells
    release: Optional[str] = None  # the CUDA release, as NVVM writes it into PTX
    problem: Optional[str] = None

    @property
    def found(self) -> bool:
        return self.problem is None

    def describe(self) -> str:
        if not self.found:
            return f"no usable NVVM ({self.problem}): {NVVM_EXTRAS}"
        where = f" ({self.path})" if self.path else ""
        return f"NVVM from CUDA {self.release or '(release unknown)'}{where}"


@functools.lru_cache(maxsize=None)
def find_nvvm() -> Nvvm:
    """Load NVVM as numba-cuda does and compile a probe with it (~0.3 s, once a process).
    ``check`` never needs NVVM; rewriting and measuring resources do."""
    try:
        from numba.cuda.cudadrv import nvvm

        version = nvvm.NVVM().get_ir_version()
        ptx = nvvm.compile_ir(_NVVM_PROBE % ", ".join(f"i32 {v}" for v in version), arch="compute_75")
    except Exception as exc:  # noqa: BLE001 - numba-cuda raises several kinds when NVVM is absent
        first = next((line.strip() for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
        return Nvvm(problem=first if len(first) <= 200 else first[:199] + "…")
    text = ptx.decode(errors="replace") if isinstance(ptx, (bytes, bytearray)) else str(ptx)
    release = re.search(r"release (\d+\.\d+)", text)
    return Nvvm(_loaded_library("libnvvm"), release.group(1) if release else None)


@functools.lru_cache(maxsize=None)
def say_once_nvvm_missing() -> None:
    """Tell the user once per run why nothing can be compiled with NVVM and what to install;
    each kernel that needed it then only says that it did."""
    import sys

    print(f"kernlint: {find_nvvm().describe()}", file=sys.stderr)


def _loaded_library(stem: str) -> Optional[str]:
    """Where a shared library this process loaded lies (Linux's /proc/self/maps); numba-cuda's
    releases each find NVVM their own way, and only the loader knows which file it took."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            for line in maps:
                path = line.rstrip("\n").split(maxsplit=5)[-1]
                if os.path.basename(path).startswith(stem + ".so"):
                    return path
    except OSError:
        pass
    return None


@functools.lru_cache(maxsize=1)
def _own_code() -> str:
    """A digest of kernlint's own sources: an edited checkout (or a new release with the same
    version number) never reads findings an older kernlint cached, nor uses its worker server."""
    import hashlib

    digest = hashlib.sha256()
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for directory, dirs, files in sorted(os.walk(package)):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".py"):
                with open(os.path.join(directory, name), "rb") as handle:
                    digest.update(name.encode() + handle.read())
    return digest.hexdigest()[:16]


@functools.lru_cache(maxsize=1)
def identity() -> Dict[str, str]:
    """kernlint's code and the versions of what compiles the kernels: what a cached finding
    and a running worker server are valid for."""
    from importlib import metadata

    from .. import __version__

    versions = {"kernlint": __version__, "kernlint-code": _own_code()}
    # NVVM's wheels (cu13, cu12) and a toolkit's place: numba-cuda lowers with NVVM's IR version
    versions["CUDA_HOME"] = os.environ.get("CUDA_HOME", "")
    for package in ("numba", "numba-cuda", "llvmlite", "nvidia-nvvm", "nvidia-cuda-nvcc-cu12"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "absent"
    return versions
