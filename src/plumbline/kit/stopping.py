"""What a server does the moment it is asked to stop (SIGTERM, SIGINT), before it waits for
its open connections to end: uvicorn lets each request in flight finish, but an open stream
(Server-Sent Events) never finishes by itself, so the modules that hold some end them here
(``on_stopping``). The handlers chain to the server's own, which still decides how it stops."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

log = logging.getLogger("plumbline.server")

SIGNALS = (signal.SIGTERM, signal.SIGINT)
_callbacks: list[Callable[[], None]] = []


def on_stopping(callback: Callable[[], None]) -> None:
    """Call ``callback`` (in the event loop) once the server is asked to stop."""
    if callback not in _callbacks:
        _callbacks.append(callback)


def stopping() -> None:
    """The server is stopping: run every callback (each once per signal; they are idempotent)."""
    for callback in _callbacks:
        try:
            callback()
        except Exception:
            log.exception("a stopping callback failed")


@contextlib.contextmanager
def noticed(loop: asyncio.AbstractEventLoop) -> Iterator[None]:
    """While the app runs: the stop signals also call ``stopping`` in ``loop``. Outside the main
    thread (an app run by a test client) signals cannot be handled, and nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous: dict[int, Any] = {}

    def handle(sig: int, frame: FrameType | None) -> None:
        loop.call_soon_threadsafe(stopping)
        handler = previous.get(sig)
        if callable(handler):
            handler(sig, frame)
        elif handler == signal.SIG_DFL:  # no server's handler: the signal does what it does
            signal.signal(sig, signal.SIG_DFL)
            signal.raise_signal(sig)

    for sig in SIGNALS:
        previous[sig] = signal.signal(sig, handle)
    try:
        yield
    finally:
        for number, handler in previous.items():
            if signal.getsignal(number) is handle:
                signal.signal(number, handler)
