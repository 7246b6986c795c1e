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
from typing import Any

from wpfprobe.cli.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE

Handler = Callable[[argparse.Namespace], int]

_VERIFY_EPILOG = """\
exit status:
  0  the log verified: chain intact and matching its head file
  1  the log did not verify (edited, deleted, reordered, inserted or truncated
     lines, a line that is not an entry, another key, a missing or mismatched
     head file); the first problem is printed
  2  usage error, or the log or key could not be read: nothing was verified

The key protects against anyone who cannot read it: whoever can read the key
file can write a log that verifies. See
https://github.com/wpfprobe/wpfprobe/blob/main/docs/audit.md
"""


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the hand-wrapped epilogs (exit codes) as written."""


def build_parser() -> argparse.ArgumentParser:
    from wpfprobe.core.version import __version__  # noqa: PLC0415

    parser = argparse.ArgumentParser(
        prog="wpfprobe",
        description="The command line of wpfprobe, the in-process UI probe for pythonnet WPF and WinForms apps.",
        epilog="New here? `wpfprobe demo` runs an example app with the probe inside; `wpfprobe init app.py` sets "
        "up testing for yours; `wpfprobe help locators` says how to name elements.",
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action="version", version=f"wpfprobe {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    from wpfprobe.cli.demo import add_demo  # noqa: PLC0415
    from wpfprobe.cli.newcomers import add_init  # noqa: PLC0415
    from wpfprobe.cli.testing import add_commands as add_testing  # noqa: PLC0415

    # In the order a newcomer meets them: try it, set up an app, run and look at apps, test, the rest.
    add_demo(commands)
    add_init(commands)
    _add_run(commands)
    _add_launch(commands)
    _add_stop(commands)
    _add_ls(commands)
    _add_tree(commands)
    _add_find(commands)
    _add_props(commands)
    _add_screenshot(commands)
    _add_mcp(commands)
    _add_profiles(commands)
    add_testing(commands)
    _add_attach_commands(commands)
    _add_audit(commands)
    _add_help(commands)
    return parser


_HELP_TOPICS = {"locators": "the locator grammar: how to name elements"}


def _add_help(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    topics = ", ".join(f"{k} ({v})" for k, v in _HELP_TOPICS.items())
    help_ = commands.add_parser(
        "help", help="reference pages that ship with wpfprobe", description=f"Topics: {topics}."
    )
    help_.add_argument("topic", choices=sorted(_HELP_TOPICS), metavar="TOPIC", help=", ".join(sorted(_HELP_TOPICS)))
    help_.set_defaults(handler=_help)


def _help(args: argparse.Namespace) -> int:
    from wpfprobe.engine.locators import GRAMMAR  # noqa: PLC0415 - text only: parsing loads no CLR

    sys.stdout.write(GRAMMAR)
    return EXIT_OK


def _add_audit(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from wpfprobe.audit._key import default_key_path  # noqa: PLC0415 - commands import their own modules (none loads the CLR)

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
    from wpfprobe.audit._key import AuditKeyError, default_key_path, key_file_is_private, load_key  # noqa: PLC0415
    from wpfprobe.audit._verify import verify  # noqa: PLC0415

    log_path: Path = args.file
    key_path: Path = args.key_file or default_key_path()
    try:
        key = load_key(key_path)
    except FileNotFoundError:
        hint = "" if args.key_file else " (the default; pass --key-file to use another)"
        return _usage_error(f"no key file {key_path}{hint}")
    except AuditKeyError as exc:
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
        report = verify(log_path, key=key, require_head=not args.ignore_missing_head)
    except OSError as exc:
        return _usage_error(f"cannot read {log_path}: {exc.strerror or exc}")
    if not key_file_is_private(key_path):
        print(
            f"warning: {key_path} can be read by other users; whoever can read it can forge a log that verifies",
            file=sys.stderr,
        )
    print(report.model_dump_json(by_alias=True) if args.json else report.summary())
    if report.kind == "head-missing" and not args.json:
        print("hint: --ignore-missing-head checks the chain alone", file=sys.stderr)
    return EXIT_OK if report.ok else EXIT_FAILED


_RUN_EPILOG = """\
exit status: the app's own, as `python SCRIPT ARGS` would give it (an uncaught
exception: 1; Ctrl+C: 130); 2 if the script cannot be read, an option is wrong,
or there is no display.

