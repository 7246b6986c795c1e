"""What ``wpfprobe.start()`` leaves to a thread of its own, so that it returns at once.

``start()`` is usually called on the app's main thread before its message
loop runs, so everything it does delays the app's first window; called in a
running app (``wpfprobe attach`` does), a hold of the UI thread freezes the
app. It does only what must happen before it returns (``server.start``: the
cheap checks, the socket bound and listening, the token, the signals) and
leaves the rest to one thread, so that the probe runs Python on one thread at
a time while it starts (below):

- ``wpfprobe-start`` (this module's ``Startup``), in this order: the
  settings; the modules of the engine and the toolkit (``wpfprobe_clr.preload``;
  the .NET classes they name are made by pythonnet on first use, ``net/lazy.py``);
  the server (``serve``: uvicorn imported, the tools' catalog made, handed to
  the server's thread; the tools' listing, read from the shipped file, is
  made later, on the compile's thread before it compiles, or at a client's
  first tools/list); then the CLR connection (a few short calls posted to the
  UI thread: the object table, the app's event hooks, the binding hooks, the
  UI's end) and the engine. Tool calls are answered once the engine is made.
  Then the toolkit's .NET walk is compiled on a thread of its own
  (``wpfprobe_clr._compiling``), which waits for the start-up to be over; once
  it is, this thread writes the discovery manifest (``server._publish``) and ends.
- the server's thread (``server._Runner``): waits for the server that
  ``serve`` made, then runs the accept loop on the socket start() bound. A client that
  connects before is queued by the kernel and served then.

Why in turns: the UI thread runs the app's handlers, which are Python, and
the probe's own calls there; each waits for the GIL, and the more Python
threads want it at once, the longer (a callable posted to the UI thread waited
at most 2.6 ms with no other Python thread busy, 14 ms with one, 47 ms with
two). The SDK's imports and the engine's ran on two threads at once before,
and the compile beside the engine's (docs/benchmarks-mcp.md, "The hold at
start"). The work that needs no UI thread comes first: an app that calls
``start()`` before its message loop runs has the server made while it builds
its window. (stdio: the server's thread makes its server itself, since
``start()`` waits for it to take stdout over.) And while the start-up runs,
compile included, the interpreter switches threads every 1 ms at most
(``core.switching``), so a handler waits less for the Python the start-up
runs between two native calls.

A tool call that comes before the engine is made waits for it; if the start
failed, every tool call answers that error (its code kept, the message saying
the probe could not attach) and the failure is logged on ``wpfprobe.server``;
``ProbeHandle.wait_ready()`` raises it. When the app's UI is gone before the
probe reached it (APP_NOT_AVAILABLE), the probe stops, as it would have at
the UI's end.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from wpfprobe.core.errors import AppNotAvailableError, DispatcherBusyError, ProbeError
from wpfprobe.core.identity import app_id, default_app_name
from wpfprobe.core.switching import short_switches

if TYPE_CHECKING:
    from wpfprobe.api.probe import Probe
    from wpfprobe.core.settings import ProbeSettings
    from wpfprobe.engine.engine import Engine
    from wpfprobe_clr import Located

log = logging.getLogger("wpfprobe.server")

THREAD_NAME = "wpfprobe-start"
#: How long a tool call waits for an engine still being made (its UI calls are bounded by ui_timeout each).
ENGINE_WAIT = 60.0


class Startup:
    """The engine of a probe whose ``start()`` has returned, made on ``wpfprobe-start``."""

    def __init__(self, located: Located, *, name: str | None, settings: ProbeSettings | None, timeout: float) -> None:
        self.app_name = name or default_app_name()
        self.app_id = app_id(self.app_name)
        self.toolkit = located.toolkit
        self.runtime = located.runtime
        self._located: Located | None = located
        # The caller is the UI thread, its loop not yet running (WinForms made its hidden control
        # here): the attach waits for that loop, so this thread must not wait for the attach.
        self._loop_thread = threading.get_ident() if located.marshal is not None else None
        self._given = settings
        self._timeout = timeout
        self._settings: ProbeSettings | None = None
        self._settings_known = threading.Event()
        self._probe: Probe | None = None
        self._error: ProbeError | None = None
        self._done = threading.Event()
        self._stopping = threading.Event()
        self._after: list[Callable[[Probe], None]] = []
        self._then: list[Callable[[Probe | None], None]] = []
        self._on_failure: list[Callable[[ProbeError], None]] = []
        self._compile_after: Callable[[], object] | None = None
        self._serve: Callable[[], object] | None = None
        self._thread = threading.Thread(target=self._run, name=THREAD_NAME, daemon=True)
        #: The probe is this start-up's own, so the handle's stop closes it (not a caller's: ``attached``).
        self.owns_probe = True

    @classmethod
    def attached(cls, probe: Probe) -> Startup:
        """A start-up already over, for a probe attached by other means (the benchmarks' servers)."""
        from wpfprobe_clr import Located  # noqa: PLC0415
        from wpfprobe_clr._runtime import RuntimeFacts  # noqa: PLC0415

        engine = probe.engine
        runtime = engine.runtime
        facts = (
            RuntimeFacts(runtime.kind, runtime.version, runtime.description)
            if runtime
            else RuntimeFacts("mono", "unknown", "unknown")
        )
        startup = cls(Located(None, str(engine.adapter.toolkit), facts), name=engine.app_name, settings=None, timeout=1)
        startup._settings = engine.settings
        startup._probe = probe
        startup.owns_probe = False  # its caller closes it, and may read on after the server stops
        startup._located = None
        startup._settings_known.set()
        startup._done.set()
        return startup

    def begin(
        self,
        *,
        after: Callable[[Probe], None] | None = None,
        on_failure: Callable[[ProbeError], None] | None = None,
        then: Callable[[Probe | None], None] | None = None,
        compile_after: Callable[[], object] | None = None,
        serve: Callable[[], object] | None = None,
    ) -> None:
        """Start making the engine. ``after(probe)`` runs on the same thread once it is made
        (hooking the UI's end); ``on_failure(error)`` if it cannot be made; both before the
        start-up counts as over. ``then(probe or None)`` runs on the same thread after that,
        unless the probe is stopping (the tool calls waiting meanwhile are answered).
        ``compile_after()`` is called on the walk's compile thread before it compiles
        (``wpfprobe_clr._compiling``). ``serve()`` makes the server, on the same thread before
        the attach's calls to the UI thread (the module's docstring says why); it runs once
        whatever happens, even when the start fails (the tools then answer why), unless the
        probe is stopping; it must not raise."""
        self._compile_after = compile_after
        self._serve = serve
        if after is not None:
            self._after.append(after)
        if on_failure is not None:
            self._on_failure.append(on_failure)
        if then is not None:
            self._then.append(then)
        self._thread.start()

    # -- what others wait for ---------------------------------------------------------

    @property
    def done(self) -> bool:
        return self._done.is_set()

    @property
    def error(self) -> ProbeError | None:
        return self._error if self._done.is_set() else None

    def settings(self) -> ProbeSettings:
        """The probe's settings, once read (the first thing the start-up thread does); the
        defaults if they could not be (the start then failed, and its error says why)."""
        self._settings_known.wait()
        if self._settings is not None:
            return self._settings
        from wpfprobe.core.settings import ProbeSettings  # noqa: PLC0415

        return ProbeSettings(ui_timeout=self._timeout)

    def wait(self, timeout: float | None = None) -> bool:
        """True once the start-up is over (made, failed or stopped); False at once on the UI
        thread whose loop it waits for (see ``probe``)."""
        if not self._done.is_set() and threading.get_ident() == self._loop_thread:
            return False
        return self._done.wait(timeout)

    def probe(self, timeout: float | None = None) -> Probe:
        """The probe, waiting up to ``timeout`` seconds (None: until the start-up is over) for it.

        Raises the error that stopped the start, or DISPATCHER_BUSY if it is still under way
        (at once on the UI thread whose loop the attach waits for: waiting there would hang)."""
        if not self._done.is_set() and threading.get_ident() == self._loop_thread:
            raise DispatcherBusyError(
                "The probe attaches once the app's message loop runs, and this is its UI thread before "
                "the loop began: waiting here would hang.",
                suggestion="Use the probe once the loop runs (from an event handler, or another thread).",
            )
        if not self._done.wait(timeout):
            raise DispatcherBusyError(
                "The probe is still attaching to the app's UI: its UI thread has not answered yet.",
                suggestion="Retry in a moment; if the app's UI thread stays busy, retry once it responds.",
                detail={"waitedSeconds": timeout},
            )
        if self._error is not None:
            raise _failed(self._error, again=True)  # a fresh one per caller: they may be on many threads
        assert self._probe is not None
        return self._probe

    def ready_probe(self, timeout: float | None = 0.0) -> Probe | None:
        """The probe once made, waiting up to ``timeout`` seconds; None while it is not, or if
        the start failed (never raises: for the ending thread and signal handlers)."""
        if not self._done.wait(timeout) or self._error is not None:
            return None
        return self._probe

    def engine(self) -> Engine:
        """For a tool call: the engine, waiting for it up to ENGINE_WAIT."""
        if not self._done.is_set():
            log.info("a tool call waits for the probe to attach to the app's UI", extra=self._extra("WAITING"))
        return self.probe(ENGINE_WAIT).engine

    @property
    def stopping(self) -> bool:
        return self._stopping.is_set()

    def request_stop(self) -> None:
        """Ask the start-up to end after its current step, without waiting for it."""
        self._stopping.set()

    def stop(self, timeout: float) -> None:
        """Ask the start-up to end after its current step, and wait for it (not from its own thread)."""
        self._stopping.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    # -- the thread -------------------------------------------------------------------

    def _run(self) -> None:
        with short_switches():
            self._start_up()

    def _start_up(self) -> None:
        try:
            probe = self._make()
            if probe is not None:
                for hook in self._after:
                    hook(probe)
            self._probe = probe
            if probe is None:
                self._error = AppNotAvailableError(
                    "The probe was stopped before it attached to the app's UI.",
                    suggestion="Start it again: wpfprobe.start().",
                )
        except ProbeError as err:
            self._error = _failed(err)
        except Exception as exc:
            log.warning("the probe could not attach to the app's UI", exc_info=True, extra=self._extra("INTERNAL"))
            self._error = _failed(
                ProbeError(
                    f"The probe failed while it attached to the app's UI ({type(exc).__name__}).",
                    code="INTERNAL",
                    suggestion="Report it with the app's stderr log.",
                )
            )
        finally:
            self._located = None  # the app object: nothing of the UI is kept by a finished start
            self._settings_known.set()
            self._serve_once()
            try:
                self._report_failure()
            finally:
                # Whoever waits for the start-up finds its failure reported.
                self._done.set()
        for then in self._then:
            if self._stopping.is_set():
                break
            try:
                then(self._probe)
            except Exception:
                log.warning("the probe's start-up could not finish", exc_info=True, extra=self._extra("INTERNAL"))

    def _serve_once(self) -> None:
        serve, self._serve = self._serve, None
        if serve is not None and not self._stopping.is_set():
            serve()

    def _report_failure(self) -> None:
        if self._error is None or self._stopping.is_set():
            return
        if self._error.code != "INTERNAL":
            log.warning("the probe could not attach to the app's UI", extra=self._extra(self._error.code))
        for report in self._on_failure:
            try:
                report(self._error)
            except Exception:
                log.warning("a failed start could not be reported", exc_info=True, extra=self._extra("INTERNAL"))

    def _make(self) -> Probe | None:
        from wpfprobe.core.settings import ProbeSettings  # noqa: PLC0415

        settings = (self._given or ProbeSettings.from_env()).model_copy(update={"ui_timeout": self._timeout})
        self._settings = settings
        self._settings_known.set()
        if self._stopping.is_set():
            return None
        from wpfprobe.api.probe import connected  # noqa: PLC0415
        from wpfprobe_clr import connect, preload  # noqa: PLC0415

        assert self._located is not None
        preload(self._located)
        self._serve_once()
        if self._stopping.is_set():
            return None
        conn = connect(
            located=self._located,
            timeout=settings.ui_timeout,
            test_hooks=settings.test_hooks,
            first_wait=settings.attach_wait,
            compile_after=self._compile_after,
        )
        if self._stopping.is_set():
            return None
        return connected(conn, self.app_name, settings)

    def _extra(self, outcome: str) -> dict[str, Any]:
        return {"app": self.app_id, "outcome": outcome}


def _failed(err: ProbeError, *, again: bool = False) -> ProbeError:
    """``err`` as every tool call of a probe whose start failed answers it: the same class and
    code, saying so (``again``: ``err`` says so already)."""
    message = err.message if again else f"The probe could not attach to the app's UI: {err.message}"
    suggestion = (
        err.suggestion
        if again
        else (err.suggestion + " " if err.suggestion else "") + ("Then stop the probe and start it again.")
    )
    try:
        failed = type(err)(message, suggestion=suggestion, detail=err.detail)
    except TypeError:  # a subclass with a constructor of its own
        failed = ProbeError(message, suggestion=suggestion, detail=err.detail)
    failed.code = err.code
    return failed
