"""Run a callable on the app's UI thread and get its result or error back.

The toolkit supplies two primitives: ``post`` queues a zero-argument callable
on the UI thread without waiting (WinForms BeginInvoke, WPF
Dispatcher.BeginInvoke) and ``check_access`` tells whether the caller is the
UI thread. Everything else (waiting, timeouts, error translation) is here.

Invariant 3: the UI thread never waits on a Python lock. The callable it runs
hands its outcome to a ``queue.SimpleQueue`` (a put never blocks) and the
caller waits on that queue with a timeout. A call that timed out is marked
abandoned, so when the busy UI thread finally reaches it, it does nothing.

Posts are made by one poster thread of ours for every caller. Mono's shutdown
(``mono_jit_cleanup``, run by pythonnet at exit) waits, with no limit, for
every thread that ever called into the runtime and is still alive; the MCP
server's worker threads did not end before the interpreter did, so when they
posted themselves, an app whose UI closed hung at exit (it did, when an agent
clicked File > Exit). The poster thread is ended at exit, before the runtime
is cleaned up. The probe's other threads that call into the CLR end before
then too: the start-up's and the compile's when their work is done (the
compile is waited for at exit), the tool workers (a screenshot's pixels are
copied on one, off the UI thread) when the probe stops, which it does at exit
before pythonnet's shutdown. A call into the CLR can hide in an import: one
that no other finder resolves asks pythonnet's finder, which calls into the
runtime (uvicorn's search for websockets did so on the server's thread).
"""

from __future__ import annotations

import atexit
import queue
import sys
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any, TypeVar, cast

from wpfprobe.core.errors import AppNotAvailableError, DispatcherBusyError, ProbeError, UiThreadError

T = TypeVar("T")

Post = Callable[[Callable[[], None]], None]
_PostQueue = queue.SimpleQueue[tuple[Post, Callable[[], None], Callable[[ProbeError], None] | None] | None]


