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


@pytest.fixture(autouse=True)
def _rule_pages(tmp_path, monkeypatch):
    """The rules' documentation pages the diagnostics link to go to this test's cache, not the
    user's (the server started by a test inherits it)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


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
        self.seen = set()  # (uri, version) of every publication
        self.registered = []  # what the server asked the editor for (client/registerCapability)
        self.workspace = workspace
        self.options = options

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def diagnostics(params: types.PublishDiagnosticsParams):
            self.seen.add((params.uri, params.version))
            self.published.put_nowait(params)

        @self.client.feature(types.WORKSPACE_CONFIGURATION)
        def settings(params: types.ConfigurationParams):
            return [configuration for _ in params.items]

        @self.client.feature(types.WINDOW_LOG_MESSAGE)
        def log(params):
            pass

        @self.client.feature(types.CLIENT_REGISTER_CAPABILITY)
        def register(params: types.RegistrationParams):
            self.registered.extend(params.registrations)

    async def start(self):
        # started outside the workspace, as editors may: the workspace comes from `initialize`
        await self.client.start_io(sys.executable, "-m", "kernlint", "server", cwd="/")
        result = await self.client.initialize_async(types.InitializeParams(
            process_id=None, root_uri=self.workspace.as_uri(), initialization_options=self.options,
            capabilities=types.ClientCapabilities(
                workspace=types.WorkspaceClientCapabilities(
                    configuration=True, did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(
                        dynamic_registration=True)),
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
        editor = Editor(tmp_path, {"debounce": 0.25}, {"unsafeFixes": True})
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
        page = Path(conversion.code_description.href[len("file://"):])
        assert page.is_relative_to(tmp_path / "cache") and page.read_text().startswith("# KL101 ")
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

        # a buffer kernlint cannot read is one diagnostic on it, and the server goes on
        broken = (tmp_path / "broken.py").as_uri()
        editor.client.text_document_did_open(types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=broken, language_id="python", version=1,
                                   text="from numba import cuda\n\n@cuda.jit\ndef k(y, x:\n    pass\n")))
        failure = await editor.diagnostics_for(broken, 1)
        assert [(d.code, d.range.start.line, d.severity) for d in failure] == [
            ("KL901", 3, types.DiagnosticSeverity.Error)]

        # typing fast: the checks of the texts typed over are dropped, the last one is published
        for version, text in ((4, BUFFER.replace("2.0", "3.0")), (5, BUFFER.replace("2.0", "4.0")), (6, ON_DISK)):
            editor.client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
        assert await editor.diagnostics_for(uri, 6) == []
        assert not {(uri, 4), (uri, 5)} & editor.seen

        # settings changed in the editor go over the project's file, and re-check what is open
        editor.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=7),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=BUFFER)]))
        assert len(await editor.diagnostics_for(uri, 7)) == 2
        editor.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
            settings={"kernlint": {"select": ["KL3"], "unsafeFixes": True}}))
        assert [d.code for d in await editor.diagnostics_for(uri, 7)] == ["KL301"]

        # saving the file that launches the kernel with other types re-checks the kernel's buffer
        main = tmp_path / "main.py"
        editor.client.text_document_did_open(types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=main.as_uri(), language_id="python", version=1, text=MAIN)))
        assert await editor.diagnostics_for(main.as_uri(), 1) == []
        main.write_text(MAIN.replace("np.float32", "np.float64").replace("np.int32", "np.int64"))
        editor.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=main.as_uri(), version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=main.read_text())]))
        editor.client.text_document_did_save(types.DidSaveTextDocumentParams(
            types.TextDocumentIdentifier(main.as_uri())))
        retyped = await editor.diagnostics_for(uri, 7)
        assert {d.data["signature"] for d in retyped} == {"void(int64[::1], float64[::1])"}

        # the project's configuration changed on disk, the editor says so: it applies, under the editor's
        [watch] = [r for r in editor.registered if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES]
        assert {"globPattern": "**/pyproject.toml"} in watch.register_options["watchers"]  # LSPAny: plain JSON
        (tmp_path / "pyproject.toml").write_text('[tool.kernlint]\nignore = ["KL301"]\n')
        editor.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent((tmp_path / "pyproject.toml").as_uri(), types.FileChangeType.Changed)]))
        assert await editor.diagnostics_for(uri, 7) == []  # the editor selects KL3, the file ignores KL301
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


# -- the parts, one at a time -------------------------------------------------------------

def test_editor_settings_take_configuration_keys_and_their_camel_case():
    from kernlint.lsp.settings import editor_settings

    settings = editor_settings({"kernlint": {"select": ["KL1"], "unsafeFixes": True, "offloadArch": "gfx942",
                                             "debounce": 0.5, "timeout": None}})
    assert settings.table == {"select": ["KL1"], "unsafe-fixes": True, "offload-arch": "gfx942"}
    assert settings.debounce == 0.5 and settings.problems == []
    wrong = editor_settings({"signatures": {}, "colour": "red", "debounce": -1})
    assert [p.split(":")[0] for p in wrong.problems] == ["signatures", "colour", "debounce"]
    assert "pyproject.toml" in wrong.problems[0]


def test_the_editor_goes_over_the_project_file_and_nothing_is_imported(tmp_path):
    from kernlint.config import ConfigError
    from kernlint.lsp.settings import editor_settings, file_settings

    (tmp_path / "pyproject.toml").write_text('[tool.kernlint]\nselect = ["KL3"]\narch = "sm_80"\n'
                                             'import-modules = true\n')
    (tmp_path / "pkg").mkdir()
    path = str(tmp_path / "pkg" / "k.py")
    settings = file_settings(path, [], editor_settings({"select": ["KL1"], "unsafeFixes": True}))
    assert settings.options.select == ["KL1"] and settings.options.arch == "sm_80"
    assert settings.unsafe_fixes and settings.root == str(tmp_path) and settings.options.cache_root == str(tmp_path)
    assert settings.options.frontend.import_modules is False
    assert any("never runs the code" in note for note in settings.notes)
    with pytest.raises(ConfigError, match="editor settings.*arch"):
        file_settings(path, [], editor_settings({"arch": "volta"}))


def test_without_a_configuration_file_the_workspace_folder_is_the_root(tmp_path):
    from kernlint.lsp.settings import EditorSettings, file_settings

    (tmp_path / "a" / "b").mkdir(parents=True)
    settings = file_settings(str(tmp_path / "a" / "b" / "k.py"), [str(tmp_path), str(tmp_path / "a")],
                             EditorSettings())
    assert settings.config_path is None and settings.root == str(tmp_path / "a")


KERNEL = textwrap.dedent('''\
    @cuda.jit
    def k(y, x):
        if x[0] != x[0]:
            print("bad",
                  x[0])
        y[0] = int(x[0])  # café 𝜋
    ''')


def test_a_diagnostic_spans_the_construct_it_names():
    from kernlint.lsp.diagnostics import span
    from kernlint.source import SourceFile

    source = SourceFile("/w/k.py", KERNEL)
    assert span(source, 4, 9) == (3, 8, 4, 19)  # the whole print(...) call, over its two lines
    assert span(source, 6, 12) == (5, 11, 5, 20)  # int(x[0])
    assert span(source, 3, 1) == (2, 4, 2, 20)  # an `if` (column 1: its first character): its first line only
    hip = SourceFile("/w/k.hip", "  printf(\"%d // not a comment\", i);  // KL301\n")
    assert span(hip, 1, 3) == (0, 2, 0, 35)  # no syntax tree: to the end of the statement, not its comment
    ir = SourceFile("/w/k.ll", "  %r = call i32 @vprintf(i8* %f) ; KL301\n")
    assert span(ir, 1, 3) == (0, 2, 0, 32)


def test_columns_are_counted_in_the_units_the_editor_chose():
    from lsprotocol import types

    from kernlint.lsp.diagnostics import to_client

    line = KERNEL.splitlines()[5]
    end = len(line)  # after "café 𝜋": é is 2 bytes, 𝜋 is 4 bytes and 2 UTF-16 units
    assert to_client(line, end, types.PositionEncodingKind.Utf32) == end
    assert to_client(line, end, types.PositionEncodingKind.Utf16) == end + 1
    assert to_client(line, end, types.PositionEncodingKind.Utf8) == end + 1 + 3


def test_noqa_is_added_where_a_line_can_take_it():
    from kernlint.suppress import noqa_insertion

    assert noqa_insertion("    y = int(v)  ", "KL101") == (14, "  # noqa: KL101")
    assert noqa_insertion("    y = int(v)  # noqa: KL301", "KL101") == (29, ", KL101")
    assert noqa_insertion("    y = int(v)  # noqa", "KL101") is None  # a bare noqa already covers it
    assert noqa_insertion("    y = int(v)  # noqa: KL1", "KL101") is None
    assert noqa_insertion("    y = a + \\", "KL101") is None  # a comment cannot follow a continuation
    assert noqa_insertion("  printf(\"%d\", i);", "KL301", "//") == (18, "  // noqa: KL301")


def _finding(code, line, applicability, edits):
    from kernlint.findings import Edit, Finding, Fix

    fix = Fix(applicability, "remove it", [Edit("/w/k.py", *e) for e in edits]) if edits else None
    return Finding(code, "/w/k.py", line, 5, "message", fix=fix, fixable=fix is not None)


def test_code_actions_offer_unsafe_fixes_only_where_allowed():
    from lsprotocol import types

    from kernlint.lsp.actions import ActionMaker, line_edits

    text = "a\nb\nc\nd\n"
    unsafe = _finding("KL101", 2, "unsafe", [(2, 0, 3, 0, "")])
    safe = _finding("KL102", 4, "safe", [(4, 0, 4, 1, "D")])
    inside = _finding("KL103", 2, "safe", [(2, 0, 2, 1, "B")])  # within the unsafe fix's edit
    diagnostic = types.Diagnostic(types.Range(types.Position(1, 0), types.Position(1, 1)), "m")

    def actions(allow):
        return ActionMaker("file:///w/k.py", "/w/k.py", text, types.PositionEncodingKind.Utf16, allow,
                           lambda path: None)

    assert actions(False).fix(unsafe, diagnostic) is None
    action = actions(True).fix(unsafe, diagnostic)
    assert action.title == "KL101: remove it (unsafe fix)" and not action.is_preferred
    assert actions(False).fix(safe, diagnostic).is_preferred
    assert apply(text, actions(False).fix_all([unsafe, safe, inside]).edit.changes["file:///w/k.py"]) == "a\nB\nc\nD\n"
    everything = actions(True).fix_all([unsafe, safe, inside])
    assert apply(text, everything.edit.changes["file:///w/k.py"]) == "a\nc\nD\n"  # as --fix: the inner edit dropped
    assert everything.title == "kernlint: fix all (3 findings)"
    assert apply(text, line_edits(text, "a\nc\nD\n")) == "a\nc\nD\n"


def test_a_fix_that_would_leave_python_that_does_not_parse_is_not_offered():
    from lsprotocol import types

    from kernlint.lsp.actions import ActionMaker

    text = "if x:\n    y = 1\nz = 2\n"
    breaking = _finding("KL101", 2, "safe", [(2, 0, 3, 0, "")])  # leaves `if x:` without a body
    diagnostic = types.Diagnostic(types.Range(types.Position(1, 0), types.Position(1, 1)), "m")
    maker = ActionMaker("file:///w/k.py", "/w/k.py", text, types.PositionEncodingKind.Utf16, True, lambda p: None)
    assert maker.fix(breaking, diagnostic) is None and maker.fix_all([breaking]) is None


def test_a_failure_is_one_diagnostic_on_its_file(tmp_path, monkeypatch):
    from lsprotocol import types

    from kernlint.lsp import checker
    from kernlint.lsp.settings import EditorSettings

    path = str(tmp_path / "k.py")
    (tmp_path / "pyproject.toml").write_text("[tool.kernlint]\nselect = [\"KL999\"]\n")
    bad_config = checker.check_document("file://" + path, path, 1, KERNEL, {path: KERNEL}, [],
                                        EditorSettings(), types.PositionEncodingKind.Utf16)
    assert len(bad_config.diagnostics) == 1 and "configuration error" in bad_config.diagnostics[0].message
    assert "KL999" in bad_config.diagnostics[0].message

    (tmp_path / "pyproject.toml").write_text("[tool.kernlint]\n")

    def broken(paths, options):
        raise RuntimeError("a bug in kernlint")

    monkeypatch.setattr(checker, "check_paths", broken)
    failed = checker.check_document("file://" + path, path, 1, KERNEL, {path: KERNEL}, [], EditorSettings(),
                                    types.PositionEncodingKind.Utf16)
    assert [d.code for d in failed.diagnostics] == ["KL905"]
    assert "RuntimeError: a bug in kernlint" in failed.diagnostics[0].message


def test_a_buffer_is_checked_from_its_text_with_the_caches_on(tmp_path):
    """The caches key a file by the text checked: an edited buffer is never answered with the
    findings of the file on disk, nor of the buffer's earlier text."""
    from kernlint.engine import Options, check_paths
    from kernlint.source import drop_buffer, use_buffer

    path = tmp_path / "kernels.py"
    path.write_text(BUFFER)
    options = Options(cache_root=str(tmp_path))
    assert sorted(f.code for f in check_paths([str(path)], options).findings) == ["KL101", "KL301"]
    try:
        use_buffer(str(path), ON_DISK.replace("@cuda.jit", "@cuda.jit(\"void(int64[::1], float64[::1])\")").encode())
        assert check_paths([str(path)], options).findings == []
        use_buffer(str(path), ("# a line above moves every finding\n" + BUFFER).encode())
        assert [(f.code, f.line) for f in check_paths([str(path)], options).findings] == [("KL301", 11),
                                                                                          ("KL101", 13)]
    finally:
        drop_buffer(str(path))
    assert [(f.code, f.line) for f in check_paths([str(path)], options).findings] == [("KL301", 10), ("KL101", 12)]


