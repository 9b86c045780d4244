"""``--output-format json``: a JSON list of findings, one object each."""

from __future__ import annotations

import json
from typing import TextIO

from ..engine import Report


def write(report: Report, out: TextIO, stats: bool = False) -> None:
    json.dump([finding.to_dict() for finding in report.findings], out, indent=2)
    out.write("\n")
