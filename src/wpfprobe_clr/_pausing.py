"""A thread's pause point: long background work of the probe's gives way to other work at its steps.

``with pausing(pause):`` makes every ``pause_point()`` this thread reaches
meanwhile call ``pause()``; anywhere else a pause point costs an attribute
read. The walk's build (``net/expr.py``'s factories are its steps) waits there
while the probe's calls use the UI thread (``_compiling``). No CLR is needed
to import it.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator

__all__ = ["pause_point", "pausing"]

_thread = threading.local()


def pause_point() -> None:
    pause = getattr(_thread, "pause", None)
    if pause is not None:
        pause()


@contextlib.contextmanager
def pausing(pause: Callable[[], object]) -> Iterator[None]:
    before = getattr(_thread, "pause", None)
    _thread.pause = pause
    try:
        yield
    finally:
        _thread.pause = before
