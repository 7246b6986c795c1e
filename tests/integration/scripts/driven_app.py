"""The example app with a probe that allows input (and mutation), in a process of its own.

    python driven_app.py interact|mutate

Input changes the app's state, so the tests that drive it use this app, not
the session's shared one. It runs under a private X display, so OS-level
input (xdotool) reaches this app's window and nothing else. Prints one JSON
line {"url", "token", "home"} once the server listens, then serves until
"close" arrives on stdin.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def main() -> None:
    tier = sys.argv[1]
    import wpfprobe
    import wpfprobe_clr
    from wpfprobe.testing import virtual_display

    kind = os.environ.get("WPFPROBE_EXAMPLE", "winforms")
    with virtual_display():
        wpfprobe_clr.ensure_clr()
        spec = importlib.util.spec_from_file_location(f"{kind}_app", ROOT / "examples" / f"{kind}_app.py")
        assert spec is not None and spec.loader is not None
        example = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(example)
        app = example.start_in_background()
        settings = wpfprobe.ProbeSettings(check_thread_affinity=True, ui_timeout=2.0)
        handle = wpfprobe.start(app.app, name="driven", allow=tier, settings=settings)
        print(json.dumps({"url": handle.url, "token": handle.token, "display": os.environ.get("DISPLAY")}), flush=True)
        try:
            for line in sys.stdin:
                if line.strip() == "close":
                    break
        finally:
            violations = handle.probe.engine.thread_violations
            handle.stop()
            app.close()
        print(json.dumps({"threadViolations": violations}), flush=True)


if __name__ == "__main__":
    main()
