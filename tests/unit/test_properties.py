"""wpf_get_properties and Engine.property."""

from __future__ import annotations

import pytest
from fake_toolkit import FakeApp, FakeElement, FakeProp, Harness, harness

from wpfprobe.core.errors import InvalidArgumentError, NodeNotFoundError, PropertyNotFoundError
from wpfprobe.engine.engine import Target

MIXED = Target(locators=("#mixed",))


def mixed_app() -> FakeApp:
    """One element with local, default, bound and erroring properties in mixed case."""
    el = FakeElement(
        "Widget",
        "mixed",
        common_props=False,
        props=[
            FakeProp("gamma", "System.String", "g", category="Misc"),
            FakeProp("Alpha", "System.String", "a", category="Misc"),
            FakeProp("delta", "System.Int32", 4, category="Layout"),
            FakeProp("Beta", "System.Boolean", True, category="Layout", source="default"),
            FakeProp("Epsilon", "System.String", "bound", category="Data", source="binding", data_bound=True),
            FakeProp(
                "Zeta", "System.String", None, category="Data", source="default", data_bound=True,
                binding_error="Path Foo not found on Vm",
            ),
            FakeProp("MinWidth", "System.Double", 0.0, category="Layout", source="default"),
            FakeProp("MaxWidth", "System.Double", 500.0, category="Layout"),
            FakeProp("ReadOnlyThing", "System.String", "ro", category="Misc", read_only=True),
            FakeProp("Styled", "System.String", "s", category="Misc", source="style"),
        ],
    )  # fmt: skip
    return FakeApp(FakeElement("Window", "w", children=[el]))


@pytest.fixture
def mixed() -> Harness:
    with harness(mixed_app()) as h:
        yield h  # type: ignore[misc]


def names(page) -> list[str]:  # type: ignore[no-untyped-def]
    return [p.name for p in page.items]


def test_sorted_by_name_case_insensitively(mixed: Harness) -> None:
    page = mixed.engine.properties(MIXED, include_defaults=True)
    assert names(page) == [
        "Alpha", "Beta", "delta", "Epsilon", "gamma", "MaxWidth", "MinWidth", "ReadOnlyThing", "Styled", "Zeta",
    ]  # fmt: skip


def test_include_defaults_false_hides_default_valued_ones(mixed: Harness) -> None:
    page = mixed.engine.properties(MIXED)
    assert names(page) == ["Alpha", "delta", "Epsilon", "gamma", "MaxWidth", "ReadOnlyThing", "Styled", "Zeta"]
    assert "Beta" not in names(page) and "MinWidth" not in names(page)
    assert page.total_count == 8


def test_filter_is_a_case_insensitive_substring_of_the_name(mixed: Harness) -> None:
    page = mixed.engine.properties(MIXED, filter="WIDTH", include_defaults=True)
    assert names(page) == ["MaxWidth", "MinWidth"]


def test_category_filter(mixed: Harness) -> None:
    page = mixed.engine.properties(MIXED, category="layout", include_defaults=True)
    assert names(page) == ["Beta", "delta", "MaxWidth", "MinWidth"]
    assert mixed.engine.properties(MIXED, category="Nope", include_defaults=True).items == []


def test_filter_and_category_combine(mixed: Harness) -> None:
    page = mixed.engine.properties(MIXED, category="Layout", filter="max")
    assert names(page) == ["MaxWidth"]


def test_property_rows_describe_value_and_source(mixed: Harness) -> None:
    rows = {p.name: p for p in mixed.engine.properties(MIXED, include_defaults=True).items}
    assert rows["delta"].value == 4 and rows["delta"].type_name == "System.Int32"
    assert rows["delta"].is_locally_set is True and rows["delta"].value_source == "local"
    assert rows["Beta"].value is True and rows["Beta"].is_locally_set is False
    assert rows["Epsilon"].is_data_bound is True and rows["Epsilon"].value_source == "binding"
    assert rows["Zeta"].has_binding_error is True
    assert rows["Zeta"].binding_error == "Path Foo not found on Vm"
    assert rows["ReadOnlyThing"].is_read_only is True
    assert rows["Alpha"].is_redacted is False
    assert rows["Alpha"].category == "Misc"


