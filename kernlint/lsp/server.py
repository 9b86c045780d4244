"""``kernlint server``: the language server (pygls), wiring the editor's notifications to the
checker and its requests to the code actions.

Open ``.py``, ``.hip`` and ``.ll`` buffers are checked on open and save at once, and after
each change once the typing pauses (``debounce`` seconds, 0.3 by default). Saving one file
re-checks the other open ones too: their kernels may be typed by its launch sites.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from typing import Dict, List, Optional

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from .. import __version__
from ..source import read_bytes
from .actions import FIX_ALL, KINDS, ActionMaker, overlaps, wanted
from .checker import Checked, CheckerThread, check_document
from .diagnostics import problem, uri_to_path
from .settings import EditorSettings, editor_settings

CHECKED_SUFFIXES = (".py", ".hip", ".ll")
logger = logging.getLogger(__name__)


class KernlintServer(LanguageServer):
    def __init__(self):
        super().__init__("kernlint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.editor = EditorSettings()
        self.initialization: Dict = {}
        self.checker = CheckerThread()
        self.pending: Dict[str, asyncio.Task] = {}  # uri -> the check waiting or running for it
        self.results: Dict[str, Checked] = {}  # uri -> its last published check
        self.logged: set = set()

    # -- what the editor has open ------------------------------------------------------------

    def folders(self) -> List[str]:
        found = []
        for folder in self.workspace.folders.values():
            path = uri_to_path(folder.uri)
            if path:
                found.append(path)
        root = self.workspace.root_path
        if root and not found:
            found.append(root)
        return found

    def open_texts(self) -> Dict[str, str]:
        texts = {}
        for uri, document in self.workspace.text_documents.items():
            path = uri_to_path(uri)
            if path and path.endswith(CHECKED_SUFFIXES):
                texts[path] = document.source
        return texts

    def text_of(self, path: str) -> Optional[str]:
        """A file's text as the editor has it: its open buffer, else the disk's."""
        texts = self.open_texts()
        if path in texts:
            return texts[path]
        try:
            return read_bytes(path).decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def encoding(self) -> str:
        return self.workspace.position_encoding or types.PositionEncodingKind.Utf16

    def say(self, text: str, kind: types.MessageType = types.MessageType.Info) -> None:
        if text not in self.logged:
            self.logged.add(text)
            self.window_log_message(types.LogMessageParams(kind, f"kernlint: {text}"))

    # -- checking ----------------------------------------------------------------------------

    def schedule(self, uri: str, delay: float) -> None:
        """Check the document after ``delay`` seconds, replacing the check it had waiting (or
        dropping the result of the one running)."""
        path = uri_to_path(uri)
        if path is None or not path.endswith(CHECKED_SUFFIXES):
            return
        earlier = self.pending.pop(uri, None)
        if earlier is not None:
            earlier.cancel()
        self.pending[uri] = asyncio.get_running_loop().create_task(self._check(uri, path, delay))

    def schedule_all(self, delay: float = 0.0, but: Optional[str] = None) -> None:
        for uri in list(self.workspace.text_documents):
            if uri != but:
                self.schedule(uri, delay)

    async def _check(self, uri: str, path: str, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        document = self.workspace.text_documents.get(uri)
        if document is None:
            return
        version, text = document.version, document.source
        future = self.checker.submit(check_document, uri, path, version, text, self.open_texts(), self.folders(),
                                     self.editor, self.encoding())
        try:
            checked: Checked = await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            future.cancel()  # not started yet: it never runs
            raise
        except Exception as exc:  # noqa: BLE001 - the server's own failure: said on the file, serving goes on
            logger.exception("checking %s", path)
            checked = Checked(uri, path, version, text, diagnostics=[problem(
                f"kernlint server failed while checking this file ({type(exc).__name__}: {exc}); "
                f"please report it to kernlint's issue tracker")])
        current = self.workspace.text_documents.get(uri)
        if current is None or current.version != version or current.source != text:
            return  # the buffer moved on: a newer check is scheduled
        for line in checked.log:
            self.say(line)
        self.results[uri] = checked
        if self.pending.get(uri) is asyncio.current_task():
            del self.pending[uri]
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, version=version, diagnostics=checked.diagnostics))
        logger.info("checked %s in %.2f s: %d diagnostics", path, checked.seconds, len(checked.diagnostics))

    def forget(self, uri: str) -> None:
        task = self.pending.pop(uri, None)
        if task is not None:
            task.cancel()
        self.results.pop(uri, None)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def use_settings(self, *objects) -> None:
        """The editor's settings: the later objects over the earlier ones."""
        merged: Dict = {}
        for value in objects:
            if isinstance(value, dict):
                merged.update(value.get("kernlint", value) if isinstance(value.get("kernlint"), dict) else value)
        self.editor = editor_settings(merged)
        for message in self.editor.problems:
            self.window_show_message(types.ShowMessageParams(types.MessageType.Warning,
                                                             f"kernlint: settings: {message}"))

    # -- code actions ------------------------------------------------------------------------

    def code_actions(self, params: types.CodeActionParams) -> List[types.CodeAction]:
        uri = params.text_document.uri
        checked = self.results.get(uri)
        document = self.workspace.text_documents.get(uri)
        if checked is None or document is None or document.source != checked.text:
            return []  # nothing checked yet, or the document changed since: its new check will tell
        maker = ActionMaker(uri, checked.path, checked.text, self.encoding(), checked.unsafe_fixes, self.text_of)
        only = params.context.only
        actions: List[types.CodeAction] = []
        if wanted(types.CodeActionKind.QuickFix, only):
            here = [(f, d) for f, d in checked.pairs if overlaps(d.range, params.range)]
            actions.extend(a for f, d in here for a in [maker.fix(f, d)] if a is not None)
            actions.extend(a for f, d in here for a in [maker.noqa(f, d)] if a is not None)
        if wanted(FIX_ALL, only):
            action = maker.fix_all([f for f, _ in checked.pairs])
            if action is not None:
                actions.append(action)
        return actions


