"""``wpf_launch_app``: what the broker may start, and with which options.

Launching runs only python scripts and saved profiles, never an arbitrary command:
an agent-facing tool that runs any executable would let whatever the agent reads
(a web page, a file, a tool result) execute code on the user's machine. A script is
still code, but it runs under the probe in the interpreter the user installed
wpfprobe into, and a profile is a command the user saved on purpose.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wpfprobe.broker.wire import LaunchArgs
from wpfprobe.core.errors import InvalidArgumentError


def launch_plan(args: LaunchArgs) -> tuple[list[str], dict[str, Any]]:
    """The command and keyword options for ``_launch.launch`` from the tool's arguments."""
    if args.profile is not None:
        from wpfprobe.apps import profiles as _profiles  # noqa: PLC0415

        profile = _profiles.get_profile(args.profile)
        return list(profile.command), {
            "allow": args.allow or profile.allow or "read",
            "name": args.name,
            "cwd": args.cwd or profile.cwd,
            "env": dict(profile.env) if profile.env else None,
            "timeout": args.timeout_seconds,
        }
    assert args.script is not None
    base = Path(args.cwd).expanduser() if args.cwd else Path.cwd()
    if args.cwd and not base.is_dir():
        raise InvalidArgumentError(
            f"cwd {args.cwd!r} is not a directory.", suggestion="Pass an existing directory as cwd."
        )
    script = Path(args.script).expanduser()
    if not script.is_absolute():
        script = base / script
    if script.suffix.lower() not in (".py", ".pyw"):
        raise InvalidArgumentError(
            f"{args.script!r} is not a python script: wpf_launch_app runs .py scripts and saved profiles only.",
            suggestion="Pass the .py file that starts the app, or a profile the user saved.",
            detail={"script": args.script},
        )
    if not script.is_file():
        raise InvalidArgumentError(
            f"No such script: {script}.",
            suggestion="Check the path (relative paths are taken from cwd).",
            detail={"script": str(script)},
        )
    return [str(script.resolve()), *args.args], {
        "allow": args.allow or "read",
        "name": args.name,
        "cwd": str(base.resolve()) if args.cwd else None,
        "env": None,
        "timeout": args.timeout_seconds,
    }
