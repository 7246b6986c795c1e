"""wpf_run_diagnostics: providers that find real problems in a live UI.

The rules here are toolkit-agnostic: they judge plain facts an adapter reads
(``naming``, ``state``, ``children``, ``diagnostic_facts``, ``bindings``,
``binding_errors``). What a toolkit knows (which control is an input, what
clips, what virtualizes) stays in the adapters. The whole run is one walk in
one UI-thread hop: the engine's ``paged`` calls ``collect`` on the UI thread,
and later pages only re-resolve the node ids of the findings they show.

Scope: with a root element, the root's whole window is walked (so a finding
depends only on the element, not on where the walk started) and only findings
on the root and its descendants are kept.

Redaction: messages name elements, properties, binding paths and resource
keys, never a property's value. A binding error's own text (which can quote a
value) is left out when the bound property or its path names a secret.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar, get_args

from wpfprobe.core.errors import InvalidArgumentError, NodeNotFoundError
from wpfprobe.core.models import DiagnosticsPage, Finding, FindingLevel
from wpfprobe.core.protocol import Bounds, DiagnosticFacts, Naming
from wpfprobe.engine.base import EngineBase
from wpfprobe.engine.cursors import check_take
from wpfprobe.engine.hop import Hop
from wpfprobe.engine.locators import format_ident
from wpfprobe.engine.target import Target

T = TypeVar("T")

#: Severity order: a page lists the most severe first.
LEVELS: dict[str, int] = {"info": 0, "warning": 1, "error": 2}
assert tuple(LEVELS) == get_args(FindingLevel)

#: An item control holding at least this many items without virtualization is reported.
LARGE_ITEM_COUNT = 100
#: At most this many controls are named in a suggestion (a tab order to set).
MAX_NAMED_IN_SUGGESTION = 12
#: A binding error's own message is cut to this many characters.
MAX_ERROR_TEXT = 300
#: Text may overflow its room by this many px before it counts as cut off: the last line's
#: leading and descenders, and what a toolkit measures differently from how it draws.
TEXT_SLACK_PX = 3

WPF = "wpf"
WINFORMS = "winforms"
_BOTH = frozenset({WPF, WINFORMS})
_NO_FACTS = DiagnosticFacts()


@dataclass(frozen=True, slots=True)
class Raw:
    """A finding before projection: ``index`` is the element's place in the walk."""

    index: int
    provider: str
    level: str
    message: str
    suggestion: str
    detail: dict[str, Any]


@dataclass(slots=True)
class Item:
    """One element of the walk, as plain facts (``el`` is only used on the UI thread)."""

    el: Any
    index: int
    parent: int | None
    naming: Naming
    visible: bool
    enabled: bool
    template_part: bool
    facts: DiagnosticFacts
    children: list[int]
    end: int = 0  # one past the last descendant, in walk order


class Context:
    """What providers read: the walked elements in pre-order, and lazy helpers."""

    def __init__(self, h: Hop, items: list[Item], toolkit: str, selected: frozenset[str] = frozenset()) -> None:
        self.h = h
        self.items = items
        self.toolkit = toolkit
        #: The providers of this run.
        self.selected = selected
        self._texts: dict[int, str | None] = {}
        self._tab_orders: dict[int, tuple[list[int], dict[int, int]]] = {}

    def text(self, i: int) -> str | None:
        """The element's visible text, redacted as everywhere else (the engine's reader)."""
        if i not in self._texts:
            self._texts[i] = self.h.text(self.items[i].el)
        return self._texts[i]

    def describe(self, i: int) -> str:
        n = self.items[i].naming
        ident = n.name or n.automation_id
        return f"{n.type_name}#{format_ident(ident)}" if ident else n.type_name

    def short(self, i: int) -> str:
        """How a suggestion names a control: its name, else its type."""
        n = self.items[i].naming
        return n.name or n.automation_id or n.type_name

    def parent_of(self, i: int) -> int | None:
        return self.items[i].parent

    def window_of(self, i: int) -> int:
        while (p := self.items[i].parent) is not None:
            i = p
        return i

    def is_redacted(self, i: int, property_name: str | None, path: str | None = None) -> bool:
        """Whether a binding's property (or its path) holds a secret, decided without reading it."""
        redactor = self.h.redactor
        if not redactor.enabled:
            return False
        if path and redactor.name_is_secret(path):
            return True
        if not property_name:
            return False
        if redactor.name_is_secret(property_name):
            return True
        prop = self.h.adapter.find_property(self.items[i].el, property_name)
        return prop is not None and redactor.is_redacted(prop)

    def tab_sequence(self, window: int) -> tuple[list[int], dict[int, int]]:
        """The window's keyboard traversal (children by TabIndex, depth first) and each item's place in it."""
        known = self._tab_orders.get(window)
        if known is not None:
            return known
        sequence: list[int] = []
        stack = [window]
        while stack:
            i = stack.pop()
            sequence.append(i)
            kids = sorted(
                self.items[i].children,
                key=lambda c: (self.items[c].facts.tab_index is None, self.items[c].facts.tab_index or 0, c),
            )
            stack.extend(reversed(kids))
        found = (sequence, {i: n for n, i in enumerate(sequence)})
        self._tab_orders[window] = found
        return found


