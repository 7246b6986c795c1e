"""Traces: what a run keeps of each step so a person can look at it afterwards (``--trace``).

Every run already keeps its steps, the element tree after each step and its
log (``artifacts.py``). With tracing on, the runner also takes a screenshot at
every step, shrunk so that a trace of a few hundred steps stays a few
megabytes; a failing step's screenshot stays full size (it is evidence). Each
step also records what it started from (the tree before), what else it
changed (``core/effects.py``) and the app's events during it. At the end,
the audit entries of the apps the run started are copied beside the steps.
``trace_view`` turns the folder into one HTML page.

Modes, as Playwright names them: ``on`` keeps everything; ``retain-on-failure``
takes the screenshots but removes them from a run that passed; ``off`` keeps
screenshots only of failures.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from wpfprobe.core.effects import MAX_EVENTS, compact_event, effects
from wpfprobe.core.thumbnails import shrink_png
from wpfprobe.core.trace import StepEffect

TraceMode = Literal["on", "retain-on-failure", "off"]
TRACE_MODES: tuple[TraceMode, ...] = ("on", "retain-on-failure", "off")
AUDIT_FILE = "audit.jsonl"
#: Audit entries copied per run at most.
MAX_AUDIT = 10_000


def step_extras(
    before: Sequence[Mapping[str, Any]] | None,
    after: Sequence[Mapping[str, Any]] | None,
    *,
    target: str | None,
    events: Iterable[Mapping[str, Any]] | None,
) -> dict[str, Any]:
    """What a traced step adds to its record: the effects (trees before and after compared) and its events."""
    out: dict[str, Any] = {}
    if before is not None and after is not None:
        found: list[StepEffect] = effects(before, after, target=target)
        if found:
            out["effects"] = found
    kept = [compact_event(e) for e in (events or []) if isinstance(e, Mapping)][:MAX_EVENTS]
    if kept:
        out["events"] = kept
    return out


def node_id_of(structured: Mapping[str, Any] | None) -> str | None:
    node = structured.get("node") if structured else None
    return str(node["nodeId"]) if isinstance(node, Mapping) and node.get("nodeId") else None


def finish(session_path: Path, mode: TraceMode, *, passed: bool) -> None:
    """``retain-on-failure``: a run that passed keeps no screenshots."""
    if mode == "retain-on-failure" and passed:
        screens = session_path / "screens"
        if screens.is_dir():
            shutil.rmtree(screens, ignore_errors=True)
            screens.mkdir(exist_ok=True)


def copy_audit(session_path: Path, apps: Sequence[tuple[str, str]]) -> int:
    """Copy the audit entries that the apps (app name, app id) wrote into the session folder; how many.

    An app's probe appends to ``$WPFPROBE_HOME/audit/<app name>.jsonl``; the
    entries of this run's apps are the lines with their app ids. Nothing is
    copied (and nothing fails) when the app wrote no log.
    """
    from wpfprobe.audit._files import default_log_path  # noqa: PLC0415 - the log's place is the audit layer's

    by_log: dict[Path, set[str]] = {}
    for name, app_id in apps:
        by_log.setdefault(default_log_path(name), set()).add(app_id)
    kept: list[str] = []
    for path, ids in by_log.items():
        try:
            with path.open(encoding="utf-8") as lines:
                for line in lines:
                    try:
                        entry = json.loads(line)
                    except ValueError:
                        continue
                    if isinstance(entry, dict) and entry.get("app") in ids:
                        kept.append(line.rstrip("\n"))
                        if len(kept) >= MAX_AUDIT:
                            break
        except OSError:
            continue
    if kept:
        (session_path / AUDIT_FILE).write_text("\n".join(kept) + "\n", encoding="utf-8")
    return len(kept)


__all__ = [
    "AUDIT_FILE",
    "TRACE_MODES",
    "TraceMode",
    "copy_audit",
    "finish",
    "node_id_of",
    "shrink_png",
    "step_extras",
]
