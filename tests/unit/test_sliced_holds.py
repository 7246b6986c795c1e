"""Long work in slices (EngineBase.sliced): the UI thread is let go between slices, and a result is never a mix.

On the fake toolkit with ``versioned`` on, child additions and removals are counted
as the WinForms adapter counts ControlAdded/ControlRemoved.
"""

from __future__ import annotations

from typing import Any

from fake_toolkit import FakeApp, FakeElement, harness

from wpfprobe.core.settings import ProbeSettings

TINY = 1e-9  # every slice check is due: one node per slice


def _app(rows: int = 30) -> tuple[FakeApp, FakeElement]:
    panel = FakeElement("Panel", "rows", children=[FakeElement("Button", f"b{i}", text=f"B{i}") for i in range(rows)])
    return FakeApp(FakeElement("Window", "main", text="Main", children=[panel])), panel


def _with(h: Any, **changes: Any) -> None:
    h.engine.settings = h.engine.settings.model_copy(update=changes)


def _names(tree: Any) -> list[str | None]:
    out, stack = [], [tree.root]
    while stack:
        node = stack.pop(0)
        out.append(node.name)
        stack.extend(node.children or ())
    return out


def test_a_sliced_tree_lets_the_ui_thread_go_and_equals_the_tree_taken_in_one_hop() -> None:
    app, _panel = _app()
    with harness(app, ProbeSettings(ui_slice=0.0)) as h:
        h.adapter.versioned = True
        whole = h.engine.tree(max_depth=5)
        _with(h, ui_slice=TINY)
        before = h.ui.runs
        sliced = h.engine.tree(max_depth=5)
        assert h.ui.runs - before > 10, "the snapshot was taken in slices"
        assert sliced.model_dump() == whole.model_dump()


def test_a_change_between_slices_starts_the_snapshot_again() -> None:
    app, panel = _app()
    with harness(app, ProbeSettings(ui_slice=TINY)) as h:
        h.adapter.versioned = True
        original = h.ui.run
        calls = {"n": 0}

        def run(fn: Any, *, timeout: float | None = None) -> Any:
            calls["n"] += 1
            if calls["n"] == 5:  # between two slices of the first attempt, the app adds a control
                original(lambda: panel.add(FakeElement("Button", "late", text="Late")))
            return original(fn, timeout=timeout)

        h.ui.run = run  # type: ignore[method-assign]
        tree = h.engine.tree(max_depth=5)
        names = _names(tree)
        assert "late" in names, "the attempt that began before the change was dropped, not finished"
        assert names.count("late") == 1 and len(names) == 2 + 31


def test_a_tree_that_keeps_changing_is_taken_in_one_hop() -> None:
    app, panel = _app(10)
    with harness(app, ProbeSettings(ui_slice=TINY, slice_attempts=2)) as h:
        h.adapter.versioned = True
        original = h.ui.run
        added = []

        def run(fn: Any, *, timeout: float | None = None) -> Any:
            if len(added) < 50:  # a change before every slice
                added.append(original(lambda: panel.add(FakeElement("Label", text="x"))))
            return original(fn, timeout=timeout)

        h.ui.run = run  # type: ignore[method-assign]
        tree = h.engine.tree(max_depth=5)
        assert tree.returned_node_count == 2 + len(panel.children), "one consistent snapshot in the end"


def test_an_adapter_that_cannot_count_changes_is_read_in_one_hop() -> None:
    app, _panel = _app()
    with harness(app, ProbeSettings(ui_slice=TINY)) as h:
        before = h.ui.runs
        h.engine.tree(max_depth=5)
        assert h.ui.runs - before == 1


def test_diagnostics_walk_the_app_in_slices_with_the_same_findings() -> None:
    app, panel = _app()
    panel.add(FakeElement("Button", "b0"))  # a duplicate name: a finding
    with harness(app, ProbeSettings(ui_slice=0.0)) as h:
        h.adapter.versioned = True
        whole = h.engine.diagnostics(take=200)
        _with(h, ui_slice=TINY)
        before = h.ui.runs
        sliced = h.engine.diagnostics(take=200)
        assert h.ui.runs - before > 10, "the walk was taken in slices"
        assert sliced.model_dump() == whole.model_dump()


def test_the_name_index_walk_a_snapshot_needs_is_sliced_too() -> None:
    """The index is rebuilt by a whole-app walk (after a change or its TTL): that walk was one hold."""
    app, _panel = _app()
    with harness(app, ProbeSettings(ui_slice=TINY)) as h:
        h.adapter.versioned = True
        h.engine.tree(max_depth=5)
        kept = h.ui.runs
        h.engine.tree(max_depth=5)
        with_kept_index = h.ui.runs - kept
        h.engine.name_index = None  # as after a change: the next snapshot walks the app for names first
        before = h.ui.runs
        tree = h.engine.tree(max_depth=5)
        assert h.ui.runs - before >= with_kept_index + 30, "the index walk let the UI thread go between elements"
        assert tree.root.children and tree.root.children[0].locator == "Panel#rows"


