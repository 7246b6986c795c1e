"""Commands for someone starting out: ``wpfprobe init`` and ``wpfprobe profiles edit``.

``init`` turns "I have an app" into a working setup in one command: it saves a
profile for the app, prints the line that registers wpfprobe with Claude Code,
starts the app once to see its main window, writes a smoke scenario for it
(``scenarios/smoke.yaml``) and runs that scenario. ``profiles edit`` changes a
saved profile with options, or opens it in ``$EDITOR`` and checks it before
saving.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, TypeAlias

from wpfprobe.cli.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE

Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"

_INIT_EPILOG = """\
exit status:
  0  the profile is saved and the smoke scenario passed (or was skipped)
  1  the smoke scenario failed: the app did not start or show its window
  2  usage error (no script, a bad name, a profile of that name exists)
"""


def add_init(commands: Commands) -> None:
    init = commands.add_parser(
        "init", help="set up testing for an app: a profile, the MCP line, a smoke scenario",
        usage="wpfprobe init [--name NAME] [--no-smoke] [--replace] (SCRIPT [ARGS...] | -- python app.py [ARGS...])",
        epilog=_INIT_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    init.add_argument("script", nargs="?", metavar="SCRIPT", help="the app's .py script")
    init.add_argument("script_args", nargs=argparse.REMAINDER, metavar="ARGS", help="the app's own arguments")
    init.add_argument("--name", metavar="NAME", help="the profile's name (default: the script's name)")
    init.add_argument("--replace", action="store_true", help="overwrite a profile of the same name")
    init.add_argument("--no-smoke", action="store_true", help="do not start the app or write a smoke scenario")
    init.add_argument("--scenarios", type=Path, default=Path("scenarios"), metavar="DIR", help="where smoke.yaml goes")
    init.add_argument("--artifacts", type=Path, default=Path("artifacts"), metavar="DIR")
    init.set_defaults(handler=_init)


def add_profiles_edit(actions: Commands) -> None:
    edit = actions.add_parser(
        "edit", help="change a saved profile (options, or $EDITOR without them)",
        usage="wpfprobe profiles edit NAME [--allow TIER] [--cwd DIR] [--env KEY=VALUE] [--unset-env KEY] "
        "[--allow-action LOCATOR] [--clear-allow-actions] [--confirm-destructive | --no-confirm-destructive] "
        "[-- python app.py [ARGS...]]",
    )  # fmt: skip
    edit.add_argument("name", metavar="NAME")
    edit.add_argument("--allow", choices=("read", "interact", "mutate"), metavar="TIER", help="the probe's tier")
    edit.add_argument("--cwd", metavar="DIR", help="working directory of the app")
    edit.add_argument("--env", action="append", default=[], metavar="KEY=VALUE", help="set a variable (repeat)")
    edit.add_argument("--unset-env", action="append", default=[], metavar="KEY", help="remove a variable (repeat)")
    edit.add_argument(
        "--allow-action", action="append", default=[], metavar="LOCATOR",
        help="a destructive action exploration may take (a locator or text:REGEX; needs --confirm-destructive)",
    )  # fmt: skip
    edit.add_argument("--clear-allow-actions", action="store_true", help="remove every allowed destructive action")
    confirm = edit.add_mutually_exclusive_group()
    confirm.add_argument("--confirm-destructive", dest="confirm", action="store_const", const=True)
    confirm.add_argument("--no-confirm-destructive", dest="confirm", action="store_const", const=False)
    edit.set_defaults(handler=_profiles_edit, confirm=None)


def _usage(message: str) -> int:
    print(f"wpfprobe: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def _explain(err: Any) -> str:
    return str(err.message) + (f"\nhint: {err.suggestion}" if err.suggestion else "")


def _init(args: argparse.Namespace) -> int:
    from wpfprobe.apps.profiles import add_profile, check_name, load_profiles, new_profile, profiles_path  # noqa: PLC0415
    from wpfprobe.apps.targets import slug  # noqa: PLC0415
    from wpfprobe.core.errors import InvalidArgumentError  # noqa: PLC0415

    if args.app_command:
        command = list(args.app_command)
    elif args.script:
        script = Path(args.script)
        if not script.is_file():
            return _usage(f"no such script: {script}")
        command = [sys.executable, str(script.resolve()), *args.script_args]
    else:
        return _usage("give the app's script: wpfprobe init app.py (or -- python app.py ARGS)")
    script_word = next((c for c in command if c.lower().endswith((".py", ".pyw"))), command[-1])
    name = args.name or slug(Path(script_word).stem)
    try:
        check_name(name)
        existing = load_profiles().get(name)
        if existing is not None and existing.command == command and not args.replace:
            print(f"profile {name} exists already with this command; keeping it")
        else:
            profile = new_profile(name, command, cwd=os.getcwd(), allow="interact")
            add_profile(profile, replace=args.replace)
            print(f"saved profile {name} in {profiles_path()}")
    except InvalidArgumentError as err:
        return _usage(_explain(err))
    wpfprobe = shutil.which("wpfprobe") or f"{sys.executable} -m wpfprobe"
    print("\nregister wpfprobe with Claude Code (once; it serves every app you start):")
    print(f"  claude mcp add wpfprobe -- {wpfprobe} mcp")
    print("then start the app for the agent with:")
    print(f"  wpfprobe launch --profile {name}")
    if args.no_smoke:
        return EXIT_OK
    return _smoke(name, args.scenarios, args.artifacts)


def _smoke(name: str, folder: Path, artifacts: Path) -> int:
    from wpfprobe.core.errors import ProbeError  # noqa: PLC0415
    from wpfprobe.testing import virtual_display  # noqa: PLC0415
    from wpfprobe.testkit.launcher import AppTarget, ProcessFactory  # noqa: PLC0415
    from wpfprobe.testkit.scenario import load_scenario  # noqa: PLC0415
    from wpfprobe.testkit.scenario_run import run_scenario  # noqa: PLC0415

    path = folder / "smoke.yaml"
    print(f"\nstarting {name} once for a smoke scenario ...", flush=True)
    try:
        with virtual_display():
            factory = ProcessFactory(AppTarget(profile=name), work_dir=artifacts / "sessions" / ".apps")
            if not path.exists():
                app = factory.start()
                try:
                    windows = app.connection.call("wpf_get_windows", {})
                finally:
                    app.stop()
                listed = windows.structured.get("windows") or [] if windows.ok else []
                if not listed:
                    print(f"the app showed no window: {windows.code or 'no windows'}", file=sys.stderr)
                    return EXIT_FAILED
                folder.mkdir(parents=True, exist_ok=True)
                path.write_text(smoke_scenario(name, listed[0]), encoding="utf-8")
                print(f"wrote {path}")
            result = run_scenario(load_scenario(path), factory, artifacts=artifacts)
    except ProbeError as err:
        print(f"the smoke run failed: {_explain(err)}", file=sys.stderr)
        return EXIT_FAILED
    print(result.line())
    if result.ticket:
        print(f"  ticket: {result.ticket}")
    print(f"run it again with: wpfprobe scenario run {path}")
    return EXIT_OK if result.passed else EXIT_FAILED


def smoke_scenario(profile: str, window: dict[str, Any]) -> str:
    """A scenario that the app starts and shows its main window with its title."""
    locator = str(window.get("locator") or "*")
    title = window.get("title")
    lines = [
        "# Written by wpfprobe init: the app starts and shows its main window.",
        "id: smoke",
        f"title: {json.dumps(f'{profile} starts and shows its main window')}",
        "tags: [smoke]",
        f"target: {{profile: {json.dumps(profile)}}}",
        "steps:",
        "  - action: wait_for",
        f"    locator: {json.dumps(locator)}",
        "    condition: visible",
    ]
    if title:
        lines += [
            "    expect:",
            f"      - {{assert: text_equals, locator: {json.dumps(locator)}, value: {json.dumps(title)}}}",
        ]
    return "\n".join(lines) + "\n"


def _profiles_edit(args: argparse.Namespace) -> int:
    from wpfprobe.apps.profiles import add_profile, get_profile, new_profile  # noqa: PLC0415
    from wpfprobe.core.errors import InvalidArgumentError  # noqa: PLC0415

    try:
        current = get_profile(args.name)
    except InvalidArgumentError as err:
        return _usage(_explain(err))
    options = any(
        [args.allow, args.cwd, args.env, args.unset_env, args.allow_action, args.clear_allow_actions,
         args.confirm is not None, args.app_command]
    )  # fmt: skip
    if not options:
        return _edit_in_editor(current)
    env = dict(current.env)
    for item in args.env:
        key, sep, value = item.partition("=")
        if not sep or not key:
            return _usage(f"--env takes KEY=VALUE, got {item!r}")
        env[key] = value
    for key in args.unset_env:
        env.pop(key, None)
    allowed = [] if args.clear_allow_actions else list(current.allow_actions)
    allowed += [a for a in args.allow_action if a not in allowed]
    try:
        updated = new_profile(
            current.name, list(args.app_command or current.command), cwd=args.cwd or current.cwd,
            allow=args.allow or current.allow, env=env, allow_actions=allowed,
            confirm_destructive=current.confirm_destructive if args.confirm is None else args.confirm,
            attach=None if args.app_command else current.attach,
        )  # fmt: skip
        add_profile(updated, replace=True)
    except InvalidArgumentError as err:
        return _usage(_explain(err))
    if updated.allow_actions and not updated.confirm_destructive:
        print("note: allowed actions take effect only with --confirm-destructive", file=sys.stderr)
    print(f"updated profile {updated.name}")
    return EXIT_OK


def _edit_in_editor(current: Any) -> int:
    from pydantic import ValidationError  # noqa: PLC0415

    from wpfprobe.apps.profiles import Profile, add_profile  # noqa: PLC0415

    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not editor:
        return _usage("no $EDITOR (or $VISUAL) is set: give options instead (see --help)")
    data = current.model_dump(mode="json", by_alias=True)
    fd, temp = tempfile.mkstemp(prefix=f"wpfprobe-profile-{current.name}-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2)
            fh.write("\n")
        code = subprocess.call([*shlex.split(editor), temp])
        if code != 0:
            return _usage(f"the editor exited with status {code}; the profile is unchanged")
        try:
            edited = Profile.model_validate(json.loads(Path(temp).read_text(encoding="utf-8")))
        except (ValueError, ValidationError) as exc:
            return _usage(f"the edited profile is not valid, nothing saved: {' '.join(str(exc).split())[:500]}")
        if edited.name != current.name:
            return _usage("the name cannot change here: add a new profile and remove this one")
        add_profile(edited, replace=True)
    finally:
        os.unlink(temp)
    print(f"updated profile {current.name}")
    return EXIT_OK
