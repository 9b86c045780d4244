"""``--output-format json``: a JSON list of findings, one object each."""

from __future__ import annotations

import json
from typing import TextIO

from ..engine import Report
from .text import display_path


def write(report: Report, out: TextIO, stats: bool = False) -> None:
    json.dump([_relative(finding.to_dict()) for finding in report.findings], out, indent=2)
    out.write("\n")


def _relative(data):
    """Paths as the text output names them: relative to the current directory where the file is
    under it (a JSON consumer joins them to its own working directory, as with ruff's text)."""
    data["path"] = display_path(data["path"])
    for frame in data.get("inlined_at", []):
        frame["path"] = display_path(frame["path"])
    return data
