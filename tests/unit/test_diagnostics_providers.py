"""wpf_run_diagnostics over the fake toolkit: each provider's rules, ordering, levels, selection,
paging, subtree scope and redaction."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fake_toolkit import PASSWORD, FakeApp, FakeElement, Harness, by_name, harness

from wpfprobe import DiagnosticsPage, Finding, ProbeError
from wpfprobe.core.protocol import BindingDescription, BindingErrorRecord, Bounds
from wpfprobe.core.settings import ProbeSettings
from wpfprobe.engine.cursors import CursorStore
from wpfprobe.engine.diagnostics import LARGE_ITEM_COUNT, PROVIDER_NAMES
from wpfprobe.mcp.text import diagnostics_text
from wpfprobe.mcp.tools import DiagnosticsArgs, read_tools

WINFORMS_ONLY = ["text-truncated", "overlapping-siblings", "tab-order", "unnamed-input"]


def E(type_name: str, name: str | None = None, box: tuple[int, int, int, int] | None = None, *,
      children: list[FakeElement] = (), text: str | None = None, visible: bool = True,
      visual_only: bool = False, password_char: bool = False, **facts: Any) -> FakeElement:  # fmt: skip
    """An element at screen rectangle ``box`` (x, y, width, height) with DiagnosticFacts ``facts``."""
    el = FakeElement(
        type_name, name, text=text, visible=visible, visual_only=visual_only, password_char=password_char,
        bounds=Bounds(*box) if box is not None else None, children=list(children),
    )  # fmt: skip
    el.facts = dict(facts)
    return el


def container(
    type_name: str, name: str, box: tuple[int, int, int, int], children: list[FakeElement], **facts: Any
) -> FakeElement:
    """A WinForms-like Panel: free layout, clips its children to its whole box."""
    facts.setdefault("free_layout", True)
    facts.setdefault("client_area", Bounds(*box))
    return E(type_name, name, box, children=children, **facts)


def form(*children: FakeElement, **facts: Any) -> FakeApp:
    return FakeApp(container("Form", "mainForm", (0, 0, 600, 400), list(children), **facts))


@pytest.fixture
def winforms() -> Iterator[Any]:
    """``winforms(app)`` -> a harness whose adapter says it is WinForms."""
    made: list[Harness] = []

    def make(app: FakeApp, settings: ProbeSettings | None = None) -> Harness:
        h = Harness(app, settings)
        h.adapter.toolkit = "winforms"  # type: ignore[misc]
        h.engine.adapter.toolkit = "winforms"  # type: ignore[misc] - the thread-checking wrapper keeps its own copy
        made.append(h)
        return h

    yield make
    for h in made:
        h.close()


def by_provider(page: DiagnosticsPage, provider: str) -> list[Finding]:
    return [f for f in page.items if f.provider == provider]


def names(h: Harness, findings: list[Finding]) -> list[str | None]:
    return [h.probe.node(f.node_id).node().name for f in findings]


# -- arguments --------------------------------------------------------------------


def test_the_provider_list_is_the_documented_one() -> None:
    assert PROVIDER_NAMES == (
        "binding-errors", "null-datacontext", "unresolved-dynamic-resource", "non-virtualized-items",
        "zero-size", "clipped", "text-truncated", "overlapping-siblings", "tab-order", "unnamed-input",
    )  # fmt: skip


def test_unknown_provider_is_invalid_and_lists_the_known_ones() -> None:
    with harness() as h:
        with pytest.raises(ProbeError) as bad:
            h.probe.diagnostics(providers=["clipped", "spelling"])
        assert bad.value.code == "INVALID_ARGUMENT"
        assert "'spelling'" in bad.value.message
        assert bad.value.detail["known"] == list(PROVIDER_NAMES)
        assert bad.value.detail["unknown"] == ["spelling"]
        assert "zero-size" in bad.value.suggestion


@pytest.mark.parametrize(
    "kwargs",
    [{"providers": []}, {"providers": "clipped"}, {"min_level": "fatal"}, {"take": 0}, {"take": 201},
     {"cursor": "not-a-cursor"}],
    ids=["empty", "string", "level", "take0", "take201", "cursor"],
)  # fmt: skip
def test_bad_arguments_are_invalid(kwargs: dict[str, Any]) -> None:
    with harness() as h:
        with pytest.raises(ProbeError) as bad:
            h.probe.diagnostics(**kwargs)
        assert bad.value.code == "INVALID_ARGUMENT"


def test_the_toolkit_decides_which_providers_run() -> None:
    with harness() as h:  # the fake says wpf
        page = h.probe.diagnostics()
        assert page.providers_not_applicable == WINFORMS_ONLY
        assert page.providers_run == [n for n in PROVIDER_NAMES if n not in WINFORMS_ONLY]
        h.adapter.toolkit = "winforms"  # type: ignore[misc]
        page = h.probe.diagnostics(providers=["tab-order", "unresolved-dynamic-resource", "clipped"])
        assert page.providers_run == ["clipped", "tab-order"]
        assert page.providers_not_applicable == ["unresolved-dynamic-resource"]


def test_a_healthy_app_has_no_findings_in_one_hop() -> None:
    with harness() as h:
        runs = h.ui.runs
        page = h.probe.diagnostics()
        assert h.ui.runs - runs == 1, "the whole run is one UI-thread hop"
        assert page.items == [] and page.total_count == 0 and not page.has_more


# -- clipped ----------------------------------------------------------------------------


def test_clipped_reports_by_how_much_and_skips_what_fits_or_scrolls(winforms: Any) -> None:
    app = form(
        container("Panel", "panel", (10, 10, 200, 100), [
            E("Button", "sticksOut", (150, 20, 100, 20), tab_stop=True),
            E("Button", "fits", (20, 20, 50, 20)),
            E("Label", "gone", (300, 300, 50, 20)),
            E("Button", "hiddenOut", (150, 60, 100, 20), visible=False),
        ]),
        container("Panel", "scroller", (10, 200, 100, 100), [E("Button", "scrolled", (10, 280, 50, 50))], scrolls=True),
    )  # fmt: skip
    h = winforms(app)
    page = h.probe.diagnostics(providers=["clipped"])
    assert names(h, page.items) == ["sticksOut", "gone"]
    first, second = page.items
    assert first.level == "warning" and "40 px past the right" in first.message
    assert first.detail["right"] == 40 and first.detail["left"] == 0 and first.detail["entirelyOutside"] is False
    assert "Panel#panel" in first.message and "sticksOut" in first.suggestion
    assert first.locator == "Button#sticksOut" and first.path.endswith("Button[0]")
    assert second.detail["entirelyOutside"] is True and "entirely outside" in second.message


def test_clipped_uses_the_element_s_own_layout_slot(winforms: Any) -> None:
    # WPF-like: no clipping parent, but the element is cut to a slot smaller than itself.
    app = FakeApp(E("Window", "w", (0, 0, 400, 300), children=[
        E("Grid", None, (0, 0, 400, 300), children=[E("TextBox", "wide", (0, 0, 300, 20), clip=Bounds(0, 0, 200, 20))]),
    ]))  # fmt: skip
    with harness(app) as h:
        (finding,) = h.probe.diagnostics(providers=["clipped"]).items
        assert (
            "wide" in finding.locator
            and "100 px past the right" in finding.message
            and "layout slot" in finding.message
        )


# -- zero-size --------------------------------------------------------------------------


def test_zero_size_levels_and_exceptions() -> None:
    app = FakeApp(E("Window", "w", (0, 0, 400, 300), children=[
        E("Button", "flat", (0, 0, 0, 20), tab_stop=True),
        E("Border", "empty", (0, 0, 20, 0)),
        E("Label", "zeroText", (0, 0, 0, 10), text="Hi"),
        E("Button", "hiddenFlat", (0, 0, 0, 20), visible=False),
        E("Separator", "sep", (0, 0, 0, 0), zero_size_expected=True),
        E("Border", None, (0, 0, 0, 0), visual_only=True),
        E("Panel", "flatPanel", (0, 0, 0, 0), children=[E("Button", "inFlat", (0, 0, 0, 0))]),
    ]))  # fmt: skip
    with harness(app) as h:
        page = h.probe.diagnostics(providers=["zero-size"])
        found = {h.probe.node(f.node_id).node().name: f for f in page.items}
        assert set(found) == {"flat", "empty", "zeroText", "flatPanel"}
        assert found["flat"].level == "warning" and "0x20 px" in found["flat"].message
        assert found["zeroText"].level == "warning", "it has text to show"
        assert found["empty"].level == "info" and found["flatPanel"].level == "info"
        assert [f.level for f in page.items] == ["warning", "warning", "info", "info"], "most severe first"


# -- text-truncated ---------------------------------------------------------------------


def caption(name: str, box: tuple[int, int, int, int], room: tuple[int, int], size: tuple[int, int],
            line: tuple[int, int] | None = None, **facts: Any) -> FakeElement:  # fmt: skip
    """A label whose text needs ``size`` (``line`` on one line) where it has ``room``."""
    return E("Label", name, box, text="Some caption", text_room=room, text_size=size, text_line=line or size, **facts)


def test_text_truncated_reports_text_that_does_not_fit_with_the_sizes_that_would(winforms: Any) -> None:
    app = form(
        # Mono clamps a 0x0 label to 1x1: zero-size is silent, the text has no room at all.
        caption("clamped", (10, 10, 1, 1), room=(1, 1), size=(15, 238), line=(104, 14)),
        caption("fits", (10, 30, 100, 20), room=(100, 20), size=(19, 14)),
        caption("descenders", (10, 60, 80, 40), room=(80, 40), size=(79, 42), line=(198, 14)),
        caption("tooShort", (10, 110, 80, 20), room=(80, 20), size=(76, 42), line=(198, 14)),
        caption("ellipsis", (10, 140, 60, 14), room=(60, 14), size=(41, 56), line=(146, 14), text_ellipsis=True),
        caption("hiddenCut", (10, 160, 20, 14), room=(20, 14), size=(60, 14), visible=False),
        # No area at all: zero-size's finding, not this one's.
        caption("zero", (10, 180, 0, 0), room=(0, 0), size=(15, 238), line=(104, 14)),
        E("Label", "unmeasured", (10, 200, 1, 1), text="AutoSize: it grows to fit"),
    )  # fmt: skip
    h = winforms(app)
    page = h.probe.diagnostics(providers=["text-truncated"])
    found = {h.probe.node(f.node_id).node().name: f for f in page.items}
    assert set(found) == {"clamped", "tooShort", "ellipsis"}, "over by no more than the slack is not a cut"
    clamped = found["clamped"]
    assert clamped.level == "warning"
    assert "needs 15x238 px" in clamped.message and "has 1x1 px" in clamped.message
    assert "104x14 px fits the text on one line" in clamped.suggestion and "clamped" in clamped.suggestion
    assert clamped.detail == {
        "textWidth": 15, "textHeight": 238, "roomWidth": 1, "roomHeight": 1,
        "lineWidth": 104, "lineHeight": 14, "ellipsis": False,
    }  # fmt: skip
    short = found["tooShort"]
    # Wide enough for its wrapped lines, too short for them: two ways to fix it.
    assert "198x20 px fits the text on one line" in short.suggestion
    assert "80x42 px fits it at its present width" in short.suggestion
    assert found["ellipsis"].level == "info" and "ellipsis" in found["ellipsis"].message
    assert "Some caption" not in json.dumps([f.model_dump() for f in page.items]), "never the text itself"
    assert [f.level for f in page.items] == ["warning", "warning", "info"]


def test_text_truncated_is_not_a_wpf_provider_yet() -> None:
    app = FakeApp(E("Window", "w", (0, 0, 400, 300), children=[
        caption("clamped", (10, 10, 1, 1), room=(1, 1), size=(15, 238)),
    ]))  # fmt: skip
    with harness(app) as h:  # the fake says wpf: its adapter does not measure text
        page = h.probe.diagnostics(providers=["text-truncated"])
        assert page.items == [] and page.providers_not_applicable == ["text-truncated"]


# -- overlapping-siblings -----------------------------------------------------------------


def test_overlapping_siblings(winforms: Any) -> None:
    app = form(
        container("Panel", "panel", (0, 0, 600, 300), [
            E("Button", "a", (10, 10, 90, 23)),
            E("Button", "b", (60, 20, 90, 23)),
            E("Button", "apart", (300, 10, 90, 23)),
            E("Panel", "cover", (5, 100, 120, 40)),
            E("Button", "covered", (10, 105, 75, 23)),
            E("Label", "onBackdrop", (210, 210, 40, 20)),
            E("Panel", "backdrop", (200, 200, 100, 100)),
            E("Panel", "filler", (0, 0, 600, 300), docked=True),
            E("Button", "hiddenOver", (10, 10, 90, 23), visible=False),
        ]),
        container("FlowLayoutPanel", "flow", (0, 300, 300, 40), [E("Button", "f1", (0, 300, 90, 23)), E("Button", "f2", (50, 300, 90, 23))], free_layout=False),
    )  # fmt: skip
    h = winforms(app)
    page = h.probe.diagnostics(providers=["overlapping-siblings"])
    found = {h.probe.node(f.node_id).node().name: f for f in page.items}
    assert set(found) == {"b", "covered", "onBackdrop"}
    b = found["b"]
    assert b.level == "warning" and "40x13 px" in b.message and b.detail["otherLocator"] == "Button#a"
    assert b.detail["otherNodeId"] == h.probe.locator("#a").node().node_id
    assert "entirely under Panel#cover" in found["covered"].message
    backdrop = found["onBackdrop"]
    assert backdrop.level == "info" and "Controls" in backdrop.suggestion and backdrop.detail["onTop"] is True


# -- tab-order ---------------------------------------------------------------------------


def test_tab_order_against_reading_order(winforms: Any) -> None:
    app = form(
        container("Panel", "row", (0, 0, 600, 100), [
            E("TextBox", "first", (10, 10, 100, 20), tab_index=2, tab_stop=True),
            E("TextBox", "second", (120, 10, 100, 20), tab_index=0, tab_stop=True),
            E("TextBox", "third", (230, 10, 100, 20), tab_index=1, tab_stop=True),
            E("Label", "caption", (10, 40, 100, 20), tab_index=3),
            E("TextBox", "below", (10, 70, 100, 20), tab_index=4, tab_stop=True),
        ]),
        container("Panel", "tidy", (0, 100, 600, 100), [
            E("TextBox", "one", (10, 110, 100, 20), tab_index=0, tab_stop=True),
            E("Panel", "group", (10, 140, 300, 50), tab_index=1, children=[
                E("CheckBox", "inner", (20, 150, 50, 20), tab_index=0, tab_stop=True),
            ]),
        ]),
    )  # fmt: skip
    h = winforms(app)
    page = h.probe.diagnostics(providers=["tab-order"])
    assert names(h, page.items) == ["first"], "only the control out of place, not the ones it displaced"
    (finding,) = page.items
    assert finding.detail == {"tabIndex": 2, "tabPlace": 3, "readingPlace": 1, "of": 4}
    assert "first=0, second=1, third=2, below=3" in finding.suggestion


# -- unnamed-input ------------------------------------------------------------------------


def test_unnamed_input_follows_the_label_rules(winforms: Any) -> None:
    app = form(
        container("Panel", "fields", (0, 0, 600, 400), [
            E("Label", "nameLabel", (10, 10, 60, 20), text="Name", tab_index=0, is_label=True),
            E("TextBox", "named", (80, 10, 100, 20), tab_index=1, tab_stop=True, is_input=True),
            E("TextBox", "bare", (80, 40, 100, 20), tab_index=2, tab_stop=True, is_input=True),
            E("Label", "emptyLabel", (10, 70, 60, 20), text="", tab_index=3, is_label=True),
            E("TextBox", "afterEmpty", (80, 70, 100, 20), tab_index=4, tab_stop=True, is_input=True),
            E("TextBox", "accessible", (80, 100, 100, 20), tab_index=5, tab_stop=True, is_input=True, has_accessible_name=True),
            E("CheckBox", "checkWithText", (80, 130, 100, 20), text="Subscribe", tab_index=6, tab_stop=True, is_input=True, names_itself=True),
            E("CheckBox", "checkNoText", (80, 160, 100, 20), tab_index=7, tab_stop=True, is_input=True, names_itself=True),
            E("Label", "colonLabel", (10, 190, 60, 20), text="City:", tab_index=20, is_label=True),
            E("TextBox", "leftColon", (80, 190, 100, 20), tab_index=8, tab_stop=True, is_input=True),
            E("Label", "plainLabel", (10, 220, 60, 20), text="Zip", tab_index=21, is_label=True),
            E("TextBox", "leftPlain", (80, 220, 100, 20), tab_index=9, tab_stop=True, is_input=True),
            E("TextBox", "hiddenBare", (80, 250, 100, 20), tab_index=10, tab_stop=True, is_input=True, visible=False),
            E("ComboBox", "outer", (80, 280, 100, 20), tab_index=11, tab_stop=True, is_input=True, has_accessible_name=True,
              children=[E("TextBox", None, (80, 280, 80, 20), tab_stop=True, is_input=True)]),
            E("TextBox", "secret", (80, 310, 100, 20), tab_index=12, tab_stop=True, is_input=True, password_char=True, text=PASSWORD),
        ]),
    )  # fmt: skip
    h = winforms(app)
    page = h.probe.diagnostics(providers=["unnamed-input"])
    assert names(h, page.items) == ["bare", "afterEmpty", "checkNoText", "leftPlain", "secret"]
    assert all(f.level == "warning" and "AccessibleName" in f.suggestion for f in page.items)
    assert PASSWORD not in page.model_dump_json()


def test_a_label_before_in_tab_order_counts_across_containers(winforms: Any) -> None:
    # WinForms walks back through the whole form's tab order: a Label ending the
    # previous container still names the first input of the next one.
    app = form(
        container("Panel", "captions", (0, 0, 600, 50), [E("Label", "cap", (10, 10, 60, 20), text="Notes", tab_index=0, is_label=True)], tab_index=0),
        container("Panel", "inputs", (0, 50, 600, 50), [E("TextBox", "notes", (10, 60, 100, 20), tab_index=0, tab_stop=True, is_input=True)], tab_index=1),
    )  # fmt: skip
    h = winforms(app)
    assert h.probe.diagnostics(providers=["unnamed-input"]).items == []


# -- non-virtualized-items ------------------------------------------------------------------


def test_non_virtualized_items() -> None:
    app = FakeApp(E("Window", "w", (0, 0, 400, 300), children=[
        E("ListBox", "slow", (0, 0, 100, 100), item_count=LARGE_ITEM_COUNT + 50, virtualized=False),
        E("ListBox", "fast", (0, 0, 100, 100), item_count=5000, virtualized=True),
        E("ListBox", "native", (0, 0, 100, 100), item_count=5000, virtualized=None),
        E("ListBox", "small", (0, 0, 100, 100), item_count=LARGE_ITEM_COUNT - 1, virtualized=False),
    ]))  # fmt: skip
    with harness(app) as h:
        (finding,) = h.probe.diagnostics(providers=["non-virtualized-items"]).items
        assert finding.locator == "ListBox#slow" and finding.level == "warning"
        assert finding.detail == {"itemCount": LARGE_ITEM_COUNT + 50, "threshold": LARGE_ITEM_COUNT}
        assert "VirtualizingStackPanel" in finding.suggestion, "the WPF advice on a WPF app"


# -- unresolved-dynamic-resource ----------------------------------------------------------


def test_unresolved_dynamic_resource_is_wpf_only(winforms: Any) -> None:
    def app() -> FakeApp:
        return FakeApp(E("Window", "w", (0, 0, 400, 300), children=[
            E("Button", "themed", (0, 0, 50, 20), unresolved_resources=(("Background", "AccentBrush"),)),
        ]))  # fmt: skip

    with harness(app()) as h:
        (finding,) = h.probe.diagnostics(providers=["unresolved-dynamic-resource"]).items
        assert finding.level == "warning" and finding.detail == {"property": "Background", "resourceKey": "AccentBrush"}
        assert "'AccentBrush'" in finding.message and "Background" in finding.message
    page = winforms(app()).probe.diagnostics(providers=["unresolved-dynamic-resource"])
    assert page.items == [] and page.providers_not_applicable == ["unresolved-dynamic-resource"]


# -- binding providers ------------------------------------------------------------------------


def _bound_app() -> FakeApp:
    app = FakeApp(E("Window", "w", (0, 0, 400, 300), children=[
        E("TextBox", "failing", (0, 0, 50, 20)),
        E("PasswordBox", "pwd", (0, 30, 50, 20), text=PASSWORD),
        E("TextBox", "orphan", (0, 60, 50, 20)),
        E("TextBox", "byName", (0, 90, 50, 20)),
        E("Label", "empty", (0, 120, 50, 20)),
    ]))  # fmt: skip
    win = app.windows[0]
    by_name(win, "failing").error_records = [
        BindingErrorRecord(
            "Text", "BindingExpression path error: 'Nmae' property not found on 'Person'", 3, "trace", "Nmae"
        )
    ]
    by_name(win, "pwd").error_records = [
        BindingErrorRecord("Password", f"ConvertBack cannot convert value '{PASSWORD}'", 1, "trace", "Secret")
    ]
    by_name(win, "orphan").bindings = {
        "text": BindingDescription("Text", "System.String", "Binding", path="Name", source_kind="DataContext", data_context_is_null=True),
        "tag": BindingDescription("Tag", "System.Object", "Binding", path="Id", source_kind="DataContext", data_context_is_null=True),
    }  # fmt: skip
    by_name(win, "byName").bindings = {
        "text": BindingDescription("Text", "System.String", "Binding", path="Text", source_kind="ElementName", data_context_is_null=True),
    }  # fmt: skip
    empty = by_name(win, "empty")
    empty.bindings = {
        "content": BindingDescription("Content", "System.Object", "Binding", path="Text", source_kind="DataSource", has_current_item=False),
    }  # fmt: skip
    empty.error_records = [BindingErrorRecord("Content", "The data source has no current item.", 1, "status", "Text")]
    return app


def test_binding_errors_are_errors_and_never_show_a_secret() -> None:
    with harness(_bound_app()) as h:
        page = h.probe.diagnostics(providers=["binding-errors"])
        found = {h.probe.node(f.node_id).node().name: f for f in page.items}
        assert set(found) == {"failing", "pwd", "empty"} and all(f.level == "error" for f in page.items)
        failing = found["failing"]
        assert "'Nmae' property not found" in failing.message and "(3 times)" in failing.message
        assert "propertyName=Text" in failing.suggestion and failing.detail["count"] == 3
        assert "withheld" in found["pwd"].message
        dumped = page.model_dump_json() + diagnostics_text(page)
        assert PASSWORD not in dumped


def test_null_datacontext_and_no_current_item() -> None:
    with harness(_bound_app()) as h:
        alone = h.probe.diagnostics(providers=["null-datacontext"])
        found = {h.probe.node(f.node_id).node().name: f for f in alone.items}
        assert set(found) == {"orphan", "empty"}, "an ElementName binding does not read the DataContext"
        orphan = found["orphan"]
        assert orphan.level == "warning" and orphan.detail["properties"] == "Text, Tag"
        assert "DataContext is null" in orphan.message and "paths Name, Id" in orphan.message
        assert found["empty"].detail["reason"] == "no-current-item"
        # Run with binding-errors, the property already reported as an error is not reported twice.
        both = h.probe.diagnostics(providers=["binding-errors", "null-datacontext"])
        empty_id = h.probe.locator("#empty").node().node_id
        assert [f.provider for f in both.items if f.node_id == empty_id] == ["binding-errors"]


# -- order, levels, paging, scope ----------------------------------------------------------------


def _mixed_app() -> FakeApp:
    app = form(
        container("Panel", "left", (0, 0, 300, 400), [
            E("Button", "flatA", (0, 0, 0, 20)),  # info (no text, not a tab stop)
            E("Button", "outA", (250, 10, 100, 20)),  # warning (clipped)
        ]),
        container("Panel", "right", (300, 0, 300, 400), [
            E("Button", "flatB", (300, 0, 0, 20), tab_stop=True),  # warning (zero-size, usable)
            E("TextBox", "failing", (310, 40, 100, 20)),  # error
        ]),
    )  # fmt: skip
    by_name(app, "failing").error_records = [BindingErrorRecord("Text", "path error", 1, "trace", "X")]
    return app


def test_most_severe_first_then_tree_order_and_min_level(winforms: Any) -> None:
    h = winforms(_mixed_app())
    page = h.probe.diagnostics()
    assert [(names(h, [f])[0], f.level) for f in page.items] == [
        ("failing", "error"), ("outA", "warning"), ("flatB", "warning"), ("flatA", "info"),
    ]  # fmt: skip
    assert [f.level for f in h.probe.diagnostics(min_level="warning").items] == ["error", "warning", "warning"]
    assert names(h, h.probe.diagnostics(min_level="error").items) == ["failing"]


def test_subtree_scope_keeps_only_findings_under_the_root(winforms: Any) -> None:
    h = winforms(_mixed_app())
    right = h.probe.locator("#right").diagnostics()
    assert names(h, right.items) == ["failing", "flatB"]
    assert names(h, h.probe.diagnostics(root="#left").items) == ["outA", "flatA"]
    assert names(h, h.probe.locator("#outA").diagnostics().items) == ["outA"], "the root's own finding counts"
    with pytest.raises(ProbeError) as missing:
        h.probe.locator("#nothing").diagnostics()
    assert missing.value.code == "LOCATOR_NOT_FOUND"


def _many_flat(n: int) -> FakeApp:
    return form(
        container("Panel", "many", (0, 0, 600, 400), [E("Button", f"flat{i}", (i, 0, 0, 10)) for i in range(n)])
    )


def test_pages_cover_every_finding_once_with_snapshot_cursors(winforms: Any) -> None:
    h = winforms(_many_flat(120))
    seen: list[str] = []
    page = h.probe.diagnostics(providers=["zero-size"])
    assert (len(page.items), page.total_count, page.has_more) == (50, 120, True)
    runs = h.ui.runs
    while True:
        seen.extend(f.locator for f in page.items)
        if not page.has_more:
            break
        page = h.probe.diagnostics(providers=["zero-size"], cursor=page.next_cursor)
        assert page.providers_run == ["zero-size"]
    assert h.ui.runs - runs == 2, "one hop per page"
    assert seen == [f"Button#flat{i}" for i in range(120)]
    assert page.next_cursor is None and len(page.items) == 20
    big = h.probe.diagnostics(providers=["zero-size"], take=200)
    assert len(big.items) == 120 and not big.has_more


def test_a_cursor_belongs_to_its_query_and_expires_to_a_fresh_first_page(winforms: Any) -> None:
    clock = [1000.0]
    h = winforms(_many_flat(60))
    h.engine.cursors = CursorStore(ttl=10.0, max_snapshots=8, clock=lambda: clock[0])
    first = h.probe.diagnostics(providers=["zero-size"], take=10)
    with pytest.raises(ProbeError) as other:
        h.probe.diagnostics(providers=["clipped"], cursor=first.next_cursor, take=10)
    assert other.value.code == "INVALID_ARGUMENT"
    clock[0] += 11.0
    again = h.probe.diagnostics(providers=["zero-size"], cursor=first.next_cursor, take=10)
    assert again.stale is True and [f.locator for f in again.items] == [f.locator for f in first.items]


def test_a_finding_whose_element_is_gone_is_left_out_of_later_pages(winforms: Any) -> None:
    app = _many_flat(10)
    h = winforms(app)
    first = h.probe.diagnostics(providers=["zero-size"], take=5)
    panel = by_name(app, "many")
    panel.remove(by_name(app, "flat7"), dispose=True)
    rest = h.probe.diagnostics(providers=["zero-size"], cursor=first.next_cursor, take=5)
    assert [f.locator for f in rest.items] == ["Button#flat5", "Button#flat6", "Button#flat8", "Button#flat9"]
    assert rest.total_count == 10, "the snapshot's count"


def test_every_adapter_call_is_on_the_ui_thread(winforms: Any) -> None:
    h = winforms(_mixed_app(), ProbeSettings(audit=False, check_thread_affinity=True))
    page = h.probe.diagnostics()
    assert page.total_count == 4 and "tab-order" in page.providers_run
    assert h.engine.thread_violations == [] and h.objects.off_thread_calls == []


# -- faces ---------------------------------------------------------------------------------------


def test_the_mcp_tool_and_its_text(winforms: Any) -> None:
    h = winforms(_mixed_app())
    spec = next(s for s in read_tools(tier="read") if s.name == "wpf_run_diagnostics")
    assert spec.tier == "read" and spec.read_only and spec.output is DiagnosticsPage
    out = spec.run(h.engine, DiagnosticsArgs.model_validate({"minLevel": "warning", "take": 2}))
    data = out.structured_json()
    assert {"items", "totalCount", "hasMore", "nextCursor", "providersRun", "providersNotApplicable"} <= set(data)
    assert data["totalCount"] == 3 and data["hasMore"] is True
    assert set(data["items"][0]) >= {"provider", "level", "message", "nodeId", "locator", "path", "suggestion"}
    assert out.text.splitlines()[0].startswith("error binding-errors ")
    assert "more with cursor=" in out.text and "providers run: binding-errors" in out.text
    assert "not applicable to this toolkit: unresolved-dynamic-resource" in out.text
    json.dumps(data)
    with pytest.raises(ValueError):
        DiagnosticsArgs.model_validate({"providers": []})
    scoped = spec.run(h.engine, DiagnosticsArgs.model_validate({"locator": "#right", "providers": ["zero-size"]}))
    assert [i["locator"] for i in scoped.structured_json()["items"]] == ["Button#flatB"]


def test_a_windows_tab_sequence_is_made_in_slices_before_the_unnamed_input_rule_needs_it() -> None:
    # Made on first use inside one rule step, a 5,000-control window's tab sequence held the UI thread
    # 10 ms and more in one piece; it is made ahead now, with a pause wherever the slice is used up.
    import dataclasses

    from wpfprobe.core.protocol import Naming
    from wpfprobe.engine.diagnostics.model import NO_FACTS, Context, Item
    from wpfprobe.engine.diagnostics.rules import BY_NAME

    class UsedUp:
        """A hop whose slice is always used up: every pause point pauses."""

        def slice_due(self) -> bool:
            return True

    def item(index: int, parent: int | None, tab_index: int | None, children: list[int]) -> Item:
        facts = dataclasses.replace(NO_FACTS, tab_index=tab_index, tab_stop=True, is_input=parent is not None)
        return Item(el=object(), index=index, parent=parent, naming=Naming("TextBox", "X.TextBox", None, None),
                    visible=True, enabled=True, template_part=False, facts=facts, children=children)  # fmt: skip

    n = 300
    items = [item(0, None, None, list(range(1, n + 1)))] + [item(i, 0, n - i, []) for i in range(1, n + 1)]
    ctx = Context(UsedUp(), items, "winforms")  # type: ignore[arg-type]
    steps = BY_NAME["unnamed-input"].run(ctx)
    for _ in range(n // 2):
        assert next(steps) is None, "a pause"
    assert not ctx._tab_orders, "half way through the window's tab sequence, in as many pieces"
    for _ in range(n // 2):
        assert next(steps) is None
    sequence, place = ctx.tab_sequence(0)
    assert sequence == [0, *range(n, 0, -1)] and place[n] == 1
    fresh = Context(UsedUp(), items, "winforms")  # type: ignore[arg-type]
    assert fresh.tab_sequence(0) == (sequence, place), "made whole on demand, the same"
