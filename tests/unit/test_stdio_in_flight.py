"""The count of the requests a stdio client has in flight (``wpfprobe.mcp.stdioserve.InFlight``, which the
broker's SDK stdio uses too); the wire that waits on it: tests/unit/test_stdioserve.py and
tests/integration/test_mcp_stdio.py."""

from __future__ import annotations

import json
import threading

from wpfprobe.mcp import stdioserve


def _request(request_id: object) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "ping"}) + "\n"


def _answer(request_id: object) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "result": {}}, separators=(",", ":")) + "\n"


def test_a_request_is_counted_until_its_answer_or_its_cancellation() -> None:
    counted = stdioserve.InFlight()
    for request_id in (1, "1", 'a"b', 2):
        counted.read(_request(request_id))
    counted.read(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    counted.read("not json\n")
    assert counted._ids == {"1", '"1"', '"a\\"b"', "2"}, '1 and "1" are two requests'
    counted.written(_answer(1))
    counted.written(_answer('a"b'))
    counted.written(json.dumps({"jsonrpc": "2.0", "method": "notifications/progress", "params": {}}))
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}}
    counted.read(json.dumps(cancel))  # stdio answers a cancelled request with nothing
    assert counted._ids == {'"1"'}


def test_a_request_beyond_the_bound_waits_for_an_answer_and_a_cancellation_does_not_wait() -> None:
    counted = stdioserve.InFlight()
    for request_id in range(stdioserve.MAX_IN_FLIGHT):
        counted.read(_request(request_id))
    reader = threading.Thread(target=counted.read, args=(_request("next"),), daemon=True)
    reader.start()
    reader.join(0.2)
    assert reader.is_alive(), "the reader went on with every request unanswered"
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 0}}
    waits_not = threading.Thread(target=counted.read, args=(json.dumps(cancel),), daemon=True)
    waits_not.start()
    waits_not.join(10)
    assert not waits_not.is_alive(), "a cancellation waited for room"
    reader.join(10)
    assert not reader.is_alive(), "the cancellation made room"
    assert '"next"' in counted._ids and len(counted._ids) == stdioserve.MAX_IN_FLIGHT


def test_what_the_sdk_drops_unanswered_is_not_counted() -> None:
    """The SDK drops a line that is no request it can read, and answers nothing: counted, each
    would hold its place for good, and 64 of them would stop the server reading."""
    counted = stdioserve.InFlight()
    for dropped in (
        {"id": 1, "method": "ping"},  # no jsonrpc
        {"jsonrpc": "1.0", "id": 2, "method": "ping"},
        {"jsonrpc": "2.0", "id": None, "method": "ping"},
        {"jsonrpc": "2.0", "id": True, "method": "ping"},
        {"jsonrpc": "2.0", "id": 1.5, "method": "ping"},
        {"jsonrpc": "2.0", "id": 3, "method": "ping", "params": [1]},
        {"jsonrpc": "2.0", "id": 4, "method": 5},
    ):
        counted.read(json.dumps(dropped))
    assert counted._ids == set()
