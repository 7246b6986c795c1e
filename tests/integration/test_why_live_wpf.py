""" "Why is my UI wrong" against the live WPF example, in the Windows workflow.

The WPF example's brokenLabel is bound to a property its DataContext does not
have (``{Binding DoesNotExist}``); statusLabel's style has a DataTrigger that
turns it red while nameBox is empty. WPF only runs on Windows, so this module
runs in .github/workflows/windows.yml with WPFPROBE_EXAMPLE=wpf.
"""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.toolkit("wpf")


def test_broken_label_reports_a_path_error_on_a_live_data_context(probe: Any) -> None:
    label = probe.locator("#brokenLabel")
    info = label.binding_info("Text")
    assert info.is_bound and info.kind == "Binding" and info.path == "DoesNotExist"
    assert info.status == "path-error"
    assert info.source_kind == "DataContext"
    assert info.data_context_is_null is False and info.data_context_type
    assert info.error is not None and "DoesNotExist" in info.error
    assert label.inspect().binding_error_count >= 1
    text = next(p for p in label.properties(filter="Text").items if p.name == "Text")
    assert text.is_data_bound and text.has_binding_error


def test_greeting_binding_is_active_with_its_string_format(probe: Any) -> None:
    info = probe.locator("#greetingLabel").binding_info("Text")
    assert info.status == "active" and info.path == "Name"
    assert info.string_format == "Hello, {0}" and info.error is None
    assert isinstance(info.resolved_value, str) and info.resolved_value.startswith("Hello, ")


def test_status_label_style_data_trigger_is_listed_and_evaluated(probe: Any) -> None:
    listed = probe.locator("#statusLabel").triggers()
    assert listed.supported
    data = [t for t in listed.triggers if t.type == "DataTrigger" and t.source == "style"]
    assert len(data) == 1
    (condition,) = data[0].conditions
    assert condition.source_name == "nameBox" or "nameBox" in (condition.binding or "")
    name = probe.locator("#nameBox").node().text
    assert data[0].is_active is (name == "")
    assert [s.property for s in data[0].setters] == ["Foreground"]


def test_resources_and_behaviors_are_supported_on_wpf(probe: Any) -> None:
    page = probe.locator("#statusLabel").resources()
    assert page.supported and page.note is None
    assert probe.locator("#statusLabel").behaviors().supported


def test_diagnostics_name_the_broken_binding(probe: Any) -> None:
    page = probe.diagnostics(providers=["binding-errors"], take=200)
    assert any(f.locator == "#brokenLabel" and f.level == "error" for f in page.items)
