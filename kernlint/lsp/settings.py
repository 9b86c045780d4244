"""The settings a buffer is checked with: the workspace's configuration file, then what the
editor says over it (``initializationOptions`` or ``workspace/configuration``, section
``kernlint``), as the command line goes over the file.

The editor's settings use the configuration file's keys, or their camelCase spellings
(``unsafeFixes``), and are checked by the same validator: a bad value is reported, never
guessed at. The keys that name files or code (``signatures``, ``constants``...) belong to the
project and are read from its file only. The server never imports a user's module
(``import-modules`` is refused): it must not run the code it checks.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from typing import Any, Dict, List, Mapping, Optional, Sequence

from .. import config as configuration
from ..engine import Options
from ..python.signatures.recorded import signatures_file

# configuration keys the editor may set (the others describe the project, not the editor)
EDITOR_KEYS = ("select", "ignore", "preview", "target", "arch", "offload-arch", "timeout", "unsafe-fixes")
DEBOUNCE_SECONDS = 0.3  # after the last keystroke before a buffer is checked again


@dataclass
class EditorSettings:
    """What the editor sent: configuration keys (checked later, against each file's
    configuration) and the server's own."""

    table: Dict[str, Any] = field(default_factory=dict)
    debounce: float = DEBOUNCE_SECONDS
    problems: List[str] = field(default_factory=list)  # keys the server does not know


def _key(name: str) -> str:
    """``unsafeFixes`` -> ``unsafe-fixes``."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", lambda m: "-" + m.group(1).lower(), name).replace("_", "-")


def editor_settings(raw: Optional[Mapping[str, Any]]) -> EditorSettings:
    """The editor's settings object (``{"select": [...], "unsafeFixes": true, ...}``; a
    ``kernlint`` member is taken as the object, as some clients nest it)."""
    settings = EditorSettings()
    if not isinstance(raw, Mapping):
        return settings
    if isinstance(raw.get("kernlint"), Mapping):
        raw = raw["kernlint"]
    for name, value in raw.items():
        key = _key(str(name))
        if value is None:
            continue  # a client's way of leaving a setting unset
        if key == "debounce":
            if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 10:
                settings.debounce = float(value)
            else:
                settings.problems.append(f"debounce: expected seconds between 0 and 10, got {value!r}")
        elif key in EDITOR_KEYS and key in configuration.KEYS:
            settings.table[key] = value
        elif key in configuration.KEYS:
            settings.problems.append(f"{name}: set it in the project's pyproject.toml or setup.cfg, not in the "
                                     f"editor")
        else:
            known = [k for k in EDITOR_KEYS if k in configuration.KEYS] + ["debounce"]
            settings.problems.append(f"{name}: unknown setting (known: {', '.join(known)})")
    return settings


@dataclass
class FileSettings:
    """How one file is checked."""

    options: Options
    unsafe_fixes: bool
    config_path: Optional[str]  # the configuration file that applies, if any
    root: Optional[str]  # the project root: the configuration's directory, else the workspace folder
    notes: List[str] = field(default_factory=list)  # what was ignored, for the editor's log


def workspace_folder(path: str, folders: Sequence[str]) -> Optional[str]:
    """The innermost workspace folder holding ``path``."""
    inside = [f for f in folders if path == f or path.startswith(f.rstrip(os.sep) + os.sep)]
    return max(inside, key=len) if inside else None


def file_settings(path: str, folders: Sequence[str], editor: EditorSettings) -> FileSettings:
    """The file's configuration (the nearest pyproject.toml/setup.cfg with a kernlint section),
    the editor's settings over it. Raises ConfigError where either is wrong."""
    config_path = configuration.find(path)
    config = configuration.load(config_path)
    notes = []
    if editor.table:
        given = configuration.validate(editor.table, "editor settings", "(kernlint)")
        for key in editor.table:
            attribute = key.replace("-", "_")
            setattr(config, attribute, getattr(given, attribute))
    if config.import_modules:
        notes.append(f"{config_path}: import-modules is not used by the language server: it never runs the code "
                     f"it checks")
    root = config.root if config_path else workspace_folder(path, folders)
    options = options_from(config, root)
    return FileSettings(options, bool(config.unsafe_fixes), config_path, root, notes)


def options_from(config: configuration.Config, root: Optional[str]) -> Options:
    """The engine's options for a configuration, as ``kernlint check`` makes them with no
    option on its command line (and nothing imported: the server runs no user code)."""
    options = Options(
        arch=config.arch,
        timeout=config.timeout,
        select=config.select,
        ignore=config.ignore or [],
        per_file_ignores=config.ignored_for,
        signatures=config.signatures,
        target=config.target,
        offload_arch=config.offload_arch,
        signatures_file=signatures_file(config.root, config.signatures_file),
        cache_root=root,
        preview=bool(config.preview),
        explicit_preview_rules=config.explicit_preview_rules,
    )
    options.frontend = replace(options.frontend, safe_imports=tuple(config.safe_imports),
                               jit_decorators=tuple(config.jit_decorators), constants=dict(config.constants),
                               import_modules=False, root=root)
    return options


def describe(settings: FileSettings) -> List[str]:
    """Lines for the editor's log: where a file's settings came from."""
    source = settings.config_path or "no configuration file (defaults)"
    return [f"settings from {source}; project root {settings.root or '(found from the file)'}"] + settings.notes
