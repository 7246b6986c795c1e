"""Run a callable on the app's UI thread and get its result or error back.

The toolkit supplies two primitives: ``post`` queues a zero-argument callable
on the UI thread without waiting (WinForms BeginInvoke, WPF
Dispatcher.BeginInvoke) and ``check_access`` tells whether the caller is the
UI thread. Everything else (waiting, timeouts, error translation) is here.

Invariant 3: the UI thread never waits on a Python lock. The callable it runs
hands its outcome to a ``queue.SimpleQueue`` (a put never blocks) and the
caller waits on that queue with a timeout. A call that timed out is marked
abandoned, so when the busy UI thread finally reaches it, it does nothing.
"""

from __future__ import annotations

import queue
import threading
import traceback
from collections.abc import Callable
from typing import Any, TypeVar

from wpfprobe._errors import DispatcherBusyError, ProbeError, UiThreadError

T = TypeVar("T")

Post = Callable[[Callable[[], None]], None]


class _Call:
    __slots__ = ("fn", "outcome", "abandoned")

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
        except BaseException as exc:  # noqa: BLE001 - every error goes back to the caller
            self.outcome.put((False, _detached(exc)))
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

        Raises DispatcherBusyError when the UI thread did not get to the call
        within ``timeout`` seconds, and translates any other exception into a
        ProbeError that keeps the original type and message.
        """
        timeout = self.default_timeout if timeout is None else timeout
        work = self._wrap(fn)
        if self.is_ui_thread():
            return _unwrap(True, _run_inline(work))
        call = _Call(work)
        try:
            self._post(call)
        except ProbeError:
            raise
        except Exception as exc:
            raise _translate(exc) from exc
        try:
            ok, value = call.outcome.get(timeout=timeout)
        except queue.Empty:
            call.abandoned = True
            raise DispatcherBusyError(
                f"The UI thread did not respond within {timeout:g} s; it is busy or blocked.",
                suggestion="Retry the call once the app is responsive, or raise the timeout.",
                detail={"timeoutSeconds": timeout},
            ) from None
        return _unwrap(ok, value)

    def post(self, fn: Callable[[], Any]) -> None:
        """Queue ``fn`` on the UI thread and return at once, even from the UI thread.

        For work that may not return soon (an action whose handler opens a
        modal dialog). ``fn`` must report its own outcome; anything it raises
        is dropped here, since an exception escaping into the toolkit's loop
        would end the app's message loop or show the app's error dialog.
        """
        work = self._wrap(fn)

        def guarded() -> None:
            try:
                work()
            except BaseException:  # noqa: BLE001, S110 - see the docstring
                pass

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
            if self._on_ui_thread is not None:
                return self._on_ui_thread(fn)  # type: ignore[no-any-return]
            return fn()

        return work


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
    net = exc
    # TargetInvocationException and friends hide the real error.
    while True:
        inner = getattr(net, "InnerException", None)
        name = str(net.GetType().FullName)
        if inner is None or name not in _WRAPPER_EXCEPTIONS:
            break
        net = inner
    return str(net.GetType().FullName), str(getattr(net, "Message", str(net)))


_WRAPPER_EXCEPTIONS = {
    "System.Reflection.TargetInvocationException",
    "System.AggregateException",
}
