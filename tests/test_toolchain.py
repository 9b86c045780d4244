"""Which NVVM kernlint uses, and what it says when there is none (issue: install beside the
user's CUDA stack). "No NVVM" is a real process whose loader refuses libnvvm, as on a machine
with numba-cuda installed without an extra and no CUDA toolkit."""
import os
import shutil
import subprocess
import sys
import textwrap
from importlib import metadata

import pytest

from conftest import EXAMPLES, ROOT


def kernlint(*args, env=None, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "kernlint", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env=env)


@pytest.fixture
def without_nvvm(tmp_path):
    """An environment whose every Python process (the CLI, the worker server, its workers)
    fails to load any libnvvm."""
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(textwrap.dedent('''
        import ctypes

        _load = ctypes.CDLL.__init__

        def _no_nvvm(self, name, *args, **kwargs):
            if name and "nvvm" in str(name):
                raise OSError(f"{name}: cannot open shared object file")
            return _load(self, name, *args, **kwargs)

        ctypes.CDLL.__init__ = _no_nvvm
    '''))
    return {**os.environ, "PYTHONPATH": str(hook)}


def test_version_names_kernlint_numba_cuda_and_nvvm():
    run = kernlint("--version")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    import kernlint as package

    assert lines[0] == f"kernlint {package.__version__}"
    assert lines[1].startswith(f"numba-cuda {metadata.version('numba-cuda')} (numba {metadata.version('numba')}, ")
    assert lines[2].startswith("NVVM from CUDA 1"), lines[2]  # 12.x or 13.x, and the library's path
    assert "libnvvm" in lines[2]


def test_without_nvvm_the_version_says_which_extra_to_install(without_nvvm):
    run = kernlint("--version", env=without_nvvm)
    assert run.returncode == 0
    assert "no usable NVVM (" in run.stdout and "kernlint[cu13]" in run.stdout and "kernlint[cu12]" in run.stdout


def test_without_nvvm_check_says_it_once_and_caches_nothing(tmp_path, without_nvvm):
    shutil.copy(EXAMPLES / "conversions.py", tmp_path / "conversions.py")
    run = kernlint("check", "conversions.py", env=without_nvvm, cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    failed = [line for line in run.stdout.splitlines() if " KL902 " in line]
    assert len(failed) == 4  # every kernel of the file
    assert sum("kernlint[cu13]" in line for line in failed) == 1  # the what-to-install said once
    assert all(line.endswith("no usable NVVM (see the first such finding)") for line in failed[1:])
    # once NVVM is there, nothing of that run is reused
    again = kernlint("check", "conversions.py", cwd=tmp_path)
    assert "KL902" not in again.stdout and " KL101 " in again.stdout


def test_without_nvvm_rewrite_names_the_kernels_it_could_not_compile(without_nvvm):
    run = kernlint("rewrite", "--diff", str(EXAMPLES / "conversions.py"), env=without_nvvm)
    assert run.returncode == 1  # nothing rewritten is not success
    assert run.stderr.count(" KL902 kernel `") == 4
    assert run.stderr.count("kernlint[cu13]") == 1
    assert run.stdout == ""
