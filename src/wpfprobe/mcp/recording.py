"""Recording an agent's MCP session as replayable steps (``--record DIR``).

Every action tool call (click, type, keys, select, toggle, focus, wait, set
property) becomes one line of ``DIR/<session>/steps.jsonl`` in the format of
``wpfprobe.core.trace``, the same a scenario or the explorer writes, so
``wpfprobe replay DIR/<session>/steps.jsonl --profile APP`` runs what the
agent did with no agent. Read tools are not steps: they change nothing.

The last steps are also kept in memory (``recent``), recording on or off, so
``wpf_file_ticket`` can attach what led up to a bug.

Recorded to a folder, each action also keeps what the app looked like after it
(``looks.py``): ``trees/step-NNNN.txt``, a shrunk ``screens/step-NNNN.png``,
what else changed (``effects``) and the app's events; ``session.json`` names
the app (and the profile it was launched from), so ``wpfprobe codegen`` can
write a test that starts it again.
"""

from __future__ import annotations

import collections
import datetime as _dt
import json
import os
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wpfprobe.core.effects import MAX_EVENTS, compact_event, effects
from wpfprobe.core.thumbnails import shrink_png
from wpfprobe.core.trace import STEPS_FILE, Source, TraceStep, TraceWriter, action_of, step_from_call

if TYPE_CHECKING:
    from wpfprobe.mcp.looks import Look

SESSION_FILE = "session.json"

RECENT = 50


def new_session_id(prefix: str = "agent") -> str:
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return f"{prefix}-{stamp}-{os.getpid()}-{os.urandom(2).hex()}"


class Recorder:
    """One recorded session: its steps file (when a directory is given) and its last steps."""

    def __init__(
        self,
        directory: Path | None,
        *,
        source: Source = "agent",
        session_id: str | None = None,
        about: Mapping[str, Any] | None = None,
    ) -> None:
        self.session_id = session_id or new_session_id()
        self.directory = directory / self.session_id if directory is not None else None
        #: What ``session.json`` says: the app, and ``target`` (how to start it again) when known.
        self.about = dict(about or {})
        #: The last look at the app (``looks.py``), the tree file it was written to, and the events seen so far.
        self.last_look: Look | None = None
        self._last_tree: str | None = None
        self.events_seq = 0
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
        look: Look | None = None,
    ) -> TraceStep | None:
        """Record one call if it is an action; never raises (a recording problem must not fail the call).

        ``look``: the app after the call (recorded to a folder only): its trees, screenshot and events.
        """
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
            if look is not None and self.directory is not None:
                step = self._with_look(step, look, structured)
            self.recent.append(step)
            if self.directory is not None:
                with self._lock:
                    if self._writer is None:
                        self._writer = TraceWriter(self.directory / STEPS_FILE)
                        self._write_about()
                    writer = self._writer
                writer.write(step)
            return step
        except Exception:
            import logging  # noqa: PLC0415

            logging.getLogger("wpfprobe.record").warning("could not record a step", exc_info=True)
            return None

    def start_look(self, look: Look) -> None:
        """The look before the session's first action: what its first step starts from."""
        self.last_look = look
        if look.next_seq is not None:
            self.events_seq = look.next_seq
        if self.directory is not None:
            self._last_tree = self._write_text("trees/start.txt", look.text)

    def _with_look(self, step: TraceStep, look: Look, structured: Mapping[str, Any] | None) -> TraceStep:
        name = f"step-{step.seq:04d}"
        update: dict[str, Any] = {"tree": self._write_text(f"trees/{name}.txt", look.text)}
        if self._last_tree is not None:
            update["tree_before"] = self._last_tree
        if look.png is not None:
            update["screenshot"] = self._write_bytes(f"screens/{name}.png", shrink_png(look.png))
        node = (structured or {}).get("node")
        target = str(node.get("nodeId")) if isinstance(node, dict) and node.get("nodeId") else None
        if self.last_look is not None:
            changed = effects(self.last_look.trees, look.trees, target=target)
            if changed:
                update["effects"] = changed
        if look.events:
            update["events"] = [compact_event(e) for e in look.events[:MAX_EVENTS]]
        if look.next_seq is not None:
            self.events_seq = look.next_seq
        self.last_look = look
        self._last_tree = update["tree"]
        return step.model_copy(update=update)

    def _write_text(self, relative: str, text: str) -> str:
        return self._write_bytes(relative, (text + "\n").encode("utf-8"))

    def _write_bytes(self, relative: str, data: bytes) -> str:
        assert self.directory is not None
        path = self.directory / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return relative

    def _write_about(self) -> None:
        if self.directory is not None and self.about:
            text = json.dumps({"sessionId": self.session_id, **self.about}, indent=2, ensure_ascii=False)
            self._write_text(SESSION_FILE, text)

    def close(self) -> None:
        with self._lock:
            if self._writer is not None:
                self._writer.close()
