import atexit
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
# projects checked with the signatures file a recorded run wrote (tests/test_closures.py): their
# inline findings hold only with it, which the one run over the other fixtures does not read
RECORDED_FIXTURES = FIXTURES / "recorded"
EXAMPLES = ROOT / "examples"

# Where PYTHONDONTWRITEBYTECODE is set (this machine sets it), each of the few hundred kernlint
# processes the tests start would compile kernlint's sources again: an installed kernlint has
# its bytecode, and so do the tests' processes.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

# Runs here share a worker server (kernlint/workers/daemon.py) that ends soon after the suite:
# the variable is part of the server's key, so a developer's own server is never used here.
os.environ.setdefault("KERNLINT_SERVER_IDLE", "20")

# The worker daemon's first-run notice is said once per user (a marker in XDG_CACHE_HOME): the
# tests' processes find it said already, so that their standard error is the same in any order;
# tests/test_first_hour.py gives a run a fresh one.
_CACHE_HOME = tempfile.mkdtemp(prefix="kernlint-tests-cache-")
os.makedirs(os.path.join(_CACHE_HOME, "kernlint"))
Path(_CACHE_HOME, "kernlint", "worker-daemon-notice").write_text("said\n")
os.environ["XDG_CACHE_HOME"] = _CACHE_HOME
atexit.register(shutil.rmtree, _CACHE_HOME, True)

settings.register_profile("ci", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=1000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

_EXPECT = re.compile(r"(?:#|//|;)\s*((?:KL\d{3}[\s,]*)+)$")


def expected_findings(path: Path):
    """The (code, line) pairs a fixture states inline: ``y[i] = int(v)  # KL101`` (``//`` in
    HIP, ``;`` in LLVM IR)."""
    expected = set()
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        match = _EXPECT.search(line)
        if match:
            expected |= {(code, number) for code in re.findall(r"KL\d{3}", match.group(1))}
    return expected


@pytest.fixture(scope="session")
def fixture_report(tmp_path_factory):
    """One kernlint run over every fixture (the workers compile files in parallel), made once
    for the whole test run: the first pytest-xdist worker that asks makes it, the others wait
    for it and read it back (about a minute of a core: fixtures/pyproject.toml makes the fixtures
    a project of their own, so their readings do not search kernlint's sources as theirs)."""
    import fcntl
    import pickle

    from kernlint.engine import Options, check_paths

    here = tmp_path_factory.getbasetemp()
    shared = here.parent if os.environ.get("PYTEST_XDIST_WORKER") else here  # this run's, not another's
    made = shared / "fixture_report.pickle"
    with open(shared / "fixture_report.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if made.exists():
            return pickle.loads(made.read_bytes())
        # preview on: the fixtures are the preview rules' own tests (test_preview.py checks the default)
        report = check_paths([str(p) for p in sorted(FIXTURES.iterdir()) if p != RECORDED_FIXTURES],
                             Options(timeout=120, preview=True))
        made.write_bytes(pickle.dumps(report))
        return report
