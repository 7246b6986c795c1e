"""The pytest plugin (entry point ``pytest11``): apps under test as fixtures, scenario files as tests.

Installed with wpfprobe, it stays out of the way: nothing happens unless a
test uses one of its fixtures, an option below is given, or the
``wpfprobe_scenarios`` ini setting names scenario files to collect.

- ``wpfprobe_app``: the app started fresh for the test (from
  ``@pytest.mark.wpfprobe(profile=..., command=[...])``, else
  ``--wpfprobe-profile`` / the ``wpfprobe_profile`` ini value), under a
  virtual display; a ``TestApp`` that acts and checks through the app's MCP
  tools, each step recorded. ``wpfprobe_launch(profile=..., command=...)``
  starts more.
- ``wpfprobe_seed``: the run's seed (``--wpfprobe-seed``, else random),
  printed in the summary and set as a JUnit property of every test that used
  the plugin; ``wpfprobe_shard``: ``(index, count)`` of this shard (a
  pytest-xdist worker, or ``WPFPROBE_SHARD=i/n`` in a CI matrix), for
  exploring with one seed per shard.
- Scenario files matching ``wpfprobe_scenarios`` (ini, globs relative to the
  rootdir) or ``--wpfprobe-scenarios GLOB`` are collected as tests.

A failing test keeps its session folder (steps, trees, screenshots, runner
log) and gets its paths as JUnit properties (``wpfprobe_session``,
``wpfprobe_ticket``); a passing test's folder is removed.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import random
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    # Only for annotations: the plugin loads in every pytest run of a venv wpfprobe is installed in,
    # so it imports the test kit only when a test asks for it.
    from wpfprobe.testkit.artifacts import SessionDir
    from wpfprobe.testkit.connection import CallOutcome
    from wpfprobe.testkit.oracles import Failure
    from wpfprobe.testkit.runner import Runner, StepReport

_USED = pytest.StashKey[bool]()
_SEED = pytest.StashKey[int]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("wpfprobe", "wpfprobe: testing WPF/WinForms apps")
    group.addoption("--wpfprobe-seed", type=int, default=None, help="the seed (default: random; always reported)")
    group.addoption("--wpfprobe-profile", default=None, help="the profile of the app under test")
    group.addoption("--wpfprobe-artifacts", default=None, help="where sessions and tickets go (default ./artifacts)")
    group.addoption("--wpfprobe-scenarios", action="append", default=[], help="collect scenario files matching GLOB")
    group.addoption(
        "--wpfprobe-own-display", action="store_true", default=False,
        help="start a private virtual display even when DISPLAY is set (one per xdist worker)",
    )  # fmt: skip
    group.addoption(
        "--wpfprobe-trace", choices=("on", "retain-on-failure", "off"), default="off",
        help="a shrunk screenshot at every step of the apps the fixtures start (kept only for failing tests)",
    )  # fmt: skip
    parser.addini("wpfprobe_scenarios", "globs of scenario files to collect as tests", type="linelist", default=[])
    parser.addini("wpfprobe_profile", "the profile of the app under test", default="")
    parser.addini("wpfprobe_artifacts", "where sessions and tickets go", default="")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "wpfprobe(profile=None, command=None, tier='interact'): the app under test")
    seed = config.getoption("--wpfprobe-seed")
    config.stash[_SEED] = seed if seed is not None else random.SystemRandom().randrange(2**31)
    config.stash[_USED] = bool(seed is not None or config.getoption("--wpfprobe-profile") or _globs(config))


def _globs(config: pytest.Config) -> list[str]:
    return [*config.getini("wpfprobe_scenarios"), *config.getoption("--wpfprobe-scenarios")]


def pytest_report_header(config: pytest.Config) -> str | None:
    if config.stash.get(_USED, False):
        return f"wpfprobe seed: {config.stash[_SEED]} (repeat with --wpfprobe-seed {config.stash[_SEED]})"
    return None


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    if config.stash.get(_USED, False):
        seed = config.stash[_SEED]
        terminalreporter.write_line(f"wpfprobe seed: {seed} (repeat with --wpfprobe-seed {seed})")


def _artifacts(config: pytest.Config) -> Path:
    given = config.getoption("--wpfprobe-artifacts") or config.getini("wpfprobe_artifacts") or "artifacts"
    path = Path(given)
    return path if path.is_absolute() else Path(config.rootpath) / path


def _profile(config: pytest.Config) -> str | None:
    return config.getoption("--wpfprobe-profile") or config.getini("wpfprobe_profile") or None


# -- fixtures -------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def wpfprobe_seed(pytestconfig: pytest.Config) -> int:
    pytestconfig.stash[_USED] = True
    return pytestconfig.stash[_SEED]


@pytest.fixture(scope="session")
def wpfprobe_shard() -> tuple[int, int]:
    """(index, count) of this shard: an xdist worker (gw0, gw1...), or WPFPROBE_SHARD=i/n (a CI matrix job)."""
    return shard_of(os.environ)


def shard_of(env: Any) -> tuple[int, int]:
    worker = str(env.get("PYTEST_XDIST_WORKER") or "")
    if worker.startswith("gw") and worker[2:].isdigit():
        return int(worker[2:]), int(env.get("PYTEST_XDIST_WORKER_COUNT") or 1)
    given = str(env.get("WPFPROBE_SHARD") or "")
    index, _, count = given.partition("/")
    if index.isdigit() and count.isdigit() and 0 <= int(index) < int(count):
        return int(index), int(count)
    return 0, 1


@pytest.fixture(scope="session")
def wpfprobe_display(pytestconfig: pytest.Config) -> Iterator[str | None]:
    from wpfprobe.testing import virtual_display  # noqa: PLC0415

    pytestconfig.stash[_USED] = True
    previous = os.environ.get("DISPLAY")
    own = pytestconfig.getoption("--wpfprobe-own-display") and previous is not None
    if own:
        os.environ.pop("DISPLAY", None)
    try:
        with virtual_display() as name:
            yield name
    finally:
        if own and previous is not None:
            os.environ["DISPLAY"] = previous


class TestApp:
    """An app started for one test: act and check through its MCP tools; every step is recorded.

    A step or check that fails raises AssertionError whose first line says what failed and whose next lines
    say where the evidence is (the session folder), the ticket written for it and how to replay it."""

    __test__ = False  # not a test class, whatever its name

    def __init__(
        self, runner: Runner, session: SessionDir | None = None, *, log_tail: Callable[[], str] | None = None
    ) -> None:
        self.runner = runner
        self.session = session
        self._log_tail = log_tail
        #: The first failure a step or check of this test met: the ticket a failing test gets.
        self.failure: Failure | None = None
        #: That ticket's folder, written when the failure happened.
        self.ticket: str | None = None
        #: Whether the failure's message said where the evidence is (else the report gets a section).
        self.announced = False

    def __repr__(self) -> str:  # what pytest shows for the fixture's argument in a failure
        app = self.runner.app
        return f"<wpfprobe app {self.runner.factory.environment().get('app', '?')} pid {app.pid if app else '-'}>"

    def _failed(self, failure: Failure, *also: Failure) -> AssertionError:
        if self.failure is None:
            self.failure = failure
            self.ticket = self._write_ticket(failure)
        first = failure.one_line() if failure.kind != "expectation" else failure.message
        lines = [first, *(f"also: {f.one_line()}" for f in also)]
        if failure.step is not None:
            step = next((s for s in self.runner.steps if s.seq == failure.step), None)
            if step is not None and step.action != "check":
                lines.append(f"at step {step.seq}: {step.action} {step.target.locator if step.target else ''}".rstrip())
        lines += evidence_lines(self.session, self.ticket)
        self.announced = True
        return AssertionError("\n".join(lines))

    def _write_ticket(self, failure: Failure) -> str | None:
        if self.session is None:
            return None
        try:
            return write_ticket_for(self.runner, self.session, failure, self._log_tail() if self._log_tail else "")
        except Exception:  # noqa: BLE001 - the test's own failure is what matters; the ticket is extra
            return None

    def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        """Any MCP tool; its structured result, or AssertionError naming the error code."""
        __tracebackhide__ = True
        outcome = self.runner.call(tool, arguments)
        return _ok(tool, outcome)

    def step(self, action: str, locator: str | None = None, **arguments: Any) -> StepReport:
        """An action (click, type_text, ...) as a recorded step; AssertionError if it failed or set off a failure."""
        __tracebackhide__ = True
        from wpfprobe.testkit import oracles  # noqa: PLC0415
        from wpfprobe.testkit.runner import StepSpec  # noqa: PLC0415

        report = self.runner.run_step(StepSpec(action=action, args=arguments, locators=[locator] if locator else []))
        if not report.applied:
            error = report.step.error
            code = error.code if error else "INTERNAL"
            raise self._failed(
                oracles.make(
                    "missing-element" if code in ("LOCATOR_NOT_FOUND", "NODE_NOT_FOUND") else "step-error",
                    f"{action} {locator or ''} could not run: {code} {error.message if error else ''}",
                    what=code, element=locator, step=report.step.seq,
                    expected=f"{locator} is there and can take a {action}", actual=f"{code}: {error.message if error else ''}",
                )
            )  # fmt: skip
        if report.failures:
            raise self._failed(*report.failures)
        return report

    def click(self, locator: str, **arguments: Any) -> StepReport:
        __tracebackhide__ = True
        return self.step("click", locator, **arguments)

    def type_text(self, locator: str, text: str, **arguments: Any) -> StepReport:
        __tracebackhide__ = True
        return self.step("type_text", locator, text=text, **arguments)

    def select(self, locator: str, item: str | None = None, **arguments: Any) -> StepReport:
        __tracebackhide__ = True
        return self.step("select", locator, **({"item": item} if item is not None else {}), **arguments)

    def toggle(self, locator: str, **arguments: Any) -> StepReport:
        __tracebackhide__ = True
        return self.step("toggle", locator, **arguments)

    def send_keys(self, keys: str, locator: str | None = None) -> StepReport:
        __tracebackhide__ = True
        return self.step("send_keys", locator, keys=keys)

    def text(self, locator: str) -> str | None:
        __tracebackhide__ = True
        found = self.call("wpf_find_elements", locator=locator, maxResults=2)["results"]
        if len(found) != 1:
            raise AssertionError(f"{locator} matches {len(found)} elements")
        text: str | None = found[0]["node"].get("text")
        return text

    def expect(self, assertion: str, locator: str, **fields: Any) -> None:
        """A scenario assertion (``expect("text_equals", "#status", value="Saved")``), retried until its timeout;
        an exception the app raises meanwhile, or its end, fails it at once with that failure."""
        __tracebackhide__ = True
        from wpfprobe.testkit import assertions, oracles  # noqa: PLC0415
        from wpfprobe.testkit.replay import Interruption  # noqa: PLC0415

        raw = {"assert": assertion, "locator": locator, **fields}
        last = self.runner.steps[-1].seq if self.runner.steps else None
        stopped = Interruption(self.runner, element=locator, step=last)
        result = assertions.check(
            lambda tool, args: self.runner.call(tool, args), raw, default_timeout_ms=10_000, interrupted=stopped
        )
        if stopped.failures:
            raise self._failed(*stopped.failures)
        if not result.ok:
            raise self._failed(
                oracles.make(
                    "expectation", result.message(), what=result.kind, element=result.locator, step=last,
                    expected=result.expected, actual=result.actual, details={"assertion": raw},
                )
            )  # fmt: skip

    def screenshot(self, name: str = "screenshot") -> Path | None:
        from wpfprobe.testkit.artifacts import safe_name  # noqa: PLC0415

        return self.runner.screenshot(safe_name(name))


def _ok(tool: str, outcome: CallOutcome) -> dict[str, Any]:
    __tracebackhide__ = True
    if not outcome.ok:
        raise AssertionError(f"{tool} failed: {outcome.code}: {outcome.message}")
    return outcome.structured


def _shown(path: str | Path) -> str:
    """A path as a person types it next: relative to the working directory when it is under it."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def evidence_lines(session: SessionDir | None, ticket: str | None) -> list[str]:
    """Where a failing test's evidence is, and how to replay it: the lines after what failed."""
    lines = []
    if session is not None:
        lines.append(f"evidence: {_shown(session.path)}{os.sep}  (steps, trees, screenshots, runner.log)")
    if ticket is not None:
        lines.append(f"ticket:   {_shown(ticket)}{os.sep}  (ticket.md; trace.html opens in a browser)")
        lines.append(f"replay:   wpfprobe replay {_shown(Path(ticket) / 'repro.actions.json')}")
    return lines


