"""``kernlint server``: findings and fixes in the editor, over the Language Server Protocol
(standard input and output), for any editor with an LSP client.

``settings`` decides how a buffer is checked, ``checker`` checks it off the event loop,
``diagnostics`` and ``actions`` turn what was found into LSP messages, ``server`` wires them
to the editor (with pygls, the ``server`` extra).
"""

from __future__ import annotations

import sys


def main() -> int:
    """Serve until the editor says ``exit``; without pygls, say what to install (exit 2)."""
    try:
        import lsprotocol  # noqa: F401
        import pygls  # noqa: F401
    except ImportError:
        print('kernlint: error: `kernlint server` needs pygls: pip install "kernlint[server]"', file=sys.stderr)
        return 2
    from .server import serve

    return serve()
