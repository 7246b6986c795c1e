"""Reading a session folder or a ticket into the page's data, and writing the page.

A session folder (``<artifacts>/sessions/<id>/``, or a recorded agent session
``DIR/<session>/``) has ``steps.jsonl``, ``trees/``, ``screens/``,
``runner.log`` and, when the run wrote them, ``audit.jsonl`` and
``session.json``; its failure comes from the tickets written for that session
(``<artifacts>/tickets/<id>/``), else from the steps. A ticket folder has
``ticket.json``, ``repro.actions.json``, ``snapshots/after-step-NN.txt``,
``screens/step-NN.png`` and the rest of SPEC section 9's layout.
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from wpfprobe.core.errors import InvalidArgumentError
from wpfprobe.core.trace import STEPS_FILE, TraceStep, load_trace
from wpfprobe.testkit import describe
from wpfprobe.testkit.tracing import AUDIT_FILE

HTML_FILE = "trace.html"
#: A ticket's own data (tickets.py writes it; read here as plain JSON, so tickets can write this page).
TICKET_FILE = "ticket.json"
#: An audit entry belongs to a step when written from its start to this long after its end.
AUDIT_SLACK_MS = 250
MAX_LOG = 200_000
MAX_TREE = 400_000


@dataclass
class TraceData:
    """Everything the page shows, as plain data (``page()`` is what goes into the HTML)."""

    title: str
    kind: Literal["session", "ticket"]
    folder: Path
    steps: list[dict[str, Any]] = field(default_factory=list)
    trees: dict[str, str] = field(default_factory=dict)
    images: dict[str, str] = field(default_factory=dict)
    failure: dict[str, Any] | None = None
    fail_index: int | None = None
    ticket: dict[str, Any] | None = None
    audit: list[dict[str, Any]] = field(default_factory=list)
    log: str = ""
    attachments: list[dict[str, str]] = field(default_factory=list)
    about: dict[str, Any] = field(default_factory=dict)

    def page(self) -> dict[str, Any]:
        return {
            "title": self.title, "kind": self.kind, "folder": str(self.folder), "steps": self.steps,
            "trees": self.trees, "images": self.images, "failure": self.failure, "failIndex": self.fail_index,
            "ticket": self.ticket, "audit": self.audit, "log": self.log, "attachments": self.attachments,
            "about": self.about,
        }  # fmt: skip


def load(folder: Path) -> TraceData:
    """A session folder, a recording folder with one session in it, or a ticket folder."""
    folder = Path(folder)
    if (folder / TICKET_FILE).is_file():
        return _ticket(folder)
    if (folder / STEPS_FILE).is_file():
        return _session(folder)
    inner = sorted(p.parent for p in folder.glob(f"*/{STEPS_FILE}")) if folder.is_dir() else []
    if len(inner) == 1:
        return _session(inner[0])
    more = f" ({len(inner)} sessions in it: name one)" if len(inner) > 1 else ""
    raise InvalidArgumentError(
        f"{folder} is neither a session folder (with {STEPS_FILE}) nor a ticket (with {TICKET_FILE}){more}.",
        suggestion="Give <artifacts>/sessions/<id>, a ticket's folder, or DIR/<session> of a --record DIR.",
    )


def render(data: TraceData) -> str:
    template = resources.files("wpfprobe.testkit.trace_view").joinpath("template.html").read_text(encoding="utf-8")
    payload = json.dumps(data.page(), ensure_ascii=False, separators=(",", ":"))
    # Inside <script> only "</" could end the block; escaping <, > and & keeps any text inert.
    payload = payload.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    payload = payload.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return template.replace("{{title}}", html.escape(data.title)).replace("/*@TRACE@*/null", payload)


def write_html(folder: Path, output: Path | None = None) -> Path:
    """Write the page for ``folder`` (default: ``trace.html`` inside it); its path."""
    data = load(folder)
    target = output or (data.folder / HTML_FILE)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render(data), encoding="utf-8")
    return target


# -- a session folder ---------------------------------------------------------------------------


def _session(folder: Path) -> TraceData:
    document = load_trace(folder / STEPS_FILE)
    about = _json(folder / "session.json")
    data = TraceData(title=f"{folder.name}", kind="session", folder=folder, about=about)
    for index, step in enumerate(document.steps):
        data.steps.append(_step(data, index, step, after=step.tree, before=step.tree_before, shot=step.screenshot))
    _fill_missing_befores(data)
    tickets = sorted((folder.parent.parent / "tickets" / folder.name).glob(f"TICKET-*/{TICKET_FILE}"))
    ticket = _json(tickets[-1]) if tickets else {}
    if ticket:
        data.ticket = _ticket_summary(ticket)
        data.failure = _failure_of(ticket)
        data.title = str(ticket.get("title") or data.title)
    else:
        data.failure = _failure_from_steps(document.steps)
    data.fail_index = _fail_index(document.steps, data.failure)
    data.log = _text(folder / "runner.log", MAX_LOG)
    _audit(data, folder / AUDIT_FILE)
    return data


# -- a ticket folder ----------------------------------------------------------------------------


def _ticket(folder: Path) -> TraceData:
    ticket = _json(folder / TICKET_FILE)
    if not ticket.get("id"):
        raise InvalidArgumentError(f"{folder / TICKET_FILE} is not a ticket.", suggestion="Give a ticket's folder.")
    document = load_trace(folder / "repro.actions.json")
    data = TraceData(title=str(ticket.get("title") or folder.name), kind="ticket", folder=folder)
    for index, step in enumerate(document.steps):
        number = f"{index + 1:02d}"
        before = "snapshots/before-step-01.txt" if index == 0 else None
        data.steps.append(
            _step(
                data, index, step, after=f"snapshots/after-step-{number}.txt", before=before,
                shot=f"screens/step-{number}.png",
            )
        )  # fmt: skip
    _fill_missing_befores(data)
    data.ticket = _ticket_summary(ticket)
    data.failure = _failure_of(ticket)
    data.fail_index = _fail_index(document.steps, data.failure)
    data.log = _text(folder / "runner.log", MAX_LOG)
    for shot in sorted((folder / "screens").glob("*.png")):
        key = None if shot.stem.startswith("step-") else _image(data, folder, f"screens/{shot.name}")
        if key is not None:
            data.attachments.append({"name": shot.stem.replace("-", " "), "image": key})
    _audit(data, folder / AUDIT_FILE)
    return data


def _ticket_summary(ticket: dict[str, Any]) -> dict[str, Any]:
    keys = (
        "id",
        "title",
        "summary",
        "kind",
        "signature",
        "expected",
        "actual",
        "reproSteps",
        "hypothesis",
        "environment",
        "flaky",
    )
    out = {k: ticket.get(k) for k in keys}
    rate = ticket.get("reproRate")
    out["reproRate"] = f"{rate.get('reproduced')}/{rate.get('attempts')}" if isinstance(rate, dict) else None
    return out


def _failure_of(ticket: dict[str, Any]) -> dict[str, Any] | None:
    failure = ticket.get("failure")
    return {k: v for k, v in failure.items() if v is not None} if isinstance(failure, dict) else None


# -- steps --------------------------------------------------------------------------------------


def _step(
    data: TraceData, index: int, step: TraceStep, *, after: str | None, before: str | None, shot: str | None
) -> dict[str, Any]:
    raw = step.to_json_dict()
    target = step.target
    out: dict[str, Any] = {
        "index": index,
        "seq": step.seq,
        "title": describe.describe_step(step) if step.action != "check" else (step.note or "Check"),
        "action": step.action,
        "outcome": step.outcome,
        "durationMs": step.duration_ms,
        "offsetMs": step.offset_ms,
        "at": step.at,
        "args": step.args,
        "target": target.to_json_dict() if target is not None else None,
        "usedLocator": step.used_locator,
        "failure": step.failure,
        "treeAfter": _tree(data, data.folder, after),
        "treeBefore": _tree(data, data.folder, before),
        "shot": _image(data, data.folder, shot),
    }
    for key in (
        "error", "appError", "changed", "before", "after", "effects", "events", "openedWindows", "closedWindows",
        "expect", "note", "redacted", "completed",
    ):  # fmt: skip
        if key in raw:
            out[key] = raw[key]
    return out


def _fill_missing_befores(data: TraceData) -> None:
    """A step's tree before is the one the step before it ended with, when it was not kept on its own."""
    previous: str | None = None
    for step in data.steps:
        if step["treeBefore"] is None:
            step["treeBefore"] = previous
        previous = step["treeAfter"] or previous


