"""The engine's plumbing: settings, the UI thread, node ids, one hop at a time, and paged lists."""

from __future__ import annotations

import gc
import os
import sys
import threading
import time
from collections.abc import Callable, Generator
from typing import Any, TypeVar, cast

from wpfprobe.core.errors import AppNotAvailableError, NodeNotFoundError, ProbeError
from wpfprobe.core.identity import app_id, default_app_name
from wpfprobe.core.identity import slug as slug
from wpfprobe.core.models import Page, RuntimeDescription
from wpfprobe.core.protocol import ObjectTable, ToolkitAdapter, UiThread
from wpfprobe.core.redaction import Redactor
from wpfprobe.core.settings import ProbeSettings
from wpfprobe.core.switching import switches
from wpfprobe.engine.cursors import CursorStore
from wpfprobe.engine.hop import Hop
from wpfprobe.engine.locating import run_whole
from wpfprobe.engine.name_index import NameIndex

T = TypeVar("T")


class EngineBase:
    """State and plumbing every part of the engine shares; ``Engine`` adds the queries."""

    def __init__(
        self,
        *,
        adapter: ToolkitAdapter,
        ui: UiThread,
        objects: ObjectTable,
        settings: ProbeSettings | None = None,
        runtime: RuntimeDescription | None = None,
        app_name: str | None = None,
        same: Callable[[Any, Any], bool] | None = None,
    ) -> None:
        self.settings = settings or ProbeSettings()
        self.ui = ui
        self.objects = objects
        self.redactor = Redactor(enabled=self.settings.redact, extra_keywords=self.settings.extra_redaction_keywords)
        self.thread_violations: list[str] = []
        self.adapter: ToolkitAdapter = (
            cast(ToolkitAdapter, _ThreadCheckedAdapter(adapter, ui, self.thread_violations))
            if self.settings.check_thread_affinity
            else adapter
        )
        self.runtime = runtime
        self.app_name = app_name or default_app_name()
        self.app_id = app_id(self.app_name)
        self.same = same or (lambda a, b: a is b)
        self.cursors = CursorStore(ttl=self.settings.cursor_ttl, max_snapshots=self.settings.max_cursors)
        # Written only on the UI thread, replaced whole.
        self.name_index: NameIndex | None = None
        #: Set once by ``Engine.close``: the probe's handlers are off the app, and it reads no more.
        self.closed = False

    def on_ui(self, fn: Callable[[], T], *, timeout: float) -> T:
        """``fn`` on the UI thread: the engine's every call there goes through this. A closed
        engine refuses: a read would hook the app's events again (the name index's watch) after
        the close took its handlers off."""
        if self.closed:
            raise AppNotAvailableError(
                "This probe was closed: it no longer reads the app.",
                suggestion="Attach again: wpfprobe.attach(app).",
            )
        return self.ui.run(fn, timeout=timeout)

    def hop(self, fn: Callable[[Hop], T]) -> T:
        """Run ``fn`` on the UI thread with a fresh ``Hop``: one hop per request (invariant 2)."""
        with collection_deferred():
            return self.on_ui(lambda: fn(Hop(self)), timeout=self.settings.ui_timeout)

    def sliced(self, start: Callable[[Hop], Generator[None, None, T]]) -> T:
        """Long work in slices of ``settings.ui_slice`` seconds on the UI thread, letting it go between them.

        Each slice is its own post to the UI thread (nothing waits on it: the
        caller's thread does the waiting), so the app paints and takes input
        between slices. The work is consistent only if the tree's structure
        did not change between slices: the adapter's ``structure_version`` is
        read before each slice, and a change starts the work again, up to
        ``slice_attempts`` times; after that (or where the adapter cannot count
        changes, or slicing is off) it is done in one hop, as before. So a
        result is never a mix of two trees, and needs no ``stale`` mark.
        """
        budget = self.settings.ui_slice
        if budget <= 0:
            return self.hop(lambda h: run_whole(start(h)))
        for _attempt in range(self.settings.slice_attempts):
            state: dict[str, Any] = {}

            def step(state: dict[str, Any] = state) -> tuple[str, Any]:
                hop = state.get("hop")
                if hop is None:
                    hop = state["hop"] = Hop(self)
                    state["version"] = self.adapter.structure_version()
                    if state["version"] is None:
                        return "whole", run_whole(start(hop))
                    state["steps"] = self._index_then(hop, start)
                elif self.adapter.structure_version() != state["version"]:
                    return "changed", None
                hop.slice_deadline = time.perf_counter() + budget
                try:
                    next(state["steps"])
                except StopIteration as done:
                    return "done", done.value
                return "more", None

            status, value = "more", None
            # The collector stays off across the slices, not only during each: what a hop keeps between
            # them (a diagnostics walk's items, a snapshot's nodes) would otherwise be promoted by the
            # collections run between slices until a full one ran (30 ms with 5,000 controls shown, on
            # whichever thread allocated next). Freed at the end, it then costs the collector nothing.
            with _AcrossSlices() as held:
                try:
                    while status == "more":
                        held.breathe()
                        status, value = self.on_ui(step, timeout=self.settings.ui_timeout)
                finally:
                    # An error's traceback keeps this frame: it must not keep the hop and what it read
                    # alive (invariant 7; test_closed_window_gives_node_not_found_and_is_collectable).
                    state.clear()
            if status != "changed":
                return cast(T, value)
        return self.hop(lambda h: run_whole(start(h)))

    def indexed_hop(self, fn: Callable[[Hop], T]) -> T:
        """``hop(fn)`` after making the name index current in slices (``fn`` itself is one slice).

        For a short read that resolves or names elements: a rebuild of the
        index (after a change, or every ``name_index_ttl``) is a whole-app walk,
        and would otherwise be one hold.
        """

        def steps(h: Hop) -> Generator[None, None, T]:
            h.slice_deadline = None  # fn runs whole, in the slice that finishes the index
            return fn(h)
            yield  # a generator: sliced() drives it

        return self.sliced(steps)

    @staticmethod
    def _index_then(hop: Hop, start: Callable[[Hop], Generator[None, None, T]]) -> Generator[None, None, T]:
        """The name index made current (in slices: a rebuild is a whole-app walk), then the work.

        The index walk watches every container it meets, so from then on a change
        between slices is counted. Where some container could not be watched (the
        index has no version), the rest is done without letting the UI thread go.
        """
        index = yield from hop.name_index_steps()
        if index.version is None:
            hop.slice_deadline = None
        return (yield from start(hop))

    def paged(
        self,
        *,
        kind: str,
        scope: str,
        cursor: str | None,
        take: int,
        list_all: Callable[[Hop], list[tuple[str, Any]] | Generator[None, None, list[tuple[str, Any]]]],
        project: Callable[[Hop, Any], dict[str, Any]],
        model: type[Any],
        key_is_value: bool = True,
    ) -> Page[Any]:
        """One page of a snapshotted list in one hop.

        On the first page (or a stale cursor) the hop lists everything and
        projects the first ``take``; later pages project only their keys.
        ``key_is_value`` says whether a key is resolvable on its own (a node
        id) or must be re-read through ``project`` (a property name).
        """
        resumed = self.cursors.resume(cursor, kind=kind, scope=scope) if cursor is not None else None
        if resumed is not None and resumed.keys is not None:
            keys = resumed.keys[resumed.offset : resumed.offset + take]

            def read_page(h: Hop) -> list[dict[str, Any]]:
                out = []
                for key in keys:
                    if key_is_value:
                        try:
                            value = h.get(key)
                        except NodeNotFoundError:
                            continue  # this item is gone since the snapshot was taken
                    else:
                        value = key
                    item = project(h, value)
                    if item:
                        out.append(item)
                return out

            items = self.indexed_hop(read_page)
            end = resumed.offset + len(keys)
            total = len(resumed.keys)
            next_cursor = self.cursors.cursor_for(resumed.snapshot_id, end, kind, scope) if end < total else None
            return Page[model](  # type: ignore[valid-type]
                items=[model.model_validate(i) for i in items],
                next_cursor=next_cursor,
                total_count=total,
                has_more=next_cursor is not None,
                stale=False,
                error_count=_errors(items),
            )

        def read_first(h: Hop) -> Generator[None, None, tuple[list[str], list[dict[str, Any]]]]:
            listed = list_all(h)
            # A list_all that is a generator (a whole-app walk) is taken in slices.
            pairs = (yield from listed) if isinstance(listed, Generator) else listed
            first = []
            for _key, value in pairs[:take]:
                if h.slice_due():
                    yield
                item = project(h, value)
                if item:
                    first.append(item)
            return [k for k, _ in pairs], first

        keys_all, items = self.sliced(read_first)
        sid = self.cursors.save(kind, scope, keys_all)
        next_cursor = self.cursors.cursor_for(sid, take, kind, scope) if take < len(keys_all) else None
        return Page[model](  # type: ignore[valid-type]
            items=[model.model_validate(i) for i in items],
            next_cursor=next_cursor,
            total_count=len(keys_all),
            has_more=next_cursor is not None,
            stale=resumed is not None,
            error_count=_errors(items),
        )


