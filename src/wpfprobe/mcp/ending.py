"""How a running probe ends with its app: the UI's end, Ctrl+C, SIGTERM, and a close request.

One thread of the probe's, ``wpfprobe-ending``, waits on a socket pair for
one-byte notes and does what each asks, off the UI thread and off any signal
handler:

- *The UI loop ended*, written by the toolkit's exit event on the UI thread
  with one non-blocking send (no lock, no thread started, nothing waited for):
  the server stops and its manifest goes. Starting a thread there hung apps
  at exit, when the event came during pythonnet's shutdown.
- *A close was asked for* (``wpfprobe stop``): the app's ``request_close`` is
  posted to the UI thread, as if its user closed it.
- *SIGINT or SIGTERM arrived*. Python runs a signal's handler on the main
  thread between two bytecodes only; while the main thread sits in the UI's
  message loop or in a .NET ``Thread.Join`` (native code), none runs, so
  Ctrl+C did nothing. Python's C-level handler also writes the signal's number
  to the wakeup fd (``signal.set_wakeup_fd``) at once, whatever the main thread
  does: that fd is this socket pair, so this thread hears of it.

  - SIGTERM ends the process as its default disposition does, at once and
    "killed by SIGTERM", after the manifest is removed (SIGTERM left it stale
    before). The probe's handler does it where the main thread runs Python; this
    thread does it otherwise, resetting the disposition through libc (the
    ``signal`` module allows that on the main thread only).
  - Ctrl+C asks the app to close (``request_close`` posted to the UI thread), and
    KeyboardInterrupt is raised by Python's own handler in the app's code, so
    the exit status and the traceback are Python's. With the UI on another
    thread, Python's handler stays as it was and raises it in the main thread
    (at once if that runs Python, or once the UI has closed and its native wait
    returned). With the UI on the main thread, KeyboardInterrupt must not be
    raised inside the UI loop (in a call posted to it, Mono drops it, and the
    close with it), so while the loop runs the probe's SIGINT handler keeps it;
    the close puts Python's handler back and has the interrupt set from .NET
    once the loop has ended (``request_close(then=...)``), so it is raised in
    the app's code right after Application.Run.
  - Only where the app left the signal at its default (SIGINT:
    ``default_int_handler``; SIGTERM: ``SIG_DFL``), only from the main thread
    (where the ``signal`` module allows it), only if no other wakeup fd is set,
    and Ctrl+C not in an interactive session (a REPL, IPython, a notebook
    kernel), where it interrupts the command and must not close the UI. A
    handler the app sets later is its own: this thread then ignores that signal.

``stop()`` leaves no thread behind: the thread ends when its probe stops,
except under ``wpfprobe run`` (``serve_for_good``), where signals are served
from the script's start to the process's end.
"""

from __future__ import annotations

import _thread
import atexit
import contextlib
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

log = logging.getLogger("wpfprobe.ending")

_UI_ENDED = 0xFF
_QUIT = 0xFE
_CLOSE = 0xFD
_SYNC = 0xFC
_SIGINT = int(signal.SIGINT)
_SIGTERM: int | None = int(signal.SIGTERM) if sys.platform != "win32" else None
"""SIGTERM is taken on POSIX only: on Windows another process cannot send it (it terminates)."""


class ProbeHandle(Protocol):
    """What this module uses of ``server.ProbeHandle`` (which imports this module)."""

    app_id: str
    _manifest_path: Path | None
    _stop_lock: threading.Lock

    def ready_probe(self, timeout: float | None = ...) -> Any | None: ...
    def stop(self, timeout: float = ...) -> None: ...