def build() -> KernlintServer:
    server = KernlintServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: KernlintServer, params: types.InitializeParams):
        ls.initialization = params.initialization_options if isinstance(params.initialization_options, dict) else {}
        ls.use_settings(ls.initialization)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: KernlintServer, params: types.InitializedParams):
        await pull_settings(ls)
        await watch_project_files(ls)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def project_files_changed(ls: KernlintServer, params: types.DidChangeWatchedFilesParams):
        ls.schedule_all()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def configuration_changed(ls: KernlintServer, params: types.DidChangeConfigurationParams):
        settings = params.settings if isinstance(params.settings, dict) else {}
        if isinstance(settings.get("kernlint"), dict):
            ls.use_settings(ls.initialization, settings["kernlint"])
        else:
            await pull_settings(ls)
        ls.schedule_all()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: KernlintServer, params: types.DidOpenTextDocumentParams):
        ls.schedule(params.text_document.uri, 0.0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: KernlintServer, params: types.DidChangeTextDocumentParams):
        ls.schedule(params.text_document.uri, ls.editor.debounce)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: KernlintServer, params: types.DidSaveTextDocumentParams):
        ls.schedule(params.text_document.uri, 0.0)
        ls.schedule_all(ls.editor.debounce, but=params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: KernlintServer, params: types.DidCloseTextDocumentParams):
        ls.forget(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=KINDS))
    def code_action(ls: KernlintServer, params: types.CodeActionParams):
        return ls.code_actions(params)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: KernlintServer, params=None):
        for task in ls.pending.values():
            task.cancel()
        ls.pending.clear()
        ls.checker.stop()

    return server


async def pull_settings(ls: KernlintServer) -> None:
    """The editor's ``kernlint`` configuration section over its initialization options, where
    the editor serves ``workspace/configuration``."""
    capabilities = ls.client_capabilities.workspace
    if capabilities is None or not capabilities.configuration:
        return
    try:
        answer = await ls.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section="kernlint")]))
    except Exception as exc:  # noqa: BLE001 - an editor that fails the request keeps its initialization options
        ls.say(f"workspace/configuration failed ({exc}); using the initialization options",
               types.MessageType.Warning)
        return
    section = answer[0] if answer else None
    if isinstance(section, dict) and section:
        before = ls.editor
        ls.use_settings(ls.initialization, section)
        if ls.editor != before:
            ls.schedule_all()


# what a check reads besides the buffers and the code: the configuration, the recorded signatures
WATCHED = ("**/pyproject.toml", "**/setup.cfg", "**/kernlint-signatures.toml")


async def watch_project_files(ls: KernlintServer) -> None:
    """Ask the editor to say when the configuration or the recorded signatures change on disk
    (an edit outside it, a checkout, ``kernlint record``): the open buffers are checked again."""
    capabilities = ls.client_capabilities.workspace
    watched = capabilities.did_change_watched_files if capabilities is not None else None
    if watched is None or not watched.dynamic_registration:
        return
    options = types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[types.FileSystemWatcher(glob_pattern=pattern) for pattern in WATCHED])
    try:
        await ls.client_register_capability_async(types.RegistrationParams(registrations=[types.Registration(
            id="kernlint-project-files", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=options)]))
    except Exception as exc:  # noqa: BLE001 - without it, changes show at the next edit
        ls.say(f"the editor did not watch the configuration files ({exc})", types.MessageType.Warning)


def serve() -> int:
    """Speak LSP on standard input and output. The protocol keeps a duplicate of standard
    output to itself; the descriptor everyone else writes to (a compile process forked from
    this one, a library's print) becomes standard error, the editor's log, where it cannot
    corrupt a message."""
    logging.basicConfig(level=logging.WARNING, format="kernlint server: %(levelname)s %(message)s")
    sys.stdout.flush()
    protocol = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    build().start_io(sys.stdin.buffer, protocol)
    return 0