class _Deferral:
    """Python's cyclic garbage collector held off while the probe's work runs on the UI thread.

    A full collection in a process hosting a CLR takes tens of milliseconds
    here (31 ms measured with 5,000 controls shown), and it runs on whichever
    thread's allocation crosses the threshold: during a probe hop that is
    the UI thread, which then cannot paint or take input for that long. So
    the collector is off from just before a hop is posted until it returns
    (across all the slices of sliced work, ``_AcrossSlices``), and switched
    back on by the calling thread, whose next allocation runs the pending
    collection there. Nested and concurrent hops share one
    deferral; a collector the app itself switched off stays off.

    For as long, the interpreter's switch interval is short (``core.switching``): this is when
    the probe runs Python beside the app's (the slices, the answer made and sent), and an app's
    handler waiting for the GIL gets it after 1 ms of the probe's Python instead of 5.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._depth = 0
        self._was_enabled = False

    def __enter__(self) -> None:
        with self._lock:
            if self._depth == 0:
                self._was_enabled = gc.isenabled()
                gc.disable()
                switches.enter()
            self._depth += 1

    def __exit__(self, *_exc: object) -> None:
        with self._lock:
            self._depth -= 1
            if self._depth == 0:
                switches.exit()
                if self._was_enabled:
                    gc.enable()


_deferral = _Deferral()

#: Seconds the collector stays off across the slices of one piece of work (``_AcrossSlices``), at most.
MAX_DEFERRAL = 5.0


class _AcrossSlices:
    """The process's deferral held across the slices of one piece of work, for ``MAX_DEFERRAL`` at most.

    Past that (a long walk, a UI thread slow to answer), the collector is let
    run between two slices, on the caller's thread, and deferred again: the
    app's own garbage is never left uncollected for long.
    """

    def __enter__(self) -> _AcrossSlices:
        _deferral.__enter__()
        self._since = time.monotonic()
        return self

    def breathe(self) -> None:
        if time.monotonic() - self._since < MAX_DEFERRAL:
            return
        _deferral.__exit__()
        _allocated: list[list[int]] = [[]]  # an allocation: whatever collection is due runs here, between slices
        del _allocated
        _deferral.__enter__()
        self._since = time.monotonic()

    def __exit__(self, *_exc: object) -> None:
        _deferral.__exit__()


def collection_deferred() -> _Deferral:
    """The process's one deferral of garbage collection (see ``_Deferral``), as a context manager."""
    return _deferral


def _errors(items: list[dict[str, Any]]) -> int | None:
    """Items of a page that carry an ``error`` (a node or a property that could not be read in full)."""
    return sum(1 for item in items if item.get("error")) or None


def process_name() -> str:
    try:
        with open(f"/proc/{os.getpid()}/comm", encoding="utf-8") as fh:
            return fh.read().strip()
    except OSError:
        return os.path.basename(sys.executable)


#: The adapter's methods called off the UI thread (they go there through the UiThread they are given).
_OFF_UI_THREAD = frozenset({"detach"})


class _ThreadCheckedAdapter:
    """Wraps an adapter so any call off the UI thread fails loudly and is recorded."""

    def __init__(self, inner: ToolkitAdapter, ui: UiThread, violations: list[str]) -> None:
        self._inner = inner
        self._ui = ui
        self._violations = violations
        self.toolkit = inner.toolkit
        self.capabilities = inner.capabilities
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if not callable(attr) or name in _OFF_UI_THREAD:
            return attr

        def checked(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            if not self._ui.is_ui_thread():
                message = f"adapter.{name} called on thread {threading.get_ident()}, not the UI thread"
                self._violations.append(message)
                raise ProbeError(message, code="INTERNAL")
            return attr(*args, **kwargs)

        return checked
