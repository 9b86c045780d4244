"""Writing files so that a reader never sees half of one, and a crash loses nothing."""

from __future__ import annotations

import os
import tempfile
from typing import Union


def write_atomic(path: str, data: Union[str, bytes]) -> None:
    """Write to a temporary file beside ``path``, fsync it, then rename it over ``path``."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    payload = data.encode() if isinstance(data, str) else data
    handle, temporary = tempfile.mkstemp(prefix=".kernlint-", dir=directory)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(handle, 0o666 & ~umask)  # what open() would have made, not mkstemp's 0600
        with os.fdopen(handle, "wb") as out:
            out.write(payload)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    try:  # make the rename itself durable
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
