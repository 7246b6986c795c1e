"""The test kit's commands (SPEC 9): ``scenario run/schema``, ``explore``, ``replay``, ``tickets list/show``.

Exit status: 0 nothing failed; 1 a failure was found (a ticket is written for
it); 2 usage, or a file that is not valid (the error names its line). With
``--json`` one JSON object goes to stdout (counts or failures, the seed, the
tickets written); without it, a line per result. A seed is always printed,
also when it was chosen at random, so any run can be repeated.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from pathlib import Path
from typing import Any, TypeAlias

from wpfprobe.cli.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE

Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"

_SCENARIO_EPILOG = """\
exit status:
  0  every scenario passed (a pass after a retry is labelled flaky)
  1  a scenario failed: a ticket is written under ARTIFACTS/tickets/
  2  usage error, or a scenario file that is not valid (file:line: problem)
"""
_EXPLORE_EPILOG = """\
exit status:
  0  nothing failed
  1  failures found: one ticket per distinct failure (by signature), minimized
  2  usage error, or a config file that is not valid

Destructive actions (delete, remove, exit, close, send and the like, and keys
that close windows) are never taken unless the config's policy or the profile
allows them with confirmDestructive: true. --dry-run lists what is blocked.
"""
_REPLAY_EPILOG = """\
exit status:
  0  the recorded steps ran and nothing failed
  1  a failure happened, or the replay diverged from the recording (a ticket
     is written); replaying a ticket's repro.actions.json that still
     reproduces its bug exits 1
  2  usage error, or a file that is not a recorded trace