def test_a_finding_in_another_file_shows_at_the_call_that_reaches_it():
    from lsprotocol import types

    from kernlint.findings import Finding, Frame
    from kernlint.lsp.diagnostics import DiagnosticMaker

    finding = Finding("KL301", "/w/helpers.py", 8, 5, "print on the normal path", kernel="k",
                      inlined_at=[Frame("/w/k.py", 4, 1, "k")])
    maker = DiagnosticMaker("/w/k.py", KERNEL, types.PositionEncodingKind.Utf16)
    diagnostic = maker.diagnostic(finding)
    assert diagnostic.range.start == types.Position(3, 8)  # the call in this file: its first character
    assert diagnostic.message == "print on the normal path (in helpers.py:8, reached through this call)"
    assert [r.message for r in diagnostic.related_information] == ["KL301 is here", "inlined at k.py:4 (k)"]
    assert DiagnosticMaker("/w/other.py", KERNEL, types.PositionEncodingKind.Utf16).diagnostic(finding) is None


def test_the_preview_setting_reaches_the_engine():
    """`preview = true` (the file's or the editor's) runs the host rules in the editor too."""
    from kernlint import config as configuration
    from kernlint.lsp.settings import options_from

    config = configuration.Config()
    assert not options_from(config, None).preview
    config.preview, config.explicit_preview_rules = True, True
    options = options_from(config, None)
    assert options.preview and options.explicit_preview_rules
