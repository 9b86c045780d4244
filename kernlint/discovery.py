"""Which files a run checks: ruff's rules for finding them.

- Directories are walked for the target's kinds of file (``.py``, ``.hip``, ``.ll``, ``.bc``).
- ``exclude`` (default: ruff's own list, ``DEFAULT_EXCLUDE``) and ``extend-exclude`` leave paths
  out. A pattern without a ``/`` matches a file or folder of that name anywhere (``build``,
  ``*_pb2.py``); one with a ``/`` matches the path relative to the configuration's folder
  (``tests/data/*``, ``vendor/**``).
- ``respect-gitignore`` (default true) leaves out what git ignores: ``.gitignore`` files at every
  level, ``.git/info/exclude`` and the user's global excludes file, as ``git status`` sees them.
  git itself answers (``git status --ignored``), so its own pattern rules and precedence hold
  exactly; outside a git repository no ``.gitignore`` applies, as for ruff.
- A file named on the command line is always checked, unless ``force-exclude`` is set (which a
  pre-commit hook wants: pre-commit names every changed file).

What was left out, and why, is kept so that a run that checks nothing can say so.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

# ruff's documented default for `exclude` (docs.astral.sh/ruff/settings/#exclude)
DEFAULT_EXCLUDE = (
    ".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".ipynb_checkpoints", ".mypy_cache", ".nox",
    ".pants.d", ".pyenv", ".pytest_cache", ".pytype", ".ruff_cache", ".svn", ".tox", ".venv", ".vscode",
    "__pypackages__", "_build", "buck-out", "build", "dist", "node_modules", "site-packages", "venv",
)


@dataclass
class Rules:
    """What leaves a path out; patterns relative to ``root`` (the configuration's folder)."""

    root: str = field(default_factory=os.getcwd)
    exclude: Sequence[str] = DEFAULT_EXCLUDE
    extend_exclude: Sequence[str] = ()
    respect_gitignore: bool = True
    force_exclude: bool = False


@dataclass
class Discovery:
    files: List[str]  # absolute, each once, in a stable order
    excluded: Dict[str, str] = field(default_factory=dict)  # path left out -> why (the pattern, or .gitignore)


def _pattern_regex(pattern: str) -> "re.Pattern[str]":
    """A glob as ruff's globset reads it: ``*`` and ``?`` within one path part, ``**`` across parts."""
    out = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.find("]", i + 1)
            if end == -1:
                out.append(re.escape(char))
            else:
                body = pattern[i + 1:end]
                out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
                i = end + 1
                continue
        else:
            out.append(re.escape(char))
        i += 1
    return re.compile("".join(out) + r"\Z")


class Matcher:
    def __init__(self, rules: Rules):
        self.rules = rules
        self.root = os.path.abspath(rules.root)
        self.scope: Optional[str] = None  # the directory (or file) named on the command line being walked
        self._patterns: List[Tuple[str, "re.Pattern[str]", bool]] = []
        for pattern in list(rules.exclude) + list(rules.extend_exclude):
            cleaned = pattern.strip().rstrip("/")
            if cleaned.startswith("./"):
                cleaned = cleaned[2:]
            if cleaned:
                self._patterns.append((pattern, _pattern_regex(cleaned), "/" in cleaned))

    def excluded_by(self, path: str) -> Optional[str]:
        """The pattern that leaves ``path`` (absolute) out, or None."""
        name = os.path.basename(path)
        relative = os.path.relpath(path, self.root).replace(os.sep, "/")
        inside = not relative.startswith("../")
        for pattern, regex, anchored in self._patterns:
            if anchored:
                if inside and regex.match(relative):
                    return pattern
            elif regex.match(name):
                return pattern
        return None

    def excluded_with_folders(self, path: str) -> Optional[str]:
        """For a file named on the command line: the pattern that leaves it or a folder above it
        (up to the configuration's folder) out."""
        current = path
        while True:
            pattern = self.excluded_by(current)
            if pattern is not None:
                return pattern
            parent = os.path.dirname(current)
            if parent == current or not parent.startswith(self.root + os.sep) and parent != self.root:
                return None
            if parent == self.root:
                return None
            current = parent

    def ignored_by_git(self, path: str) -> bool:
        if not self.rules.respect_gitignore:
            return False
        top = git_top(os.path.dirname(path) if not os.path.isdir(path) else path)
        if top is None:
            return False
        scope = self.scope or path
        if not (scope == top or scope.startswith(top + os.sep)):
            scope = top
        # git is asked about the named path only (a package in a large repository), and what it
        # says of the named path itself and the folders above does not count: named, it is checked
        named = os.path.relpath(scope, top).replace(os.sep, "/")
        ignored_files, ignored_dirs = _git_ignored(top, named)
        relative = os.path.relpath(path, top).replace(os.sep, "/")
        if relative in ignored_files and relative != named:
            return True
        parts = relative.split("/")
        below = 0 if named == "." else len(named.split("/"))
        return any("/".join(parts[:n]) in ignored_dirs for n in range(below + 1, len(parts) + 1))


@lru_cache(maxsize=None)
def git_top(directory: str) -> Optional[str]:
    """The work tree holding ``directory``, found as git does (a ``.git`` folder or file above)."""
    current = os.path.abspath(directory)
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


@lru_cache(maxsize=None)
def _git_ignored(top: str, scope: str = ".") -> Tuple[frozenset, frozenset]:
    """(files, folders) git ignores under ``scope`` in the work tree at ``top``, relative to
    ``top``; empty where git is not installed or cannot read the repository."""
    try:  # ignored folders whole, ignored files inside untracked folders one by one
        done = subprocess.run(["git", "-C", top, "status", "--porcelain", "-z", "--ignored", "--", scope],
                              capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.SubprocessError):
        return frozenset(), frozenset()
    if done.returncode != 0:
        return frozenset(), frozenset()
    files: Set[str] = set()
    dirs: Set[str] = set()
    for entry in done.stdout.decode("utf-8", "surrogateescape").split("\0"):
        if not entry.startswith("!! "):
            continue
        entry = entry[3:]
        if entry.endswith("/"):
            dirs.add(entry.rstrip("/"))
        elif entry:
            files.add(entry)
    return frozenset(files), frozenset(dirs)


def discover(paths: Sequence[str], suffixes: Tuple[str, ...], rules: Optional[Rules] = None) -> Discovery:
    """The files to check under ``paths``: a file given by name always (unless ``force_exclude``
    and a rule excludes it), directories walked for ``suffixes``, leaving out what the rules
    exclude. Each file once, however many times it was named (``a.py ./a.py``)."""
    matcher = Matcher(rules or Rules())
    found: Dict[str, None] = {}
    excluded: Dict[str, str] = {}

    def why(path: str) -> Optional[str]:
        pattern = matcher.excluded_by(path)
        if pattern is not None:
            return f"exclude pattern {pattern!r}"
        if matcher.ignored_by_git(path):
            return ".gitignore"
        return None

    for given in paths:
        path = os.path.abspath(given)
        matcher.scope = path if os.path.isdir(path) else os.path.dirname(path)
        if not os.path.isdir(path):
            reason = None
            if matcher.rules.force_exclude:
                pattern = matcher.excluded_with_folders(path)
                reason = f"exclude pattern {pattern!r}" if pattern else (
                    ".gitignore" if matcher.ignored_by_git(path) else None)
            if reason is None:
                found[path] = None
            else:
                excluded[path] = reason
            continue
        for file in _walk(path, suffixes, why, excluded, top=not matcher.rules.force_exclude):
            found[file] = None
    return Discovery(list(found), excluded)


def _walk(directory: str, suffixes: Tuple[str, ...], why, excluded: Dict[str, str], top: bool) -> Iterable[str]:
    """Files under ``directory`` in a stable order; a directory named on the command line is
    walked even where a pattern would leave it out (``kernlint check build/``), as ruff does."""
    if not top:
        reason = why(directory)
        if reason is not None:
            excluded[directory] = reason
            return
    for root, dirs, files in os.walk(directory):
        kept = []
        for name in sorted(dirs):
            path = os.path.join(root, name)
            reason = why(path)
            if reason is None:
                kept.append(name)
            else:
                excluded[path] = reason
        dirs[:] = kept
        for name in sorted(files):
            if not name.endswith(suffixes):
                continue
            path = os.path.join(root, name)
            reason = why(path)
            if reason is None:
                yield path
            else:
                excluded[path] = reason


def nothing_found(paths: Sequence[str], discovery: Discovery, cwd: Optional[str] = None) -> str:
    """The warning for a run that found nothing to check: what was left out, and by what."""
    shown = ", ".join(paths)
    if not discovery.excluded:
        return f"warning: No source files (.py, .hip, .ll, .bc) found under {shown}"
    base = cwd or os.getcwd()
    items = sorted(discovery.excluded.items())
    named = "; ".join(f"{os.path.relpath(path, base)} ({reason})" for path, reason in items[:3])
    more = f"; and {len(items) - 3} more" if len(items) > 3 else ""
    return (f"warning: No source files to check under {shown}: left out {named}{more}. "
            f"Name a file to check it anyway, or change `exclude`/`extend-exclude`/`respect-gitignore`")
