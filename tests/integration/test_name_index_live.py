"""The name index on a live WinForms app: controls added, renamed at run time and removed.

WinForms tells of ControlAdded/ControlRemoved (counted by the adapter) but not of a
Name set at run time: either way, a locator by name must give the answer a walk would.
"""

from __future__ import annotations

from typing import Any

import pytest

from wpfprobe.core.errors import LocatorAmbiguousError, LocatorNotFoundError

# It adds WinForms controls and counts WinForms' ControlAdded/ControlRemoved: a WPF run has
# neither (WPF's count is checked by test_wpf_structure_live.py).
pytestmark = [pytest.mark.usefixtures("running_app"), pytest.mark.toolkit("winforms")]


def test_the_name_index_follows_controls_added_renamed_and_removed(probe: Any) -> None:
    ui = probe.engine.ui

    def on_ui(fn: Any) -> Any:
        return ui.run(fn)

    def add(name: str) -> Any:
        from System.Windows.Forms import TextBox

        def go() -> Any:
            box = TextBox()
            box.Name = name
            probe.engine.adapter.roots()[0].Controls.Add(box)
            return box

        return on_ui(go)

    first = probe.locator("TextBox#indexProbeBox")
    with pytest.raises(LocatorNotFoundError):
        first.node()  # the index is built without it
    box1 = add("indexProbeBox")
    try:
        assert first.node().name == "indexProbeBox"  # a counted addition
        box2 = add("indexProbeBox")
        try:
            with pytest.raises(LocatorAmbiguousError):
                first.node()
            on_ui(lambda: setattr(box2, "Name", "indexProbeBox2"))  # no event for this
            assert first.node().node_id != probe.locator("TextBox#indexProbeBox2").node().node_id
        finally:
            on_ui(lambda: (box2.Parent.Controls.Remove(box2), box2.Dispose()))
    finally:
        on_ui(lambda: (box1.Parent.Controls.Remove(box1), box1.Dispose()))
    with pytest.raises(LocatorNotFoundError):
        first.node()
    with pytest.raises(LocatorNotFoundError):
        probe.locator("TextBox#indexProbeBox2").node()


def test_the_index_is_made_by_the_walk_in_net_and_a_change_in_a_container_it_hooked_is_counted(probe: Any) -> None:
    # The engine's own index walk read every control through pythonnet after every change (0.5 s of the
    # UI thread at 5,000 controls); the .NET walk reads them, and hooks each container's child events
    # itself, as StructureWatch.watch does: a control added to one only it hooked must be counted.
    from wpfprobe.engine import locating
    from wpfprobe_clr import _compiling

    engine = probe.engine
    # Attaching started the walk's compile (on a thread of its own, or posted to the UI thread):
    # until it is done, the index is made the engine's way.
    assert _compiling.wait(120)
    engine.hop(lambda h: None)
    ui = engine.ui
    walks: list[Any] = []
    index_walk = locating.Locating._index_walk

    def counted(self: Any, root: Any) -> Any:
        walks.append(walk := index_walk(self, root))
        return walk

    def nested_panel() -> Any:
        from System.Windows.Forms import Panel

        # A container of the app's that no index walk has met yet: only the next walk can hook it.
        outer, inner = Panel(), Panel()
        outer.Controls.Add(inner)
        engine.adapter.roots()[0].Controls.Add(outer)
        return outer, inner

    outer, inner = ui.run(nested_panel)
    locating.Locating._index_walk = counted  # type: ignore[method-assign]
    try:
        with pytest.raises(LocatorNotFoundError):
            probe.locator("TextBox#hookedByWalkBox").node()  # the index walked anew, by the walk
        assert walks and all(w is not None for w in walks), "made by the toolkit's walk"
        assert all(w.watched for w in walks)
        version = ui.run(engine.adapter.structure_version)

        def add_inside() -> None:
            from System.Windows.Forms import TextBox

            box = TextBox()
            box.Name = "hookedByWalkBox"
            inner.Controls.Add(box)

        ui.run(add_inside)
        assert ui.run(engine.adapter.structure_version) == version + 1, "counted by the hook the walk added"
        assert probe.locator("TextBox#hookedByWalkBox").node().name == "hookedByWalkBox"
    finally:
        locating.Locating._index_walk = index_walk  # type: ignore[method-assign]
        ui.run(lambda: (outer.Parent.Controls.Remove(outer), outer.Dispose()))


def test_a_container_hooked_by_the_engines_own_walk_is_hooked_once_and_its_changes_counted(probe: Any) -> None:
    # StructureWatch.watch hooks a control (or a menu item's drop-down) in one call to a compiled
    # delegate (was up to seven pythonnet calls, each one's first use on the UI thread, and the
    # drop-down made into a Python object): a control's ControlAdded, a ToolStrip's ItemAdded and a
    # drop-down's ItemAdded each count once, however often the element is watched.
    engine = probe.engine
    adapter, ui = engine.adapter, engine.ui

    def made() -> Any:
        from System.Windows.Forms import Panel, ToolStrip, ToolStripMenuItem

        panel, strip, menu = Panel(), ToolStrip(), ToolStripMenuItem("Indexed")
        menu.DropDownItems.Add(ToolStripMenuItem("first"))
        strip.Items.Add(menu)
        adapter.roots()[0].Controls.Add(panel)
        panel.Controls.Add(strip)
        return panel, strip, menu

    panel, strip, menu = ui.run(made)
    try:

        def watched_twice() -> int:
            for _ in range(2):
                assert all(adapter.watch_structure(el) for el in (panel, strip, menu))
            return int(adapter.structure_version())

        before = ui.run(watched_twice)

        def changed() -> list[int]:
            from System.Windows.Forms import Label, ToolStripButton, ToolStripMenuItem

            counts = []
            panel.Controls.Add(Label())
            counts.append(int(adapter.structure_version()))
            strip.Items.Add(ToolStripButton("counted"))
            counts.append(int(adapter.structure_version()))
            menu.DropDownItems.Add(ToolStripMenuItem("second"))
            counts.append(int(adapter.structure_version()))
            return counts

        assert ui.run(changed) == [before + 1, before + 2, before + 3]
    finally:
        ui.run(lambda: (panel.Parent.Controls.Remove(panel), panel.Dispose()))
