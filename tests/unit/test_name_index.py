"""The name index (engine/name_index.py): lookups by name without a walk per call, never a wrong answer.

On the fake toolkit with ``versioned`` on, child additions and removals are
counted as WinForms counts ControlAdded/ControlRemoved; a rename and a
detachment done behind the toolkit's back are not, as in WinForms.
"""

from __future__ import annotations

from typing import Any

import pytest
from fake_toolkit import FakeApp, FakeElement, harness

from wpfprobe.core.errors import LocatorAmbiguousError, LocatorNotFoundError
from wpfprobe.core.settings import ProbeSettings
from wpfprobe.engine.engine import Target


def _app(rows: int = 200) -> tuple[FakeApp, FakeElement]:
    panel = FakeElement(
        "Panel", "rows", children=[FakeElement("TextBox", f"field{i}Box", text=f"v{i}") for i in range(rows)]
    )
    return FakeApp(FakeElement("Window", "main", text="Main", children=[panel])), panel


def _versioned(h: Any) -> None:
    h.adapter.versioned = True


def test_a_name_is_resolved_again_without_walking_the_app() -> None:
    app, _panel = _app()
    with harness(app, ProbeSettings(census_ttl=0.0)) as h:
        _versioned(h)
        first = h.engine.node(Target(locators=("TextBox#field7Box",)))
        h.adapter.calls.clear()
        again = h.engine.node(Target(locators=("TextBox#field7Box",)))
        assert again.node_id == first.node_id
        assert again.locator == "TextBox#field7Box"
        # A walk lists every element's children (202); a lookup reads a few.
        assert h.adapter.calls.get("children", 0) < 10, h.adapter.calls


def test_find_by_name_over_the_app_comes_from_the_index_and_matches_a_walk() -> None:
    app, _panel = _app()
    with harness(app, ProbeSettings(census_ttl=0.0)) as h:
        # Under a root the index does not answer: a walk.
        walked = h.engine.find(root=Target(locators=("Window#main",)), name="field12Box")
        _versioned(h)
        h.engine.find(name="field12Box")
        h.adapter.calls.clear()
        indexed = h.engine.find(name="field12Box")
        assert [r.node.node_id for r in indexed.results] == [r.node.node_id for r in walked.results]
        assert h.adapter.calls.get("children", 0) < 10, h.adapter.calls


def test_a_name_set_without_an_event_is_found_by_a_repair_and_the_old_name_is_not() -> None:
    app, panel = _app()
    with harness(app, ProbeSettings(census_ttl=3600.0)) as h:
        _versioned(h)
        h.engine.node(Target(locators=("TextBox#field3Box",)))  # the index is built
        box = panel.children[3]
        h.ui.run(lambda: setattr(box, "name", "renamedBox"))  # WinForms has no NameChanged
        with pytest.raises(LocatorNotFoundError):
            h.engine.node(Target(locators=("TextBox#field3Box",)))
        found = h.engine.node(Target(locators=("TextBox#renamedBox",)))
        assert found.name == "renamedBox"
        assert found.locator == "TextBox#renamedBox"


def test_an_element_taken_out_of_the_tree_without_an_event_is_not_a_hit() -> None:
    app, panel = _app()
    with harness(app) as h:
        _versioned(h)
        h.engine.node(Target(locators=("TextBox#field5Box",)))
        box = panel.children[5]
        # Detached behind the toolkit's back: no change is counted, the element is still alive.
        h.ui.run(lambda: (panel.children.remove(box), setattr(box, "parent", None)))
        with pytest.raises(LocatorNotFoundError):
            h.engine.node(Target(locators=("TextBox#field5Box",)))


def test_a_counted_addition_makes_a_kept_name_ambiguous_at_once() -> None:
    app, panel = _app()
    with harness(app, ProbeSettings(census_ttl=3600.0, name_index_ttl=3600.0)) as h:
        _versioned(h)
        assert h.engine.node(Target(locators=("#field9Box",))).locator == "TextBox#field9Box"
        h.ui.run(lambda: panel.add(FakeElement("TextBox", "field9Box")))
        with pytest.raises(LocatorAmbiguousError):
            h.engine.node(Target(locators=("TextBox#field9Box",)))
        first = h.engine.node(Target(locators=("Panel#rows > TextBox:nth(9)",)))
        assert first.locator != "TextBox#field9Box", "the census knows the name is no longer unique"


def test_without_counted_changes_the_index_lives_only_census_ttl() -> None:
    app, _panel = _app()
    with harness(app, ProbeSettings(census_ttl=0.0)) as h:
        h.engine.node(Target(locators=("TextBox#field7Box",)))
        h.adapter.calls.clear()
        h.engine.node(Target(locators=("TextBox#field7Box",)))
        assert h.adapter.calls.get("children", 0) > 200, "an unversioned adapter is walked again"
