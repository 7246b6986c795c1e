"""The providers: one rule per kind of problem, each over the walked elements and their facts.

Toolkit-agnostic: a rule judges plain facts (naming, state, ``DiagnosticFacts``,
bindings, binding errors); what a toolkit knows stays in its adapter. Messages
name elements, properties, binding paths and resource keys, never a value.
"""

from __future__ import annotations

from collections.abc import Iterator

from wpfprobe.core.protocol import Bounds
from wpfprobe.engine.diagnostics.model import (
    BOTH,
    LARGE_ITEM_COUNT,
    MAX_ERROR_TEXT,
    MAX_NAMED_IN_SUGGESTION,
    TEXT_SLACK_PX,
    WINFORMS,
    WPF,
    Context,
    Provider,
    Raw,
    clip,
    contains,
    is_zero,
    label_before,
    label_left,
    longest_increasing,
    reading_order,
    size,
    unique,
)

# -- the providers -------------------------------------------------------------------


def _binding_errors(ctx: Context) -> Iterator[Raw | None]:
    read = getattr(ctx.h.adapter, "binding_errors", None)
    if read is None:
        return
    for item in ctx.items:
        if ctx.pause():
            yield None  # a pause: the UI thread is let go (EngineBase.sliced)
        i = item.index
        for record in read(item.el):
            prop = record.property_name
            where = f"{prop} of {ctx.describe(i)}" if prop else ctx.describe(i)
            withheld = ctx.is_redacted(i, prop, record.path)
            if withheld:
                what = "(its text is withheld: the binding touches a secret)"
            else:
                what = clip(" ".join(str(record.message).split()), MAX_ERROR_TEXT)
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


def _null_datacontext(ctx: Context) -> Iterator[Raw | None]:
    read = getattr(ctx.h.adapter, "bindings", None)
    if read is None:
        return
    read_errors = getattr(ctx.h.adapter, "binding_errors", None)
    for item in ctx.items:
        if ctx.pause():
            yield None  # a pause: the UI thread is let go (EngineBase.sliced)
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
        names = unique(no_context + no_current)
        if not names:
            continue
        props = ", ".join(names)
        paths_text = f" (paths {', '.join(unique(paths))})" if paths else ""
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
            {"properties": props, "paths": ", ".join(unique(paths)) or None,
             "reason": "null-datacontext" if no_context else "no-current-item"},
        )  # fmt: skip


def _unresolved_dynamic_resource(ctx: Context) -> Iterator[Raw | None]:
    for item in ctx.items:
        if ctx.pause():
            yield None  # a pause: the UI thread is let go (EngineBase.sliced)
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


def _non_virtualized_items(ctx: Context) -> Iterator[Raw | None]:
    for item in ctx.items:
        if ctx.pause():
            yield None  # a pause: the UI thread is let go (EngineBase.sliced)
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


def _zero_size(ctx: Context) -> Iterator[Raw | None]:
    for item in ctx.items:
        if ctx.pause():
            yield None  # a pause: the UI thread is let go (EngineBase.sliced)
        f = item.facts
        b = f.bounds
        if not item.visible or item.template_part or f.zero_size_expected or b is None:
            continue
        if b.width > 0 and b.height > 0:
            continue
        i = item.index
        if item.parent is not None and is_zero(ctx.items[item.parent].facts.bounds):
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


def _clipped(ctx: Context) -> Iterator[Raw | None]:
    for item in ctx.items:
        if ctx.pause():
            yield None  # a pause: the UI thread is let go (EngineBase.sliced)
        if item.parent is None or not item.visible or item.template_part:
            continue
        b = item.facts.bounds
        parent = ctx.items[item.parent]
        if b is None or is_zero(b) or is_zero(parent.facts.bounds):
            continue
        i = item.index
        # Its own layout slot first (WPF), then the parent's client area (unless it scrolls).
        areas = [(item.facts.clip, f"the {size(item.facts.clip)} layout slot {ctx.describe(item.parent)} gives it")]
        if not parent.facts.scrolls:
            areas.append(
                (
                    parent.facts.client_area,
                    f"{ctx.describe(item.parent)}'s {size(parent.facts.client_area)} client area",
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


def _text_truncated(ctx: Context) -> Iterator[Raw | None]:
    for item in ctx.items:
        if ctx.pause():
            yield None  # a pause: the UI thread is let go (EngineBase.sliced)
        f = item.facts
        room, size, line, b = f.text_room, f.text_size, f.text_line, f.bounds
        if room is None or size is None or b is None or not item.visible or item.template_part or is_zero(b):
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


def _overlapping_siblings(ctx: Context) -> Iterator[Raw | None]:
    for parent in ctx.items:
        if ctx.pause():
            yield None  # a pause: the UI thread is let go (EngineBase.sliced)
        if not parent.facts.free_layout or not parent.visible or len(parent.children) < 2:
            continue
        boxes: list[tuple[int, Bounds]] = []
        for c in parent.children:
            kid = ctx.items[c]
            b = kid.facts.bounds
            if kid.visible and not kid.facts.docked and b is not None and not is_zero(b):
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
            backdrop = contains(ub, tb)
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
            elif contains(tb, ub):
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


def _tab_order(ctx: Context) -> Iterator[Raw | None]:
    # Whether Tab can reach into an element (its own tab stop, or a descendant's).
    reach = [False] * len(ctx.items)
    for item in reversed(ctx.items):
        if ctx.pause():
            yield None  # a pause: the UI thread is let go (EngineBase.sliced)
        if item.visible:
            reach[item.index] = item.facts.tab_stop or any(reach[c] for c in item.children)
    for parent in ctx.items:
        if ctx.pause():
            yield None  # a pause: the UI thread is let go (EngineBase.sliced)
        if not parent.visible:
            continue
        members = [
            c for c in parent.children
            if reach[c] and ctx.items[c].facts.tab_index is not None and not is_zero(ctx.items[c].facts.bounds)
        ]  # fmt: skip
        if len(members) < 2:
            continue
        by_tab = sorted(members, key=lambda c: (ctx.items[c].facts.tab_index, c))
        by_reading = reading_order(members, ctx)
        if by_tab == by_reading:
            continue
        rank = {c: n for n, c in enumerate(by_reading)}
        keep = longest_increasing([rank[c] for c in by_tab])
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


def _unnamed_input(ctx: Context) -> Iterator[Raw | None]:
    yield from ctx.tab_sequences()  # label_before's, made ahead in slices
    for item in ctx.items:
        if ctx.pause():
            yield None  # a pause: the UI thread is let go (EngineBase.sliced)
        f = item.facts
        if not f.is_input or not item.visible or f.has_accessible_name:
            continue
        i = item.index
        if item.parent is not None and ctx.items[item.parent].facts.is_input:
            continue  # a part of another input (the text box inside an up-down)
        if f.names_itself and ctx.text(i):
            continue
        if label_before(ctx, i) or label_left(ctx, i):
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
    Provider("binding-errors", BOTH, "elements with recorded binding errors (error)", _binding_errors, False),
    Provider(
        "null-datacontext",
        BOTH,
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
        BOTH,
        f"item controls with {LARGE_ITEM_COUNT}+ items and no virtualization (warning)",
        _non_virtualized_items,
    ),
    Provider("zero-size", BOTH, "visible elements of zero width or height (info, warning if usable)", _zero_size),
    Provider("clipped", BOTH, "elements extending outside their parent's client area (warning)", _clipped),
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
BY_NAME = {p.name: p for p in PROVIDERS}
