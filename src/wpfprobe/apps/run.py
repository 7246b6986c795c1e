"""``wpfprobe run SCRIPT [ARGS...]``: an unmodified pythonnet app, with the probe attached.

The script runs in this process exactly as ``python SCRIPT ARGS`` would run it:
the same ``sys.argv`` (argv[0] is SCRIPT as given), as ``__main__`` with an
absolute ``__file__``, ``sys.path[0]`` the script's real directory, the same
working directory, stdout and stderr untouched, and the same exit status
(SystemExit propagates; an uncaught exception is printed by ``sys.excepthook``
from the script's own frame down, exit status 1).

A daemon watcher thread waits until the app has loaded a CLR and shown its UI,
polling every 50 ms from its own thread (never the UI thread), then calls
``wpfprobe.start(app)`` over HTTP, which writes the discovery manifest. If the
app starts a probe itself, that one is used (and the app's own ``start``
replaces one the watcher already started). The probe stops with the UI, and
at the latest at exit.
"""

from __future__ import annotations

import builtins
import logging
import os
import sys
import threading
import time
import types
from collections.abc import Sequence
from importlib.machinery import SourceFileLoader
from pathlib import Path
from typing import Any

from wpfprobe.engine.engine import Tier

log = logging.getLogger("wpfprobe.run")

POLL_SECONDS = 0.05
# After a failed start (the UI thread not pumping yet, a window closing), wait longer
# before trying again, so a slow app is not hammered.
RETRY_SECONDS = 1.0
# At exit, how long to wait for a start() under way (its UI-thread waits time out in 5 s each).
JOIN_SECONDS = 12.0
MONO_SUSPEND = ("MONO_THREADS_SUSPEND", "preemptive")


class ScriptNotFoundError(Exception):
    """The script to run does not exist or cannot be read."""


def run_script(
    script: str,
    args: Sequence[str] = (),
    *,
    allow: Tier = "read",
    name: str | None = None,
    port: int = 0,
    token: str | None = None,
) -> int:
    """Run ``script`` as ``__main__`` with the probe attached; returns its exit status.

    SystemExit raised by the script propagates unchanged (as in ``python SCRIPT``).
    Raises ScriptNotFoundError before anything runs if the script cannot be read.
    """
    path = os.path.abspath(script)
    try:
        with open(path, "rb") as fh:
            source = fh.read()
    except OSError as exc:
        raise ScriptNotFoundError(f"can't open file {path!r}: [Errno {exc.errno}] {exc.strerror}") from None
    from wpfprobe.apps.display import ensure_display  # noqa: PLC0415

    ensure_display()  # NoDisplayError, before the app runs: no display it could open, and none to make
    # Compiled before the app runs, so a syntax error is reported as python reports it.
    watcher = _Watcher(allow=allow, name=name or Path(script).stem, port=port, token=token)
    # Mono's default thread-suspend mode can deadlock pythonnet calls from two threads
    # (the probe's and the UI's) during a garbage collection; Mono reads this when the
    # app loads it, and an app that chose a mode keeps its own.
    os.environ.setdefault(*MONO_SUSPEND)
    sys.argv[:] = [script, *args]
    real_dir = os.path.dirname(os.path.realpath(path))
    if sys.path:
        sys.path[0] = real_dir
    else:
        sys.path.insert(0, real_dir)
    main = types.ModuleType("__main__")
    main.__dict__.update(
        __file__=path,
        __cached__=None,
        __loader__=SourceFileLoader("__main__", path),
        __package__=None,
        __spec__=None,
        __builtins__=builtins,
    )
    sys.modules["__main__"] = main
    try:
        code = compile(source, path, "exec", dont_inherit=True)
    except SyntaxError:
        _print_uncaught(path)
        return 1
    from wpfprobe.mcp.ending import ENDING  # noqa: PLC0415 - standard library only: loads nothing of the app's

    # Ctrl+C and SIGTERM end the app cleanly, where the app leaves them at their defaults
    # (it may still set its own: then they are its own); see mcp/ending.py.
    ENDING.serve_for_good()
    watcher.start()
    try:
        exec(code, main.__dict__)
    except SystemExit:
        raise
    except BaseException:  # noqa: BLE001 - reported as python reports an uncaught exception
        _print_uncaught(path)
        return 130 if isinstance(sys.exc_info()[1], KeyboardInterrupt) else 1
    return 0


def _print_uncaught(path: str) -> None:
    """``sys.excepthook`` with the traceback starting at the script's frame, as python prints it."""
    exc_type, exc, tb = sys.exc_info()
    assert exc_type is not None and exc is not None
    first = tb
    while first is not None and first.tb_frame.f_code.co_filename != path:
        first = first.tb_next
    # A syntax error has no frame of the script: python prints it without a traceback.
    # The hook prints the exception's own __traceback__, so that is what is cut.
    sys.excepthook(exc_type, exc.with_traceback(first), first)
    sys.stderr.flush()