@dataclass(frozen=True, slots=True)
class Provider:
    name: str
    toolkits: frozenset[str]
    summary: str
    run: Callable[[Context], Iterator[Raw]]
    #: Reads ``diagnostic_facts`` for every element (the binding providers do not).
    needs_facts: bool = True


# -- the providers -------------------------------------------------------------------


def _binding_errors(ctx: Context) -> Iterator[Raw]:
    read = getattr(ctx.h.adapter, "binding_errors", None)
    if read is None:
        return
    for item in ctx.items:
        i = item.index
        for record in read(item.el):
            prop = record.property_name
            where = f"{prop} of {ctx.describe(i)}" if prop else ctx.describe(i)
            withheld = ctx.is_redacted(i, prop, record.path)
            if withheld:
                what = "(its text is withheld: the binding touches a secret)"
            else:
                what = _clip(" ".join(str(record.message).split()), MAX_ERROR_TEXT)
            repeated = f" ({record.count} times)" if record.count > 1 else ""
            path = f" to path '{record.path}'" if record.path else ""
            target = f", propertyName={prop}" if prop else ""
            yield Raw(
                i, "binding-errors", "error",
                f"The binding of {where}{path} failed{repeated}: {what}",
                f"Check the binding's path and source with wpf_get_binding_info (nodeId{target}): fix the path "
                "or the source's member name, or the converter or format that failed.",
                {"property": prop, "path": record.path, "count": record.count, "kind": record.kind},
            )  # fmt: skip


def _null_datacontext(ctx: Context) -> Iterator[Raw]:
    read = getattr(ctx.h.adapter, "bindings", None)
    if read is None:
        return
    read_errors = getattr(ctx.h.adapter, "binding_errors", None)
    for item in ctx.items:
        no_context: list[str] = []
        no_current: list[str] = []
        paths: list[str] = []
        tops = read(item.el)
        if not tops:
            continue
        # A property whose binding reports an error is binding-errors' finding when that runs too.
        reported = (
            {(r.property_name or "").lower() for r in read_errors(item.el)}
            if read_errors is not None and "binding-errors" in ctx.selected
            else set()
        )
        for top in tops:
            if top.property_name.lower() in reported:
                continue
            for b in (top, *top.children):
                if b.kind == "TemplateBinding" or b.source_kind not in (None, "DataContext", "DataSource"):
                    continue  # its source is named, not the DataContext
                label = b.property_name
                if b.data_context_is_null and b.source_kind in (None, "DataContext"):
                    no_context.append(label)
                elif b.has_current_item is False:
                    no_current.append(label)
                else:
                    continue
                if b.path:
                    paths.append(b.path)
        i = item.index
        names = _unique(no_context + no_current)
        if not names:
            continue
        props = ", ".join(names)
        paths_text = f" (paths {', '.join(_unique(paths))})" if paths else ""
        if no_context:
            message = (
                f"{props} of {ctx.describe(i)} {'is' if len(names) == 1 else 'are'} data-bound{paths_text}, "
                "but the DataContext is null, so the binding has nothing to read."
            )
            suggestion = (
                "Set a DataContext on this element or an ancestor (wpf_get_ancestors shows each one's "
                "dataContextType), or give the binding an explicit Source, ElementName or RelativeSource."
            )
        else:
            message = (
                f"{props} of {ctx.describe(i)} {'is' if len(names) == 1 else 'are'} data-bound{paths_text}, "
                "but the data source has no current item (it is empty or positioned before its first row), "
                "so the property shows nothing."
            )
            suggestion = "Fill the data source (or move its Position to a row) before the form shows, or bind to a source that has a current item."
        yield Raw(
            i, "null-datacontext", "warning", message, suggestion,
            {"properties": props, "paths": ", ".join(_unique(paths)) or None,
             "reason": "null-datacontext" if no_context else "no-current-item"},
        )  # fmt: skip


