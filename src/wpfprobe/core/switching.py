"""The interpreter's switch interval, kept short while the probe runs Python beside the app's.

A thread that wants the GIL asks its holder to let go only after ``sys.getswitchinterval()``
(5 ms by default), and may lose the race to another waiting thread and wait again. A pythonnet
app's handlers are Python, so each one the UI thread runs waits so for whatever Python the probe
runs on its own threads: the start-up, a read's answer made and sent. With 1 ms instead, the
Python heartbeat's longest wait during a 5,000-node ``tree()`` fell from 28-47 ms to 13-23 ms,
and the UI thread's longest hold from 19-27 ms to 10-13 ms (docs/benchmarks.md, "The switch
interval"). One native call (a collection, pythonnet reflecting a class) holds the GIL for its
whole length whatever the interval.

The interval is the process's, so it is shortened while any of the probe's work is under way
(nested and concurrent users share it) and put back when the last ends, unless someone else
changed it meanwhile (the app: theirs is kept). An app's shorter interval is never lengthened.
"""

from __future__ import annotations

import math
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["SWITCH_INTERVAL", "Switches", "short_switches", "switches"]

SWITCH_INTERVAL = 0.001
"""Seconds: the interpreter's switch interval while the probe works (``sys.setswitchinterval``)."""


class Switches:
    """The process's one shortened switch interval, counted: ``enter`` and ``exit`` in pairs.

    Its lock is held for a few microseconds, and only by the start-up and, inside the collector's
    deferral (``engine.base``), at its first entry and last exit."""

    def __init__(self, interval: float = SWITCH_INTERVAL) -> None:
        self._interval = interval
        self._lock = threading.Lock()
        self._users = 0
        self._restore: tuple[float, float] | None = None  # (the interval before, ours as set)

    def enter(self) -> None:
        with self._lock:
            self._users += 1
            if self._users > 1:
                return
            before = sys.getswitchinterval()
            if before <= self._interval:  # short already (set again, it would drift by a microsecond)
                self._restore = None
                return
            sys.setswitchinterval(self._interval)
            self._restore = (before, sys.getswitchinterval())

    def exit(self) -> None:
        with self._lock:
            self._users -= 1
            if self._users > 0 or self._restore is None:
                return
            before, ours = self._restore
            self._restore = None
            if math.isclose(sys.getswitchinterval(), ours):
                sys.setswitchinterval(before)


switches = Switches()


@contextmanager
def short_switches() -> Iterator[None]:
    """The switch interval at most SWITCH_INTERVAL meanwhile, then as it was (see ``Switches``)."""
    switches.enter()
    try:
        yield
    finally:
        switches.exit()