class _InFlight:
    """How many probe calls wait for or run on a UI thread, in this process (``calls_done``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._count = 0
        self._none = threading.Event()
        self._none.set()

    def __enter__(self) -> None:
        with self._lock:
            self._count += 1
            self._none.clear()

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._count -= 1
            if self._count == 0:
                self._none.set()

    def wait_none(self, timeout: float) -> bool:
        return self._none.wait(timeout)


_IN_FLIGHT = _InFlight()


def calls_done(timeout: float) -> bool:
    """Wait up to ``timeout`` seconds until no probe call waits for or runs on a UI thread; whether none does.

    For the probe's own background work that wants the GIL often and is needed
    by no call (the walk's compile, ``_compiling``). pythonnet lets the GIL go
    during each .NET call, so a UI-thread slice that makes a hundred of them
    takes it back a hundred times, each time behind whichever thread holds it:
    with the compile building its expression meanwhile, a slice of 4 ms of CPU
    held the UI thread for 10-35 ms (docs/benchmarks-mcp.md).
    """
    return _IN_FLIGHT.wait_none(timeout)


class _Call:
    __slots__ = ("abandoned", "fn", "outcome")

    def __init__(self, fn: Callable[[], Any]) -> None:
        self.fn = fn
        self.outcome: queue.SimpleQueue[tuple[bool, Any]] = queue.SimpleQueue()
        self.abandoned = False

    def __call__(self) -> None:
        # Runs on the UI thread. It must never raise into the toolkit's loop.
        if self.abandoned:
            return
        try:
            result = self.fn()
        except ProbeError as exc:
            self.outcome.put((False, _detached(exc)))
        except BaseException as exc:  # noqa: BLE001 - every error goes back to the caller
            # A .NET exception is named here, on the UI thread: the caller's thread must
            # not call into the runtime (see the module docstring).
            self.outcome.put((False, _translate(exc) if _is_clr_exception(exc) else _detached(exc)))
        else:
            self.outcome.put((True, result))


class UiThread:
    """Marshals calls onto one UI thread with a timeout."""

    def __init__(
        self,
        *,
        post: Post,
        check_access: Callable[[], bool],
        default_timeout: float = 5.0,
        on_ui_thread: Callable[[Callable[[], Any]], Any] | None = None,
    ) -> None:
        self._post = post
        self._check_access = check_access
        self.default_timeout = default_timeout
        self._thread_id: int | None = None
        # Optional wrapper used for every call that runs on the UI thread
        # (the thread-affinity checker installs itself here).
        self._on_ui_thread = on_ui_thread
        # Calls waiting for the UI thread, failed at once by end(). No lock: end() runs on
        # the UI thread, which never waits on one; run() re-checks _ended after adding.
        self._pending: set[_Call] = set()
        self._ended = False
        self._closed = False  # the probe stopped: see close()
        # When the UI thread last started or finished a probe call (time.monotonic()). A plain
        # float written by the UI thread and read by callers: no lock, as invariant 3 needs.
        self._progress = 0.0

    @property
    def thread_id(self) -> int | None:
        """Python ident of the UI thread, known after the first call."""
        return self._thread_id

    def is_ui_thread(self) -> bool:
        if self._thread_id is not None:
            return threading.get_ident() == self._thread_id
        return bool(self._check_access())

    def run(self, fn: Callable[[], T], *, timeout: float | None = None) -> T:
        """Run ``fn`` on the UI thread; inline if the caller already is it.

        Raises DispatcherBusyError when the UI thread went ``timeout`` seconds
        without starting or finishing a probe call before it got to this one,
        and translates any other exception into a ProbeError that keeps the
        original type and message. A call queued behind other callers' calls
        that the UI thread is working through waits for them: the UI thread is
        answering, only not to this caller yet.
        """
        timeout = self.default_timeout if timeout is None else timeout
        work = self._wrap(fn)
        if self.is_ui_thread():
            return cast(T, _unwrap(True, _run_inline(work)))
        call = _Call(work)
        self._pending.add(call)
        try:
            if self._ended:
                raise _ui_ended()
            if self._closed:
                raise _probe_stopped()
            with _IN_FLIGHT:
                _POSTER.submit(self._post, call, on_error=lambda err: call.outcome.put((False, err)))
                ok, value = self._wait(call, timeout)
        finally:
            self._pending.discard(call)
        return cast(T, _unwrap(ok, value))

    def _wait(self, call: _Call, timeout: float) -> tuple[bool, Any]:
        posted = time.monotonic()
        while True:
            idle = time.monotonic() - max(posted, self._progress)
            if idle < timeout:
                try:
                    return call.outcome.get(timeout=timeout - idle)
                except queue.Empty:
                    continue
            call.abandoned = True
            if not call.outcome.empty():  # it finished as it was given up on: keep its answer
                return call.outcome.get_nowait()
            raise DispatcherBusyError(
                f"The UI thread did not respond within {timeout:g} s; it is busy or blocked.",
                suggestion="Retry the call once the app is responsive, or raise the timeout.",
                detail={"timeoutSeconds": timeout},
            )

    def end(self) -> None:
        """The UI thread's message loop has ended: fail the calls waiting for it, and every
        later one, with APP_NOT_AVAILABLE at once (what was posted will never run).

        Called on the UI thread as its loop ends; it only hands errors to queues.
        """
        self._ended = True
        for call in list(self._pending):
            call.abandoned = True
            call.outcome.put((False, _ui_ended()))

    def close(self) -> None:
        """The probe stops: the calls waiting for the UI thread, and every later one from another
        thread, fail at once with APP_NOT_AVAILABLE and post nothing.

        A stop made on the UI thread (an app's handler calls ``stop()``, a client's click ran
        it) cannot answer the calls waiting for that thread before it is over, and the server's
        shutdown waited for them: the UI froze for its grace period, then the calls were cut
        off, and went on after the stop, starting a new poster thread that stayed for good.
        Calls on the UI thread itself still run inline (the stop takes its handlers off there).
        """
        self._closed = True
        for call in list(self._pending):
            call.abandoned = True
            call.outcome.put((False, _probe_stopped()))

    @property
    def ended(self) -> bool:
        return self._ended

    def post(self, fn: Callable[[], Any]) -> None:
        """Queue ``fn`` on the UI thread and return at once, even from the UI thread.

        For work that may not return soon (an action whose handler opens a
        modal dialog). ``fn`` must report its own outcome; anything it raises
        is dropped here, since an exception escaping into the toolkit's loop
        would end the app's message loop or show the app's error dialog.
        From another thread the post itself is made by the poster thread, so
        a failure to post (the UI has ended) is dropped too.
        """
        work = self._wrap(fn)

        def guarded() -> None:
            try:
                work()
            except BaseException:  # noqa: BLE001, S110 - see the docstring
                pass

        if not self.is_ui_thread():
            if self._closed:
                raise _probe_stopped()
            _POSTER.submit(self._post, guarded, on_error=None)
            return
        try:
            self._post(guarded)
        except ProbeError:
            raise
        except Exception as exc:
            raise _translate(exc) from exc

    def _wrap(self, fn: Callable[[], T]) -> Callable[[], T]:
        def work() -> T:
            if self._thread_id is None:
                self._thread_id = threading.get_ident()
            self._progress = time.monotonic()
            try:
                if self._on_ui_thread is not None:
                    return self._on_ui_thread(fn)  # type: ignore[no-any-return]
                return fn()
            finally:
                self._progress = time.monotonic()

        return work


class _Poster:
    """The thread that posts to UI threads on behalf of every other thread (see the module docstring).

    ``release()`` ends the thread when the probe stops (``wpfprobe detach`` must leave no
    thread of the probe in the app), and the next post starts a new one; ``close()`` at
    exit ends it for good. Each thread has a queue of its own, so a thread started after a
    release never takes the stop mark meant for the one before it.
    """

    def __init__(self) -> None:
        self._queue: _PostQueue = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._closed = False
        self._exit_hook = False
        self._hooked_after_clr = False

    def submit(self, post: Post, work: Callable[[], None], *, on_error: Callable[[ProbeError], None] | None) -> None:
        with self._lock:
            if self._closed:
                raise AppNotAvailableError(
                    "The app is exiting: no more calls reach its UI thread.",
                    suggestion="Start the app again, then reconnect.",
                )
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._loop, args=(self._queue,), name="wpfprobe-ui-poster", daemon=True
                )
                self._thread.start()
                self._hook_exit()
            self._queue.put((post, work, on_error))

    def hook_exit(self) -> None:
        with self._lock:
            self._hook_exit(again=True)

    def _hook_exit(self, *, again: bool = False) -> None:
        # Registered after the CLR was loaded, so it runs before pythonnet's and clr_loader's own
        # exit handlers: Mono's shutdown waits, with no limit, for this thread once it has posted.
        # And by locate (``again``, from start() before the probe's own exit hooks) so it runs after
        # them: a close Ctrl+C asked for as the exit began is still posted (mcp.ending); registered
        # on the first post instead, it ran first. A process that posted before it loaded the CLR
        # (the test suite, with fake UI threads) registered too early: locate registers it again.
        loaded = "clr" in sys.modules
        if not self._exit_hook or (again and loaded and not self._hooked_after_clr):
            atexit.unregister(self.close)
            atexit.register(self.close)
            self._exit_hook = True
            self._hooked_after_clr = loaded

    @staticmethod
    def _loop(items: _PostQueue) -> None:
        while (item := items.get()) is not None:
            post, work, on_error = item
            try:
                post(work)
            except BaseException as exc:  # noqa: BLE001 - handed to the caller waiting for this call
                if on_error is not None:
                    on_error(exc if isinstance(exc, ProbeError) else _translate(exc))

    def release(self, timeout: float = 5.0) -> bool:
        """End the poster thread once the posts queued so far are made; a later post starts a
        new one. True when no poster thread runs any more."""
        with self._lock:
            thread, items = self._thread, self._queue
            self._thread = None
            self._queue = queue.SimpleQueue()
        return self._end(thread, items, timeout)

    def close(self, timeout: float = 5.0) -> None:
        """End the poster thread; later posts fail with APP_NOT_AVAILABLE."""
        with self._lock:
            self._closed = True
            thread, items = self._thread, self._queue
            self._thread = None
        self._end(thread, items, timeout)

    @staticmethod
    def _end(thread: threading.Thread | None, items: _PostQueue, timeout: float) -> bool:
        if thread is None:
            return True
        items.put(None)
        if thread is not threading.current_thread():
            thread.join(timeout)
        return not thread.is_alive()

    @property
    def running(self) -> bool:
        with self._lock:
            return self._thread is not None and self._thread.is_alive()


_POSTER = _Poster()


def hook_exit() -> None:
    """Register the posting thread's exit hook now (``locate``, the CLR loaded): see ``_Poster``."""
    _POSTER.hook_exit()


def release_poster(timeout: float = 5.0) -> bool:
    """End the thread that posts to UI threads, once what was posted is made (a probe that
    stops leaves no thread behind); the next call to a UI thread starts a new one. True when
    none runs any more."""
    return _POSTER.release(timeout)


def _ui_ended() -> AppNotAvailableError:
    return AppNotAvailableError(
        "The app's UI thread has ended: the app closed its last window or is exiting.",
        suggestion="Start the app again, then reconnect (wpf_list_apps through the broker).",
    )


def _probe_stopped() -> AppNotAvailableError:
    return AppNotAvailableError(
        "The probe was stopped (the app called stop(), or it was detached): it makes no more calls "
        "to the app's UI thread.",
        suggestion="Start the probe again (wpfprobe.start() in the app, or wpfprobe attach), then reconnect.",
    )


def _is_clr_exception(exc: BaseException) -> bool:
    return getattr(exc, "GetType", None) is not None


def _run_inline(work: Callable[[], Any]) -> Any:
    try:
        return work()
    except BaseException as exc:  # noqa: BLE001
        return _Failure(_detached(exc))


def _detached(exc: BaseException) -> BaseException:
    """``exc`` with its frames' locals cleared.

    A traceback keeps every frame's locals alive, and those hold live UI
    objects: an error carried to another thread would keep a closed window
    from being collected and let the caller's thread touch it later.
    """
    traceback.clear_frames(exc.__traceback__)
    for linked in (exc.__cause__, exc.__context__):
        if linked is not None and linked is not exc:
            traceback.clear_frames(linked.__traceback__)
    return exc


class _Failure:
    __slots__ = ("exc",)

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


def _unwrap(ok: bool, value: Any) -> Any:
    if isinstance(value, _Failure):
        ok, value = False, value.exc
    if ok:
        return value
    exc: BaseException = value
    if isinstance(exc, ProbeError):
        raise exc
    if isinstance(exc, (KeyboardInterrupt, SystemExit)):
        raise exc
    raise _translate(exc) from exc


def _translate(exc: BaseException) -> ProbeError:
    """A ProbeError that names the original Python or .NET exception."""
    type_name, message = exception_identity(exc)
    return UiThreadError(
        f"{type_name}: {message}",
        suggestion="This is an error raised by the app or the toolkit while the probe read it; "
        "check the element still exists and retry.",
        detail={"exceptionType": type_name, "exceptionMessage": message},
    )


def exception_identity(exc: BaseException) -> tuple[str, str]:
    """(type name, message) of a Python or .NET exception, unwrapping .NET wrappers."""
    get_type = getattr(exc, "GetType", None)
    if get_type is None:
        return f"{type(exc).__module__}.{type(exc).__qualname__}".removeprefix("builtins."), str(exc)
    net: Any = exc
    # TargetInvocationException and friends hide the real error.
    while True:
        inner = getattr(net, "InnerException", None)
        name = str(net.GetType().FullName)
        if inner is None or name not in _WRAPPER_EXCEPTIONS:
            break
        net = inner
    if str(net.GetType().FullName) == _PYTHON_EXCEPTION:
        # A Python error raised inside .NET code (a clrproperty getter read through TypeDescriptor):
        # named as Python names it, like the same error raised directly.
        kind = getattr(net, "Type", None)
        if isinstance(kind, type):
            name = f"{kind.__module__}.{kind.__qualname__}".removeprefix("builtins.")
            return name, str(getattr(net, "Message", str(net)))
    return str(net.GetType().FullName), str(getattr(net, "Message", str(net)))


_PYTHON_EXCEPTION = "Python.Runtime.PythonException"


_WRAPPER_EXCEPTIONS = {
    "System.Reflection.TargetInvocationException",
    "System.AggregateException",
}
