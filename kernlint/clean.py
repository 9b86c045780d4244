"""``kernlint clean``: end this user's worker daemons and remove the caches, as ``ruff clean``.

A daemon is found two ways: by the pid files in this user's daemon folders (each folder a
daemon may have been started with: ``KERNLINT_SERVER_DIR``, ``XDG_RUNTIME_DIR``, the temporary
directory), and among the user's processes whose files are in those folders (a daemon still
starting has written no pid file yet). Only processes whose command line is a kernlint
daemon's and that belong to this user are signalled.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import time
from typing import Iterator, List, Set

from .cache import DIRECTORY as CACHE_DIRECTORY

# how a daemon is started, under this name and under the worker package's name to come
_DAEMON_MODULES = (b"kernlint.frontends.server", b"kernlint.workers.daemon")
_SKIP = frozenset({".git", ".hg", ".svn", "node_modules"})  # no caches inside these


def daemon_folders() -> List[str]:
    """The folders this environment's daemons keep their files in: KERNLINT_SERVER_DIR's alone
    where it is set (as the daemons themselves read it), else the runtime and temporary ones."""
    if os.environ.get("KERNLINT_SERVER_DIR"):
        parents = [os.environ["KERNLINT_SERVER_DIR"]]
    else:
        parents = [os.environ.get("XDG_RUNTIME_DIR"), tempfile.gettempdir()]
    folders = []
    for parent in parents:
        if parent:
            folder = os.path.join(parent, f"kernlint-{os.getuid()}")
            if os.path.isdir(folder) and folder not in folders:
                folders.append(folder)
    return folders


def _is_daemon(pid: int) -> bool:
    """A kernlint daemon of this user (Linux's /proc; elsewhere a pid file's word is taken)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            arguments = handle.read().split(b"\0")
        return os.stat(f"/proc/{pid}").st_uid == os.getuid() and any(a in _DAEMON_MODULES for a in arguments)
    except FileNotFoundError:
        return not os.path.isdir("/proc")
    except OSError:
        return False


def _running_daemons(folders: List[str]) -> Iterator[int]:
    """Daemons whose files are in ``folders`` (its last argument is its files' base path):
    another environment's daemon folder (``KERNLINT_SERVER_DIR``) is another's business."""
    if not os.path.isdir("/proc"):
        return
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid() or not _is_daemon(int(entry)):
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                base = handle.read().rstrip(b"\0").split(b"\0")[-1].decode("utf-8", "surrogateescape")
        except OSError:
            continue
        if os.path.dirname(os.path.abspath(base)) in folders:
            yield int(entry)


def end_daemons(wait: float = 5.0) -> List[int]:
    """Ask every worker daemon of this user to end (SIGTERM: it removes its files), and kill
    those that have not after ``wait`` seconds, with the workers under them. The pids ended."""
    folders = daemon_folders()
    pids: Set[int] = set(_running_daemons(folders))
    for folder in folders:
        for name in os.listdir(folder):
            if name.endswith(".pid"):
                try:
                    with open(os.path.join(folder, name)) as handle:
                        pid = int(handle.read().strip())
                except (OSError, ValueError):
                    continue
                if _is_daemon(pid):
                    pids.add(pid)
    for pid in pids:
        _signal(pid, signal.SIGTERM)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline and any(_alive(pid) for pid in pids):
        time.sleep(0.05)
    for pid in pids:
        if _alive(pid):
            _signal(pid, signal.SIGKILL)
    return sorted(pids)


def _signal(pid: int, number: int) -> None:
    """The daemon and its workers: it leads its own session (started with start_new_session)."""
    try:
        if os.getpgid(pid) == pid:
            os.killpg(pid, number)
        else:
            os.kill(pid, number)
    except OSError:
        pass


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False
    except OSError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        pass
    return True


def remove_daemon_files() -> List[str]:
    """What ended daemons left (a killed one cannot clean up): the folders themselves too."""
    removed = []
    for folder in daemon_folders():
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            try:
                os.unlink(path)
                removed.append(path)
            except OSError:
                pass
        try:
            os.rmdir(folder)
        except OSError:
            pass
    return removed


def cache_folders(root: str) -> List[str]:
    """The ``.kernlint_cache`` folders under ``root``."""
    found = []
    for directory, dirs, _ in os.walk(root):
        if CACHE_DIRECTORY in dirs:
            found.append(os.path.join(directory, CACHE_DIRECTORY))
        dirs[:] = sorted(d for d in dirs if d != CACHE_DIRECTORY and d not in _SKIP)
    return found


def clean(root: str) -> List[str]:
    """End the daemons, remove their files and the caches under ``root``; lines saying what was done."""
    lines = []
    ended = end_daemons()
    if ended:
        lines.append(f"Ended {len(ended)} worker daemon{'s' if len(ended) != 1 else ''} "
                     f"(pid {', '.join(map(str, ended))})")
    remove_daemon_files()
    for folder in cache_folders(root):
        shutil.rmtree(folder, ignore_errors=True)
        lines.append(f"Removed {os.path.relpath(folder, root)}")
    return lines