def write_ticket_for(runner: Runner, session: SessionDir, failure: Failure, log_tail: str) -> str | None:
    """A failing test's ticket (with its trace page), as a failing scenario gets one."""
    from wpfprobe.testkit.tickets import write_ticket  # noqa: PLC0415

    ticket = write_ticket(
        session.tickets, failure=failure, steps=runner.steps, session_id=session.session_id, source="pytest",
        environment=runner.factory.environment(), target=runner.factory.target, session_path=session.path,
        log_tail=log_tail,
    )  # fmt: skip
    return ticket.path


@pytest.fixture
def wpfprobe_launch(
    request: pytest.FixtureRequest, pytestconfig: pytest.Config, wpfprobe_display: str | None, wpfprobe_seed: int
) -> Iterator[Callable[..., TestApp]]:
    """``wpfprobe_launch(profile=..., command=[...], tier="interact")`` starts an app for this test.

    A command is relative to the test's module: its script (and ``cwd``) from that file's folder, which is
    also where the app runs, and a bare ``python`` is the interpreter running pytest."""
    from wpfprobe.core.errors import ProbeError  # noqa: PLC0415
    from wpfprobe.testkit.artifacts import SessionDir, new_session_id, safe_name  # noqa: PLC0415
    from wpfprobe.testkit.launcher import AppTarget, ProcessFactory  # noqa: PLC0415
    from wpfprobe.testkit.runner import Runner, RunnerOptions  # noqa: PLC0415
    from wpfprobe.testkit.scenario_run import setup_text  # noqa: PLC0415

    started: list[tuple[Runner, SessionDir, TestApp]] = []
    artifacts = _artifacts(pytestconfig)
    request.node.user_properties.append(("wpfprobe_seed", str(wpfprobe_seed)))

    def launch(
        *, profile: str | None = None, command: list[str] | None = None, tier: str = "interact", cwd: str | None = None
    ) -> TestApp:
        __tracebackhide__ = True
        if profile is None and command is None:
            profile = _profile(pytestconfig)
        if profile is None and command is None:
            raise pytest.UsageError(
                "no app to start: mark the test @pytest.mark.wpfprobe(profile=...) or give --wpfprobe-profile"
            )
        session_id = new_session_id(f"pytest-{safe_name(request.node.name, 40)}")
        try:
            target = (
                AppTarget(profile=profile) if profile else AppTarget(command=command, cwd=cwd).declared_in(request.path)
            )
            factory = ProcessFactory(target, tier=tier, work_dir=artifacts / "sessions" / session_id)  # type: ignore[arg-type]
        except ProbeError as err:
            problem = f"wpfprobe: the app cannot be started: {setup_text(err)}"
        else:
            session = SessionDir(artifacts, session_id)
            trace = pytestconfig.getoption("--wpfprobe-trace")
            options = RunnerOptions(binding_errors=False, trace=trace)
            runner = Runner(factory, session, source="scenario", options=options)
            app = TestApp(runner, session, log_tail=lambda: runner.app.log_tail(40) if runner.app is not None else "")
            started.append((runner, session, app))
            try:
                runner.start_app()
            except ProbeError as err:
                # The app never came up: its cause in two lines, not the test kit's frames (nothing to replay).
                problem = f"wpfprobe: the app did not start: {setup_text(err)}"
            else:
                return app
        pytest.fail(problem, pytrace=False)  # outside the except: no "during handling of the above exception"

    yield launch
    report = request.node.stash.get(_CALL_REPORT, None)
    failed = bool(getattr(request.node, "_wpfprobe_failed", False))
    for runner, session, app in started:
        if failed and app.failure is None and runner.app is not None and report is not None:
            # The test failed on its own assert, not on a step: a ticket for that too, while the app is up.
            from wpfprobe.testkit import oracles  # noqa: PLC0415

            crash = getattr(report.longrepr, "reprcrash", None)
            message = str(getattr(crash, "message", "") or "the test failed").splitlines()[0]
            last = runner.steps[-1].seq if runner.steps else None
            app.failure = oracles.make("reported", f"{request.node.name}: {message}", what="test", step=last)
            app.ticket = app._write_ticket(app.failure)
        runner.close()
        session.close()
        if failed:
            request.node.user_properties.append(("wpfprobe_session", str(session.path)))
            if app.ticket is not None:
                request.node.user_properties.append(("wpfprobe_ticket", app.ticket))
            if report is not None and report.failed and not app.announced:
                report.sections.append(("wpfprobe", "\n".join(evidence_lines(session, app.ticket))))
        else:
            shutil.rmtree(session.path, ignore_errors=True)


