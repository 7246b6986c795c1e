"""``wpf_get_app_events``: what happened in the app since a reader last looked.

Exceptions come from the process's store (``wpfprobe.core.app_events``),
where the toolkit hooks and the engine's own actions put them; that part never
needs the UI thread, so a reader learns of an exception even while the UI
thread is stuck. Windows are compared on each read with the ones seen at the
previous read (one short hop): a window that appeared or went away becomes an
event, numbered in the same sequence. If the UI thread does not answer within
``WINDOW_HOP_TIMEOUT`` seconds, the answer says ``uiResponsive: false``: the
test kit's oracle for a UI thread that stopped answering.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from wpfprobe.core import app_events
from wpfprobe.core.errors import AppNotAvailableError, DispatcherBusyError, InvalidArgumentError
from wpfprobe.engine.hop import Hop

if TYPE_CHECKING:
    from wpfprobe.engine.base import EngineBase

WINDOW_HOP_TIMEOUT = 2.0


class WindowWatch:
    """The visible top-level windows at the last read, to report the ones that came and went."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._known: dict[str, dict[str, Any]] | None = None

    def update(self, current: dict[str, dict[str, Any]]) -> None:
        store = app_events.store()
        with self._lock:
            previous = self._known
            self._known = current
        if previous is None:
            return  # the first look sets the baseline: windows open before it were not "opened"
        for node_id, window in current.items():
            if node_id not in previous:
                store.add("window-opened", window=window)
        for node_id, window in previous.items():
            if node_id not in current:
                store.add("window-closed", window=window)


def _visible_windows(h: Hop) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for w in h.adapter.roots():
        node = h.project(w)
        if not node.get("visible"):
            continue
        out[node["nodeId"]] = {
            "nodeId": node["nodeId"],
            "title": node.get("text"),
            "type": node.get("type"),
            "name": node.get("name"),
            "locator": node.get("locator"),
            "active": h.adapter.is_active_window(w),
        }
    return out


def read_app_events(engine: EngineBase, watch: WindowWatch, since_seq: int) -> app_events.AppEvents:
    if isinstance(since_seq, bool) or not isinstance(since_seq, int) or since_seq < 0:
        raise InvalidArgumentError("sinceSeq must be an integer >= 0.", suggestion="Pass nextSeq of the last answer.")
    responsive = True
    windows: dict[str, dict[str, Any]] | None = None
    try:
        timeout = min(engine.settings.ui_timeout, WINDOW_HOP_TIMEOUT)
        windows = engine.on_ui(lambda: _visible_windows(Hop(engine)), timeout=timeout)
    except DispatcherBusyError:
        responsive = False
    except AppNotAvailableError:
        responsive = False
    if windows is not None:
        watch.update(windows)
    store = app_events.store()
    events, last, dropped = store.since(since_seq)
    return app_events.AppEvents(
        events=events,
        next_seq=last,
        dropped=dropped,
        hooks=list(store.hooks),
        ui_responsive=responsive,
        windows=list(windows.values()) if windows is not None else None,
    )
