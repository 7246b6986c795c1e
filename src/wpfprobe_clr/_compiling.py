"""The toolkit's .NET walk, compiled on a thread of its own rather than on the app's UI thread.

Compiling the walk (``toolkits/*/walker``: the expression built from Python,
then ``LambdaExpression.Compile``) takes 100-700 ms, once per process. Posted
to the UI thread, it froze the app for that long at the first start of the
probe, and an attach to a running app inherited the freeze. Building and
compiling an expression reads types and members only, never a live control,
so any thread may do it; until it is done, snapshots are read the engine's
way (the walker's ``ready()`` is False), so nothing waits for it.

``after`` (``wpfprobe.start()`` passes one: until its start-up is over) makes
the thread wait before it starts: the compile is mostly Python (building the
expression; ``LambdaExpression.Compile`` itself runs without the GIL, as
pythonnet lets it go during a .NET method's call) and competes for the GIL
with the start-up's imports; run together on two cores, they made the first
answer later, and every Python handler of the app, on its UI thread, waited
longer for the GIL meanwhile (issue 22 item 3, measured in
docs/benchmarks-mcp.md). No tool needs the compile: a snapshot is read the
engine's way until it is ready.

For the same reason the build gives way to the probe's calls on the UI thread
(``_giving_way``): the first call comes as the compile starts, and its slices
make many .NET calls, each letting the GIL go and taking it back behind the
build (pythonnet lets it go during every .NET call): slices of 2-7 ms of CPU
held the UI thread for 10-35 ms. Waiting while a call uses the UI thread, the
first call was answered 66 ms sooner and the heartbeat's longest gap over the
start was 21 ms against 29 (medians of ten starts each, alternating;
docs/benchmarks-mcp.md). The waits are bounded (GIVE_WAY_BUDGET in all), so a
client that never pauses delays the compile by that much only.

Two cases keep it elsewhere:

- Mono started in a cooperative or hybrid suspend mode (its default; the app
  chose it when it loaded Mono, and ``ensure_clr`` warned): a second thread
  doing .NET work while the UI thread runs Python can deadlock with Mono's
  collector (a compile thread did, in such an app). There the walk is posted
  to the UI thread as before: one long hold, the price of that mode.
- Exit: a compile still under way when the interpreter shuts down crashed
  pythonnet's shutdown. The thread is joined at exit by a handler registered
  after the CLR was loaded, so it runs before pythonnet's own.
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from wpfprobe_clr._heap import return_freed_memory
from wpfprobe_clr._pausing import pausing
from wpfprobe_clr._runtime import suspend_mode_is_safe

THREAD_NAME = "wpfprobe-compile"
#: Seconds the build gives way to the probe's calls on the UI thread, in all (``_giving_way``).
GIVE_WAY_BUDGET = 2.0
#: The longest one wait of the build's for those calls.
GIVE_WAY_STEP = 0.05
#: How long exit waits for a compile under way (it takes well under a second).
EXIT_JOIN_SECONDS = 10.0

_lock = threading.Lock()
_started: set[str] = set()
_threads: list[threading.Thread] = []
_exit_hook = False


def compile_walk(kind: Any, ui: Any, *, after: Callable[[], object] | None = None) -> None:
    """Compile the walk of toolkit ``kind`` ("winforms" or "wpf"), once per process, off the UI
    thread (``ui`` takes it only in Mono's unsafe suspend modes, see the module's docstring).
    ``after``: called on the compile's thread before it compiles; it waits for what should
    come first, and must return within seconds (exit joins the thread)."""
    global _exit_hook
    from wpfprobe_clr.toolkits import prepare_walk  # noqa: PLC0415

    with _lock:
        if kind in _started:
            return
        _started.add(kind)
        if not suspend_mode_is_safe():
            ui.post(lambda: prepare_walk(kind))
            return
        thread = threading.Thread(target=_compile, args=(kind, after), name=THREAD_NAME, daemon=True)
        _threads.append(thread)
        if not _exit_hook:
            atexit.register(wait, EXIT_JOIN_SECONDS)
            _exit_hook = True
    thread.start()


def _compile(kind: Any, after: Callable[[], object] | None) -> None:
    from wpfprobe_clr.toolkits import prepare_walk  # noqa: PLC0415

    try:
        if after is not None:
            after()
        with pausing(_giving_way(GIVE_WAY_BUDGET)):
            prepare_walk(kind)
        # The compile is the start-up's last and largest user of the C heap (``_heap`` says why).
        return_freed_memory()
    except Exception:  # prepare logs its own failures: a last guard for the thread
        logging.getLogger("wpfprobe.clr").warning("the .NET walk could not be compiled", exc_info=True)


def _giving_way(budget: float) -> Callable[[], None]:
    """What the build calls before each of its steps (``_pausing``): it waits while the probe's
    calls use the UI thread (``_ui_thread.calls_done``), ``budget`` seconds in all at most, so a
    client that calls without a pause delays the compile by that much and no more."""
    from wpfprobe_clr._ui_thread import calls_done  # noqa: PLC0415

    left = budget

    def give_way() -> None:
        nonlocal left
        if left <= 0:
            return
        began = time.monotonic()
        calls_done(min(GIVE_WAY_STEP, left))
        left -= time.monotonic() - began

    return give_way


def wait(timeout: float | None = None) -> bool:
    """Wait for the compiles under way; True when none runs any more (a stopped probe leaves no
    thread behind: ``wpfprobe detach``)."""
    with _lock:
        threads = list(_threads)
    for thread in threads:
        if thread is not threading.current_thread():
            thread.join(timeout)
    with _lock:
        _threads[:] = [t for t in _threads if t.is_alive()]
        return not _threads