@pytest.fixture
def wpfprobe_app(request: pytest.FixtureRequest, wpfprobe_launch: Callable[..., TestApp]) -> TestApp:
    marker = request.node.get_closest_marker("wpfprobe")
    options = dict(marker.kwargs) if marker is not None else {}
    return wpfprobe_launch(**options)


_CALL_REPORT = pytest.StashKey[Any]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if report.failed:
        item._wpfprobe_failed = True  # type: ignore[attr-defined]
        if report.when == "call":
            item.stash[_CALL_REPORT] = report
    return report


# -- scenario files as tests ------------------------------------------------------------------------


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    config = parent.config
    globs = _globs(config)
    if not globs or file_path.suffix.lower() not in (".yaml", ".yml", ".json"):
        return None
    root = Path(config.rootpath)
    try:
        relative = file_path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        relative = file_path.name
    if any(fnmatch.fnmatch(relative, g) or fnmatch.fnmatch(file_path.name, g) for g in globs):
        config.stash[_USED] = True
        return ScenarioFile.from_parent(parent, path=file_path)
    return None


class ScenarioFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        from wpfprobe.testkit.scenario import ScenarioError, load_scenario  # noqa: PLC0415

        try:
            scenario = load_scenario(self.path)
        except ScenarioError as err:
            raise self.CollectError(str(err)) from None
        item = ScenarioItem.from_parent(self, name=scenario.id, scenario=scenario)
        for tag in scenario.tags:
            # A scenario's tags select it like marks (-m smoke); registered, so pytest does not warn.
            self.config.addinivalue_line("markers", f"{tag}: scenario tag")
            with contextlib.suppress(Exception):
                item.add_marker(tag)
        yield item