Linux: without DISPLAY the app runs on a private Xvfb that ends with it; a
DISPLAY that does not answer is refused before the app runs.

The probe starts once the app has loaded a CLR and shown its UI, listens on
127.0.0.1 (--port, else a free port) and writes its discovery manifest to
$WPFPROBE_HOME/sessions; it prints nothing on stdout. Its own messages are JSON
lines on stderr (or --log-file) at --log-level (default $WPFPROBE_LOG_LEVEL,
else WARNING): at INFO what it waits for (the app to load a CLR, then to show a
window), and at WARNING when that takes over 15 s. Ctrl+C closes the app's UI
and ends it as KeyboardInterrupt would; SIGTERM ends it at once with its
manifest removed (where the app leaves those signals to Python); `wpfprobe
stop` closes it as its user would.
"""

_LAUNCH_EPILOG = """\
exit status:
  0  the app's UI is up and its probe listens (appId, pid and url printed)
  1  the app exited first, or did not show a UI within --timeout (it was
     stopped); the line of its log that says why, and the log's path
  2  usage error: a bad command, tier or profile

The app runs detached, with its output in $WPFPROBE_HOME/logs/<name>-<pid>.log.
The token is never printed: local tools read it from the manifest.
"""


def _add_run(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = commands.add_parser(
        "run",
        help="run an unmodified pythonnet app with the probe attached",
        description="Run SCRIPT as `python SCRIPT ARGS` would, and serve its UI over MCP once it is shown.",
        epilog=_RUN_EPILOG,
        formatter_class=_Formatter,
    )
    _add_tier_and_name(run)
    run.add_argument("--log-level", metavar="LEVEL", help="DEBUG, INFO, WARNING (default), ERROR or CRITICAL")
    run.add_argument("--log-file", type=Path, metavar="FILE", help="append the probe's log lines here, not to stderr")
    run.add_argument(
        "--record", type=Path, metavar="DIR",
        help="record every action an agent takes as replayable steps: DIR/<session>/steps.jsonl",
    )  # fmt: skip
    run.add_argument(
        "--port", type=int, default=0, metavar="N",
        help="listen on 127.0.0.1:N (default: a free port), for a client registered with a fixed URL",
    )  # fmt: skip
    token = run.add_mutually_exclusive_group()
    token.add_argument(
        "--token-env", metavar="VAR",
        help="the bearer token is in environment variable VAR (removed from the app's environment); "
        "at least 32 characters",
    )  # fmt: skip
    token.add_argument(
        "--token", metavar="TOKEN",
        help="the bearer token itself; other users of this machine may see a command line: prefer --token-env",
    )  # fmt: skip
    run.add_argument("script", metavar="SCRIPT", help="the app's .py script")
    own_args = run.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS", help="the app's own arguments")
    # argparse counts a REMAINDER positional as required, and a bare `wpfprobe run` said "required: SCRIPT, ARGS".
    own_args.required = False
    run.set_defaults(handler=_run)


def _add_tier_and_name(parser: argparse.ArgumentParser, *, default_tier: str | None = "read") -> None:
    from wpfprobe.mcp.tools import TIERS  # noqa: PLC0415

    parser.add_argument(
        "--allow",
        choices=TIERS,
        default=default_tier,
        metavar="TIER",
        help="read (default), interact (input) or mutate (set properties)",
    )
    parser.add_argument("--name", metavar="NAME", help="the app's name in the manifest (default: the script's name)")


def _run(args: argparse.Namespace) -> int:
    from wpfprobe.apps.run import ScriptNotFoundError, run_script  # noqa: PLC0415
    from wpfprobe.core import logs as _logging  # noqa: PLC0415
    from wpfprobe.core.errors import InvalidArgumentError  # noqa: PLC0415

    try:
        _logging.configure(level=args.log_level, file=args.log_file)
    except InvalidArgumentError as err:
        return _usage_error(_explain(err))
    except OSError as exc:
        return _usage_error(f"cannot open log file {args.log_file}: {exc.strerror or exc}")
    if args.record is not None:
        import os  # noqa: PLC0415

        # The probe reads its settings from the environment when the app's UI comes up.
        os.environ["WPFPROBE_RECORD"] = str(args.record.resolve())
    if not 0 <= args.port <= 65535:
        return _usage_error(f"--port must be from 0 to 65535, got {args.port}")
    token = args.token
    if args.token_env is not None:
        import os  # noqa: PLC0415

        # Out of the app's environment, so the processes it starts do not inherit it.
        token = os.environ.pop(args.token_env, None)
        if token is None:
            return _usage_error(f"--token-env {args.token_env}: no such environment variable")
    if token is not None and len(token) < 32:
        return _usage_error(
            "the token must be at least 32 characters (e.g. python -c 'import secrets; print(secrets.token_urlsafe(32))')"
        )
    from wpfprobe.apps.display import NoDisplayError  # noqa: PLC0415

    try:
        return run_script(args.script, args.args, allow=args.allow, name=args.name, port=args.port, token=token)
    except (ScriptNotFoundError, NoDisplayError) as exc:
        return _usage_error(str(exc))


def _add_launch(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    launch = commands.add_parser(
        "launch",
        help="start a pythonnet app under `wpfprobe run` and wait for its UI",
        description="Start an app detached, with the probe attached, and return once its UI is up.",
        usage="wpfprobe launch [--allow TIER] [--name NAME] [--timeout S] [--json] "
        "(--profile PROFILE | -- python app.py [ARGS...])",
        epilog=_LAUNCH_EPILOG,
        formatter_class=_Formatter,
    )
    _add_tier_and_name(launch, default_tier=None)
    launch.add_argument("--profile", metavar="PROFILE", help="launch a saved profile (see `wpfprobe profiles`)")
    launch.add_argument("--timeout", type=float, default=60.0, metavar="S", help="seconds to wait for the UI (60)")
    launch.add_argument("--json", action="store_true", help="print appId, appName, pid, url and log as JSON")
    launch.set_defaults(handler=_launch)


def _launch(args: argparse.Namespace) -> int:
    import json  # noqa: PLC0415

    from wpfprobe.apps.launch import launch  # noqa: PLC0415
    from wpfprobe.apps.profiles import get_profile  # noqa: PLC0415
    from wpfprobe.core.errors import AppNotAvailableError, InvalidArgumentError  # noqa: PLC0415

    command = args.app_command
    try:
        if args.profile is not None:
            if command:
                return _usage_error("give either --profile or a command, not both")
            profile = get_profile(args.profile)
            if profile.attach is not None:
                return _launch_attach(args, profile)
            launched = launch(
                profile.command, allow=args.allow or profile.allow, name=args.name or profile.name,
                cwd=profile.cwd, env=profile.env, timeout=args.timeout,
            )  # fmt: skip
        elif command:
            launched = launch(command, allow=args.allow or "read", name=args.name, timeout=args.timeout)
        else:
            return _usage_error("give the app's command after --, or --profile NAME")
    except InvalidArgumentError as err:
        return _usage_error(_explain(err))
    except AppNotAvailableError as err:
        print(f"wpfprobe: {_explain(err)}", file=sys.stderr)
        return EXIT_FAILED
    m = launched.manifest
    from wpfprobe.cli.people import live_manifests, shown_ids  # noqa: PLC0415

    # The id `wpfprobe ls`, tree and the broker call it by (the name while no other app has it), not the probe's own.
    app_id = shown_ids([*(x for x in live_manifests() if x.pid != m.pid), m]).get(m.app_id, m.app_id)
    if args.json:
        out = {"appId": app_id, "probeAppId": m.app_id, "appName": m.app_name, "pid": m.pid, "url": m.url,
               "tier": m.tier, "logPath": str(launched.log_path)}  # fmt: skip
        print(json.dumps(out))
    else:
        print(f"{app_id}  pid {m.pid}  {m.url}  (log: {launched.log_path})")
    return EXIT_OK


def _launch_attach(args: argparse.Namespace, profile: Any) -> int:
    """``launch --profile`` of a profile that names a running app: attach to it instead."""
    import json  # noqa: PLC0415

    from wpfprobe.apps.attach.attacher import attach_running  # noqa: PLC0415
    from wpfprobe.core.errors import ProbeError  # noqa: PLC0415

    try:
        done = attach_running(
            name=profile.attach.name, title=profile.attach.title, allow=args.allow or profile.allow,
            app_name=args.name or profile.name, timeout=args.timeout,
        )  # fmt: skip
    except ProbeError as err:
        print(f"wpfprobe: {err.code}: {_explain(err)}", file=sys.stderr)
        return EXIT_USAGE if err.code == "INVALID_ARGUMENT" else EXIT_FAILED
    if args.json:
        print(json.dumps({**done.to_json(), "appName": profile.name, "attached": True}))
    else:
        print(f"{done.app_id}  pid {done.pid}  {done.url}  (attached to the running app)")
    return EXIT_OK


def _add_profiles(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from wpfprobe.apps.profiles import profiles_path  # noqa: PLC0415

    profiles = commands.add_parser(
        "profiles",
        help="saved app commands to launch by name",
        description=f"Profiles of apps you launch often, kept in {profiles_path()} (from $WPFPROBE_HOME).",
        formatter_class=_Formatter,
    )
    actions = profiles.add_subparsers(dest="profiles_command", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="list the profiles (environment values are not shown)")
    listing.add_argument("--json", action="store_true", help="print them as JSON")
    listing.set_defaults(handler=_profiles_list)
    add = actions.add_parser(
        "add",
        help="save a profile",
        usage="wpfprobe profiles add NAME [--allow TIER] [--cwd DIR] [--env KEY=VALUE] [--replace] -- python app.py [ARGS...]"
        "\n       wpfprobe profiles add NAME [--allow TIER] [--replace] (--attach-name NAME | --attach-title REGEX)",
    )
    add.add_argument("--attach-name", metavar="NAME", help="attach to the running app of this process or script name")
    add.add_argument("--attach-title", metavar="REGEX", help="attach to the running app with a window title matching")
    add.add_argument("name", metavar="NAME", help="letters, digits, '_' or '-' (up to 64)")
    add.add_argument("--allow", choices=("read", "interact", "mutate"), default="read", metavar="TIER")
    add.add_argument("--cwd", metavar="DIR", help="working directory of the app (default: this directory)")
    add.add_argument("--env", action="append", default=[], metavar="KEY=VALUE", help="an environment variable (repeat)")
    add.add_argument("--replace", action="store_true", help="overwrite a profile of the same name")
    add.set_defaults(handler=_profiles_add)
    remove = actions.add_parser("remove", help="delete a profile")
    remove.add_argument("name", metavar="NAME")
    remove.set_defaults(handler=_profiles_remove)
    from wpfprobe.cli.newcomers import add_profiles_edit  # noqa: PLC0415

    add_profiles_edit(actions)


def _profiles_list(args: argparse.Namespace) -> int:
    import json  # noqa: PLC0415

    from wpfprobe.apps.profiles import load_profiles  # noqa: PLC0415
    from wpfprobe.core.errors import InvalidArgumentError  # noqa: PLC0415

    try:
        profiles = load_profiles()
    except InvalidArgumentError as err:
        return _usage_error(_explain(err))
    if args.json:
        print(json.dumps([{**p.model_dump(mode="json", by_alias=True, exclude={"env"} if p.attach else {"env", "attach"}),
                           "env": sorted(p.env)} for p in profiles.values()]))  # fmt: skip
        return EXIT_OK
    for p in profiles.values():
        where = f"  (cwd {p.cwd})" if p.cwd else ""
        env = f"  env: {', '.join(sorted(p.env))}" if p.env else ""
        what = f"attach to {p.attach.describe()}" if p.attach is not None else " ".join(p.command)
        print(f"{p.name}  [{p.allow}]  {what}{where}{env}")
    if not profiles:
        print("no profiles yet: wpfprobe profiles add NAME -- python app.py", file=sys.stderr)
    return EXIT_OK


def _profiles_add(args: argparse.Namespace) -> int:
    from wpfprobe.apps.profiles import add_profile, new_profile  # noqa: PLC0415
    from wpfprobe.core.errors import InvalidArgumentError  # noqa: PLC0415

    command = args.app_command
    attach = {k: v for k, v in (("name", args.attach_name), ("title", args.attach_title)) if v is not None}
    if attach and (command or args.cwd or args.env):
        return _usage_error("an attach profile names a running app: no command, --cwd or --env")
    if not command and not attach:
        return _usage_error("give the app's command after --, e.g. -- python app.py (or --attach-name/--attach-title)")
    env: dict[str, str] = {}
    for item in args.env:
        key, sep, value = item.partition("=")
        if not sep or not key:
            return _usage_error(f"--env takes KEY=VALUE, got {item!r}")
        env[key] = value
    try:
        profile = new_profile(args.name, command, cwd=args.cwd, allow=args.allow, env=env, attach=attach or None)
        path = add_profile(profile, replace=args.replace)
    except InvalidArgumentError as err:
        return _usage_error(_explain(err))
    print(f"saved profile {profile.name} in {path}")
    return EXIT_OK


def _profiles_remove(args: argparse.Namespace) -> int:
    from wpfprobe.apps.profiles import remove_profile  # noqa: PLC0415
    from wpfprobe.core.errors import InvalidArgumentError  # noqa: PLC0415

    try:
        remove_profile(args.name)
    except InvalidArgumentError as err:
        return _usage_error(_explain(err))
    print(f"removed profile {args.name}")
    return EXIT_OK


_QUERY_EPILOG = """\
APP names a running app (see `wpfprobe ls`): its appId, its name (any case),
pid:1234 (or just 1234), process:NAME, title:REGEX (a window title) or
script:PATH (anything ending in .py works too). Leave it out when exactly one
app runs.

