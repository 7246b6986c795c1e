"""The widget zoo (examples/zoo_app.py) serving MCP in a process of its own, for tests/integration/test_widget_zoo_mcp.py.

    python widget_zoo_mcp.py [--rows N] [--items N]

Starts the zoo on a UI thread of its own under a private X display, with a
probe at the mutate tier (``wpfprobe.start`` can run once per process, and
the session's other MCP tests have it), prints one JSON line {"url", "token"}
once the server listens, then answers lines on stdin: "walk" prints the bare
pythonnet walk of each zoo window (tests/integration/bare_walk.py) as one JSON
line, "close" stops the server and prints {"threadViolations": [...]}.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2] / "src"))
sys.path.insert(0, str(HERE.parent))  # bare_walk, widget_zoo

WINDOWS = ("zooWindow", "findWindow", "documentsWindow")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=3000)
    parser.add_argument("--items", type=int, default=200)
    options = parser.parse_args()

    import wpfprobe
    from wpfprobe.testing import virtual_display

    with virtual_display():
        import bare_walk
        import widget_zoo

        app = widget_zoo.load().start_in_background(rows=options.rows, items=options.items)
        settings = wpfprobe.ProbeSettings(check_thread_affinity=True, ui_timeout=5.0)
        handle = wpfprobe.start(app.app, name="widget-zoo", allow="mutate", settings=settings)
        handle.probe.wait_for("#document2", "exists")
        print(json.dumps({"url": handle.url, "token": handle.token}), flush=True)
        try:
            for line in sys.stdin:
                command = line.strip()
                if command == "walk":
                    walked = app.invoke(lambda: {w: bare_walk.walk(app.zoo.control(w)) for w in WINDOWS})
                    print(json.dumps(walked), flush=True)
                elif command == "close":
                    break
        finally:
            violations = handle.probe.engine.thread_violations
            handle.stop()
            app.close()
        print(json.dumps({"threadViolations": violations}), flush=True)


if __name__ == "__main__":
    main()
