"""The toolkit-agnostic inspection engine.

Every public method makes one hop onto the UI thread (invariant 2), where a
``_Hop`` reads the live tree through the adapter and projects it to plain
dicts; pydantic models are built back on the caller's thread so the UI thread
is held no longer than the reads need. Node ids come from the object table,
which only the UI thread touches; cursors live on the caller's side.
"""

from __future__ import annotations

import itertools
import os
import sys
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Literal, TypeVar

from wpfprobe.engine.actions import Driver, OsInput
from wpfprobe.core.protocol import (
    BindingDescription,
    BindingErrorRecord,
    Capture,
    Naming,
    ObjectTable,
    PlainValue,
    PropertyDescriptor,
    ResourceEntry,
    ToolkitAdapter,
    TreeType,
    TriggerDescription,
    UiThread,
    Unsupported,
)
from wpfprobe.engine.cursors import CursorStore, check_take
from wpfprobe.engine.diagnostics import run_diagnostics
from wpfprobe.core.errors import (
    InvalidArgumentError,
    LocatorAmbiguousError,
    LocatorNotFoundError,
    NodeNotFoundError,
    ProbeError,
    PropertyNotFoundError,
)
from wpfprobe.engine.locators import (
    AttrTest,
    Compound,
    PathLocator,
    Selector,
    format_ident,
    format_segment,
    parse_locator,
)
from wpfprobe.core.models import (
    Ancestor,
    DiagnosticsPage,
    BehaviorList,
    BindingErrorInfo,
    BindingInfo,
    Dispatcher,
    ElementInfo,
    FindResult,
    FindResults,
    Node,
    Page,
    Property,
    PropertyCondition,
    Rect,
    ResourceInfo,
    ResourcePage,
    RuntimeDescription,
    Screenshot,
    SessionInfo,
    Tree,
    TriggerList,
    Window,
)
from wpfprobe.core.redaction import REDACTED, Redactor
from wpfprobe.core.settings import ProbeSettings

T = TypeVar("T")

MAX_DEPTH = 10
MAX_RESULTS = 100
MAX_INCLUDED_PROPERTIES = 10
MAX_CANDIDATES_LISTED = 10
_TREE_TYPES = ("visual", "logical")

Tier = Literal["read", "interact", "mutate"]


@dataclass(frozen=True, slots=True)
class Target:
    """How a caller names one element: a node id, or locators applied in turn.

    Each locator after the first searches the descendants of the single element
    the previous one found; ``nth`` picks among the final matches.
    """

    node_id: str | None = None
    locators: tuple[str, ...] = ()
    nth: int | None = None

    def __post_init__(self) -> None:
        if self.node_id is None and not self.locators:
            raise InvalidArgumentError(
                "Give either nodeId or locator to name an element.",
                suggestion="Take a nodeId from wpf_get_windows or wpf_find_elements, or pass a locator.",
            )
        if self.node_id is not None and self.locators:
            raise InvalidArgumentError(
                "Give nodeId or locator, not both.",
                suggestion="Pass only one of nodeId and locator.",
            )
        if self.node_id is not None and not isinstance(self.node_id, str):
            raise InvalidArgumentError("nodeId must be a string.", suggestion="Pass a nodeId as returned.")

    def describe(self) -> str:
        if self.node_id is not None:
            return f"node {self.node_id}"
        text = " >> ".join(self.locators)
        return f"{text}:nth({self.nth})" if self.nth is not None else text