def test_pages_with_cursor_cover_every_property_once(mixed: Harness) -> None:
    collected: list[str] = []
    cursor = None
    while True:
        page = mixed.engine.properties(MIXED, include_defaults=True, take=3, cursor=cursor)
        assert page.total_count == 10
        collected.extend(names(page))
        if not page.has_more:
            break
        cursor = page.next_cursor
    assert collected == names(mixed.engine.properties(MIXED, include_defaults=True))


def test_later_pages_read_current_values(mixed: Harness) -> None:
    first = mixed.engine.properties(MIXED, include_defaults=True, take=2)
    widget = mixed.app.windows[0].children[0]
    widget.prop("MaxWidth").value = 640.0
    second = mixed.engine.properties(MIXED, include_defaults=True, take=8, cursor=first.next_cursor)
    assert {p.name: p.value for p in second.items}["MaxWidth"] == 640.0


def test_cursor_with_another_filter_is_invalid_argument(mixed: Harness) -> None:
    cursor = mixed.engine.properties(MIXED, include_defaults=True, take=2).next_cursor
    with pytest.raises(InvalidArgumentError):
        mixed.engine.properties(MIXED, include_defaults=True, take=2, cursor=cursor, filter="a")
    with pytest.raises(InvalidArgumentError):
        mixed.engine.properties(MIXED, include_defaults=False, take=2, cursor=cursor)
    with pytest.raises(InvalidArgumentError):
        mixed.engine.properties(Target(locators=("Window#w",)), include_defaults=True, take=2, cursor=cursor)


def test_default_take_is_one_hundred() -> None:
    many = FakeElement("Widget", "many", common_props=False, props=[FakeProp(f"P{i:03}", value=i) for i in range(150)])
    with harness(FakeApp(FakeElement("Window", children=[many]))) as h:
        page = h.engine.properties(Target(locators=("#many",)))
        assert len(page.items) == 100
        assert page.total_count == 150 and page.has_more is True
        rest = h.engine.properties(Target(locators=("#many",)), cursor=page.next_cursor)
        assert [p.name for p in rest.items] == [f"P{i:03}" for i in range(100, 150)]


@pytest.mark.parametrize("take", [0, 201, "5"])
def test_bad_take_is_invalid_argument(mixed: Harness, take: object) -> None:
    with pytest.raises(InvalidArgumentError):
        mixed.engine.properties(MIXED, take=take)  # type: ignore[arg-type]


@pytest.mark.parametrize("kwargs", [{"filter": 5}, {"filter": "x" * 201}, {"category": ["Layout"]}])
def test_bad_filter_or_category_is_invalid_argument(mixed: Harness, kwargs: dict) -> None:  # type: ignore[type-arg]
    with pytest.raises(InvalidArgumentError):
        mixed.engine.properties(MIXED, **kwargs)


def test_property_by_name_is_case_insensitive(mixed: Harness) -> None:
    prop = mixed.engine.property(MIXED, "maxwidth")
    assert prop.name == "MaxWidth" and prop.value == 500.0


def test_missing_property_is_property_not_found(mixed: Harness) -> None:
    with pytest.raises(PropertyNotFoundError) as info:
        mixed.engine.property(MIXED, "NoSuchProperty")
    err = info.value
    assert err.code == "PROPERTY_NOT_FOUND"
    assert err.detail["property"] == "NoSuchProperty"
    assert "wpf_get_properties" in err.suggestion


@pytest.mark.parametrize("name", ["", 5, None, "x" * 201])
def test_bad_property_name_is_invalid_argument(mixed: Harness, name: object) -> None:
    with pytest.raises(InvalidArgumentError):
        mixed.engine.property(MIXED, name)  # type: ignore[arg-type]


def test_probe_locator_properties(fake: Harness) -> None:
    page = fake.probe.locator("#saveButton").properties(filter="Content")
    assert [(p.name, p.value) for p in page.items] == [("Content", "Save")]
    assert fake.probe.locator("#cancelButton").property("IsEnabled").value is False


def test_next_page_of_a_dead_element_is_node_not_found(mixed: Harness) -> None:
    widget = mixed.app.windows[0].children[0]
    node_id = mixed.engine.node(MIXED).node_id
    first = mixed.engine.properties(Target(node_id=node_id), include_defaults=True, take=3)
    assert first.has_more
    widget.dispose()
    with pytest.raises(NodeNotFoundError):
        mixed.engine.properties(Target(node_id=node_id), include_defaults=True, take=3, cursor=first.next_cursor)
