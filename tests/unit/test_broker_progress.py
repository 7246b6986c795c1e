"""The progress notifications of one broker call (``broker/progress.py``), without a broker."""

from __future__ import annotations

import asyncio
from itertools import pairwise

import pytest

from wpfprobe.broker.progress import Progress


class Sent:
    def __init__(self) -> None:
        self.notes: list[tuple[float, float | None, str | None]] = []

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.notes.append((progress, total, message))


def test_a_heartbeat_goes_out_while_the_work_runs_with_values_that_only_increase() -> None:
    sent = Sent()

    async def body() -> str:
        progress = Progress(sent, what="wpf_launch_app", interval=0.05)
        progress.note("starting app.py")
        return await progress.run(asyncio.sleep(0.4, result="launched"))

    assert asyncio.run(body()) == "launched"
    assert len(sent.notes) >= 3, sent.notes
    values = [value for value, _, _ in sent.notes]
    assert all(b > a for a, b in pairwise(values)), values
    assert {message for _, _, message in sent.notes} == {"starting app.py"}


def test_an_apps_progress_is_relayed_at_once_and_its_numbers_do_not_go_backwards() -> None:
    sent = Sent()

    async def body() -> None:
        progress = Progress(sent, what="wpf_wait_for", interval=10)

        async def work() -> None:
            await progress.relay(50.0, 100.0, "waiting for #toast: exists (3 polls, last observed 0)")
            await progress.relay(0.5, None, None)  # an app's own clock may read less than the broker's

        await progress.run(work())

    asyncio.run(body())
    assert [message for _, _, message in sent.notes] == ["waiting for #toast: exists (3 polls, last observed 0)"] * 2
    assert sent.notes[1][0] > sent.notes[0][0]


def test_without_a_progress_token_nothing_is_sent_and_cancelling_the_caller_cancels_the_work() -> None:
    sent = Sent()
    cancelled = asyncio.Event()

    async def work() -> None:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    async def body() -> None:
        quiet = Progress(None, what="x", interval=0.01)
        assert not quiet.wanted
        assert await quiet.run(asyncio.sleep(0.05, result=1)) == 1
        task = asyncio.ensure_future(Progress(sent, what="x", interval=0.01).run(work()))
        await asyncio.sleep(0.1)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert cancelled.is_set()

    asyncio.run(body())
    assert sent.notes, "the heartbeat ran while the work did"