def _unresolved_dynamic_resource(ctx: Context) -> Iterator[Raw]:
    for item in ctx.items:
        for prop, key in item.facts.unresolved_resources:
            yield Raw(
                item.index, "unresolved-dynamic-resource", "warning",
                f"{prop} of {ctx.describe(item.index)} refers to DynamicResource '{key}', which no resource "
                "dictionary in scope defines, so it keeps its default value.",
                f"Define '{key}' in the element's, its window's or the application's Resources (compare the "
                "keys wpf_get_resources lists), or refer to a key that exists.",
                {"property": prop, "resourceKey": key},
            )  # fmt: skip


_VIRTUALIZE_HINT = {
    WPF: "Let the items panel virtualize: a VirtualizingStackPanel as ItemsPanel with "
    "VirtualizingPanel.IsVirtualizing=True and ScrollViewer.CanContentScroll=True, and no ScrollViewer or "
    "StackPanel around the control that gives it unlimited height.",
    WINFORMS: "Set VirtualMode = true and supply the rows on demand (ListView: VirtualListSize and "
    "RetrieveVirtualItem; DataGridView: RowCount and CellValueNeeded).",
}


def _non_virtualized_items(ctx: Context) -> Iterator[Raw]:
    for item in ctx.items:
        f = item.facts
        if f.item_count is None or f.virtualized is not False or f.item_count < LARGE_ITEM_COUNT:
            continue
        yield Raw(
            item.index, "non-virtualized-items", "warning",
            f"{ctx.describe(item.index)} holds {f.item_count} items without virtualization: every item is "
            "created and kept up front, which makes loading, scrolling and memory grow with the list.",
            _VIRTUALIZE_HINT.get(ctx.toolkit, "Turn on the control's virtualization."),
            {"itemCount": f.item_count, "threshold": LARGE_ITEM_COUNT},
        )  # fmt: skip


def _zero_size(ctx: Context) -> Iterator[Raw]:
    for item in ctx.items:
        f = item.facts
        b = f.bounds
        if not item.visible or item.template_part or f.zero_size_expected or b is None:
            continue
        if b.width > 0 and b.height > 0:
            continue
        i = item.index
        if item.parent is not None and _is_zero(ctx.items[item.parent].facts.bounds):
            continue  # the parent has no area either: that finding says it
        usable = f.tab_stop or f.is_input or bool(ctx.text(i))
        yield Raw(
            i, "zero-size", "warning" if usable else "info",
            f"{ctx.describe(i)} is visible but {b.width}x{b.height} px, so nothing of it shows"
            + (" and it cannot be clicked." if usable else "."),
            "Give it a size (Width/Height, or a layout that sizes it), or hide it (Visible=false / "
            "Visibility=Collapsed) if it is not meant to show.",
            {"width": b.width, "height": b.height},
        )  # fmt: skip


