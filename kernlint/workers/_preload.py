"""Imported once by the worker server before it forks a process per file."""

import os
import signal

# The run that started this process ends it; a terminal's Ctrl-C reaches the whole process group
# and would only print a traceback of this import over the run's own "interrupted".
signal.signal(signal.SIGINT, signal.SIG_IGN)
os.environ.setdefault("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", "1")
os.environ["NUMBA_ENABLE_CUDASIM"] = "0"

from ..compile.numba_cuda import warm_up  # noqa: E402

try:
    warm_up()
except Exception:  # noqa: BLE001 - a cold worker is slower, not wrong
    pass
