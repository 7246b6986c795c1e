"""The snapshot made from the .NET walk (engine/walked.py + the toolkit's walker) against the engine's own.

The engine's own path (``toolkit_walk=False``: every element read from Python)
is the oracle. For every window of the example that runs (WinForms here, and
WPF too in the Windows workflow: ``toolkits/winforms/walker.py`` or
``toolkits/wpf/_walker.py``), and for the WinForms widget zoo (every standard
control, items, MDI, Python-defined windows and panels), the two snapshots
must be equal node for node: ids, types, names, texts as the user reads them
(redacted the same way), states, child counts, locators, errors, the node cap
and the depth cut.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

# Every test runs on the example the run drives (WPFPROBE_EXAMPLE); the zoo's are WinForms only.
pytestmark = [pytest.mark.toolkit("winforms", "wpf")]


@pytest.fixture(autouse=True)
def _walk_compiled(probe: Any, toolkit: str) -> None:
    """Attaching posted the walk's compilation to the UI thread; a hop after it finds it done."""
    if toolkit == "wpf":
        from wpfprobe_clr.toolkits.wpf import _walker as walker
    else:
        from wpfprobe_clr.toolkits.winforms import walker  # type: ignore[no-redef]

    probe.engine.hop(lambda h: None)
    assert walker.ready()


#: The walks ``_both`` took, as ``walked.prepare_steps`` handed them to ``build``.
_prepared: list[Any] = []


def _both(probe: Any, root: str | None, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    from wpfprobe.engine import walked

    engine = probe.engine
    kept = engine.settings
    built: list[Any] = []
    build = walked.build

    def counted(prepared: Any) -> Any:
        _prepared.append(prepared)
        built.append(result := build(prepared))
        return result

    try:
        engine.settings = kept.model_copy(update={"toolkit_walk": True})
        walked.build = counted  # type: ignore[assignment]
        try:
            fast = probe.tree(root, **kwargs).model_dump()
        finally:
            walked.build = build  # type: ignore[assignment]
        assert len(built) == 1 and built[0] is not None, "the snapshot was made from the walk"
        engine.settings = kept.model_copy(update={"toolkit_walk": False})
        own = probe.tree(root, **kwargs).model_dump()
    finally:
        engine.settings = kept
    return fast, own


def _differences(fast: dict[str, Any], own: dict[str, Any], at: str = "") -> Iterator[str]:
    for key in sorted(set(fast) | set(own)):
        if key == "children":
            continue
        if fast.get(key) != own.get(key):
            yield f"{at or 'root'}: {key} walk={fast.get(key)!r} own={own.get(key)!r}"
    fast_kids, own_kids = fast.get("children") or [], own.get("children") or []
    if len(fast_kids) != len(own_kids):
        yield f"{at or 'root'}: {len(fast_kids)} children walked, {len(own_kids)} read"
    for a, b in zip(fast_kids, own_kids, strict=False):
        yield from _differences(a, b, b.get("locator") or "?")


def _nodes(tree: dict[str, Any]) -> int:
    return 1 + sum(_nodes(k) for k in tree.get("children") or ())


def _assert_same(probe: Any, root: str | None, **kwargs: Any) -> int:
    fast, own = _both(probe, root, **kwargs)
    problems = [f"{k}: walk={fast[k]!r} own={own[k]!r}" for k in fast if k != "root" and fast[k] != own[k]]
    problems += _differences(fast["root"], own["root"])
    assert problems == [], "\n".join(problems[:40])
    assert fast == own  # and nothing else differs (truncation, counts)
    return _nodes(own["root"])


@pytest.mark.usefixtures("running_app")
def test_the_walk_snapshots_every_window_of_the_example_as_the_engine_does(probe: Any) -> None:
    windows = probe.windows()
    assert windows
    total = 0
    _prepared.clear()
    for window in windows:
        total += _assert_same(probe, window.locator, max_depth=10)
    assert total > 20
    # The walk itself made most nodes: a walk that left everything to the engine would pass the rest.
    walked_whole = sum(n.complete for p in _prepared for n in p.walk.nodes())
    assert walked_whole >= 10, (walked_whole, total)


@pytest.mark.usefixtures("running_app")
def test_the_walk_cuts_at_the_same_depth_and_node_cap(probe: Any) -> None:
    for depth in (0, 1, 2):
        _assert_same(probe, None, max_depth=depth)
    engine = probe.engine
    kept = engine.settings
    engine.settings = kept.model_copy(update={"max_tree_nodes": 7})
    try:
        _assert_same(probe, None, max_depth=10)
    finally:
        engine.settings = kept


@pytest.mark.usefixtures("running_app")
def test_the_walk_redacts_the_password_box(probe: Any) -> None:
    from wpfprobe.core.redaction import REDACTED

    fast, _own = _both(probe, None, max_depth=10)
    texts = []
    stack = [fast["root"]]
    while stack:
        node = stack.pop()
        texts.append(node.get("text"))
        stack.extend(node.get("children") or ())
    assert REDACTED in texts


@pytest.mark.toolkit("winforms")
def test_the_walk_snapshots_the_widget_zoo_as_the_engine_does(zoo_probe: Any) -> None:
    total = 0
    for window in zoo_probe.windows():
        total += _assert_same(zoo_probe, window.locator, max_depth=10)
    assert total > 300, total


@pytest.mark.toolkit("winforms")
def test_a_walk_in_many_slices_snapshots_the_zoo_as_one_in_a_single_slice(zoo_probe: Any) -> None:
    """Slices of 0.3 ms: the walk stops every few dozen controls and goes on from where it stopped."""
    engine = zoo_probe.engine
    kept = engine.settings
    whole = zoo_probe.tree(None, max_depth=10).model_dump()
    engine.settings = kept.model_copy(update={"ui_slice": 0.0003})
    try:
        sliced = zoo_probe.tree(None, max_depth=10).model_dump()
        _assert_same(zoo_probe, None, max_depth=10)
    finally:
        engine.settings = kept
    assert sliced == whole
