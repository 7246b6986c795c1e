"""What happened in the app between two looks: exceptions that escaped its handlers, windows that came and went.

One store per process, numbered in order (``seq``), bounded (the oldest go
first; a reader is told how many it missed). The toolkit hooks in
``wpfprobe_clr`` add the exceptions (WinForms ``Application.ThreadException``
and ``AppDomain.UnhandledException``, WPF ``Dispatcher.UnhandledException``),
the engine adds the exceptions an action's own handler raised and the windows
it sees open and close, and ``wpf_get_app_events {sinceSeq}`` reads them. A
Python thread's uncaught exception is recorded too (``threading.excepthook``,
chained: the app's own hook still runs).

An exception that ends the process cannot be read over MCP afterwards: when
``WPFPROBE_EVENTS_FILE`` is set (the test kit sets it for the apps it starts),
every event is also appended there as one JSON line, flushed at once, so the
test kit reads what killed the app after it died.

Plain Python: no toolkit, no CLR.
"""

from __future__ import annotations

import collections
import datetime as _dt
import json
import os
import threading
import traceback
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

EVENTS_FILE_VARIABLE = "WPFPROBE_EVENTS_FILE"
CAPACITY = 500
MAX_MESSAGE = 2000
MAX_STACK = 8000

EventKind = Literal["exception", "window-opened", "window-closed"]


class AppEvent(BaseModel):
    """One event. ``source`` says where an exception was caught: thread-exception (WinForms'
    ThreadException), dispatcher (WPF's Dispatcher.UnhandledException), appdomain (an
    unhandled exception, usually fatal: ``terminating``), action (a handler the probe's own
    input ran), python-thread (a Python thread's uncaught exception)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True)

    seq: int
    kind: EventKind
    time: str
    source: str | None = None
    type: str | None = None
    message: str | None = None
    stack: str | None = None
    terminating: bool | None = None
    handled: bool | None = None
    """For an exception: whether the probe marked it handled (only when started for testing)."""
    window: dict[str, Any] | None = None
    """For a window event: nodeId, title, type and locator."""


class AppEvents(BaseModel):
    """A read of the store: events after ``sinceSeq``, oldest first."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True)

    events: list[AppEvent]
    next_seq: int = Field(description="Pass as sinceSeq next time.")
    dropped: int = Field(default=0, description="Events after sinceSeq that the bounded store no longer holds.")
    hooks: list[str] = Field(default_factory=list, description="The exception hooks installed in this app.")
    ui_responsive: bool = Field(
        default=True, description="False when the UI thread did not answer in time (window events are then missing)."
    )
    windows: list[dict[str, Any]] | None = Field(default=None, description="The visible top-level windows now.")


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class EventStore:
    """Thread-safe, bounded, numbered; never calls into the app or blocks the UI thread for long."""

    def __init__(self, capacity: int = CAPACITY) -> None:
        self._lock = threading.Lock()
        self._events: collections.deque[AppEvent] = collections.deque(maxlen=capacity)
        self._seq = 0
        self.hooks: list[str] = []

    def add(self, kind: EventKind, **fields: Any) -> AppEvent:
        for key, limit in (("message", MAX_MESSAGE), ("stack", MAX_STACK)):
            value = fields.get(key)
            if isinstance(value, str) and len(value) > limit:
                fields[key] = value[:limit] + "…"
        with self._lock:
            self._seq += 1
            event = AppEvent(seq=self._seq, kind=kind, time=_now(), **fields)
            self._events.append(event)
        _append_to_file(event)
        return event

    def since(self, seq: int) -> tuple[list[AppEvent], int, int]:
        """(events after ``seq``, the last seq, how many after ``seq`` were dropped)."""
        with self._lock:
            events = [e for e in self._events if e.seq > seq]
            first_kept = self._events[0].seq if self._events else self._seq + 1
            dropped = max(0, first_kept - seq - 1) if seq < self._seq else 0
            return events, self._seq, dropped

    def add_hook(self, name: str) -> bool:
        """Note a hook as installed; False when it already was (install once per process)."""
        with self._lock:
            if name in self.hooks:
                return False
            self.hooks.append(name)
            return True

    def forget_hook(self, name: str) -> None:
        """Note a hook as taken off (the probe stopped): a later attach installs it again."""
        with self._lock:
            if name in self.hooks:
                self.hooks.remove(name)

    def clear(self) -> None:
        with self._lock:
            self._events.clear()


_STORE = EventStore()
_file_lock = threading.Lock()


def store() -> EventStore:
    """The process's store."""
    return _STORE


def record_exception(
    source: str, type_name: str, message: str, stack: str | None, *, terminating: bool | None = None,
    handled: bool | None = None,
) -> AppEvent:  # fmt: skip
    return _STORE.add(
        "exception", source=source, type=type_name, message=message, stack=stack, terminating=terminating,
        handled=handled,
    )  # fmt: skip


def python_stack(exc: BaseException) -> str:
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))


def _append_to_file(event: AppEvent) -> None:
    path = os.environ.get(EVENTS_FILE_VARIABLE)
    if not path:
        return
    line = json.dumps(event.model_dump(mode="json", by_alias=True, exclude_none=True), ensure_ascii=False)
    try:
        with _file_lock:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, (line + "\n").encode("utf-8"))
            finally:
                os.close(fd)
    except OSError:
        pass  # the event is still in the store; the file is a help for after a crash, not the record


def install_python_thread_hook() -> bool:
    """Record a Python thread's uncaught exception, then run the hook that was there; False if
    it was installed already."""
    global _installed
    if not _STORE.add_hook("python-thread"):
        return False
    previous = threading.excepthook

    def hook(args: threading.ExceptHookArgs) -> None:
        if args.exc_type is not SystemExit and args.exc_value is not None:
            try:
                record_exception(
                    "python-thread", args.exc_type.__name__, str(args.exc_value), python_stack(args.exc_value)
                )
            except Exception:  # noqa: BLE001, S110 - recording must never change what the app's hook does
                pass
        previous(args)

    threading.excepthook = hook
    _installed = (hook, previous)
    return True


_installed: tuple[Any, Any] | None = None
"""(the hook installed, the one it replaced)."""


def remove_python_thread_hook() -> None:
    """Put back the hook that was there before ``install_python_thread_hook`` (the probe stopped).
    If the app has set one of its own since, which may call ours, ours cannot come out of that
    chain: it stays (recording, and passing on), and a later attach adds no second one."""
    global _installed
    if _installed is not None and threading.excepthook is _installed[0]:
        threading.excepthook = _installed[1]
        _installed = None
        _STORE.forget_hook("python-thread")


def read_events_file(path: str | os.PathLike[str]) -> list[AppEvent]:
    """The events an app wrote to its events file (lines that do not parse are skipped)."""
    out: list[AppEvent] = []
    try:
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                try:
                    out.append(AppEvent.model_validate_json(line))
                except ValueError:
                    continue
    except OSError:
        return []
    return out


__all__ = [
    "EVENTS_FILE_VARIABLE",
    "AppEvent",
    "AppEvents",
    "EventStore",
    "install_python_thread_hook",
    "python_stack",
    "read_events_file",
    "record_exception",
    "remove_python_thread_hook",
    "store",
]
