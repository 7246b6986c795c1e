"""Kernel-only rules with no SDK stdio counterpart to drive: the context a request runs in, calls
from other threads (tools_changed, close), and the bounds of 2026 listen streams."""

from __future__ import annotations

import contextvars
import threading

import pytest
from kernel_twin import (
    FakeCatalog,
    KernelWire,
    handshake,
    modern,
    note,
    request,
    run_kernel,
)

from wpfprobe.mcp import protocol


def test_a_request_runs_in_the_senders_context() -> None:
    seen: contextvars.ContextVar[str] = contextvars.ContextVar("seen")

    async def script(wire: KernelWire, catalog: FakeCatalog) -> None:
        catalog.seen = seen
        await handshake(wire)
        seen.set("caller")
        await wire.call(request(1, "tools/call", {"name": "echo"}))
        given = contextvars.copy_context()
        given.run(seen.set, "given")
        await wire.session.receive("request", request(2, "tools/call", {"name": "echo"}), context=given)
        await wire.answer(2)

    one, two = run_kernel(script)[-2:]
    assert one["result"]["structuredContent"]["result"]["seen"] == "caller"
    assert two["result"]["structuredContent"]["result"]["seen"] == "given"


def test_tools_changed_from_another_thread_hops_to_the_loop() -> None:
    async def script(wire: KernelWire, catalog: FakeCatalog) -> None:
        await handshake(wire)
        thread = threading.Thread(target=catalog.change)
        thread.start()
        thread.join()
        assert await wire.next() == note("notifications/tools/list_changed")

    run_kernel(script, debug=True)


def test_close_ends_listen_streams_with_their_result() -> None:
    async def script(wire: KernelWire, catalog: FakeCatalog) -> None:
        await wire.post(modern("L", "subscriptions/listen", {"notifications": {"toolsListChanged": True}}))
        await wire.next()
        wire.kernel.close()
        answer = await wire.answer("L")
        meta = answer["result"]["_meta"]
        assert meta["io.modelcontextprotocol/subscriptionId"] == "L" and answer["result"]["resultType"] == "complete"

    run_kernel(script)


def test_close_from_another_thread_ends_listen_streams() -> None:
    async def script(wire: KernelWire, catalog: FakeCatalog) -> None:
        await wire.post(modern("L", "subscriptions/listen", {"notifications": {"toolsListChanged": True}}))
        await wire.next()
        failed: list[BaseException] = []

        def close() -> None:
            try:
                wire.kernel.close()
            except BaseException as exc:  # asyncio's debug mode refuses a loop touched off its thread
                failed.append(exc)

        thread = threading.Thread(target=close)
        thread.start()
        thread.join()
        assert failed == []
        assert "result" in await wire.answer("L")

    run_kernel(script, debug=True)


def test_listen_streams_beyond_the_limit_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(protocol, "MAX_LISTENERS", 1)

    async def script(wire: KernelWire, catalog: FakeCatalog) -> None:
        listen = {"notifications": {"toolsListChanged": True}}
        await wire.post(modern("A", "subscriptions/listen", listen))
        await wire.next()
        refused = await wire.call(modern("B", "subscriptions/listen", listen))
        assert refused["error"] == {"code": -32603, "message": "Subscription limit reached"}

    run_kernel(script)


def test_a_listen_stream_not_read_ends_at_its_backlog_after_what_it_buffered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(protocol, "MAX_BUFFERED_EVENTS", 2)

    async def script(wire: KernelWire, catalog: FakeCatalog) -> None:
        await wire.post(modern("L", "subscriptions/listen", {"notifications": {"toolsListChanged": True}}))
        await wire.next()
        for _ in range(5):  # on the loop, with no await between: the stream reads none of them meanwhile
            catalog.change()
        await wire.answer("L")
        catalog.change()  # the stream is gone: nothing more for it
        await wire.call(modern(1, "tools/list"))

    transcript = run_kernel(script)
    methods = [m.get("method", m.get("id")) for m in transcript]
    assert methods == ["notifications/subscriptions/acknowledged"] + ["notifications/tools/list_changed"] * 2 + ["L", 1]
