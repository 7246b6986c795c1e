"""The example app with the probe at the interact tier, in a process of its own, for the wire tests.

    python wire_app.py [TIER]

TIER is the tier the probe serves (read, interact or mutate; interact when not given).
An app that configured no logging at all (so anything the probe let reach Python's
last-resort handler would show on its stderr). Before start it registers the custom
tools the MCP conformance suite calls (``test_simple_text``, ``test_error_handling``)
and ``echo_optional``, which says what it received for an optional string. Prints one
JSON line {"url", "token", "pid", "rootHandlers"} once the server listens
(``rootHandlers``: how many handlers the root logger has then, which must be none: the
probe configures no logging of the app's). Then reads stdin: "add NAME" adds a tool
NAME with ``@handle.tool`` and prints {"added": NAME}; "items N" makes its list show N rows
(0: its own three) and prints {"items": N}; "modules" prints {"modules": [...]}, the MCP SDK's
packages imported so far; "close" stops.
test_mcp_wire.py and test_mcp_conformance.py drive it.
"""

from __future__ import annotations

import json
import logging
import os
import sys

from example_app import load_example


def main() -> None:
    import wpfprobe
    import wpfprobe_clr
    from wpfprobe.testing import virtual_display

    with virtual_display():
        wpfprobe_clr.ensure_clr()
        example = load_example()
        app = example.start_in_background()

        @wpfprobe.tool
        def test_simple_text() -> str:
            """The conformance suite's simple text tool."""
            return "This is a simple text response for testing."

        @wpfprobe.tool
        def test_error_handling() -> str:
            """The conformance suite's failing tool."""
            raise wpfprobe.ProbeError(
                "This tool always fails.", code="OPERATION_TIMED_OUT", suggestion="It is meant to."
            )

        @wpfprobe.tool
        def echo_optional(value: str | None = None) -> dict[str, object]:
            """What the tool received for an optional string, and its Python type."""
            return {"value": value, "type": type(value).__name__}

        tier = sys.argv[1] if len(sys.argv) > 1 else "interact"
        handle = wpfprobe.start(app.app, name="wire", allow=tier)
        started = {
            "url": handle.url,
            "token": handle.token,
            "pid": os.getpid(),
            "rootHandlers": len(logging.getLogger().handlers),
        }
        print(json.dumps(started), flush=True)
        try:
            for line in sys.stdin:
                command, _, name = line.strip().partition(" ")
                if command == "add":

                    @handle.tool(name=name)
                    def late_tool(n: int) -> int:
                        """Added while the probe runs."""
                        return n + 1

                    print(json.dumps({"added": name}), flush=True)
                elif command == "items":
                    # "items N": the list shows N rows ("items 0": its three fruits again)
                    count = int(name)
                    rows = [f'row {i} "quoted" ünï 😀' for i in range(count)] or ["Apple", "Banana", "Cherry"]

                    def fill(rows: list[str] = rows) -> None:
                        from System import Array, Object

                        box = app.app.Controls.Find("itemsList", True)[0]
                        box.BeginUpdate()  # one layout, not one per row
                        box.Items.Clear()
                        box.Items.AddRange(Array[Object](rows))
                        box.EndUpdate()

                    app.invoke(fill)
                    print(json.dumps({"items": count}), flush=True)
                elif command == "modules":
                    # "modules": which of the MCP SDK's packages (and the web stack only it uses)
                    # this process has imported
                    sdk = {"mcp", "mcp_types", "starlette", "sse_starlette"}
                    loaded = sorted({m.split(".")[0] for m in list(sys.modules)} & sdk)
                    print(json.dumps({"modules": loaded}), flush=True)
                elif command == "close":
                    break
        finally:
            handle.stop()
            app.close()


if __name__ == "__main__":
    main()
