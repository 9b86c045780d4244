"""What kernlint reports: findings, and the kernels they were found in."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Optional, Tuple


@dataclass(frozen=True)
class Frame:
    """One step of the chain through which a location was reached."""

    path: str
    line: int
    column: int
    function: str


@dataclass
class Finding:
    code: str
    path: str
    line: int
    column: int
    message: str
    kernel: str = ""
    signature: str = ""
    fixable: bool = False
    inlined_at: List[Frame] = field(default_factory=list)
    kernels: List[str] = field(default_factory=list)
    kernel_line: int = 0  # the kernel's def line: suppressions there cover the whole kernel
    resources: Optional[Dict[str, Any]] = None  # --resources: the kernel's cost with and without it

    @property
    def key(self) -> Tuple[str, str, int]:
        """A location is reported once per (code, line), whichever kernels reach it."""
        return (self.code, self.path, self.line)

    @property
    def sort_key(self):
        return (self.path, self.line, self.column, self.code)

    def to_dict(self) -> Dict[str, Any]:
        data = asdict(self)
        data["kernels"] = self.kernels or ([self.kernel] if self.kernel else [])
        del data["kernel_line"]
        if self.resources is None:
            del data["resources"]
        return data


@dataclass
class KernelInfo:
    """A kernel or device function, one signature of it, as the frontend found it."""

    name: str
    path: str
    line: int  # the def line
    column: int
    kind: str = "kernel"  # or "device"
    signature: str = ""
    options: Dict[str, Any] = field(default_factory=dict)
    option_lines: Dict[str, Tuple[int, int]] = field(default_factory=dict)  # keyword -> (line, col)

    @property
    def label(self) -> str:
        return f"{self.name}({self.signature})" if self.signature else self.name


def merge(findings: List[Finding]) -> List[Finding]:
    """Keep one finding per (code, path, line); remember every kernel that reached it."""
    merged: Dict[Tuple[str, str, int], Finding] = {}
    for finding in findings:
        kept = merged.get(finding.key)
        if kept is None:
            finding.kernels = [finding.kernel] if finding.kernel else []
            merged[finding.key] = finding
        elif finding.kernel and finding.kernel not in kept.kernels:
            kept.kernels.append(finding.kernel)
    return sorted(merged.values(), key=lambda f: f.sort_key)
