"""Binding info, binding errors, resources, triggers and behaviors over the fake toolkit.

The engine's own logic: projection, redaction (decided before a getter runs),
shadowing, paging, and the clear answers for "not bound" and "this toolkit has
none of these".
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_toolkit import FakeApp, FakeElement, FakeProp, FakeTrigger, Harness, harness

from wpfprobe import REDACTED
from wpfprobe.core.errors import InvalidArgumentError, PropertyNotFoundError
from wpfprobe.core.protocol import BindingDescription, BindingErrorRecord
from wpfprobe.engine.engine import Target
from wpfprobe.mcp.tools import BindingInfoArgs, ResourcesArgs, _TargetArgs, read_tools

LABEL = Target(locators=("#label",))
SECRETS = Target(locators=("#secrets",))
WINDOW = Target(locators=("#win",))


class SecureValue:
    net_type = "System.Security.SecureString"


def why_app() -> FakeApp:
    label = FakeElement(
        "TextBlock",
        "label",
        text="",
        props=[FakeProp("FontSize", "System.Double", 12.0, source="default")],
    )
    label.text_prop.source = "binding"  # type: ignore[union-attr]
    label.text_prop.data_bound = True  # type: ignore[union-attr]
    label.bindings["text"] = BindingDescription(
        property_name="Text",
        property_type_name="System.String",
        kind="Binding",
        path="Greeting",
        mode="OneWay",
        update_trigger="PropertyChanged",
        converter_type="Demo.UpperConverter",
        converter_parameter="x",
        source_kind="DataContext",
        source_description="inherited DataContext",
        data_context_is_null=True,
        status="path-error",
        error="Path error: property 'Greeting' not found on null",
    )
    label.error_records = [
        BindingErrorRecord(
            "Text", "BindingExpression path error: 'Greeting' not found", 3, "trace", "Greeting", 1.0, 2.0
        ),
        BindingErrorRecord("Tag", "other property", 1, "trace", "Other"),
    ]
    secrets = FakeElement(
        "SecretBox",
        "secrets",
        common_props=False,
        props=[
            FakeProp("ApiKey", "System.String", "hunter-key", source="binding", data_bound=True),
            FakeProp("Text", "System.String", "hunter-text", source="binding", data_bound=True),
            FakeProp("Payload", "System.Object", "hunter-payload", runtime_type="System.Security.SecureString"),
        ],
    )
    secrets.bindings["apikey"] = BindingDescription(
        "ApiKey", "System.String", "Binding", path="Key", error="Value='hunter-key'"
    )
    secrets.bindings["text"] = BindingDescription(
        "Text", "System.String", "MultiBinding", status="active", fallback_value="hunter-fallback",
        children=(BindingDescription("Text", "System.String", "Binding", path="User.Password"),),
    )  # fmt: skip
    secrets.bindings["payload"] = BindingDescription("Payload", "System.Object", "Binding", path="Blob")
    secrets.error_records = [
        BindingErrorRecord("Text", "Value='hunter-text' is not valid", 1, "trace", "User.Password")
    ]
    panel = FakeElement("StackPanel", "panel", children=[label, secrets])
    window = FakeElement("Window", "win", text="Why", children=[panel])
    return FakeApp(window)


@pytest.fixture
def why() -> Iterator[Harness]:
    with harness(why_app()) as h:
        yield h


# -- bindings ----------------------------------------------------------------------


def test_binding_info_projects_the_description_and_the_resolved_value(why: Harness) -> None:
    info = why.engine.binding_info(LABEL, "text")
    assert info.is_bound and info.property_name == "Text" and info.kind == "Binding"
    assert (info.path, info.mode, info.update_trigger) == ("Greeting", "OneWay", "PropertyChanged")
    assert info.converter == "Demo.UpperConverter" and info.converter_parameter == "x"
    assert info.source_kind == "DataContext" and info.data_context_is_null is True
    assert info.status == "path-error" and "Greeting" in (info.error or "")
    assert info.resolved_value == "" and info.value_source == "binding"
    assert info.node_id == why.id_of(why.app.windows[0].children[0].children[0])
    # Only the errors of this property, with their repeat count.
    assert [(e.property_name, e.count, e.kind) for e in info.recent_errors] == [("Text", 3, "trace")]
    assert info.recent_errors[0].last_seen is not None and info.recent_errors[0].last_seen.year == 1970
    dumped = info.to_json_dict()
    assert dumped["dataContextIsNull"] is True and dumped["recentErrors"][0]["path"] == "Greeting"


def test_a_property_that_is_not_bound_says_so_with_its_value_source(why: Harness) -> None:
    info = why.engine.binding_info(LABEL, "FontSize")
    assert not info.is_bound and info.status == "not-bound"
    assert info.value_source == "default" and info.resolved_value == 12.0
    assert info.path is None and info.children == []


def test_a_missing_property_is_property_not_found(why: Harness) -> None:
    with pytest.raises(PropertyNotFoundError) as err:
        why.engine.binding_info(LABEL, "NoSuchThing")
    assert err.value.code == "PROPERTY_NOT_FOUND"
    with pytest.raises(InvalidArgumentError):
        why.engine.binding_info(LABEL, "")


def test_secret_target_property_is_redacted_and_its_getter_never_runs(why: Harness) -> None:
    el = why.app.windows[0].children[0].children[1]
    info = why.engine.binding_info(SECRETS, "ApiKey")
    assert info.is_redacted and info.resolved_value == REDACTED
    assert info.error is not None and "hunter" not in info.error and REDACTED in info.error
    assert el.prop("ApiKey").calls == 0


def test_a_secret_name_on_the_binding_path_redacts_value_errors_and_fallback(why: Harness) -> None:
    el = why.app.windows[0].children[0].children[1]
    info = why.engine.binding_info(SECRETS, "Text")
    assert info.is_redacted and info.resolved_value == REDACTED
    assert el.prop("Text").calls == 0, "decided from the path before the getter"
    assert info.fallback_value == REDACTED
    assert info.children[0].path == "User.Password"
    assert [e.message for e in info.recent_errors] and all("hunter" not in e.message for e in info.recent_errors)
    assert "hunter" not in info.model_dump_json()


def test_a_secret_runtime_type_is_redacted_after_reading(why: Harness) -> None:
    info = why.engine.binding_info(SECRETS, "Payload")
    assert info.resolved_value == REDACTED and info.is_redacted


def test_bindings_lists_every_bound_property_and_binding_errors_all_records(why: Harness) -> None:
    listed = why.engine.bindings(SECRETS)
    assert {b.property_name for b in listed} == {"ApiKey", "Text", "Payload"}
    assert "hunter" not in "".join(b.model_dump_json() for b in listed)
    errors = why.probe.locator("#label").binding_errors()
    assert [(e.property_name, e.count) for e in errors] == [("Text", 3), ("Tag", 1)]
    secret_errors = why.engine.binding_errors(SECRETS)
    assert secret_errors and all("hunter" not in e.message for e in secret_errors)


def test_binding_info_tool_renders_the_answer_in_a_few_lines(why: Harness) -> None:
    spec = next(s for s in read_tools(tier="read") if s.name == "wpf_get_binding_info")
    out = spec.run(why.engine, BindingInfoArgs.model_validate({"locator": "#label", "propertyName": "Text"}))
    assert "path=Greeting" in out.text and "status=path-error" in out.text and "dataContext: null" in out.text
    assert out.structured_json()["status"] == "path-error"
    plain = spec.run(why.engine, BindingInfoArgs.model_validate({"locator": "#label", "propertyName": "FontSize"}))
    assert "not data-bound" in plain.text


# -- resources ---------------------------------------------------------------------


def resource_app() -> FakeApp:
    app = why_app()
    window = app.windows[0]
    label = window.children[0].children[0]
    label.resources = [("Accent", "Red")]
    window.resources = [("Accent", "Blue"), ("Margin", 4), ("ApiKey", "hunter-res"), ("Blob", SecureValue())]
    app.resources = [("Margin", 8), ("Title", "App")]
    app.merged = [[("Theme", "Light"), ("Font", "Arial")], [("Theme", "Dark")]]
    return app


@pytest.fixture
def res() -> Iterator[Harness]:
    with harness(resource_app()) as h:
        yield h


def test_resources_are_in_lookup_order_with_effective_and_shadowed(res: Harness) -> None:
    page = res.engine.resources(LABEL, take=200)
    rows = [(r.key, r.value_summary, r.origin_kind, r.effective) for r in page.items]
    assert rows == [
        ("Accent", "Red", "element", True),
        ("Accent", "Blue", "window", False),
        ("Margin", 4, "window", True),
        ("ApiKey", REDACTED, "window", True),
        ("Blob", REDACTED, "window", True),
        ("Margin", 8, "application", False),
        ("Title", "App", "application", True),
        ("Theme", "Dark", "merged", True),  # the last merged dictionary wins
        ("Theme", "Light", "merged", False),
        ("Font", "Arial", "merged", True),
    ]
    accent_blue = page.items[1]
    assert accent_blue.shadowed_by == page.items[0].origin
    assert page.items[0].origin_node_id == res.id_of(res.app.windows[0].children[0].children[0])
    assert page.total_count == 10 and not page.has_more and page.supported


def test_redacted_resource_values_are_never_read(res: Harness) -> None:
    page = res.engine.resources(LABEL, take=200)
    secret = [r for r in page.items if r.is_redacted]
    assert {r.key for r in secret} == {"ApiKey", "Blob"}
    assert "ApiKey" not in res.adapter.summarised and "Blob" not in res.adapter.summarised
    assert "ApiKey" not in res.adapter.loaded, "a secret key's value is never even loaded"
    assert "Blob" in res.adapter.loaded and secret[1].value_type_name == "System.Security.SecureString"
    assert "hunter" not in page.model_dump_json()


def test_resource_key_filters_but_shadowing_counts_every_key(res: Harness) -> None:
    page = res.engine.resources(WINDOW, resource_key="accent")
    assert [(r.value_summary, r.effective) for r in page.items] == [("Blue", True)]
    page = res.engine.resources(LABEL, resource_key="Margin")
    assert [(r.value_summary, r.effective) for r in page.items] == [(4, True), (8, False)]
    app_level = res.probe.resources(resource_key="theme")
    assert [(r.value_summary, r.effective) for r in app_level.items] == [("Dark", True), ("Light", False)]


def test_resources_page_with_cursors_and_summarise_only_the_page(res: Harness) -> None:
    first = res.engine.resources(LABEL, take=3)
    assert len(first.items) == 3 and first.has_more and first.total_count == 10
    assert res.adapter.summarised == ["Accent", "Accent", "Margin"]
    keys = [r.key for r in first.items]
    cursor = first.next_cursor
    while cursor is not None:
        page = res.engine.resources(LABEL, take=3, cursor=cursor)
        keys += [r.key for r in page.items]
        cursor = page.next_cursor
    assert len(keys) == 10 and keys[-1] == "Font"
    with pytest.raises(InvalidArgumentError):
        res.engine.resources(WINDOW, take=3, cursor=first.next_cursor)  # another query's cursor


def test_a_toolkit_without_resources_triggers_or_behaviors_says_so(res: Harness) -> None:
    res.adapter.toolkit = "winforms"
    page = res.engine.resources(LABEL)
    assert not page.supported and page.note and page.items == [] and page.next_cursor is None
    assert "winforms" in page.note
    assert not res.engine.triggers(LABEL).supported
    behaviors = res.engine.behaviors(LABEL)
    assert not behaviors.supported and behaviors.note
    specs = {s.name: s for s in read_tools(tier="read")}
    text = specs["wpf_get_resources"].run(res.engine, ResourcesArgs()).text
    assert text.startswith("not supported:")
    text = specs["wpf_get_triggers"].run(res.engine, _TargetArgs(locator="#label")).text
    assert "not supported:" in text


# -- triggers and behaviors ------------------------------------------------------------


def test_triggers_are_evaluated_and_secret_conditions_are_not_read(why: Harness) -> None:
    label = why.app.windows[0].children[0].children[0]
    label.props["apikey"] = FakeProp("ApiKey", "System.String", "hunter-key")
    label.triggers = [
        FakeTrigger("Trigger", "style", [("FontSize", 12.0)], [("Foreground", "Red")]),
        FakeTrigger("MultiTrigger", "template", [("FontSize", 12.0), ("IsEnabled", False)], [("Opacity", 0.5)]),
        FakeTrigger("Trigger", "element", [("ApiKey", "hunter-key")], [("Password", "hunter-setter")]),
    ]
    found = why.probe.locator("#label").triggers()
    assert found.supported and found.node.name == "label"
    first, multi, secret = found.triggers
    assert first.is_active is True and first.conditions[0].current == 12.0 and first.setters[0].value == "Red"
    assert multi.is_active is False and [c.met for c in multi.conditions] == [True, False]
    assert secret.is_active is None and secret.conditions[0].is_redacted
    assert secret.conditions[0].value == REDACTED and secret.setters[0].value == REDACTED
    assert label.prop("ApiKey").calls == 0
    assert "hunter" not in found.model_dump_json()


def test_behaviors_list_type_assembly_and_properties_with_redaction(why: Harness) -> None:
    label = why.app.windows[0].children[0].children[0]
    secret_prop = FakeProp("AccessToken", "System.String", "hunter-token")
    label.behaviors = [
        (
            "Demo.SelectAllOnFocusBehavior",
            "Demo.Behaviors",
            [FakeProp("IsEnabled", "System.Boolean", True), secret_prop],
        )
    ]
    found = why.probe.locator("#label").behaviors()
    assert found.supported
    (behavior,) = found.behaviors
    assert behavior.type_name == "Demo.SelectAllOnFocusBehavior" and behavior.assembly_name == "Demo.Behaviors"
    assert behavior.properties == {"IsEnabled": True, "AccessToken": REDACTED}
    assert secret_prop.calls == 0
