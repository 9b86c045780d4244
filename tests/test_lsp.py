"""``kernlint server`` driven as an editor drives it: pygls's LSP client starts the server over
its pipes, opens an unsaved buffer, reads the diagnostics, asks for code actions, applies one,
edits, reads the new diagnostics and shuts the server down."""
import asyncio
import os
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("pygls")

from lsprotocol import types  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402

WAIT = float(os.environ.get("KERNLINT_TEST_LSP_WAIT", 180))  # seconds: the first check starts numba-cuda in the worker server on a busy machine

ON_DISK = '''\
from numba import cuda


@cuda.jit
def scale(y, x):
    i = cuda.grid(1)
    if i < x.size:
        y[i] = int(x[i])
'''

# the buffer as the editor has it, not saved: a checked conversion behind a print guard
BUFFER = '''\
from numba import cuda


@cuda.jit
def scale(y, x):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i] * 2.0
        if v != v or v >= 9.2e18 or v < -9.2e18:
            print("bad value at", i, v)
            return
        y[i] = int(v)
'''

# another file of the workspace: its launch types the kernel
MAIN = '''\
import numpy as np
from numba import cuda

from kernels import scale

x = cuda.to_device(np.arange(1024, dtype=np.float32))
y = cuda.device_array(1024, dtype=np.int32)
scale[4, 256](y, x)
'''


def apply(text: str, edits) -> str:
    """TextEdits applied as an editor does (positions in UTF-16 units; this text is ASCII)."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(position):
        return starts[min(position.line, len(lines))] + position.character

    for edit in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[:offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end):]
    return text


class Editor:
    """An LSP client and the diagnostics the server published to it, by document version."""

    def __init__(self, workspace: Path, options: dict, configuration: dict):
        self.client = LanguageClient("kernlint-tests", "1")
        self.published = asyncio.Queue()
        self.workspace = workspace
        self.options = options

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def diagnostics(params: types.PublishDiagnosticsParams):
            self.published.put_nowait(params)

        @self.client.feature(types.WORKSPACE_CONFIGURATION)
        def settings(params: types.ConfigurationParams):
            return [configuration for _ in params.items]

        @self.client.feature(types.WINDOW_LOG_MESSAGE)
        def log(params):
            pass

    async def start(self):
        await self.client.start_io(sys.executable, "-m", "kernlint", "server", cwd=str(self.workspace))
        result = await self.client.initialize_async(types.InitializeParams(
            process_id=None, root_uri=self.workspace.as_uri(), initialization_options=self.options,
            capabilities=types.ClientCapabilities(
                workspace=types.WorkspaceClientCapabilities(configuration=True),
                text_document=types.TextDocumentClientCapabilities(
                    publish_diagnostics=types.PublishDiagnosticsClientCapabilities(related_information=True)))))
        self.client.initialized(types.InitializedParams())
        return result

    async def diagnostics_for(self, uri: str, version: int):
        while True:
            params = await asyncio.wait_for(self.published.get(), WAIT)
            if params.uri == uri and params.version == version:
                return list(params.diagnostics)

    async def stop(self):
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await asyncio.wait_for(self.client._server.wait(), 30)  # noqa: SLF001 - the server process
        return self.client._server.returncode  # noqa: SLF001


def test_editor_session(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.kernlint]\n")
    kernels = tmp_path / "kernels.py"
    kernels.write_text(ON_DISK)
    (tmp_path / "main.py").write_text(MAIN)
    uri = kernels.as_uri()

    async def session():
        # the initialization options set the debounce; the settings the client serves allow unsafe fixes
        editor = Editor(tmp_path, {"debounce": 0.1}, {"unsafeFixes": True})
        result = await editor.start()
        assert types.CodeActionKind.QuickFix in result.capabilities.code_action_provider.code_action_kinds
        editor.client.text_document_did_open(types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="python", version=1, text=BUFFER)))
        first = await editor.diagnostics_for(uri, 1)
        by_code = {d.code: d for d in first}
        assert sorted(by_code) == ["KL101", "KL301"]
        conversion, printing = by_code["KL101"], by_code["KL301"]
        assert conversion.range.start == types.Position(11, 15)  # `int(v)`: line 12, column 16
        assert conversion.range.end == types.Position(11, 21)
        assert printing.range.start.line == 9 and printing.severity == types.DiagnosticSeverity.Warning
        assert conversion.source == "kernlint"
        assert conversion.code_description.href.endswith("kl101.md")
        assert Path(conversion.code_description.href[len("file://"):]).read_text().startswith("# KL101")
        # the launch in main.py, another file of the workspace, typed the kernel of the unsaved buffer
        assert conversion.data["signature"] == "void(int32[::1], float32[::1])"
        assert conversion.data["signature_source"] == "launch-site"
        launch = [r for r in conversion.related_information if r.location.uri.endswith("main.py")]
        assert launch and launch[0].location.range.start.line == 7

        actions = await editor.client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri), range=conversion.range,
            context=types.CodeActionContext(diagnostics=[conversion])))
        titles = [a.title for a in actions]
        assert "Disable KL101 for this line" in titles
        assert any(t.startswith("kernlint: fix all") for t in titles)
        fix = next(a for a in actions if a.title.startswith("KL101:"))
        assert fix.title.endswith("(unsafe fix)") and fix.kind == types.CodeActionKind.QuickFix
        edits = fix.edit.changes[uri]
        fixed = apply(BUFFER, edits)
        assert "print(" not in fixed and "y[i] = int(v)" in fixed

        # the editor applies the fix as an incremental change: new diagnostics, none left
        editor.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangePartial(range=e.range, text=e.new_text)
                             for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character),
                                             reverse=True)]))
        assert await editor.diagnostics_for(uri, 2) == []

        # typing the guard back in: its findings return
        editor.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=3),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=BUFFER)]))
        assert sorted(d.code for d in await editor.diagnostics_for(uri, 3)) == ["KL101", "KL301"]
        assert kernels.read_text() == ON_DISK  # the server wrote nothing
        return await editor.stop()

    assert asyncio.run(session()) == 0


def test_without_pygls_the_command_says_which_extra(tmp_path):
    import subprocess

    blocker = tmp_path / "sitecustomize.py"  # makes `import pygls` fail in the child only
    blocker.write_text("import sys\nsys.modules['pygls'] = None\n")
    run = subprocess.run([sys.executable, "-m", "kernlint", "server"], capture_output=True, text=True,
                         env={**__import__("os").environ, "PYTHONPATH": str(tmp_path)}, stdin=subprocess.DEVNULL)
    assert run.returncode == 2
    assert 'pip install "kernlint[server]"' in run.stderr


@pytest.fixture
def unit_source():
    from kernlint.source import SourceFile

    return SourceFile("/w/k.py", textwrap.dedent('''\
        def k(y, x):
            if x[0] > 1:
                print("big", x[0])
            y[0] = int(x[0])  # café
        '''))
