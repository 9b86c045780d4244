"""Checking a buffer off the editor's event loop: one background thread runs the engine, one
check at a time, on the texts of every open buffer.

The engine reads a file through the buffer registered for it (``source.use_buffer``), as
``kernlint check - --stdin-filename PATH`` does: an open buffer is checked as its file path,
so its configuration and suppressions apply, and the launch sites of other files (saved or
open) type its kernels. The registry is the process's, so only this thread touches it, and
each check first makes it hold exactly the open buffers' texts. The caches then skip what the
edit did not change: the kernels whose code is the same, and what was read from other files.

A check that has not started when a newer edit arrives is cancelled (its future); one that
is running finishes in the worker processes and its result is dropped by the server.
"""

from __future__ import annotations

import io
import os
import queue
import threading
import tokenize
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence

from lsprotocol import types

from ..config import ConfigError
from ..engine import check_paths
from ..findings import Finding, internal_error
from ..source import buffers, drop_buffer, use_buffer
from .diagnostics import DiagnosticMaker, problem
from .settings import EditorSettings, FileSettings, describe, file_settings


@dataclass
class Checked:
    """One document's check: the text it was made from and what was found in it."""

    uri: str
    path: str
    version: Optional[int]
    text: str
    findings: List[Finding] = field(default_factory=list)
    diagnostics: List[types.Diagnostic] = field(default_factory=list)
    pairs: List[tuple] = field(default_factory=list)  # (finding, its diagnostic) for code actions
    unsafe_fixes: bool = False
    log: List[str] = field(default_factory=list)  # where its settings came from
    seconds: float = 0.0


def encoded(text: str) -> bytes:
    """A buffer's text as the file's bytes would be: in the encoding its coding declaration
    names (PEP 263), UTF-8 otherwise."""
    data = text.encode("utf-8")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data if encoding in ("utf-8", "utf-8-sig") else text.encode(encoding)
    except (SyntaxError, LookupError, UnicodeEncodeError):
        return data


def check_document(uri: str, path: str, version: Optional[int], text: str, open_texts: Dict[str, str],
                   folders: Sequence[str], editor: EditorSettings, encoding: str) -> Checked:
    """Check one document with every open buffer's text registered (runs on the checker
    thread). Whatever fails, the answer is diagnostics: a configuration error at the top of
    the document, kernlint's own failure as one KL905 on it."""
    import time

    started = time.perf_counter()
    path = os.path.abspath(path)  # findings name files by absolute paths
    checked = Checked(uri, path, version, text)
    for registered in set(buffers()) - set(open_texts):
        drop_buffer(registered)
    for name, content in open_texts.items():
        use_buffer(name, encoded(content))
    try:
        settings: FileSettings = file_settings(path, folders, editor)
        checked.unsafe_fixes = settings.unsafe_fixes
        checked.log = describe(settings)
        report = check_paths([path], settings.options)
        checked.findings = report.findings
    except ConfigError as exc:
        checked.diagnostics = [problem(f"kernlint: configuration error: {exc} (the file was not checked)")]
        checked.seconds = time.perf_counter() - started
        return checked
    except Exception as exc:  # noqa: BLE001 - kernlint's failure on this file: one diagnostic, the server goes on
        checked.findings = [internal_error(path, 1, 1, "checking the file", exc)]
    try:
        _diagnose(checked, encoding)
    except Exception as exc:  # noqa: BLE001 - as above, while turning the findings into diagnostics
        checked.findings = [internal_error(path, 1, 1, "making the file's diagnostics", exc)]
        checked.pairs, checked.diagnostics = [], []
        _diagnose(checked, encoding)
    checked.seconds = time.perf_counter() - started
    return checked


def _diagnose(checked: Checked, encoding: str) -> None:
    maker = DiagnosticMaker(checked.path, checked.text, encoding)
    for finding in checked.findings:
        diagnostic = maker.diagnostic(finding)
        if diagnostic is not None:
            checked.pairs.append((finding, diagnostic))
            checked.diagnostics.append(diagnostic)


class CheckerThread:
    """A daemon thread that runs submitted calls one at a time, so that a check under way
    never keeps the editor's ``exit`` waiting (a pool's threads would be joined)."""

    def __init__(self):
        self._jobs: "queue.Queue[Optional[tuple]]" = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="kernlint-checker", daemon=True)
        self._thread.start()

    def submit(self, function: Callable, *arguments) -> Future:
        future: Future = Future()
        self._jobs.put((future, function, arguments))
        return future

    def stop(self) -> None:
        self._jobs.put(None)

    def _run(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            future, function, arguments = job
            if not future.set_running_or_notify_cancel():
                continue  # cancelled before it started: a newer edit replaced it
            try:
                future.set_result(function(*arguments))
            except BaseException as exc:  # noqa: BLE001 - handed to whoever awaits the future
                future.set_exception(exc)
