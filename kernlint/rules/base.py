"""What every rule gets: one analysed kernel, and a way to turn an IR site into a finding."""

from __future__ import annotations

from typing import Callable, Optional, Sequence

from ..analysis.host import Place
from ..analysis.program import KernelAnalysis, Site, user_frame
from ..findings import Finding, Frame, KernelInfo
from ..source import NodeFilter, SourceFile


class KernelContext:
    def __init__(
        self,
        kernel: KernelInfo,
        analysis: KernelAnalysis,
        source: Optional[SourceFile],
        is_user_path: Callable[[str], bool],
    ):
        self.kernel = kernel
        self.analysis = analysis
        self.source = source
        self.is_user_path = is_user_path
        self._sources = {source.path: source} if source is not None else {}

    def source_for(self, path: str) -> Optional[SourceFile]:
        """The source of a file a location is in (a device function may live in another module)."""
        if path not in self._sources:
            self._sources[path] = SourceFile.read_or_none(path) if self.is_user_path(path) else None
        return self._sources[path]

    def finding(
        self,
        code: str,
        message: str,
        frames: Sequence[Frame],
        point_at: Sequence[NodeFilter] = (),
        fixable: bool = False,
        fallback: Optional[Frame] = None,
    ) -> Finding:
        """A finding at the innermost frame in the user's code (the kernel's def line if none)."""
        frame, outer = user_frame(list(frames), self.is_user_path)
        if frame is None and fallback is not None:
            frame, outer = fallback, []
        if frame is None:
            frame, outer = Frame(self.kernel.path, self.kernel.line, self.kernel.column, self.kernel.name), []
        column = frame.column
        source = self.source_for(frame.path) if column <= 1 else None
        if source is not None:
            column = source.column(frame.line, *point_at)
        return Finding(
            code=code,
            path=frame.path,
            line=frame.line,
            column=max(column, 1),
            message=message,
            kernel=self.kernel.name,
            signature=self.kernel.signature,
            fixable=fixable,
            inlined_at=outer,
            kernel_line=self.kernel.line if frame.path == self.kernel.path else 0,
        )

    def site_finding(self, code: str, message: str, site: Site, point_at=(), fixable=False):
        fallback = None
        if self.kernel.path.endswith(".ll"):
            # IR without debug info: point at the instruction in the user's own .ll file
            fallback = Frame(self.kernel.path, site.instruction.lineno + 1, 1, site.function.name)
        return self.finding(code, message, site.frames(), point_at, fixable, fallback)

    def kernel_finding(self, code: str, message: str, line: int = 0, column: int = 0) -> Finding:
        frame = Frame(self.kernel.path, line or self.kernel.line, column or self.kernel.column, self.kernel.name)
        return self.finding(code, message, [frame])


def host_finding(code: str, place: Place, message: str) -> Finding:
    """A finding of a host rule, at the host code's own location."""
    return Finding(code=code, path=place.path, line=place.line, column=place.column, message=message)


def callees_named(calls) -> str:
    """The functions one call site runs, as a finding names them: one, or each an object of a
    list may run (``panel.show(x)`` running each panel class's ``render``), one after another."""
    names = list(dict.fromkeys(call.what for call in calls))
    return " / ".join(f"`{name}`" for name in names)