class Engine:
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
        self.settings = settings or ProbeSettings()
        self.ui = ui
        self.objects = objects
        self.redactor = Redactor(
            enabled=self.settings.redact, extra_keywords=self.settings.extra_redaction_keywords
        )
        self.thread_violations: list[str] = []
        self.adapter: ToolkitAdapter = (
            _ThreadCheckedAdapter(adapter, ui, self.thread_violations)  # type: ignore[assignment]
            if self.settings.check_thread_affinity
            else adapter
        )
        self.runtime = runtime
        self.app_name = app_name or _default_app_name()
        self.app_id = f"{_slug(self.app_name)}-{os.getpid()}"
        self._same = same or (lambda a, b: a is b)
        self.cursors = CursorStore(ttl=self.settings.cursor_ttl, max_snapshots=self.settings.max_cursors)
        # Written only on the UI thread, replaced whole: (when, counts).
        self._census_cache: tuple[float, Counter[tuple[str, str]]] | None = None
        #: Input, waits and mutation (the interact and mutate tiers).
        self.driver = Driver(self, os_input=os_input)

    # -- plumbing ------------------------------------------------------
    def _hop(self, fn: Callable[[_Hop], T]) -> T:
        return self.ui.run(lambda: fn(_Hop(self)), timeout=self.settings.ui_timeout)

    # -- session -------------------------------------------------------
    def session_info(self, *, tier: Tier = "read") -> SessionInfo:
        window_ids = self._hop(lambda h: [h.id(w) for w in h.adapter.roots()])
        from wpfprobe.core.version import __version__  # noqa: PLC0415 - avoid a cycle at import time

        runtime = self.runtime or RuntimeDescription(kind="mono", version="unknown", description="unknown")
        return SessionInfo(
            app_name=self.app_name,
            app_id=self.app_id,
            pid=os.getpid(),
            process_name=_process_name(),
            runtime=runtime,
            toolkit=self.adapter.toolkit,
            python_version=sys.version.split()[0],
            wpfprobe_version=__version__,
            tier=tier,
            dispatchers=[Dispatcher(thread_id=self.ui.thread_id, windows=window_ids)],
            capabilities=list(self.adapter.capabilities),
        )

    # -- windows and trees ---------------------------------------------
    def windows(self, *, include_hidden: bool = False) -> list[Window]:
        def read(h: _Hop) -> list[dict[str, Any]]:
            out = []
            for el in h.adapter.roots():
                node = h.project(el)
                if not include_hidden and not node["visible"]:
                    continue
                bounds = h.adapter.bounds(el)
                node["title"] = node.get("text")
                node["bounds"] = _rect(bounds)
                node["active"] = h.adapter.is_active_window(el)
                out.append(node)
            return out

        return [Window.model_validate(d) for d in self._hop(read)]

    def tree(
        self,
        target: Target | None = None,
        *,
        max_depth: int = 3,
        tree_type: TreeType = "visual",
        include_properties: Sequence[str] | None = None,
    ) -> Tree:
        _check_int("maxDepth", max_depth, 0, MAX_DEPTH)
        _check_tree_type(tree_type)
        props = _check_property_names(include_properties)
        cap = self.settings.max_tree_nodes

        def read(h: _Hop) -> tuple[dict[str, Any], bool, int]:
            root = h.resolve(target) if target is not None else h.main_window()
            return h.snapshot(root, max_depth=max_depth, tree_type=tree_type, props=props, cap=cap)

        root, truncated, count = self._hop(read)
        return Tree(root=Node.model_validate(root), tree_type=tree_type, truncated=truncated, returned_node_count=count)

    def children(
        self,
        node_id: str | None = None,
        *,
        tree_type: TreeType = "visual",
        cursor: str | None = None,
        take: int = 50,
    ) -> Page[Node]:
        _check_tree_type(tree_type)
        check_take(take)
        scope = f"children:{node_id or ''}:{tree_type}"

        def list_all(h: _Hop) -> list[Any]:
            if node_id is None:
                return h.adapter.roots()
            return h.adapter.children(h.node(node_id), tree_type)

        return self._paged(
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
            _check_int("maxLevels", max_levels, 1, 1000)

        def read(h: _Hop) -> list[dict[str, Any]]:
            el = h.resolve(target)
            out = []
            parent = h.adapter.parent(el, "visual")
            while parent is not None and (max_levels is None or len(out) < max_levels):
                node = h.project(parent)
                node["dataContextType"] = h.adapter.data_context_type(parent)
                out.append(node)
                parent = h.adapter.parent(parent, "visual")
            return out

        return [Ancestor.model_validate(d) for d in self._hop(read)]

    # -- search --------------------------------------------------------
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
        _check_int("maxResults", max_results, 1, MAX_RESULTS)
        _check_tree_type(tree_type)
        parsed = parse_locator(locator) if locator is not None else None
        criteria = _criteria_compound(type_name, name, automation_id, text, property_conditions)

        def read(h: _Hop) -> dict[str, Any]:
            scope = [h.resolve(root)] if root is not None else h.adapter.roots()
            if parsed is None:
                matches = h.select_compound(scope, criteria or Compound(), tree_type=tree_type)
            else:
                matches = h.evaluate(parsed, scope, tree_type=tree_type)
                if criteria is not None:
                    matches = [m for m in matches if h.matches(m, criteria)]
            results = [
                {"node": h.project(el, tree_type=tree_type), "path": h.path_of(el)}
                for el in matches[:max_results]
            ]
            return {"results": results, "totalScanned": h.scanned, "truncated": len(matches) > max_results}

        return FindResults.model_validate(self._hop(read))

    def count(self, target: Target) -> int:
        return self._hop(lambda h: len(h.resolve_all(target)))

    def resolve_ids(self, target: Target) -> list[str]:
        """Node ids of everything ``target`` matches now (no ambiguity check)."""
        return self._hop(lambda h: [h.id(el) for el in h.resolve_all(target)])

    # -- one element ---------------------------------------------------
    def node(self, target: Target) -> Node:
        return Node.model_validate(self._hop(lambda h: h.project(h.resolve(target))))

    def inspect(self, target: Target) -> ElementInfo:
        def read(h: _Hop) -> dict[str, Any]:
            el = h.resolve(target)
            node = h.project(el)
            parent = h.adapter.parent(el, "visual")
            return {
                "node": node,
                "path": h.path_of(el),
                "locator": node["locator"],
                "parent": h.project(parent) if parent is not None else None,
                "bounds": _rect(h.adapter.bounds(el)),
                "dataContextType": h.adapter.data_context_type(el),
                "bindingErrorCount": h.adapter.binding_error_count(el),
            }

        return ElementInfo.model_validate(self._hop(read))

    def properties(
        self,
        target: Target,
        *,
        filter: str | None = None,  # noqa: A002 - the tool's argument name
        category: str | None = None,
        include_defaults: bool = False,
        cursor: str | None = None,
        take: int = 100,
    ) -> Page[Property]:
        check_take(take)
        for label, value in (("filter", filter), ("category", category)):
            if value is not None and (not isinstance(value, str) or len(value) > 200):
                raise InvalidArgumentError(f"{label} must be a string of at most 200 characters.")
        scope = f"props:{target.describe()}:{filter or ''}:{category or ''}:{int(bool(include_defaults))}"

        def list_all(h: _Hop) -> list[tuple[str, Any]]:
            el = h.resolve(target)
            rows = []
            for prop in sorted(h.adapter.properties(el), key=lambda p: p.name.lower()):
                if filter and filter.lower() not in prop.name.lower():
                    continue
                if category and (prop.category or "").lower() != category.lower():
                    continue
                row = h.read_property_row(el, prop)
                if not include_defaults and not _is_interesting(row):
                    continue
                rows.append((prop.name, row))
            return rows

        def project(h: _Hop, name_or_row: Any) -> dict[str, Any]:
            if isinstance(name_or_row, dict):
                return name_or_row
            el = h.resolve_once(target)  # a dead element fails the page: NODE_NOT_FOUND
            prop = h.adapter.find_property(el, name_or_row)
            if prop is None:
                return {}
            return h.read_property_row(el, prop)

        return self._paged(
            kind="props", scope=scope, cursor=cursor, take=take,
            list_all=list_all, project=project, model=Property, key_is_value=False,
        )  # fmt: skip

    def property(self, target: Target, name: str) -> Property:
        if not isinstance(name, str) or not name or len(name) > 200:
            raise InvalidArgumentError("propertyName must be a non-empty string.")

        def read(h: _Hop) -> dict[str, Any]:
            el = h.resolve(target)
            prop = h.adapter.find_property(el, name)
            if prop is None:
                raise PropertyNotFoundError(
                    f"{h.adapter.naming(el).type_name} has no property {name!r}.",
                    suggestion="List the element's properties with wpf_get_properties (includeDefaults=true).",
                    detail={"property": name},
                )
            return h.read_property_row(el, prop)

        return Property.model_validate(self._hop(read))

    def screenshot(self, target: Target | None = None) -> Screenshot:
        def read(h: _Hop) -> tuple[str, Capture]:
            el = h.resolve(target) if target is not None else h.main_window()
            return h.id(el), h.adapter.capture(el)

        node_id, capture = self._hop(read)
        return Screenshot(node_id=node_id, width=capture.width, height=capture.height, png=_to_png(capture))

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

    # -- why is my UI wrong -----------------------------------------------
    def binding_info(self, target: Target, property_name: str) -> BindingInfo:
        """The binding behind ``property_name``, with the value it resolved to (redaction applied).

        A property that is not data-bound answers ``is_bound=False`` (status
        "not-bound") rather than failing: that is itself the answer to "why".
        """
        _check_name("propertyName", property_name)

        def read(h: _Hop) -> dict[str, Any]:
            el = h.resolve(target)
            prop = h.require_property(el, property_name)
            return h.binding_row(el, prop, h.adapter.binding(el, prop), with_value=True)

        return BindingInfo.model_validate(self._hop(read))

    def bindings(self, target: Target) -> list[BindingInfo]:
        """Every data-bound property of the element, each as ``binding_info`` gives it."""

        def read(h: _Hop) -> list[dict[str, Any]]:
            el = h.resolve(target)
            rows = []
            for desc in h.adapter.bindings(el):
                found = h.adapter.find_property(el, desc.property_name)
                # An attached or hidden property may have no descriptor: describe it, read nothing.
                prop = found or PropertyDescriptor(desc.property_name, desc.property_type_name, None, True)
                rows.append(h.binding_row(el, prop, desc, with_value=found is not None))
            return rows

        return [BindingInfo.model_validate(r) for r in self._hop(read)]

    def binding_errors(self, target: Target) -> list[BindingErrorInfo]:
        """Binding errors recorded for the element (and those its bindings are in now)."""

        def read(h: _Hop) -> list[dict[str, Any]]:
            el = h.resolve(target)
            return [h.error_row(el, rec) for rec in h.errors_of(el)]

        return [BindingErrorInfo.model_validate(r) for r in self._hop(read)]

    def resources(
        self,
        target: Target | None = None,
        *,
        resource_key: str | None = None,
        cursor: str | None = None,
        take: int = 50,
    ) -> ResourcePage:
        """Resource keys visible from the element (none: the application's), closest first.

        Each key says where it was found and whether it is the effective one
        or shadowed by a closer definition. A toolkit without resource
        dictionaries answers ``supported=False`` with a note, not an empty page.
        """
        check_take(take)
        if resource_key is not None:
            _check_name("resourceKey", resource_key)
        scope = f"resources:{target.describe() if target is not None else ''}:{resource_key or ''}"
        unsupported: list[str] = []

        def all_rows(h: _Hop) -> dict[str, dict[str, Any]]:
            key = ("resources", target)
            if key not in h._memo:
                found = h.adapter.resources(h.resolve(target) if target is not None else None)
                if isinstance(found, Unsupported):
                    unsupported.append(found.reason)
                    h._memo[key] = {}
                else:
                    h._memo[key] = h.resource_rows(found, resource_key)
            rows: dict[str, dict[str, Any]] = h._memo[key]
            return rows

        def list_all(h: _Hop) -> list[tuple[str, Any]]:
            return list(all_rows(h).items())

        def project(h: _Hop, key_or_row: Any) -> dict[str, Any]:
            row = key_or_row if isinstance(key_or_row, dict) else all_rows(h).get(key_or_row)
            return h.resource_item(row) if row is not None else {}

        page = self._paged(
            kind="resources", scope=scope, cursor=cursor, take=take,
            list_all=list_all, project=project, model=ResourceInfo, key_is_value=False,
        )  # fmt: skip
        if unsupported:
            return ResourcePage(items=[], total_count=0, has_more=False, supported=False, note=unsupported[0])
        return ResourcePage(
            items=page.items, next_cursor=page.next_cursor, total_count=page.total_count,
            has_more=page.has_more, stale=page.stale,
        )  # fmt: skip

    def triggers(self, target: Target) -> TriggerList:
        """Triggers from the element's style (and BasedOn chain), template and own Triggers, evaluated now."""

        def read(h: _Hop) -> dict[str, Any]:
            el = h.resolve(target)
            found = h.adapter.triggers(el, h.may_read)
            node = h.project(el)
            if isinstance(found, Unsupported):
                return {"node": node, "supported": False, "note": found.reason}
            return {"node": node, "triggers": [h.trigger_row(t) for t in found]}

        return TriggerList.model_validate(self._hop(read))

    def behaviors(self, target: Target) -> BehaviorList:
        """Attached behaviors and interaction triggers of the element."""

        def read(h: _Hop) -> dict[str, Any]:
            el = h.resolve(target)
            found = h.adapter.behaviors(el, h.may_read)
            node = h.project(el)
            if isinstance(found, Unsupported):
                return {"node": node, "supported": False, "note": found.reason}
            rows = [
                {
                    "kind": b.kind,
                    "typeName": b.type_name,
                    "assemblyName": b.assembly_name,
                    "properties": {
                        name: REDACTED if h.name_secret(name) else value for name, value in b.properties
                    },
                    "actions": list(b.actions),
                }
                for b in found
            ]
            return {"node": node, "behaviors": rows}

        return BehaviorList.model_validate(self._hop(read))

    # -- paging ----------------------------------------------------------
    def _paged(
        self,
        *,
        kind: str,
        scope: str,
        cursor: str | None,
        take: int,
        list_all: Callable[[_Hop], list[tuple[str, Any]]],
        project: Callable[[_Hop, Any], dict[str, Any]],
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

            def read_page(h: _Hop) -> list[dict[str, Any]]:
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

            items = self._hop(read_page)
            end = resumed.offset + len(keys)
            total = len(resumed.keys)
            next_cursor = self.cursors.cursor_for(resumed.snapshot_id, end, kind, scope) if end < total else None
            return Page[model](  # type: ignore[valid-type]
                items=[model.model_validate(i) for i in items],
                next_cursor=next_cursor, total_count=total, has_more=next_cursor is not None, stale=False,
            )  # fmt: skip

        def read_first(h: _Hop) -> tuple[list[str], list[dict[str, Any]]]:
            pairs = list_all(h)
            first = []
            for _key, value in pairs[:take]:
                item = project(h, value)
                if item:
                    first.append(item)
            return [k for k, _ in pairs], first

        keys_all, items = self._hop(read_first)
        sid = self.cursors.save(kind, scope, keys_all)
        next_cursor = self.cursors.cursor_for(sid, take, kind, scope) if take < len(keys_all) else None
        return Page[model](  # type: ignore[valid-type]
            items=[model.model_validate(i) for i in items],
            next_cursor=next_cursor, total_count=len(keys_all), has_more=next_cursor is not None,
            stale=resumed is not None,
        )  # fmt: skip


class _Hop:
    """What one UI-thread hop needs: the adapter, ids, and per-hop memos."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.adapter = engine.adapter
        self.objects = engine.objects
        self.redactor = engine.redactor
        self.same = engine._same
        self.scanned = 0
        self._census: Counter[tuple[str, str]] | None = None
        self._memo: dict[Any, Any] = {}
        self._locs: dict[str, _Loc] = {}
        self._sibling_indexes: dict[str, dict[str, int]] = {}

    # -- ids -------------------------------------------------------------
    def id(self, el: Any) -> str:
        return self.objects.id_for(el)

    def get(self, node_id: str) -> Any:
        return self.node(node_id)

    def node(self, node_id: str) -> Any:
        if not isinstance(node_id, str) or not node_id or len(node_id) > 64:
            raise InvalidArgumentError(
                f"{node_id!r} is not a node id.",
                suggestion="Pass a nodeId exactly as an earlier result gave it.",
            )
        el = self.objects.get(node_id)
        if el is None or not self.adapter.is_alive(el):
            raise NodeNotFoundError(
                f"No live element has node id {node_id!r}; it was closed, removed or never existed.",
                suggestion="Get fresh ids with wpf_get_windows or wpf_find_elements, or use a locator.",
                detail={"nodeId": node_id},
            )
        return el

    def main_window(self) -> Any:
        roots = self.adapter.roots()
        if not roots:
            raise NodeNotFoundError(
                "The app has no open window.",
                suggestion="Wait for the app to show a window, then call wpf_get_windows.",
            )
        return roots[0]

    # -- resolution ------------------------------------------------------
    def resolve(self, target: Target) -> Any:
        return self._one(self.resolve_all(target), target.describe())

    def resolve_once(self, target: Target) -> Any:
        """``resolve``, memoised for the rest of this hop."""
        key = ("resolved", target)
        if key not in self._memo:
            self._memo[key] = self.resolve(target)
        return self._memo[key]

    def _one(self, matches: list[Any], described: str) -> Any:
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise LocatorNotFoundError(
                f"Nothing matches {described!r}.",
                suggestion="Check the locator with wpf_find_elements, or look at wpf_get_visual_tree.",
                detail={"locator": described, "scanned": self.scanned},
            )
        listed = [{"nodeId": self.id(m), "locator": self.locator_of(m)} for m in matches[:MAX_CANDIDATES_LISTED]]
        raise LocatorAmbiguousError(
            f"{len(matches)} elements match {described!r}; an action needs exactly one.",
            suggestion="Use one candidate's locator or nodeId, or add :nth(i) to pick one.",
            detail={"count": len(matches), "candidates": listed},
        )

    def resolve_all(self, target: Target) -> list[Any]:
        if target.node_id is not None:
            matches = [self.node(target.node_id)]
        else:
            first, *rest = target.locators
            loc = parse_locator(first)
            tree: TreeType = loc.tree_type if isinstance(loc, Selector) else "visual"
            matches = self.evaluate(loc, self.adapter.roots(), tree_type=tree)
            for i, text in enumerate(rest):
                # Each further locator searches inside the one element found so far.
                parent = self._one(matches, " >> ".join(target.locators[: i + 1]))
                matches = self.evaluate(
                    parse_locator(text), self.adapter.children(parent, "visual"), tree_type="visual", anchored=parent
                )
        if target.nth is not None:
            try:
                return [matches[target.nth]]
            except IndexError:
                return []
        return matches

    def evaluate(
        self, loc: Selector | PathLocator, scope: list[Any], *, tree_type: TreeType, anchored: Any = None
    ) -> list[Any]:
        if isinstance(loc, PathLocator):
            return self.evaluate_path(loc, scope if anchored is None else [anchored], relative=anchored is not None)
        matches: list[Any] = []
        for i, (combinator, compound) in enumerate(loc.steps):
            if i == 0:
                found = self.select_compound(scope, compound, tree_type=tree_type, apply_nth=False)
            else:
                found = []
                seen: list[Any] = []
                for cand in matches:
                    pool = (
                        self.adapter.children(cand, tree_type)
                        if combinator == ">"
                        else list(self.descendants(cand, tree_type))
                    )
                    for el in pool:
                        self.scanned += combinator == ">"
                        if self.matches(el, compound) and not any(self.same(el, s) for s in seen):
                            found.append(el)
                            seen.append(el)
            matches = _pick(found, compound)
        return matches

    def evaluate_path(self, loc: PathLocator, scope: list[Any], *, relative: bool) -> list[Any]:
        first, rest = loc.segments[0], loc.segments[1:]
        if first.ident is not None and not relative:
            # A named first segment anchors anywhere in the app, like a selector.
            compound = Compound(type_name=first.type_name, ident=first.ident)
            current = self.select_compound(scope, compound, tree_type="visual")
            if first.index is not None:
                current = current[first.index : first.index + 1]
            elif len(current) > 1:
                return current  # ambiguous: resolve() reports the candidates
        else:
            pool = scope if not relative else self.adapter.children(scope[0], "visual")
            current = self._segment_pick(pool, first)
        for seg in rest:
            if len(current) != 1:
                return []
            current = self._segment_pick(self.adapter.children(current[0], "visual"), seg)
        return current

    def _segment_pick(self, pool: list[Any], seg: Any) -> list[Any]:
        compound = Compound(type_name=seg.type_name, ident=seg.ident)
        hits = []
        for el in pool:
            self.scanned += 1
            if self.matches(el, compound):
                hits.append(el)
        index = seg.index or 0
        return hits[index : index + 1]

    def select_compound(
        self, scope: list[Any], compound: Compound, *, tree_type: TreeType, apply_nth: bool = True
    ) -> list[Any]:
        found = [el for el in self.walk(scope, tree_type) if self.matches(el, compound)]
        return _pick(found, compound) if apply_nth else found

    def walk(self, scope: list[Any], tree_type: TreeType) -> Iterator[Any]:
        stack = list(reversed(scope))
        while stack:
            el = stack.pop()
            self.scanned += 1
            yield el
            stack.extend(reversed(self.adapter.children(el, tree_type)))

    def descendants(self, el: Any, tree_type: TreeType) -> Iterator[Any]:
        it = self.walk(self.adapter.children(el, tree_type), tree_type)
        yield from it

    def matches(self, el: Any, c: Compound) -> bool:
        naming: Naming | None = None
        if c.type_name is not None or c.ident is not None:
            naming = self.adapter.naming(el)
            if c.type_name is not None:
                wanted = c.type_name.lower()
                if naming.type_name.lower() != wanted and naming.full_type_name.lower() != wanted:
                    return False
            if c.ident is not None and c.ident not in (naming.name, naming.automation_id):
                return False
        if c.visible_only and not self.adapter.state(el).visible:
            return False
        if c.type_name is None and c.ident is None and _tests_text(c) and self.adapter.is_template_part(el):
            return False  # the text belongs to the templated control, which matches itself
        return all(_test(self.attr_value(el, a.name), a) for a in c.attrs)

    def attr_value(self, el: Any, name: str) -> PlainValue | _Missing:
        key = name.lower()
        if key == "text":
            return self.text(el)
        if key in ("name", "automationid", "type"):
            n = self.adapter.naming(el)
            return {"name": n.name, "automationid": n.automation_id, "type": n.type_name}[key]
        prop = self.adapter.find_property(el, name)
        if prop is not None:
            if self.redactor.is_redacted(prop):
                return REDACTED
            return self.read_value(el, prop)
        alias = _STATE_ALIASES.get(key)
        if alias is not None:
            return bool(getattr(self.adapter.state(el), alias))
        return MISSING

    # -- reading -------------------------------------------------------
    def read_value(self, el: Any, prop: PropertyDescriptor) -> PlainValue:
        reading = self.adapter.read_property(el, prop)
        if self.redactor.enabled and self.redactor.type_is_secret(reading.value_type_name):
            return REDACTED
        return reading.value

    def text(self, el: Any) -> str | None:
        prop = self.adapter.text_property(el)
        if prop is None:
            return None
        if self.redactor.is_redacted(prop):
            return REDACTED
        value = self.read_value(el, prop)
        if value is None or value == "":
            return None
        return value if isinstance(value, str) else str(value)

    def read_property_row(self, el: Any, prop: PropertyDescriptor) -> dict[str, Any]:
        row: dict[str, Any] = {
            "name": prop.name,
            "typeName": prop.type_name,
            "category": prop.category,
            "isReadOnly": prop.read_only,
        }
        if self.redactor.is_redacted(prop):
            # The getter never runs: nothing about the value is known.
            row.update(
                value=REDACTED, valueSource="redacted", isLocallySet=False, isDataBound=False,
                hasBindingError=False, isRedacted=True,
            )  # fmt: skip
            return row
        reading = self.adapter.read_property(el, prop)
        redacted = self.redactor.enabled and self.redactor.type_is_secret(reading.value_type_name)
        row.update(
            value=REDACTED if redacted else reading.value,
            valueSource=reading.value_source,
            isLocallySet=reading.is_locally_set,
            isDataBound=reading.is_data_bound,
            hasBindingError=reading.binding_error is not None,
            bindingError=reading.binding_error,
            isRedacted=redacted,
        )
        return row

    # -- why is my UI wrong ----------------------------------------------------
    def require_property(self, el: Any, name: str) -> PropertyDescriptor:
        prop = self.adapter.find_property(el, name)
        if prop is None:
            raise PropertyNotFoundError(
                f"{self.adapter.naming(el).type_name} has no property {name!r}.",
                suggestion="List the element's properties with wpf_get_properties (includeDefaults=true).",
                detail={"property": name},
            )
        return prop

    def may_read(self, prop: PropertyDescriptor) -> bool:
        """What an adapter asks before reading a value it came across (redaction stays here)."""
        return not self.redactor.is_redacted(prop)

    def name_secret(self, name: str | None) -> bool:
        return bool(name) and self.redactor.enabled and self.redactor.name_is_secret(name or "")

    def binding_secret(self, desc: BindingDescription) -> bool:
        # A binding to User.Password shows the password whatever the target
        # property is called: every name on the path counts.
        return self.name_secret(desc.path) or any(self.binding_secret(c) for c in desc.children)

    def errors_of(self, el: Any) -> list[BindingErrorRecord]:
        key = ("binding_errors", self.id(el))
        if key not in self._memo:
            self._memo[key] = list(self.adapter.binding_errors(el))
        found: list[BindingErrorRecord] = self._memo[key]
        return found

    def error_row(self, el: Any, rec: BindingErrorRecord, *, secret: bool | None = None) -> dict[str, Any]:
        if secret is None:
            prop = self.adapter.find_property(el, rec.property_name) if rec.property_name else None
            secret = (prop is not None and self.redactor.is_redacted(prop)) or self.name_secret(rec.path)
        return {
            "propertyName": rec.property_name,
            # A toolkit's message may quote the value that failed (WPF: Value='...').
            "message": _redacted_message() if secret else rec.message,
            "count": rec.count,
            "kind": rec.kind,
            "path": rec.path,
            "firstSeen": _when(rec.first_seen),
            "lastSeen": _when(rec.last_seen),
        }

    def binding_row(
        self, el: Any, prop: PropertyDescriptor, desc: BindingDescription | None, *, with_value: bool
    ) -> dict[str, Any]:
        row: dict[str, Any] = {
            "nodeId": self.id(el),
            "propertyName": prop.name,
            "propertyTypeName": prop.type_name,
            "isBound": desc is not None,
        }
        secret = self.redactor.is_redacted(prop) or (desc is not None and self.binding_secret(desc))
        row["isRedacted"] = secret
        errors = [
            self.error_row(el, rec, secret=secret)
            for rec in self.errors_of(el)
            if rec.property_name is not None and rec.property_name.lower() == prop.name.lower()
        ]
        row["recentErrors"] = errors
        if desc is None:
            row["status"] = "not-bound"
        else:
            row.update(self.description_row(desc, secret=secret))
        if with_value:
            if secret:
                row.update(resolvedValue=REDACTED, valueSource="redacted")
            else:
                reading = self.adapter.read_property(el, prop)
                hidden = self.redactor.enabled and self.redactor.type_is_secret(reading.value_type_name)
                row.update(
                    resolvedValue=REDACTED if hidden else reading.value,
                    resolvedValueTypeName=reading.value_type_name,
                    valueSource=reading.value_source,
                    isRedacted=hidden,
                )
        return row

    def description_row(self, desc: BindingDescription, *, secret: bool) -> dict[str, Any]:
        error = desc.error
        if error is not None and secret:
            error = _redacted_message()
        return {
            "kind": desc.kind,
            "path": desc.path,
            "mode": desc.mode,
            "updateTrigger": desc.update_trigger,
            "controlUpdateMode": desc.control_update_mode,
            "converter": desc.converter_type,
            "converterParameter": REDACTED if secret and desc.converter_parameter is not None else desc.converter_parameter,
            "stringFormat": desc.string_format,
            "formattingEnabled": desc.formatting_enabled,
            "fallbackValue": REDACTED if secret and desc.fallback_value is not None else desc.fallback_value,
            "targetNullValue": REDACTED if secret and desc.target_null_value is not None else desc.target_null_value,
            "sourceKind": desc.source_kind,
            "sourceDescription": desc.source_description,
            "sourceTypeName": desc.source_type_name,
            "dataContextIsNull": desc.data_context_is_null,
            "dataContextType": desc.data_context_type,
            "hasCurrentItem": desc.has_current_item,
            "status": desc.status,
            "error": error,
            "propertyName": desc.property_name,
            "propertyTypeName": desc.property_type_name,
            "isBound": True,
            "children": [self.description_row(c, secret=secret) for c in desc.children],
        }

    def resource_rows(self, found: list[ResourceEntry], wanted: str | None) -> dict[str, dict[str, Any]]:
        """Rows keyed for paging, in lookup order, with effective/shadowed decided over all keys."""
        winners: dict[str, ResourceEntry] = {}
        rows: dict[str, dict[str, Any]] = {}
        for index, entry in enumerate(found):
            winner = winners.setdefault(entry.key_id, entry)
            if wanted is not None and entry.key.lower() != wanted.lower():
                continue
            rows[f"{index}:{entry.key_id}"] = {
                "entry": entry,
                "effective": winner is entry,
                "shadowedBy": None if winner is entry else winner.origin,
            }
        return rows

    def resource_item(self, row: dict[str, Any]) -> dict[str, Any]:
        entry: ResourceEntry = row["entry"]
        # The key is judged before the value is even loaded, the value's type before it is rendered.
        secret = self.redactor.enabled and self.redactor.name_is_secret(entry.key)
        type_name = entry.value_type_name
        if not secret and type_name is None:
            type_name = self.adapter.resource_value_type(entry)
        secret = secret or (self.redactor.enabled and self.redactor.type_is_secret(type_name))
        return {
            "key": entry.key,
            "valueTypeName": type_name,
            # The summary reads the value: only once the key and type say it may be shown.
            "valueSummary": REDACTED if secret else self.adapter.resource_summary(entry),
            "origin": entry.origin,
            "originKind": entry.origin_kind,
            "originNodeId": self.id(entry.owner) if entry.owner is not None else None,
            "effective": row["effective"],
            "shadowedBy": row["shadowedBy"],
            "isRedacted": secret,
        }

    def trigger_row(self, trigger: TriggerDescription) -> dict[str, Any]:
        conditions = []
        for c in trigger.conditions:
            secret = c.redacted or self.name_secret(c.property) or self.name_secret(c.binding)
            conditions.append(
                {
                    "property": c.property,
                    "binding": c.binding,
                    "value": REDACTED if secret else c.value,
                    "current": REDACTED if secret else c.current,
                    "met": c.met,
                    "sourceName": c.source_name,
                    "isRedacted": secret,
                    "note": c.note,
                }
            )
        setters = []
        for s in trigger.setters:
            secret = s.redacted or self.name_secret(s.property)
            setters.append(
                {
                    "property": s.property,
                    "value": REDACTED if secret else s.value,
                    "targetName": s.target_name,
                    "isRedacted": secret,
                }
            )
        return {
            "type": trigger.kind,
            "source": trigger.source,
            "origin": trigger.origin,
            "isActive": trigger.is_active,
            "conditions": conditions,
            "setters": setters,
            "event": trigger.event,
            "actions": list(trigger.actions),
        }

    # -- projection ------------------------------------------------------
    def project(
        self,
        el: Any,
        *,
        tree_type: TreeType = "visual",
        locator: str | None = None,
        props: Sequence[str] = (),
        kids: list[Any] | None = None,
    ) -> dict[str, Any]:
        naming = self.adapter.naming(el)
        state = self.adapter.state(el)
        if kids is None:
            kids = self.adapter.children(el, tree_type)
        node: dict[str, Any] = {
            "nodeId": self.id(el),
            "type": naming.type_name,
            "typeName": naming.full_type_name,
            "name": naming.name,
            "automationId": naming.automation_id,
            "text": self.text(el),
            "visible": state.visible,
            "enabled": state.enabled,
            "focused": state.focused,
            "childCount": len(kids),
            "locator": locator if locator is not None else self.locator_of(el),
        }
        if props:
            values: dict[str, PlainValue] = {}
            for pname in props:
                prop = self.adapter.find_property(el, pname)
                if prop is not None:
                    values[prop.name] = REDACTED if self.redactor.is_redacted(prop) else self.read_value(el, prop)
            node["properties"] = values
        return node

    def snapshot(
        self, root: Any, *, max_depth: int, tree_type: TreeType, props: Sequence[str], cap: int
    ) -> tuple[dict[str, Any], bool, int]:
        """Breadth first, so the node cap cuts whole levels, not one deep branch."""
        use_paths = tree_type == "visual"
        root_loc = self.locator_parts(root)
        root_kids = self.adapter.children(root, tree_type)
        root_node = self.project(root, tree_type=tree_type, locator=root_loc.locator, props=props, kids=root_kids)
        count, truncated = 1, False
        queue: deque[tuple[dict[str, Any], list[Any], int, _Loc]] = deque([(root_node, root_kids, 0, root_loc)])
        while queue:
            node, kids, depth, loc = queue.popleft()
            if not kids:
                continue
            if depth >= max_depth or count >= cap:
                node["childrenTruncated"] = True
                truncated = truncated or count >= cap
                continue
            children: list[dict[str, Any]] = []
            per_type: Counter[str] = Counter()
            for kid in kids:
                if count >= cap:
                    node["childrenTruncated"] = True
                    truncated = True
                    break
                naming = self.adapter.naming(kid)
                t = naming.type_name.lower()
                kid_loc = (
                    self.child_loc(loc, naming, per_type[t]) if use_paths else self.locator_parts(kid)
                )
                per_type[t] += 1
                grand = self.adapter.children(kid, tree_type)
                child = self.project(kid, tree_type=tree_type, locator=kid_loc.locator, props=props, kids=grand)
                children.append(child)
                count += 1
                queue.append((child, grand, depth + 1, kid_loc))
            node["children"] = children
        return root_node, truncated, count

    # -- locators ----------------------------------------------------------
    def census(self) -> Counter[tuple[str, str]]:
        """How many elements answer to each (type, #key): a key is unique if 1.

        It takes a walk of the whole app, so it is kept for a second across
        hops. A stale count is safe: a locator is re-resolved on every use, and
        a name that became ambiguous meanwhile is reported as LOCATOR_AMBIGUOUS.
        """
        if self._census is None:
            cached = self.engine._census_cache
            ttl = self.engine.settings.census_ttl
            if cached is not None and time.monotonic() - cached[0] < ttl:
                self._census = cached[1]
                return self._census
            counts: Counter[tuple[str, str]] = Counter()
            stack = list(self.adapter.roots())
            while stack:
                el = stack.pop()
                n = self.adapter.naming(el)
                for key in {n.name, n.automation_id} - {None, ""}:
                    counts[(n.type_name.lower(), key)] += 1  # type: ignore[index]
                stack.extend(self.adapter.children(el, "visual"))
            self._census = counts
            self.engine._census_cache = (time.monotonic(), counts)
        return self._census

    def _unique_key(self, naming: Naming) -> str | None:
        for key in (naming.automation_id, naming.name):
            if key and self.census()[(naming.type_name.lower(), key)] == 1:
                return key
        return None

    def child_loc(self, parent: _Loc, naming: Naming, index: int) -> _Loc:
        seg = format_segment(naming.type_name, index=index)
        path = f"{parent.path}/{seg}"
        key = self._unique_key(naming) if (naming.name or naming.automation_id) else None
        if key is not None:
            anchored = format_segment(naming.type_name, ident=key)
        else:
            anchored = f"{parent.anchored}/{seg}"
        return _Loc(path=path, anchored=anchored)

    def locator_parts(self, el: Any) -> _Loc:
        """Path and preferred locator of ``el``, memoised per node for this hop.

        Walks up only to the nearest ancestor already known, and indexes each
        parent's children once: a page of siblings costs one pass over them,
        not one pass per sibling.
        """
        node_id = self.id(el)
        known = self._locs.get(node_id)
        if known is not None:
            return known
        chain, ids = [el], [node_id]
        parent = self.adapter.parent(el, "visual")
        while parent is not None:
            parent_id = self.id(parent)
            known = self._locs.get(parent_id)
            if known is not None:
                break
            chain.append(parent)
            ids.append(parent_id)
            parent = self.adapter.parent(parent, "visual")
        chain.reverse()
        ids.reverse()
        loc = known
        for element, element_id in zip(chain, ids):
            naming = self.adapter.naming(element)
            index = self._index_among_siblings(parent, element_id, naming)
            if loc is None:  # a top-level window: its index is among the roots
                seg = format_segment(naming.type_name, index=index)
                key = self._unique_key(naming) if (naming.name or naming.automation_id) else None
                loc = _Loc(path=seg, anchored=format_segment(naming.type_name, ident=key) if key else seg)
            else:
                loc = self.child_loc(loc, naming, index)
            self._locs[element_id] = loc
            parent = element
        assert loc is not None
        return loc

    def _index_among_siblings(self, parent: Any | None, child_id: str, naming: Naming) -> int:
        """The child's index among its parent's children (or the roots) of the same type."""
        key = self.id(parent) if parent is not None else ""
        table = self._sibling_indexes.get(key)
        if table is None:
            pool = self.adapter.roots() if parent is None else self.adapter.children(parent, "visual")
            seen: Counter[str] = Counter()
            table = {}
            for sibling in pool:
                kind = self.adapter.naming(sibling).type_name.lower()
                table[self.id(sibling)] = seen[kind]
                seen[kind] += 1
            self._sibling_indexes[key] = table
        return table.get(child_id, 0)

    def locator_of(self, el: Any) -> str:
        return self.locator_parts(el).locator

    def path_of(self, el: Any) -> str:
        return self.locator_parts(el).path


@dataclass(frozen=True, slots=True)
class _Loc:
    path: str
    anchored: str

    @property
    def locator(self) -> str:
        return self.anchored


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING = _Missing()

_STATE_ALIASES = {
    "isenabled": "enabled",
    "enabled": "enabled",
    "isvisible": "visible",
    "visible": "visible",
    "focused": "focused",
    "isfocused": "focused",
    "iskeyboardfocused": "focused",
    "iskeyboardfocuswithin": "focused",
}


def _format_value(value: PlainValue) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _test(actual: PlainValue | _Missing, test: AttrTest) -> bool:
    if isinstance(actual, _Missing):
        return False
    if test.op == "exists":
        return actual is not None
    if actual is None and test.op != "equals":
        return False  # no text is not the text "null"
    expected = test.value or ""
    text = _format_value(actual)
    if test.op == "equals":
        if isinstance(actual, bool) or actual is None:
            return text == expected.lower()
        if isinstance(actual, (int, float)):
            try:
                return float(expected) == float(actual)
            except ValueError:
                return text == expected
        return text == expected
    if test.op == "contains":
        return expected.lower() in text.lower() if test.ignore_case else expected in text
    assert test.pattern is not None
    return test.pattern.search(text) is not None


def _tests_text(compound: Compound) -> bool:
    return any(a.name.lower() == "text" for a in compound.attrs)


def _pick(found: list[Any], compound: Compound) -> list[Any]:
    if compound.nth is None:
        return found
    try:
        return [found[compound.nth]]
    except IndexError:
        return []


def _criteria_compound(
    type_name: str | None,
    name: str | None,
    automation_id: str | None,
    text: str | None,
    conditions: Sequence[PropertyCondition | dict[str, Any]],
) -> Compound | None:
    for label, value in (("typeName", type_name), ("name", name), ("automationId", automation_id), ("text", text)):
        if value is not None and (not isinstance(value, str) or not value or len(value) > 500):
            raise InvalidArgumentError(
                f"{label} must be a non-empty string of at most 500 characters.",
                suggestion=f"Leave {label} out to match any, or give a value; see wpf_find_elements' input schema.",
            )
    attrs: list[AttrTest] = []
    if name is not None:
        attrs.append(AttrTest("name", "equals", name))
    if automation_id is not None:
        attrs.append(AttrTest("automationId", "equals", automation_id))
    if text is not None:
        attrs.append(AttrTest("text", "contains", text, ignore_case=True))
    if len(conditions) > 20:
        raise InvalidArgumentError(
            "At most 20 property conditions are allowed.",
            suggestion="Keep the most selective conditions, or narrow the search with rootNodeId.",
        )
    for raw in conditions:
        try:
            cond = raw if isinstance(raw, PropertyCondition) else PropertyCondition.model_validate(raw)
        except Exception as exc:
            raise InvalidArgumentError(
                f"Bad property condition {raw!r}: {exc}",
                suggestion='Conditions look like {"property": "IsEnabled", "operator": "Equals", "value": "false"}.',
            ) from None
        op = {"Equals": "equals", "Contains": "contains", "Regex": "regex"}[cond.operator]
        pattern = None
        if op == "regex":
            import re  # noqa: PLC0415

            try:
                pattern = re.compile(cond.value)
            except re.error as exc:
                raise InvalidArgumentError(
                    f"Invalid regular expression {cond.value!r}: {exc}",
                    suggestion="Fix the pattern (Python re syntax), or use the Equals or Contains operator.",
                ) from None
        attrs.append(AttrTest(cond.property, op, cond.value, pattern, ignore_case=op == "contains"))  # type: ignore[arg-type]
    if type_name is None and not attrs:
        return None
    return Compound(type_name=type_name, attrs=tuple(attrs))


# Sources that mean "nobody set this": hidden unless include_defaults is asked for.
_DEFAULT_SOURCES = frozenset({"default", "clr", "runtime", "redacted", "error"})


def _is_interesting(row: dict[str, Any]) -> bool:
    if row.get("isLocallySet") or row.get("isDataBound") or row.get("isRedacted"):
        return True
    return row.get("valueSource") not in _DEFAULT_SOURCES


def _redacted_message() -> str:
    return f"{REDACTED} (the property or a name on its binding path is secret, so the message is hidden)"


def _when(stamp: float | None) -> datetime | None:
    return datetime.fromtimestamp(stamp, tz=timezone.utc) if stamp is not None else None


def _check_name(label: str, value: Any) -> None:
    if not isinstance(value, str) or not value or len(value) > 200:
        raise InvalidArgumentError(
            f"{label} must be a non-empty string of at most 200 characters.",
            suggestion=f"Pass {label} as a name, e.g. one listed by wpf_get_properties.",
        )


def _rect(bounds: Any) -> Rect | None:
    if bounds is None:
        return None
    return Rect(x=bounds.x, y=bounds.y, width=bounds.width, height=bounds.height)


def _to_png(capture: Capture) -> bytes:
    if capture.mode == "PNG":
        return capture.data
    import io  # noqa: PLC0415

    from PIL import Image  # noqa: PLC0415

    img = Image.frombuffer(
        "RGBA", (capture.width, capture.height), capture.data, "raw", "BGRA", capture.stride or 0, 1
    )
    buf = io.BytesIO()
    img.convert("RGB").save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


def _check_int(label: str, value: Any, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidArgumentError(
            f"{label} must be an integer from {low} to {high}, got {value!r}.",
            suggestion=f"Use {label} between {low} and {high}.",
        )


def _check_tree_type(tree_type: Any) -> None:
    if tree_type not in _TREE_TYPES:
        raise InvalidArgumentError(
            f"treeType must be 'visual' or 'logical', got {tree_type!r}.",
            suggestion="Use treeType 'visual' (default) or 'logical'.",
        )


def _check_property_names(names: Sequence[str] | None) -> tuple[str, ...]:
    if not names:
        return ()
    if isinstance(names, str) or len(names) > MAX_INCLUDED_PROPERTIES:
        raise InvalidArgumentError(
            f"includeProperties takes a list of at most {MAX_INCLUDED_PROPERTIES} property names.",
            suggestion="Ask for fewer properties, or use wpf_get_properties on one element.",
        )
    for n in names:
        if not isinstance(n, str) or not n or len(n) > 200:
            raise InvalidArgumentError(f"{n!r} is not a property name.")
    return tuple(names)


def _default_app_name() -> str:
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None) or (sys.argv[0] if sys.argv and sys.argv[0] else "python")
    return os.path.splitext(os.path.basename(path))[0] or "python"


def _slug(text: str) -> str:
    out = "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")
    return "-".join(p for p in out.split("-") if p)[:40] or "app"


def _process_name() -> str:
    try:
        with open(f"/proc/{os.getpid()}/comm", encoding="utf-8") as fh:
            return fh.read().strip()
    except OSError:
        return os.path.basename(sys.executable)


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
        if not callable(attr):
            return attr

        def checked(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            if not self._ui.is_ui_thread():
                message = f"adapter.{name} called on thread {threading.get_ident()}, not the UI thread"
                self._violations.append(message)
                raise ProbeError(message, code="INTERNAL")
            return attr(*args, **kwargs)

        return checked


__all__ = ["Engine", "Target", "Tier", "MISSING"]