def _clipped(ctx: Context) -> Iterator[Raw]:
    for item in ctx.items:
        if item.parent is None or not item.visible or item.template_part:
            continue
        b = item.facts.bounds
        parent = ctx.items[item.parent]
        if b is None or _is_zero(b) or _is_zero(parent.facts.bounds):
            continue
        i = item.index
        # Its own layout slot first (WPF), then the parent's client area (unless it scrolls).
        areas = [(item.facts.clip, f"the {_size(item.facts.clip)} layout slot {ctx.describe(item.parent)} gives it")]
        if not parent.facts.scrolls:
            areas.append(
                (
                    parent.facts.client_area,
                    f"{ctx.describe(item.parent)}'s {_size(parent.facts.client_area)} client area",
                )
            )
        for area, where in areas:
            if area is None:
                continue
            over = {
                "left": area.x - b.x,
                "top": area.y - b.y,
                "right": (b.x + b.width) - (area.x + area.width),
                "bottom": (b.y + b.height) - (area.y + area.height),
            }
            cut = {side: px for side, px in over.items() if px > 0}
            if not cut:
                continue
            outside = (
                b.x >= area.x + area.width or b.y >= area.y + area.height
                or b.x + b.width <= area.x or b.y + b.height <= area.y
            )  # fmt: skip
            sides = " and ".join(f"{px} px past the {side}" for side, px in cut.items())
            how = "lies entirely outside" if outside else f"extends {sides} edge of"
            yield Raw(
                i, "clipped", "warning",
                f"{ctx.describe(i)} {how} {where}, so {'none of it shows' if outside else 'that part is cut off'}.",
                f"Move or resize {ctx.short(i)} to fit inside {ctx.short(item.parent)}, make "
                f"{ctx.short(item.parent)} larger, or let it scroll.",
                {**{k: max(v, 0) for k, v in over.items()}, "parentNodeId": ctx.h.id(parent.el),
                 "entirelyOutside": outside},
            )  # fmt: skip
            break


def _text_truncated(ctx: Context) -> Iterator[Raw]:
    for item in ctx.items:
        f = item.facts
        room, size, line, b = f.text_room, f.text_size, f.text_line, f.bounds
        if room is None or size is None or b is None or not item.visible or item.template_part or _is_zero(b):
            continue  # zero-size reports an element with no area at all
        over_w, over_h = size[0] - room[0], size[1] - room[1]
        if over_w <= TEXT_SLACK_PX and over_h <= TEXT_SLACK_PX:
            continue
        i = item.index
        cut = "it ends in an ellipsis where the rest is cut off" if f.text_ellipsis else "part of it is cut off"
        # Sizes for the element as a whole: its bounds grown by what its text lacks.
        one_line = line or size
        wide = (b.width + max(one_line[0] - room[0], 0), b.height + max(one_line[1] - room[1], 0))
        tall = b.height + max(over_h, 0)
        options = [f"{wide[0]}x{wide[1]} px fits the text on one line"]
        if size[0] <= room[0] + TEXT_SLACK_PX and tall > wide[1]:
            options.append(f"{b.width}x{tall} px fits it at its present width")
        yield Raw(
            i, "text-truncated", "info" if f.text_ellipsis else "warning",
            f"The text of {ctx.describe(i)} needs {size[0]}x{size[1]} px as it is laid out, but the element "
            f"has {room[0]}x{room[1]} px for it, so {cut}.",
            f"Make {ctx.short(i)} larger ({', or '.join(options)}), let it size itself to its text "
            "(WinForms AutoSize = true), or shorten the text.",
            {"textWidth": size[0], "textHeight": size[1], "roomWidth": room[0], "roomHeight": room[1],
             "lineWidth": one_line[0], "lineHeight": one_line[1], "ellipsis": f.text_ellipsis},
        )  # fmt: skip