exit status:
  0  ok
  1  the query ran and failed (e.g. LOCATOR_NOT_FOUND): code, message and a
     suggestion are printed on stderr; for find: nothing matched (like grep)
  2  usage error, including arguments the app rejected (INVALID_ARGUMENT, e.g.
     a malformed locator)
  3  no such app, several apps match APP, or the app is not available (the
     running apps are listed on stderr)
"""

_MCP_EPILOG = """\
Register it once with your MCP client, e.g. Claude Code:
  claude mcp add wpfprobe -- wpfprobe mcp

It finds every probe of this user through the manifests in
$WPFPROBE_HOME/sessions and serves their tools: wpf_list_apps, every wpf_*
tool with an optional `app` argument, each app's own tools as
<appId>__<tool>, and wpf_launch_app; with --allow interact (or mutate), also
wpf_attach_app, which starts the probe in a running pythonnet app that
wpf_list_apps lists as attachable. stdout carries MCP frames only; the
broker's JSON-lines log goes to stderr or --log-file.
"""


def _add_mcp(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    mcp = commands.add_parser(
        "mcp",
        help="stdio MCP server for every running probe: the one entry to register with an MCP client",
        description="Serve every running wpfprobe app of this user over one stdio MCP server.",
        epilog=_MCP_EPILOG,
        formatter_class=_Formatter,
    )
    mcp.add_argument("--log-level", metavar="LEVEL", help="DEBUG, INFO, WARNING (default), ERROR or CRITICAL")
    mcp.add_argument("--log-file", type=Path, metavar="FILE", help="append the broker's log lines here, not to stderr")
    mcp.add_argument(
        "--record", type=Path, metavar="DIR",
        help="record the agent's actions on each app as replayable steps: DIR/<session>/steps.jsonl",
    )  # fmt: skip
    mcp.add_argument(
        "--artifacts", type=Path, default=Path("artifacts"), metavar="DIR",
        help="where wpf_run_scenario and wpf_file_ticket write sessions and tickets (./artifacts)",
    )  # fmt: skip
    mcp.add_argument(
        "--allow", choices=("read", "interact", "mutate"), default="read", metavar="TIER",
        help="what the broker itself may do: read (default); interact adds wpf_attach_app, which enters a "
        "running app (attaching at most at this tier)",
    )  # fmt: skip
    mcp.set_defaults(handler=_cli_handler("mcp"))


def _add_ls(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    ls = commands.add_parser(
        "ls",
        help="list the running probes",
        description="The running wpfprobe apps of this user, from their manifests (tokens are never shown).",
        formatter_class=_Formatter,
    )
    ls.add_argument("--json", action="store_true", help="print a JSON list")
    ls.set_defaults(handler=_cli_handler("ls"))


_STOP_EPILOG = """\
APP names a running app as for `wpfprobe tree` (leave it out when exactly one runs).

