"""``wpfprobe codegen`` and ``wpfprobe show-trace`` (SPEC 9): what was done as a test, a run as a page.

Exit status: 0 written; 2 usage, or a path that is not a recording (the error
says what to give). Both print the path they wrote (codegen without ``-o``
prints the test itself).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TypeAlias

from wpfprobe.cli.exits import EXIT_OK, EXIT_USAGE

Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"

_CODEGEN_EPILOG = """\
RECORDING is an agent's recorded session (DIR/<session> of `wpfprobe mcp
--record DIR`, or its steps.jsonl), a run's session folder, or a ticket.
The test names the app the recording ran (its profile), else give --profile.

exit status:
  0  the test was written (to FILE, else to stdout)
  2  usage error, or RECORDING is not a recording
"""
_SHOW_EPILOG = """\
DIR is a run's session folder (<artifacts>/sessions/<id>), a ticket's folder,
or DIR/<session> of a recorded agent session. The page opens offline, from
disk: everything it shows is inside it.

exit status:
  0  the page was written (its path is printed)
  2  usage error, or DIR is not a trace
"""


def add_commands(commands: Commands) -> None:
    codegen = commands.add_parser(
        "codegen", help="turn a recorded session or run into a scenario file or a pytest module",
        epilog=_CODEGEN_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    codegen.add_argument("recording", type=Path, metavar="RECORDING")
    codegen.add_argument("--format", choices=("yaml", "pytest"), default="yaml", help="a scenario (yaml) or pytest")
    codegen.add_argument("-o", "--output", type=Path, metavar="FILE", help="write it here (default: stdout)")
    codegen.add_argument("--profile", metavar="P", help="the app's profile (default: the one the recording names)")
    codegen.add_argument("--name", metavar="NAME", help="the scenario's id / the test's name")
    codegen.set_defaults(handler=_codegen)
    show = commands.add_parser(
        "show-trace", help="write a run's or a ticket's trace as one HTML page that opens offline",
        epilog=_SHOW_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    show.add_argument("folder", type=Path, metavar="DIR")
    show.add_argument("-o", "--output", type=Path, metavar="FILE", help="the page (default: DIR/trace.html)")
    show.set_defaults(handler=_show_trace)


def _usage(message: str) -> int:
    print(f"wpfprobe: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def _codegen(args: argparse.Namespace) -> int:
    from wpfprobe.core.errors import ProbeError  # noqa: PLC0415
    from wpfprobe.testkit.codegen import generate, load_recording  # noqa: PLC0415

    if not args.recording.exists():
        return _usage(f"no such file or folder: {args.recording}")
    try:
        recording = load_recording(args.recording)
    except ProbeError as err:
        return _usage(err.message + (f"\nhint: {err.suggestion}" if err.suggestion else ""))
    if args.profile:
        recording.target = {"profile": args.profile}
    text = generate(recording, format=args.format, name=args.name)
    if args.output is None:
        sys.stdout.write(text)
        return EXIT_OK
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text, encoding="utf-8")
    print(args.output)
    return EXIT_OK


def _show_trace(args: argparse.Namespace) -> int:
    from wpfprobe.core.errors import ProbeError  # noqa: PLC0415
    from wpfprobe.testkit.trace_view import write_html  # noqa: PLC0415

    try:
        print(write_html(args.folder, args.output))
    except ProbeError as err:
        return _usage(err.message + (f"\nhint: {err.suggestion}" if err.suggestion else ""))
    return EXIT_OK