"""


def add_commands(commands: Commands) -> None:
    from wpfprobe.cli import traces  # noqa: PLC0415 - codegen and show-trace: their own module

    _add_scenario(commands)
    _add_explore(commands)
    _add_replay(commands)
    _add_tickets(commands)
    traces.add_commands(commands)


def _trace(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--trace", choices=("on", "retain-on-failure", "off"), default="off", metavar="MODE",
        help="on: a shrunk screenshot at every step; retain-on-failure: the same, removed when the run passed; "
        "off (default): screenshots of failures only. wpfprobe show-trace makes the page.",
    )  # fmt: skip


def _artifacts(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--artifacts",
        type=Path,
        default=Path("artifacts"),
        metavar="DIR",
        help="where sessions and tickets go (./artifacts)",
    )


def _add_scenario(commands: Commands) -> None:
    scenario = commands.add_parser("scenario", help="run scenario files, or print their schema")
    actions = scenario.add_subparsers(dest="scenario_command", metavar="ACTION", required=True)
    run = actions.add_parser(
        "run", help="run scenario files against a fresh app each", epilog=_SCENARIO_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    run.add_argument("files", nargs="+", type=Path, metavar="FILE", help="scenario files (.yaml, .yml or .json)")
    run.add_argument("--profile", metavar="P", help="the app's profile (default: each scenario's target)")
    _artifacts(run)
    run.add_argument("--json", action="store_true", help="print one JSON object")
    run.add_argument("--tag", action="append", default=[], metavar="T", help="only scenarios with this tag (repeat)")
    run.add_argument("--seed", type=int, metavar="N", help="seed for --shuffle (default: random; always printed)")
    run.add_argument("--shuffle", action="store_true", help="run the scenarios in an order drawn from the seed")
    run.add_argument("--update-baselines", action="store_true", help="write screenshot baselines instead of comparing")
    run.add_argument(
        "--screenshots", action="store_true", help="keep a screenshot after every step (always on a failure)"
    )
    run.add_argument(
        "--update-snapshots",
        action="store_true",
        help="write tree_matches templates from the live app instead of comparing",
    )
    _trace(run)
    run.set_defaults(handler=_scenario_run)
    schema = actions.add_parser("schema", help="print the scenario files' JSON Schema")
    schema.add_argument("-o", "--output", type=Path, metavar="FILE", help="write it to FILE instead of stdout")
    schema.set_defaults(handler=_scenario_schema)


def _add_explore(commands: Commands) -> None:
    explore = commands.add_parser(
        "explore", help="explore an app with seeded random input and report what breaks", epilog=_EXPLORE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    explore.add_argument("--profile", required=True, metavar="P", help="the app's profile (wpfprobe profiles list)")
    explore.add_argument("--seed", type=int, metavar="N", help="the seed (default: random; always printed)")
    explore.add_argument("--max-steps", type=int, default=200, metavar="N", help="at most N actions (200)")
    explore.add_argument("--time", type=float, metavar="S", help="stop exploring after S seconds")
    explore.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help="weights, invariants, policy (https://github.com/wpfprobe/wpfprobe/blob/main/docs/testing.md#exploration)",
    )
    _artifacts(explore)
    explore.add_argument("--json", action="store_true", help="print one JSON object")
    explore.add_argument("--dry-run", action="store_true", help="list what the safety policy blocks, take no action")
    explore.add_argument("--screenshots", action="store_true", help="keep a screenshot after every step")
    _trace(explore)
    explore.add_argument("--no-minimize", action="store_true", help="ticket each failure with its whole run")
    explore.add_argument(
        "--confirm", type=int, default=3, metavar="N", help="replays that confirm a minimized repro (3)"
    )
    explore.add_argument(
        "--minimize-time", type=float, default=300.0, metavar="S", help="time budget per failure (300)"
    )
    explore.add_argument("--minimize-runs", type=int, default=60, metavar="N", help="candidate budget per failure (60)")
    explore.set_defaults(handler=_explore)


def _add_replay(commands: Commands) -> None:
    replay = commands.add_parser(
        "replay", help="replay recorded steps (a ticket's repro.actions.json, a session's steps.jsonl)",
        epilog=_REPLAY_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    replay.add_argument("file", type=Path, metavar="FILE")
    replay.add_argument("--profile", metavar="P", help="the app's profile (default: the one the trace names)")
    _artifacts(replay)
    replay.add_argument("--json", action="store_true", help="print one JSON object")
    replay.add_argument("--runs", type=int, default=1, metavar="N", help="replay N times on fresh apps: the repro rate")
    replay.add_argument("--fast", action="store_true", help="do not keep the recorded pauses between steps")
    _trace(replay)
    replay.set_defaults(handler=_replay)


def _add_tickets(commands: Commands) -> None:
    tickets = commands.add_parser("tickets", help="list and show the tickets runs wrote")
    actions = tickets.add_subparsers(dest="tickets_command", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="one line per distinct failure (tickets grouped by signature)")
    _artifacts(listing)
    listing.add_argument("--all", action="store_true", help="one line per ticket")
    listing.add_argument("--json", action="store_true", help="print one JSON object")
    listing.set_defaults(handler=_tickets_list)
    show = actions.add_parser("show", help="print a ticket's ticket.md")
    show.add_argument("id", nargs="?", metavar="ID", help="a ticket id, or a unique part of it")
    show.add_argument("--last", action="store_true", help="the newest ticket")
    _artifacts(show)
    show.add_argument("--json", action="store_true", help="print its ticket.json")
    show.add_argument("--html", action="store_true", help="write its trace page (trace.html) and print its path")
    show.add_argument("-o", "--output", type=Path, metavar="FILE", help="with --html: write the page here")
    show.set_defaults(handler=_tickets_show)


# -- handlers ------------------------------------------------------------------------------------


def _usage(message: str) -> int:
    print(f"wpfprobe: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def _seed(given: int | None) -> int:
    return given if given is not None else random.SystemRandom().randrange(2**31)


def _display() -> Any:
    from wpfprobe.testing import virtual_display  # noqa: PLC0415

    return virtual_display()


def _scenario_schema(args: argparse.Namespace) -> int:
    from wpfprobe.testkit.scenario import json_schema  # noqa: PLC0415

    text = json.dumps(json_schema(), indent=2) + "\n"
    if args.output:
        args.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return EXIT_OK


def _scenario_run(args: argparse.Namespace) -> int:
    from wpfprobe.apps.profiles import get_profile  # noqa: PLC0415
    from wpfprobe.core.errors import ProbeError  # noqa: PLC0415
    from wpfprobe.testkit.launcher import ProcessFactory, check_target, needed_tier  # noqa: PLC0415
    from wpfprobe.testkit.runner import RunnerOptions  # noqa: PLC0415
    from wpfprobe.testkit.scenario import ScenarioError, load_scenario  # noqa: PLC0415
    from wpfprobe.testkit.scenario_run import RunSummary, ScenarioResult, run_scenario  # noqa: PLC0415

    seed = _seed(args.seed)
    try:
        scenarios = [load_scenario(f) for f in args.files]
    except ScenarioError as err:
        return _usage(str(err))
    if args.tag:
        scenarios = [s for s in scenarios if set(s.tags) & set(args.tag)]
    if args.shuffle:
        random.Random(seed).shuffle(scenarios)
    if not args.json:
        print(f"seed: {seed}")
    results = []
    try:
        for scenario in scenarios:  # usage errors first, before any app starts: no app, an unknown profile
            named = check_target(args.profile, scenario.target)
            if named.profile is not None:
                get_profile(named.profile)
        with _display():
            for scenario in scenarios:
                try:
                    target = check_target(args.profile, scenario.target, file=scenario.source_path)
                    factory = ProcessFactory(
                        target, tier=needed_tier(scenario.actions()), work_dir=args.artifacts / "sessions" / ".apps"
                    )
                except ProbeError as err:  # its command names no script, or an unknown profile
                    result = ScenarioResult.setup_error(scenario, err)
                else:
                    result = run_scenario(
                        scenario, factory, artifacts=args.artifacts, update_baselines=args.update_baselines,
                        update_snapshots=args.update_snapshots,
                        options=RunnerOptions(screenshots=args.screenshots, trace=args.trace),
                    )  # fmt: skip
                results.append(result)
                if not args.json:
                    print(result.line())
                    if result.ticket:
                        print(f"  ticket: {result.ticket}")
                        print(f"  replay: wpfprobe replay {Path(result.ticket) / 'repro.actions.json'}")
    except ProbeError as err:
        return _usage(err.message + (f"\nhint: {err.suggestion}" if err.suggestion else ""))
    summary = RunSummary(
        passed=sum(r.passed for r in results), failed=sum(not r.passed and r.error is None for r in results),
        errors=sum(r.error is not None for r in results), flaky=sum(r.flaky for r in results), seed=seed,
        tickets=[r.ticket for r in results if r.ticket], scenarios=results,
    )  # fmt: skip
    if args.json:
        print(summary.model_dump_json(by_alias=True, exclude_none=True))
    else:
        print(f"{summary.passed} passed, {summary.failed} failed, {summary.errors} errors, {summary.flaky} flaky")
    if summary.errors:
        return EXIT_USAGE
    return EXIT_FAILED if summary.failed else EXIT_OK


def _explore(args: argparse.Namespace) -> int:
    from wpfprobe.apps.profiles import get_profile  # noqa: PLC0415
    from wpfprobe.core.errors import ProbeError  # noqa: PLC0415
    from wpfprobe.testkit.explore import ExploreConfig, ExploreOptions, explore, load_config  # noqa: PLC0415
    from wpfprobe.testkit.launcher import AppTarget, ProcessFactory  # noqa: PLC0415
    from wpfprobe.testkit.minimize import MinimizeOptions  # noqa: PLC0415
    from wpfprobe.testkit.scenario import ScenarioError  # noqa: PLC0415

    if args.max_steps < 1 or args.confirm < 0 or (args.time is not None and args.time <= 0):
        return _usage("--max-steps must be >= 1, --confirm >= 0 and --time > 0")
    seed = _seed(args.seed)
    try:
        config = load_config(args.config) if args.config else ExploreConfig()
    except ScenarioError as err:
        return _usage(str(err))
    if args.screenshots:
        config = config.model_copy(update={"screenshots": True})
    try:
        profile = get_profile(args.profile)
    except ProbeError as err:
        return _usage(err.message + (f"\nhint: {err.suggestion}" if err.suggestion else ""))
    if not args.json:
        print(f"seed: {seed}", flush=True)
    options = ExploreOptions(
        seed=seed, max_steps=args.max_steps, time_seconds=args.time, config=config, artifacts=args.artifacts,
        minimize=not args.no_minimize, dry_run=args.dry_run,
        minimize_options=MinimizeOptions(budget_seconds=args.minimize_time, max_candidates=args.minimize_runs, confirm=args.confirm),
        profile_policy={"allow": profile.allow_actions, "confirmDestructive": profile.confirm_destructive},
        trace=args.trace,
    )  # fmt: skip
    try:
        with _display():
            factory = ProcessFactory(AppTarget(profile=args.profile), work_dir=args.artifacts / "sessions" / ".apps")
            report = explore(factory, options, log=(lambda m: None) if args.json else (lambda m: print(m, flush=True)))
    except ProbeError as err:
        print(f"wpfprobe: {err.message}", file=sys.stderr)
        return EXIT_USAGE if err.code == "INVALID_ARGUMENT" else EXIT_FAILED
    if args.json:
        print(report.model_dump_json(by_alias=True, exclude_none=True))
    else:
        _print_explore(report)
    return EXIT_FAILED if report.failures and not report.dry_run else EXIT_OK


def _print_explore(report: Any) -> None:
    c = report.coverage
    if report.dry_run:
        print(f"dry run: {_count(len(report.candidates), 'action')} the explorer may take on the first screen")
        for candidate in report.candidates:
            print(f"  {candidate['action']:<10} {candidate['locator']}  ({candidate['window']})")
        print(f"{_count(len(report.blocked), 'action')} blocked by the safety policy")
    for b in report.blocked:
        print(f"  blocked: {b['action']} {b['locator']}: {b['reason']}")
    if not report.dry_run:
        print(
            f"{report.steps} steps in {report.seconds:.1f} s ({report.actions_per_second:.1f} actions/s), "
            f"{report.launches} launches; coverage: {c['windows']} windows, {c['elementsActedOn']} of "
            f"{c['elementsSeen']} elements acted on, {c['states']} states"
        )
        print(_count(len(report.failures), "distinct failure"))
        for f in report.failures:
            rate = f", reproduced {f.repro_rate}" if f.repro_rate else ""
            size = f", {f.steps} -> {f.minimized_steps} steps" if f.minimized_steps is not None else ""
            print(
                f"  {f.kind}: {f.message} [{f.signature}] {_seen(f.occurrences)}{size}{rate}{' FLAKY' if f.flaky else ''}"
            )
            if f.ticket:
                print(f"    ticket: {f.ticket}")
    print(f"seed: {report.seed}")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _seen(times: int) -> str:
    return "seen once" if times == 1 else f"seen {times} times"


def _replay(args: argparse.Namespace) -> int:
    from wpfprobe.core.errors import ProbeError  # noqa: PLC0415
    from wpfprobe.core.trace import load_trace  # noqa: PLC0415
    from wpfprobe.testkit.launcher import AppTarget, ProcessFactory, needed_tier  # noqa: PLC0415
    from wpfprobe.testkit.replay import run_replay  # noqa: PLC0415
    from wpfprobe.testkit.runner import RunnerOptions  # noqa: PLC0415

    if args.runs < 1:
        return _usage("--runs must be >= 1")
    try:
        document = load_trace(args.file)
    except ProbeError as err:
        return _usage(err.message)
    target_data = document.target or {}
    try:
        if args.profile:
            target = AppTarget(profile=args.profile)
        elif target_data.get("profile") or target_data.get("command"):
            target = AppTarget.model_validate(
                {k: v for k, v in target_data.items() if k in ("profile", "command", "cwd")}
            )
        else:
            return _usage(f"{args.file} does not say which app it ran on: give --profile NAME")
    except ValueError as exc:
        return _usage(f"the trace's target is not usable: {exc}")
    if not args.json:
        print(
            f"seed: {document.seed if document.seed is not None else '-'} (replay runs the recorded steps, not the seed)"
        )
    try:
        with _display():
            tier = needed_tier([s.action for s in document.steps])
            factory = ProcessFactory(target, tier=tier, work_dir=args.artifacts / "sessions" / ".apps")
            report = run_replay(
                document, factory, artifacts=args.artifacts, file=str(args.file), pace=not args.fast, runs=args.runs,
                base_dir=args.file.resolve().parent, options=RunnerOptions(trace=args.trace),
            )  # fmt: skip
    except ProbeError as err:
        print(f"wpfprobe: {err.message}", file=sys.stderr)
        return EXIT_USAGE if err.code == "INVALID_ARGUMENT" else EXIT_FAILED
    if args.json:
        out = report.model_dump(mode="json", by_alias=True, exclude_none=True)
        out["seed"] = document.seed
        out["tickets"] = [report.ticket] if report.ticket else []
        print(json.dumps(out))
    else:
        print(report.line())
        for fallback in report.fallbacks:
            print(f"  step {fallback['step']} found its element with a fallback locator: {fallback['locator']}")
        if report.ticket:
            print(f"  ticket: {report.ticket}")
    return EXIT_FAILED if report.failed else EXIT_OK


def _tickets_list(args: argparse.Namespace) -> int:
    from wpfprobe.testkit.tickets import all_tickets, grouped  # noqa: PLC0415

    tickets = all_tickets(args.artifacts)
    groups = grouped(tickets)
    if args.json:
        out = {
            "failures": [
                {"signature": first.signature, "kind": first.kind, "title": first.title, "count": len(all_),
                 "occurrences": sum(t.occurrences for t in all_),
                 "tickets": [t.path for t in all_], "seeds": sorted({t.seed for t in all_ if t.seed is not None})}
                for first, all_ in groups
            ],
            "tickets": len(tickets),
        }  # fmt: skip
        print(json.dumps(out))
        return EXIT_OK
    if not tickets:
        print(f"no tickets under {args.artifacts / 'tickets'}", file=sys.stderr)
        return EXIT_OK
    if args.all:
        for t in tickets:
            print(f"{t.id}  {t.kind:<14} {t.title}  ({t.path})")
        return EXIT_OK
    for first, all_ in groups:
        seeds = sorted({str(t.seed) for t in all_ if t.seed is not None})
        extra = f"  seeds {','.join(seeds)}" if seeds else ""
        # The same words explore prints: how often the failure was seen, and in how many tickets.
        seen = _seen(sum(t.occurrences for t in all_))
        print(f"{first.id}  {first.kind:<14} {first.title}  ({seen}, {_count(len(all_), 'ticket')}){extra}")
    print(f"{_count(len(groups), 'distinct failure')} in {_count(len(tickets), 'ticket')}")
    return EXIT_OK


def _tickets_show(args: argparse.Namespace) -> int:
    from wpfprobe.core.errors import ProbeError  # noqa: PLC0415
    from wpfprobe.testkit.tickets import find_ticket  # noqa: PLC0415

    if args.id is not None and args.last:
        return _usage("give a ticket id or --last, not both")
    try:
        ticket = find_ticket(args.artifacts, None if args.last or args.id is None else args.id)
    except ProbeError as err:
        return _usage(err.message + (f"\nhint: {err.suggestion}" if err.suggestion else ""))
    assert ticket.path is not None
    folder = Path(ticket.path)
    if args.html:
        from wpfprobe.testkit.trace_view import write_html  # noqa: PLC0415

        try:
            print(write_html(folder, args.output))
        except ProbeError as err:
            return _usage(err.message)
        return EXIT_OK
    if args.json:
        sys.stdout.write((folder / "ticket.json").read_text(encoding="utf-8"))
    else:
        sys.stdout.write((folder / "ticket.md").read_text(encoding="utf-8"))
        print(f"\n({folder.resolve()}{os.sep})")
    return EXIT_OK
