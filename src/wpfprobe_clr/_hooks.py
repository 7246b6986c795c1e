"""The handlers the probe adds to the app's .NET events, and taking them off when it stops.

An app may be attached to and detached from many times over its life
(``wpfprobe attach``/``detach``, or ``start()``/``stop()`` and start again):
every handler an attach adds must come off at the stop, or each attach adds
one more set, each run on every event of the app. So whatever adds a handler
says here how to take it off (``Hooks.added``), and the adapter's ``detach``
takes all of them off (``take_off``) in one call to the UI thread: a control's
handler list belongs to its thread, and no other thread of the probe's may
call into the CLR (Mono's exit waits for every thread that ever did, and the
ending thread of ``wpfprobe run`` lives as long as the process: an unhook run
there hung the app's exit). Nor may it let go of one: an unhook holds .NET objects
(its delegate, the event's owner), and pythonnet frees one, on the thread that
drops the last reference, by calling into the CLR; so the unhooks are dropped
on the UI thread as they run, or kept. A stop never waits past the probe's ui timeout:

- the UI thread is busy past the timeout: the call never runs (``UiThread``
  drops a call that timed out); the handlers stay on, and the next attach takes
  them off on its UI thread before it hooks anything (``take_off_left``).
- the UI thread has ended: the objects of that UI went with it and raise
  nothing any more; the handlers on the UI loop's end come off at the exit
  (``_exit``), the others stay where they are (held, never run: ``_kept``).

Meanwhile a handler still on finds its set no longer ``live`` and does nothing.

Two owners: each adapter has its own ``Hooks`` (the UI loop's end, the
structure counters), and the process has ``SHARED``, the hooks every probe
attached to it shares, added once (the app's exception events, the bindings'
error events, WPF's binding trace): taken off when the last adapter that uses
them (``acquire``) is detached (``release``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from typing import Any

from wpfprobe.core.errors import AppNotAvailableError
from wpfprobe_clr import _exit

Unhook = Callable[[], None]

log = logging.getLogger("wpfprobe.clr")


class Hooks:
    """The handlers one owner added, each with what takes it off."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._unhooks: list[Unhook] = []
        self._at_exit: list[Unhook] = []
        #: False once taken off: a handler that could not be is guarded by it.
        self.live = True

    def added(self, unhook: Unhook, *, at_exit: bool = False) -> None:
        """Note a handler just added; ``unhook`` takes it off on the UI thread. ``at_exit``: taken
        off at the process's exit as well, before pythonnet shuts down (``_exit``: the UI loop's
        end, which that shutdown raises), unless a stop took it off before."""
        with self._lock:
            self._unhooks.append(unhook)
            if at_exit:
                self._at_exit.append(unhook)
        if at_exit:
            _exit.on_exit(unhook)

    def _take_into(self, unhooks: list[Unhook], at_exit: list[Unhook]) -> None:
        """Move this set's unhooks to the lists given (no other reference is left: see ``take_off``)."""
        with self._lock:
            unhooks += self._unhooks
            at_exit += self._at_exit
            self._unhooks.clear()
            self._at_exit.clear()
            self.live = False

    def __len__(self) -> int:
        with self._lock:
            return len(self._unhooks)


SHARED = Hooks()
"""The hooks every probe attached to this process shares (see the module doc)."""
_users_lock = threading.Lock()
_users = 0
_left: list[Unhook] = []
"""What a stop could not take off, the UI thread being busy: the next attach does (``take_off_left``)."""
_kept: list[Unhook] = []
"""What a stop could not take off, the UI thread having ended: never run, and held to the process's
end so that no other thread lets go of its .NET objects (``take_off``)."""


def acquire() -> None:
    """An adapter is made: it uses ``SHARED`` until it is detached."""
    global _users
    with _users_lock:
        _users += 1
        SHARED.live = True


def release() -> list[Hooks]:
    """An adapter is detached: ``[SHARED]`` if it was the last to use it (to take off), else []."""
    global _users
    with _users_lock:
        _users = max(0, _users - 1)
        return [SHARED] if _users == 0 else []


def take_off(sets: Iterable[Hooks], ui: Any, *, timeout: float) -> bool:
    """Take off every handler of ``sets`` in one call to the UI thread, waiting at most ``timeout``
    seconds for it; True if they all came off. Never raises (a stop goes on whatever happens here).

    The calling thread never lets go of an unhook either: each holds .NET objects (the delegate,
    the event's owner), and the last reference to one dropped on a thread frees it there, through
    pythonnet, which is a call into the CLR: Mono's exit then waits for that thread (the ending
    thread of ``wpfprobe run`` waits for good; the app hung at exit). So the unhooks are let go on
    the UI thread as they run, and kept (``_left``, ``_kept``) when they cannot run.

    ``SHARED`` (in ``sets`` when its last user was released) is taken only then, on the UI thread,
    if no attach has acquired it meanwhile: a dropped Probe's stop runs on a thread of its own and
    may meet the next attach, which found the hooks still on and added none."""
    unhooks: list[Unhook] = []
    at_exit: list[Unhook] = []
    shared = False
    for hooks in sets:
        if hooks is SHARED:
            shared = True
        else:
            hooks._take_into(unhooks, at_exit)
    if not unhooks and not (shared and len(SHARED)):
        return True

    def take_shared() -> None:
        if shared:
            with _users_lock:
                if _users == 0:
                    SHARED._take_into(unhooks, at_exit)

    def on_ui_thread() -> None:
        take_shared()
        for unhook in at_exit:
            _exit.forget(unhook)
        at_exit.clear()
        _run(unhooks)

    try:
        ui.run(on_ui_thread, timeout=timeout)
    except AppNotAvailableError:
        # The UI thread has ended (or the app is exiting): its objects went with it, and raise
        # nothing any more. What is on the loop's end comes off at the exit (``_exit``).
        take_shared()
        with _users_lock:
            _kept.extend(unhooks)
        unhooks.clear()
        return False
    except Exception:  # noqa: BLE001 - busy past the timeout: that call never runs
        take_shared()
        with _users_lock:
            _left.extend(unhooks)
        log.info(
            "the app's UI thread did not answer within %g s: %d of the probe's event handlers stay on the "
            "app (doing nothing) until the next attach takes them off",
            timeout,
            len(unhooks),
        )
        unhooks.clear()
        return False
    return True


def take_off_left() -> None:
    """On the UI thread, first thing at an attach: take off what an earlier stop could not."""
    with _users_lock:
        left = list(_left)
        _left.clear()
    _run(left)  # let go of here, on the UI thread


def _run(unhooks: list[Unhook]) -> None:
    """Run and let go of each unhook, here on the UI thread (see ``take_off``), emptying the list."""
    unhooks.reverse()
    while unhooks:
        unhook = unhooks.pop()
        try:
            unhook()
        except Exception:
            log.debug("a handler could not be taken off", exc_info=True)
        del unhook
