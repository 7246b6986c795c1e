"""Recording an agent's MCP session as replayable steps (``--record DIR``).

Every action tool call (click, type, keys, select, toggle, focus, wait, set
property) becomes one line of ``DIR/<session>/steps.jsonl`` in the format of
``wpfprobe.core.trace``, the same a scenario or the explorer writes, so
``wpfprobe replay DIR/<session>/steps.jsonl --profile APP`` runs what the
agent did with no agent. Read tools are not steps: they change nothing.

The last steps are also kept in memory (``recent``), recording on or off, so
``wpf_file_ticket`` can attach what led up to a bug.
"""

from __future__ import annotations

import collections
import datetime as _dt
import os
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from wpfprobe.core.trace import STEPS_FILE, Source, TraceStep, TraceWriter, action_of, step_from_call

RECENT = 50


def new_session_id(prefix: str = "agent") -> str:
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return f"{prefix}-{stamp}-{os.getpid()}-{os.urandom(2).hex()}"


class Recorder:
    """One recorded session: its steps file (when a directory is given) and its last steps."""

    def __init__(self, directory: Path | None, *, source: Source = "agent", session_id: str | None = None) -> None:
        self.session_id = session_id or new_session_id()
        self.directory = directory / self.session_id if directory is not None else None
        self._source: Source = source
        self._writer: TraceWriter | None = None
        self._lock = threading.Lock()
        self._started = time.monotonic()
        self._seq = 0
        self.recent: collections.deque[TraceStep] = collections.deque(maxlen=RECENT)

    @property
    def steps_path(self) -> Path | None:
        return self.directory / STEPS_FILE if self.directory is not None else None

    def begin(self) -> tuple[_dt.datetime, float]:
        """Call before the tool runs: (wall clock, monotonic) for ``record``."""
        return _dt.datetime.now(_dt.timezone.utc), time.monotonic()

    def record(
        self,
        tool: str,
        arguments: Mapping[str, Any],
        *,
        structured: Mapping[str, Any] | None,
        error: Mapping[str, Any] | None,
        began: tuple[_dt.datetime, float],
    ) -> TraceStep | None:
        """Record one call if it is an action; never raises (a recording problem must not fail the call)."""
        if action_of(tool) is None:
            return None
        try:
            wall, mono = began
            with self._lock:
                self._seq += 1
                seq = self._seq
            step = step_from_call(
                tool, arguments, structured=structured, error=error, started=wall,
                offset_ms=int((mono - self._started) * 1000), duration_ms=int((time.monotonic() - mono) * 1000),
                seq=seq, source=self._source,
            )  # fmt: skip
            if step is None:
                return None
            self.recent.append(step)
            if self.directory is not None:
                with self._lock:
                    if self._writer is None:
                        self._writer = TraceWriter(self.directory / STEPS_FILE)
                    writer = self._writer
                writer.write(step)
            return step
        except Exception:
            import logging  # noqa: PLC0415

            logging.getLogger("wpfprobe.record").warning("could not record a step", exc_info=True)
            return None

    def close(self) -> None:
        with self._lock:
            if self._writer is not None:
                self._writer.close()
