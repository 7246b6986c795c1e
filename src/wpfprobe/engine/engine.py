"""The toolkit-agnostic inspection engine.

Every public method makes one hop onto the UI thread (invariant 2), where a
``_Hop`` reads the live tree through the adapter and projects it to plain
dicts; pydantic models are built back on the caller's thread so the UI thread
is held no longer than the reads need. Node ids come from the object table,
which only the UI thread touches; cursors live on the caller's side.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Callable, Generator, Sequence
from typing import Any

from wpfprobe.core.app_events import AppEvents
from wpfprobe.core.errors import InvalidArgumentError, PropertyNotFoundError
from wpfprobe.core.models import (
    Ancestor,
    DiagnosticsPage,
    Dispatcher,
    ElementInfo,
    FindResults,
    GeneratedLocator,
    Node,
    Page,
    Property,
    PropertyCondition,
    RuntimeDescription,
    Screenshot,
    SessionInfo,
    Tree,
    Window,
    tree_from_json,
)
from wpfprobe.core.protocol import Capture, ObjectTable, ToolkitAdapter, TreeType, UiThread
from wpfprobe.core.settings import ProbeSettings
from wpfprobe.engine import generating, walked
from wpfprobe.engine.actions import Driver, OsInput
from wpfprobe.engine.base import collection_deferred, process_name
from wpfprobe.engine.checks import MAX_DEPTH, MAX_RESULTS, check_int, check_property_names, check_tree_type
from wpfprobe.engine.cursors import check_take
from wpfprobe.engine.diagnostics import run_diagnostics
from wpfprobe.engine.events import WindowWatch, read_app_events
from wpfprobe.engine.hop import Hop, count_errors, json_tree, rect
from wpfprobe.engine.locators import Compound, parse_locator
from wpfprobe.engine.matching import criteria_compound
from wpfprobe.engine.reading import is_interesting
from wpfprobe.engine.redo import python_value
from wpfprobe.engine.target import Target, Tier
from wpfprobe.engine.why import WhyQueries

log = logging.getLogger("wpfprobe.engine")


class Engine(WhyQueries):
    """Every query of the read tier; ``driver`` holds the interact and mutate operations."""

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
        os_input: OsInput | None = None,
    ) -> None:
        super().__init__(
            adapter=adapter, ui=ui, objects=objects, settings=settings, runtime=runtime, app_name=app_name, same=same
        )
        #: Input, waits and mutation (the interact and mutate tiers).
        self.driver = Driver(self, os_input=os_input)
        self._window_watch = WindowWatch()
        self._closing = threading.Lock()

    def stopping(self) -> None:
        """The probe begins to stop. On the UI thread, the calls waiting for it fail now: it
        cannot answer them before the stop is over, and the stop waits for the server, whose
        shutdown waits for them (``UiThread.close``)."""
        if self.ui.is_ui_thread():
            self.ui.close()

    def close(self) -> None:
        """The probe stops: the audit log closed, every handler the probe added to the app's
        events taken off (``ToolkitAdapter.detach``, bounded by ``ui_timeout``), and no call to
        the UI thread made any more. Never raises. Once only: a second close (a Probe closed by
        hand, then its finalizer) would otherwise release the hooks shared with other probes of
        the app a second time."""
        with self._closing:
            if self.closed:
                return
            self.closed = True
        self.driver.close()
        detach = getattr(self.adapter, "detach", None)  # a test's fake toolkit may have none
        try:
            if detach is not None:
                detach(self.ui, timeout=self.settings.ui_timeout)
        except Exception:
            log.warning("the probe's event handlers could not be taken off the app", exc_info=True)
        finally:
            self.ui.close()

    def session_info(self, *, tier: Tier = "read") -> SessionInfo:
        window_ids = self.hop(lambda h: [h.id(w) for w in h.adapter.roots()])
        from wpfprobe.core.version import __version__  # noqa: PLC0415 - avoid a cycle at import time

        runtime = self.runtime or RuntimeDescription(kind="mono", version="unknown", description="unknown")
        return SessionInfo(
            app_name=self.app_name,
            app_id=self.app_id,
            pid=os.getpid(),
            process_name=process_name(),
            runtime=runtime,
            toolkit=self.adapter.toolkit,
            python_version=sys.version.split()[0],
            wpfprobe_version=__version__,
            tier=tier,
            dispatchers=[Dispatcher(thread_id=self.ui.thread_id, windows=window_ids)],
            capabilities=list(self.adapter.capabilities),
        )

    def windows(self, *, include_hidden: bool = False) -> list[Window]:
        def read(h: Hop) -> list[dict[str, Any]]:
            out = []
            for el in h.adapter.roots():
                node = h.project(el)
                if not include_hidden and not node["visible"]:
                    continue
                bounds = h.bounds_of(el)
                node["title"] = node.get("text")
                node["bounds"] = rect(bounds)
                node["active"] = h.adapter.is_active_window(el)
                out.append(node)
            return out

        return [Window.model_validate(d) for d in self.indexed_hop(read)]

    def tree(
        self,
        target: Target | None = None,
        *,
        max_depth: int = 3,
        tree_type: TreeType = "visual",
        include_properties: Sequence[str] | None = None,
    ) -> Tree:
        # The nodes are made as the JSON's are, with the collector off (``tree_json``).
        with collection_deferred():
            data = self.tree_json(
                target, max_depth=max_depth, tree_type=tree_type, include_properties=include_properties
            )
            return tree_from_json(data)

    def tree_json(
        self,
        target: Target | None = None,
        *,
        max_depth: int = 3,
        tree_type: TreeType = "visual",
        include_properties: Sequence[str] | None = None,
    ) -> dict[str, Any]:
        """``tree`` as its JSON (``Tree.to_json_dict()``), made with no model: what the MCP tool sends.

        A snapshot of thousands of nodes is interpreter time the app's own
        Python handlers wait for (they need the GIL this thread holds): the
        tool sends this, and ``tree`` makes its models from it in pieces.
        """
        check_int("maxDepth", max_depth, 0, MAX_DEPTH)
        check_tree_type(tree_type)
        props = check_property_names(include_properties)
        cap = self.settings.max_tree_nodes

        def read(h: Hop, *, own: bool) -> Generator[None, None, tuple[dict[str, Any], bool, int] | walked.Prepared]:
            root = h.resolve(target) if target is not None else h.main_window()
            if not own:
                prepared = yield from walked.prepare_steps(h, root, max_depth=max_depth, cap=cap)
                if prepared is not None:
                    return prepared  # built below, once the UI thread is let go
            return (yield from h.snapshot_steps(root, max_depth=max_depth, tree_type=tree_type, props=props, cap=cap))

        # The toolkit's walk reads what a node shows; asked-for properties are the engine's to read.
        own = not self.settings.toolkit_walk or bool(props) or tree_type != "visual"
        got = self.sliced(lambda h: read(h, own=own))
        # Python's collector is kept off while the nodes are made: each of the thousands of dicts counts
        # towards its next run, and a run started by them here (a full one: 30 ms with 5,000 controls
        # shown, a hundred and more on a loaded machine) holds the GIL throughout. They are freed as the
        # answer is, and the count goes down with them, so an answer dropped before the collector is
        # back on costs it nothing.
        with collection_deferred():
            snapshot = walked.build(got) if isinstance(got, walked.Prepared) else None
        if snapshot is None:
            if isinstance(got, walked.Prepared):  # the census missed a name: the engine's own path repairs it
                got = self.sliced(lambda h: read(h, own=True))
            assert not isinstance(got, walked.Prepared)
            root, truncated, count = got
            root = json_tree(root)
            snapshot = walked.Snapshot(root, truncated, count, count_errors(root))
        out: dict[str, Any] = {
            "root": snapshot.root,
            "treeType": tree_type,
            "truncated": snapshot.truncated,
            "returnedNodeCount": snapshot.count,
        }
        if snapshot.errors:
            out["errorCount"] = snapshot.errors
        return out

    def children(
        self,
        node_id: str | None = None,
        *,
        tree_type: TreeType = "visual",
        cursor: str | None = None,
        take: int = 50,
    ) -> Page[Node]:
        check_tree_type(tree_type)
        check_take(take)
        scope = f"children:{node_id or ''}:{tree_type}"

        def list_all(h: Hop) -> list[Any]:
            if node_id is None:
                return h.adapter.roots()
            return h.children_of(h.node(node_id), tree_type)

        return self.paged(
            kind="children",
            scope=scope,
            cursor=cursor,
            take=take,
            list_all=lambda h: [(h.id(el), el) for el in list_all(h)],
            project=lambda h, el: h.project(el, tree_type=tree_type),
            model=Node,
        )

    def ancestors(self, target: Target, *, max_levels: int | None = None) -> list[Ancestor]:
        if max_levels is not None:
            check_int("maxLevels", max_levels, 1, 1000)

        def read(h: Hop) -> list[dict[str, Any]]:
            el = h.resolve(target)
            out: list[dict[str, Any]] = []
            parent = h.display_parent(el)
            while parent is not None and (max_levels is None or len(out) < max_levels):
                node = h.project(parent)
                node["dataContextType"] = h.adapter.data_context_type(parent)
                out.append(node)
                parent = h.display_parent(parent)
            return out

        return [Ancestor.model_validate(d) for d in self.indexed_hop(read)]

    def find(
        self,
        *,
        root: Target | None = None,
        locator: str | None = None,
        type_name: str | None = None,
        name: str | None = None,
        automation_id: str | None = None,
        text: str | None = None,
        property_conditions: Sequence[PropertyCondition | dict[str, Any]] = (),
        tree_type: TreeType = "visual",
        max_results: int = 20,
    ) -> FindResults:
        check_int("maxResults", max_results, 1, MAX_RESULTS)
        check_tree_type(tree_type)
        parsed = parse_locator(locator) if locator is not None else None
        criteria = criteria_compound(type_name, name, automation_id, text, property_conditions)
        # A locator that names the logical tree (logical:, menu:) is evaluated there.
        tree: TreeType = "logical" if parsed is not None and parsed.tree_type == "logical" else tree_type

        def read(h: Hop) -> Generator[None, None, dict[str, Any]]:
            scope = [h.resolve(root)] if root is not None else h.adapter.roots()
            if parsed is None:  # a search by type, text or properties walks the scope: in slices
                matches = yield from h.select_compound_steps(
                    scope, criteria or Compound(), tree_type=tree, app_wide=root is None
                )
            else:
                matches = h.evaluate(parsed, scope, tree_type=tree, app_wide=root is None)
                if criteria is not None:
                    matches = [m for m in matches if h.matches(m, criteria)]
            results = [{"node": h.project(el, tree_type=tree), "path": h.path_of(el)} for el in matches[:max_results]]
            return {
                "results": results,
                "totalScanned": h.scanned,
                "truncated": len(matches) > max_results,
                "errorCount": len(h.faults) or None,
            }

        return FindResults.model_validate(self.sliced(read))

    def count(self, target: Target) -> int:
        return self.indexed_hop(lambda h: len(h.resolve_all(target)))

    def resolve_ids(self, target: Target) -> list[str]:
        """Node ids of everything ``target`` matches now (no ambiguity check)."""
        return self.indexed_hop(lambda h: [h.id(el) for el in h.resolve_all(target)])

    def node(self, target: Target) -> Node:
        return Node.model_validate(self.indexed_hop(lambda h: h.project(h.resolve(target))))

    def inspect(self, target: Target) -> ElementInfo:
        def read(h: Hop) -> dict[str, Any]:
            el = h.resolve(target)
            node = h.project(el)
            parent = h.display_parent(el)
            return {
                "node": node,
                "path": h.path_of(el),
                "locator": node["locator"],
                "parent": h.project(parent) if parent is not None else None,
                "bounds": rect(h.bounds_of(el)),
                "dataContextType": h.adapter.data_context_type(el),
                "bindingErrorCount": h.adapter.binding_error_count(el),
            }

        return ElementInfo.model_validate(self.indexed_hop(read))

    def generate_locator(self, target: Target) -> GeneratedLocator:
        """The most stable locator that finds exactly this element now, with every candidate considered."""

        def read(h: Hop) -> dict[str, Any]:
            el = h.resolve(target)
            return {"nodeId": h.id(el), **generating.generate(h, el, all_candidates=True)}

        found = self.indexed_hop(read)
        return GeneratedLocator.model_validate({**found, "python": f"probe.locator({python_value(found['locator'])})"})

    def properties(
        self,
        target: Target,
        *,
        filter: str | None = None,  # noqa: A002 - the tool's argument name
        category: str | None = None,
        include_defaults: bool | None = None,
        cursor: str | None = None,
        take: int = 100,
    ) -> Page[Property]:
        check_take(take)
        for label, value in (("filter", filter), ("category", category)):
            if value is not None and (not isinstance(value, str) or len(value) > 200):
                raise InvalidArgumentError(f"{label} must be a string of at most 200 characters.")
        # A property asked for by name is shown at its default too: "(0 of 0)" would read
        # as if it did not exist (issue 11). Without a filter, defaults are left out.
        defaults = bool(filter) if include_defaults is None else bool(include_defaults)
        scope = f"props:{target.describe()}:{filter or ''}:{category or ''}:{int(defaults)}"

        def list_all(h: Hop) -> Generator[None, None, list[tuple[str, Any]]]:
            el = h.resolve(target)
            rows = []
            for prop in sorted(h.adapter.properties(el), key=lambda p: p.name.lower()):
                if h.slice_due():
                    yield  # a getter may be slow (an app's own): let the UI thread go between rows
                if filter and filter.lower() not in prop.name.lower():
                    continue
                if category and (prop.category or "").lower() != category.lower():
                    continue
                row = h.read_property_row(el, prop)
                if not defaults and not is_interesting(row):
                    continue
                rows.append((prop.name, row))
            return rows

        def project(h: Hop, name_or_row: Any) -> dict[str, Any]:
            if isinstance(name_or_row, dict):
                return name_or_row
            el = h.resolve_once(target)  # a dead element fails the page: NODE_NOT_FOUND
            prop = h.adapter.find_property(el, name_or_row)
            if prop is None:
                return {}
            return h.read_property_row(el, prop)

        return self.paged(
            kind="props", scope=scope, cursor=cursor, take=take,
            list_all=list_all, project=project, model=Property, key_is_value=False,
        )  # fmt: skip

    def property(self, target: Target, name: str) -> Property:
        if not isinstance(name, str) or not name or len(name) > 200:
            raise InvalidArgumentError("propertyName must be a non-empty string.")

        def read(h: Hop) -> dict[str, Any]:
            el = h.resolve(target)
            prop = h.adapter.find_property(el, name)
            if prop is None:
                raise PropertyNotFoundError(
                    f"{h.naming_of(el).type_name} has no property {name!r}.",
                    suggestion="List the element's properties with wpf_get_properties (includeDefaults=true).",
                    detail={"property": name},
                )
            return h.read_property_row(el, prop)

        return Property.model_validate(self.indexed_hop(read))

    def screenshot(self, target: Target | None = None) -> Screenshot:
        def read(h: Hop) -> tuple[str, Capture]:
            el = h.resolve(target) if target is not None else h.main_window()
            return h.id(el), h.adapter.capture(el)

        node_id, capture = self.indexed_hop(read)
        if capture.later is not None:
            capture = capture.later()  # the copy from the screen, off the UI thread
        return Screenshot(node_id=node_id, width=capture.width, height=capture.height, png=to_png(capture))

    def diagnostics(
        self,
        target: Target | None = None,
        *,
        providers: Sequence[str] | None = None,
        min_level: str = "info",
        cursor: str | None = None,
        take: int = 50,
    ) -> DiagnosticsPage:
        """A page of findings under ``target`` (None: every window); see ``_diagnostics``."""
        return run_diagnostics(self, target, providers=providers, min_level=min_level, cursor=cursor, take=take)

    def app_events(self, since_seq: int = 0) -> AppEvents:
        """Exceptions that escaped the app's handlers and windows that opened or closed, after ``since_seq``."""
        return read_app_events(self, self._window_watch, since_seq)


def to_png(capture: Capture) -> bytes:
    if capture.mode == "PNG":
        return capture.data
    import io  # noqa: PLC0415

    from PIL import Image  # noqa: PLC0415

    img = Image.frombuffer("RGBA", (capture.width, capture.height), capture.data, "raw", "BGRA", capture.stride or 0, 1)
    buf = io.BytesIO()
    img.convert("RGB").save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


__all__ = ["Engine", "Target", "Tier"]
