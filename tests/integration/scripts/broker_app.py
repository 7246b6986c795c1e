"""The example app with a probe, for the broker tests: one process per app.

    python broker_app.py --name NAME [--allow TIER] [--custom]

Uses $DISPLAY when set (the tests share one Xvfb), else starts its own. With
--custom it registers ``order_count`` with ``@wpfprobe.tool`` before the probe
starts and ``slow`` with ``@handle.tool`` after (it prints {"slowStarted": seconds}
when a call reaches it). Prints one JSON line
{"pid", "appId", "url"} once the server listens, then reads commands on stdin:
"add" registers ``late_tool`` with ``@handle.tool`` (and prints {"added": ...}),
"block SECONDS" makes the UI thread sleep (a hung handler; prints {"blocked": SECONDS}
from the UI thread once it sleeps, and {"unblocked": true} when it wakes), "unblock"
wakes it early, "close" stops the app. --ui-timeout sets the probe's ui_timeout
(default 2 s); --log-file FILE writes the probe's JSON-lines log there.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading

from example_app import load_example


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--name", required=True)
    parser.add_argument("--allow", default="interact")
    parser.add_argument("--custom", action="store_true")
    parser.add_argument("--ui-timeout", type=float, default=2.0)
    parser.add_argument("--log-file", default=None)
    options = parser.parse_args()

    import wpfprobe
    import wpfprobe_clr
    from wpfprobe.core import logs

    if options.log_file:
        # The probe's JSON-lines log (tool, duration, outcome of each call), for the tests to read.
        logs.configure(level="INFO", file=options.log_file)
    from wpfprobe.testing import virtual_display

    with virtual_display():
        wpfprobe_clr.ensure_clr()
        example = load_example()
        app = example.start_in_background()
        from System import Action

        release = threading.Event()
        wake = threading.Event()

        if options.custom:

            @wpfprobe.tool
            def order_count(prefix: str = "orders") -> str:
                """How many orders the app holds."""
                return f"{prefix}: 42"

        settings = wpfprobe.ProbeSettings(check_thread_affinity=True, ui_timeout=options.ui_timeout)
        handle = wpfprobe.start(app.app, name=options.name, allow=options.allow, settings=settings)

        if options.custom:

            @handle.tool
            def slow(seconds: float = 30.0) -> str:
                """Wait, for the tests that kill the app during a call."""
                # Tells the test the call has reached the app, so it can kill it mid-call.
                print(json.dumps({"slowStarted": seconds}), flush=True)
                release.wait(seconds)
                return "done"

        # The broker finds the app through its manifest, which the probe's start-up writes once
        # it is over (start() returns before): the test may ask the broker for it from here on.
        assert handle.manifest_path is not None
        print(json.dumps({"pid": os.getpid(), "appId": handle.app_id, "url": handle.url}), flush=True)
        try:
            for line in sys.stdin:
                command = line.strip()
                if command == "close":
                    break
                if command == "add":

                    @handle.tool
                    def late_tool() -> str:
                        """A tool added while clients are connected."""
                        return "late"

                    print(json.dumps({"added": "late_tool"}), flush=True)
                elif command.startswith("block "):
                    seconds = float(command.split()[1])
                    wake.clear()

                    def hang(seconds: float = seconds) -> None:
                        # A handler that hangs: the UI thread answers nothing until it returns.
                        print(json.dumps({"blocked": seconds}), flush=True)
                        wake.wait(seconds)
                        print(json.dumps({"unblocked": True}), flush=True)

                    app.app.BeginInvoke(Action(hang))
                elif command == "unblock":
                    wake.set()
        finally:
            release.set()
            wake.set()
            handle.stop()
            app.close()


if __name__ == "__main__":
    main()
