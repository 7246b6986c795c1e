"""The poster thread ends when a probe stops and comes back for the next one (wpfprobe detach).

Regression: ``stop()`` left ``wpfprobe-ui-poster`` running for the life of the app, because
the module's one poster could only be closed for good, at exit.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from fake_toolkit import UiWorker

from wpfprobe.core.errors import AppNotAvailableError
from wpfprobe_clr._ui_thread import UiThread, _Poster, release_poster


def poster_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "wpfprobe-ui-poster"]


@pytest.fixture
def worker() -> Iterator[UiWorker]:
    w = UiWorker().start()
    yield w
    w.stop()


def test_release_ends_the_poster_thread_and_the_next_call_starts_one(worker: UiWorker) -> None:
    ui = UiThread(post=worker.post, check_access=worker.is_current)  # type: ignore[arg-type]
    caller = threading.Thread(target=lambda: ui.run(lambda: None))
    caller.start()
    caller.join(10)
    assert poster_threads(), "a call from another thread goes through the poster thread"
    assert release_poster()
    assert poster_threads() == []
    # The next call from another thread works, through a new poster thread.
    results: list[int] = []
    caller = threading.Thread(target=lambda: results.append(ui.run(lambda: 42)))
    caller.start()
    caller.join(10)
    assert results == [42]
    assert len(poster_threads()) == 1
    assert release_poster()
    assert poster_threads() == []


def test_posts_queued_before_a_release_are_still_made() -> None:
    poster = _Poster()
    made: list[int] = []
    gate = threading.Event()

    def post(work: object) -> None:
        gate.wait(5)
        made.append(1)

    for _ in range(3):
        poster.submit(post, lambda: None, on_error=None)
    ending = threading.Thread(target=poster.release)
    ending.start()
    gate.set()
    ending.join(10)
    assert made == [1, 1, 1]
    assert not poster.running


def test_a_post_after_a_release_never_takes_the_stop_mark_of_the_thread_before() -> None:
    """Each poster thread has its own queue: a new thread started right after a release
    must not end on the old thread's stop mark and leave posts unmade."""
    poster = _Poster()
    made = threading.Event()
    release_started = threading.Event()
    slow = threading.Event()

    def slow_post(work: object) -> None:
        release_started.wait(5)
        slow.wait(0.2)

    poster.submit(slow_post, lambda: None, on_error=None)
    ender = threading.Thread(target=lambda: (release_started.set(), poster.release()))
    ender.start()
    release_started.wait(5)
    poster.submit(lambda work: made.set(), lambda: None, on_error=None)
    ender.join(10)
    assert made.wait(5), "the post made after the release was lost"
    assert poster.release()


def test_close_is_for_good() -> None:
    poster = _Poster()
    poster.submit(lambda work: None, lambda: None, on_error=None)
    poster.close()
    assert not poster.running
    with pytest.raises(AppNotAvailableError):
        poster.submit(lambda work: None, lambda: None, on_error=None)
