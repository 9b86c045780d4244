"""``--output-format github``: workflow commands that GitHub Actions shows as annotations."""

from __future__ import annotations

from typing import TextIO

from ..engine import Report
from .text import display_path


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def write(report: Report, out: TextIO, stats: bool = False) -> None:
    for finding in report.findings:
        level = "error" if finding.code.startswith("KL9") else "warning"
        properties = ",".join([
            f"title={escape_property(f'kernlint ({finding.code})')}",
            f"file={escape_property(display_path(finding.path))}",
            f"line={finding.line}",
            f"col={finding.column}",
        ])
        message = f"{finding.code} {finding.message}"
        if finding.inlined_at:
            message += "\n" + "\n".join(
                f"inlined at {display_path(f.path)}:{f.line} ({f.function})" for f in finding.inlined_at)
        out.write(f"::{level} {properties}::{escape_data(message)}\n")
