"""Launch a pythonnet app under ``wpfprobe run`` and wait for its probe to come up.

Used by ``wpfprobe launch`` and by the broker's ``wpf_launch_app`` tool. The
app runs in a new session (process group), so it outlives the caller; its
stdout and stderr go to ``$WPFPROBE_HOME/logs/<name>-<pid>.log``, never to the
caller's own (the broker's stdout is the MCP wire), and its stdin is empty.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wpfprobe.core.calls import CallCancelled, CallControl
from wpfprobe.core.errors import AppNotAvailableError, InvalidArgumentError
from wpfprobe.core.paths import home_dir
from wpfprobe.engine.engine import Tier
from wpfprobe.mcp import manifest as _manifest
from wpfprobe.mcp.tools import check_tier

POLL_SECONDS = 0.1
LOG_TAIL_LINES = 20
# python, python3, python3.11, pythonw, python.exe, py (the Windows launcher), any directory.
_PYTHON = re.compile(r"^(python|pythonw|py)(\d+(\.\d+)*)?(\.exe)?$", re.IGNORECASE)
# python, python3, python3.11 (the version kept in group 1), python.exe: a word the PATH resolves.
_BARE_PYTHON = re.compile(r"^python(\d+(?:\.\d+)?)?(?:\.exe)?$", re.IGNORECASE)
# Interpreter options that take the next word as their value.
_OPTIONS_WITH_VALUE = frozenset({"-W", "-X"})


@dataclass(frozen=True)
class LaunchedApp:
    """An app started by :func:`launch` whose probe is up."""

    manifest: _manifest.Manifest
    pid: int
    log_path: Path
    process: subprocess.Popen[bytes] = field(repr=False, compare=False)
    command: tuple[str, ...] = ()
    """What was started: ``python -m wpfprobe run ... SCRIPT ARGS``."""

    @property
    def app_id(self) -> str:
        return self.manifest.app_id


def probe_command(command: Sequence[str], *, allow: Tier = "read", name: str | None = None) -> list[str]:
    """``command`` rewritten to run under ``wpfprobe run``.

    ``command`` is a python invocation (``["python", "app.py", "--x"]``, any
    python executable, interpreter options such as ``-u`` kept) or a script
    (``["app.py", "--x"]``, run with this interpreter). ``python -m`` and
    ``python -c`` are refused: ``wpfprobe run`` takes a script file.
    """
    argv = [str(part) for part in command]
    tier = check_tier(allow)
    if not argv:
        raise InvalidArgumentError(
            "The command is empty.", suggestion='Give the app\'s command, e.g. ["python", "app.py"].'
        )
    options: list[str] = []
    if is_python(argv[0]):
        python, rest = argv[0], argv[1:]
        while rest and rest[0].startswith("-") and rest[0] != "-":
            option = rest.pop(0)
            if option == "--":
                break
            if option[:2] in ("-m", "-c"):
                raise InvalidArgumentError(
                    f"Cannot launch `python {option[:2]} ...`: wpfprobe run takes a script file.",
                    suggestion="Give the path of the app's .py script instead of a module or a command string.",
                )
            options.append(option)
            if option in _OPTIONS_WITH_VALUE:
                if not rest:
                    raise InvalidArgumentError(f"The python option {option} has no value.")
                options.append(rest.pop(0))
        if not rest:
            raise InvalidArgumentError(
                "The command names a python interpreter but no script.",
                suggestion='Add the script: ["python", "app.py", ...].',
            )
        script, args = rest[0], rest[1:]
    elif argv[0].lower().endswith((".py", ".pyw")):
        python, script, args = sys.executable, argv[0], argv[1:]
    else:
        raise InvalidArgumentError(
            f"{argv[0]!r} is neither a python interpreter nor a .py script.",
            suggestion='Launch a pythonnet app as ["python", "app.py", ...] or ["app.py", ...].',
        )
    if script.startswith("-"):
        raise InvalidArgumentError(f"Invalid script name {script!r}.", suggestion="Prefix it with ./")
    app_name = name if name is not None else Path(script).stem
    if not app_name:
        raise InvalidArgumentError("The app name is empty.", suggestion="Pass name=.")
    python = this_python(python)
    return [python, *options, "-m", "wpfprobe", "run", "--allow", tier, "--name", app_name, script, *args]


def this_python(word: str) -> str:
    """``python`` (or ``python3``, ``python3.11`` of this version) as a bare word is the interpreter running
    wpfprobe: the one that has wpfprobe and pythonnet, whatever the PATH says (an unactivated venv's
    ``venv/bin/pytest`` sees the system's ``python`` first). A path, or another version, is kept."""
    if os.path.dirname(word):
        return word
    match = _BARE_PYTHON.match(word)
    if match is None:
        return word
    version = match.group(1)
    if version and version not in (str(sys.version_info.major), f"{sys.version_info.major}.{sys.version_info.minor}"):
        return word
    return sys.executable


def script_index(command: Sequence[str]) -> int | None:
    """Where the script is in a python command (after the interpreter and its options), or None."""
    argv = list(command)
    if not argv:
        return None
    if not is_python(argv[0]):
        return 0 if argv[0].lower().endswith((".py", ".pyw")) else None
    index = 1
    while index < len(argv) and argv[index].startswith("-") and argv[index] != "-":
        if argv[index] == "--":
            return index + 1 if index + 1 < len(argv) else None
        index += 2 if argv[index] in _OPTIONS_WITH_VALUE else 1
    return index if index < len(argv) else None


def resolve_command(command: Sequence[str], base: str | os.PathLike[str], *, where: str) -> list[str]:
    """``command`` as written in a file (a scenario, a test module) or on a command line (a profile), made to
    run the same from anywhere: its script relative to ``base`` (that file's folder, or the directory where
    it was typed), and a bare ``python`` the interpreter running wpfprobe (:func:`this_python`). ``where``
    says what ``base`` is, for the error: "the folder of scenarios/smoke.yaml".

    Raises InvalidArgumentError when the script is no file: a mistake in the setup, found before anything
    is started."""
    argv = [str(part) for part in command]
    index = script_index(argv)
    if argv and is_python(argv[0]):
        argv[0] = this_python(argv[0])
    if index is None:
        return argv
    script = Path(os.path.expanduser(argv[index]))
    resolved = script if script.is_absolute() else Path(os.path.abspath(Path(base) / script))
    if not resolved.is_file():
        relative = "" if script.is_absolute() else f", relative to {where} ({Path(base)}),"
        raise InvalidArgumentError(
            f"The app's script {argv[index]}{relative} does not exist: {resolved}.",
            suggestion=f"Give its path relative to {where}, or an absolute path.",
            detail={"script": argv[index], "resolved": str(resolved)},
        )
    argv[index] = str(resolved)
    return argv


def is_python(word: str) -> bool:
    """Whether the first word of a command is a python interpreter."""
    base = os.path.basename(word)
    if _PYTHON.match(base):
        return True
    with contextlib.suppress(OSError):
        return os.path.samefile(word, sys.executable)
    return False


def logs_dir() -> Path:
    return home_dir() / "logs"


def launch(
    command: Sequence[str],
    *,
    allow: Tier = "read",
    name: str | None = None,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 60.0,
    control: CallControl | None = None,
) -> LaunchedApp:
    """Start the app under ``wpfprobe run`` and return once its probe's manifest is written.

    Raises InvalidArgumentError for a command that is not a python app, and
    AppNotAvailableError if the app exits first or ``timeout`` seconds pass
    (the app is then terminated), with the line of its log that says why (the whole tail in
    ``detail['logTail']``). Once ``control`` is cancelled (the broker's client cancelled
    wpf_launch_app), the app is terminated and CallCancelled raised.
    """
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise InvalidArgumentError(f"timeout must be a positive number of seconds, got {timeout!r}.")
    argv = probe_command(command, allow=allow, name=name)
    app_name = argv[argv.index("--name") + 1]
    if cwd is not None and not Path(cwd).is_dir():
        raise InvalidArgumentError(f"The working directory {str(cwd)!r} does not exist.")
    child_env = {**os.environ, **dict(env or {})}
    # The app must write its manifest where this process looks for it.
    if os.environ.get("WPFPROBE_HOME"):
        child_env["WPFPROBE_HOME"] = os.environ["WPFPROBE_HOME"]
    else:
        child_env.pop("WPFPROBE_HOME", None)
    directory = logs_dir()
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", app_name)[:64] or "app"
    fd, temp = tempfile.mkstemp(prefix=f"{safe}-", suffix=".log", dir=directory)
    with os.fdopen(fd, "wb") as log_file:
        try:
            process = subprocess.Popen(
                argv, cwd=cwd, env=child_env, stdin=subprocess.DEVNULL, stdout=log_file, stderr=subprocess.STDOUT,
                **_detached(),
            )  # fmt: skip
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise InvalidArgumentError(
                f"Cannot start {argv[0]!r}: {exc.strerror or exc}.", suggestion="Check the python path and cwd."
            ) from None
    log_path = directory / f"{safe}-{process.pid}.log"
    try:
        os.replace(temp, log_path)
    except OSError:  # Windows: the app holds the file open; it keeps the temporary name
        log_path = Path(temp)
    deadline = time.monotonic() + timeout
    while True:
        for manifest in _manifest.read_all():
            if manifest.pid == process.pid:
                return LaunchedApp(manifest, process.pid, log_path, process, tuple(argv))
        code = process.poll()
        if code is not None:
            raise _not_available(
                f"{app_name} exited with status {code} before its UI came up.", log_path, code, pid=process.pid
            )
        if control is not None and control.cancelled:
            terminate(process)
            raise CallCancelled
        if time.monotonic() >= deadline:
            terminate(process)
            raise _not_available(
                f"{app_name} did not show a UI within {timeout:g} s; it was stopped.",
                log_path,
                process.poll(),
                pid=process.pid,
            )
        time.sleep(POLL_SECONDS)


def _detached() -> dict[str, Any]:
    if sys.platform.startswith("win"):
        flags = subprocess.CREATE_NEW_PROCESS_GROUP | subprocess.DETACHED_PROCESS  # type: ignore[attr-defined]
        return {"creationflags": flags}
    return {"start_new_session": True}


def terminate(process: subprocess.Popen[bytes], *, grace: float = 5.0) -> None:
    """Stop a launched app and everything it started (its process group)."""
    if process.poll() is not None:
        return
    if sys.platform.startswith("win"):
        process.terminate()
    else:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(grace)
    except subprocess.TimeoutExpired:
        if sys.platform.startswith("win"):
            process.kill()
        else:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
        process.wait(grace)


def log_tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def _not_available(message: str, log_path: Path, code: int | None, *, pid: int) -> AppNotAvailableError:
    tail = log_tail(log_path)
    cause = startup_cause(tail)
    # Two lines: what happened, and the line of the app's output that says why. The whole tail is in the
    # detail (and the log), not in front of a person: a Mono stack trace buried the cause under 20 frames.
    return AppNotAvailableError(
        message + (f"\ncause: {cause} (log: {log_path})" if cause else f"\nits log: {log_path}"),
        suggestion="Fix what the log shows and launch again.",
        detail={"pid": pid, "exitCode": code, "logPath": str(log_path), "logTail": tail, "cause": cause},
    )


# The line that says why, in a Python traceback or a .NET one: "ModuleNotFoundError: No module named 'x'",
# "System.TypeInitializationException: ... ---> System.ArgumentNullException: Could not open display ...",
# "wpfprobe: error: can't open file ...".
_CAUSE = re.compile(
    r"^(?:[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt)\b.*|wpfprobe: error: .*|Unhandled Exception:.*"
    r"|.*Could not open display.*)$"
)


def startup_cause(tail: str) -> str:
    """The one line of an app's last output that says why it stopped: the last exception line, else the last
    line. A .NET exception that wraps another is shortened to the innermost one."""
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    if not lines:
        return ""
    found = next((line for line in reversed(lines) if _CAUSE.match(line)), lines[-1])
    return found.rsplit(" ---> ", 1)[-1][:300]
