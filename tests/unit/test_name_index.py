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


def _mixed_app() -> FakeApp:
    """Names repeated and unique, automation ids, a toolbar whose items the walk leaves to the engine
    (with a named item that has named children of its own), and a second window."""
    menu = FakeElement("ToolStripMenuItem", "fileMenu", children=[FakeElement("ToolStripMenuItem", "saveItem")])
    toolbar = FakeElement("ToolStrip", "bar", children=[FakeElement("ToolStripButton", "newButton"), menu])
    rows = [FakeElement("Panel", None, children=[FakeElement("TextBox", f"f{i}"), FakeElement("Button", "browse")])
            for i in range(12)]  # fmt: skip
    main = FakeElement("Window", "main", children=[toolbar, *rows, FakeElement("Label", None, automation_id="aid")])
    return FakeApp(main, FakeElement("Window", "other", children=[FakeElement("Button", "browse")]))


def test_the_index_made_from_the_toolkits_walk_is_the_one_the_engines_own_walk_makes() -> None:
    # The engine's own index walk read every element through the adapter after every change: 0.5 s of
    # the UI thread for 5,000 controls. The toolkit's walk reads them in .NET now; what it leaves
    # incomplete (a toolbar's items) is read the engine's way, in the same document order.
    def index(walks: bool) -> Any:
        app = _mixed_app()
        # Each element's place in document order: node ids are given in the order elements are met.
        order: dict[int, int] = {}
        stack = list(reversed(app.windows))
        while stack:
            el = stack.pop()
            order[id(el)] = len(order)
            stack.extend(reversed(el.children))
        with harness(app, ProbeSettings(ui_slice=1e-9)) as h:
            _versioned(h)
            h.adapter.walks = walks
            h.adapter.walk_leaves = ("ToolStrip",)
            watched: list[Any] = []
            watch = h.adapter.watch_structure
            h.adapter.watch_structure = lambda el: (watched.append(el), watch(el))[1]  # type: ignore[method-assign]
            h.engine.find(name="browse")
            made = h.engine.name_index
            assert made is not None and made.version is not None, "every container watched"
            places = {k: [order[id(h.engine.objects.get(i))] for i in ids] for k, ids in made.by_key.items()}
            return places, dict(made.counts), h.adapter.calls.get("index_walk", 0), {id(e) for e in watched}

    own_keys, own_counts, _, own_watched = index(False)
    keys, counts, walks, watched = index(True)
    assert walks == 2, "one walk per window"
    assert keys == own_keys and counts == own_counts
    assert len(keys["browse"]) == 13 and counts[("toolstripmenuitem", "saveItem")] == 1
    assert len(watched) == len(own_watched), "every element watched, once"
