"""Starting the app under test, fresh, as often as needed.

An app is started from a profile (``wpfprobe profiles``) or a command under
``wpfprobe run``, in a process of its own: it may crash, and replay and
minimization start it again from nothing for every run. The probe is started
for testing: the interact tier (mutate when a scenario sets properties), the
exception hooks allowed to keep the app going (``WPFPROBE_TEST_HOOKS``), and
an events file that outlives the process (``WPFPROBE_EVENTS_FILE``), so what
killed an app can still be read. Its output goes to a log whose tail a ticket
shows.

``InProcessApp`` serves an app already running in this process (a notebook,
a test that started it on a UI thread): it cannot be started again, so it
runs scenarios and exploration but not minimization.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel

from wpfprobe.core.app_events import EVENTS_FILE_VARIABLE, AppEvent, read_events_file
from wpfprobe.core.errors import InvalidArgumentError
from wpfprobe.testkit.connection import AppConnection, InProcessConnection, McpConnection

Tier = Literal["read", "interact", "mutate"]


class AppTarget(BaseModel):
    """Which app to start: a saved profile, or a command (``["python", "app.py", ...]``)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True)

    profile: str | None = Field(default=None, description="A saved profile's name (wpfprobe profiles list).")
    command: list[str] | None = Field(
        default=None, min_length=1, description='The app\'s command: ["python", "app.py"].'
    )
    cwd: str | None = Field(default=None, description="Working directory for command (default: the current one).")
    env: dict[str, str] = Field(default_factory=dict, description="Extra environment variables for command.")
    name: str | None = Field(default=None, description="The app's name (default: the profile's or the script's).")

    @model_validator(mode="after")
    def _one(self) -> AppTarget:
        if (self.profile is None) == (self.command is None):
            raise ValueError("give exactly one of profile or command")
        return self

    def describe(self) -> str:
        return f"profile {self.profile}" if self.profile else " ".join(self.command or [])

    def declared_in(self, file: str | os.PathLike[str]) -> AppTarget:
        """This target as ``file`` (a scenario, a test module) means it, runnable from anywhere: the command's
        script and ``cwd`` relative to the file's folder, which is also the working directory when none is
        given, and a bare ``python`` the interpreter running wpfprobe. A profile is returned as it is.

        Raises InvalidArgumentError when the script is no file (a setup error, before anything starts)."""
        if self.command is None:
            return self
        from wpfprobe.apps.launch import resolve_command  # noqa: PLC0415

        folder = Path(os.path.abspath(file)).parent
        cwd = folder if self.cwd is None else folder / os.path.expanduser(self.cwd)
        where = f"the folder of {file}" if self.cwd is None else f"the cwd {self.cwd} of {file}"
        command = resolve_command(self.command, cwd, where=where)
        return self.model_copy(update={"command": command, "cwd": os.path.abspath(cwd)})


@dataclass
class Launch:
    """What ``AppTarget.resolve`` makes of a target: the command and where to run it."""

    command: list[str]
    cwd: str | None
    env: dict[str, str]
    name: str
    destructive_allowed: tuple[str, ...] = ()
    destructive_confirmed: bool = False
    attach: Any = None
    """A profile's ``AttachTo``: the running app to attach to instead of starting one."""


def resolve(target: AppTarget) -> Launch:
    if target.profile is not None:
        from wpfprobe.apps.profiles import get_profile  # noqa: PLC0415

        profile = get_profile(target.profile)
        return Launch(
            command=list(profile.command), cwd=profile.cwd, env=dict(profile.env), name=target.name or profile.name,
            destructive_allowed=tuple(profile.allow_actions), destructive_confirmed=profile.confirm_destructive,
            attach=profile.attach,
        )  # fmt: skip
    assert target.command is not None
    script = next((c for c in target.command if c.lower().endswith((".py", ".pyw"))), target.command[-1])
    return Launch(
        command=list(target.command), cwd=target.cwd, env=dict(target.env), name=target.name or Path(script).stem
    )