The app is asked to close as its user would (its closing events run, and its own
code after its UI), through its probe; if it is still running after --timeout
seconds, it gets SIGTERM (Windows: it is terminated), which its probe answers by
removing its manifest and ending at once. Then this waits until the process is gone
and its manifest removed.

exit status:
  0  the app has ended and its manifest is gone
  1  the app is still running after both waits
  2  usage error
  3  no such app, or several apps match APP (the running apps are listed)
"""


def _add_stop(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    stop = commands.add_parser(
        "stop", help="end a running app cleanly", description="Close a running app, as its user would, and wait until it is gone.",
        epilog=_STOP_EPILOG, formatter_class=_Formatter,
    )  # fmt: skip
    stop.add_argument("app", nargs="?", metavar="APP", help="which app (optional when one runs)")
    stop.add_argument(
        "--timeout", type=float, default=10.0, metavar="S", help="seconds to wait for it to close before SIGTERM (10)"
    )
    stop.set_defaults(handler=_cli_handler("stop"))


def _add_tree(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    tree = commands.add_parser(
        "tree", help="print an app's element tree", description="The element tree of a running app, one line per element.",
        epilog=_QUERY_EPILOG, formatter_class=_Formatter,
    )  # fmt: skip
    tree.add_argument("app", nargs="?", metavar="APP", help="which app (optional when one runs)")
    tree.add_argument("--locator", metavar="L", help="root element (default: the main window)")
    tree.add_argument("--depth", type=int, default=3, metavar="N", help="levels below the root (3, at most 10)")
    tree.add_argument("--json", action="store_true", help="print the structured result as JSON")
    tree.set_defaults(handler=_cli_handler("tree"))


def _add_find(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    find = commands.add_parser(
        "find", help="find elements by locator", description="Elements of a running app matching LOCATOR, with their paths.",
        usage="wpfprobe find [-h] [--max N] [--json] [APP] LOCATOR", epilog=_QUERY_EPILOG, formatter_class=_Formatter,
    )  # fmt: skip
    find.add_argument("target", nargs="+", metavar="[APP] LOCATOR", help="which app (optional) and a locator")
    find.add_argument("--max", type=int, default=20, metavar="N", help="at most N results (20, at most 100)")
    find.add_argument("--json", action="store_true", help="print the structured result as JSON")
    find.set_defaults(handler=_cli_handler("find"))


def _add_props(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    props = commands.add_parser(
        "props", help="print an element's properties",
        description="The properties of the element LOCATOR finds (every page), sorted by name; secrets show as [REDACTED].",
        usage="wpfprobe props [-h] [--filter F] [--all] [--json] [APP] LOCATOR", epilog=_QUERY_EPILOG,
        formatter_class=_Formatter,
    )  # fmt: skip
    props.add_argument("target", nargs="+", metavar="[APP] LOCATOR", help="which app (optional) and a locator")
    props.add_argument("--filter", metavar="F", help="only properties whose name contains F")
    props.add_argument("--all", action="store_true", help="include properties at their default values")
    props.add_argument("--json", action="store_true", help="print {items, totalCount} as JSON")
    props.set_defaults(handler=_cli_handler("props"))


def _add_screenshot(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    shot = commands.add_parser(
        "screenshot", help="save a PNG of a window or element",
        description="A PNG of an element (default: the main window) as it is on screen.",
        epilog=_QUERY_EPILOG, formatter_class=_Formatter,
    )  # fmt: skip
    shot.add_argument("app", nargs="?", metavar="APP", help="which app (optional when one runs)")
    shot.add_argument("--locator", metavar="L", help="the element (default: the main window)")
    shot.add_argument("-o", "--output", type=Path, required=True, metavar="FILE.png", help="where to write the PNG")
    shot.add_argument("--json", action="store_true", help="print {nodeId, width, height, file} as JSON")
    shot.set_defaults(handler=_cli_handler("screenshot"))


# -- ps, attach, detach (SPEC section 10) ----------------------------------------------------------

_ATTACH_EPILOG = """\
The app keeps running as it was: the probe starts inside it on threads of its own
(as wpfprobe.start() would), listens on 127.0.0.1 and writes its manifest; the
token is made inside the app and never printed. Attaching twice answers with the
same app id. Linux: Python 3.10-3.13 is entered with gdb (apt-get install gdb),
3.14 and later with sys.remote_exec. A Mono app must run with
MONO_THREADS_SUSPEND=preemptive. See
https://github.com/wpfprobe/wpfprobe/blob/main/docs/attach.md

