"""A run's session folder and its ticket, made from plain data, for the trace viewer's tests.

Three steps on a made-up form, as the runner writes them: type a name (the
greeting label follows), click Save (the status label changes, a window
opens), click Apply (the app's handler raises; the step fails). Each step
has its tree before and after, a screenshot and an audit entry in its time.
"""

from __future__ import annotations

import datetime as _dt
import io
import json
from pathlib import Path

from wpfprobe.core.trace import StepAppError, StepEffect, StepTarget, TraceStep, TraceWriter
from wpfprobe.testkit import oracles
from wpfprobe.testkit.tickets import Ticket, write_ticket

#: A text that would break out of the page if it were pasted into HTML unescaped.
HOSTILE = '</script><script>document.title="pwned"</script><img src="https://example.invalid/x.png">'
START = _dt.datetime(2026, 3, 1, 12, 0, 0, tzinfo=_dt.timezone.utc)

TREES = [
    'w1 Form#mainForm "Demo"\n b1 TextBox#nameBox ""\n b2 Label#greeting "Hello"\n b3 Button#saveButton "Save"\n'
    ' b4 Label#status "Ready"\n b5 Button#applyButton "Apply"\n(6 nodes, visual tree)',
    'w1 Form#mainForm "Demo"\n b1 TextBox#nameBox "Ada"\n b2 Label#greeting "Hello, Ada"\n b3 Button#saveButton "Save"\n'
    ' b4 Label#status "Ready"\n b5 Button#applyButton "Apply"\n(6 nodes, visual tree)',
    'w1 Form#mainForm "Demo"\n b1 TextBox#nameBox "Ada"\n b2 Label#greeting "Hello, Ada"\n b3 Button#saveButton "Save"\n'
    ' b4 Label#status "Saved Ada"\n b5 Button#applyButton "Apply"\n(6 nodes, visual tree)\n'
    'w2 Form#doneDialog "Done"\n c1 Button#okButton "OK"\n(2 nodes, visual tree)',
    'w1 Form#mainForm "Demo"\n b1 TextBox#nameBox "Ada"\n b2 Label#greeting "Hello, Ada"\n b3 Button#saveButton "Save"\n'
    ' b4 Label#status "Saved Ada"\n(5 nodes, visual tree)',
]
COLOURS = [(200, 40, 40), (40, 160, 60), (40, 80, 200)]


def png(colour: tuple[int, int, int], size: tuple[int, int] = (320, 200)) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, format="PNG")
    return out.getvalue()


def steps() -> list[TraceStep]:
    def at(ms: int) -> str:
        return (START + _dt.timedelta(milliseconds=ms)).isoformat(timespec="milliseconds").replace("+00:00", "Z")

    return [
        TraceStep(
            seq=1, action="type_text", args={"text": "Ada"}, source="scenario", at=at(100), offset_ms=100,
            duration_ms=120, target=StepTarget(locator="#nameBox", type="TextBox", name="nameBox", generated="TextBox#nameBox"),
            used_locator="#nameBox", changed=["text"], before={"text": ""}, after={"text": "Ada"},
            effects=[StepEffect(field="text", locator="Label#greeting", type="Label", name="greeting", before="Hello", after="Hello, Ada")],
            tree_before="trees/start-01.txt", tree="trees/step-0001.txt", screenshot="screens/step-0001.png",
        ),
        TraceStep(
            seq=2, action="click", source="scenario", at=at(400), offset_ms=400, duration_ms=90,
            target=StepTarget(locator="#saveButton", type="Button", name="saveButton", text="Save", generated="Button#saveButton"),
            used_locator="#saveButton", changed=[], before={"text": "Save"}, after={"text": "Save"},
            opened_windows=["Done"], note=HOSTILE,
            effects=[
                StepEffect(field="window-opened", locator="Form#doneDialog", type="Form", after="Done"),
                StepEffect(field="text", locator="Label#status", type="Label", before="Ready", after="Saved Ada"),
            ],
            tree="trees/step-0002.txt", screenshot="screens/step-0002.png",
        ),
        TraceStep(
            seq=3, action="click", source="scenario", at=at(800), offset_ms=800, duration_ms=150,
            target=StepTarget(locator="#applyButton", type="Button", name="applyButton", text="Apply"),
            used_locator="#applyButton", app_error=StepAppError(type="KeyError", message="'items'"),
            failure="exception|KeyError|#applyButton", tree="trees/step-0003.txt", screenshot="screens/step-0003.png",
            events=[{"seq": 4, "kind": "exception", "source": "action", "type": "KeyError", "message": "'items'",
                     "stack": 'Traceback (most recent call last):\n  File "demo.py", line 12, in on_apply\nKeyError: \'items\''}],
        ),
    ]  # fmt: skip


def audit_lines() -> str:
    entries = [
        {"seq": 7, "time": "2026-03-01T12:00:00.150+00:00", "app": "demo-1", "tool": "wpf_type_text", "target": "#nameBox", "action": "type", "outcome": "ok"},
        {"seq": 8, "time": "2026-03-01T12:00:00.450+00:00", "app": "demo-1", "tool": "wpf_click", "target": "#saveButton", "action": "click", "outcome": "ok"},
        {"seq": 9, "time": "2026-03-01T12:00:00.850+00:00", "app": "demo-1", "tool": "wpf_click", "target": "#applyButton", "action": "click", "outcome": "ok"},
    ]  # fmt: skip
    return "".join(json.dumps(e) + "\n" for e in entries)


def session(artifacts: Path, session_id: str = "scenario-demo-20260301T120000Z-abc123") -> Path:
    """A session folder as the runner leaves it (with its audit entries)."""
    folder = artifacts / "sessions" / session_id
    (folder / "trees").mkdir(parents=True)
    (folder / "screens").mkdir()
    (folder / "trees" / "start-01.txt").write_text(TREES[0] + "\n", encoding="utf-8")
    for number, text in enumerate(TREES[1:], start=1):
        (folder / "trees" / f"step-{number:04d}.txt").write_text(text + "\n", encoding="utf-8")
    for number, colour in enumerate(COLOURS, start=1):
        (folder / "screens" / f"step-{number:04d}.png").write_bytes(png(colour))
    writer = TraceWriter(folder / "steps.jsonl")
    for step in steps():
        writer.write(step)
    writer.close()
    (folder / "runner.log").write_text("2026-03-01 step 3: exception: KeyError\n", encoding="utf-8")
    (folder / "audit.jsonl").write_text(audit_lines(), encoding="utf-8")
    return folder


def failure() -> oracles.Failure:
    return oracles.make(
        "exception", "KeyError: 'items' in the handler of Apply", what="KeyError", element="#applyButton", step=3,
        exception_type="KeyError", exception_message="'items'",
        stack='Traceback (most recent call last):\n  File "demo.py", line 12, in on_apply\nKeyError: \'items\'',
    )  # fmt: skip


def ticket(artifacts: Path) -> Ticket:
    """The ticket a scenario run writes for the session's failure (its folder holds trace.html)."""
    folder = session(artifacts)
    return write_ticket(
        artifacts / "tickets" / folder.name, failure=failure(), steps=steps(), session_id=folder.name,
        source="scenario", environment={"app": "demo"}, target={"profile": "demo"}, session_path=folder,
    )  # fmt: skip