def _overlapping_siblings(ctx: Context) -> Iterator[Raw]:
    for parent in ctx.items:
        if not parent.facts.free_layout or not parent.visible or len(parent.children) < 2:
            continue
        boxes: list[tuple[int, Bounds]] = []
        for c in parent.children:
            kid = ctx.items[c]
            b = kid.facts.bounds
            if kid.visible and not kid.facts.docked and b is not None and not _is_zero(b):
                boxes.append((c, b))
        # Sweep along x: only boxes whose x ranges meet are compared.
        boxes.sort(key=lambda cb: cb[1].x)
        pairs: list[tuple[int, int, int, int]] = []
        for n, (a, ba) in enumerate(boxes):
            for c, bc in boxes[n + 1 :]:
                if bc.x >= ba.x + ba.width:
                    break
                w = min(ba.x + ba.width, bc.x + bc.width) - max(ba.x, bc.x)
                h = min(ba.y + ba.height, bc.y + bc.height) - max(ba.y, bc.y)
                if w > 0 and h > 0:
                    pairs.append((min(a, c), max(a, c), w, h))
        for top, under, w, h in sorted(pairs):
            # Earlier in the parent's Controls is drawn on top (WinForms z-order).
            tb, ub = ctx.items[top].facts.bounds, ctx.items[under].facts.bounds
            assert tb is not None and ub is not None
            backdrop = _contains(ub, tb)
            suggestion = (
                f"Move or resize {ctx.short(top)} or {ctx.short(under)} so they do not overlap, or put them "
                "in a FlowLayoutPanel or TableLayoutPanel that arranges them."
            )
            if backdrop:
                # A control lying on a bigger sibling, as if inside it: usually dropped on the wrong parent.
                message = (
                    f"{ctx.describe(top)} lies on {ctx.describe(under)} but is its sibling, not its child: it is "
                    f"drawn over it, yet moving, hiding or disabling {ctx.short(under)} leaves it behind."
                )
                suggestion = (
                    f"If {ctx.short(under)} is meant as its container, move {ctx.short(top)} into "
                    f"{ctx.short(under)}'s Controls; otherwise move it off {ctx.short(under)}."
                )
            elif _contains(tb, ub):
                message = (
                    f"{ctx.describe(under)} lies entirely under {ctx.describe(top)}, which is drawn over it: "
                    "nothing of it shows and it cannot be clicked."
                )
            else:
                message = (
                    f"{ctx.describe(under)} and {ctx.describe(top)} overlap by {w}x{h} px; "
                    f"{ctx.short(top)} is drawn over that part of {ctx.short(under)}."
                )
            node, other = (top, under) if backdrop else (under, top)
            yield Raw(
                node, "overlapping-siblings", "info" if backdrop else "warning", message, suggestion,
                {"otherNodeId": ctx.h.id(ctx.items[other].el), "otherLocator": ctx.h.locator_of(ctx.items[other].el),
                 "overlapWidth": w, "overlapHeight": h, "onTop": node == top},
            )  # fmt: skip


def _tab_order(ctx: Context) -> Iterator[Raw]:
    # Whether Tab can reach into an element (its own tab stop, or a descendant's).
    reach = [False] * len(ctx.items)
    for item in reversed(ctx.items):
        if item.visible:
            reach[item.index] = item.facts.tab_stop or any(reach[c] for c in item.children)
    for parent in ctx.items:
        if not parent.visible:
            continue
        members = [
            c for c in parent.children
            if reach[c] and ctx.items[c].facts.tab_index is not None and not _is_zero(ctx.items[c].facts.bounds)
        ]  # fmt: skip
        if len(members) < 2:
            continue
        by_tab = sorted(members, key=lambda c: (ctx.items[c].facts.tab_index, c))
        by_reading = _reading_order(members, ctx)
        if by_tab == by_reading:
            continue
        rank = {c: n for n, c in enumerate(by_reading)}
        keep = _longest_increasing([rank[c] for c in by_tab])
        order = ", ".join(f"{ctx.short(c)}={n}" for n, c in enumerate(by_reading[:MAX_NAMED_IN_SUGGESTION]))
        more = "" if len(by_reading) <= MAX_NAMED_IN_SUGGESTION else ", ..."
        for pos, c in enumerate(by_tab):
            if pos in keep:
                continue
            index = ctx.items[c].facts.tab_index
            yield Raw(
                c, "tab-order", "warning",
                f"Tab reaches {ctx.describe(c)} (TabIndex {index}) at place {pos + 1} of {len(by_tab)} in "
                f"{ctx.describe(parent.index)}, but it reads at place {rank[c] + 1} (top to bottom, left to "
                "right): keyboard users jump around.",
                f"Set TabIndex of {ctx.short(parent.index)}'s controls in reading order: {order}{more}.",
                {"tabIndex": index, "tabPlace": pos + 1, "readingPlace": rank[c] + 1, "of": len(by_tab)},
            )  # fmt: skip


def _unnamed_input(ctx: Context) -> Iterator[Raw]:
    for item in ctx.items:
        f = item.facts
        if not f.is_input or not item.visible or f.has_accessible_name:
            continue
        i = item.index
        if item.parent is not None and ctx.items[item.parent].facts.is_input:
            continue  # a part of another input (the text box inside an up-down)
        if f.names_itself and ctx.text(i):
            continue
        if _label_before(ctx, i) or _label_left(ctx, i):
            continue
        yield Raw(
            i, "unnamed-input", "warning",
            f"{ctx.describe(i)} has no accessible name: no AccessibleName, and no Label just before it in "
            "tab order or with a caption ending in ':' to its left, so a screen reader announces it without "
            "saying what it is for.",
            f"Set AccessibleName on {ctx.short(i)}, or put a Label with its caption right before it in tab "
            "order (TabIndex one less) or to its left (e.g. 'Name:').",
            {"tabIndex": f.tab_index},
        )  # fmt: skip


