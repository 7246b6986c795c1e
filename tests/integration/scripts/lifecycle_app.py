"""An app that starts the probe, then closes its window when told to on stdin.

Prints one JSON line per event for test_mcp_lifecycle.py to read.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from example_app import load_example


def say(**event: object) -> None:
    print(json.dumps(event), flush=True)


def main() -> None:
    import wpfprobe
    import wpfprobe_clr
    from wpfprobe.testing import virtual_display

    with virtual_display():
        wpfprobe_clr.ensure_clr()
        example = load_example()
        app = example.start_in_background()
        handle = wpfprobe.start(app.app, name="lifecycle")
        try:
            wpfprobe.start(app.app)
        except wpfprobe.ProbeError as err:
            say(event="second-start", code=err.code, message=err.message)
        say(event="started", url=handle.url, token=handle.token, manifest=str(handle.manifest_path))
        for line in sys.stdin:
            if line.strip() == "close":
                break
        app.close()  # the UI thread's message loop ends; the probe must notice by itself
        deadline = time.monotonic() + 10
        while handle.running and time.monotonic() < deadline:
            time.sleep(0.05)
        say(event="closed", running=handle.running, manifest_exists=Path(str(handle.manifest_path)).exists())


if __name__ == "__main__":
    main()