def test_the_garbage_collector_waits_while_a_hop_holds_the_ui_thread_and_runs_after() -> None:
    """A full collection took 31 ms on the UI thread in the heartbeat benchmark; it belongs to the caller."""
    import gc

    app, _panel = _app()
    with harness(app, ProbeSettings(ui_slice=TINY)) as h:
        h.adapter.versioned = True
        seen: list[bool] = []
        original = h.ui.run

        def run(fn: Any, *, timeout: float | None = None) -> Any:
            return original(lambda: (seen.append(gc.isenabled()), fn())[1], timeout=timeout)

        h.ui.run = run  # type: ignore[method-assign]
        assert gc.isenabled()
        h.engine.tree(max_depth=5)
        h.engine.hop(lambda hop: hop.main_window())
        assert len(seen) > 10 and not any(seen), "off for every slice and hop"
        assert gc.isenabled(), "back on once the work is done"
        gc.disable()  # an app that runs without the collector keeps it that way
        try:
            h.engine.tree(max_depth=5)
            assert not gc.isenabled()
        finally:
            gc.enable()


def test_the_collector_stays_off_between_slices_too_and_runs_between_them_after_a_while(
    monkeypatch: Any,
) -> None:
    # What a hop keeps between slices (a diagnostics walk's items) was promoted by the collections run
    # between them until a full one ran: 265 ms measured on the caller's thread, loaded (30 ms quiet).
    import gc

    from wpfprobe.engine import base

    app, _panel = _app()
    with harness(app, ProbeSettings(ui_slice=TINY)) as h:
        h.adapter.versioned = True
        between: list[bool] = []
        original = h.ui.run

        def run(fn: Any, *, timeout: float | None = None) -> Any:
            between.append(gc.isenabled())  # on the caller's thread, before the slice is posted
            return original(fn, timeout=timeout)

        h.ui.run = run  # type: ignore[method-assign]
        h.engine.diagnostics(take=5)
        assert len(between) > 10 and not any(between), "off between slices too"
        assert gc.isenabled()
        ran: list[int] = []
        gc.callbacks.append(callback := lambda phase, info: ran.append(1) if phase == "start" else None)
        try:
            monkeypatch.setattr(base, "MAX_DEFERRAL", 0.0)  # every slice is past the longest deferral
            gc.collect()
            kept = gc.get_threshold()
            gc.set_threshold(1)  # so that the allocation between two slices is due a collection
            ran.clear()
            h.engine.diagnostics(take=5)
        finally:
            gc.set_threshold(*kept)
            gc.callbacks.remove(callback)
        assert ran, "the collector ran between slices once the deferral was long enough"
        assert gc.isenabled()


def test_an_app_wide_find_by_type_or_text_is_taken_in_slices_and_finds_the_same() -> None:
    app, _panel = _app()
    with harness(app, ProbeSettings(ui_slice=0.0)) as h:
        h.adapter.versioned = True
        whole = h.engine.find(type_name="Button", text="B1", max_results=50)
        _with(h, ui_slice=TINY)
        h.engine.find(type_name="Button", max_results=1)  # the name index, built in slices of its own
        before = h.ui.runs
        sliced = h.engine.find(type_name="Button", text="B1", max_results=50)
        assert h.ui.runs - before > 10, "the search let the UI thread go"
        assert sliced.model_dump() == whole.model_dump()
        assert [r.node.text for r in sliced.results] == ["B1", *(f"B{i}" for i in range(10, 20))]


def test_a_read_after_the_index_was_dropped_rebuilds_it_in_slices_whatever_the_tool() -> None:
    """Reads that resolve a locator or name elements made the index current in their one hop: on a 5,000-control
    form the first locator after a change held the UI thread for half a second (bench_snapshot's longest hold)."""
    from wpfprobe.engine.target import Target

    app, _panel = _app()
    target = Target(locators=("#b7",))
    reads: dict[str, Any] = {
        "inspect": lambda e: e.inspect(target),
        "ancestors": lambda e: e.ancestors(target),
        "count": lambda e: e.count(target),
        "resolve_ids": lambda e: e.resolve_ids(target),
        "property": lambda e: e.property(target, "Width"),
        "bindings": lambda e: e.bindings(target),
        "triggers": lambda e: e.triggers(target),
        "windows": lambda e: e.windows(),
    }
    with harness(app, ProbeSettings(ui_slice=TINY)) as h:
        h.adapter.versioned = True
        for name, read in reads.items():
            h.engine.name_index = None  # as after a change: the next read walks the app for names first
            before = h.ui.runs
            read(h.engine)
            assert h.ui.runs - before > 30, f"{name}: the index walk let the UI thread go between elements"
            before = h.ui.runs
            read(h.engine)
            assert h.ui.runs - before == 1, f"{name}: with the index current, one hop"
