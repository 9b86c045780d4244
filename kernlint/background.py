"""The worker daemon, as the user sees it: whether one may start, and telling the user once.

The worker daemon is a background process that keeps numba-cuda imported and warmed up, so
that a re-check after an edit costs the kernels that changed and not numba-cuda's start-up
(about a second and a half). It ends after 5 minutes without a request; `kernlint clean` ends
it at once. It is off where ``KERNLINT_WORKERS=0`` (``KERNLINT_SERVER=0``, the older name,
too), where the configuration says ``workers = false``, and in CI (``CI`` set), where every
run is a fresh machine and a process left behind only costs memory; an explicit
``KERNLINT_WORKERS=1`` turns it on there.
"""

from __future__ import annotations

import os
import sys
from typing import Optional, TextIO

NAME = "worker daemon"
_OFF = ("0", "false", "no", "off")
NOTICE = ("kernlint: started the worker daemon, a background process that keeps numba-cuda loaded so that "
          "the next checks start at once; it ends after 5 idle minutes or with `kernlint clean`. "
          "Turn it off with KERNLINT_WORKERS=0 or `workers = false` in [tool.kernlint]. "
          "(Said once; it does not start when CI is set.)")


def enabled() -> bool:
    """Whether a run may use (and start) the worker daemon."""
    for name in ("KERNLINT_WORKERS", "KERNLINT_SERVER"):
        value = os.environ.get(name)
        if value is not None and value.strip():
            return value.strip().lower() not in _OFF
    ci = os.environ.get("CI", "").strip().lower()
    return ci in ("", *_OFF)


def _marker() -> str:
    """Remembers that the user was told (per user, surviving reboots, beside other caches)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "kernlint", "worker-daemon-notice")


def announce_once(stream: Optional[TextIO] = None) -> bool:
    """Say on stderr that a worker daemon was started, the first time only; True if said."""
    marker = _marker()
    if os.path.exists(marker):
        return False
    try:
        os.makedirs(os.path.dirname(marker), exist_ok=True)
        with open(marker, "x") as handle:
            handle.write(NOTICE + "\n")
    except FileExistsError:
        return False  # another run said it first
    except OSError:
        pass  # an unwritable home: say it every time rather than never
    print(NOTICE, file=stream or sys.stderr)
    return True
