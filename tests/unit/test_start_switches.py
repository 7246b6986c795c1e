"""While the probe starts or works, the interpreter switches threads every 1 ms at most
(core/switching.py): a Python handler on the app's UI thread waited several 5 ms intervals in a
row for the GIL while the probe ran Python. After it, the app's interval is back, or kept."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from wpfprobe.core.switching import SWITCH_INTERVAL, short_switches


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


def test_overlapping_users_share_the_short_interval_until_the_last_ends() -> None:
    """The start-up and a read's deferral overlap (a client calls while the walk compiles): the
    first to end must not put the app's interval back under the other."""
    import threading

    from wpfprobe.engine.base import collection_deferred

    sys.setswitchinterval(0.005)
    start_up = short_switches()
    start_up.__enter__()
    with collection_deferred():
        start_up.__exit__(None, None, None)
        assert sys.getswitchinterval() == pytest.approx(SWITCH_INTERVAL), "the read lost it"
        seen: list[float] = []
        other = threading.Thread(target=lambda: seen.append(sys.getswitchinterval()))
        other.start()
        other.join()
        assert seen == [pytest.approx(SWITCH_INTERVAL)], "the interval is the process's"
    assert sys.getswitchinterval() == pytest.approx(0.005)


def test_a_reads_deferral_shortens_the_interval_while_it_lasts() -> None:
    """Regression: with the default 5 ms, a Python callable posted to the UI thread waited 28-47 ms
    for the GIL during a 5,000-node tree(), while the caller's thread made its nodes."""
    from wpfprobe.engine.base import collection_deferred

    sys.setswitchinterval(0.005)
    with collection_deferred(), collection_deferred():
        assert sys.getswitchinterval() == pytest.approx(SWITCH_INTERVAL)
    assert sys.getswitchinterval() == pytest.approx(0.005)
