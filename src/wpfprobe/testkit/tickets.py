"""Tickets: one folder per distinct failure, written for the developer who has to fix it.

``<artifacts>/tickets/<session_id>/TICKET-<timestamp>-<shortid>/`` holds
``ticket.md`` (Title, Summary, Repro Steps, Actual Result, Expected Result,
Environment, Evidence, Root Cause Hypothesis), ``ticket.json`` (the same as
data), ``repro.actions.json`` (replayable: ``wpfprobe replay``),
``screens/``, ``snapshots/`` (element trees), ``runner.log`` and ``trace.html`` (the
trace viewer's page for it, ``trace_view``).

A ticket names its failure's signature: ``list_tickets`` groups the tickets of
many runs (shards, CI jobs) by it, so one bug found by eight shards is one
line with eight tickets behind it.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from wpfprobe.core.errors import InvalidArgumentError
from wpfprobe.core.trace import TraceDocument, TraceStep, write_document
from wpfprobe.testkit import describe, oracles
from wpfprobe.testkit.oracles import Failure
from wpfprobe.testkit.tracing import AUDIT_FILE

TICKET_FILE = "ticket.json"


class Evidence(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    kind: str
    path: str
    description: str


class ReproRate(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    reproduced: int
    attempts: int

    def text(self) -> str:
        return f"{self.reproduced}/{self.attempts}"


class Minimization(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    from_steps: int
    to_steps: int
    candidates: int
    seconds: float
    stages: list[str] = Field(default_factory=list)
    complete: bool = True
    """False when the time or try budget ran out before ddmin finished (the repro may be longer than needed)."""


class Ticket(BaseModel):
    """What ``ticket.json`` holds."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    id: str
    title: str
    summary: str
    kind: str
    signature: str
    session_id: str
    created_at: str
    source: str
    repro_steps: list[str]
    actual: str
    expected: str
    environment: dict[str, str]
    evidence: list[Evidence] = Field(default_factory=list)
    hypothesis: list[str] = Field(default_factory=list)
    failure: Failure
    seed: int | None = None
    repro_rate: ReproRate | None = None
    minimization: Minimization | None = None
    flaky: bool = False
    occurrences: int = 1
    """How often this signature was seen in the run that wrote the ticket."""
    path: str | None = Field(default=None, exclude=True)


def new_ticket_id() -> str:
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%S")
    return f"TICKET-{stamp}-{os.urandom(3).hex()}"


def _title(failure: Failure, last: TraceStep | None) -> str:
    where = describe.element_phrase(last) if last is not None else (failure.element or "the app")
    what = failure.exception_type or failure.signature.split("|")[1]
    if failure.kind == "exception":
        return f"{what} when using {where}"
    if failure.kind == "crash":
        return f"The app crashes ({what}) after using {where}"
    if failure.kind == "error-dialog":
        return f"An error dialog opens after using {where}"
    if failure.kind == "hang":
        return f"The UI stops responding after using {where}"
    if failure.kind == "binding-error":
        return f"A binding breaks on {failure.element}"
    if failure.kind == "missing-element":
        return f"{failure.element} is missing"
    if failure.kind in ("expectation", "invariant"):
        return f"Expected {failure.expected}"
    if failure.kind == "reported":
        return failure.message[:300]
    return failure.message[:120]


def _expected(failure: Failure) -> str:
    if failure.expected:
        return failure.expected
    return {
        "exception": "The action completes without an unhandled exception.",
        "crash": "The app keeps running.",
        "error-dialog": "The action completes without the app reporting an error.",
        "hang": "The UI stays responsive.",
        "binding-error": "Every data binding resolves.",
        "missing-element": "The element is there when the step needs it.",
    }.get(failure.kind, "The step succeeds.")


