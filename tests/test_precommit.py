"""The real pre-commit, in a fresh repository whose config points at this checkout's commit."""
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from conftest import FIXTURES, ROOT


def git(*args, cwd):
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture(scope="module")
def head():
    if not (ROOT / ".git").exists():
        pytest.skip("needs this checkout's git history")
    status = git("status", "--porcelain", "--", ".pre-commit-hooks.yaml", "setup.cfg", "kernlint", cwd=ROOT)
    if status:
        pytest.skip("the hook installs the committed tree: commit first")
    return git("rev-parse", "HEAD", cwd=ROOT)


CLEAN_HIP = """#include <hip/hip_runtime.h>

__global__ void convert(long *y, const double *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = (long)x[i];
}
"""


def test_pre_commit_hook_fails_on_a_bad_kernel_and_passes_on_a_clean_one(tmp_path, head):
    repo = tmp_path / "user-repo"
    repo.mkdir()
    git("init", "-q", cwd=repo)
    git("config", "user.email", "user@example.invalid", cwd=repo)
    git("config", "user.name", "user", cwd=repo)
    (repo / ".pre-commit-config.yaml").write_text(textwrap.dedent(f'''
        repos:
          - repo: {ROOT}
            rev: {head}
            hooks:
              - id: kernlint
    '''))
    shutil.copy(FIXTURES / "print_guard.py", repo / "kernels.py")
    have_hipcc = shutil.which("hipcc") is not None
    if have_hipcc:  # the hook takes every kind kernlint reads, HIP and IR included
        shutil.copy(FIXTURES / "hip_kernels.hip", repo / "kernels.hip")
    shutil.copy(FIXTURES / "ir" / "julia_hostcall_box.ll", repo / "dump.ll")
    git("add", ".", cwd=repo)
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    env.pop("PYTHONPATH", None)

    def pre_commit():
        return subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files"], cwd=repo,
                              capture_output=True, text=True, env=env, timeout=1800)

    bad = pre_commit()
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "kernels.py:13:16: KL101" in bad.stdout
    assert "dump.ll:13:3: KL201" in bad.stdout
    if have_hipcc:
        assert "kernels.hip:11:13: KL301" in bad.stdout
        (repo / "kernels.hip").write_text(CLEAN_HIP)
    (repo / "dump.ll").unlink()
    shutil.copy(FIXTURES / "clean.py", repo / "kernels.py")
    git("add", "-A", ".", cwd=repo)
    good = pre_commit()
    assert good.returncode == 0, good.stdout + good.stderr
    assert "Passed" in good.stdout


def test_the_readme_local_hook_runs_the_installed_kernlint(tmp_path):
    """The README's `repo: local` hook (no URL to guess) in a repository whose environment has
    kernlint: it fails on a bad kernel, and an excluded file stays excluded though pre-commit
    names it."""
    readme = (ROOT / "README.md").read_text()
    config = readme.split("<!-- pre-commit-local -->\n```yaml\n", 1)[1].split("```", 1)[0]
    repo = tmp_path / "user-repo"
    (repo / "generated").mkdir(parents=True)
    git("init", "-q", cwd=repo)
    (repo / ".pre-commit-config.yaml").write_text(config)
    (repo / "pyproject.toml").write_text('[tool.kernlint]\nextend-exclude = ["generated"]\n')
    shutil.copy(FIXTURES / "print_guard.py", repo / "kernels.py")
    shutil.copy(FIXTURES / "print_guard.py", repo / "generated" / "copy.py")
    git("add", ".", cwd=repo)
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "KERNLINT_WORKERS": "0",
           "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")}

    def pre_commit():
        return subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files"], cwd=repo,
                              capture_output=True, text=True, env=env, timeout=600)

    bad = pre_commit()
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "kernels.py:13:16: KL101" in bad.stdout and "generated/copy.py" not in bad.stdout
    shutil.copy(FIXTURES / "clean.py", repo / "kernels.py")
    git("add", "-A", ".", cwd=repo)
    good = pre_commit()
    assert good.returncode == 0 and "Passed" in good.stdout, good.stdout + good.stderr
