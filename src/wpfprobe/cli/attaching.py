"""``wpfprobe ps``, ``attach`` and ``detach`` (SPEC section 10): a running app, probed without a restart.

Exit codes (``wpfprobe.cli.exits``): 0 done (for attach: also when a probe was already
inside, which is reported); 1 the attach was refused (ATTACH_REFUSED: another user's
process, not a pythonnet app, tracing not permitted; the reason and the fix are printed)
or failed otherwise; 2 usage error; 3 no such process, several match, or it is not
available (gone, stopped, its UI thread not answering).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from typing import Any

from wpfprobe.cli.exits import EXIT_FAILED, EXIT_NO_APP, EXIT_OK, EXIT_USAGE
from wpfprobe.core.errors import ProbeError

_APP_CODES = frozenset({"APP_NOT_AVAILABLE", "APP_AMBIGUOUS"})


def _fail(err: ProbeError, *, as_json: bool = False) -> int:
    if as_json:
        print(json.dumps({"error": err.to_dict()}, ensure_ascii=False))
    print(f"wpfprobe: {err.code}: {err.message}", file=sys.stderr)
    if err.suggestion:
        print(f"hint: {err.suggestion}", file=sys.stderr)
    for row in err.detail.get("processes") or ():
        titles = ", ".join(f'"{t}"' for t in row.get("windows") or ()) or "(no windows)"
        print(f"  pid {row.get('pid')}  {row.get('name')}  {titles}", file=sys.stderr)
    if err.code == "INVALID_ARGUMENT":
        return EXIT_USAGE
    return EXIT_NO_APP if err.code in _APP_CODES else EXIT_FAILED


def ps(args: argparse.Namespace) -> int:
    from wpfprobe.apps.attach.processes import list_processes  # noqa: PLC0415

    rows = list_processes(titles=True)
    if args.json:
        print(json.dumps([r.to_json() for r in rows], indent=2, ensure_ascii=False))
        return EXIT_OK
    if not rows:
        print("no pythonnet apps of yours are running", file=sys.stderr)
        return EXIT_OK
    table = [
        {
            "PID": str(r.pid),
            "PYTHON": r.python,
            "RUNTIME": r.runtime,
            "PROBE": r.app_id or ("(stopped)" if r.state == "stopped" else "-"),
            "WINDOWS": ", ".join(f'"{t}"' for t in r.titles) or "-",
            "COMMAND": shlex.join(r.cmdline) if r.cmdline else r.name,
        }
        for r in rows
    ]
    columns = list(table[0])
    widths = {c: max(len(c), *(len(row[c]) for row in table)) for c in columns}
    print("  ".join(c.ljust(widths[c]) for c in columns).rstrip())
    for row in table:
        print("  ".join(row[c].ljust(widths[c]) for c in columns).rstrip())
    print("attach with: wpfprobe attach PID", file=sys.stderr)
    return EXIT_OK


def attach(args: argparse.Namespace) -> int:
    from wpfprobe.apps.attach import attacher  # noqa: PLC0415

    try:
        pid = args.pid if args.pid is not None else attacher.find_pid(name=args.name, title=args.title)
        done = attacher.attach(pid, allow=args.allow, name=args.app_name, timeout=args.timeout)
    except ProbeError as err:
        return _fail(err, as_json=args.json)
    for warning in done.warnings:
        print(f"wpfprobe: warning: {warning}", file=sys.stderr)
    if args.json:
        print(json.dumps(done.to_json(), ensure_ascii=False))
    else:
        how = "already attached" if done.already else f"attached with {done.mechanism}"
        print(f"{done.app_id}  pid {done.pid}  {done.url}  tier {done.tier}  ({how})")
        if done.already and done.tier != args.allow:
            print(
                f"hint: the probe inside allows {done.tier}; `wpfprobe detach {done.pid}` and attach again "
                f"to get {args.allow}",
                file=sys.stderr,
            )
    return EXIT_OK


def detach(args: argparse.Namespace) -> int:
    from wpfprobe.apps.attach import attacher  # noqa: PLC0415

    try:
        app_id = attacher.detach(args.pid, timeout=args.timeout)
    except ProbeError as err:
        return _fail(err, as_json=args.json)
    out: dict[str, Any] = {"appId": app_id, "pid": args.pid, "detached": True}
    print(json.dumps(out) if args.json else f"{app_id}  pid {args.pid}  detached")
    return EXIT_OK