class RunningApp(Protocol):
    """One start of the app under test."""

    @property
    def connection(self) -> AppConnection: ...

    @property
    def pid(self) -> int | None: ...

    def alive(self) -> bool: ...

    def wait_exit(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the app to end; whether it has."""
        ...

    def exit_code(self) -> int | None: ...

    def log_tail(self, lines: int = 40) -> str: ...

    def fatal_events(self) -> list[AppEvent]:
        """Events the app wrote to its events file (what killed it, after it died)."""
        ...

    def stop(self) -> None: ...


class AppFactory(Protocol):
    """Starts the app under test; ``fresh`` says whether every start is a new process."""

    @property
    def fresh(self) -> bool: ...

    @property
    def target(self) -> dict[str, Any]:
        """How a replay starts it again: ``{"profile": P}`` or ``{"command": [...], "cwd": ...}``."""
        ...

    def start(self) -> RunningApp: ...

    def environment(self) -> dict[str, str]: ...


@dataclass
class LaunchedApp:
    """An app started by ``ProcessFactory``: its process, log, events file and MCP session."""

    connection: McpConnection
    pid: int | None
    process: Any
    log_path: Path
    events_path: Path
    _stopped: bool = field(default=False, repr=False)

    def alive(self) -> bool:
        return self.process.poll() is None

    def wait_exit(self, timeout: float) -> bool:
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        return True

    def exit_code(self) -> int | None:
        code: int | None = self.process.poll()
        return code

    def log_tail(self, lines: int = 40) -> str:
        from wpfprobe.apps.launch import log_tail  # noqa: PLC0415

        return log_tail(self.log_path, lines)

    def fatal_events(self) -> list[AppEvent]:
        return read_events_file(self.events_path)

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        from wpfprobe.apps.launch import terminate  # noqa: PLC0415

        with contextlib.suppress(Exception):
            self.connection.close()
        terminate(self.process, grace=3.0)
        # Minimization starts an app dozens of times: its launch logs would pile up in the user's
        # home. What a ticket needs of one (its last lines) was read before the app was stopped.
        with contextlib.suppress(OSError):
            self.log_path.unlink()


def wait_pid_exit(pid: int, timeout: float) -> bool:
    """Wait for a process that is not our child to end: True once it has (or never was)."""
    import psutil  # noqa: PLC0415

    try:
        psutil.Process(pid).wait(timeout)
    except psutil.NoSuchProcess:
        return True
    except psutil.TimeoutExpired:
        return False
    return True


@dataclass
class AttachedApp:
    """An app that was already running, attached to (a profile's ``attach``); ``stop`` leaves it
    running, and detaches the probe if this run attached it."""

    connection: McpConnection
    pid: int | None
    attached_here: bool = False
    _stopped: bool = field(default=False, repr=False)

    def alive(self) -> bool:
        import psutil  # noqa: PLC0415

        return self.pid is not None and psutil.pid_exists(self.pid)

    def wait_exit(self, timeout: float) -> bool:
        return self.pid is None or wait_pid_exit(self.pid, timeout)

    def exit_code(self) -> int | None:
        return None  # not our child: its status is its parent's to read

    def log_tail(self, lines: int = 40) -> str:
        return ""

    def fatal_events(self) -> list[AppEvent]:
        return []

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        with contextlib.suppress(Exception):
            self.connection.close()
        if self.attached_here and self.pid is not None and self.alive():
            from wpfprobe.apps.attach.attacher import detach  # noqa: PLC0415

            with contextlib.suppress(Exception):
                detach(self.pid)


class ProcessFactory:
    """Starts the target under ``wpfprobe run`` for testing, a new process each time; a profile that
    names a running app is attached to instead (not fresh: it cannot be started again)."""

    @property
    def fresh(self) -> bool:
        return self.launch.attach is None

    def __init__(self, target: AppTarget, *, tier: Tier = "interact", work_dir: Path, timeout: float = 60.0) -> None:
        self.app_target = target
        self.launch = resolve(target)
        self.tier: Tier = tier
        self.work_dir = work_dir
        self.timeout = timeout
        self._count = 0
        self._lock = threading.Lock()
        self._manifest: Any = None
        self.target = (
            {"profile": target.profile}
            if target.profile
            else {k: v for k, v in {"command": target.command, "cwd": target.cwd}.items() if v is not None}
        )

    def start(self) -> LaunchedApp | AttachedApp:
        from wpfprobe.apps.launch import launch  # noqa: PLC0415

        if self.launch.attach is not None:
            return self._attach()
        with self._lock:
            self._count += 1
            number = self._count
        self.work_dir.mkdir(parents=True, exist_ok=True)
        events = self.work_dir / f"app-events-{number}.jsonl"
        with contextlib.suppress(FileNotFoundError):
            events.unlink()
        env = {**self.launch.env, "WPFPROBE_TEST_HOOKS": "1", EVENTS_FILE_VARIABLE: str(events)}
        started = launch(
            self.launch.command, allow=self.tier, name=self.launch.name, cwd=self.launch.cwd, env=env,
            timeout=self.timeout,
        )  # fmt: skip
        try:
            connection = McpConnection(started.manifest)
        except BaseException:
            from wpfprobe.apps.launch import terminate  # noqa: PLC0415

            terminate(started.process)
            raise
        self._manifest = started.manifest
        return LaunchedApp(connection, started.pid, started.process, started.log_path, events)

    def _attach(self) -> AttachedApp:
        from wpfprobe.apps.attach.attacher import attach_running, probe_in  # noqa: PLC0415
        from wpfprobe.core.errors import AppNotAvailableError  # noqa: PLC0415

        done = attach_running(
            name=self.launch.attach.name, title=self.launch.attach.title, allow=self.tier, app_name=self.launch.name,
            timeout=self.timeout,
        )  # fmt: skip
        manifest = probe_in(done.pid)
        if manifest is None:
            raise AppNotAvailableError(f"The probe attached to process {done.pid} has no manifest.")
        self._manifest = manifest
        return AttachedApp(McpConnection(manifest), done.pid, attached_here=not done.already)

    def environment(self) -> dict[str, str]:
        """What a ticket says about where the failure happened (the toolkit and runtime once the app has run)."""
        out = {"app": self.launch.name}
        if self.app_target.profile:
            out["profile"] = self.app_target.profile
        out["command"] = (
            f"(attached to {self.launch.attach.describe()})" if self.launch.attach else " ".join(self.launch.command)
        )
        if self._manifest is not None:
            out["toolkit"] = self._manifest.toolkit
            out["runtime"] = self._manifest.runtime
        return {**out, **_platform()}


@dataclass
class InProcessApp:
    """An app in this process, served through its engine; ``stop`` leaves it running."""

    connection: InProcessConnection
    pid: int | None = None

    def alive(self) -> bool:
        return True

    def wait_exit(self, timeout: float) -> bool:
        return False  # the app is this process: it is still running

    def exit_code(self) -> int | None:
        return None

    def log_tail(self, lines: int = 40) -> str:
        return ""

    def fatal_events(self) -> list[AppEvent]:
        return []

    def stop(self) -> None:
        pass


class InProcessFactory:
    """The one app of this process (not started again: ``fresh`` is False)."""

    fresh = False

    def __init__(self, probe_or_engine: Any, *, tier: Tier = "interact", name: str | None = None) -> None:
        self.connection = InProcessConnection.of(probe_or_engine, tier=tier)
        self.name = name or self.connection.engine.app_name
        self.target: dict[str, Any] = {"inProcess": self.name}

    def start(self) -> InProcessApp:
        return InProcessApp(self.connection, os.getpid())

    def environment(self) -> dict[str, str]:
        return {"app": self.name, "command": "(in process)", **_platform()}


def _platform() -> dict[str, str]:
    import platform  # noqa: PLC0415

    from wpfprobe.core.version import __version__  # noqa: PLC0415

    return {
        "os": f"{platform.system()} {platform.release()}",
        "python": sys.version.split()[0],
        "wpfprobe": __version__,
    }


def needed_tier(actions: list[str]) -> Tier:
    """The tier a run needs: mutate when it sets properties, else interact."""
    return "mutate" if "set_property" in actions else "interact"


def check_target(profile: str | None, scenario_target: AppTarget | None, *, file: str | None = None) -> AppTarget:
    """The target a run uses: ``--profile`` wins over the scenario's own, whose command is relative to the
    scenario's ``file`` (:meth:`AppTarget.declared_in`)."""
    if profile:
        return AppTarget(profile=profile)
    if scenario_target is not None:
        return scenario_target.declared_in(file) if file else scenario_target
    raise InvalidArgumentError(
        "No app to test: give --profile NAME, or target: {profile: NAME} in the scenario.",
        suggestion="Save the app as a profile first: wpfprobe profiles add NAME -- python app.py",
    )