class _Ending:
    """The process's one ending thread and what it watches (see the module docstring)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._reader, self._writer = socket.socketpair()
        # The writer is the wakeup fd: Python's C handler and the UI thread must never block on it.
        self._writer.setblocking(False)
        self._thread: threading.Thread | None = None
        self._handle: ProbeHandle | None = None
        self._keep_alive = False
        self._closing_for_sigint = False
        self._synced = threading.Event()  # the thread has read every note sent before a _SYNC
        #: The signals taken, each with the disposition it had.
        self._taken: dict[int, Any] = {}
        self._wakeup_installed = False

    # -- notes, from any thread ---------------------------------------------------------

    def _note(self, byte: int) -> None:
        """One byte to the ending thread: never blocks, never raises (a full buffer drops it)."""
        with contextlib.suppress(OSError):
            self._writer.send(bytes((byte,)))

    # -- the probe that is watched -------------------------------------------------------

    def watch(self, handle: ProbeHandle) -> Callable[[], None]:
        """Watch ``handle`` (the running probe); returns what the UI's exit event calls."""
        with self._lock:
            self._handle = handle
            self._closing_for_sigint = False
            self._ensure_thread()
        # Last in, so first out: before the server's stop and pythonnet's shutdown (both
        # registered by now), while the probe and the UI's handlers are still on.
        atexit.unregister(self._at_exit)
        atexit.register(self._at_exit)

        def ui_ended() -> None:
            # On the UI thread as its loop ends: plain reads and one send (see the docstring).
            if self._handle is not handle:
                return
            if threading.current_thread() is threading.main_thread() and signal.getsignal(_SIGINT) is _on_sigint:
                # The loop ran on the main thread, which may now go on with the app's code.
                signal.signal(_SIGINT, signal.default_int_handler)
            self._note(_UI_ENDED)

        return ui_ended

    def hook_ui_thread(self) -> None:
        """On the UI thread: if it is the main thread, keep Ctrl+C out of its loop (see the docstring)."""
        if threading.current_thread() is not threading.main_thread():
            return
        with self._lock:
            if _SIGINT in self._taken and signal.getsignal(_SIGINT) is signal.default_int_handler:
                signal.signal(_SIGINT, _on_sigint)

    def unwatch(self, handle: ProbeHandle) -> None:
        """``handle`` stopped: forget it, and end the thread unless it serves signals for good."""
        with self._lock:
            if self._handle is not handle:
                return
            self._handle = None
            atexit.unregister(self._at_exit)
            thread = self._thread
            if self._keep_alive or thread is None:
                return
            self._thread = None
        self._give_back_signals()
        self._note(_QUIT)
        if thread is not threading.current_thread():
            thread.join(5.0)

    def request_close(self, handle: ProbeHandle) -> bool:
        """Ask ``handle``'s app to close, as its user would; False if it is not the watched one."""
        if self._handle is not handle:
            return False
        self._note(_CLOSE)
        return True

    def serve_for_good(self) -> None:
        """Take the signals now and serve them until the process ends (``wpfprobe run``, on the
        main thread before the app runs): SIGTERM ends it cleanly even before a probe starts."""
        with self._lock:
            self._keep_alive = True
        self.take_signals()
        with self._lock:
            self._ensure_thread()

    def _ensure_thread(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            return
        self._drain()
        self._thread = threading.Thread(target=self._loop, name="wpfprobe-ending", daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        """Forget notes no thread read (signals while no probe ran, a stopped probe's quit)."""
        self._reader.setblocking(False)
        with contextlib.suppress(OSError):
            while self._reader.recv(4096):
                pass
        self._reader.setblocking(True)

    # -- the thread ------------------------------------------------------------------------

    def _loop(self) -> None:
        me = threading.current_thread()
        while self._thread is me:
            try:
                data = self._reader.recv(64)
            except OSError:
                return
            for byte in data:
                if byte == _QUIT or self._thread is not me:
                    continue
                try:
                    self._on_note(byte)
                except Exception:
                    log.debug("ending note %d failed", byte, exc_info=True)

    def _on_note(self, byte: int) -> None:
        handle = self._handle
        if byte == _UI_ENDED:
            if handle is not None:
                handle.stop()
        elif byte == _CLOSE:
            if handle is not None:
                _post_close(handle)
        elif byte == _SYNC:
            self._synced.set()
        elif byte == _SIGINT:
            # Ctrl+C closes the UI, once per probe, while Python's handler (or ours) is the one set.
            taken = _SIGINT in self._taken and signal.getsignal(_SIGINT) in (signal.default_int_handler, _on_sigint)
            if handle is not None and taken and not self._closing_for_sigint:
                self._closing_for_sigint = True
                _post_close(handle, interrupt=True)
        elif byte == _SIGTERM and _SIGTERM in self._taken and signal.getsignal(_SIGTERM) is _on_sigterm:
            _terminate(main_thread=False)

    def _at_exit(self) -> None:
        """At exit, after Ctrl+C asked the UI to close: wait for that UI (``_exit.wait_for_ui``).

        With the UI on a Python thread the main thread joins, Ctrl+C raises KeyboardInterrupt in
        the join at once, and the exit can begin before this thread has even read the signal's
        note, or while it waits for the probe to attach before it can post the close: so the
        exit first lets it deal with every note sent so far (a _SYNC note, answered in order),
        then waits if a close for Ctrl+C is under way. A second Ctrl+C ends the wait quietly
        (raised here, Python would print it as an exit hook's failure)."""
        with contextlib.suppress(KeyboardInterrupt):
            self._wait_at_exit()

    def _wait_at_exit(self) -> None:
        handle, thread = self._handle, self._thread
        if handle is None or thread is None or _SIGINT not in self._taken:
            return
        probe = handle.ready_probe(0.0)
        if probe is not None and _nothing_to_wait_for(probe.engine.ui):
            return  # the common exit: the UI has ended, or it ran on this thread
        self._synced.clear()
        self._note(_SYNC)
        give_up = time.monotonic() + ATTACH_WAIT + _SYNC_WAIT
        # In slices: the thread may quit before it reads the note (the UI ended meanwhile, and
        # its note stopped the probe), and then nobody answers it.
        while not self._synced.wait(0.05):
            if self._thread is not thread or not thread.is_alive() or time.monotonic() > give_up:
                break
        handle = self._handle
        if not self._closing_for_sigint or handle is None:
            return
        probe = handle.ready_probe(0.0)
        if probe is None:
            return
        ui = probe.engine.ui
        if _nothing_to_wait_for(ui):
            return
        from wpfprobe_clr._exit import wait_for_ui  # noqa: PLC0415 - the CLR side, loaded by now

        wait_for_ui(ui)

    # -- signals ----------------------------------------------------------------------------

    def take_signals(self) -> bool:
        """Listen for Ctrl+C and SIGTERM where the app left them at their defaults (main thread only)."""
        if threading.current_thread() is not threading.main_thread():
            return False
        with self._lock:
            if not self._wakeup_installed:
                try:
                    previous = signal.set_wakeup_fd(self._writer.fileno(), warn_on_full_buffer=False)
                except (ValueError, OSError):
                    return False
                if previous != -1:
                    # The app (or an event loop of its) listens for signals this way: leave it alone.
                    signal.set_wakeup_fd(previous)
                    return False
                self._wakeup_installed = True
            if signal.getsignal(_SIGINT) is signal.default_int_handler and not _interactive():
                # Listened to only (the wakeup fd): Python's handler stays, see the docstring.
                self._taken[_SIGINT] = signal.default_int_handler
            if _SIGTERM is not None and signal.getsignal(_SIGTERM) == signal.SIG_DFL:
                self._taken[_SIGTERM] = signal.signal(_SIGTERM, _on_sigterm)
        return True

    def _give_back_signals(self) -> None:
        """Put back what was taken (only the main thread may, and only what is still ours)."""
        if threading.current_thread() is not threading.main_thread():
            return
        with self._lock:
            if self._keep_alive:
                return
            if _SIGTERM in self._taken and signal.getsignal(_SIGTERM) is _on_sigterm:
                signal.signal(_SIGTERM, self._taken[_SIGTERM])
            if signal.getsignal(_SIGINT) is _on_sigint:
                signal.signal(_SIGINT, signal.default_int_handler)
            self._taken.clear()
            if self._wakeup_installed:
                previous = signal.set_wakeup_fd(-1)
                if previous != self._writer.fileno():
                    signal.set_wakeup_fd(previous)  # set by the app since: its own
                self._wakeup_installed = False

    def ui_loop_runs_here(self) -> bool:
        """Whether the calling thread is the watched probe's UI thread and its loop has not ended."""
        handle = self._handle
        if handle is None:
            return False
        probe = handle.ready_probe()  # never waits: this runs in a signal handler
        if probe is None:
            return False
        ui = probe.engine.ui
        return getattr(ui, "thread_id", None) == threading.get_ident() and not getattr(ui, "ended", False)

    def watched(self) -> ProbeHandle | None:
        return self._handle


ENDING = _Ending()


def _nothing_to_wait_for(ui: Any) -> bool:
    """The exit need not wait for ``ui``: its loop has ended, or it runs on the exiting thread."""
    return getattr(ui, "thread_id", None) in (None, threading.get_ident()) or bool(getattr(ui, "ended", True))


def _interactive() -> bool:
    return bool(hasattr(sys, "ps1") or sys.flags.interactive or "IPython" in sys.modules or "ipykernel" in sys.modules)


#: How long the exit waits for the ending thread to deal with the notes sent before it, beyond
#: a close's wait for the attach (each is dealt with at once otherwise: a post to the UI thread).
_SYNC_WAIT = 5.0

#: How long a close asked for while the probe still attaches to the UI waits for it (on the
#: ending thread; the attach itself is bounded, call by call, by the probe's ui_timeout).
ATTACH_WAIT = 30.0


def _post_close(handle: ProbeHandle, *, interrupt: bool = False) -> None:
    probe = handle.ready_probe(ATTACH_WAIT)
    if probe is None:
        log.warning("the app could not be asked to close: the probe is not attached to its UI")
        return
    adapter = probe.engine.adapter
    if getattr(adapter, "request_close", None) is None:
        return

    def close() -> None:  # on the UI thread
        if interrupt and signal.getsignal(_SIGINT) is _on_sigint:
            # The UI loop runs on the main thread (only there is ours set): Python's handler
            # again, and the interrupt set from .NET once the loop has ended.
            signal.signal(_SIGINT, signal.default_int_handler)
            adapter.request_close(then=_thread.interrupt_main)
        else:
            adapter.request_close()

    # post(): queued, and this thread goes on; the app may answer the close with a
    # "save changes?" dialog of its own, which must hold nobody up.
    probe.engine.ui.post(close)


def _on_sigint(signum: int, frame: Any) -> None:
    """SIGINT while the UI loop runs on the main thread (set only then): kept for after the loop."""
    if ENDING.ui_loop_runs_here():
        return  # the ending thread heard of it too (the wakeup fd), and closes the UI
    signal.signal(_SIGINT, signal.default_int_handler)
    signal.default_int_handler(signum, frame)


def _on_sigterm(signum: int, frame: Any) -> None:
    _terminate(main_thread=True)


def _terminate(*, main_thread: bool) -> None:
    """Remove the manifest, then end as SIGTERM's default disposition ends a process."""
    assert _SIGTERM is not None
    handle = ENDING.watched()
    if handle is not None:
        # The start-up writes the manifest under this lock: a write under way finishes first (not
        # waited for on the main thread, which may be the one writing, between two bytecodes).
        held = False if main_thread else handle._stop_lock.acquire(timeout=1.0)
        try:
            from wpfprobe.core.paths import sessions_dir  # noqa: PLC0415
            from wpfprobe.mcp import manifest as _manifest  # noqa: PLC0415

            with contextlib.suppress(Exception):
                # Where the start-up writes it, should it be there before the handle knows.
                _manifest.remove(handle._manifest_path or sessions_dir() / f"{handle.app_id}.json")
        finally:
            if held:
                handle._stop_lock.release()
    if main_thread:
        signal.signal(_SIGTERM, signal.SIG_DFL)
    else:
        _default_disposition(_SIGTERM)
    os.kill(os.getpid(), _SIGTERM)
    # Delivered to a thread that does not block it; should every thread block it, still end.
    threading.Event().wait(2.0)
    os._exit(128 + _SIGTERM)


def _default_disposition(signum: int) -> None:
    """SIG_DFL for ``signum`` from any thread, through libc's signal(): the signal module
    allows it on the main thread only, which may be in native code (POSIX only)."""
    import ctypes  # noqa: PLC0415

    libc = ctypes.CDLL(None, use_errno=True)
    libc.signal.restype = ctypes.c_void_p
    libc.signal.argtypes = (ctypes.c_int, ctypes.c_void_p)
    libc.signal(signum, None)
