"""Progress notifications for one broker call, so a client's idle timeout does not cut a long one.

A client that sends a ``progressToken`` with ``tools/call`` gets ``notifications/progress``
at least every ``PROGRESS_INTERVAL`` seconds while the call runs: the app's own progress
(a ``wpf_wait_for`` says what it waits for and what it saw last) relayed as it comes,
and the broker's heartbeat in between (a launch, a scenario, an app's own tool that says
nothing). The broker numbers them itself, in seconds since the call began, so the values
only ever increase whoever spoke last.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

log = logging.getLogger("wpfprobe.broker")

PROGRESS_INTERVAL = 1.0
"""Longest gap between two progress notifications of a running call."""

ProgressSend = Callable[[float, "float | None", "str | None"], Awaitable[None]]
"""How a notification reaches the client: ``send(progress, total, message)``."""

T = TypeVar("T")


class Progress:
    """The progress notifications of one call (none when the client did not ask for them)."""

    def __init__(self, send: ProgressSend | None, *, what: str, interval: float = PROGRESS_INTERVAL) -> None:
        self._send = send
        self._what = what
        self._interval = interval
        self._started = time.monotonic()
        self._last_value = 0.0
        self._last_sent = self._started
        self._note: str | None = None
        self._lock = asyncio.Lock()

    @property
    def wanted(self) -> bool:
        return self._send is not None

    def note(self, text: str) -> None:
        """What the call is doing now; said in the next notification."""
        self._note = text

    async def relay(self, progress: float, total: float | None, message: str | None) -> None:
        """An app's own progress notification for the call: its message is passed on at once
        (its numbers are the app's clock; the broker's keep counting from the call's start)."""
        if message:
            self._note = message
        await self._emit()

    async def run(self, work: Awaitable[T]) -> T:
        """Await ``work`` with the heartbeat going; the work runs in the caller's own task,
        so cancelling the caller cancels it (and, for a forwarded call, the app's call)."""
        if self._send is None:
            return await work
        beat = asyncio.ensure_future(self._heartbeat())
        try:
            return await work
        finally:
            beat.cancel()

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(max(self._last_sent + self._interval - time.monotonic(), 0.05))
            if time.monotonic() - self._last_sent >= self._interval * 0.95:
                await self._emit()

    async def _emit(self) -> None:
        send = self._send
        if send is None:
            return
        async with self._lock:
            now = time.monotonic()
            elapsed = now - self._started
            # MCP wants each notification's progress above the last one's.
            value = max(round(elapsed, 3), round(self._last_value + 0.001, 3))
            self._last_value = value
            self._last_sent = now
            message = self._note or f"{self._what}: {elapsed:.0f} s"
            with contextlib.suppress(Exception):  # a client that went away: the call's answer fails too
                await send(value, None, message)
