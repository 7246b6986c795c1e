""" "Why is my UI wrong" against the live WinForms example: bindings, binding errors,
and the clear "WinForms has none" answers for resources, triggers and behaviors.

brokenLabel is bound to a BindingSource with no items (the example's deliberate
mistake). The BindingComplete tests bind a throwaway form of their own, so the
example's controls are left as they were.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest

pytestmark = pytest.mark.toolkit("winforms")


def run(make: Any, deadline: float = 30.0) -> Any:
    async def bounded() -> Any:
        return await asyncio.wait_for(make(), deadline)

    return asyncio.run(bounded())


def texts(result: Any) -> str:
    return "\n".join(b.text for b in result.content if b.type == "text")


# -- Python API ---------------------------------------------------------------------


def test_greeting_binding_is_active_on_a_data_table(probe: Any) -> None:
    info = probe.locator("#greetingLabel").binding_info("Text")
    assert info.is_bound and info.kind == "Binding" and info.property_name == "Text"
    assert info.path == "Greeting"
    assert info.source_kind == "DataSource" and info.source_type_name == "System.Data.DataTable"
    assert info.source_description == "DataTable 'Person' (1 rows)"
    assert info.has_current_item is True and info.status == "active" and info.error is None
    assert info.update_trigger == "OnValidation" and info.control_update_mode == "OnPropertyChanged"
    assert info.formatting_enabled is False and info.mode is None and info.converter is None
    assert info.resolved_value == "Hello, Ada" and info.value_source == "binding"
    assert info.recent_errors == []
    assert probe.locator("#greetingLabel").inspect().binding_error_count == 0


def test_broken_label_explains_its_empty_source(probe: Any) -> None:
    label = probe.locator("#brokenLabel")
    info = label.binding_info("text")
    assert info.is_bound and info.path == "Text"
    assert info.status == "no-current-item" and info.has_current_item is False
    assert info.source_type_name == "System.Windows.Forms.BindingSource"
    assert info.source_description == "BindingSource over DataTable 'Messages' (0 rows)"
    assert info.error is not None and "no current item" in info.error and "position -1" in info.error
    assert info.resolved_value == ""
    assert [(e.kind, e.property_name) for e in info.recent_errors] == [("status", "Text")]

    assert label.inspect().binding_error_count == 1
    text = next(p for p in label.properties(filter="Text").items if p.name == "Text")
    assert text.is_data_bound and text.has_binding_error and "no current item" in (text.binding_error or "")
    assert [b.property_name for b in label.bindings()] == ["Text"]


def test_a_property_that_is_not_bound_and_one_that_does_not_exist(probe: Any) -> None:
    from wpfprobe.errors import PropertyNotFoundError

    info = probe.locator("#saveButton").binding_info("Text")
    assert not info.is_bound and info.status == "not-bound" and info.resolved_value == "Save"
    with pytest.raises(PropertyNotFoundError):
        probe.locator("#saveButton").binding_info("NoSuchProperty")


def test_password_box_binding_info_never_shows_the_secret(probe: Any) -> None:
    info = probe.locator("#passwordBox").binding_info("Text")
    assert info.resolved_value == "[REDACTED]" and info.is_redacted
    assert "hunter2" not in info.model_dump_json()


def test_winforms_has_no_resources_triggers_or_behaviors(probe: Any) -> None:
    page = probe.resources()
    assert not page.supported and page.items == [] and "no resource dictionaries" in (page.note or "")
    assert not probe.locator("#saveButton").resources().supported
    triggers = probe.locator("#saveButton").triggers()
    assert not triggers.supported and "no styles or triggers" in (triggers.note or "")
    behaviors = probe.locator("#saveButton").behaviors()
    assert not behaviors.supported and "no attached behaviors" in (behaviors.note or "")


# -- errors as they happen (BindingComplete) ------------------------------------------


@pytest.fixture
def ages_form(running_app: Any) -> Iterator[Any]:
    """A second form with an Int32 column bound with formatting on, and a Format handler that throws."""
    from System import Type
    from System.Data import DataTable
    from System.Drawing import Point
    from System.Windows.Forms import DataSourceUpdateMode, Form, FormStartPosition, Label, TextBox

    box: dict[str, Any] = {}

    def build() -> None:
        form = Form()
        form.Name = "agesForm"
        form.Text = "Ages"
        form.StartPosition = FormStartPosition.Manual
        form.Location = Point(600, 40)
        ages = DataTable("Ages")
        ages.Columns.Add("Age", Type.GetType("System.Int32"))
        ages.Rows.Add(5)
        # A table of its own: a row the age box is editing defers its change events.
        table = DataTable("Names")
        table.Columns.Add("Name")
        table.Rows.Add("Ada")
        age = TextBox()
        age.Name = "ageBox"
        age.DataBindings.Add("Text", ages, "Age", True, DataSourceUpdateMode.OnPropertyChanged)
        shout = Label()
        shout.Name = "shoutLabel"
        shout.Location = Point(0, 30)
        binding = shout.DataBindings.Add("Text", table, "Name", True)
        box["table"] = table

        def fail(sender: Any, args: Any) -> None:
            if box.get("fail"):
                raise ValueError("no shouting today")

        binding.Format += fail
        form.Controls.Add(age)
        form.Controls.Add(shout)
        form.Show()
        box["form"] = form
        box["age"] = age

    running_app.invoke(build)
    try:
        yield box
    finally:
        running_app.invoke(lambda: box["form"].Close())


def test_parse_and_format_errors_are_recorded_per_element(probe: Any, running_app: Any, ages_form: Any) -> None:
    age = probe.locator("#ageBox")
    assert age.binding_info("Text").status == "active"  # looking hooks the form's bindings
    assert age.inspect().binding_error_count == 0

    for text in ("abc", "ab", "abc"):
        running_app.invoke(lambda text=text: setattr(ages_form["age"], "Text", text))
    errors = age.binding_errors()
    # One entry per distinct message, the most recent last, with how often it repeated.
    assert [(e.kind, e.property_name, e.count) for e in errors] == [("parse", "Text", 1), ("parse", "Text", 2)]
    assert "abc" in errors[-1].message and "Int32" in errors[-1].message
    info = age.binding_info("Text")
    assert info.status == "error" and info.error == errors[-1].message
    assert age.inspect().binding_error_count == 2
    prop = next(p for p in age.properties(filter="Text").items if p.name == "Text")
    assert prop.has_binding_error and "abc" in (prop.binding_error or "")

    # The same step succeeding clears it: the store keeps errors that still stand.
    running_app.invoke(lambda: setattr(ages_form["age"], "Text", "7"))
    assert age.binding_errors() == [] and age.binding_info("Text").status == "active"

    shout = probe.locator("#shoutLabel")
    assert shout.binding_errors() == []

    def change_name() -> None:
        ages_form["fail"] = True
        ages_form["table"].Rows[0]["Name"] = "Grace"

    running_app.invoke(change_name)
    deadline = time.monotonic() + 5
    while not shout.binding_errors() and time.monotonic() < deadline:
        time.sleep(0.05)
    (error,) = shout.binding_errors()
    assert error.kind == "format" and "no shouting today" in error.message
    assert shout.binding_info("Text").status == "error"


def test_the_error_store_is_bounded_and_holds_no_control() -> None:
    from wpfprobe_clr._binding_errors import BindingErrorStore

    store = BindingErrorStore(max_elements=3, max_per_element=2)
    for i in range(10):
        for j in range(5):
            store.add(f"k{i}", "Text", f"message {j}", kind="parse")
        store.add(f"k{i}", "Text", "message 4", kind="parse")
    assert len(store) == 3 and store.get("k0") == []
    assert [(r.message, r.count) for r in store.get("k9")] == [("message 3", 1), ("message 4", 2)]
    store.discard("k9", "text", ("parse",))
    assert store.get("k9") == [] and len(store) == 2


# -- MCP: the agent's view ---------------------------------------------------------------


def test_agent_learns_why_the_broken_label_is_empty_in_one_call(mcp_connect: Any) -> None:
    async def main() -> tuple[Any, Any]:
        async with mcp_connect() as client:
            binding = await client.call_tool(
                "wpf_get_binding_info", {"locator": "#brokenLabel", "propertyName": "Text"}
            )
            inspect = await client.call_tool("wpf_inspect_element", {"locator": "#brokenLabel"})
            return binding, inspect

    binding, inspect = run(main)
    assert not binding.is_error, texts(binding)
    answer = binding.structured_content
    assert answer["isBound"] and answer["path"] == "Text" and answer["status"] == "no-current-item"
    assert answer["hasCurrentItem"] is False and answer["resolvedValue"] == ""
    assert answer["sourceKind"] == "DataSource" and "BindingSource" in answer["sourceDescription"]
    assert "no current item" in answer["error"]
    text = texts(binding)
    assert "status=no-current-item" in text and "hasCurrentItem: false" in text and "0 rows" in text
    assert not inspect.is_error and inspect.structured_content["bindingErrorCount"] == 1
    assert "binding errors: 1" in texts(inspect)


def test_agent_is_told_winforms_has_no_resources_triggers_or_behaviors(mcp_connect: Any) -> None:
    async def main() -> dict[str, Any]:
        async with mcp_connect() as client:
            return {
                "resources": await client.call_tool("wpf_get_resources", {}),
                "scoped": await client.call_tool("wpf_get_resources", {"locator": "#greetingLabel"}),
                "triggers": await client.call_tool("wpf_get_triggers", {"locator": "#greetingLabel"}),
                "behaviors": await client.call_tool("wpf_get_behaviors", {"locator": "#greetingLabel"}),
            }

    answers = run(main)
    for name, result in answers.items():
        assert not result.is_error, (name, texts(result))
        assert result.structured_content["supported"] is False, name
        assert "WinForms has no" in result.structured_content["note"], name
        assert "not supported: WinForms has no" in texts(result), name
    assert answers["resources"].structured_content["items"] == []
    assert answers["triggers"].structured_content["node"]["name"] == "greetingLabel"


def test_binding_info_errors_follow_the_spec(mcp_connect: Any) -> None:
    async def main() -> tuple[Any, Any]:
        async with mcp_connect() as client:
            missing = await client.call_tool(
                "wpf_get_binding_info", {"locator": "#brokenLabel", "propertyName": "Nope"}
            )
            absent = await client.call_tool("wpf_get_binding_info", {"locator": "#brokenLabel"})
            return missing, absent

    missing, absent = run(main)
    assert missing.is_error and missing.structured_content["code"] == "PROPERTY_NOT_FOUND"
    assert absent.is_error


def test_wpf_binding_trace_lines_are_parsed_and_attributed() -> None:
    """The WPF trace listener is plain BCL (System.Diagnostics), so it runs for real here."""
    import wpfprobe_clr

    wpfprobe_clr.ensure_clr()
    from System.Diagnostics import SourceLevels, TraceEventType, TraceSource

    from wpfprobe_clr.toolkits import wpf
    from wpfprobe_clr.toolkits.wpf._binding_trace import _TRACE_ERRORS

    source = TraceSource("wpfprobe.test.binding")
    source.Switch.Level = SourceLevels.Warning
    source.Listeners.Add(wpf.BindingTraceListener())
    message = (
        "BindingExpression path error: 'DoesNotExist' property not found on 'object' ''MainViewModel' "
        "(HashCode=1234)'. BindingExpression:Path=DoesNotExist; DataItem='MainViewModel' (HashCode=1234); "
        "target element is 'TextBlock' (Name='traceLabel'); target property is 'Text' (type 'String')"
    )
    for _ in range(3):
        source.TraceEvent(TraceEventType.Error, 40, message)
    source.TraceEvent(
        TraceEventType.Error, 2,
        "Cannot find governing FrameworkElement or FrameworkContentElement for target element. "
        "BindingExpression:Path=Accent; DataItem=null; target element is 'SolidColorBrush' (HashCode=42); "
        "target property is 'Color' (type 'Color')",
    )  # fmt: skip
    (record,) = _TRACE_ERRORS.get("TextBlock|name=traceLabel")
    assert (record.property_name, record.path, record.count, record.kind) == ("Text", "DoesNotExist", 3, "trace")
    assert record.message.startswith("BindingExpression path error") and "Error: 40" not in record.message
    (brush,) = _TRACE_ERRORS.get("SolidColorBrush|hash=42")
    assert brush.property_name == "Color" and brush.path == "Accent"
    assert wpf.parse_binding_trace("an unrelated trace line") is None
