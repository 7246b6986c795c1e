"""What the probe does as the process exits, before pythonnet shuts its runtime down.

pythonnet registers its shutdown (``pythonnet.unload``) with ``atexit`` when
the app loads it; the hook here is registered later, once the probe has hooked
the UI, so it runs first (atexit is last in, first out). It does two things:

- **It takes the probe's handlers off the toolkit's events** (the UI loop's
  end, hooked by ``on_ui_exit``, unless a stop took them off already: ``_hooks``). pythonnet's shutdown ends a background UI
  thread with a ThreadAbortException, which raises the loop's exit events; a
  Python handler running then, while pythonnet takes its types apart, hung the
  process (a thread started from it never started) or crashed it. Nothing of
  the probe's must run on the UI thread from here on.
- **It collects Python's garbage once, then freezes the heap** (``gc.freeze``).
  pythonnet's shutdown runs 41 full collections of Python's heap (and 40 of
  the CLR's) whatever is in them; with the probe's modules loaded (the MCP SDK,
  pydantic, uvicorn: about 100,000 objects) each took 0.15 s, six seconds at
  every exit. Frozen objects are skipped by those collections. The collection
  before it still runs whatever finalizers the app's garbage has (a file
  flushed on its ``__del__``), and objects freed by reference counting are
  freed as before; only cycles made garbage after this point stay uncollected
  until the process ends, which at that point it does. What remains of the
  probe's share is the CLR's side of those collections: pythonnet keeps the
  reflection of every .NET class the toolkit adapter imported until the runtime
  goes (docs/benchmarks-mcp.md, "Exit").
"""

from __future__ import annotations

import atexit
import gc
import threading
import time
from collections.abc import Callable
from typing import Protocol

_lock = threading.Lock()
_unhooks: list[Callable[[], None]] = []
_registered = False
exiting = False
"""True once the process has started to exit: the probe's event handlers then do nothing."""


def register() -> None:
    """Register the exit hook now (the CLR loaded, so after pythonnet's own): ``wpfprobe.start()``
    calls it before it returns, so that an app that ends while the probe is still attaching
    (before any ``on_exit``) still has its heap frozen before pythonnet's collections."""
    global _registered
    with _lock:
        if not _registered:
            atexit.register(_before_runtime_shutdown)
            _registered = True


def on_exit(unhook: Callable[[], None]) -> None:
    """Call ``unhook`` at exit, before the runtime shuts down (it takes a handler off an event).

    Called after the CLR is loaded (pythonnet's own exit handler is registered by
    then), so the exit hook registered here runs before pythonnet's.
    """
    with _lock:
        _unhooks.append(unhook)
    register()


def forget(unhook: Callable[[], None]) -> None:
    """The handler ``unhook`` takes off was taken off already (the probe stopped: ``_hooks``)."""
    with _lock:
        if unhook in _unhooks:
            _unhooks.remove(unhook)


def _before_runtime_shutdown() -> None:
    global exiting
    exiting = True
    with _lock:
        unhooks = list(_unhooks)
        _unhooks.clear()
    for unhook in unhooks:
        try:
            unhook()
        except Exception:  # noqa: BLE001, S110 - the event or its UI is gone already: nothing to take off
            pass
    if gc.isenabled():
        gc.collect()
        gc.freeze()


class _Ui(Protocol):
    @property
    def ended(self) -> bool: ...
    @property
    def thread_id(self) -> int | None: ...


#: How often the exit looks whether the UI closed (no lock: the UI thread must never wait on one).
_POLL_SECONDS = 0.02
#: How long the exit waits for the loop's end of a UI thread it cannot see (see wait_for_ui).
_UNSEEN_THREAD_WAIT = 30.0


def wait_for_ui(ui: _Ui) -> None:
    """The exit waits for ``ui``, which Ctrl+C asked to close (``mcp.ending``), as Python would
    have had the main thread's ``join`` not been interrupted.

    With the UI on a Python thread the main thread joins, Ctrl+C raises KeyboardInterrupt in the
    join, and CPython's join, interrupted, marks the thread it waited for as ended (3.11's
    ``_wait_for_tstate_lock`` releases a lock that thread still holds). The interpreter then
    did not wait for it: pythonnet's shutdown ran while the UI thread was still closing (the
    app's FormClosing, saving its work), aborted it and crashed (exit status 1, a .NET stack on
    stdout), or hung in ``mono_jit_cleanup``. A second Ctrl+C ends the wait (the exit then goes
    on as it did before)."""
    ident = ui.thread_id
    if ident is None or ident == threading.get_ident():
        return
    thread = next((t for t in threading.enumerate() if t.ident == ident), None)
    if thread is not None and not thread.daemon:  # a .NET thread's entry here is a daemon _DummyThread
        # A thread Python would have waited for: until it is gone (threading's registry drops it
        # as its last step), not only its loop, since the app's code after the loop runs there.
        def ended() -> bool:
            return all(t.ident != ident for t in threading.enumerate())
    elif thread is not None:
        # A daemon or .NET thread: Python would not wait for it, only for the UI it was told to
        # close (a .NET thread's entry stays in threading's registry: its loop's end says it).
        def ended() -> bool:
            return ui.ended or all(t.ident != ident for t in threading.enumerate())
    else:
        # Not in threading's registry: a .NET thread that never asked for its Python thread, or
        # a thread gone already. Only the loop's end can say, and a UI gone with its handlers
        # off never says it: so this wait alone is bounded.
        give_up = time.monotonic() + _UNSEEN_THREAD_WAIT

        def ended() -> bool:
            return ui.ended or time.monotonic() > give_up

    try:
        while not ended():
            time.sleep(_POLL_SECONDS)
    except KeyboardInterrupt:
        return
