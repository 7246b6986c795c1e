"""The era of a stdio connection, decided by its first request and then held: the other era's
claims are refused, notifications before it are replayed after it (drivers: kernel_twin.py)."""

from __future__ import annotations

from kernel_twin import (
    ENVELOPE,
    INIT,
    V2026,
    FakeCatalog,
    KernelWire,
    Wire,
    both,
    handshake,
    modern,
    note,
    request,
    run_kernel,
)

# --- stdio: the first request decides the era -----------------------------------------------------------


def test_initialize_on_a_2026_stdio_connection_is_unsupported_version() -> None:
    async def script(wire: Wire) -> None:
        await wire.call(modern(1, "server/discover"))
        await wire.call(INIT)

    assert both(script)[-1]["error"] == {
        "code": -32022,
        "message": "connection is serving the 2026-07-28 protocol; the initialize handshake is not accepted",
        "data": {"supported": [V2026], "requested": "2025-06-18"},
    }


def test_an_enveloped_request_on_a_handshake_stdio_connection_is_invalid() -> None:
    async def script(wire: Wire) -> None:
        await handshake(wire)
        await wire.call(modern(1, "tools/list"))

    assert both(script)[-1]["error"]["code"] == -32600


def test_an_enveloped_initialize_opens_the_handshake() -> None:
    async def script(wire: Wire) -> None:
        await wire.post(note("notifications/initialized"))  # before any request: replayed after it
        await wire.call(request(1, "initialize", {**INIT["params"], "_meta": ENVELOPE}))
        await wire.call(request(2, "ping"))

    assert both(script)[-1]["result"] == {}


def test_notifications_before_the_first_request_are_replayed_after_it() -> None:
    async def script(wire: KernelWire, catalog: FakeCatalog) -> None:
        await wire.post(note("notifications/initialized"))
        assert not wire.session.initialized
        await wire.call(INIT)
        assert wire.session.initialized and wire.session.era == "handshake"

    run_kernel(script)