class ScenarioFailed(Exception):
    pass


class ScenarioItem(pytest.Item):
    def __init__(self, *, scenario: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scenario = scenario

    def runtest(self) -> None:
        from wpfprobe.core.errors import ProbeError  # noqa: PLC0415
        from wpfprobe.testing import virtual_display  # noqa: PLC0415
        from wpfprobe.testkit.launcher import ProcessFactory, check_target, needed_tier  # noqa: PLC0415
        from wpfprobe.testkit.scenario_run import ScenarioResult, run_scenario  # noqa: PLC0415

        config = self.config
        seed = config.stash[_SEED]
        self.user_properties.append(("wpfprobe_seed", str(seed)))
        artifacts = _artifacts(config)
        try:
            target = check_target(_profile(config), self.scenario.target, file=self.scenario.source_path)
            factory = ProcessFactory(
                target, tier=needed_tier(self.scenario.actions()), work_dir=artifacts / "sessions" / ".apps"
            )
        except ProbeError as err:  # no app, an unknown profile, a script that is not there
            raise ScenarioFailed(ScenarioResult.setup_error(self.scenario, err)) from None
        with virtual_display():
            result = run_scenario(self.scenario, factory, artifacts=artifacts)
        if result.session and (not result.passed or result.flaky):
            self.user_properties.append(("wpfprobe_session", result.session))
        elif result.session:
            shutil.rmtree(result.session, ignore_errors=True)  # a pass keeps nothing, as a fixture's test does
        if result.ticket:
            self.user_properties.append(("wpfprobe_ticket", result.ticket))
        if result.flaky:
            self.user_properties.append(
                ("wpfprobe_flaky", f"failed {result.failed_attempts} of {result.attempts} runs")
            )
        if not result.passed:
            raise ScenarioFailed(result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ScenarioFailed):
            result = excinfo.value.args[0]
            lines = [result.line()]
            for failure in result.failures:
                if failure.expected:
                    lines.append(f"  expected: {failure.expected}")
                if failure.actual:
                    lines.append(f"  actual:   {failure.actual}")
            if result.session and not result.setup:
                lines.append(f"evidence: {_shown(result.session)}{os.sep}")
            if result.ticket:
                lines += evidence_lines(None, result.ticket)
            return "\n".join(lines)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, 0, f"scenario {self.scenario.id}"