exit status:
  0  attached (or a probe was already inside): appId, pid and url printed
  1  refused (ATTACH_REFUSED: another user's process, not a pythonnet app,
     tracing not permitted, Mono's suspend mode) or failed: why and the fix
  2  usage error
  3  no such process, several match, or it is not available (gone, stopped,
     its UI thread not answering)
"""


def _add_attach_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from wpfprobe.mcp.tools import TIERS  # noqa: PLC0415

    ps = commands.add_parser(
        "ps", help="list your running pythonnet apps (to attach to)",
        description="Your processes that loaded a CLR through pythonnet, read from outside (nothing is injected): "
        "pid, Python version, runtime, the probe inside if any, window titles, command line.",
        formatter_class=_Formatter,
    )  # fmt: skip
    ps.add_argument("--json", action="store_true", help="print a JSON list")
    ps.set_defaults(handler=_attaching("ps"))
    attach = commands.add_parser(
        "attach", help="start the probe inside a pythonnet app that is already running",
        description="Start the probe's server inside a running pythonnet app, without restarting it.",
        usage="wpfprobe attach [-h] (PID | --name NAME | --title REGEX) [--allow TIER] [--app-name NAME] "
        "[--timeout S] [--json]",
        epilog=_ATTACH_EPILOG, formatter_class=_Formatter,
    )  # fmt: skip
    attach.add_argument("pid", nargs="?", type=int, metavar="PID", help="the process (see `wpfprobe ps`)")
    attach.add_argument("--name", metavar="NAME", help="the one app whose process or script is NAME")
    attach.add_argument("--title", metavar="REGEX", help="the one app with a window title matching REGEX")
    attach.add_argument("--allow", choices=TIERS, default="read", metavar="TIER",
                        help="read (default), interact (input) or mutate (set properties)")  # fmt: skip
    attach.add_argument("--app-name", metavar="NAME", help="the app's name in the manifest (default: its script's)")
    attach.add_argument("--timeout", type=float, default=45.0, metavar="S", help="seconds to wait in all (45)")
    attach.add_argument("--json", action="store_true", help="print appId, pid, url, tier and warnings as JSON")
    attach.set_defaults(handler=_attach)
    detach = commands.add_parser(
        "detach", help="stop the probe that `wpfprobe attach` started in an app",
        description="Stop the probe `wpfprobe attach` started in a running app and remove its manifest; "
        "the app runs on as before, with no thread or port of the probe left.",
        formatter_class=_Formatter,
    )  # fmt: skip
    detach.add_argument("pid", type=int, metavar="PID", help="the process")
    detach.add_argument("--timeout", type=float, default=20.0, metavar="S", help="seconds to wait (20)")
    detach.add_argument("--json", action="store_true", help="print the result as JSON")
    detach.set_defaults(handler=_attaching("detach"))


def _attach(args: argparse.Namespace) -> int:
    chosen = [given for given in (args.pid, args.name, args.title) if given is not None]
    if len(chosen) != 1:
        return _usage_error("give exactly one of PID, --name NAME or --title REGEX")
    if not args.timeout > 0:
        return _usage_error("--timeout must be a positive number of seconds")
    return _attaching("attach")(args)


def _attaching(command: str) -> Handler:
    def handle(args: argparse.Namespace) -> int:
        from wpfprobe.cli import attaching  # noqa: PLC0415 - reads processes from outside, never loads the CLR

        handler: Handler = getattr(attaching, command)
        return handler(args)

    return handle


def _cli_handler(command: str) -> Handler:
    def handle(args: argparse.Namespace) -> int:
        from wpfprobe.cli import people as _cli  # noqa: PLC0415 - the people commands never load the CLR

        handler: Handler = getattr(_cli, command)
        return handler(args)

    return handle


def _explain(err: Any) -> str:
    """A ProbeError's message, and its suggestion as a hint line."""
    return str(err.message) + (f"\nhint: {err.suggestion}" if err.suggestion else "")


def _usage_error(message: str) -> int:
    print(f"wpfprobe: error: {message}", file=sys.stderr)
    return EXIT_USAGE


# Commands that take an app's command line after "--" (its own options and "--" included).
_TAKES_APP_COMMAND = (("launch",), ("profiles", "add"), ("profiles", "edit"), ("init",))


def _split_app_command(argv: list[str]) -> tuple[list[str], list[str]]:
    """(wpfprobe's own arguments, the app's command after the first "--") for the commands
    in _TAKES_APP_COMMAND. argparse cannot do it: a "*" positional after NAME is matched
    empty before the options that follow NAME are seen."""
    words = [w for w in argv if not w.startswith("-")]
    if "--" in argv and any(tuple(words[: len(c)]) == c for c in _TAKES_APP_COMMAND):
        i = argv.index("--")
        return argv[:i], argv[i + 1 :]
    return argv, []


#: The exit status when the reader of stdout went away (``wpfprobe tree | head -1``): a shell's for a
#: process that SIGPIPE ended, which is what Python's SIGPIPE handling (ignored: an exception instead) hides.
EXIT_PIPE_CLOSED = 141


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (argparse itself exits 2 on bad usage)."""
    own, app_command = _split_app_command(list(sys.argv[1:] if argv is None else argv))
    args = build_parser().parse_args(own)
    args.app_command = app_command
    handler: Handler = args.handler
    try:
        code = handler(args)
        sys.stdout.flush()
    except BrokenPipeError:
        return _pipe_closed()
    return code


def _pipe_closed() -> int:
    """stdout's reader is gone: stop quietly, as Python's docs recommend (signal module, "Note on SIGPIPE").
    stdout goes to devnull so that the interpreter's own flush at exit finds nothing left to fail on."""
    import os  # noqa: PLC0415

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no file descriptor behind stdout (a test's capture)
        pass
    return EXIT_PIPE_CLOSED


if __name__ == "__main__":
    sys.exit(main())
