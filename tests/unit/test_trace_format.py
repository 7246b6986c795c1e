"""The recorded step format (wpfprobe.core.trace): what a tool call becomes, secrets left out, files read back."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from wpfprobe.core.errors import InvalidArgumentError
from wpfprobe.core.trace import (
    TraceDocument,
    TraceStep,
    TraceWriter,
    fallback_locators,
    load_trace,
    quote,
    step_from_call,
    write_document,
)

NOW = dt.datetime(2025, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)


def click_result(node: dict[str, object]) -> dict[str, object]:
    return {
        "action": "click", "mode": "toolkit", "node": node, "before": {"text": "Save", "visible": True,
        "enabled": True, "focused": False}, "after": {"text": "Save", "visible": True, "enabled": True,
        "focused": True}, "changed": ["focused"], "openedWindows": [{"title": "Save As", "nodeId": "w2"}],
        "closedWindows": [], "completed": False,
    }  # fmt: skip


def test_an_action_call_becomes_a_step_with_the_locator_given_first_then_the_elements_own() -> None:
    node = {"nodeId": "n7", "type": "Button", "name": "saveButton", "text": "Save", "locator": "Button#saveButton"}
    step = step_from_call(
        "wpf_click", {"locator": "#saveButton", "clickCount": 1}, structured=click_result(node), error=None,
        started=NOW, offset_ms=1500, duration_ms=20, seq=3, source="agent",
    )  # fmt: skip
    assert step is not None
    assert step.action == "click" and step.args == {"clickCount": 1}
    assert step.target is not None
    assert step.target.locators() == ["#saveButton", "Button#saveButton", 'Button[text="Save"]']
    assert (step.target.type, step.target.text) == ("Button", "Save")
    assert step.opened_windows == ["Save As"] and step.completed is False and step.changed == ["focused"]
    assert (step.offset_ms, step.duration_ms, step.at) == (1500, 20, "2025-01-02T03:04:05.000Z")


def test_reads_are_not_steps() -> None:
    assert (
        step_from_call("wpf_get_visual_tree", {}, structured={}, error=None, started=NOW, offset_ms=0, duration_ms=0)
        is None
    )


def test_a_refused_call_is_not_applied_and_a_failed_one_is_an_error() -> None:
    refused = step_from_call(
        "wpf_click", {"locator": "#gone"}, structured=None, error={"code": "LOCATOR_NOT_FOUND", "message": "no"},
        started=NOW, offset_ms=0, duration_ms=1,
    )  # fmt: skip
    assert refused is not None and refused.outcome == "not-applied" and not refused.applied
    busy = step_from_call(
        "wpf_click", {"locator": "#x"}, structured=None, error={"code": "DISPATCHER_BUSY", "message": "busy"},
        started=NOW, offset_ms=0, duration_ms=1,
    )  # fmt: skip
    assert busy is not None and busy.outcome == "error" and busy.applied


@pytest.mark.parametrize(
    ("node", "before"),
    [
        ({"type": "TextBox", "name": "passwordBox", "locator": "#passwordBox", "text": "[REDACTED]"}, None),
        ({"type": "TextBox", "name": "pinBox", "locator": "#pinBox"}, {"text": "[REDACTED]"}),
        ({"type": "TextBox", "name": "apiKeyBox", "locator": "#apiKeyBox", "text": ""}, None),
    ],
)
def test_text_typed_into_a_secret_box_is_never_written(node: dict[str, str], before: dict[str, str] | None) -> None:
    result = {"node": node, "before": before or {"visible": True, "enabled": True, "focused": False}}
    step = step_from_call(
        "wpf_type_text", {"locator": node["locator"], "text": "hunter2"}, structured=result, error=None,
        started=NOW, offset_ms=0, duration_ms=1,
    )  # fmt: skip
    assert step is not None and step.args["text"] == "[REDACTED]" and step.redacted == ["text"]
    assert "hunter2" not in json.dumps(step.to_json_dict())


def test_a_secret_property_value_is_not_written_but_an_ordinary_one_is() -> None:
    secret = step_from_call(
        "wpf_set_property", {"locator": "#c", "propertyName": "ConnectionString", "value": "pwd=x"},
        structured={"node": {"type": "Panel", "locator": "#c"}}, error=None, started=NOW, offset_ms=0, duration_ms=1,
    )  # fmt: skip
    plain = step_from_call(
        "wpf_set_property", {"locator": "#c", "propertyName": "Width", "value": "12"},
        structured={"node": {"type": "Panel", "locator": "#c"}}, error=None, started=NOW, offset_ms=0, duration_ms=1,
    )  # fmt: skip
    assert secret is not None and secret.args["value"] == "[REDACTED]"
    assert plain is not None and plain.args["value"] == "12"


def test_an_inputs_content_is_no_fallback_locator_but_a_captions_is() -> None:
    assert fallback_locators({"type": "TextBox", "text": "typed", "locator": "#t"}) == ("#t", [])
    assert fallback_locators({"type": "Button", "text": 'Say "hi"', "locator": "Form[0]/Button[1]"}) == (
        "Form[0]/Button[1]",
        ['Button[text="Say \\"hi\\""]'],
    )
    assert quote("a\\b\nc") == '"a\\\\b\\nc"'


def test_steps_written_as_json_lines_read_back_as_a_trace(tmp_path: Path) -> None:
    writer = TraceWriter(tmp_path / "s" / "steps.jsonl")
    first = writer.write(TraceStep(action="click", args={}, source="explore"))
    second = writer.write(TraceStep(action="type_text", args={"text": "x"}, source="explore"))
    writer.close()
    assert (first.seq, second.seq) == (1, 2)
    loaded = load_trace(tmp_path / "s" / "steps.jsonl")
    assert [s.action for s in loaded.steps] == ["click", "type_text"]
    doc = TraceDocument(target={"profile": "app"}, seed=7, steps=loaded.steps)
    write_document(tmp_path / "repro.actions.json", doc)
    again = load_trace(tmp_path / "repro.actions.json")
    assert again.seed == 7 and again.target == {"profile": "app"} and len(again.steps) == 2


def test_a_file_that_is_not_a_trace_is_named_with_its_line(tmp_path: Path) -> None:
    bad = tmp_path / "steps.jsonl"
    bad.write_text('{"action": "click"}\nnot json\n', encoding="utf-8")
    with pytest.raises(InvalidArgumentError, match=r"steps.jsonl:2: not a recorded step"):
        load_trace(bad)
    other = tmp_path / "other.json"
    other.write_text('{"hello": 1}', encoding="utf-8")
    with pytest.raises(InvalidArgumentError, match="is not a wpfprobe trace"):
        load_trace(other)
