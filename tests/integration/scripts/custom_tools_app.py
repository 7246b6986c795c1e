"""The example app with custom tools, in a process of its own (one start per process).

    python custom_tools_app.py LOG_FILE

Registers tools with @wpfprobe.tool before start (on the UI thread and off it,
one that raises, one above the read tier, one returning a pydantic model, one
that stops the probe),
configures the JSON-lines log to LOG_FILE, starts the probe at the read tier
and prints one JSON line {"url", "token"}. Then reads stdin: "add NAME" adds a
tool NAME to the running probe with @handle.tool and prints {"added": NAME}; "close"
stops. test_custom_tools_mcp.py drives it.
"""

from __future__ import annotations

import json
import sys
import time

from example_app import load_example
from pydantic import BaseModel


class Summary(BaseModel):
    count: int
    names: list[str]


def main() -> None:
    import wpfprobe
    import wpfprobe_clr
    from wpfprobe.core import logs as _logging
    from wpfprobe.testing import virtual_display

    _logging.configure(level="INFO", file=sys.argv[1])
    with virtual_display():
        wpfprobe_clr.ensure_clr()
        example = load_example()
        app = example.start_in_background()
        form = app.app

        @wpfprobe.tool
        def echo_upper(text: str, times: int = 1) -> str:
            """Upper-case a text.

            Repeats it `times` times.
            """
            return text.upper() * times

        @wpfprobe.tool(ui_thread=True)
        def window_title() -> dict[str, object]:
            """The main window's title, read on the UI thread."""
            return {"title": str(form.Text), "onUiThread": not form.InvokeRequired}

        @wpfprobe.tool
        def off_ui_thread() -> bool:
            """True when called off the UI thread."""
            return bool(form.InvokeRequired)

        @wpfprobe.tool
        def explode(secret_value: str) -> int:
            """Always fails, with the argument in its message."""
            raise ValueError(f"cannot use {secret_value}")

        @wpfprobe.tool
        def refuse() -> str:
            """Fails with a code of its own."""
            raise wpfprobe.ProbeError("Not now.", code="OPERATION_TIMED_OUT", suggestion="Wait and retry.")

        @wpfprobe.tool(tier="interact")
        def press_save() -> str:
            """Needs the interact tier."""
            return "pressed"

        @wpfprobe.tool(name="summary-model")
        def summary(count: int, *, prefix: str = "item") -> Summary:
            """A pydantic result."""
            return Summary(count=count, names=[f"{prefix}{i}" for i in range(count)])

        @wpfprobe.tool
        def stop_probe() -> dict[str, object]:
            """Stops the probe that runs it (its caller is answered first)."""
            started = time.monotonic()
            handle.stop()
            return {"returnedAfter": round(time.monotonic() - started, 3)}

        handle = wpfprobe.start(form, name="custom")
        print(json.dumps({"url": handle.url, "token": handle.token}), flush=True)
        try:
            for line in sys.stdin:
                command, _, name = line.strip().partition(" ")
                if command == "add":

                    @handle.tool(name=name)
                    def late_tool(n: int) -> int:
                        """Added while the probe runs."""
                        return n + 1

                    print(json.dumps({"added": name}), flush=True)
                elif command == "close":
                    break
        finally:
            handle.stop()
            app.close()


if __name__ == "__main__":
    main()
