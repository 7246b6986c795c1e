"""What a running tool call may ask of the client's side: has the call been cancelled, and
what to say in its progress notifications.

A tool's work runs on a worker thread, away from the event loop that hears the
client's ``notifications/cancelled``. The server gives that thread a ``CallControl``
(``controlling``); long loops (``wpf_wait_for``'s polls) call ``check`` between steps
and sleep with ``sleep``, which wakes at once on cancellation, and leave a ``note`` the
server sends as the progress message. Code that runs without a server (the Python API,
the test kit) has no control: ``current()`` is None and nothing changes.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Iterator


class CallCancelled(Exception):
    """The client cancelled the call: stop the work and answer nothing (the server sends no result)."""


class CallControl:
    """One call's cancellation flag and progress note, shared by the server and the worker thread."""

    def __init__(self) -> None:
        self._cancelled = threading.Event()
        self._note: str | None = None

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def cancel(self) -> None:
        self._cancelled.set()

    def check(self) -> None:
        """Raise CallCancelled once the client has cancelled the call."""
        if self._cancelled.is_set():
            raise CallCancelled

    def sleep(self, seconds: float) -> None:
        """Sleep up to ``seconds``; raise CallCancelled as soon as the call is cancelled."""
        if self._cancelled.wait(max(seconds, 0.0)):
            raise CallCancelled

    def note(self, text: str) -> None:
        """What the call is doing now, for its next progress notification."""
        self._note = text

    @property
    def last_note(self) -> str | None:
        return self._note


_current: contextvars.ContextVar[CallControl | None] = contextvars.ContextVar("wpfprobe_call", default=None)


def current() -> CallControl | None:
    """The control of the call this thread works for (None outside a server's tool call)."""
    return _current.get()


@contextlib.contextmanager
def controlling(control: CallControl) -> Iterator[CallControl]:
    """Make ``control`` the current one for the code inside (on this thread)."""
    token = _current.set(control)
    try:
        yield control
    finally:
        _current.reset(token)
