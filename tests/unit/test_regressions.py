"""One test per bug fixed, named after what broke."""

from __future__ import annotations

import gc
import weakref
from typing import Any

import pytest
from fake_toolkit import UiWorker

from wpfprobe.core.errors import NodeNotFoundError, ProbeError
from wpfprobe_clr._ui_thread import UiThread


class _Element:
    """Stands in for a live UI object."""


def test_error_from_the_ui_thread_does_not_keep_ui_objects_alive() -> None:
    """A traceback carried back to the caller kept the failing frame's locals, so a
    closed window that raised NODE_NOT_FOUND could never be collected."""
    worker = UiWorker().start()
    try:
        ui = UiThread(post=worker.post, check_access=worker.is_current, default_timeout=5)
        refs: list[weakref.ref[Any]] = []

        def fail() -> None:
            element = _Element()
            refs.append(weakref.ref(element))
            raise NodeNotFoundError("gone")

        with pytest.raises(ProbeError) as err:
            ui.run(fail)
        gc.collect()
        assert err.value.__traceback__ is not None, "the traceback itself is kept for debugging"
        assert refs[0]() is None, "the element held by the failing frame must be collectable"

        def fail_python() -> None:
            element = _Element()
            refs.append(weakref.ref(element))
            raise ValueError("bad")

        with pytest.raises(ProbeError) as translated:
            ui.run(fail_python)
        gc.collect()
        assert translated.value.detail["exceptionType"] == "ValueError"
        assert refs[1]() is None
    finally:
        worker.stop()


def _wide_app(children: int) -> Any:
    from fake_toolkit import FakeApp, FakeElement

    panel = FakeElement("Panel", "wide", children=[FakeElement("Button", text=f"b{i}") for i in range(children)])
    return FakeApp(FakeElement("Window", "main", text="Main", children=[panel]))


def test_children_pages_of_a_wide_parent_list_the_siblings_once_per_hop() -> None:
    """Each child's locator re-listed every sibling: one page of 100 under a parent of
    2,000 children held the UI thread for seconds (quadratic in the siblings)."""
    from fake_toolkit import harness

    from wpfprobe.engine.engine import Target

    with harness(_wide_app(400)) as h:
        panel = h.engine.node(Target(locators=("#wide",))).node_id
        h.adapter.calls.clear()
        page = h.engine.children(panel, take=100)
        assert len(page.items) == 100
        # Linear: the census walk (one listing per element, 400), one per projected
        # child for its child count (100), the snapshot and one sibling index.
        # Quadratic was one sibling listing per child: 100 x 400 names read.
        assert h.adapter.calls.get("children", 0) < 400 + 100 + 20, h.adapter.calls
        assert h.adapter.calls.get("naming", 0) < 3 * 400 + 3 * 100, h.adapter.calls
        h.adapter.calls.clear()
        second = h.engine.children(panel, take=100, cursor=page.next_cursor)
        assert [n.locator for n in second.items][:2] == ["Panel#wide/Button[100]", "Panel#wide/Button[101]"]
        assert h.adapter.calls.get("children", 0) < 100 + 20, h.adapter.calls
        assert h.adapter.calls.get("naming", 0) < 400 + 3 * 100, h.adapter.calls


def test_the_name_census_is_reused_only_within_its_ttl() -> None:
    """The app-wide name count was walked on every hop (83 ms at 5,000 controls);
    it is now kept for census_ttl seconds, and 0 means always fresh."""
    from fake_toolkit import FakeElement, harness

    from wpfprobe.core.settings import ProbeSettings
    from wpfprobe.engine.engine import Target

    for ttl, expect_fresh in ((0.0, True), (3600.0, False)):
        app = _wide_app(2)
        with harness(app, ProbeSettings(census_ttl=ttl)) as h:
            assert h.engine.node(Target(locators=("#wide",))).locator == "Panel#wide"
            window = app.windows[0]
            twin = FakeElement("Panel", "wide")
            h.ui.run(lambda window=window, twin=twin: window.add(twin))  # a second element with the same name
            fresh = h.engine.node(Target(locators=("Window#main > Panel:nth(0)",)))
            if expect_fresh:
                assert fresh.locator != "Panel#wide", "a fresh census knows the name is no longer unique"
            else:
                assert fresh.locator == "Panel#wide", "within the TTL the cached census is reused"


def test_a_census_kept_from_before_a_control_appeared_does_not_cost_it_its_name_locator() -> None:
    """A control shown within census_ttl of the last census was not in the kept counts, so
    its unique name counted 0 and its locator fell back to a path (test_items saw
    Form[1]/TextBox[0]/... for TextBox#notes after the docs tests had just run)."""
    from fake_toolkit import FakeElement, harness

    from wpfprobe.core.settings import ProbeSettings
    from wpfprobe.engine.engine import Target

    app = _wide_app(2)
    with harness(app, ProbeSettings(census_ttl=3600.0)) as h:
        assert h.engine.node(Target(locators=("#wide",))).locator == "Panel#wide"  # the census is now kept
        window = app.windows[0]
        late = FakeElement("TextBox", "notes")
        h.ui.run(lambda: window.add(late))
        assert h.engine.node(Target(locators=("#notes",))).locator == "TextBox#notes"


def test_node_id_prefixes_use_only_letters_that_tokenize_cheaply() -> None:
    """Random prefixes such as 'qz' or 'yk' split into extra tokens, pushing the compact
    tree past 12 tokens per node (benchmarks/bench_mcp.py measured 12.8 with o200k)."""
    from wpfprobe_clr._objects import ID_PREFIX_LETTERS

    assert set(ID_PREFIX_LETTERS) <= set("abcdefghilmnoprstw")
    assert len(ID_PREFIX_LETTERS) ** 2 >= 300, "enough prefixes that an earlier run's ids rarely alias"