class _Watcher:
    """Starts the probe once the UI is up; never touches the UI thread while it waits."""

    def __init__(self, *, allow: Tier, name: str, port: int = 0, token: str | None = None) -> None:
        self._allow: Tier = allow
        self._name = name
        self._port = port
        self._token = token
        self._thread = threading.Thread(target=self._loop, name="wpfprobe-run-watcher", daemon=True)
        self._done = threading.Event()
        self._exit_hook = False
        self._handle: Any = None

    def start(self) -> None:
        self._thread.start()

    def _finish(self) -> None:
        """At exit: stop watching, wait until no CLR call of ours is under way, and stop
        our probe (one that started while the app was exiting has no atexit hook of its own:
        handlers registered while they run are not called)."""
        self._done.set()
        if threading.current_thread() is not self._thread:
            self._thread.join(JOIN_SECONDS)
        if self._handle is not None:
            self._handle.stop()

    def _hook_exit(self) -> None:
        # pythonnet shuts its runtime down from an atexit handler registered when the app
        # loaded it; ours, registered after it, runs before it (last in, first out), so the
        # watcher never calls into a CLR that is going away (that hung the process).
        if not self._exit_hook:
            import atexit  # noqa: PLC0415

            atexit.register(self._finish)
            self._exit_hook = True

    def _loop(self) -> None:
        from wpfprobe.mcp.server import active_handle  # noqa: PLC0415
        from wpfprobe_clr._ready import clr_loaded  # noqa: PLC0415 - loads no CLR by itself

        waiting = _Waiting(self._name)
        while not self._done.is_set():
            if not self._exit_hook:
                if not clr_loaded():
                    waiting.now("clr")
                    self._done.wait(POLL_SECONDS)
                    continue
                self._hook_exit()
            handle = active_handle()
            if handle is not None:
                # The app's own probe or ours: nothing to do until it stops (the UI ended).
                waiting.now("served")
                while handle.running and not self._done.wait(POLL_SECONDS * 4):
                    pass
                continue
            app = _shown_app()
            if app is None or self._done.is_set():
                waiting.now("window")
                self._done.wait(POLL_SECONDS)
                continue
            if not self._start(app):
                self._done.wait(RETRY_SECONDS)

    def _start(self, app: object) -> bool:
        from wpfprobe.core.errors import InvalidArgumentError, ProbeError  # noqa: PLC0415
        from wpfprobe.mcp import server as _server  # noqa: PLC0415

        try:
            handle = _server.start(app, allow=self._allow, name=self._name, port=self._port, token=self._token)
        except _server.AlreadyStartedError:
            return True  # the app started its own meanwhile
        except InvalidArgumentError as err:
            # The port is taken (or the token refused): trying again changes nothing. Said once,
            # and the app runs on without a probe.
            log.warning("probe not started: %s", err.message, extra={"app": self._name, "outcome": err.code})
            self._done.set()
            return True
        except ProbeError as err:
            log.info("probe not started yet", extra={"app": self._name, "outcome": err.code})
            return False
        except Exception:
            log.warning("probe could not start", exc_info=True, extra={"app": self._name, "outcome": "INTERNAL"})
            return False
        handle._replaceable = True
        self._handle = handle
        try:
            # start() returns before the probe has attached: a UI thread that did not answer
            # in time is tried again later, as when start() itself raised it.
            handle.wait_ready()
        except ProbeError as err:
            log.info("probe not started yet", extra={"app": self._name, "outcome": err.code})
            self._handle = None
            handle.stop()
            return False
        log.info("probe started", extra={"app": handle.app_id, "outcome": "ok"})
        return True


#: After this long in one wait, say so at WARNING (the default level), once per wait.
LONG_WAIT_SECONDS = 15.0
_WAITS = {
    "clr": "waiting for the app to load a CLR (pythonnet.load(), or import clr)",
    "window": "the app has loaded a CLR; waiting for it to show a window",
    "served": "the probe is up",
}
_LONG_WAITS = {
    "clr": "the app has not loaded a CLR after {s:.0f} s: the probe starts once a pythonnet app loads one and shows "
    "a window (`wpfprobe ls` lists it then)",
    "window": "the app loaded a CLR {s:.0f} s ago but shows no window yet: the probe starts once a window is shown "
    "(a Form's Show or Application.Run; a WPF Window's Show)",
}


class _Waiting:
    """What the watcher waits for, said once per change at INFO, and at WARNING when a wait is long."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._what: str | None = None
        self._since = time.monotonic()
        self._warned = False

    def now(self, what: str) -> None:
        if what != self._what:
            self._what, self._since, self._warned = what, time.monotonic(), False
            log.info(_WAITS[what], extra={"app": self._name})
            return
        waited = time.monotonic() - self._since
        if not self._warned and what in _LONG_WAITS and waited >= LONG_WAIT_SECONDS:
            self._warned = True
            log.warning(_LONG_WAITS[what].format(s=waited), extra={"app": self._name})


def _shown_app() -> object | None:
    try:
        from wpfprobe_clr._ready import shown_app  # noqa: PLC0415 - loads no CLR by itself

        return shown_app()
    except Exception:
        log.debug("UI not ready", exc_info=True)
        return None
