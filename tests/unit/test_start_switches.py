"""While the probe starts, the interpreter switches threads every 1 ms at most (mcp/starting.py
``short_switches``): a Python handler on the app's UI thread waited several 5 ms intervals in a
row for the GIL while the start-up ran Python. After it, the app's interval is back, or kept."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from wpfprobe.mcp.starting import SWITCH_INTERVAL, short_switches


@pytest.fixture(autouse=True)
def _interval_kept() -> Iterator[None]:
    before = sys.getswitchinterval()
    yield
    sys.setswitchinterval(before)


def test_the_interval_is_short_meanwhile_and_as_it_was_after() -> None:
    sys.setswitchinterval(0.005)
    with short_switches():
        assert sys.getswitchinterval() == pytest.approx(SWITCH_INTERVAL)
    assert sys.getswitchinterval() == pytest.approx(0.005)


def test_a_shorter_interval_of_the_apps_is_not_lengthened() -> None:
    sys.setswitchinterval(0.0002)
    with short_switches():
        assert sys.getswitchinterval() == pytest.approx(0.0002)
    assert sys.getswitchinterval() == pytest.approx(0.0002)


def test_an_interval_the_app_set_meanwhile_is_kept() -> None:
    sys.setswitchinterval(0.005)
    with short_switches():
        sys.setswitchinterval(0.01)
    assert sys.getswitchinterval() == pytest.approx(0.01)


def test_the_interval_is_back_when_the_start_up_raises() -> None:
    sys.setswitchinterval(0.005)
    with pytest.raises(RuntimeError), short_switches():
        raise RuntimeError("the start-up failed")
    assert sys.getswitchinterval() == pytest.approx(0.005)
