"""The WinForms example with the probe served over stdio, as an MCP client would launch it.

The app prints to stdout on purpose, once before ``wpfprobe.start`` and once
right after it: the first line is already out when the probe starts (a client
sees it before any frame); the second must not reach the wire, since from
``start`` on stdout belongs to MCP. The script waits until the client goes
away (stdin closes), then closes the app and exits by itself.

Run by tests/integration/test_mcp_stdio.py (its first argument, if any, is the tier; a
second, "late", serves a tool that adds another while serving). Exit code 0 when it ended cleanly,
3 when the server did not end within WAIT_LIMIT seconds of being started.
"""

from __future__ import annotations

import sys

from example_app import load_example

BEFORE = "stdio_app: hello from the app, before wpfprobe.start"
AFTER = "stdio_app: hello from the app, after wpfprobe.start"
# An upper bound for one test session; the test closes stdin long before.
WAIT_LIMIT = 120.0


def main() -> int:
    import wpfprobe
    import wpfprobe_clr
    from wpfprobe.testing import virtual_display

    wpfprobe_clr.ensure_clr()
    with virtual_display():
        example = load_example()
        app = example.start_in_background()
        try:
            print(BEFORE, flush=True)
            allow = sys.argv[1] if len(sys.argv) > 1 else "read"  # the tier, "interact" for waits
            if "late" in sys.argv[2:]:

                @wpfprobe.tool
                def stdio_add_tool() -> str:
                    """Adds stdio_late_echo to the running probe, as an app may do while it serves."""

                    @handle.tool
                    def stdio_late_echo(text: str) -> str:
                        """Answers its text."""
                        return text

                    return "added"

            handle = wpfprobe.start(app.app, transport="stdio", name="stdio-tests", allow=allow)
            print(AFTER, flush=True)
            ended = handle.wait(WAIT_LIMIT)
            handle.stop()
            print(f"stdio_app: server ended={ended}", file=sys.stderr, flush=True)
            # What serving imported: the in-app endpoint is to import no MCP SDK (issue 22).
            sdk = sorted({m.split(".")[0] for m in sys.modules} & {"mcp", "mcp_types"})
            print(f"stdio_app: sdk modules={sdk}", file=sys.stderr, flush=True)
            return 0 if ended else 3
        finally:
            app.close()


if __name__ == "__main__":
    sys.exit(main())