PROVIDERS: tuple[Provider, ...] = (
    Provider("binding-errors", _BOTH, "elements with recorded binding errors (error)", _binding_errors, False),
    Provider(
        "null-datacontext",
        _BOTH,
        "data-bound properties whose DataContext is null or whose source has no current item (warning)",
        _null_datacontext,
        False,
    ),
    Provider(
        "unresolved-dynamic-resource",
        frozenset({WPF}),
        "DynamicResource references whose key resolves to nothing (warning)",
        _unresolved_dynamic_resource,
    ),
    Provider(
        "non-virtualized-items",
        _BOTH,
        f"item controls with {LARGE_ITEM_COUNT}+ items and no virtualization (warning)",
        _non_virtualized_items,
    ),
    Provider("zero-size", _BOTH, "visible elements of zero width or height (info, warning if usable)", _zero_size),
    Provider("clipped", _BOTH, "elements extending outside their parent's client area (warning)", _clipped),
    Provider(
        "text-truncated",
        frozenset({WINFORMS}),
        "text that does not fit its element (warning; info where the element shows an ellipsis)",
        _text_truncated,
    ),
    Provider(
        "overlapping-siblings",
        frozenset({WINFORMS}),
        "visible sibling controls whose bounds intersect (warning; info for a sibling used as a backdrop)",
        _overlapping_siblings,
    ),
    Provider("tab-order", frozenset({WINFORMS}), "TabIndex order against reading order (warning)", _tab_order),
    Provider("unnamed-input", frozenset({WINFORMS}), "inputs without an accessible name (warning)", _unnamed_input),
)
PROVIDER_NAMES: tuple[str, ...] = tuple(p.name for p in PROVIDERS)
_BY_NAME = {p.name: p for p in PROVIDERS}


# -- arguments -------------------------------------------------------------------------


def check_providers(providers: Sequence[str] | None) -> tuple[str, ...]:
    """The asked-for provider names in canonical order; None means all."""
    if providers is None:
        return PROVIDER_NAMES
    if isinstance(providers, str) or not isinstance(providers, Sequence) or not providers:
        raise InvalidArgumentError(
            "providers takes a non-empty list of provider names.",
            suggestion=f"Leave providers out to run all, or pick from: {', '.join(PROVIDER_NAMES)}.",
            detail={"known": list(PROVIDER_NAMES)},
        )
    unknown = [p for p in providers if p not in _BY_NAME]
    if unknown:
        raise InvalidArgumentError(
            f"Unknown diagnostics provider{'s' if len(unknown) > 1 else ''}: "
            f"{', '.join(repr(u) for u in unknown[:10])}.",
            suggestion=f"Use provider names from: {', '.join(PROVIDER_NAMES)}.",
            detail={"unknown": [str(u)[:100] for u in unknown[:10]], "known": list(PROVIDER_NAMES)},
        )
    wanted = set(providers)
    return tuple(n for n in PROVIDER_NAMES if n in wanted)


def check_level(level: Any) -> str:
    if level not in LEVELS:
        raise InvalidArgumentError(
            f"minLevel must be one of {', '.join(LEVELS)}, got {level!r}.",
            suggestion="Use minLevel info (everything), warning or error.",
        )
    return str(level)


def applicable(names: Sequence[str], toolkit: str) -> tuple[list[str], list[str]]:
    """(the providers that run on ``toolkit``, those that do not apply there)."""
    run = [n for n in names if toolkit in _BY_NAME[n].toolkits]
    return run, [n for n in names if n not in run]


# -- the run -----------------------------------------------------------------------------


