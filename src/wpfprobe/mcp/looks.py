"""Looking at an app around a recorded action: its windows' trees, a screenshot, its events.

A recorded agent session (``wpfprobe mcp --record DIR``) is what ``codegen``
turns into a test and ``show-trace`` into a page, so each action is recorded
with what the app looked like after it: the element tree of every visible
window (what else the action changed, compared with the look before), a
shrunk screenshot and the app's events since the last look. The first action
of a session also gets a look before it; later ones start from the previous
look. Reads cost nothing extra: only actions are looked around, and only when
the session is recorded to a folder.

The calls go through the same MCP tools an agent uses (``call`` is the
broker's client session to the app), so nothing here knows a toolkit.
"""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from wpfprobe.core.trace import action_of

Call = Callable[[str, dict[str, Any]], Awaitable[Any]]
TREE_DEPTH = 10
LOOK_TIMEOUT = 30.0


@dataclass
class Look:
    """The app as it looked: window trees (JSON, active window first), their text, a PNG, new events."""

    trees: list[dict[str, Any]] = field(default_factory=list)
    text: str = ""
    png: bytes | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    next_seq: int | None = None


def _parts(result: Any) -> tuple[bool, dict[str, Any], str, bytes | None]:
    structured = result.structured_content if isinstance(getattr(result, "structured_content", None), dict) else {}
    texts: list[str] = []
    png = None
    for block in getattr(result, "content", None) or []:
        kind = getattr(block, "type", None)
        if kind == "text":
            texts.append(str(block.text))
        elif kind == "image" and getattr(block, "mime_type", "") == "image/png":
            png = base64.b64decode(block.data)
    return not bool(getattr(result, "is_error", False)), structured, "\n".join(texts), png


async def look(call: Call, *, screenshot: bool, since_seq: int | None) -> Look:
    """One look at the app; what cannot be read is left out (a look never fails the call it follows)."""
    seen = Look()
    ok, windows, _, _ = _parts(await call("wpf_get_windows", {}))
    listed = [w for w in windows.get("windows") or [] if isinstance(w, dict)] if ok else []
    listed.sort(key=lambda w: not w.get("active"))
    texts = []
    for window in listed:
        args = {"nodeId": window.get("nodeId"), "maxDepth": TREE_DEPTH, "format": "text"}
        ok, tree, text, _ = _parts(await call("wpf_get_visual_tree", args))
        if ok:
            seen.trees.append(tree)
            texts.append(text)
    seen.text = "\n".join(texts)
    if screenshot:
        ok, _, _, png = _parts(await call("wpf_capture_screenshot", {}))
        seen.png = png if ok else None
    if since_seq is not None:
        ok, events, _, _ = _parts(await call("wpf_get_app_events", {"sinceSeq": since_seq}))
        if ok:
            seen.events = [e for e in events.get("events") or [] if isinstance(e, dict)]
            seen.next_seq = int(events.get("nextSeq") or since_seq)
    return seen


def wanted(recorder: Any, tool: str) -> bool:
    """Whether this call is an action recorded to a folder (the only calls looked around)."""
    return getattr(recorder, "directory", None) is not None and action_of(tool) is not None


async def before(recorder: Any, call: Call, tool: str) -> None:
    """The first action of a session: a look before it (later actions start from the last look)."""
    if wanted(recorder, tool) and recorder.last_look is None:
        try:
            recorder.start_look(await look(call, screenshot=True, since_seq=0))
        except Exception:  # noqa: BLE001 - a look is evidence, never a reason for the call to fail
            return


async def after(recorder: Any, call: Call, tool: str) -> Look | None:
    """A look after an action (None for a call that is not one, or when it could not be taken)."""
    if not wanted(recorder, tool):
        return None
    try:
        return await look(call, screenshot=True, since_seq=recorder.events_seq)
    except Exception:  # noqa: BLE001 - a look is evidence, never a reason for the call to fail
        return None


__all__ = ["Look", "after", "before", "look", "wanted"]
