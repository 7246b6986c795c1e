"""The command line: ``wpfprobe ...`` and ``python -m wpfprobe ...`` (SPEC section 2).

Each command is a subparser whose ``handler`` returns the exit code; a new
command adds one ``_add_<command>`` function to ``build_parser``. Handlers
import what they need when they run, so ``--help`` and a usage error stay
fast and never load the CLR.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

EXIT_OK = 0
"""The command did what was asked; for ``audit verify``: the log is intact."""
EXIT_FAILED = 1
"""The command ran and found a failure; for ``audit verify``: the log did not verify."""
EXIT_USAGE = 2
"""Bad arguments, or a file that could not be read: no verdict was reached."""

Handler = Callable[[argparse.Namespace], int]

_VERIFY_EPILOG = """\
exit status:
  0  the log verified: chain intact and matching its head file
  1  the log did not verify (edited, deleted, reordered, inserted or truncated
     lines, a line that is not an entry, another key, a missing or mismatched
     head file); the first problem is printed
  2  usage error, or the log or key could not be read: nothing was verified

The key protects against anyone who cannot read it: whoever can read the key
file can write a log that verifies. See docs/audit.md.
"""


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the hand-wrapped epilogs (exit codes) as written."""


def build_parser() -> argparse.ArgumentParser:
    from . import __version__  # noqa: PLC0415

    parser = argparse.ArgumentParser(
        prog="wpfprobe",
        description="The command line of wpfprobe, the in-process UI probe for pythonnet WPF and WinForms apps.",
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action="version", version=f"wpfprobe {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_audit(commands)
    return parser


def _add_audit(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from ._audit import default_key_path  # noqa: PLC0415 - commands import their own modules (none loads the CLR)

    audit = commands.add_parser(
        "audit",
        help="check an audit log of input and mutation",
        description="Audit logs record every input and mutation a probe performed, chained by HMAC.",
        formatter_class=_Formatter,
    )
    actions = audit.add_subparsers(dest="audit_command", metavar="ACTION", required=True)
    verify = actions.add_parser(
        "verify",
        help="check that a log's chain is intact",
        description="Check an audit log's HMAC chain and its head file; print the first problem found.",
        epilog=_VERIFY_EPILOG,
        formatter_class=_Formatter,
    )
    verify.add_argument("file", type=Path, metavar="FILE", help="the .jsonl log (its .head file sits beside it)")
    verify.add_argument(
        "--key-file",
        type=Path,
        metavar="PATH",
        help=f"the key the log was written with (default: {default_key_path()}, from $WPFPROBE_HOME)",
    )
    verify.add_argument("--json", action="store_true", help="print the report as JSON instead of one line")
    verify.add_argument(
        "--ignore-missing-head",
        action="store_true",
        help="accept a log copied without its .head file (a deleted tail then goes unnoticed)",
    )
    verify.set_defaults(handler=_audit_verify)


def _audit_verify(args: argparse.Namespace) -> int:
    from . import _audit  # noqa: PLC0415

    log_path: Path = args.file
    key_path: Path = args.key_file or _audit.default_key_path()
    try:
        key = _audit.load_key(key_path)
    except FileNotFoundError:
        hint = "" if args.key_file else " (the default; pass --key-file to use another)"
        return _usage_error(f"no key file {key_path}{hint}")
    except _audit.AuditKeyError as exc:
        return _usage_error(exc.message)
    except OSError as exc:
        return _usage_error(f"cannot read key file {key_path}: {exc.strerror or exc}")
    if not log_path.is_file():
        if log_path.exists():
            return _usage_error(f"not a regular file: {log_path}")
        head = log_path.with_name(log_path.name + ".head")
        gone = " (its .head file exists: was the log deleted?)" if head.exists() else ""
        return _usage_error(f"no such file: {log_path}{gone}")
    try:
        report = _audit.verify(log_path, key=key, require_head=not args.ignore_missing_head)
    except OSError as exc:
        return _usage_error(f"cannot read {log_path}: {exc.strerror or exc}")
    if not _audit.key_file_is_private(key_path):
        print(
            f"warning: {key_path} can be read by other users; whoever can read it can forge a log that verifies",
            file=sys.stderr,
        )
    print(report.model_dump_json(by_alias=True) if args.json else report.summary())
    if report.kind == "head-missing" and not args.json:
        print("hint: --ignore-missing-head checks the chain alone", file=sys.stderr)
    return EXIT_OK if report.ok else EXIT_FAILED


def _usage_error(message: str) -> int:
    print(f"wpfprobe: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (argparse itself exits 2 on bad usage)."""
    args = build_parser().parse_args(argv)
    handler: Handler = args.handler
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())