def write_ticket(
    tickets_dir: Path,
    *,
    failure: Failure,
    steps: Sequence[TraceStep],
    session_id: str,
    source: str,
    environment: dict[str, str],
    target: dict[str, Any],
    session_path: Path | None = None,
    seed: int | None = None,
    repro_rate: ReproRate | None = None,
    minimization: Minimization | None = None,
    flaky: bool = False,
    occurrences: int = 1,
    extra_screens: dict[str, bytes] | None = None,
    extra_snapshots: dict[str, str] | None = None,
    log_tail: str = "",
    notes: str | None = None,
) -> Ticket:
    """Write one ticket folder; ``steps`` end with the step that set the failure off."""
    ticket_id = new_ticket_id()
    folder = tickets_dir / ticket_id
    (folder / "screens").mkdir(parents=True, exist_ok=True)
    (folder / "snapshots").mkdir(exist_ok=True)
    evidence: list[Evidence] = []
    last = steps[-1] if steps else None
    # Evidence from the session: the trees before and after the failing step, its screenshots, the log.
    tree_before = tree_after = ""
    if session_path is not None:
        for index, step in enumerate(steps):
            if step.tree:
                source_tree = session_path / step.tree
                if source_tree.exists():
                    name = f"after-step-{index + 1:02d}.txt"
                    shutil.copyfile(source_tree, folder / "snapshots" / name)
                    text = source_tree.read_text(encoding="utf-8")
                    if index == len(steps) - 2:
                        tree_before = text
                    if index == len(steps) - 1:
                        tree_after = text
                        evidence.append(
                            Evidence(
                                kind="tree",
                                path=f"snapshots/{name}",
                                description="The element tree after the failing step.",
                            )
                        )
            if index == len(steps) - 1:
                # What the app showed just before the failing step: after a crash or a hang it is the
                # only screen there is, and the tree before it when no earlier step left one.
                if step.tree_before and (session_path / step.tree_before).exists():
                    name = f"before-step-{index + 1:02d}.txt"
                    shutil.copyfile(session_path / step.tree_before, folder / "snapshots" / name)
                    tree_before = tree_before or (session_path / step.tree_before).read_text(encoding="utf-8")
                    evidence.append(
                        Evidence(
                            kind="tree",
                            path=f"snapshots/{name}",
                            description="The element tree before the failing step.",
                        )
                    )
                if step.screenshot_before and (session_path / step.screenshot_before).exists():
                    name = f"before-step-{index + 1:02d}.png"
                    shutil.copyfile(session_path / step.screenshot_before, folder / "screens" / name)
                    what = f"Just before step {index + 1}, the failing step."
                    evidence.append(Evidence(kind="screenshot", path=f"screens/{name}", description=what))
            if step.screenshot and (session_path / step.screenshot).exists():
                name = f"step-{index + 1:02d}.png"
                shutil.copyfile(session_path / step.screenshot, folder / "screens" / name)
                evidence.append(
                    Evidence(kind="screenshot", path=f"screens/{name}", description=f"After step {index + 1}.")
                )
        log = session_path / "runner.log"
        if log.exists():
            shutil.copyfile(log, folder / "runner.log")
        _copy_trace_evidence(session_path, folder, steps)
    if not (folder / "runner.log").exists():
        (folder / "runner.log").write_text("(no runner log)\n", encoding="utf-8")
    evidence.append(Evidence(kind="log", path="runner.log", description="What the runner did and decided."))
    for name, data in (extra_screens or {}).items():
        if data:
            (folder / "screens" / f"{name}.png").write_bytes(data)
            evidence.append(Evidence(kind="screenshot", path=f"screens/{name}.png", description=name.replace("-", " ")))
    for name, text in (extra_snapshots or {}).items():
        (folder / "snapshots" / f"{name}.txt").write_text(text + "\n", encoding="utf-8")
        evidence.append(Evidence(kind="tree", path=f"snapshots/{name}.txt", description="The element tree when filed."))
        tree_after = tree_after or text
    if failure.stack:
        (folder / "stack.txt").write_text(failure.stack, encoding="utf-8")
        evidence.append(Evidence(kind="stack", path="stack.txt", description=f"The stack of {failure.exception_type}."))
    if log_tail.strip():
        (folder / "app-log-tail.txt").write_text(log_tail, encoding="utf-8")
        evidence.append(
            Evidence(kind="log", path="app-log-tail.txt", description="The last lines of the app's output.")
        )
    document = TraceDocument(
        title=_title(failure, last), target=dict(target), seed=seed,
        expected_failure={"signature": failure.signature, "kind": failure.kind, "message": failure.message},
        steps=[
            s.model_copy(update={"tree": None, "screenshot": None, "tree_before": None, "screenshot_before": None})
            for s in steps
        ],
    )  # fmt: skip
    write_document(folder / "repro.actions.json", document)
    evidence.insert(
        0, Evidence(kind="repro", path="repro.actions.json", description="Replay with: wpfprobe replay <this file>.")
    )
    summary = failure.message
    if repro_rate is not None:
        summary += f" Reproduced {repro_rate.text()} times from a fresh start with the steps below."
    ticket = Ticket(
        id=ticket_id, title=_title(failure, last), summary=summary, kind=failure.kind, signature=failure.signature,
        session_id=session_id, created_at=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="microseconds"),
        source=source, repro_steps=describe.numbered(steps), actual=failure.actual or failure.message,
        expected=_expected(failure), environment=dict(environment), evidence=evidence,
        hypothesis=([f"The reporter's notes: {notes}"] if notes else [])
        + describe.hypothesis(failure, last, tree_before=tree_before, tree_after=tree_after, log_tail=log_tail),
        failure=failure, seed=seed, repro_rate=repro_rate, minimization=minimization, flaky=flaky,
        occurrences=occurrences,
    )  # fmt: skip
    (folder / TICKET_FILE).write_text(
        json.dumps(ticket.model_dump(mode="json", by_alias=True), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    (folder / "ticket.md").write_text(render_markdown(ticket), encoding="utf-8")
    _write_trace_page(folder)
    return ticket.model_copy(update={"path": str(folder)})


def _copy_trace_evidence(session_path: Path, folder: Path, steps: Sequence[TraceStep]) -> None:
    """What the trace page shows beyond the steps: the tree the first step started from, the audit entries."""
    first = steps[0].tree_before if steps else None
    if first and (session_path / first).is_file():
        shutil.copyfile(session_path / first, folder / "snapshots" / "before-step-01.txt")
    audit = session_path / AUDIT_FILE
    if audit.is_file():
        shutil.copyfile(audit, folder / AUDIT_FILE)


def _write_trace_page(folder: Path) -> None:
    """``trace.html``: the ticket as one page that opens offline (a page that cannot be made is no reason to lose the ticket)."""
    from wpfprobe.testkit import trace_view  # noqa: PLC0415 - the viewer reads tickets: imported late, no cycle

    try:
        trace_view.write_html(folder)
    except Exception:
        import logging  # noqa: PLC0415

        logging.getLogger("wpfprobe.testkit").warning("could not write %s/trace.html", folder, exc_info=True)


def render_markdown(t: Ticket) -> str:
    lines = [f"# {t.title}", "", "## Title", "", t.title, "", "## Summary", "", t.summary]
    if t.flaky:
        lines += ["", f"**Flaky**: it did not happen every time ({t.repro_rate.text() if t.repro_rate else '?'})."]
    lines += ["", "## Repro Steps", ""]
    lines += [f"{i}. {text}" for i, text in enumerate(t.repro_steps, start=1)] or ["(no steps: it happened at start)"]
    lines += ["", "Replay them with `wpfprobe replay repro.actions.json`."]
    if t.minimization is not None:
        m = t.minimization
        note = "" if m.complete else " (the budget ran out: it may be shorter still)"
        lines.append(
            f"Minimized from {m.from_steps} to {m.to_steps} steps in {m.candidates} runs, {m.seconds:.0f} s{note}."
        )
    lines += ["", "## Actual Result", "", t.actual, "", "## Expected Result", "", t.expected, "", "## Environment", ""]
    env = dict(t.environment)
    if t.seed is not None:
        env["seed"] = str(t.seed)
    if t.repro_rate is not None:
        env["repro rate"] = t.repro_rate.text()
    lines += [f"- {key}: {value}" for key, value in env.items()]
    lines += ["", "## Evidence", ""]
    lines += [f"- [{e.path}]({e.path}): {e.description}" for e in t.evidence]
    lines += ["", "## Root Cause Hypothesis", ""]
    lines += [f"- {h}" for h in t.hypothesis] or ["- (no evidence points anywhere yet)"]
    lines += ["", f"<!-- signature: {t.signature} -->", ""]
    return "\n".join(lines)


def load_ticket(folder: Path) -> Ticket:
    path = folder / TICKET_FILE
    try:
        ticket = Ticket.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InvalidArgumentError(f"{path} is not a ticket: {str(exc)[:200]}") from None
    return ticket.model_copy(update={"path": str(folder)})


def all_tickets(artifacts: Path) -> list[Ticket]:
    """Every ticket under ``<artifacts>/tickets``, oldest first (a folder that is not one is skipped)."""
    root = artifacts / "tickets"
    found: list[Ticket] = []
    for path in sorted(root.glob(f"*/TICKET-*/{TICKET_FILE}")):
        try:
            found.append(load_ticket(path.parent))
        except InvalidArgumentError:
            continue
    found.sort(key=lambda t: (t.created_at, t.id))
    return found


def grouped(tickets: Sequence[Ticket]) -> list[tuple[Ticket, list[Ticket]]]:
    """(the first ticket, every ticket) per signature, in order of first appearance."""
    groups: dict[str, list[Ticket]] = {}
    for t in tickets:
        groups.setdefault(oracles.same_bug(t.signature), []).append(t)
    return [(ts[0], ts) for ts in groups.values()]


def find_ticket(artifacts: Path, ticket_id: str | None) -> Ticket:
    """A ticket by id (or a unique prefix of its short id), or the newest with ``None``."""
    tickets = all_tickets(artifacts)
    if not tickets:
        raise InvalidArgumentError(
            f"No tickets under {artifacts / 'tickets'}.", suggestion="Run wpfprobe explore or scenario run first."
        )
    if ticket_id is None:
        return tickets[-1]
    matches = [t for t in tickets if t.id == ticket_id or t.id.endswith(ticket_id) or ticket_id in t.id]
    if len(matches) != 1:
        known = ", ".join(t.id for t in tickets[-10:])
        raise InvalidArgumentError(
            f"{'No' if not matches else 'Several'} tickets match {ticket_id!r}.", suggestion=f"Known: {known}"
        )
    return matches[0]
