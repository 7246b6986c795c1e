"""A Probe's close: its handlers off the app once, and no reads after (the notebook's re-run cell,
tests/integration/test_lifecycle.py::test_attach_run_again_in_a_notebook_leaves_one_set_of_handlers)."""

from __future__ import annotations

from typing import Any

import pytest
from fake_toolkit import Harness

from wpfprobe.core.errors import AppNotAvailableError


def _count_detaches(fake: Harness) -> list[float]:
    calls: list[float] = []

    def detach(ui: Any, *, timeout: float) -> None:
        calls.append(timeout)

    fake.adapter.detach = detach  # type: ignore[attr-defined]
    return calls


def test_a_with_block_closes_the_probe_once_and_a_closed_probe_reads_no_more(fake: Harness) -> None:
    detaches = _count_detaches(fake)
    with fake.probe as probe:
        assert probe.windows()
        assert detaches == []
    assert detaches == [fake.engine.settings.ui_timeout]
    fake.probe.close()  # again: the shared hooks must not be released twice
    assert len(detaches) == 1
    # Each way the engine reaches the UI thread: one hop, a sliced read, a wait's polls.
    for read in (fake.probe.windows, fake.probe.tree, lambda: fake.probe.wait_for("#nothing", timeout=0.5)):
        with pytest.raises(AppNotAvailableError) as caught:
            read()
        assert "attach" in (caught.value.suggestion or "")
    assert len(detaches) == 1
