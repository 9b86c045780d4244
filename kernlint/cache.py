"""Findings of unchanged files, kept in ``.kernlint_cache/`` so a re-check needs no numba.

An entry is valid while these are unchanged: the file's bytes, the user modules its import
pulled in, kernlint's, numba's, numba-cuda's and llvmlite's versions, the architecture and
the signatures the configuration gives it. Selection, ignores and suppressions are applied
after the cache, so changing them needs no recompilation. Entries are written atomically.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any, Callable, Dict, List, Optional, Sequence

from .compile.toolchain import identity as _toolchain
from .findings import Edit, Finding, Fix, Frame
from .fsutil import write_atomic
from .source import read_bytes

DIRECTORY = ".kernlint_cache"


def _digest(path: str) -> Optional[str]:
    """The digest of a file's bytes: an editor's buffer where one stands for it, so that every
    cache is keyed by the text that was checked."""
    try:
        return hashlib.sha256(read_bytes(path)).hexdigest()
    except OSError:
        return None


class Cache:
    def __init__(self, root: str):
        self.directory = os.path.join(root, DIRECTORY)

    def _entry_path(self, path: str) -> str:
        return os.path.join(self.directory, hashlib.sha256(path.encode()).hexdigest()[:32] + ".json")

    def key(self, path: str, settings: Dict) -> Optional[str]:
        digest = _digest(path)
        if digest is None:
            return None
        return hashlib.sha256(json.dumps(
            {"source": digest, "path": path, "tools": _toolchain(), "settings": settings},
            sort_keys=True).encode()).hexdigest()

    def load(self, path: str, settings: Dict, timeout: Optional[float] = None) -> Optional[Dict]:
        """The file's findings, where its bytes, settings and dependencies are unchanged (and,
        for a file with a kernel that ran past the time limit, the limit too)."""
        key = self.key(path, settings)
        try:
            with open(self._entry_path(path)) as handle:
                entry = json.load(handle)
        except (OSError, ValueError):
            return None
        if not isinstance(entry, dict) or entry.get("key") != key:
            return None
        if entry.get("timeout") is not None and entry["timeout"] != timeout:
            return None
        for dependency, digest in entry.get("dependencies", {}).items():
            if _digest(dependency) != digest:
                return None
        return entry

    def store(self, path: str, settings: Dict, findings: Sequence[Finding], stats: List[Dict],
              dependencies: Sequence[str], timeout: Optional[float] = None) -> None:
        key = self.key(path, settings)
        if key is None:
            return
        entry = {
            "key": key,
            "findings": [finding_to_dict(f) for f in findings],
            "stats": stats,
            "dependencies": {d: _digest(d) for d in dependencies},
            "timeout": timeout,  # a kernel ran past this limit: valid for it alone
        }
        try:
            os.makedirs(self.directory, exist_ok=True)
            ignore = os.path.join(self.directory, ".gitignore")
            if not os.path.exists(ignore):
                write_atomic(ignore, "*\n")
            write_atomic(self._entry_path(path), json.dumps(entry))
        except OSError:
            pass  # a cache that cannot be written only costs time


def finding_to_dict(finding: Finding) -> Dict:
    """A finding as the cache keeps it (its JSON form and the kernel's def line)."""
    return finding.to_dict() | {"kernel_line": finding.kernel_line}


def finding_from_dict(data: Dict) -> Finding:
    frames = [Frame(**frame) for frame in data.get("inlined_at", [])]
    fix = None
    if data.get("fix"):
        fix = Fix(data["fix"], data.get("fix_description", ""), [Edit(**e) for e in data.get("fix_edits", [])])
    return Finding(
        code=data["code"], path=data["path"], line=data["line"], column=data["column"],
        message=data["message"], kernel=data.get("kernel", ""), signature=data.get("signature", ""),
        fixable=data.get("fixable", False), inlined_at=frames, kernels=list(data.get("kernels", [])),
        kernel_line=data.get("kernel_line", 0), signature_source=data.get("signature_source", ""),
        signature_from=data.get("signature_from", ""), fix=fix,
        rewritable=data.get("rewritable", False), standins=list(data.get("standins", [])),
        tried=[dict(t) for t in data.get("tried", [])],
    )


class RunCache:
    """A whole run's findings, for the next run over the same paths with the same options: valid
    while every file the run read has the same bytes, the same files are discovered and no
    module appears where an import found none. A warm run then hashes files and parses none."""

    def __init__(self, root: str, paths: Sequence[str], settings: Dict):
        self.key = hashlib.sha256(json.dumps(
            {"paths": sorted(os.path.abspath(p) for p in paths), "tools": _toolchain(), "settings": settings},
            sort_keys=True, default=repr).encode()).hexdigest()
        self.path = os.path.join(root, DIRECTORY, f"run-{self.key[:32]}.json")

    def load(self, discovered: Sequence[str]) -> Optional[Dict]:
        try:
            with open(self.path) as handle:
                entry = json.load(handle)
        except (OSError, ValueError):
            return None
        if not isinstance(entry, dict) or entry.get("key") != self.key or entry.get("discovered") != list(discovered):
            return None
        if any(os.path.exists(path) for path in entry.get("absent", [])):
            return None
        for path, digest in entry.get("files", {}).items():
            if _digest(path) != digest:
                return None
        return entry

    def store(self, discovered: Sequence[str], read: Sequence[str], absent: Sequence[str],
              collected: Sequence[Finding], stats: List[Dict], files: int) -> None:
        entry = {
            "key": self.key,
            "discovered": list(discovered),
            "files": {path: _digest(path) for path in sorted(set(read) | set(discovered))},
            "absent": sorted(absent),
            "findings": [finding_to_dict(f) for f in collected],
            "stats": stats,
            "file_count": files,
        }
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            write_atomic(self.path, json.dumps(entry))
        except OSError:
            pass


class KernelCache:
    """Each compiled kernel's findings, under a key the worker computes from everything the
    kernel's IR is made from (``numba_cuda.kernel_fingerprint``): when one kernel of a file
    changes, the file's other kernels are not compiled again."""

    def __init__(self, root: str):
        self.directory = os.path.join(root, DIRECTORY, "kernels")
        self.salt = hashlib.sha256(json.dumps(_toolchain(), sort_keys=True).encode()).hexdigest()

    def known(self) -> frozenset:
        try:
            return frozenset(name[:-5] for name in os.listdir(self.directory) if name.endswith(".json"))
        except OSError:
            return frozenset()

    def load(self, key: str) -> Optional[Dict]:
        try:
            with open(os.path.join(self.directory, key + ".json")) as handle:
                entry = json.load(handle)
        except (OSError, ValueError):
            return None
        return entry if isinstance(entry, dict) and entry.get("key") == key else None

    def store(self, key: str, findings: Sequence[Finding], stats: Dict) -> None:
        entry = {"key": key, "findings": [finding_to_dict(f) for f in findings],
                 "stats": stats}
        try:
            os.makedirs(self.directory, exist_ok=True)
            write_atomic(os.path.join(self.directory, key + ".json"), json.dumps(entry))
        except OSError:
            pass


class FileFacts:
    """What kernlint reads from one file's syntax (the types its launch sites give, its host
    findings, its kernels' inferred signatures), kept under the file's bytes and valid while
    every file that reading looked at, and every module those import, has the same bytes, no
    module has appeared where an import found none, and the project-wide name searches it made
    find the same files. After one edit, only the readings that looked at the edited file are
    done again."""

    def __init__(self, root: str, project, settings: Dict):
        self.directory = os.path.join(root, DIRECTORY, "facts")
        self.project = project
        self.salt = hashlib.sha256(json.dumps([_toolchain(), settings], sort_keys=True, default=repr).encode()
                                   ).hexdigest()
        self._digests: Dict[str, Optional[str]] = {}  # each file hashed once per run

    def _digest(self, path: str) -> Optional[str]:
        if path not in self._digests:
            self._digests[path] = _digest(path)
        return self._digests[path]

    def get(self, kind: str, path: str, compute: Callable[[], Any], extra: Any = None) -> Any:
        """``compute()``'s value for ``path`` (JSON data), from the cache where it is valid."""
        digest = self._digest(path)
        key = hashlib.sha256(json.dumps([self.salt, kind, path, digest, extra], sort_keys=True,
                                        default=repr).encode()).hexdigest()
        entry_path = os.path.join(self.directory, hashlib.sha256(f"{kind}:{path}".encode()).hexdigest()[:32] + ".json")
        try:
            with open(entry_path) as handle:
                entry = json.load(handle)
            if isinstance(entry, dict) and entry.get("key") == key and self._valid(entry):
                return entry["value"]
        except (OSError, ValueError, KeyError, TypeError):
            pass
        failures = len(self.project.failures)
        with self.project.recording() as looked:
            value = json.loads(json.dumps(compute()))  # what a later run reads back: lists, not tuples
        if digest is not None and len(self.project.failures) == failures:  # a KL905 is reported by every run
            self._store(entry_path, key, value, path, looked)
        return value

    def _valid(self, entry: Dict) -> bool:
        if any(self._digest(path) != digest for path, digest in entry["files"].items()):
            return False
        if any(os.path.exists(path) for path in entry["absent"]):
            return False
        return all(self.project.files_naming(path, name) == found for path, name, found in entry["naming"])

    def _store(self, entry_path: str, key: str, value: Any, path: str, looked) -> None:
        files = {entry[1] for entry in looked if entry[0] == "file"} | {path}
        imported, absent = self.project.imported_closure(files)
        entry = {
            "key": key,
            "value": value,
            "files": {p: self._digest(p) for p in sorted(files | imported)},
            "absent": sorted(absent | {entry[1] for entry in looked if entry[0] == "absent"}),
            "naming": sorted([entry[1], entry[2], self.project.files_naming(entry[1], entry[2])]
                             for entry in looked if entry[0] == "naming"),
        }
        try:
            os.makedirs(self.directory, exist_ok=True)
            write_atomic(entry_path, json.dumps(entry))
        except (OSError, TypeError, ValueError):
            pass  # a cache that cannot be written only costs time
