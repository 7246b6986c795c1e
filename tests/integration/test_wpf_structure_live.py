"""The WPF adapter counts structure changes (``toolkits/wpf/_structure.py``), against the live WPF example.

Elements are added to and removed from the example's buttonPanel (a
StackPanel) on the UI thread: the count must move at once (the adapter runs the
pending layout pass before it reads), stay still while the UI is idle, and the
engine's name index must see an element added at run time because the count
moved, not only because a missing name made it look again. A window closing
moves the count too. WPF only runs on
Windows: this module runs in .github/workflows/windows.yml with
WPFPROBE_EXAMPLE=wpf, and is skipped on any other run by its toolkit mark.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

import pytest

from wpfprobe.core.errors import LocatorNotFoundError

pytestmark = [pytest.mark.usefixtures("running_app"), pytest.mark.toolkit("wpf")]

T = TypeVar("T")


def on_ui(probe: Any, fn: Callable[[], T]) -> T:
    result: T = probe.engine.ui.run(fn)
    return result


def version(probe: Any) -> int | None:
    return on_ui(probe, probe.engine.adapter.structure_version)


def settled_version(probe: Any, *, timeout: float = 15.0) -> int:
    """The count once the UI stops laying out (an earlier test may have left a timer or a focus move)."""
    deadline = time.monotonic() + timeout
    last = version(probe)
    while True:
        time.sleep(0.5)
        now = version(probe)
        if now is not None and now == last:
            return now
        assert time.monotonic() < deadline, (
            f"the count never settled ({last} -> {now}): something lays out all the time"
        )
        last = now


def add_label(probe: Any, name: str) -> Any:
    from System.Windows import Window
    from System.Windows.Controls import StackPanel, TextBlock

    def go() -> Any:
        window: Window = probe.engine.adapter.roots()[0]
        panel: StackPanel = window.FindName("buttonPanel")
        label = TextBlock()
        label.Name = name
        label.Text = "added at run time"
        panel.Children.Add(label)
        return label

    return on_ui(probe, go)


def remove(probe: Any, element: Any) -> None:
    def go() -> None:
        element.Parent.Children.Remove(element)

    on_ui(probe, go)


def test_an_idle_ui_keeps_its_count(probe: Any) -> None:
    before = settled_version(probe)
    time.sleep(1.5)
    assert version(probe) == before
    probe.tree(max_depth=4)  # reading the tree lays nothing out
    assert version(probe) == before


def test_adding_and_removing_an_element_moves_the_count_at_once(probe: Any) -> None:
    before = settled_version(probe)
    label = add_label(probe, "structureProbeLabel")
    try:
        added = version(probe)  # no wait: the read runs the layout pass the addition asked for
        assert added is not None and added != before
    finally:
        remove(probe, label)
    removed = version(probe)
    assert removed is not None and removed != added


def test_a_window_closing_moves_the_count(probe: Any) -> None:
    from System.Windows import Window

    def show() -> Any:
        window = Window()
        window.Title = "structure probe"
        window.Width, window.Height = 200.0, 100.0
        window.Show()
        return window

    window = on_ui(probe, show)
    try:
        assert on_ui(probe, lambda: probe.engine.adapter.watch_structure(window)) is True
        before = settled_version(probe)
    finally:
        on_ui(probe, window.Close)
    assert version(probe) != before


def test_a_find_by_name_sees_an_element_added_at_run_time(probe: Any) -> None:
    found = probe.locator("TextBlock#structureProbeAdded")
    with pytest.raises(LocatorNotFoundError):
        found.node()  # the index is built (or checked) without it
    index = probe.engine.name_index
    assert index is not None
    assert index.version is not None, "some window could not be watched, so the index is not versioned"
    label = add_label(probe, "structureProbeAdded")
    try:
        # The count moved, so the index is out of date before any lookup misses (the repair
        # a missing name makes would find it too, but only as a second walk in the same hop).
        assert version(probe) != index.version
        assert found.node().name == "structureProbeAdded"
    finally:
        remove(probe, label)
    with pytest.raises(LocatorNotFoundError):
        found.node()
