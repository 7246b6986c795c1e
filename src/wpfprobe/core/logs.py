"""Structured logs: JSON lines on the ``wpfprobe`` logger.

Library etiquette: importing or starting wpfprobe installs no handler but the
``NullHandler`` the logging HOWTO asks of a library (``wpfprobe/__init__``),
so an app that never configured logging prints nothing new, not even through
Python's last-resort handler. ``configure()`` (called
by ``wpfprobe run``, the broker and anyone who wants the records) installs one
JSON-lines handler, to stderr or a file.

A record carries the time (ISO-8601, UTC), level, logger, message and pid,
plus the fields a caller passes with ``extra=`` among :data:`FIELDS`. What
never goes into a record: the token, argument values, property values. Our own
log calls pass names, codes and durations only, and an exception is written as
its type and stack frames, never its message (a message can embed a value).
"""

from __future__ import annotations

import datetime as _dt
import json
import logging
import os
import sys
import traceback
from pathlib import Path
from typing import Any, TextIO

from wpfprobe.core.errors import InvalidArgumentError

LOGGER_NAME = "wpfprobe"
FIELDS = ("app", "tool", "durationMs", "outcome")
"""The ``extra=`` keys a record may carry (the broker uses the same ones)."""
LEVEL_VARIABLE = "WPFPROBE_LOG_LEVEL"
FILE_VARIABLE = "WPFPROBE_LOG_FILE"
DEFAULT_LEVEL = "WARNING"
_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")

# The one handler configure() installed, so that a second call replaces it.
_installed: logging.Handler | None = None


class JsonLinesFormatter(logging.Formatter):
    """One JSON object per record, one record per line."""

    def format(self, record: logging.LogRecord) -> str:
        created = _dt.datetime.fromtimestamp(record.created, _dt.timezone.utc)
        entry: dict[str, Any] = {
            "time": created.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
            "pid": record.process,
        }
        for key in FIELDS:
            value = record.__dict__.get(key)
            if value is not None:
                entry[key] = value
        if record.exc_info and record.exc_info[0] is not None:
            exc_type, _, tb = record.exc_info
            entry["exception"] = exc_type.__qualname__
            entry["stack"] = "".join(traceback.format_list(traceback.extract_tb(tb)))
        return json.dumps(entry, ensure_ascii=False, default=str)


def parse_level(level: str | int) -> int:
    """A logging level from a name (any case) or number; InvalidArgumentError otherwise."""
    if isinstance(level, bool):
        raise InvalidArgumentError(f"Invalid log level {level!r}.")
    if isinstance(level, int):
        return level
    name = str(level).strip().upper()
    if name in _LEVELS:
        return int(logging.getLevelName(name))
    raise InvalidArgumentError(f"Invalid log level {level!r}.", suggestion=f"Use one of {', '.join(_LEVELS)}.")


def configure(*, level: str | int | None = None, file: str | os.PathLike[str] | None = None) -> None:
    """Send wpfprobe's records as JSON lines to stderr, or appended to ``file``.

    ``level`` defaults to ``$WPFPROBE_LOG_LEVEL``, else WARNING; ``file`` to
    ``$WPFPROBE_LOG_FILE``, else stderr. Calling again replaces the handler
    (never two). The records stop propagating to the root logger, so an app's
    own logging setup does not print them a second time.
    """
    global _installed
    chosen_level = parse_level(level if level is not None else os.environ.get(LEVEL_VARIABLE) or DEFAULT_LEVEL)
    target = file if file is not None else (os.environ.get(FILE_VARIABLE) or None)
    handler: logging.Handler
    if target is not None:
        path = Path(target)
        path.parent.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(path, mode="a", encoding="utf-8")
    else:
        handler = _StderrHandler()
    handler.setFormatter(JsonLinesFormatter())
    logger = logging.getLogger(LOGGER_NAME)
    if _installed is not None:
        logger.removeHandler(_installed)
        _installed.close()
    logger.addHandler(handler)
    logger.setLevel(chosen_level)
    logger.propagate = False
    _installed = handler


def configure_from_env() -> bool:
    """``configure()`` if ``$WPFPROBE_LOG_LEVEL`` or ``$WPFPROBE_LOG_FILE`` is set and no
    handler is installed yet: how a probe an app starts itself is told to log. True if it did."""
    if _installed is not None or not (os.environ.get(LEVEL_VARIABLE) or os.environ.get(FILE_VARIABLE)):
        return False
    configure()
    return True


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever sys.stderr is at the time of the record (tests and stdio
    servers swap it), not to the stream that was current when configure() ran."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self) -> TextIO:
        return sys.stderr

    @stream.setter
    def stream(self, value: TextIO) -> None:
        pass
