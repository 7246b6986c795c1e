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
