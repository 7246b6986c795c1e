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
from collections.abc import Callable

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
