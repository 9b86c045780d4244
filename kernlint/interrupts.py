"""Ctrl-C, remembered. Python raises KeyboardInterrupt wherever the main thread is when SIGINT
arrives; where that is a finalizer or a garbage-collection callback (often, on a loaded machine,
while host code is read), Python prints "Exception ignored" and goes on, and the run would end
as if nothing happened, after its workers finished. The handler notes the interrupt first, so
the run stops at its next wait for a worker and exits 130 however the exception was lost."""

from __future__ import annotations

import signal

_interrupted = False


def install() -> None:
    """Note Ctrl-C before raising KeyboardInterrupt as Python does (left alone where SIGINT is
    ignored or handled by someone else)."""
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _on_interrupt)


def _on_interrupt(signum, frame) -> None:
    global _interrupted
    _interrupted = True
    raise KeyboardInterrupt


def interrupted() -> bool:
    """Whether Ctrl-C reached this process (even where its KeyboardInterrupt was swallowed)."""
    return _interrupted