def run_diagnostics(
    engine: EngineBase,
    target: Target | None,
    *,
    providers: Sequence[str] | None,
    min_level: str,
    cursor: str | None,
    take: int,
) -> DiagnosticsPage:
    check_take(take)
    names = check_providers(providers)
    floor = LEVELS[check_level(min_level)]
    toolkit = str(engine.adapter.toolkit)
    run, not_applicable = applicable(names, toolkit)
    scope = f"diag:{target.describe() if target is not None else ''}:{','.join(names)}:{min_level}"

    def list_all(h: Hop) -> list[tuple[str, Any]]:
        raws = collect(h, target, [_BY_NAME[n] for n in run], toolkit, floor)
        pairs = []
        for raw, el in raws:
            node_id = h.id(el)
            key = json.dumps(
                {"n": node_id, "p": raw.provider, "l": raw.level, "m": raw.message, "s": raw.suggestion,
                 "d": raw.detail},
                separators=(",", ":"),
            )  # fmt: skip
            pairs.append((key, (node_id, el, raw)))
        return pairs

    def project(h: Hop, entry: Any) -> dict[str, Any]:
        if isinstance(entry, str):  # a later page: the finding as the snapshot kept it
            saved = json.loads(entry)
            try:
                el = h.get(saved["n"])
            except NodeNotFoundError:
                return {}  # the element is gone since the first page
            node_id, provider, level = saved["n"], saved["p"], saved["l"]
            message, suggestion, detail = saved["m"], saved["s"], saved["d"]
        else:
            node_id, el, raw = entry
            provider, level, message, suggestion, detail = (
                raw.provider, raw.level, raw.message, raw.suggestion, raw.detail,
            )  # fmt: skip
        parts = h.locator_parts(el)
        return {
            "provider": provider, "level": level, "message": message, "nodeId": node_id,
            "locator": parts.locator, "path": parts.path, "suggestion": suggestion, "detail": detail,
        }  # fmt: skip

    page = engine.paged(
        kind="diagnostics", scope=scope, cursor=cursor, take=take,
        list_all=list_all, project=project, model=Finding, key_is_value=False,
    )  # fmt: skip
    return DiagnosticsPage(
        items=page.items, next_cursor=page.next_cursor, total_count=page.total_count,
        has_more=page.has_more, stale=page.stale, providers_run=run, providers_not_applicable=not_applicable,
    )  # fmt: skip


def collect(
    h: Hop, target: Target | None, providers: list[Provider], toolkit: str, floor: int
) -> list[tuple[Raw, Any]]:
    """Walk, run the providers, and return (finding, element) most severe first, then in tree order."""
    if not providers:
        return []
    if target is None:
        roots, keep = h.adapter.roots(), None
    else:
        el = h.resolve(target)
        top = el
        while (up := h.parent_of(top, "visual")) is not None:
            top = up
        roots, keep = [top], el
    items = walk(h, roots, facts=any(p.needs_facts for p in providers))
    lo, hi = 0, len(items)
    if keep is not None:
        found = next((it for it in items if h.same(it.el, keep)), None)
        if found is None:
            return []
        lo, hi = found.index, found.end
    ctx = Context(h, items, toolkit, frozenset(p.name for p in providers))
    order = {p.name: n for n, p in enumerate(PROVIDERS)}
    raws = [
        raw for p in providers for raw in p.run(ctx)
        if LEVELS[raw.level] >= floor and lo <= raw.index < hi
    ]  # fmt: skip
    raws.sort(key=lambda r: (-LEVELS[r.level], r.index, order[r.provider]))
    return [(raw, items[raw.index].el) for raw in raws]


def walk(h: Hop, roots: list[Any], *, facts: bool) -> list[Item]:
    """Every element under ``roots`` in pre-order (the visual tree), with its facts.

    An element whose facts cannot be read is judged on what could be (a fault
    is recorded against it), so one broken control does not hide the rest.
    """
    adapter = h.adapter
    memo: dict[Any, Any] = {}  # the adapter's, for this walk
    items: list[Item] = []
    stack: list[tuple[Any, int | None]] = [(r, None) for r in reversed(roots)]
    while stack:
        el, parent = stack.pop()
        state = h.state_of(el)
        item = Item(
            el=el,
            index=len(items),
            parent=parent,
            naming=h.naming_of(el),
            visible=state.visible,
            enabled=state.enabled,
            template_part=_safe(h, el, "templatePart", partial(adapter.is_template_part, el), False),
            facts=_safe(h, el, "facts", partial(adapter.diagnostic_facts, el, memo), _NO_FACTS) if facts else _NO_FACTS,
            children=[],
        )
        items.append(item)
        if parent is not None:
            items[parent].children.append(item.index)
        kids = h.children_of(el, "visual")
        stack.extend((k, item.index) for k in reversed(kids))
    for item in reversed(items):
        item.end = items[item.children[-1]].end if item.children else item.index + 1
    return items