def _tree(data: TraceData, folder: Path, relative: str | None) -> str | None:
    if not relative:
        return None
    if relative not in data.trees:
        text = _text(folder / relative, MAX_TREE)
        if not text:
            return None
        data.trees[relative] = text
    return relative


def _image(data: TraceData, folder: Path, relative: str | None) -> str | None:
    if not relative:
        return None
    if relative not in data.images:
        path = folder / relative
        try:
            png = path.read_bytes()
        except OSError:
            return None
        data.images[relative] = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
    return relative


def _failure_from_steps(steps: list[TraceStep]) -> dict[str, Any] | None:
    for step in steps:
        if step.failure:
            message = step.error.message if step.error else (step.app_error.message if step.app_error else "")
            stack = step.app_error.stack if step.app_error else None
            found: dict[str, Any] = {"signature": step.failure, "kind": step.failure.split("|")[0], "step": step.seq}
            found["message"] = message or step.failure
            if stack:
                found["stack"] = stack
            return found
    return None


def _fail_index(steps: list[TraceStep], failure: dict[str, Any] | None) -> int | None:
    if failure is None:
        return None
    seq = failure.get("step")
    for index, step in enumerate(steps):
        if seq is not None and step.seq == seq:
            return index
    for index, step in enumerate(steps):
        if step.failure:
            return index
    return len(steps) - 1 if steps else None


# -- audit entries ------------------------------------------------------------------------------


def _audit(data: TraceData, path: Path) -> None:
    text = _text(path, 5_000_000)
    entries = []
    for line in text.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            entries.append(
                {k: entry.get(k) for k in ("seq", "time", "app", "tool", "target", "action", "property", "outcome")}
            )
    data.audit = entries
    moments = [_moment(e.get("time")) for e in entries]
    starts = [_moment(step.get("at")) for step in data.steps]
    for index, step in enumerate(data.steps):
        start = starts[index]
        if start is None:
            step["audit"] = []
            continue
        end = start + _dt.timedelta(milliseconds=int(step.get("durationMs") or 0) + AUDIT_SLACK_MS)
        following = next((s for s in starts[index + 1 :] if s is not None), None)
        if following is not None:
            end = min(end, following)  # the next step's entries are its own
        step["audit"] = [i for i, at in enumerate(moments) if at is not None and start <= at < end]


def _moment(value: Any) -> _dt.datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=_dt.timezone.utc)


# -- files --------------------------------------------------------------------------------------


def _text(path: Path, limit: int) -> str:
    try:
        with path.open(encoding="utf-8", errors="replace") as fh:
            return fh.read(limit)
    except OSError:
        return ""


def _json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


__all__ = ["HTML_FILE", "TraceData", "load", "render", "write_html"]
