import os
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
EXAMPLES = ROOT / "examples"

# Runs here share a worker server (kernlint/frontends/server.py) that ends soon after the suite:
# the variable is part of the server's key, so a developer's own server is never used here.
os.environ.setdefault("KERNLINT_SERVER_IDLE", "20")

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
def fixture_report():
    """One kernlint run over every fixture (the workers compile files in parallel)."""
    from kernlint.engine import Options, check_paths

    return check_paths([str(FIXTURES)], Options(timeout=120))