# -- helpers -------------------------------------------------------------------------------


def _safe(h: Hop, el: Any, read: str, fn: Callable[[], T], default: T) -> T:
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - one element's failure is recorded, not raised
        h.fault(el, read, exc)
        return default


def _is_zero(b: Bounds | None) -> bool:
    return b is not None and (b.width <= 0 or b.height <= 0)


def _size(b: Bounds | None) -> str:
    return f"{b.width}x{b.height} px" if b is not None else ""


def _contains(outer: Bounds, inner: Bounds) -> bool:
    return (
        outer.x <= inner.x and outer.y <= inner.y
        and inner.x + inner.width <= outer.x + outer.width and inner.y + inner.height <= outer.y + outer.height
    )  # fmt: skip


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _unique(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


def _reading_order(members: list[int], ctx: Context) -> list[int]:
    """Top to bottom in rows, left to right within a row.

    A row is led by its topmost control; a control whose vertical centre lies
    above the leader's bottom edge belongs to the leader's row.
    """
    boxes = {c: ctx.items[c].facts.bounds for c in members}
    placed = [c for c in members if boxes[c] is not None]
    unplaced = [c for c in members if boxes[c] is None]
    placed.sort(key=lambda c: (boxes[c].y, boxes[c].x, c))  # type: ignore[union-attr]
    rows: list[list[int]] = []
    bottom = None
    for c in placed:
        b = boxes[c]
        assert b is not None
        if rows and bottom is not None and b.y + b.height / 2 < bottom:
            rows[-1].append(c)
        else:
            rows.append([c])
            bottom = b.y + b.height
    ordered = [c for row in rows for c in sorted(row, key=lambda c: (boxes[c].x, boxes[c].y, c))]  # type: ignore[union-attr]
    return ordered + unplaced


def _longest_increasing(values: list[int]) -> set[int]:
    """Positions of one longest strictly increasing subsequence of ``values``."""
    tails: list[int] = []
    tail_pos: list[int] = []
    prev = [-1] * len(values)
    for pos, v in enumerate(values):
        k = bisect_left(tails, v)
        if k == len(tails):
            tails.append(v)
            tail_pos.append(pos)
        else:
            tails[k] = v
            tail_pos[k] = pos
        prev[pos] = tail_pos[k - 1] if k else -1
    keep: set[int] = set()
    pos = tail_pos[-1] if tail_pos else -1
    while pos >= 0:
        keep.add(pos)
        pos = prev[pos]
    return keep


def _label_before(ctx: Context, i: int) -> bool:
    """WinForms' own naming rule: walking back in tab order, a Label (with text) comes before any visible tab stop."""
    sequence, place = ctx.tab_sequence(ctx.window_of(i))
    for j in reversed(sequence[: place[i]]):
        other = ctx.items[j]
        if other.facts.is_label:
            return bool(ctx.text(j))
        if other.visible and other.facts.tab_stop:
            return False
    return False


def _label_left(ctx: Context, i: int) -> bool:
    """A visible sibling Label on the same row, to the left, whose caption ends with ':'."""
    parent = ctx.items[i].parent
    b = ctx.items[i].facts.bounds
    if parent is None or b is None:
        return False
    mid = b.y + b.height / 2
    for j in ctx.items[parent].children:
        other = ctx.items[j]
        lb = other.facts.bounds
        if j == i or not other.facts.is_label or not other.visible or lb is None:
            continue
        if lb.x + lb.width <= b.x + 2 and lb.y <= mid <= lb.y + lb.height:
            text = (ctx.text(j) or "").rstrip()
            if text.endswith(":"):
                return True
    return False


__all__ = ["LARGE_ITEM_COUNT", "LEVELS", "PROVIDERS", "PROVIDER_NAMES", "run_diagnostics"]
