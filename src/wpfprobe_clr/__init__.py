"""The CLR side of wpfprobe: the only package that touches pythonnet and System.*.

Internal to wpfprobe; its names may change between releases.

Connecting is two steps, so that ``wpfprobe.start()`` can return at once:
``locate`` runs on the caller's thread and does only what is cheap and must
happen there (the checks that can fail at once, and what must be made on the
UI thread when the caller is that thread); ``connect`` does the rest from
any thread. ``connect(app)`` with no located app does both.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from wpfprobe_clr._runtime import RuntimeFacts, RuntimeKind, clr_is_loaded, describe_clr, ensure_clr
from wpfprobe_clr._ui_thread import UiThread

if TYPE_CHECKING:
    from wpfprobe.core.models import RuntimeDescription

__all__ = [
    "Connection",
    "Located",
    "RuntimeKind",
    "UiThread",
    "clr_is_loaded",
    "connect",
    "describe_clr",
    "ensure_clr",
    "locate",
    "preload",
]


@dataclass(frozen=True)
class Connection:
    """Everything the engine needs to inspect one app."""

    adapter: Any
    ui: UiThread
    objects: Any
    runtime: RuntimeDescription
    toolkit: str
    app: Any
    same: Any
    os_input: Any = None


#: How long ``connect``'s first call waits for the UI thread: a loop not begun yet, or busy (see there).
LOOP_WAIT = 60.0


@dataclass(frozen=True)
class Located:
    """The app found on the caller's thread (``locate``), ready to be connected from any thread."""

    app: Any
    toolkit: str
    runtime: RuntimeFacts
    #: What had to be made on the UI thread, made there because the caller was that thread.
    marshal: Any = None


def locate(app: Any = None, *, runtime: RuntimeKind | None = None, load: bool = True) -> Located:
    """The app's UI and its toolkit, checked on the caller's thread: cheap, and posts nothing.

    Raises what can be told at once: no CLR (``load=False``: none is loaded here, so there is
    no UI to find; else ClrUnavailableError if none can be loaded), no UI found for
    ``app=None`` (AppNotAvailableError), an object that is no WPF or WinForms UI
    (InvalidArgumentError). The runtime's suspend-mode warning points at the caller's line.
    """
    from wpfprobe_clr._runtime import ensure_runtime  # noqa: PLC0415
    from wpfprobe_clr.toolkits import find_app, toolkit_of, ui_thread_marshal  # noqa: PLC0415

    if not load and not clr_is_loaded():
        from wpfprobe.core.errors import AppNotAvailableError  # noqa: PLC0415

        raise AppNotAvailableError(
            "No .NET runtime is loaded in this process, so it shows no WPF or WinForms UI yet.",
            suggestion="Start the probe once the app has loaded pythonnet and built its UI, or pass the app object.",
        )
    facts = ensure_runtime(runtime)
    from wpfprobe_clr import _exit  # noqa: PLC0415 - standard library only
    from wpfprobe_clr._ui_thread import hook_exit  # noqa: PLC0415

    _exit.register()
    hook_exit()  # before start() registers the probe's own exit hooks, so it runs after them
    if app is None:
        app = find_app()
    kind = toolkit_of(app)
    return Located(app, kind, facts, ui_thread_marshal(app, kind))


def _say_waiting(answered: threading.Event, every: float, limit: float) -> None:
    waited = every
    while not answered.wait(every) and waited < limit:
        logging.getLogger("wpfprobe.clr").info(
            "the app's UI thread has not answered the probe for %g s (busy, or its message loop not "
            "running yet): the probe waits up to %g s for it to attach",
            waited,
            limit,
        )
        waited += every


def preload(located: Located) -> None:
    """Import what ``connect`` needs for ``located``'s toolkit, on any thread, without a call to
    its UI thread: Python work (pythonnet reflects each .NET class a module imports) that a
    caller may want done before the attach's UI calls, or in turns with other work."""
    from wpfprobe_clr import _compiling, _objects, _os_input  # noqa: F401, PLC0415
    from wpfprobe_clr.toolkits import preload as preload_toolkit  # noqa: PLC0415

    preload_toolkit(located.toolkit)


def connect(
    app: Any = None,
    *,
    timeout: float = 5.0,
    runtime: RuntimeKind | None = None,
    test_hooks: bool = False,
    located: Located | None = None,
    first_wait: float | None = None,
    compile_after: Callable[[], object] | None = None,
) -> Connection:
    """Load or find the CLR, find the app's UI if ``app`` is None, and wire an adapter to it.

    ``located``: the app ``locate`` found on the caller's thread; then this may run on any
    thread. The app's exception events are hooked for ``wpf_get_app_events``; ``test_hooks``
    (the probe was started for testing) also lets the hooks mark them handled (see
    ``toolkits.app_hooks``). The toolkit's .NET walk is compiled off the UI thread
    (``_compiling``): snapshots are read the engine's way until it is ready; ``compile_after``
    is called on that thread first (it waits for what should come before the compile).
    ``first_wait``: how long the first call to the UI thread waits for it (``LOOP_WAIT`` if
    None; see there).
    """
    found = located if located is not None else locate(app, runtime=runtime)
    from wpfprobe_clr import _os_input  # noqa: PLC0415
    from wpfprobe_clr._compiling import compile_walk  # noqa: PLC0415
    from wpfprobe_clr._objects import ClrObjectTable, id_delegate, same_object  # noqa: PLC0415
    from wpfprobe_clr.toolkits import app_hooks  # noqa: PLC0415
    from wpfprobe_clr.toolkits import connect as connect_toolkit  # noqa: PLC0415

    # The first call to the UI thread (the toolkit's, or the object table's) waits for it to be
    # free, longer than a call's timeout: the app may do seconds of work before its message loop
    # runs (when the caller of locate was the UI thread: the app calls wpfprobe.start() before
    # it), or while it loads its data. A busy moment must not leave a probe that never attached;
    # a call that timed out never runs, so there is nothing to undo.
    first_wait = max(timeout, LOOP_WAIT if first_wait is None else first_wait)
    # Past each call's timeout the log says why the probe is not ready yet, until the UI thread answers.
    answered = threading.Event()
    threading.Thread(
        target=_say_waiting, args=(answered, timeout, first_wait), name="wpfprobe-attach-wait", daemon=True
    ).start()
    try:
        # Compiled here, not by the table on the UI thread, and first: before the toolkit posts its
        # hooks to the UI thread and the walk's compile starts on a thread of its own. Compiled while
        # both ran (three threads making .NET classes at once), it froze the app at one attach in two
        # with pythonnet 3.1.0 and Mono in its default suspend mode, and bench_heartbeat's attach for
        # good with 3.2.1, whose class cache's lock a collection's Python callback held over a GIL
        # switch (docs/compatibility.md). The walk's compile still runs beside the UI thread's reads.
        id_delegate()
        adapter, ui, kind = connect_toolkit(found.app, timeout=timeout, marshal=found.marshal, first_wait=first_wait)
        compile_walk(kind, ui, after=compile_after)
        # The object table is created on the UI thread: it is only ever used there.
        objects = ui.run(ClrObjectTable, timeout=first_wait)
    finally:
        answered.set()
    try:
        ui.run(app_hooks(adapter, kind, catch=test_hooks), timeout=timeout)
    except Exception:
        logging.getLogger("wpfprobe.clr").warning("could not hook the app's exception events", exc_info=True)
    return Connection(adapter, ui, objects, found.runtime.model(), kind, found.app, same_object, _os_input)
